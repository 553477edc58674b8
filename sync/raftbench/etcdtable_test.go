package raftbench_test

import (
	"strings"
	"testing"
	"time"
)

// The comparison with etcd reads bare raft against each target set
// against etcd, so a run shows which targets the engine itself misses on
// the machine. The figures are one run's on the development VM.
func TestEtcdTableReadsTheEngine(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	m := map[key]result{
		{"ws-badger", "submit", 1}:  {rate: 446, p50: ms(1.93), p99: ms(4.9), cpu: 2673 * time.Microsecond},
		{"ws-badger", "submit", 16}: {rate: 1678, p50: ms(8.0), p99: ms(30.34), cpu: 781 * time.Microsecond},
		{"ws-bare", "submit", 1}:    {rate: 955, p50: ms(1.02), p99: ms(1.6), cpu: 877 * time.Microsecond},
		{"ws-bare", "submit", 16}:   {rate: 4963, p50: ms(3.0), p99: ms(9.0), cpu: 156 * time.Microsecond},
	}
	etcd := map[int]etcdRun{
		1:  {Conc: 1, Rate: 1100, P50: 860, P99: 2000, CPU: 1096},
		16: {Conc: 16, Rate: 3564, P50: 4000, P99: 10640, CPU: 342},
	}
	out := etcdTable(m, etcd, nil, nil, time.Minute)
	line := func(prefix string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("no line %q in\n%s", prefix, out)
		return ""
	}
	for _, c := range []struct{ row, engine string }{
		// 4963/3564 = 1.39, under 1.5: bare raft alone misses the rate.
		{"payments/s @16", "1.39 MISSED"},
		// 1.02/0.86 = 1.19, over 1: bare raft alone is slower than etcd.
		{"p50 ms @1", "1.19 MISSED"},
		// 9.00/10.64 = 0.85: the engine leaves room for the ledger's work.
		{"p99 ms @16", "0.85 met"},
	} {
		if l := line(c.row); !strings.HasSuffix(strings.TrimSpace(l), c.engine) {
			t.Errorf("%s: want the engine's reading %q at the end of\n%s", c.row, c.engine, l)
		}
	}
	// A line with no target against etcd reads no engine: it ends with
	// its own reading.
	for _, c := range []struct{ row, end string }{
		{"payments/s @1 ", "submit/etcd    0.41"},
		{"CPU µs/payment @16", "submit/bare    5.01    <= 3 MISSED"},
	} {
		if l := line(c.row); !strings.HasSuffix(strings.TrimSpace(l), c.end) {
			t.Errorf("%s: want it to end with %q, got\n%s", c.row, c.end, l)
		}
	}
}
