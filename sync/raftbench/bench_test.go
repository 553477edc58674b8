package raftbench_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// concurrencies are the numbers of clients submitting at once.
var concurrencies = []int{1, 16}

// BenchmarkReplication measures the three setups and bare raft side by
// side through both paths at concurrency 1 and 16, then logs a table and
// the ratios against their targets (the appliance beside stock raft parts,
// and beside bare raft) and reports them under Replication/ratios.
//
//	go test -run '^$' -bench Replication ./sync/raftbench
func BenchmarkReplication(b *testing.B) {
	rep := report{}
	// The setups run one after another for each path and concurrency, so
	// that the three measurements being compared are seconds apart on a
	// machine whose load from other work drifts. Each cluster is started
	// when it is first needed and stopped when the benchmark ends.
	clusters := map[string]*cluster{}
	var bare *bareCluster
	getBare := func(sub *testing.B) *bareCluster {
		if bare == nil {
			bare = newBareCluster(b, sub)
			bare.warm(400)
		}
		bare.tb = sub
		return bare
	}
	get := func(sub *testing.B, s setup) *cluster {
		c, ok := clusters[s.name]
		if !ok {
			c = newCluster(b, sub, s)
			c.seed()
			c.warm(400)
			clusters[s.name] = c
		}
		c.tb = sub
		return c
	}
	for _, p := range []path{apply, submit} {
		b.Run(p.name, func(b *testing.B) {
			for _, conc := range concurrencies {
				b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
					for _, s := range []setup{wsBare, wsBadger, tcpBadger, tcpBolt} {
						b.Run(s.name, func(b *testing.B) {
							b.StopTimer()
							if s == wsBare {
								// The engine alone, measured seconds
								// before the appliance's setups on
								// either path: raft.Apply of the same
								// bytes, with an FSM that does nothing.
								rep.add(key{s.name, p.name, conc}, b.N, getBare(b).measureOnLeader(b, conc))
								return
							}
							c := get(b, s)
							rep.add(key{s.name, p.name, conc}, b.N, c.measureOnLeader(b, conc, p))
						})
					}
				})
			}
		})
	}
	// ratios reports the ratios of one repetition (-count) each time the
	// testing package starts it again. It prints the tables of each
	// repetition to stdout, and after the last of several the medians: the
	// testing package keeps only ten lines of a benchmark's log. The
	// targets' verdicts also go to the log.
	round := 0
	b.Run("ratios", func(b *testing.B) {
		if b.N == 1 { // the testing package starts every repetition with b.N = 1
			round++
		}
		m := rep.at(round - 1)
		rs := ratios(m)
		for _, r := range rs {
			if r.known {
				b.ReportMetric(r.value, r.unit)
			}
		}
		b.ReportMetric(0, "ns/op")
		if b.N != 1 {
			return
		}
		fmt.Printf("\nraftbench: repetition %d\n%s\n", round, table(m, rs))
		n := rep.repetitions()
		if n > 1 && round == n {
			rs = rep.medianRatios()
			fmt.Printf("raftbench: medians of %d repetitions (each ratio is the median of the repetitions' ratios)\n%s\n", n, table(rep.median(), rs))
		}
		if round == n {
			// The comparison with etcd, after the last repetition: on
			// the medians when there are several.
			if n > 1 {
				m = rep.median()
			}
			if err := writeSyncs(m); err != nil {
				b.Fatal(err)
			}
			if err := printEtcd(m); err != nil {
				b.Fatal(err)
			}
		}
		for _, r := range rs {
			if r.target != "" && r.known {
				b.Logf("%-30s %5.2f  target %-7s %s", r.name, r.value, r.target, r.met())
			}
		}
	})
}

// key names one measurement.
type key struct {
	setup, path string
	conc        int
}

// report holds, for each measurement, one result per repetition (-count):
// the last and longest run of it.
type report map[key][]result

// add records r, measured with n commands, for k. The testing package
// starts every repetition with a run of one command and then longer ones,
// so a run of one starts a repetition and a longer one replaces its result.
func (rep report) add(k key, n int, r result) {
	if n == 1 || len(rep[k]) == 0 {
		rep[k] = append(rep[k], r)
		return
	}
	rep[k][len(rep[k])-1] = r
}

