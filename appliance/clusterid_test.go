package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
)

// TestRestoredLedgerIsOfTheFoldersCluster restores a backup into a data
// folder whose certificates are of a cluster (the village's CA, a new
// cluster id, as a restored cluster gets): the restored ledger records
// that cluster, not none and not the backed-up one's, so the cluster
// started from it is that one from its first start.
func TestRestoredLedgerIsOfTheFoldersCluster(t *testing.T) {
	m, path := backupOf(t)
	target := filepath.Join(t.TempDir(), "restored")
	ident, err := pki.LoadIdentity(pkiDir(m.Config.DataDir))
	if err != nil {
		t.Fatal(err)
	}
	if ident, err = newClusterIdentity(ident); err != nil {
		t.Fatal(err)
	}
	if err := pki.SaveIdentity(pkiDir(target), ident); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(pkiDir(m.Config.DataDir), backupKeyFile)
	if err := restoreCommand([]string{"--data", target, "--in", path, "--identity", key}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	db, err := badgerstore.OpenDB(badgerstore.PiOptions(filepath.Join(target, "state")).WithReadOnly(true), "ledger state")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, ok, err := badgerstore.ReadCluster(db)
	if err != nil || !ok || got != ident.Cluster() {
		t.Fatalf("the restored ledger records %v (%v, %v); want %v", got, ok, err, ident.Cluster())
	}
	if _, err := os.Stat(filepath.Join(pkiDir(target), pki.ClusterIDFile)); err != nil {
		t.Fatal(err)
	}
}
