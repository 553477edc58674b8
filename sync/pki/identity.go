package pki

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
	"sync/atomic"
)

// Identity is one node's credentials: its node id, its certificate and key,
// and the village CA certificate it trusts for its peers.
type Identity struct {
	nodeID string
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	ca     *x509.Certificate
	roots  *x509.CertPool
	role   string
	// clusterID is the cluster the node belongs to (Cluster); "" for a
	// cluster made before cluster ids, or an identity just issued.
	clusterID string
	// revoked, when set, says whether the cluster revoked a peer's
	// certificate; every handshake and VerifyPeer asks it.
	revoked atomic.Pointer[func(*x509.Certificate) error]
}

// SetRevocation makes every later handshake with a peer, both ways, and
// VerifyPeer ask check about the peer's certificate, refusing it when
// check returns an error (one wrapping ErrRevoked). The replicated node
// sets it to its ledger's list of revoked certificates.
func (id *Identity) SetRevocation(check func(*x509.Certificate) error) { id.revoked.Store(&check) }

func (id *Identity) checkRevoked(cert *x509.Certificate) error {
	if p := id.revoked.Load(); p != nil {
		return (*p)(cert)
	}
	return nil
}

// Role returns the node role the identity's certificate carries (RoleOf).
func (id *Identity) Role() string { return id.role }

// StatedRole returns the role the identity's certificate states, or "" for
// one issued before roles existed (StatedRole).
func (id *Identity) StatedRole() string {
	role, _ := StatedRole(id.cert)
	return role
}

// newIdentity checks that cert was signed by ca, matches key and names a
// valid node, and returns the Identity. It does not check validity dates:
// those are checked at every TLS handshake, against the clock of that moment.
func newIdentity(cert *x509.Certificate, key *ecdsa.PrivateKey, ca *x509.Certificate) (*Identity, error) {
	if err := checkCACert(ca); err != nil {
		return nil, err
	}
	if err := cert.CheckSignatureFrom(ca); err != nil {
		return nil, fmt.Errorf("node certificate %q: %w: %v", cert.Subject.CommonName, ErrUntrusted, err)
	}
	if cert.IsCA {
		return nil, fmt.Errorf("node certificate %q is a CA certificate", cert.Subject.CommonName)
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("node key does not match node certificate %q", cert.Subject.CommonName)
	}
	id, err := NodeIDOf(cert)
	if err != nil {
		return nil, err
	}
	role, err := RoleOf(cert)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	return &Identity{nodeID: id, cert: cert, key: key, ca: ca, roots: roots, role: role}, nil
}

// NodeID returns the node id named by the identity's certificate.
func (id *Identity) NodeID() string { return id.nodeID }

// Certificate returns the node certificate. The caller must not modify it.
func (id *Identity) Certificate() *x509.Certificate { return id.cert }

// CACertificate returns the village CA certificate the identity trusts. The
// caller must not modify it.
func (id *Identity) CACertificate() *x509.Certificate { return id.ca }

// tlsCertificate returns the node certificate and key for a tls.Config.
func (id *Identity) tlsCertificate() tls.Certificate {
	return tls.Certificate{
		Certificate: [][]byte{id.cert.Raw},
		PrivateKey:  id.key,
		Leaf:        id.cert,
	}
}

// VerifyPeer checks a certificate chain presented by a peer (leaf first, as
// in tls.ConnectionState.PeerCertificates): the leaf must chain to the
// village CA, be valid now, allow usage (x509.ExtKeyUsageClientAuth for a
// peer that dialed us, x509.ExtKeyUsageServerAuth for one we dialed) and
// carry a node id, which VerifyPeer returns. Host names are not checked:
// peers are known by node id, not by address. The error wraps ErrUntrusted
// or ErrNoNodeID.
func (id *Identity) VerifyPeer(chain []*x509.Certificate, usage x509.ExtKeyUsage) (string, error) {
	if len(chain) == 0 {
		return "", fmt.Errorf("verify peer: no certificate presented: %w", ErrUntrusted)
	}
	intermediates := x509.NewCertPool()
	for _, c := range chain[1:] {
		intermediates.AddCert(c)
	}
	opts := x509.VerifyOptions{
		Roots:         id.roots,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{usage},
	}
	if _, err := chain[0].Verify(opts); err != nil {
		return "", fmt.Errorf("verify peer %q: %w: %v", chain[0].Subject.CommonName, ErrUntrusted, err)
	}
	peer, err := NodeIDOf(chain[0])
	if err != nil {
		return "", fmt.Errorf("verify peer: %w", err)
	}
	if err := id.checkRevoked(chain[0]); err != nil {
		return "", fmt.Errorf("verify peer %s: %w", peer, err)
	}
	return peer, nil
}

