package badgerstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/sync/pki"
)

// ClusterKey is the key under which a store records the cluster whose data
// it holds (JSON of a pki.Cluster). Like MarkerKey it begins with 0x00: it
// is node-local, skipped by state hashes and snapshots, so a snapshot or a
// backup never carries one cluster's identity into another's store.
const ClusterKey = "\x00cluster"

// ForeignClusterError is the error BindCluster returns for a store that
// belongs to another cluster than the node opening it. It wraps
// pki.ErrForeignCluster.
type ForeignClusterError struct {
	What  string      // the store ("raft log", "ledger state")
	Dir   string      // its folder
	Found pki.Cluster // the cluster the store records
	Want  pki.Cluster // the node's, from its certificates
}

// Error says which clusters, and what the operator can do.
func (e *ForeignClusterError) Error() string {
	return fmt.Sprintf("this node's %s (%s) belongs to %s; this node's certificates are of %s: "+
		"this data folder is another cluster's. Move the data folder aside and join this node to its cluster from empty "+
		"(docs/operating.md, Rebuilding a node), or restore a backup of this node's cluster (appliance restore)",
		e.What, e.Dir, e.Found, e.Want)
}

// Unwrap returns pki.ErrForeignCluster.
func (e *ForeignClusterError) Unwrap() error { return pki.ErrForeignCluster }

// Bound is one store for BindCluster: its database and its name in
// messages.
type Bound struct {
	What string
	DB   *badger.DB
}

// ReadCluster returns the cluster db records, and false if it records none.
func ReadCluster(db *badger.DB) (pki.Cluster, bool, error) {
	var c pki.Cluster
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(ClusterKey))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &c) })
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return pki.Cluster{}, false, nil
	}
	if err != nil {
		return pki.Cluster{}, false, fmt.Errorf("read the store's cluster: %w", err)
	}
	return c, true, nil
}

// WriteCluster records c in db, durably when it returns nil.
func WriteCluster(db *badger.DB, c pki.Cluster) error {
	v, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("record the store's cluster: %w", err)
	}
	err = db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(ClusterKey), v) })
	if err == nil && !db.Opts().SyncWrites {
		err = db.Sync()
	}
	if err != nil {
		return fmt.Errorf("record the store's cluster: %w", err)
	}
	return nil
}

// CheckCluster returns nil if a store that records found (recorded says
// whether it records any) may be opened by a node of cluster want, or a
// *ForeignClusterError naming both. A store that records no cluster may:
// see BindCluster.
func CheckCluster(what, dir string, found pki.Cluster, recorded bool, want pki.Cluster) error {
	if !recorded || found == want {
		return nil
	}
	return &ForeignClusterError{What: what, Dir: dir, Found: found, Want: want}
}

// BindCluster checks, at every open, that the stores of one data folder
// belong to the cluster want, the cluster of the node's certificates. If
// any store records another cluster it returns that store's
// *ForeignClusterError and writes nothing: a node started on another
// cluster's folders (the other cluster's raft log would win an election and
// hand its ledger to this one) refuses to start instead.
//
// A store that records no cluster gets want, once every store has passed
// the check: a new store, written at bootstrap or when the node joins; a
// store made before stores recorded their cluster, which is adopted by the
// cluster of the node that opens it first after the upgrade (nothing in it
// can say otherwise); and a ledger state emptied by a snapshot restore,
// whose node-local keys go with the rest.
func BindCluster(want pki.Cluster, stores ...Bound) error {
	if want.IsZero() {
		return errors.New("bind stores to a cluster: no cluster given")
	}
	var missing []*badger.DB
	for _, s := range stores {
		found, recorded, err := ReadCluster(s.DB)
		if err != nil {
			return fmt.Errorf("open %s %s: %w", s.What, s.DB.Opts().Dir, err)
		}
		if err := CheckCluster(s.What, s.DB.Opts().Dir, found, recorded, want); err != nil {
			return err
		}
		if !recorded {
			missing = append(missing, s.DB)
		}
	}
	for _, db := range missing {
		if err := WriteCluster(db, want); err != nil {
			return fmt.Errorf("open %s: %w", db.Opts().Dir, err)
		}
	}
	return nil
}
