package replica_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// clusterIdentity issues node id of a new cluster of ca.
func clusterIdentity(t *testing.T, ca *pki.CA, id string) *pki.Identity {
	t.Helper()
	ident, err := ca.Issue(id, pki.RoleClerk, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cid, err := pki.NewClusterID()
	if err != nil {
		t.Fatal(err)
	}
	if ident, err = ident.WithClusterID(cid); err != nil {
		t.Fatal(err)
	}
	return ident
}

// openPeer opens a clustered node alone on dir with ident, bootstrapping
// on an empty folder.
func openPeer(t *testing.T, dir string, ident *pki.Identity) (*replica.Node, error) {
	t.Helper()
	addr := synctest.FreeAddr(t)
	return replica.OpenPeer(replica.Config{Dir: dir, Params: domain.DefaultParams(), Bootstrap: true,
		Logger: slog.New(slog.DiscardHandler)}, replica.PeerConfig{Identity: ident, Listen: addr})
}

// storeClusters returns the clusters the raft log and ledger state of a
// stopped node's data folder record.
func storeClusters(t *testing.T, dir string) (raftLog, state pki.Cluster) {
	t.Helper()
	var got [2]pki.Cluster
	for i, sub := range []string{"raft", "state"} {
		db, err := badgerstore.OpenDB(badgerstore.PiOptions(filepath.Join(dir, sub)).WithReadOnly(true), sub)
		if err != nil {
			t.Fatal(err)
		}
		c, ok, err := badgerstore.ReadCluster(db)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got[i] = c
		}
	}
	return got[0], got[1]
}

// TestNodeRefusesAnotherClustersFolders replays the probe's second step: a
// node restarted, with its own certificates, on another cluster's raft/
// and state/ folders refuses to start, naming both clusters and what to
// do, whether the other cluster has another CA or the same CA and another
// cluster id. Its own cluster's folder still opens afterwards.
func TestNodeRefusesAnotherClustersFolders(t *testing.T) {
	ca, err := pki.NewCA("Village of Belleville (test)", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("Village of Elsewhere (test)", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ours := clusterIdentity(t, ca, "hall-clerk")
	dir := t.TempDir() // the other cluster's data folder
	foreign := clusterIdentity(t, ca, "hall-clerk")
	n, err := openPeer(t, dir, foreign)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	for _, ident := range []*pki.Identity{ours, clusterIdentity(t, other, "hall-clerk")} {
		n, err := openPeer(t, dir, ident)
		if err == nil {
			n.Close()
			t.Fatalf("a node of %s started on the folder of %s", ident.Cluster(), foreign.Cluster())
		}
		if !errors.Is(err, pki.ErrForeignCluster) {
			t.Fatalf("open on another cluster's folder: %v; want ErrForeignCluster", err)
		}
		for _, s := range []string{foreign.Cluster().String(), ident.Cluster().String(), "Move the data folder aside", "restore a backup"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not say %q", err, s)
			}
		}
	}
	if r, s := storeClusters(t, dir); r != foreign.Cluster() || s != foreign.Cluster() {
		t.Fatalf("after the refusals the stores record %v and %v; want %v", r, s, foreign.Cluster())
	}
	n, err = openPeer(t, dir, foreign)
	if err != nil {
		t.Fatalf("the folder's own cluster: %v", err)
	}
	n.Close()
}

// TestFolderWithoutClusterIsUpgraded opens a data folder whose stores
// record no cluster, as every folder did before they recorded one (a
// node opened without Config.Cluster writes none), with a node of a
// cluster: it opens and both stores record that cluster from then on, so
// a node of another cluster is refused on it.
func TestFolderWithoutClusterIsUpgraded(t *testing.T) {
	dir := t.TempDir()
	n, err := replica.Open(replica.Config{ID: "hall-clerk", Dir: dir, Params: domain.DefaultParams(), Bootstrap: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if r, s := storeClusters(t, dir); !r.IsZero() || !s.IsZero() {
		t.Fatalf("the old folder records %v and %v; want none", r, s)
	}

	ca, err := pki.NewCA("Village of Belleville (test)", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ident := clusterIdentity(t, ca, "hall-clerk")
	if n, err = openPeer(t, dir, ident); err != nil {
		t.Fatalf("open the old folder: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if r, s := storeClusters(t, dir); r != ident.Cluster() || s != ident.Cluster() {
		t.Fatalf("after the upgrade the stores record %v and %v; want %v", r, s, ident.Cluster())
	}
	if n, err = openPeer(t, dir, clusterIdentity(t, ca, "hall-clerk")); !errors.Is(err, pki.ErrForeignCluster) {
		if n != nil {
			n.Close()
		}
		t.Fatalf("a node of another cluster on the upgraded folder: %v; want refused", err)
	}
}

// plainLog wraps a raft log store and passes on only raft.LogStore.
type plainLog struct{ raft.LogStore }

// TestWrappedLogStoreKeepsMonotonic: a wrapper of the raft log store (the
// fault injection's slow disk) that does not pass on IsMonotonic is
// refused when the node opens, rather than have raft keep a follower's
// entries across an installed snapshot above a gap, which the store
// refuses as damaged at the next start. One that passes it on opens.
func TestWrappedLogStoreKeepsMonotonic(t *testing.T) {
	dir := t.TempDir()
	cfg := replica.Config{ID: "hall-clerk", Dir: dir, Params: domain.DefaultParams(), Bootstrap: true, Logger: slog.New(slog.DiscardHandler),
		WrapLogStore: func(s raft.LogStore) raft.LogStore { return plainLog{s} }}
	if n, err := replica.Open(cfg); err == nil || !strings.Contains(err.Error(), "IsMonotonic") {
		if n != nil {
			n.Close()
		}
		t.Fatalf("a wrapper that drops IsMonotonic: %v", err)
	}
	cfg.WrapLogStore = func(s raft.LogStore) raft.LogStore { return stallLog{s, newStallGate()} }
	n, err := replica.Open(cfg)
	if err != nil {
		t.Fatalf("a wrapper that passes it on, after the refusal: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}
