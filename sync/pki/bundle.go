package pki

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// WriteBundle writes id to path as one file for provisioning a new node: the
// village CA certificate, the node certificate and the node private key, as
// three PEM blocks in that order, then the cluster id if id has one (a
// fourth block, so that the new node knows which cluster it joins). It
// never holds the CA key. The file is
// created with mode 0600 because it holds a private key; carry it to the new
// node on removable media and delete it afterwards.
func WriteBundle(path string, id *Identity) error {
	keyPEM, err := encodeKey(id.key)
	if err != nil {
		return fmt.Errorf("write bundle for %s: %w", id.nodeID, err)
	}
	var buf bytes.Buffer
	buf.Write(encodeCert(id.ca))
	buf.Write(encodeCert(id.cert))
	buf.Write(keyPEM)
	if id.clusterID != "" {
		buf.Write(pem.EncodeToMemory(&pem.Block{Type: pemClusterID, Bytes: []byte(id.clusterID)}))
	}
	if err := writeFile(path, buf.Bytes(), keyMode); err != nil {
		return fmt.Errorf("write bundle for %s: %w", id.nodeID, err)
	}
	return nil
}

// ReadBundle reads a bundle that WriteBundle wrote and checks it whole: three
// PEM blocks and the cluster id (absent from a bundle made before cluster
// ids) and nothing else, a self-signed CA certificate, a node
// certificate signed by that CA and naming a valid node, and the key that
// matches it. A truncated, edited or foreign file fails with an error
// wrapping ErrBadBundle that says what is wrong. Validity dates are not
// checked here; TLS handshakes check them.
//
// A bundle cannot prove which village it came from: an operator who wants
// that assurance compares Fingerprint(id.CACertificate()) with the one shown
// on the node that made the CA.
func ReadBundle(path string) (*Identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w", err)
	}
	id, err := parseBundle(data)
	if err != nil {
		return nil, fmt.Errorf("read bundle %s: %w: %w", path, ErrBadBundle, err)
	}
	return id, nil
}

// parseBundle parses the contents of a bundle file.
func parseBundle(data []byte) (*Identity, error) {
	blocks, err := decodePEM(data)
	if err != nil {
		return nil, err
	}
	want := []string{pemCertificate, pemCertificate, pemPrivateKey}
	what := []string{"CA certificate", "node certificate", "node key"}
	for i, typ := range want {
		if i >= len(blocks) {
			return nil, fmt.Errorf("%s missing: found %d of 3 PEM blocks (truncated?)", what[i], len(blocks))
		}
		if blocks[i].Type != typ {
			return nil, fmt.Errorf("PEM block %d is %q, want the %s", i+1, blocks[i].Type, what[i])
		}
	}
	// A fourth block may carry the cluster id; a bundle written before
	// cluster ids has none.
	var clusterID string
	if len(blocks) == len(want)+1 && blocks[len(want)].Type == pemClusterID {
		clusterID = string(blocks[len(want)].Bytes)
		if err := ValidateClusterID(clusterID); err != nil {
			return nil, err
		}
		blocks = blocks[:len(want)]
	}
	if len(blocks) > len(want) {
		return nil, fmt.Errorf("%d PEM blocks, want 3 and a cluster id (a bundle never holds the CA key)", len(blocks))
	}
	ca, err := x509.ParseCertificate(blocks[0].Bytes)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(blocks[1].Bytes)
	if err != nil {
		return nil, fmt.Errorf("node certificate: %w", err)
	}
	key, err := parseKey(blocks[2].Bytes)
	if err != nil {
		return nil, fmt.Errorf("node key: %w", err)
	}
	id, err := newIdentity(cert, key, ca)
	if err != nil {
		return nil, err
	}
	id.clusterID = clusterID
	return id, nil
}
