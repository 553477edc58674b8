package replica

import (
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// TestOutboxPruneKeepsPending prunes answered entries older than the
// cutoff and keeps every pending one, whatever its age.
func TestOutboxPruneKeepsPending(t *testing.T) {
	db, err := badger.Open(badgerstore.PiOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := &outbox{db: db}
	old := payCommand("old-done", 1, "B1", "1.00", "2026-01-02T10:00")
	oldPending := payCommand("old-pending", 2, "B1", "1.00", "2026-01-03T10:00")
	recent := payCommand("recent-done", 3, "B1", "1.00", "2026-03-01T10:00")
	for _, c := range []domain.Command{old, oldPending, recent} {
		if _, _, err := o.put(c); err != nil {
			t.Fatal(err)
		}
	}
	o.finish(1, domain.Result{CommandID: old.ID, Index: 7})
	o.finish(3, domain.Result{CommandID: recent.ID, Index: 9})
	n, err := o.prune(domain.NewDateTime(domain.MustDate("2026-02-01"), 0, 0, 0))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if _, ok, _ := o.get(1); ok {
		t.Fatal("the old answered entry is still there")
	}
	pend, _ := o.pending(0)
	if len(pend) != 1 || pend[0].Command.ID != oldPending.ID {
		t.Fatalf("pending after prune: %+v", pend)
	}
	if _, ok, _ := o.get(3); !ok {
		t.Fatal("the recent answered entry was pruned")
	}

	// Pruning reads in sequence order and stops at the first entry it
	// keeps for its age: an old entry after it (intake times a little out
	// of order) waits for a later pruning.
	late := payCommand("late-done", 4, "B1", "1.00", "2026-01-04T10:00")
	if _, _, err := o.put(late); err != nil {
		t.Fatal(err)
	}
	o.finish(4, domain.Result{CommandID: late.ID, Index: 11})
	if n, err := o.prune(domain.NewDateTime(domain.MustDate("2026-02-01"), 0, 0, 0)); err != nil || n != 0 {
		t.Fatalf("pruned %d, %v past the first recent entry", n, err)
	}
	if n, err := o.prune(domain.NewDateTime(domain.MustDate("2026-04-01"), 0, 0, 0)); err != nil || n != 2 {
		t.Fatalf("pruned %d, %v once both are old; want 2", n, err)
	}
}

// TestOutboxPruneInBatches prunes more old entries than one batch reads:
// every batch deletes what it read and the next goes on from there, past
// a pending entry, up to the first recent one.
func TestOutboxPruneInBatches(t *testing.T) {
	db, err := badger.Open(badgerstore.PiOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := &outbox{db: db}
	days := []string{"01", "02", "03", "04", "05", "06", "07"}
	for i, day := range days {
		c := payCommand(fmt.Sprint("old-", i), uint64(i+1), "B1", "1.00", "2026-01-"+day+"T10:00")
		if _, _, err := o.put(c); err != nil {
			t.Fatal(err)
		}
		if i != 3 { // the fourth stays pending
			o.finish(uint64(i+1), domain.Result{CommandID: c.ID, Index: uint64(10 + i)})
		}
	}
	recent := payCommand("recent", 8, "B1", "1.00", "2026-03-01T10:00")
	if _, _, err := o.put(recent); err != nil {
		t.Fatal(err)
	}
	o.finish(8, domain.Result{CommandID: recent.ID, Index: 20})
	n, err := o.pruneIn(domain.NewDateTime(domain.MustDate("2026-02-01"), 0, 0, 0), 2)
	if err != nil || n != 6 {
		t.Fatalf("pruned %d, %v; want 6", n, err)
	}
	for seq := uint64(1); seq <= 8; seq++ {
		_, ok, err := o.get(seq)
		if err != nil {
			t.Fatal(err)
		}
		if want := seq == 4 || seq == 8; ok != want {
			t.Errorf("entry %d kept: %v, want %v", seq, ok, want)
		}
	}
	if n, err := o.pruneIn(domain.NewDateTime(domain.MustDate("2026-02-01"), 0, 0, 0), 2); err != nil || n != 0 {
		t.Fatalf("pruned %d, %v a second time", n, err)
	}
}

// TestOutboxPendingAfterLowerPut checks the pending scan's starting point:
// a put of a lower sequence than the entries already settled (concurrent
// Submits commit in any order) is found by the next scan.
func TestOutboxPendingAfterLowerPut(t *testing.T) {
	db, err := badger.Open(badgerstore.PiOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := &outbox{db: db}
	for _, seq := range []uint64{o.mustSeq(t), o.mustSeq(t), o.mustSeq(t)} { // 1, 2, 3
		if seq == 2 {
			continue // handed out, put later
		}
		if _, _, err := o.put(payCommand(fmt.Sprint("c", seq), seq, "B1", "1.00", "2026-03-01T10:00")); err != nil {
			t.Fatal(err)
		}
	}
	for _, seq := range []uint64{1, 3} {
		if err := o.finish(seq, domain.Result{Index: seq}); err != nil {
			t.Fatal(err)
		}
	}
	if pend, err := o.pending(0); err != nil || len(pend) != 0 {
		t.Fatalf("pending with every entry settled: %+v, %v", pend, err)
	}
	if o.low != 4 {
		t.Fatalf("scan starts at %d after every entry settled; want 4", o.low)
	}
	if _, _, err := o.put(payCommand("c2", 2, "B1", "1.00", "2026-03-01T10:00")); err != nil {
		t.Fatal(err)
	}
	if pend, err := o.pending(0); err != nil || len(pend) != 1 || pend[0].Seq != 2 {
		t.Fatalf("pending after the late put of 2: %+v, %v", pend, err)
	}
	// A fresh outbox over the same store (a restart) finds it too.
	if pend, err := (&outbox{db: db}).pending(0); err != nil || len(pend) != 1 || pend[0].Seq != 2 {
		t.Fatalf("pending after reopening: %+v, %v", pend, err)
	}
}

func (o *outbox) mustSeq(t *testing.T) uint64 {
	t.Helper()
	seq, err := o.nextSeq(0)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// BenchmarkOutboxPending measures the forwarder's look for pending
// entries after 20,000 entries were taken and settled, with the scan
// starting where the outbox knows nothing below is pending ("cursor") and
// from the start of the pending keys ("from-start"), as it did: Badger
// keeps the settled entries' deleted pending keys as tombstones until a
// compaction drops them, and an iterator walks them.
//
//	go test -run '^$' -bench OutboxPending ./sync/replica
func BenchmarkOutboxPending(b *testing.B) {
	db, err := badger.Open(badgerstore.PiOptions(b.TempDir()).WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	o := &outbox{db: db}
	const settled = 20_000
	for lo := uint64(1); lo <= settled; lo += 500 {
		var seqs []uint64
		var results []domain.Result
		for seq := lo; seq < lo+500; seq++ {
			if _, _, err := o.put(payCommand(fmt.Sprint("c", seq), seq, "B1", "1.00", "2026-03-01T10:00")); err != nil {
				b.Fatal(err)
			}
			seqs, results = append(seqs, seq), append(results, domain.Result{Index: seq})
		}
		if _, err := o.finishAll(seqs, results); err != nil {
			b.Fatal(err)
		}
	}
	o.seq = settled
	if _, _, err := o.put(payCommand("last", settled+1, "B1", "1.00", "2026-03-01T10:00")); err != nil {
		b.Fatal(err)
	}
	for _, way := range []string{"cursor", "from-start"} {
		b.Run(way, func(b *testing.B) {
			for b.Loop() {
				if way == "from-start" {
					o.low = 0
				}
				pend, err := o.pending(256)
				if err != nil || len(pend) != 1 {
					b.Fatal(len(pend), err)
				}
			}
		})
	}
}