// repetitions returns how many repetitions the report holds.
func (rep report) repetitions() int {
	n := 0
	for _, rs := range rep {
		n = max(n, len(rs))
	}
	return n
}

// at returns the results of repetition i (the last, where one has fewer).
func (rep report) at(i int) map[key]result {
	m := map[key]result{}
	for k, rs := range rep {
		if len(rs) > 0 {
			m[k] = rs[min(max(i, 0), len(rs)-1)]
		}
	}
	return m
}

// median returns, for each measurement, the median over the repetitions of
// its throughput and of each latency.
func (rep report) median() map[key]result {
	m := map[key]result{}
	for k, rs := range rep {
		m[k] = result{
			n:     median(rs, func(r result) float64 { return float64(r.n) }),
			rate:  median(rs, func(r result) float64 { return r.rate }),
			p50:   time.Duration(median(rs, func(r result) float64 { return float64(r.p50) })),
			p99:   time.Duration(median(rs, func(r result) float64 { return float64(r.p99) })),
			cpu:   time.Duration(median(rs, func(r result) float64 { return float64(r.cpu) })),
			cores: median(rs, func(r result) float64 { return r.cores }),
			syncs: median(rs, func(r result) float64 { return r.syncs }),
		}
	}
	return m
}

// medianRatios returns each ratio's median over the repetitions, each
// computed from the measurements of its own repetition, which ran seconds
// apart.
func (rep report) medianRatios() []ratio {
	var per [][]ratio
	for i := range rep.repetitions() {
		per = append(per, ratios(rep.at(i)))
	}
	out := slices.Clone(per[0])
	for j := range out {
		var known []ratio
		for _, rs := range per {
			if rs[j].known {
				known = append(known, rs[j])
			}
		}
		out[j].known = len(known) > 0
		if out[j].known {
			out[j].value = median(known, func(r ratio) float64 { return r.value })
		}
	}
	return out
}

// median returns the median of f over xs (the mean of the middle two when
// there is an even number), or 0 for none.
func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		v = append(v, f(x))
	}
	slices.Sort(v)
	switch {
	case len(v) == 0:
		return 0
	case len(v)%2 == 1:
		return v[len(v)/2]
	default:
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
}

// ratio is one comparison the targets are stated in.
type ratio struct {
	name   string // what is compared, for the table
	unit   string // the metric's unit, for benchstat
	value  float64
	target string // "<= 1.25", ">= 0.8"; empty: for information
	limit  float64
	known  bool // both measurements exist
}

// met says whether the ratio meets its target.
func (r ratio) met() string {
	switch {
	case !r.known:
		return "n/a"
	case r.target == "":
		return ""
	case strings.HasPrefix(r.target, "<=") && r.value <= r.limit, strings.HasPrefix(r.target, ">=") && r.value >= r.limit:
		return "met"
	default:
		return "MISSED"
	}
}

