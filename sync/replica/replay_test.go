package replica

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// stoppedNode runs a node alone, seeds it, takes payments (a snapshot
// after the first ones when snapshot is set), stops it and returns its
// applied index and state hash as the node left them.
func stoppedNode(t *testing.T, dir string, snapshot bool) (uint64, string) {
	t.Helper()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, dir, now)
	seedNode(t, n)
	for i := range 6 {
		if i == 3 && snapshot {
			if err := n.raft.Snapshot().Error(); err != nil {
				t.Fatal(err)
			}
		}
		cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("5.00"), Tender: domain.Cash, Reference: ""}
		if i%2 == 1 {
			cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("5.00"), Tender: domain.Card, Reference: "R"}
		}
		n.Submit(context.Background(), cmd)
	}
	applied := n.fsm.Applied()
	hash, err := n.fsm.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	return applied, hash
}

// TestReplayGivesTheLedgerOnDisk: a stopped node's log, replayed into a
// scratch ledger from empty or from its snapshot, gives the state hash
// of its ledger; a ledger changed behind the log's back does not.
func TestReplayGivesTheLedgerOnDisk(t *testing.T) {
	for _, snap := range []bool{false, true} {
		dir := t.TempDir()
		applied, hash := stoppedNode(t, dir, snap)
		got, err := Replay(dir, filepath.Join(t.TempDir(), "scratch"), applied, params, nil, quietLogger())
		if err != nil {
			t.Fatalf("snapshot %v: replay: %v", snap, err)
		}
		if got.StateHash != hash || got.To != applied {
			t.Fatalf("snapshot %v: replay %+v; the node left applied %d, hash %s", snap, got, applied, hash)
		}
		if snap != (got.From > 0) {
			t.Fatalf("snapshot %v: replay started from %d", snap, got.From)
		}

		// A bill changed in the ledger store, not through the log.
		db, err := badgerstore.OpenDB(badgerstore.PiOptions(filepath.Join(dir, "state")), "ledger state")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte(prefixBill+"B1"), []byte(`{"id":"B1"}`))
		}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		f, err := OpenFSM(badgerstore.PiOptions(filepath.Join(dir, "state")).WithReadOnly(true), params, quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		tampered, _ := f.StateHash()
		f.Close()
		got, err = Replay(dir, filepath.Join(t.TempDir(), "scratch"), applied, params, nil, quietLogger())
		if err != nil || got.StateHash == tampered {
			t.Fatalf("snapshot %v: replay of a tampered ledger: %+v, %v", snap, got, err)
		}
	}
	if _, err := Replay(t.TempDir(), filepath.Join(t.TempDir(), "scratch"), 5, params, nil, quietLogger()); !errors.Is(err, ErrNoReplay) {
		t.Fatalf("replay of an empty folder: %v", err)
	}
}

// TestSnapshotSummaryIsTheRestoredState: the summary of a snapshot names
// the state hash, applied index and journal of the state it restores.
func TestSnapshotSummaryIsTheRestoredState(t *testing.T) {
	f := openFSM(t, t.TempDir())
	f.ApplyBatch(testLog(t))
	var buf bytes.Buffer
	if err := f.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := SummarizeSnapshot(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := f.StateHash()
	n, _ := f.VerifyJournal()
	if s.StateHash != hash || s.Applied != f.Applied() || s.Journal != uint64(n) || s.Records == 0 {
		t.Fatalf("summary %+v; state hash %s, applied %d, journal %d", s, hash, f.Applied(), n)
	}
	b := buf.Bytes()
	if _, err := SummarizeSnapshot(bytes.NewReader(flip(b, len(b)/2)), int64(len(b))); err == nil {
		t.Fatal("a damaged snapshot was summarized")
	}
	if _, err := SummarizeSnapshot(bytes.NewReader(b[:len(b)-10]), int64(len(b)-10)); err == nil {
		t.Fatal("a truncated snapshot was summarized")
	}
}
