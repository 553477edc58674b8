// Package pki makes and keeps the village certificate authority and the node
// identities it signs.
//
// Every appliance node (kiosk, clerk, backup) holds an Identity: an ECDSA
// P-256 key, a certificate naming the node, and the village CA certificate it
// trusts. Nodes authenticate each other with mutual TLS using these
// identities; a node without a certificate signed by the village CA cannot
// join, replicate, forward or read.
//
// ECDSA P-256 is used rather than Ed25519 because the same certificates serve
// the staff pages over HTTPS, and browsers do not accept Ed25519 certificates.
//
// Only the standard library's crypto is used. Keys and certificates are kept
// as PEM files in a node's data folder (see SaveCA, SaveIdentity) or, for
// carrying an identity to a new node, in one bundle file (see WriteBundle).
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Validity periods and the clock allowance used when issuing certificates.
const (
	// caValidityYears is how long the village CA certificate is valid.
	caValidityYears = 10
	// nodeValidityYears is how long a node certificate is valid; it is
	// shortened further if the CA expires sooner.
	nodeValidityYears = 5
	// backdate moves NotBefore into the past so that a node whose clock runs
	// a little behind the issuing node's (a Pi has no battery clock until its
	// RTC and chrony have set it) still accepts a freshly issued certificate.
	backdate = time.Hour
)

// nodeURNPrefix is the URI SAN prefix that carries a node id:
// urn:village-node:<id>; roleURNPrefix the one that carries the node's
// role: urn:village-role:<role>.
const (
	nodeURNPrefix = "urn:village-node:"
	roleURNPrefix = "urn:village-role:"
)

// Sentinel errors, compared with errors.Is.
var (
	// ErrInvalidNodeID reports a node id outside ^[a-z0-9][a-z0-9-]{0,31}$.
	ErrInvalidNodeID = errors.New("invalid node id")
	// ErrNoNodeID reports a certificate without exactly one node id URI SAN.
	ErrNoNodeID = errors.New("certificate carries no village node id")
	// ErrUntrusted reports a certificate that the village CA did not sign,
	// or one that is not valid for the use it was presented for.
	ErrUntrusted = errors.New("certificate not trusted by the village CA")
	// ErrBadBundle reports a bundle file that is truncated, tampered with or
	// otherwise not a bundle written by WriteBundle.
	ErrBadBundle = errors.New("bad node bundle")
	// ErrRevoked reports a certificate the cluster revoked when it removed
	// its node.
	ErrRevoked = errors.New("certificate revoked")
)

// CA is the village certificate authority: a self-signed certificate and
// its private key. Only the node that runs `appliance init` holds the key;
// other nodes receive the CA certificate alone, inside their bundle.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewCA makes a new village CA named after village, valid for ten years from
// now (backdated one hour for clock skew between nodes).
func NewCA(village string, now time.Time) (*CA, error) {
	village = strings.TrimSpace(village)
	if village == "" || strings.IndexFunc(village, unicode.IsControl) >= 0 {
		return nil, fmt.Errorf("new village CA: village name %q must be non-empty printable text", village)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new village CA: generate key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, fmt.Errorf("new village CA: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{
			CommonName:   village + " Village CA",
			Organization: []string{village},
		},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.AddDate(caValidityYears, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// The CA signs node certificates directly; it never delegates to
		// an intermediate.
		MaxPathLen:     0,
		MaxPathLenZero: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("new village CA: sign certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("new village CA: parse certificate: %w", err)
	}
	return newCA(cert, key)
}

// newCA checks that cert is a self-signed CA certificate matching key.
func newCA(cert *x509.Certificate, key *ecdsa.PrivateKey) (*CA, error) {
	if err := checkCACert(cert); err != nil {
		return nil, err
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("CA key does not match CA certificate")
	}
	return &CA{cert: cert, key: key}, nil
}

// checkCACert checks that cert is a self-signed certificate authority.
func checkCACert(cert *x509.Certificate) error {
	if !cert.BasicConstraintsValid || !cert.IsCA {
		return errors.New("CA certificate is not marked as a certificate authority")
	}
	if err := cert.CheckSignatureFrom(cert); err != nil {
		return fmt.Errorf("CA certificate is not validly self-signed: %w", err)
	}
	return nil
}

// Certificate returns the CA certificate. The caller must not modify it.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// Village returns the village name the CA was made for.
func (ca *CA) Village() string {
	if len(ca.cert.Subject.Organization) > 0 {
		return ca.cert.Subject.Organization[0]
	}
	return ca.cert.Subject.CommonName
}

// Issue makes a new key and a certificate for the node nodeID with role
// (kiosk, clerk or backup: what the node may do, see RoleOf), valid for
// five years from now (never past the CA's own expiry) for both TLS
// servers and TLS clients. The node id is both the subject CommonName and
// a URI SAN urn:village-node:<id>, which is what peers read (see
// NodeIDOf); the role is a URI SAN urn:village-role:<role>, signed by the
// CA like the rest, so a node cannot claim more than it was issued. Each
// of hosts becomes an IP SAN if it parses as an IP address and a DNS SAN
// otherwise; with no hosts, "localhost" and "127.0.0.1" are used so that a
// node's own browser can reach it over loopback.
func (ca *CA) Issue(nodeID, role string, hosts []string, now time.Time) (*Identity, error) {
	if err := ValidateNodeID(nodeID); err != nil {
		return nil, fmt.Errorf("issue node certificate: %w", err)
	}
	if err := ValidateRole(role); err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: %w", nodeID, err)
	}
	if now.After(ca.cert.NotAfter) {
		return nil, fmt.Errorf("issue node certificate for %s: village CA expired on %s", nodeID, ca.cert.NotAfter.Format(time.DateOnly))
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1"}
	}
	var (
		dnsNames []string
		ips      []net.IP
	)
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return nil, fmt.Errorf("issue node certificate for %s: empty host name", nodeID)
		case net.ParseIP(h) != nil:
			ips = append(ips, net.ParseIP(h))
		case strings.ContainsAny(h, " /:@") || strings.IndexFunc(h, unicode.IsControl) >= 0:
			return nil, fmt.Errorf("issue node certificate for %s: %q is neither an IP address nor a DNS name", nodeID, h)
		default:
			dnsNames = append(dnsNames, h)
		}
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: generate key: %w", nodeID, err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: %w", nodeID, err)
	}
	notAfter := now.AddDate(nodeValidityYears, 0, 0)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{
			CommonName:   nodeID,
			Organization: []string{ca.Village()},
		},
		NotBefore:             now.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		DNSNames:              dnsNames,
		IPAddresses:           ips,
		URIs:                  []*url.URL{nodeURN(nodeID), {Scheme: "urn", Opaque: strings.TrimPrefix(roleURNPrefix, "urn:") + role}},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: sign: %w", nodeID, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: parse: %w", nodeID, err)
	}
	id, err := newIdentity(cert, key, ca.cert)
	if err != nil {
		return nil, fmt.Errorf("issue node certificate for %s: %w", nodeID, err)
	}
	return id, nil
}

