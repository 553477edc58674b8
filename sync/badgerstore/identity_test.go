package badgerstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/villagehall/appliance/sync/pki"
)

var (
	clusterA       = pki.Cluster{CA: "AA:AA", ID: "0123456789abcdef0123456789abcdef"}
	clusterB       = pki.Cluster{CA: "AA:AA", ID: "fedcba9876543210fedcba9876543210"}
	otherVillage   = pki.Cluster{CA: "BB:BB", ID: clusterA.ID}
	legacyClusterA = pki.Cluster{CA: clusterA.CA}
)

// TestCheckCluster is the check at every open: a store of the node's own
// cluster, or one recording no cluster, opens; one of another cluster
// (another id, another CA, or the empty id of a cluster made before
// cluster ids) is refused with both clusters named.
func TestCheckCluster(t *testing.T) {
	for _, tc := range []struct {
		name     string
		found    pki.Cluster
		recorded bool
		want     pki.Cluster
		refuse   bool
	}{
		{"same cluster", clusterA, true, clusterA, false},
		{"no cluster recorded", pki.Cluster{}, false, clusterA, false},
		{"same CA, another cluster id", clusterB, true, clusterA, true},
		{"another village's CA", otherVillage, true, clusterA, true},
		{"a cluster made before cluster ids", legacyClusterA, true, clusterA, true},
		{"a node of a cluster made before cluster ids", clusterA, true, legacyClusterA, true},
		{"both made before cluster ids", legacyClusterA, true, legacyClusterA, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCluster("raft log", "/data/raft", tc.found, tc.recorded, tc.want)
			if !tc.refuse {
				if err != nil {
					t.Fatalf("CheckCluster: %v; want nil", err)
				}
				return
			}
			var fe *ForeignClusterError
			if !errors.As(err, &fe) || !errors.Is(err, pki.ErrForeignCluster) {
				t.Fatalf("CheckCluster: %v; want a ForeignClusterError", err)
			}
			for _, s := range []string{tc.found.String(), tc.want.String(), "/data/raft", "Move the data folder aside", "restore a backup"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestBindCluster records the cluster in stores that have none, refuses
// stores of another cluster, and writes nothing when any store is
// refused.
func TestBindCluster(t *testing.T) {
	dir := t.TempDir()
	raftDB, stateDB := openDB(t, filepath.Join(dir, "raft")), openDB(t, filepath.Join(dir, "state"))
	defer closeDB(t, raftDB)
	defer closeDB(t, stateDB)
	stores := []Bound{{"raft log", raftDB}, {"ledger state", stateDB}}

	// A store whose ledger state is another cluster's: refused, and the
	// raft log (which records none) is left without one.
	if err := WriteCluster(stateDB, clusterB); err != nil {
		t.Fatal(err)
	}
	err := BindCluster(clusterA, stores...)
	var fe *ForeignClusterError
	if !errors.As(err, &fe) || fe.What != "ledger state" || fe.Found != clusterB || fe.Want != clusterA {
		t.Fatalf("BindCluster over another cluster's ledger: %v; want it refused", err)
	}
	if c, ok, err := ReadCluster(raftDB); err != nil || ok {
		t.Fatalf("the refused bind recorded %v, %v, %v in the raft log", c, ok, err)
	}

	// Both without one: both get it, and it holds from then on.
	if err := stateDB.DropAll(); err != nil {
		t.Fatal(err)
	}
	if err := BindCluster(clusterA, stores...); err != nil {
		t.Fatalf("BindCluster on new stores: %v", err)
	}
	for _, s := range stores {
		if c, ok, err := ReadCluster(s.DB); err != nil || !ok || c != clusterA {
			t.Fatalf("%s records %v, %v, %v; want %v", s.What, c, ok, err, clusterA)
		}
	}
	if err := BindCluster(clusterA, stores...); err != nil {
		t.Fatalf("BindCluster again: %v", err)
	}
	if err := BindCluster(clusterB, stores...); !errors.Is(err, pki.ErrForeignCluster) {
		t.Fatalf("BindCluster for another cluster: %v; want refused", err)
	}
}
