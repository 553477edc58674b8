package pki

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"fmt"
)

// Sign signs digest (a SHA-256 sum) with the node's key: an ASN.1 ECDSA
// signature that anyone holding the node's certificate can check
// (CheckSignature). The replicated ledger has every node sign the log
// entries it makes, so that a replica can tell which node made an entry
// whatever node, or forger, appended it to the log.
func (id *Identity) Sign(digest []byte) ([]byte, error) {
	sig, err := ecdsa.SignASN1(rand.Reader, id.key, digest)
	if err != nil {
		return nil, fmt.Errorf("sign as %s: %w", id.nodeID, err)
	}
	return sig, nil
}

// CheckSignature reports whether sig is cert's signature of digest (made
// by Identity.Sign with the certificate's key).
func CheckSignature(cert *x509.Certificate, digest, sig []byte) bool {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	return ok && ecdsa.VerifyASN1(pub, digest, sig)
}

// VerifyIssued checks that cert was issued by the village CA ca and names
// a node, whatever the time: the ledger checks a certificate's validity
// against the date of each command it signs, never against a clock. It
// returns the node id and role the certificate carries.
func VerifyIssued(ca *x509.Certificate, cert *x509.Certificate) (node, role string, err error) {
	if cert.IsCA {
		return "", "", fmt.Errorf("certificate %q is a CA certificate: %w", cert.Subject.CommonName, ErrUntrusted)
	}
	if err := cert.CheckSignatureFrom(ca); err != nil {
		return "", "", fmt.Errorf("certificate %q: %w: %v", cert.Subject.CommonName, ErrUntrusted, err)
	}
	if node, err = NodeIDOf(cert); err != nil {
		return "", "", err
	}
	if role, err = RoleOf(cert); err != nil {
		return "", "", err
	}
	return node, role, nil
}
