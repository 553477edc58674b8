package faultsuite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestKillNineRestartsUnderWrites kills the leading appliance process with
// SIGKILL while clients pay at every node, over and over (FAULTS_RESTARTS
// times, 8 by default; `make test-stress` runs 100), and starts it again
// on its data folder at once. Every start must succeed the first time —
// an appliance that loses power comes back by itself or not at all — and
// afterwards every receipted payment is on every node exactly once.
func TestKillNineRestartsUnderWrites(t *testing.T) {
	restarts := envInt("FAULTS_RESTARTS", 8)
	p := NewProcesses(t, 20)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	t.Logf("FAULTS_RESTARTS=%d", restarts)

	var hist History
	var stop atomic.Bool
	var wg sync.WaitGroup
	var n atomic.Int64
	for c := range 3 {
		wg.Go(func() {
			for !stop.Load() {
				i := n.Add(1)
				node := IDs[int(i)%len(IDs)]
				if !p.Running(node) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				op := p.Pay(ctx, node, fmt.Sprintf("restart-%d-%d", c, i), fmt.Sprintf("F%03d", 1+int(i)%20), 1)
				cancel()
				op.Client = c
				hist.Add(op)
			}
		})
	}
	for i := range restarts {
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		victim := p.Leader()
		if victim == "" {
			victim = IDs[rng.IntN(len(IDs))]
		}
		p.Crash(victim)
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		p.Restart(victim) // fails the test if the process exits at start
		t.Logf("restart %d: %s killed and back", i+1, victim)
	}
	stop.Store(true)
	wg.Wait()
	states, err := settle(p, 90*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, p.logs())
	}
	r := Check(hist.Ops(), states, p.Due())
	for _, pr := range r.Problems {
		t.Error(pr)
	}
	t.Logf("restart loop: %d kill -9 restarts, every one at the first start; %d payments (%d posted, %d provisional, %d unknown), lost %d, duplicated %d",
		restarts, r.Commands, r.Posted, r.Provisional, r.Unknown, r.Lost, r.Duplicated)
	report(t, r)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