// ratios computes, for each path: our transport's p50 at concurrency 1
// against stock TCP (target at most 1.25) and its throughput at 16 against
// stock TCP (at least 0.8); the Badger store's throughput against
// raft-boltdb's at 1 and 16 (at least 1); each setup's throughput at 16
// against at 1 (at least 5 for the appliance's submit, 4 for its apply);
// and the appliance's throughput against bare raft on the same transport
// and store (submit at 16 at least 0.75), with submit's absolute
// throughput (at least 4,000/s) and p99 (at most 15 ms) at 16.
func ratios(m map[key]result) []ratio {
	var out []ratio
	div := func(name, unit string, num, den key, p50 bool, target string, limit float64) {
		a, okA := m[num]
		d, okD := m[den]
		r := ratio{name: name, unit: unit, target: target, limit: limit, known: okA && okD}
		if r.known {
			if p50 {
				r.value = float64(a.p50) / float64(d.p50)
			} else {
				r.value = a.rate / d.rate
			}
		}
		out = append(out, r)
	}
	for _, p := range []string{"submit", "apply"} {
		div(p+": ws/tcp p50 @1", p+":ws/tcp-p50@1", key{"ws-badger", p, 1}, key{"tcp-badger", p, 1}, true, "<= 1.25", 1.25)
		div(p+": ws/tcp cmds/s @16", p+":ws/tcp-cmds/s@16", key{"ws-badger", p, 16}, key{"tcp-badger", p, 16}, false, ">= 0.8", 0.8)
		div(p+": badger/bolt cmds/s @1", p+":badger/bolt-cmds/s@1", key{"tcp-badger", p, 1}, key{"tcp-bolt", p, 1}, false, ">= 1", 1)
		div(p+": badger/bolt cmds/s @16", p+":badger/bolt-cmds/s@16", key{"tcp-badger", p, 16}, key{"tcp-bolt", p, 16}, false, ">= 1", 1)
		div(p+": badger/bolt p50 @1", p+":badger/bolt-p50@1", key{"tcp-badger", p, 1}, key{"tcp-bolt", p, 1}, true, "", 0)
		for _, s := range []string{"ws-badger", "tcp-badger", "tcp-bolt"} {
			target, limit := "", 0.0
			switch {
			case s == "ws-badger" && p == "submit":
				target, limit = ">= 5", 5 // the client path's own, stricter target
			case s == "ws-badger":
				target, limit = ">= 4", 4
			}
			div(p+": "+s+" cmds/s @16/@1", p+":"+s+"-cmds/s@16/@1", key{s, p, 16}, key{s, p, 1}, false, target, limit)
		}
	}
	// The appliance against the engine under it: bare raft on
	// the same transport and log store, measured seconds before.
	for _, p := range []string{"submit", "apply"} {
		target, limit := "", 0.0
		if p == "submit" {
			target, limit = ">= 0.75", 0.75
		}
		div(p+"/bare cmds/s @1", p+"/bare-cmds/s@1", key{"ws-badger", p, 1}, key{"ws-bare", p, 1}, false, "", 0)
		div(p+"/bare cmds/s @16", p+"/bare-cmds/s@16", key{"ws-badger", p, 16}, key{"ws-bare", p, 16}, false, target, limit)
		div(p+"/bare p50 @1", p+"/bare-p50@1", key{"ws-badger", p, 1}, key{"ws-bare", p, 1}, true, "", 0)
	}
	div("bare: ws-bare cmds/s @16/@1", "bare:cmds/s@16/@1", key{"ws-bare", "apply", 16}, key{"ws-bare", "apply", 1}, false, "", 0)
	// Absolute targets (4,000 payments/s, p99 15 ms at 16 clients), on
	// whatever machine runs this: they
	// are reported beside the ratios, never asserted.
	abs := func(name, unit string, k key, f func(result) float64, target string, limit float64) {
		r, ok := m[k]
		out = append(out, ratio{name: name, unit: unit, target: target, limit: limit, known: ok, value: f(r)})
	}
	abs("submit: ws-badger cmds/s @16", "submit:cmds/s@16", key{"ws-badger", "submit", 16}, func(r result) float64 { return r.rate }, ">= 4000", 4000)
	abs("submit: ws-badger p99-ms @16", "submit:p99-ms@16", key{"ws-badger", "submit", 16}, func(r result) float64 { return millis(r.p99) }, "<= 15", 15)
	return out
}

// table renders measurements and ratios as two aligned tables.
func table(m map[key]result, rs []ratio) string {
	var sb strings.Builder
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{"ws-bare": 0, "ws-badger": 1, "tcp-badger": 2, "tcp-bolt": 3}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(b.path, a.path); c != 0 { // submit first
			return c
		}
		if c := order[a.setup] - order[b.setup]; c != 0 {
			return c
		}
		return a.conc - b.conc
	})
	fmt.Fprintf(&sb, "%-10s %-7s %4s %8s %9s %9s %9s %11s %6s\n", "setup", "path", "conc", "cmds", "cmds/s", "p50-ms", "p99-ms", "cpu-µs/cmd", "cores")
	for _, k := range keys {
		r := m[k]
		fmt.Fprintf(&sb, "%-10s %-7s %4d %8.0f %9.0f %9.2f %9.2f %11.0f %6.2f\n", k.setup, k.path, k.conc, r.n, r.rate, millis(r.p50), millis(r.p99), micros(r.cpu), r.cores)
	}
	sb.WriteString("\n")
	fmt.Fprintf(&sb, "%-36s %7s %8s %s\n", "ratio", "value", "target", "")
	for _, r := range rs {
		v := "n/a"
		if r.known {
			v = fmt.Sprintf("%.2f", r.value)
		}
		fmt.Fprintf(&sb, "%-36s %7s %8s %s\n", r.name, v, r.target, r.met())
	}
	return sb.String()
}

