package replica_test

import (
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/sync/synctest"
)

// BenchmarkCatchUp10000 measures how long a node that was away while the
// cluster committed 10,000 payments takes, once started again, to apply
// everything the leader had (the budget: ≤ 5 s). It reports
// catchup-s and whether the node caught up from a snapshot (restores);
// nothing is asserted. `make bench-memory` runs it once.
func BenchmarkCatchUp10000(b *testing.B) {
	const behind, bills = 10_000, 500
	for b.Loop() {
		c := synctest.New(b, 3, nil)
		leader := c.Leader(10 * time.Second)
		leader.Seed(bills)
		lagging := c.Follower(10 * time.Second)
		lagging.Stop()
		next := make(chan int, behind)
		for i := range behind {
			next <- i
		}
		close(next)
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for i := range next {
					if _, err := c.Leader(10*time.Second).Pay(synctest.BillID(i%bills), "0.01"); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if b.Failed() {
			b.FailNow()
		}
		target := c.Leader(10 * time.Second).Node.FSM().Applied()
		start := time.Now()
		lagging.Start()
		for lagging.Node.FSM().Applied() < target {
			if time.Since(start) > 3*time.Minute {
				b.Fatalf("the node applied %d of %d in 3 minutes", lagging.Node.FSM().Applied(), target)
			}
			time.Sleep(5 * time.Millisecond)
		}
		d := time.Since(start)
		c.Converge(time.Minute)
		b.ReportMetric(d.Seconds(), "catchup-s")
		b.ReportMetric(float64(lagging.Node.FSM().Restores()), "restores")
		b.Logf("a node %d payments behind caught up to index %d in %v (snapshots restored: %d)", behind, target, d.Round(time.Millisecond), lagging.Node.FSM().Restores())
	}
}
