package pki

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File names inside a data folder.
const (
	// CACertFile holds the village CA certificate (PEM). Every node has one.
	CACertFile = "ca.crt"
	// CAKeyFile holds the village CA private key (PEM, PKCS #8, mode 0600).
	// Only the node that made the CA has one.
	CAKeyFile = "ca.key"
	// NodeCertFile holds the node certificate (PEM).
	NodeCertFile = "node.crt"
	// NodeKeyFile holds the node private key (PEM, PKCS #8, mode 0600).
	NodeKeyFile = "node.key"
)

// File modes: private keys are readable by the appliance's user only.
const (
	dirMode  fs.FileMode = 0o700
	certMode fs.FileMode = 0o644
	keyMode  fs.FileMode = 0o600
)

// errNotECDSA reports a private key of another type than ECDSA.
var errNotECDSA = errors.New("private key is not an ECDSA key")

// PEM block types.
const (
	pemCertificate = "CERTIFICATE"
	pemPrivateKey  = "PRIVATE KEY"
)

// SaveCA writes the CA certificate and key into dir as ca.crt and ca.key
// (mode 0600), creating dir (mode 0700) if needed. It refuses to replace an
// existing ca.key: losing a CA key orphans every node certificate it signed.
func SaveCA(dir string, ca *CA) error {
	keyPath := filepath.Join(dir, CAKeyFile)
	if _, err := os.Lstat(keyPath); err == nil {
		return fmt.Errorf("save village CA: %s: %w", keyPath, fs.ErrExist)
	}
	keyPEM, err := encodeKey(ca.key)
	if err != nil {
		return fmt.Errorf("save village CA: %w", err)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("save village CA: %w", err)
	}
	// The key first: a crash between the two writes leaves a key without a
	// certificate, which LoadCA reports, never a certificate without a key.
	if err := writeFile(keyPath, keyPEM, keyMode); err != nil {
		return fmt.Errorf("save village CA: %w", err)
	}
	if err := writeFile(filepath.Join(dir, CACertFile), encodeCert(ca.cert), certMode); err != nil {
		return fmt.Errorf("save village CA: %w", err)
	}
	return nil
}

// LoadCA reads the CA certificate and key that SaveCA wrote into dir and
// checks that they belong together.
func LoadCA(dir string) (*CA, error) {
	cert, err := readCertFile(filepath.Join(dir, CACertFile))
	if err != nil {
		return nil, fmt.Errorf("load village CA: %w", err)
	}
	key, err := readKeyFile(filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, fmt.Errorf("load village CA: %w", err)
	}
	ca, err := newCA(cert, key)
	if err != nil {
		return nil, fmt.Errorf("load village CA from %s: %w", dir, err)
	}
	return ca, nil
}

// SaveIdentity writes the node certificate, the node key (mode 0600) and the
// CA certificate into dir as node.crt, node.key and ca.crt, and the cluster
// id, if the identity has one, as cluster.id, creating dir (mode 0700) if
// needed. Each file is replaced atomically, so a renewed identity can be
// saved over an old one. It refuses to replace a ca.crt of another CA
// (that folder belongs to another village), or a cluster.id of another
// cluster (wrapping ErrForeignCluster), before it writes anything.
func SaveIdentity(dir string, id *Identity) error {
	caPath := filepath.Join(dir, CACertFile)
	if old, err := readCertFile(caPath); err == nil {
		if !old.Equal(id.ca) {
			return fmt.Errorf("save identity %s: %s holds another CA (fingerprint %s)", id.nodeID, caPath, Fingerprint(old))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save identity %s: %w", id.nodeID, err)
	}
	if id.clusterID != "" {
		old, err := LoadClusterID(dir)
		if err != nil {
			return fmt.Errorf("save identity %s: %w", id.nodeID, err)
		}
		if old != "" && old != id.clusterID {
			return fmt.Errorf("save identity %s: %s holds cluster id %s, not %s: %w", id.nodeID, filepath.Join(dir, ClusterIDFile), old, id.clusterID, ErrForeignCluster)
		}
	}
	keyPEM, err := encodeKey(id.key)
	if err != nil {
		return fmt.Errorf("save identity %s: %w", id.nodeID, err)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("save identity %s: %w", id.nodeID, err)
	}
	files := []struct {
		name string
		data []byte
		mode fs.FileMode
	}{
		{CACertFile, encodeCert(id.ca), certMode},
		{NodeKeyFile, keyPEM, keyMode},
		{NodeCertFile, encodeCert(id.cert), certMode},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("save identity %s: %w", id.nodeID, err)
		}
	}
	if id.clusterID != "" {
		if err := saveClusterID(dir, id.clusterID); err != nil {
			return fmt.Errorf("save identity %s: %w", id.nodeID, err)
		}
	}
	return nil
}