// failoverRuns is how many times BenchmarkFailover stops a leader; it
// reports the median.
const failoverRuns = 5

// BenchmarkFailover stops the leader of a running cluster and times, from
// the stop, the first pay_bill committed through Node.Submit on the new
// leader (commit-ms) and the first moment a new leader is known
// (elect-ms). The old leader is started again and caught up before the
// next run. It makes five runs and reports their median; the stock TCP
// setup is measured beside the appliance's for comparison.
//
//	go test -run '^$' -bench Failover ./sync/raftbench
func BenchmarkFailover(b *testing.B) {
	for _, s := range []setup{wsBadger, tcpBadger} {
		b.Run(s.name, func(b *testing.B) {
			c := newCluster(b, b, s)
			c.seed()
			c.warm(100)
			// The timer runs through the runs: each iteration takes seconds,
			// so the benchmark stops after the first at any usual -benchtime.
			b.ResetTimer()
			// Five runs whatever b.N is (with -benchtime Nx the testing
			// package calls this with b.N = N), so that it stays bounded.
			var commits, elects []time.Duration
			for range failoverRuns {
				elect, commit := c.failover()
				elects, commits = append(elects, elect), append(commits, commit)
			}
			slices.Sort(commits)
			slices.Sort(elects)
			b.ReportMetric(millis(commits[len(commits)/2]), "commit-ms")
			b.ReportMetric(millis(commits[0]), "min-commit-ms")
			b.ReportMetric(millis(commits[len(commits)-1]), "max-commit-ms")
			b.ReportMetric(millis(elects[len(elects)/2]), "elect-ms")
			b.ReportMetric(0, "ns/op")
			b.Logf("%s: leader stop → first commit on the new leader, %d runs: %v (median %v); new leader known after %v (median)",
				s.name, len(commits), commits, commits[len(commits)/2], elects[len(elects)/2])
		})
	}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// failover stops the leader, as a crash would, and waits for a payment
// submitted on the new leader to commit; then it starts the old leader
// again and waits for it to catch up. It returns the times from the stop
// to the first new leader and to the first commit.
func (c *cluster) failover() (elect, commit time.Duration) {
	c.tb.Helper()
	c.converge(60 * time.Second)
	old := c.leader(10 * time.Second)
	n, i := old.node, c.reserve(1_000)
	old.node = nil // no longer a candidate for currentLeader
	t0 := time.Now()
	stopped := make(chan struct{})
	go func() {
		n.Close()
		close(stopped)
	}()
	for commit == 0 {
		if time.Since(t0) > 60*time.Second {
			c.tb.Fatalf("%s: no commit within a minute of stopping %s", c.setup.name, old.id)
		}
		l := c.currentLeader()
		if l == nil {
			time.Sleep(time.Millisecond)
			continue
		}
		if elect == 0 {
			elect = time.Since(t0)
		}
		cmd, err := l.node.NewCommand(domain.KindPayBill, "bench")
		if err != nil {
			c.tb.Fatal(err)
		}
		cmd.Payload = payment(i)
		i++
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := l.node.Submit(ctx, cmd)
		cancel()
		if err == nil && res.Receipt != nil && res.Receipt.Status == domain.Posted {
			commit = time.Since(t0)
		}
	}
	<-stopped
	old.stop() // closes the raft-boltdb store, if any
	old.start(false, nil)
	return elect, commit
}
