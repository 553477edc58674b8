package pki

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestClusterIDTravelsWithTheIdentity follows a cluster id from the first
// node's folder through a bundle into a joining node's folder: each
// identity loaded names the same cluster, and a folder of another cluster
// is not overwritten.
func TestClusterIDTravelsWithTheIdentity(t *testing.T) {
	ca := newTestCA(t, "Testville")
	cid, err := NewClusterID()
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateClusterID(cid); err != nil {
		t.Fatalf("NewClusterID made %q: %v", cid, err)
	}
	first, err := issue(t, ca, "hall-clerk").WithClusterID(cid)
	if err != nil {
		t.Fatal(err)
	}
	want := Cluster{CA: Fingerprint(ca.Certificate()), ID: cid}
	if first.Cluster() != want {
		t.Fatalf("Cluster() = %v; want %v", first.Cluster(), want)
	}
	dir := t.TempDir()
	if err := SaveIdentity(dir, first); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIdentity(dir)
	if err != nil || loaded.Cluster() != want {
		t.Fatalf("LoadIdentity: %v, %v; want %v", loaded.Cluster(), err, want)
	}

	joiner, err := issue(t, ca, "hall-kiosk").WithClusterID(cid)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "kiosk.bundle")
	if err := WriteBundle(bundle, joiner); err != nil {
		t.Fatal(err)
	}
	read, err := ReadBundle(bundle)
	if err != nil || read.Cluster() != want {
		t.Fatalf("ReadBundle: %v, %v; want %v", read, err, want)
	}

	// A bundle made before cluster ids still reads, with the empty id.
	legacy := filepath.Join(t.TempDir(), "old.bundle")
	if err := WriteBundle(legacy, issue(t, ca, "annex-backup")); err != nil {
		t.Fatal(err)
	}
	if old, err := ReadBundle(legacy); err != nil || old.Cluster().ID != "" {
		t.Fatalf("ReadBundle(legacy): %v, %v", old, err)
	}

	// The folder of the first node belongs to its cluster: an identity
	// of another cluster of the same CA is not saved over it.
	other, err := NewClusterID()
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := issue(t, ca, "hall-clerk").WithClusterID(other)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, NodeCertFile))
	if err := SaveIdentity(dir, stranger); !errors.Is(err, ErrForeignCluster) {
		t.Fatalf("SaveIdentity of another cluster: %v; want ErrForeignCluster", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, NodeCertFile)); string(after) != string(before) {
		t.Fatal("the refused SaveIdentity replaced the node certificate")
	}

	// A damaged cluster.id is reported, not taken for none.
	if err := os.WriteFile(filepath.Join(dir, ClusterIDFile), []byte("not hex\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(dir); err == nil {
		t.Fatal("LoadIdentity took a damaged cluster.id")
	}
}
