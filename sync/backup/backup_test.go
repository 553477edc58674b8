package backup

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
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
		Payload: &domain.SeedDemo{Bills: []domain.Bill{{ID: "B-2026-CLEARTEXT-1", Account: "A1", Parcel: "P1", BilledOn: domain.MustDate("2026-03-01"), Principal: domain.MustMoney("101.50")}}}}
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

// newKey makes a backup key.
func newKey(t *testing.T) *age.X25519Identity {
	t.Helper()
	k, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// writePlain writes a backup as the release before encryption did: the
// inner format alone, in the clear.
func writePlain(t *testing.T, path string, snap []byte, m Manifest) {
	t.Helper()
	m, err := summarize(m, bytes.NewReader(snap), int64(len(snap)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeInner(&buf, bytes.NewReader(snap), m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRoundTrip: a backup describes its snapshot, and Open with the
// backup key gives the snapshot back byte for byte.
func TestBackupRoundTrip(t *testing.T) {
	snap, hash := snapshotOf(t)
	key := newKey(t)
	path := filepath.Join(t.TempDir(), "ledger.vhb")
	taken := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	m, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "ab12", Node: "hall-clerk", TakenAt: taken}, key.Recipient())
	if err != nil {
		t.Fatal(err)
	}
	if m.StateHash != hash || m.Applied != 1 || m.Journal != 1 || m.Snapshot != int64(len(snap)) {
		t.Fatalf("manifest %+v; state hash %s", m, hash)
	}
	if _, err := os.Stat(path + ".partial"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the partial file is left: %v", err)
	}
	b, err := Open(path, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, _ := io.ReadAll(b.Snapshot())
	if !bytes.Equal(got, snap) || b.Manifest.Cluster != "ab12" || !b.Manifest.TakenAt.Equal(taken) || !b.Header.Encrypted() {
		t.Fatalf("opened %+v (%+v), %d bytes of snapshot", b.Manifest, b.Header, len(got))
	}
	if h, err := ReadHeader(path); err != nil || !h.Encrypted() || h.Recipient != key.Recipient().String() || !h.TakenAt.Equal(taken) {
		t.Fatalf("ReadHeader: %+v, %v", h, err)
	}
	if _, err := Write(filepath.Join(t.TempDir(), "plain.vhb"), bytes.NewReader(snap), Manifest{}, nil); err == nil {
		t.Fatal("a backup was written without a backup key")
	}
}

// TestBackupBytesHoldNothingOfTheLedger: the file on the drive holds none
// of the snapshot's text, the manifest or its figures; only the clear
// header's recipient and time.
func TestBackupBytesHoldNothingOfTheLedger(t *testing.T) {
	snap, hash := snapshotOf(t)
	key := newKey(t)
	path := filepath.Join(t.TempDir(), "ledger.vhb")
	if _, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "cafe01", Node: "hall-clerk"}, key.Recipient()); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	// Each needle is long enough (five bytes or more) that ciphertext does
	// not hold it by chance: a two-byte one turns up in a few kilobytes of
	// random bytes in one run out of a dozen.
	for _, plain := range []string{`"principal"`, "101.50", "B-2026-CLEARTEXT-1", "hall-clerk", "cafe01", hash, "state_hash", "VHBACKUP1", string(snap[:16])} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Errorf("the backup file holds %q in the clear", plain)
		}
	}
	if !bytes.HasPrefix(raw, []byte("VHBACKUP2\n{")) || !bytes.Contains(raw, []byte("age-encryption.org/v1")) {
		t.Fatalf("the file does not begin with the clear header and an age file: %q", raw[:80])
	}
}

// TestOpenNeedsTheBackupKey: without a key Open says the backup is
// encrypted and to which key; with another key it says that key is not
// the one; with the old key among several (after a rotation) it opens.
func TestOpenNeedsTheBackupKey(t *testing.T) {
	snap, _ := snapshotOf(t)
	key, other := newKey(t), newKey(t)
	path := filepath.Join(t.TempDir(), "ledger.vhb")
	if _, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "ab12"}, key.Recipient()); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), key.Recipient().String()) {
		t.Fatalf("open without a key: %v", err)
	}
	_, err := Open(path, other)
	if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), key.Recipient().String()) || !strings.Contains(err.Error(), other.Recipient().String()) {
		t.Fatalf("open with another key: %v", err)
	}
	b, err := Open(path, other, key)
	if err != nil {
		t.Fatalf("open with the old key among the keys: %v", err)
	}
	b.Close()
}

// TestDamagedBackupsAreRefused: a truncated file, a flipped byte anywhere
// (the clear header, the age header, the payload), a file that is no
// backup and a bare snapshot are all refused by Open, with the right key.
func TestDamagedBackupsAreRefused(t *testing.T) {
	snap, _ := snapshotOf(t)
	key := newKey(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.vhb")
	taken := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	if _, err := Write(path, bytes.NewReader(snap), Manifest{Cluster: "ab12", Node: "n1", TakenAt: taken}, key.Recipient()); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	ageAt := bytes.Index(good, []byte("age-encryption.org"))
	cases := map[string][]byte{
		"truncated by half":                good[:len(good)/2],
		"truncated by one byte":            good[:len(good)-1],
		"truncated in the header":          good[:20],
		"truncated after the age header":   good[:bytes.Index(good, []byte("\n---"))+60],
		"empty":                            {},
		"a byte flipped in the age header": flip(good, ageAt+40),
		"a byte flipped early":             flip(good, len(good)/3),
		"a byte flipped late":              flip(good, len(good)-40),
		"the time in the header changed":   bytes.Replace(good, []byte("2026-12-01T08:30"), []byte("2026-12-02T08:30"), 1),
		"not a backup":                     []byte("hello, this is a text file that is long enough to have a trailer of its own............"),
		"a bare snapshot":                  snap,
	}
	for name, body := range cases {
		p := filepath.Join(dir, "case.vhb")
		os.WriteFile(p, body, 0o600)
		b, err := Open(p, key)
		if err == nil || !errors.Is(err, ErrDamaged) {
			if b != nil {
				b.Close()
			}
			t.Errorf("%s: opened (%v)", name, err)
		}
	}
	// The snapshot the node sent is checked before it is kept.
	if _, err := Write(filepath.Join(dir, "bad.vhb"), bytes.NewReader(snap[:len(snap)-5]), Manifest{}, key.Recipient()); err == nil {
		t.Fatal("a truncated snapshot was written as a backup")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.vhb")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed backup left a file: %v", err)
	}
}

// TestPlainBackupOfEarlierReleaseOpens: a backup written before backups
// were encrypted opens without a key, says it is plain, and its damage is
// still found.
func TestPlainBackupOfEarlierReleaseOpens(t *testing.T) {
	snap, hash := snapshotOf(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.vhb")
	taken := time.Date(2025, 6, 1, 8, 30, 0, 0, time.UTC)
	writePlain(t, path, snap, Manifest{Cluster: "ab12", TakenAt: taken})
	b, err := Open(path, newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(b.Snapshot())
	b.Close()
	if b.Header.Encrypted() || b.Manifest.StateHash != hash || !bytes.Equal(got, snap) {
		t.Fatalf("opened %+v %+v", b.Header, b.Manifest)
	}
	if h, err := ReadHeader(path); err != nil || h.Encrypted() || !h.TakenAt.Equal(taken) {
		t.Fatalf("ReadHeader of a plain backup: %+v, %v", h, err)
	}
	good, _ := os.ReadFile(path)
	os.WriteFile(path, flip(good, len(magic)+20), 0o600)
	if _, err := Open(path); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a damaged plain backup: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0xff
	return c
}
