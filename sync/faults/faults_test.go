package faults_test

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/faults"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

func cluster(t *testing.T) (*synctest.Cluster, *faults.Network) {
	nw := faults.NewNetwork()
	c := synctest.NewWith(t, synctest.Options{
		IDs:  []string{"node-1", "node-2", "node-3"},
		Tune: func(cfg *replica.Config) { cfg.WrapLogStore = nw.Node(cfg.ID, "").WrapLogStore },
		Peer: func(m *synctest.Member, pc *replica.PeerConfig) { nw.Node(m.ID, m.Addr).Hook(pc) },
	})
	return c, nw
}

// An isolated follower receives nothing, in either direction, until the
// partition heals; then it catches up.
func TestPartitionCutsAFollowerOffUntilHealed(t *testing.T) {
	c, nw := cluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(2)
	c.Converge(10 * time.Second)
	cut := c.Follower(10 * time.Second)
	nw.Isolate(cut.ID)
	// What reached the follower before the cut may still be applying (a
	// mark the leader appended, the seed's last entries): wait until its
	// ledger stands still, then nothing more may reach it.
	before := cut.Node.FSM().Applied()
	for still := 0; still < 5; {
		time.Sleep(100 * time.Millisecond)
		if now := cut.Node.FSM().Applied(); now != before {
			before, still = now, 0
			continue
		}
		still++
	}
	for range 5 {
		if _, err := leader.Pay(synctest.BillID(0), "1.00"); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	if got := cut.Node.FSM().Applied(); got != before {
		t.Fatalf("the isolated follower applied %d → %d through the partition", before, got)
	}
	if _, err := cut.Node.Cluster(t.Context()); err != nil {
		t.Fatal(err)
	}
	nw.HealAll()
	c.Converge(15 * time.Second)
}

// A slow disk slows every commit on the leader by its delay.
func TestSlowDiskDelaysCommits(t *testing.T) {
	c, nw := cluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	nw.SetDiskDelay(leader.ID, 150*time.Millisecond)
	start := time.Now()
	if _, err := leader.Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("a commit on a leader with a 150ms disk took %s", d)
	}
	nw.SetDiskDelay(leader.ID, 0)
	c.Converge(10 * time.Second)
}

// TestSlowDiskKeepsTheLogMonotonic: the slow-disk wrapper tells raft what
// the store under it says about gaps (raft.MonotonicLogStore), so that a
// follower that installs a snapshot empties its log under fault
// injection as it does in service.
func TestSlowDiskKeepsTheLogMonotonic(t *testing.T) {
	store, err := badgerstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	wrapped := faults.New("node-1").WrapLogStore(store)
	m, ok := wrapped.(raft.MonotonicLogStore)
	if !ok || !m.IsMonotonic() {
		t.Fatal("the wrapped log store no longer says it keeps no gaps")
	}
}
