package replica

import (
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
}
