package replica

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/villagehall/appliance/domain"
)

// TestMetricsCountWhatTheLedgerDid: the collector reports the commands
// applied and refused by kind, payments by tender, the apply-time
// histogram, the commit index and an empty outbox, from the node's own
// counters (no global registry).
func TestMetricsCountWhatTheLedgerDid(t *testing.T) {
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, t.TempDir(), now)
	defer n.Close()
	seedNode(t, n)
	pay := func(amount string) error {
		cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney(amount), Tender: domain.Card, Reference: "A1"}
		_, err = n.Submit(context.Background(), cmd)
		return err
	}
	if err := pay("10.00"); err != nil {
		t.Fatal(err)
	}
	cmd, _ := n.NewCommand(domain.KindPayBill, "kiosk")
	cmd.Payload = &domain.PayBill{BillID: "no-such-bill", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: "A2"}
	if _, err := n.Submit(context.Background(), cmd); err == nil {
		t.Fatal("a payment of a bill that does not exist was taken")
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(n))
	got := gatherValues(t, reg)
	for series, v := range map[string]float64{
		`appliance_commands_total{kind="pay_bill",node="n1",outcome="applied"}`:  1,
		`appliance_commands_total{kind="pay_bill",node="n1",outcome="refused"}`:  1,
		`appliance_commands_total{kind="seed_demo",node="n1",outcome="applied"}`: 1,
		`appliance_payments_total{node="n1",tender="card"}`:                      1,
		`appliance_outbox_oldest_seconds{node="n1"}`:                             0,
		`appliance_outbox_pending{node="n1"}`:                                    0,
	} {
		if g, ok := got[series]; !ok || g != v {
			t.Errorf("%s = %v (reported: %v), want %v", series, g, ok, v)
		}
	}
	if got := testutil.CollectAndCount(NewCollector(n), "appliance_apply_seconds"); got != 1 {
		t.Fatalf("apply_seconds: %d series", got)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "appliance_apply_seconds":
			if h := mf.GetMetric()[0].GetHistogram(); h.GetSampleCount() < 3 || h.GetSampleSum() <= 0 {
				t.Fatalf("apply_seconds: %v", h)
			}
		case "appliance_raft_commit_index":
			if v := mf.GetMetric()[0].GetGauge().GetValue(); v < float64(n.fsm.Applied()) {
				t.Fatalf("commit index %v below applied %d", v, n.fsm.Applied())
			}
		}
	}
}

