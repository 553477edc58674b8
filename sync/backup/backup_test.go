package backup

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/replica"
)

// snapshotOf returns a snapshot of a small ledger and its state hash.
func snapshotOf(t *testing.T) ([]byte, string) {
	t.Helper()
	f, err := replica.OpenFSM(badgerstore.PiOptions(filepath.Join(t.TempDir(), "state")), domain.DefaultParams(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	at := domain.NewDateTime(domain.MustDate("2026-04-01"), 9, 0, 0)
	seed := domain.Command{V: domain.CommandVersion, ID: "seed", Kind: domain.KindSeedDemo, At: at, Node: "n1", Actor: "test",
		Payload: &domain.SeedDemo{Bills: []domain.Bill{{ID: "B1", Account: "A1", Parcel: "P1", BilledOn: domain.MustDate("2026-03-01"), Principal: domain.MustMoney("101.50")}}}}
	data, err := domain.EncodeCommand(seed)
	if err != nil {
		t.Fatal(err)
	}
	f.ApplyBatch([]*raft.Log{{Index: 1, Type: raft.LogCommand, Data: data}})
	var buf bytes.Buffer
	if err := f.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	hash, _ := f.StateHash()
	return buf.Bytes(), hash
}

// TestBackupRoundTrip: a backup describes its snapshot, and Open gives the
// snapshot back byte for byte.
func TestBackupRoundTrip(t *testing.T) {
	snap, hash := snapshotOf(t)
	path := filepath.Join(t.TempDir(), "ledger.vhb")
	taken := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	m, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "ab12", Node: "hall-clerk", TakenAt: taken})
	if err != nil {
		t.Fatal(err)
	}
	if m.StateHash != hash || m.Applied != 1 || m.Journal != 1 || m.Snapshot != int64(len(snap)) {
		t.Fatalf("manifest %+v; state hash %s", m, hash)
	}
	if _, err := os.Stat(path + ".partial"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the partial file is left: %v", err)
	}
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, _ := io.ReadAll(b.Snapshot())
	if !bytes.Equal(got, snap) || b.Manifest.Cluster != "ab12" || !b.Manifest.TakenAt.Equal(taken) {
		t.Fatalf("opened %+v, %d bytes of snapshot", b.Manifest, len(got))
	}
	if rm, err := ReadManifest(path); err != nil || rm.StateHash != hash {
		t.Fatalf("ReadManifest: %+v, %v", rm, err)
	}
}

// TestDamagedBackupsAreRefused: a truncated file, a flipped byte anywhere,
// a file that is no backup and a snapshot that is not the manifest's are
// all refused by Open.
func TestDamagedBackupsAreRefused(t *testing.T) {
	snap, _ := snapshotOf(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.vhb")
	if _, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "ab12", Node: "n1"}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"truncated by half":     good[:len(good)/2],
		"truncated by one byte": good[:len(good)-1],
		"empty":                 {},
		"a byte flipped early":  flip(good, len(magic)+20),
		"a byte flipped late":   flip(good, len(good)-40),
		"not a backup":          []byte("hello, this is a text file that is long enough to have a trailer of its own............"),
		"a bare snapshot":       snap,
	}
	for name, body := range cases {
		p := filepath.Join(dir, "case.vhb")
		os.WriteFile(p, body, 0o600)
		if b, err := Open(p); err == nil || !errors.Is(err, ErrDamaged) {
			if b != nil {
				b.Close()
			}
			t.Errorf("%s: opened (%v)", name, err)
		}
	}
	// The snapshot the node sent is checked before it is kept.
	if _, err := Write(filepath.Join(dir, "bad.vhb"), bytes.NewReader(snap[:len(snap)-5]), Manifest{}); err == nil {
		t.Fatal("a truncated snapshot was written as a backup")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.vhb")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed backup left a file: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0xff
	return c
}
