package replica

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
)

// Cluster identity. Each of a node's Badger stores (the raft log with its
// stable store and outbox in raft/, the ledger in state/) records the
// cluster it belongs to under badgerstore.ClusterKey, a node-local key the
// state hash and snapshots skip. Every open checks it against the cluster
// of the node's certificates (Config.Cluster): a node started on another
// cluster's folders refuses to start, naming both clusters, rather than
// win an election with the other cluster's log and hand its ledger to its
// peers. The peer handshake checks the same cluster id (wsstream), so a
// node of another cluster with the same CA is refused before any RPC.

// bindStores checks that the node's raft log and ledger state belong to
// cluster c, recording c in a store that records none
// (badgerstore.BindCluster). A zero c checks nothing: a node alone, with
// no peers to mislead, or one whose caller does not know its cluster.
func bindStores(c pki.Cluster, logDB, stateDB *badger.DB) error {
	if c.IsZero() {
		return nil
	}
	return badgerstore.BindCluster(c,
		badgerstore.Bound{What: "raft log", DB: logDB},
		badgerstore.Bound{What: "ledger state", DB: stateDB})
}

// BindCluster checks that the ledger state belongs to cluster c, recording
// c if it records no cluster yet (badgerstore.BindCluster). `appliance
// restore` calls it on the ledger it restored, for the cluster of the data
// folder's certificates.
func (f *FSM) BindCluster(c pki.Cluster) error {
	return badgerstore.BindCluster(c, badgerstore.Bound{What: "ledger state", DB: f.db})
}

// keepCluster reads the cluster db records, for a restore to write it back
// with restoreCluster after DropAll has emptied the store.
func keepCluster(db *badger.DB) (pki.Cluster, bool, error) {
	return badgerstore.ReadCluster(db)
}

// restoreCluster writes back the cluster keepCluster read, if any.
func restoreCluster(db *badger.DB, c pki.Cluster, recorded bool) error {
	if !recorded {
		return nil
	}
	return badgerstore.WriteCluster(db, c)
}

// checkPeerCluster checks that the cluster a clustered node was configured
// with is its certificates' one.
func checkPeerCluster(cfg Config, ident *pki.Identity) (pki.Cluster, error) {
	c := ident.Cluster()
	if !cfg.Cluster.IsZero() && cfg.Cluster != c {
		return c, fmt.Errorf("replica: configured for %s, but the node's certificates are of %s: %w", cfg.Cluster, c, pki.ErrForeignCluster)
	}
	return c, nil
}
