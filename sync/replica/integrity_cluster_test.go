package replica_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// TestDivergedReplicaIsFlagged corrupts one follower's ledger behind the
// FSM's back (as a damaged disk or a bug would) and checks that the nodes
// find it by comparing checkpoint hashes: every node's health names that
// follower, and stays unhealthy.
func TestDivergedReplicaIsFlagged(t *testing.T) {
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.CheckpointEvery = 300 * time.Millisecond
		cfg.ClockCheckEvery = 200 * time.Millisecond
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(10)
	payMany(t, c, 20, 10)
	c.Converge(time.Minute)
	waitFor(t, 30*time.Second, "every node to hold a checkpoint hash, all agreeing", func() bool {
		for _, m := range c.Running() {
			if len(m.Node.FSM().Digests()) == 0 || m.Node.Divergence() != nil {
				return false
			}
		}
		return true
	})

	victim := c.Follower(10 * time.Second)
	bill := synctest.BillID(3)
	err := victim.Node.FSM().DB().Update(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("b/" + bill))
		if err != nil {
			return err
		}
		var b domain.Bill
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &b) }); err != nil {
			return err
		}
		b.Principal = domain.MustMoney("1.00")
		body, _ := json.Marshal(b)
		return txn.Set([]byte("b/"+bill), body)
	})
	if err != nil {
		t.Fatal(err)
	}
	payMany(t, c, 3, 10) // the ledger moves on, so the leader checkpoints again
	waitFor(t, 60*time.Second, "every node to name the corrupted follower", func() bool {
		for _, m := range c.Running() {
			h := m.Node.Health()
			if h.Healthy || h.Divergence == nil || !slices.Equal(h.Divergence.Diverged, []string{victim.ID}) {
				return false
			}
		}
		return true
	})
	h := leader.Node.Health()
	if len(h.Problems) == 0 || !strings.Contains(h.Problems[0], victim.ID) {
		t.Fatalf("the leader's problems do not name %s: %q", victim.ID, h.Problems)
	}
}

// TestLedgerFormatWaitsForEveryMember: while one member runs an older
// release (its build applies ledger format 1 only), the cluster stays at
// format 1: no checkpoint is appended and a kind of format 2 is refused
// at intake with a plain reason. Once that member is upgraded the leader
// raises the format and checkpoints follow.
func TestLedgerFormatWaitsForEveryMember(t *testing.T) {
	old := "node-3"
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.CheckpointEvery = 200 * time.Millisecond
		cfg.ClockCheckEvery = 200 * time.Millisecond
		if cfg.ID == old {
			cfg.LedgerFormat = 1
		}
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(2)
	time.Sleep(2 * time.Second) // several rounds of status checks
	for _, m := range c.Running() {
		if f := m.Node.FSM().Format(); f != 1 || m.Node.LedgerFormat() != 1 {
			t.Fatalf("%s runs ledger format %d (says %d) with an old member in the cluster", m.ID, f, m.Node.LedgerFormat())
		}
		if d := m.Node.FSM().Digests(); len(d) != 0 {
			t.Fatalf("%s hashed checkpoints %v at format 1", m.ID, d)
		}
	}
	if _, err := c.Leader(time.Second).Node.NewCommand(domain.KindCheckpoint, "test"); err == nil || !strings.Contains(err.Error(), "ledger format 2") {
		t.Fatalf("a format 2 kind at format 1: %v", err)
	}

	tune := c.Tune
	c.Tune = func(cfg *replica.Config) {
		tune(cfg)
		cfg.LedgerFormat = 0 // the upgraded build
	}
	for _, m := range c.Members {
		if m.ID == old {
			m.Stop()
			m.Start()
		}
	}
	waitFor(t, 30*time.Second, "the format raised and checkpoints hashed everywhere", func() bool {
		for _, m := range c.Running() {
			if m.Node.FSM().Format() != domain.LedgerFormat || m.Node.LedgerFormat() != domain.LedgerFormat {
				return false
			}
		}
		if _, err := c.Leader(time.Second).Pay(synctest.BillID(0), "0.01"); err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Running() {
			if len(m.Node.FSM().Digests()) == 0 {
				return false
			}
		}
		return true
	})
}