// TestAliveAndReady: a healthy node alone is alive and ready; once its
// ledger store stops answering it is not alive (the watchdog stops), and
// a node whose clock reads before its ledger's latest entry is alive but
// not ready to take payments.
func TestAliveAndReady(t *testing.T) {
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	var clock atomic.Int64 // the node's clock, read by its own goroutines
	clock.Store(now.UnixNano())
	n := openNodeClock(t, t.TempDir(), func() time.Time { return time.Unix(0, clock.Load()).UTC() })
	seedNode(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.Alive(ctx); err != nil {
		t.Fatalf("alive: %v", err)
	}
	if ok, why := n.Readiness(); !ok {
		t.Fatalf("not ready: %v", why)
	}
	clock.Store(now.Add(-24 * time.Hour).UnixNano())
	if ok, why := n.Readiness(); ok || len(why) == 0 || !strings.Contains(strings.Join(why, " "), "clock") {
		t.Fatalf("ready with a clock a day behind its ledger: %v", why)
	}
	clock.Store(now.UnixNano())
	// Closed as Close does, so that an entry the leader appends meanwhile
	// (a node mark, a checkpoint) is refused rather than a storage failure.
	n.fsm.Close()
	if err := n.Alive(ctx); err == nil || !strings.Contains(err.Error(), "ledger store") {
		t.Fatalf("alive with its ledger store closed: %v", err)
	}
	n.Close()
}

// gatherValues returns every gauge and counter of reg as
// name{label="value",...} → value, labels in name order.
func gatherValues(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			name := mf.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch mf.GetType() {
			case dto.MetricType_GAUGE:
				out[name] = m.GetGauge().GetValue()
			case dto.MetricType_COUNTER:
				out[name] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestNotReadyUntilTheLogIsReplayed: after a restart raft hands the FSM
// every entry since the newest snapshot again; until it has worked through
// them a new payment would wait behind them, so the node, though it leads,
// is not ready. Held at the first batch of that replay it says so; let go,
// it becomes ready and a payment posts.
func TestNotReadyUntilTheLogIsReplayed(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, dir, now)
	seedNode(t, n)
	for i := range 20 {
		cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: fmt.Sprintf("R%d", i)}
		submit(t, n, cmd)
	}
	applied := n.fsm.Applied()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	release := make(chan struct{})
	var held atomic.Bool
	n, err := Open(Config{
		ID: "n1", Dir: dir, Params: params, Now: func() time.Time { return now },
		Logger: quietLogger(), SubmitWait: 5 * time.Second,
		Pause: func(point string) {
			if point == "fsm.apply" && !held.Swap(true) {
				<-release
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	defer letGo() // before Close, which waits for the FSM
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replay to reach the FSM", held.Load)
	ok, why := n.Readiness()
	if ok || !strings.Contains(strings.Join(why, " "), fmt.Sprintf("%d log entries behind", applied)) {
		t.Fatalf("ready while the log is replayed (applied %d before the restart): %v %v", applied, ok, why)
	}
	letGo()
	eventually(t, "the node to be ready", func() bool { ok, _ := n.Readiness(); return ok })
	cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: "after"}
	if res := submit(t, n, cmd); res.Receipt == nil || res.Receipt.Status != domain.Posted {
		t.Fatalf("payment after the replay: %+v", res)
	}
}

// TestReadyAfterRestartOnTheLatestSnapshot: a node restarted just after
// a snapshot, with no command in its log since, has nothing to work
// through (raft hands the FSM only its new term's no-op, which the FSM
// never sees) and is ready once it leads.
func TestReadyAfterRestartOnTheLatestSnapshot(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, dir, now)
	seedNode(t, n)
	// More entries than readyLag, so that a lag counted from zero
	// would show.
	for i := range readyLag + 20 {
		cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("0.10"), Tender: domain.Card, Reference: fmt.Sprintf("R%d", i)}
		submit(t, n, cmd)
	}
	if err := n.Raft().Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	n = openNode(t, dir, now)
	defer n.Close()
	eventually(t, "the node to be ready", func() bool { ok, _ := n.Readiness(); return ok })
}

// TestSnapshotThreshold: in proportion to the latest snapshot's size,
// within its bounds.
func TestSnapshotThreshold(t *testing.T) {
	for _, c := range []struct {
		name string
		size int64
		want uint64
	}{
		{"no snapshot yet", 0, minSnapshotThreshold},
		{"a small ledger", 20 << 20, minSnapshotThreshold},
		{"half a gigabyte", 512 << 20, 32768},
		{"five years of books", 1300 << 20, maxSnapshotThreshold},
		{"a damaged size", -1, minSnapshotThreshold},
	} {
		if got := snapshotThreshold(c.size); got != c.want {
			t.Errorf("%s: snapshotThreshold(%d) = %d, want %d", c.name, c.size, got, c.want)
		}
	}
}

// TestSnapshotThresholdFollowsTheLedger: a node whose threshold is not
// fixed sets raft's from each snapshot's size; one given a threshold
// starts with it.
func TestSnapshotThresholdFollowsTheLedger(t *testing.T) {
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, t.TempDir(), now)
	defer n.Close()
	if got := n.Raft().ReloadableConfig().SnapshotThreshold; got != minSnapshotThreshold {
		t.Fatalf("threshold at start %d, want %d", got, minSnapshotThreshold)
	}
	n.fsm.sized(1300 << 20)
	eventually(t, "the threshold to follow the snapshot's size", func() bool {
		return n.Raft().ReloadableConfig().SnapshotThreshold == maxSnapshotThreshold
	})

	fixed, err := Open(Config{ID: "n1", Dir: t.TempDir(), Params: params, Now: func() time.Time { return now },
		Logger: quietLogger(), Bootstrap: true, SnapshotThreshold: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Close()
	if got := fixed.Raft().ReloadableConfig().SnapshotThreshold; got != 1000 {
		t.Fatalf("a node given a threshold of 1000 has %d", got)
	}
}

// eventually waits up to 10 s for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestApplyLag: behind while the replay after a restart has not come to
// the ledger's applied index, or while the commit index is more than a
// batch ahead (a follower catching up); caught up within a batch.
func TestApplyLag(t *testing.T) {
	for _, c := range []struct {
		seen, replayTo, commit, want uint64
	}{
		{0, 0, 0, 0},                                // a new node
		{0, 9400, 0, 9400},                          // restarted, no leader yet
		{5000, 9400, 9401, 4400},                    // replaying
		{9400, 9400, 9401, 0},                       // replayed
		{9400, 9400, 9400 + readyLag, 0},            // a batch in flight
		{9400, 9400, 9401 + readyLag, readyLag + 1}, // more than a batch behind
		{100, 0, 10100, 10000},                      // a follower back from an outage
		{10100, 0, 10100, 0},                        // caught up
	} {
		if got := applyLag(c.seen, c.replayTo, c.commit); got != c.want {
			t.Errorf("applyLag(seen %d, replay to %d, commit %d) = %d, want %d", c.seen, c.replayTo, c.commit, got, c.want)
		}
	}
}
