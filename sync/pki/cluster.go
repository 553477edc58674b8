package pki

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ClusterIDFile holds, beside a node's certificates, the id of the cluster
// the node belongs to: one line of hex. `appliance init` makes it for a new
// cluster; a bundle carries it to each node that joins.
const ClusterIDFile = "cluster.id"

// clusterIDBytes is the length of a cluster id before hex encoding.
const clusterIDBytes = 16

// pemClusterID is the PEM block type of the cluster id in a bundle.
const pemClusterID = "VILLAGE CLUSTER ID"

// ErrForeignCluster is wrapped by errors that refuse data or a peer of
// another cluster than this node's.
var ErrForeignCluster = errors.New("another cluster")

// Cluster names one cluster: the village CA that certifies its nodes and
// the random id made when the cluster was. Two clusters of one village (a
// cluster restored from a backup to try it out beside the real one, say)
// share a CA and differ by id.
//
// A cluster made before cluster ids existed has the empty id; its CA alone
// names it, and every one of its nodes has the empty id too, so they still
// agree with one another.
type Cluster struct {
	// CA is the SHA-256 fingerprint of the village CA certificate
	// (Fingerprint).
	CA string `json:"ca"`
	// ID is the cluster id (NewClusterID), or "" for a cluster made
	// before cluster ids.
	ID string `json:"id"`
}

// IsZero reports whether c names no cluster at all (no CA).
func (c Cluster) IsZero() bool { return c.CA == "" }

// String names the cluster for operators: "cluster 3f…e1 (CA AB:CD:…)".
func (c Cluster) String() string {
	if c.IsZero() {
		return "no cluster"
	}
	if c.ID == "" {
		return fmt.Sprintf("the cluster made before cluster ids (CA %s)", c.CA)
	}
	return fmt.Sprintf("cluster %s (CA %s)", c.ID, c.CA)
}

// NewClusterID returns a new random cluster id: 16 random bytes in hex.
func NewClusterID() (string, error) {
	b := make([]byte, clusterIDBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new cluster id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ValidateClusterID checks that id is a cluster id as NewClusterID makes
// them: 32 lower-case hex digits.
func ValidateClusterID(id string) error {
	if len(id) != 2*clusterIDBytes || strings.ToLower(id) != id {
		return fmt.Errorf("cluster id %q is not %d lower-case hex digits", id, 2*clusterIDBytes)
	}
	if _, err := hex.DecodeString(id); err != nil {
		return fmt.Errorf("cluster id %q is not %d lower-case hex digits", id, 2*clusterIDBytes)
	}
	return nil
}

// Cluster returns the cluster the identity's node belongs to: its CA's
// fingerprint and its cluster id ("" for a cluster made before cluster
// ids).
func (id *Identity) Cluster() Cluster {
	return Cluster{CA: Fingerprint(id.ca), ID: id.clusterID}
}

// WithClusterID returns a copy of the identity that belongs to the cluster
// with id clusterID. The copy asks no revocation check until SetRevocation
// is called on it.
func (id *Identity) WithClusterID(clusterID string) (*Identity, error) {
	if err := ValidateClusterID(clusterID); err != nil {
		return nil, err
	}
	return &Identity{nodeID: id.nodeID, cert: id.cert, key: id.key, ca: id.ca, roots: id.roots, role: id.role, clusterID: clusterID}, nil
}

// LoadClusterID reads the cluster id in dir (ClusterIDFile). A folder
// without one belongs to a cluster made before cluster ids: LoadClusterID
// returns "" and no error.
func LoadClusterID(dir string) (string, error) {
	path := filepath.Join(dir, ClusterIDFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("load cluster id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if err := ValidateClusterID(id); err != nil {
		return "", fmt.Errorf("load cluster id from %s: %w", path, err)
	}
	return id, nil
}

// saveClusterID writes clusterID into dir, refusing to replace another
// one: that folder belongs to another cluster.
func saveClusterID(dir, clusterID string) error {
	old, err := LoadClusterID(dir)
	if err != nil {
		return err
	}
	switch {
	case old == clusterID:
		return nil
	case old != "":
		return fmt.Errorf("%s holds cluster id %s, not %s: %w", filepath.Join(dir, ClusterIDFile), old, clusterID, ErrForeignCluster)
	}
	return writeFile(filepath.Join(dir, ClusterIDFile), []byte(clusterID+"\n"), certMode)
}