func waitFor(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestNodesStartedWithOtherParametersComputeTheLedgers: one node of three
// is started with a different fee schedule (another --params file). Once
// the leader has seeded the ledger's parameters, every node computes with
// the ledger's, whatever it was started with, and the replicas agree.
func TestNodesStartedWithOtherParametersComputeTheLedgers(t *testing.T) {
	odd, err := domain.ParseParams("odd.txt", []byte("2026-01-01 status_letter 99.00 another schedule\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		if cfg.ID == "node-3" {
			cfg.Params = domain.DefaultParams().Merge(odd)
		}
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(3)
	waitFor(t, 30*time.Second, "every node to hold the ledger's parameters", func() bool {
		for _, m := range c.Running() {
			if !m.Node.FSM().Seeded() {
				return false
			}
		}
		return true
	})
	day := domain.DateOf(c.Now())
	want := leader.Node.Params().At(day).StatusLetterFee
	for _, m := range c.Running() {
		if got := m.Node.Params().At(day).StatusLetterFee; !got.Equal(want) {
			t.Fatalf("%s computes the status letter fee as %s, the ledger as %s", m.ID, got, want)
		}
	}
	for _, m := range c.Running() {
		if _, err := m.Submit(domain.KindRequestStatusLetter, func(cmd *domain.Command) {
			cmd.Payload = &domain.RequestStatusLetter{Parcel: "0601-141-2001", Requester: "Title Co " + m.ID, Contact: "x@example.com",
				Fee: m.Node.Params().At(cmd.At.Date).StatusLetterFee, Tender: domain.Card, Reference: "SIM"}
		}); err != nil {
			t.Fatalf("a letter at %s: %v", m.ID, err)
		}
	}
	c.Converge(time.Minute)
}

// TestBillsStoredAtFormat3AfterTheRaise: a cluster at ledger
// format 2 takes payments on bills that keep them in their records; its
// members are upgraded one by one and the leader raises the format to 3
// mid-log. From then on a bill paid again is converted (its payments
// become records of their own, its record a summary of its account), on
// every replica at the same index: a follower away during the raise's
// aftermath catches up from the log to the same state, a bill not touched
// since stays as it was, every bill reads back with all its payments, and
// a stopped member's whole log, replayed from empty across the raise,
// gives its ledger's state hash.
func TestBillsStoredAtFormat3AfterTheRaise(t *testing.T) {
	c := synctest.New(t, 3, func(cfg *replica.Config) { cfg.LedgerFormat = 2 })
	leader := c.Leader(10 * time.Second)
	leader.Seed(3)
	pay := func(bill string, n int) {
		t.Helper()
		for range n {
			if _, err := c.Leader(10*time.Second).Pay(bill, "1.00"); err != nil {
				t.Fatal(err)
			}
		}
	}
	pay(synctest.BillID(0), 5)
	pay(synctest.BillID(1), 2)
	c.Converge(time.Minute)
	for _, m := range c.Running() {
		b, err := m.Node.Bill(synctest.BillID(0))
		if f := m.Node.FSM().Format(); err != nil || f != 2 || b.Summary != nil || len(b.Payments) != 5 {
			t.Fatalf("%s at format %d: bill %+v, %v", m.ID, f, b, err)
		}
	}

	tune := c.Tune
	c.Tune = func(cfg *replica.Config) {
		tune(cfg)
		cfg.LedgerFormat = 3 // the build that brought format 3
	}
	for _, m := range c.Members {
		m.Stop()
		m.Start()
	}
	waitFor(t, 30*time.Second, "the ledger format raised to 3 everywhere", func() bool {
		for _, m := range c.Running() {
			if m.Node.FSM().Format() != 3 {
				return false
			}
		}
		return true
	})
	away := c.Follower(10 * time.Second)
	away.Stop()
	pay(synctest.BillID(0), 3) // converts it
	pay(synctest.BillID(2), 2) // never paid before: stored at format 3 from its first payment
	away.Start()
	c.Converge(time.Minute)
	for _, m := range c.Running() {
		for _, want := range []struct {
			bill    int
			n       int
			summary bool
		}{{0, 8, true}, {1, 2, false}, {2, 2, true}} {
			b, err := m.Node.Bill(synctest.BillID(want.bill))
			if err != nil || len(b.Payments) != want.n || (b.Summary != nil) != want.summary {
				t.Fatalf("%s: bill %s has %d payments, summary %v (%v); want %d, %v", m.ID, b.ID, len(b.Payments), b.Summary, err, want.n, want.summary)
			}
			if want.bill == 0 && (b.Summary.Slots != 8 || !b.Summary.Paid.Equal(domain.MustMoney("8.00"))) {
				t.Fatalf("%s: bill %s summary %+v", m.ID, b.ID, b.Summary)
			}
		}
		bills, err := m.Node.BillsByAccount("100101")
		if err != nil || len(bills) != 3 || len(bills[0].Payments)+len(bills[1].Payments)+len(bills[2].Payments) != 12 {
			t.Fatalf("%s: the account's bills %d, %v", m.ID, len(bills), err)
		}
	}

	follower := c.Follower(10 * time.Second)
	applied := follower.Node.FSM().Applied()
	want, err := follower.Node.FSM().StateHash()
	if err != nil {
		t.Fatal(err)
	}
	follower.Stop()
	got, err := replica.Replay(follower.Dir, t.TempDir(), applied, c.Params, follower.Identity, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got.From != 0 || got.StateHash != want {
		t.Fatalf("the log replayed from %d gives %s; the ledger holds %s", got.From, got.StateHash, want)
	}
}

// TestBooksOpenAtTheFormatRaise: a cluster at ledger format 4 with a chart,
// bills and payments is upgraded; the raise to the format of the books
// opens them on every replica at the same index, with the bills then open
// as receivables, and the log replayed from empty across the raise gives
// the same ledger.
func TestBooksOpenAtTheFormatRaise(t *testing.T) {
	c := synctest.New(t, 3, func(cfg *replica.Config) { cfg.LedgerFormat = 4 })
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the ledger format 4", func() bool { return leader.Node.FSM().Format() == 4 })
	leader.Seed(2)
	if _, err := leader.Submit(domain.KindChart, func(cmd *domain.Command) {
		cmd.Payload = &domain.ChartChange{Accounts: []domain.ChartAccount{
			{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
			{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
		}}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := leader.Pay(synctest.BillID(0), "30.00"); err != nil {
		t.Fatal(err)
	}
	c.Converge(time.Minute)
	if tb, err := domain.ReadsOf(leader.Node).TrialBalance(domain.MustDate("2030-12-31")); err != nil || len(tb.Rows) != 0 {
		t.Fatalf("books at format 4: %+v, %v", tb, err)
	}

	tune := c.Tune
	c.Tune = func(cfg *replica.Config) {
		tune(cfg)
		cfg.LedgerFormat = 0 // the upgraded build
	}
	for _, m := range c.Members {
		m.Stop()
		m.Start()
	}
	waitFor(t, 30*time.Second, "the format of the books everywhere", func() bool {
		for _, m := range c.Running() {
			if m.Node.FSM().Format() != domain.LedgerFormat {
				return false
			}
		}
		return true
	})
	if _, err := c.Leader(10*time.Second).Pay(synctest.BillID(1), "100.00"); err != nil {
		t.Fatal(err)
	}
	c.Converge(time.Minute)
	for _, m := range c.Running() {
		tb, err := domain.ReadsOf(m.Node).TrialBalance(domain.MustDate("2030-12-31"))
		if err != nil || !tb.Balanced() {
			t.Fatalf("%s: trial balance %+v, %v", m.ID, tb, err)
		}
		got := map[string]string{}
		for _, r := range tb.Rows {
			got[r.Account.Code] = r.Balance().String()
		}
		// 200.00 billed on March 2, paid on April 10 (a month's interest
		// of 1.50 on each, §5.10): 30.00 before the books opened, of which
		// 28.50 principal, leaves 171.50 open; then 100.00 on the second
		// bill, 98.50 of it principal and 1.50 interest revenue.
		if got["GF-121"] != "73.00" || got["GF-341"] != "171.50" || got["GF-112"] != "100.00" || got["48000"] != "1.50" {
			t.Fatalf("%s's books after the raise: %v", m.ID, got)
		}
	}
	follower := c.Follower(10 * time.Second)
	applied := follower.Node.FSM().Applied()
	want, err := follower.Node.FSM().StateHash()
	if err != nil {
		t.Fatal(err)
	}
	follower.Stop()
	got, err := replica.Replay(follower.Dir, t.TempDir(), applied, c.Params, follower.Identity, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got.StateHash != want {
		t.Fatalf("the log replayed gives %s; the ledger holds %s", got.StateHash, want)
	}
}
