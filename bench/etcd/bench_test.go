package etcdbench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// concurrencies are the numbers of clients paying at once, as in
// sync/raftbench.
var concurrencies = []int{1, 16}

// result is one run at one concurrency, as ETCDBENCH_OUT holds it.
type result struct {
	Conc  int     `json:"conc"`
	N     int     `json:"payments"`
	Rate  float64 `json:"payments_per_s"`
	P50   float64 `json:"p50_us"`
	P99   float64 `json:"p99_us"`
	CPU   float64 `json:"cpu_us_per_payment"`
	Cores float64 `json:"cores"`
	// WALFsyncs and BackendCommits are etcd's own counts, per payment,
	// summed over the three members.
	WALFsyncs      float64 `json:"wal_fsyncs_per_payment"`
	BackendCommits float64 `json:"backend_commits_per_payment"`
	// SyncCalls is the process's sync system calls per payment, when it
	// ran under strace (SYNCTRACE); absent otherwise.
	SyncCalls *float64 `json:"sync_calls_per_payment,omitempty"`
}

// BenchmarkPayment measures the payment transaction on three embedded etcd
// members at 1 and 16 concurrent clients (see the package documentation).
//
//	go test -run '^$' -bench Payment -benchtime 2s .
func BenchmarkPayment(b *testing.B) {
	c := newCluster(b)
	c.seed(b)
	trace, err := openSyncTrace()
	if err != nil {
		b.Fatal(err)
	}
	// The intake time is fixed, as the appliance's benchmark pins its clock.
	at := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC).Format(time.RFC3339)
	ctx := context.Background()
	issued := 0
	op := func(n int) func(int) error {
		base := issued
		issued += n
		return func(i int) error { return c.pay(ctx, base+i, at) }
	}
	// Warm connections, caches and the runtime before anything is timed.
	if _, err := run(4, 400, op(400)); err != nil {
		b.Fatalf("warm up: %v", err)
	}
	results := map[int]result{}
	for _, conc := range concurrencies {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			r, err := measure(b, conc, op(b.N), trace)
			if err != nil {
				b.Fatal(err)
			}
			results[conc] = r // the last and longest run
		})
	}
	if name := os.Getenv("ETCDBENCH_OUT"); name != "" {
		var out []result
		for _, conc := range concurrencies {
			if r, ok := results[conc]; ok {
				out = append(out, r)
			}
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// measure runs op b.N times from conc clients and reports payments/s, the
// p50 and p99 latencies, the CPU time per payment, the cores busy and the
// synced writes per payment.
func measure(b *testing.B, conc int, op func(int) error, trace *syncTrace) (result, error) {
	runtime.GC()
	var syncs0 int64
	if trace != nil {
		var err error
		if syncs0, err = trace.mark(); err != nil {
			return result{}, err
		}
	}
	wal0, commits0 := diskCounts()
	b.ResetTimer()
	cpu0 := processCPU()
	start := time.Now()
	latencies, err := run(conc, b.N, op)
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	if err != nil {
		return result{}, err
	}
	wal1, commits1 := diskCounts()
	slices.Sort(latencies)
	n := float64(b.N)
	r := result{
		Conc: conc, N: b.N, Rate: n / elapsed.Seconds(),
		P50:       micros(latencies[len(latencies)/2]),
		P99:       micros(latencies[min(len(latencies)-1, len(latencies)*99/100)]),
		CPU:       micros(cpu) / n,
		Cores:     cpu.Seconds() / elapsed.Seconds(),
		WALFsyncs: float64(wal1-wal0) / n, BackendCommits: float64(commits1-commits0) / n,
	}
	if trace != nil {
		syncs1, err := trace.mark()
		if err != nil {
			return result{}, err
		}
		v := float64(syncs1-syncs0) / n
		r.SyncCalls = &v
		b.ReportMetric(v, "sync-calls/cmd")
	}
	b.ReportMetric(r.Rate, "cmds/s")
	b.ReportMetric(r.P50, "p50-µs")
	b.ReportMetric(r.P99, "p99-µs")
	b.ReportMetric(r.CPU, "cpu-µs/cmd")
	b.ReportMetric(r.Cores, "cores")
	b.ReportMetric(r.WALFsyncs, "wal-fsyncs/cmd")
	b.ReportMetric(r.BackendCommits, "backend-commits/cmd")
	return r, nil
}

// run calls op(0) … op(n-1) from conc goroutines and returns each call's
// latency; it stops at the first error.
func run(conc, n int, op func(int) error) ([]time.Duration, error) {
	latencies := make([]time.Duration, n)
	var (
		next   atomic.Int64
		failed atomic.Pointer[error]
		wg     sync.WaitGroup
	)
	for range conc {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
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
	if p := failed.Load(); p != nil {
		return nil, fmt.Errorf("payment failed: %w", *p)
	}
	return latencies, nil
}

// diskCounts returns etcd's counts so far of write-ahead log fsyncs and
// backend commits, summed over the members: etcd registers its metrics in
// Prometheus's default registry, which the three members share.
func diskCounts() (walFsyncs, backendCommits uint64) {
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		return 0, 0
	}
	for _, f := range families {
		var sum uint64
		for _, m := range f.GetMetric() {
			sum += m.GetHistogram().GetSampleCount()
		}
		switch f.GetName() {
		case "etcd_disk_wal_fsync_duration_seconds":
			walFsyncs = sum
		case "etcd_disk_backend_commit_duration_seconds":
			backendCommits = sum
		}
	}
	return walFsyncs, backendCommits
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
