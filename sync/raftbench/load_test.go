package raftbench_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// path is a way into the cluster: how one command is submitted.
type path struct {
	name string
	// op returns a function that submits the i-th command of a run to
	// leader m and returns once it is committed and applied. The run's
	// commands are numbered from base (reserve).
	op func(c *cluster, m *member, base int) func(i int) error
}

var (
	// submit is the path a command taken on the leading node takes:
	// NewCommand (a receipt sequence) and Submit, which on the leader
	// proposes it straight to raft (a follower's goes through its synced
	// outbox and the forwarder) and waits for the FSM's answer.
	submit = path{name: "submit", op: submitOp}
	// apply is raft and the FSM alone: raft.Apply of an encoded pay_bill
	// on the leader, as the forwarder does.
	apply = path{name: "apply", op: applyOp}
)

// payment returns the pay_bill payload of the i-th command: $1.00 on the
// bills in turn.
func payment(i int) *domain.PayBill {
	return &domain.PayBill{BillID: billID(i), Amount: domain.MustMoney("1.00"), Tender: domain.Card, Payer: "Bench"}
}

func submitOp(_ *cluster, m *member, base int) func(int) error {
	n := m.node
	return func(i int) error {
		cmd, err := n.NewCommand(domain.KindPayBill, "bench")
		if err != nil {
			return err
		}
		cmd.Payload = payment(base + i)
		res, err := n.Submit(context.Background(), cmd)
		if err != nil {
			return err
		}
		if res.Receipt == nil || res.Receipt.Status != domain.Posted {
			return fmt.Errorf("command %s not posted: %+v", cmd.ID, res.Receipt)
		}
		return nil
	}
}

func applyOp(c *cluster, m *member, base int) func(int) error {
	r := m.node.Raft()
	return func(i int) error {
		// The commands are the leader's own, signed with its key as the
		// ledger asks, with sequences far above the outbox's so their
		// receipt numbers never meet.
		cmd := domain.Command{
			ID: uuid.NewString(), Kind: domain.KindPayBill, At: domain.DateTimeOf(c.now()),
			Node: m.node.ID(), Seq: applySeqBase + uint64(base+i) + 1, Actor: "bench", Payload: payment(base + i),
		}
		data, err := m.node.EncodeEntry(cmd)
		if err != nil {
			return err
		}
		f := r.Apply(data, 10*time.Second)
		if err := f.Error(); err != nil {
			return err
		}
		res, ok := f.Response().(domain.Result)
		if !ok || res.Error != nil || res.Receipt == nil {
			return fmt.Errorf("command %s: %+v", cmd.ID, f.Response())
		}
		return nil
	}
}

// result is one measurement: how many commands (a float, to hold a
// median), committed commands per second, and latencies.
type result struct {
	n        float64
	rate     float64
	p50, p99 time.Duration
	// cpu is the process's CPU time (user and system, all three voters
	// and the clients) per command, and cores the CPU time over the wall
	// time: how near the path is to what the machine's cores can give.
	cpu   time.Duration
	cores float64
	// syncs is the process's sync system calls per command (all three
	// voters), when it runs under strace (SYNCTRACE; see syncTrace), else
	// -1.
	syncs float64
}

// processTrace is the strace output of this process, opened once: the
// trace is the process's, whichever benchmark reads it.
var processTrace = sync.OnceValues(openSyncTrace)

// measureOnLeader measures p on the cluster's leader with conc clients.
// A run during which leadership moves (a loaded machine can delay
// heartbeats past the 500 ms timeout) is not comparable with the others:
// it is measured again, up to three times.
func (c *cluster) measureOnLeader(b *testing.B, conc int, p path) result {
	for attempt := 1; ; attempt++ {
		c.converge(60 * time.Second)
		l := c.leader(10 * time.Second)
		r, err := measure(b, conc, p.op(c, l, c.reserve(b.N)))
		now := c.leader(10 * time.Second)
		moved := now != l || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrNotLeader)
		switch {
		case err == nil && !moved:
			return r
		case !moved:
			b.Fatalf("%s: %v", c.setup.name, err)
		case attempt == 3:
			b.Fatalf("%s: leadership moved during three runs in a row; last: %v", c.setup.name, err)
		}
		b.Logf("%s: leadership moved (%s, then %s) during the run (%v); measuring again", c.setup.name, l.id, now.id, err)
	}
}

// measure runs op b.N times from conc goroutines, timing each call and
// the whole, and reports cmds/s and the p50 and p99 latencies. It stops at
// the first error.
func measure(b *testing.B, conc int, op func(int) error) (result, error) {
	latencies := make([]time.Duration, b.N)
	var (
		next   atomic.Int64
		failed atomic.Pointer[error]
		wg     sync.WaitGroup
	)
	trace, err := processTrace()
	if err != nil {
		return result{}, err
	}
	var syncs0 int64
	if trace != nil {
		if syncs0, err = trace.mark(); err != nil {
			return result{}, err
		}
	}
	runtime.GC()
	b.ResetTimer()
	b.StartTimer()
	cpu0 := processCPU()
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				t0 := time.Now()
				if err := op(i); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				latencies[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	if p := failed.Load(); p != nil {
		return result{}, fmt.Errorf("command failed: %w", *p)
	}
	slices.Sort(latencies)
	r := result{
		n: float64(b.N), rate: float64(b.N) / elapsed.Seconds(),
		p50: latencies[len(latencies)/2], p99: latencies[min(len(latencies)-1, len(latencies)*99/100)],
		cpu: cpu / time.Duration(b.N), cores: cpu.Seconds() / elapsed.Seconds(),
		syncs: -1,
	}
	if trace != nil {
		syncs1, err := trace.mark()
		if err != nil {
			return result{}, err
		}
		r.syncs = float64(syncs1-syncs0) / float64(b.N)
		b.ReportMetric(r.syncs, "sync-calls/cmd")
	}
	b.ReportMetric(r.rate, "cmds/s")
	b.ReportMetric(micros(r.p50), "p50-µs")
	b.ReportMetric(micros(r.p99), "p99-µs")
	b.ReportMetric(micros(r.cpu), "cpu-µs/cmd")
	b.ReportMetric(r.cores, "cores")
	return r, nil
}

// processCPU returns the CPU time the process has used so far, in user
// and system mode.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// warm pushes a few hundred commands through both paths so that
// connections, caches and the Go runtime are warm before anything is timed.
func (c *cluster) warm(n int) {
	c.tb.Helper()
	l := c.leader(10 * time.Second)
	for _, p := range []path{submit, apply} {
		op := p.op(c, l, c.reserve(n))
		var (
			wg   sync.WaitGroup
			errs = make(chan error, 4)
		)
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < n; i += 4 {
					if err := op(i); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := errors.Join(<-errs); err != nil {
			c.tb.Fatalf("%s: warm up: %v", c.setup.name, err)
		}
	}
}

// applySeqBase lifts the apply path's receipt sequences above any the
// leader's outbox hands out in a run.
const applySeqBase = 1 << 40

// reserve returns the first of n fresh command numbers. Numbering every
// command of a cluster in one sequence spreads the payments evenly over the
// bills and keeps the apply path's receipt sequences unique.
func (c *cluster) reserve(n int) int { return int(c.issued.Add(int64(n))) - n }