// newSerial returns a random 128-bit certificate serial number.
func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generate serial number: %w", err)
	}
	return serial, nil
}

// nodeURN returns the URI SAN naming node id.
func nodeURN(id string) *url.URL {
	return &url.URL{Scheme: "urn", Opaque: strings.TrimPrefix(nodeURNPrefix, "urn:") + id}
}

// ValidateNodeID reports whether id is a valid node id: one to 32 characters
// of lower-case ASCII letters, digits and hyphens, not starting with a
// hyphen (^[a-z0-9][a-z0-9-]{0,31}$). The error wraps ErrInvalidNodeID.
func ValidateNodeID(id string) error {
	if len(id) == 0 || len(id) > 32 {
		return fmt.Errorf("%w %q: must be 1 to 32 characters", ErrInvalidNodeID, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return fmt.Errorf("%w %q: use lower-case letters, digits and inner hyphens only", ErrInvalidNodeID, id)
		}
	}
	return nil
}

// NodeIDOf returns the node id that cert carries in its
// urn:village-node:<id> URI SAN. It does not check who signed cert: use
// Identity.VerifyPeer for a certificate presented by a peer. The error wraps
// ErrNoNodeID when there is no such SAN or more than one, and
// ErrInvalidNodeID when the id is malformed.
func NodeIDOf(cert *x509.Certificate) (string, error) {
	if cert == nil {
		return "", fmt.Errorf("read node id: %w", ErrNoNodeID)
	}
	var ids []string
	for _, u := range cert.URIs {
		if s := u.String(); strings.HasPrefix(s, nodeURNPrefix) {
			ids = append(ids, strings.TrimPrefix(s, nodeURNPrefix))
		}
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("read node id of %q: %w", cert.Subject.CommonName, ErrNoNodeID)
	case 1:
	default:
		return "", fmt.Errorf("read node id of %q: %w (it has %d)", cert.Subject.CommonName, ErrNoNodeID, len(ids))
	}
	if err := ValidateNodeID(ids[0]); err != nil {
		return "", fmt.Errorf("read node id of %q: %w", cert.Subject.CommonName, err)
	}
	return ids[0], nil
}

// Node roles. A node's role says what it may do in the cluster: the kiosk in
// the public hallway takes resident commands only; the clerk's node and
// the backup serve the clerk's office too. The commands each role may take
// are the domain's (domain.NodeRole); the certificate only carries the name.
const (
	RoleKiosk  = "kiosk"
	RoleClerk  = "clerk"
	RoleBackup = "backup"
)

// ValidateRole reports whether role is one of the node roles.
func ValidateRole(role string) error {
	switch role {
	case RoleKiosk, RoleClerk, RoleBackup:
		return nil
	}
	return fmt.Errorf("unknown node role %q (kiosk, clerk or backup)", role)
}

// RoleOf returns the role that cert carries in its urn:village-role:<role>
// URI SAN. A certificate issued before roles existed carries none: it is
// given the least, RoleKiosk, so that an old certificate never has more
// rights than a new one would (reissue it with `appliance cert issue
// --role`). More than one role, or an unknown one, is an error.
func RoleOf(cert *x509.Certificate) (string, error) {
	role, err := StatedRole(cert)
	if err == nil && role == "" {
		role = RoleKiosk
	}
	return role, err
}

// StatedRole returns the role cert states in its urn:village-role:<role>
// URI SAN, or "" for a certificate issued before roles existed (which
// RoleOf reads as the kiosk's). More than one role, or an unknown one, is
// an error.
func StatedRole(cert *x509.Certificate) (string, error) {
	if cert == nil {
		return "", fmt.Errorf("read node role: %w", ErrNoNodeID)
	}
	var roles []string
	for _, u := range cert.URIs {
		if s := u.String(); strings.HasPrefix(s, roleURNPrefix) {
			roles = append(roles, strings.TrimPrefix(s, roleURNPrefix))
		}
	}
	switch len(roles) {
	case 0:
		return "", nil
	case 1:
		return roles[0], ValidateRole(roles[0])
	}
	return "", fmt.Errorf("certificate %q carries %d roles", cert.Subject.CommonName, len(roles))
}