// LoadIdentity reads the identity that SaveIdentity wrote into dir and checks
// that the node certificate was signed by the CA beside it, matches the key
// and names a valid node. A folder without cluster.id (one made before
// cluster ids) gives an identity with the empty cluster id.
func LoadIdentity(dir string) (*Identity, error) {
	ca, err := readCertFile(filepath.Join(dir, CACertFile))
	if err != nil {
		return nil, fmt.Errorf("load identity: %w", err)
	}
	cert, err := readCertFile(filepath.Join(dir, NodeCertFile))
	if err != nil {
		return nil, fmt.Errorf("load identity: %w", err)
	}
	key, err := readKeyFile(filepath.Join(dir, NodeKeyFile))
	if err != nil {
		return nil, fmt.Errorf("load identity: %w", err)
	}
	id, err := newIdentity(cert, key, ca)
	if err != nil {
		return nil, fmt.Errorf("load identity from %s: %w", dir, err)
	}
	if id.clusterID, err = LoadClusterID(dir); err != nil {
		return nil, fmt.Errorf("load identity: %w", err)
	}
	return id, nil
}

// encodeCert returns cert as a PEM block.
func encodeCert(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: cert.Raw})
}

// encodeKey returns key as a PKCS #8 PEM block.
func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPrivateKey, Bytes: der}), nil
}

// parseKey parses a PKCS #8 ECDSA private key.
func parseKey(der []byte) (*ecdsa.PrivateKey, error) {
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("parse private key: %w", err)
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("parse private key: %w (got %T)", errNotECDSA, k)
	}
	return key, nil
}

// readCertFile reads a file holding exactly one PEM certificate.
func readCertFile(path string) (*x509.Certificate, error) {
	der, err := readPEMFile(path, pemCertificate)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%s: parse certificate: %w", path, err)
	}
	return cert, nil
}

// readKeyFile reads a file holding exactly one PEM private key.
func readKeyFile(path string) (*ecdsa.PrivateKey, error) {
	der, err := readPEMFile(path, pemPrivateKey)
	if err != nil {
		return nil, err
	}
	key, err := parseKey(der)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// readPEMFile reads a file holding exactly one PEM block of type typ and
// returns its contents.
func readPEMFile(path, typ string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blocks, err := decodePEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(blocks) != 1 || blocks[0].Type != typ {
		return nil, fmt.Errorf("%s: want one %s PEM block, found %d block(s)", path, typ, len(blocks))
	}
	return blocks[0].Bytes, nil
}

// decodePEM decodes data as a sequence of PEM blocks separated by white
// space only. Unlike pem.Decode alone it rejects text around or between the
// blocks, so that a truncated or edited file is reported, not half-read.
func decodePEM(data []byte) ([]*pem.Block, error) {
	var blocks []*pem.Block
	rest := data
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) == 0 {
			return blocks, nil
		}
		if !bytes.HasPrefix(rest, []byte("-----BEGIN ")) {
			return nil, fmt.Errorf("unexpected data after PEM block %d (truncated or edited?)", len(blocks))
		}
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, fmt.Errorf("PEM block %d is incomplete or corrupt (truncated or edited?)", len(blocks)+1)
		}
		if len(b.Headers) > 0 {
			return nil, fmt.Errorf("PEM block %d has unexpected headers", len(blocks)+1)
		}
		blocks = append(blocks, b)
	}
}

// writeFile writes data to path with mode perm, atomically: it writes a
// temporary file beside path, syncs it and renames it over path, so a power
// cut leaves either the old file or the new one, never a torn one.
func writeFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Make the rename itself durable. Not every file system can sync a
	// directory; the file's contents are already safe, so that is ignored.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