// ServerTLS returns a TLS configuration for a node's peer port. It presents
// the node certificate, requires TLS 1.3, and requires every client to
// present a certificate that chains to the village CA, is valid for client
// authentication, and carries a node id. A handshake failing any of these is
// refused before any HTTP request is read. Each call returns a new
// configuration that the caller may change.
func (id *Identity) ServerTLS() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{id.tlsCertificate()},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    id.roots,
		// The standard verification above has checked the chain and the
		// client-auth usage; a village certificate must also name its node.
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("verify client: no certificate presented: %w", ErrUntrusted)
			}
			if _, err := NodeIDOf(cs.PeerCertificates[0]); err != nil {
				return fmt.Errorf("verify client: %w", err)
			}
			if err := id.checkRevoked(cs.PeerCertificates[0]); err != nil {
				return fmt.Errorf("verify client: %w", err)
			}
			return nil
		},
	}
}

// ClientTLS returns a TLS configuration for dialing another node's peer
// port. It presents the node certificate and requires TLS 1.3.
//
// The server is authenticated by node id, not by host name: the
// certificate it presents must chain to the village CA, be valid now, allow
// server authentication and carry a node id, and any node id is accepted.
// Standard host-name verification is therefore switched off
// (InsecureSkipVerify) and replaced by a VerifyConnection callback that does
// the chain check itself; Go runs VerifyConnection on every handshake,
// resumed ones included. This lets nodes dial each other by IP address,
// including 127.0.0.1 in tests and on a DHCP network where addresses change,
// without listing every address in every certificate. Which node answered
// can be read afterwards from the connection state with NodeIDOf. Each call
// returns a new configuration that the caller may change.
func (id *Identity) ClientTLS() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{id.tlsCertificate()},
		// RootCAs is unused while InsecureSkipVerify is set; with it, a
		// caller that sets ServerName and clears InsecureSkipVerify also
		// gets standard verification against the village CA.
		RootCAs: id.roots,
		// Verification is done in VerifyConnection below, against the
		// village CA, without a host name.
		InsecureSkipVerify: true, //nolint:gosec // replaced by VerifyConnection.
		VerifyConnection: func(cs tls.ConnectionState) error {
			if _, err := id.VerifyPeer(cs.PeerCertificates, x509.ExtKeyUsageServerAuth); err != nil {
				return fmt.Errorf("verify server: %w", err)
			}
			return nil
		},
	}
}

// Fingerprint returns the SHA-256 fingerprint of cert as colon-separated
// upper-case hex, the form operators compare when they check that a bundle
// carries their village's CA.
func Fingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	var b strings.Builder
	for i, c := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", c)
	}
	return b.String()
}

// WebTLS returns a TLS configuration for the node's staff pages and API,
// which browsers and automation reach over the village LAN: the node
// certificate (whose host names were given to `appliance init` or
// `appliance cert issue --host`), TLS 1.2 or later, no client
// certificate. Staff browsers trust the village CA certificate
// (pki/ca.crt), installed once per machine. Each call returns a new
// configuration that the caller may change.
func (id *Identity) WebTLS() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{id.tlsCertificate()},
	}
}

// CAPool returns a pool holding the village CA certificate, for clients
// that call a node's staff API (appliance user, appliance backup).
func (id *Identity) CAPool() *x509.CertPool { return id.roots }
