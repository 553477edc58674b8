package replica_test

import (
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// offlineCluster is a 3-node cluster whose Submit gives up after 300 ms
// and whose nodes take card payments up to 500.00 while offline.
func offlineCluster(t *testing.T) *synctest.Cluster {
	return synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.SubmitWait = 300 * time.Millisecond
		cfg.OfflineCardLimit = domain.MustMoney("500.00")
	})
}

func cardPayment(m *synctest.Member, bill, amount string) (domain.Result, error) {
	return m.Submit(domain.KindPayBill, func(c *domain.Command) {
		c.Payload = &domain.PayBill{BillID: bill, Amount: domain.MustMoney(amount), Tender: domain.Card, Reference: "SIM"}
	})
}

// waitPosted waits until the node's own receipt number reads as posted.
func waitPosted(t *testing.T, m *synctest.Member, number string) domain.Receipt {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := m.Node.Receipt(number)
		if err == nil && r.Status == domain.Posted {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("receipt %s never posted: %+v, %v", number, r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOfflinePaymentReplaysExactlyOnce cuts a node off from the other two
// (they are stopped), takes a payment there — a provisional receipt — and
// checks that when the others return it posts once, and that the card limit
// for offline payments holds.
func TestOfflinePaymentReplaysExactlyOnce(t *testing.T) {
	c := offlineCluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(3)
	c.Converge(10 * time.Second)
	kiosk := c.Follower(10 * time.Second)
	for _, m := range c.Members {
		if m != kiosk {
			m.Stop()
		}
	}
	time.Sleep(1500 * time.Millisecond) // the leader's lease runs out
	res, err := cardPayment(kiosk, synctest.BillID(0), "40.00")
	if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Provisional {
		t.Fatalf("offline payment: %+v, %v; want a provisional receipt", res, err)
	}
	if c := kiosk.Node.Consistency(); c.Level != domain.Offline || c.Pending != 1 {
		t.Fatalf("consistency while cut off: %+v", c)
	}
	if r, err := kiosk.Node.Receipt(res.Receipt.Number); err != nil || r.Status != domain.Provisional {
		t.Fatalf("provisional receipt lookup: %+v, %v", r, err)
	}
	if _, err := cardPayment(kiosk, synctest.BillID(1), "600.00"); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("card payment over the offline limit: %v, want refused", err)
	}
	if _, err := cardPayment(kiosk, synctest.BillID(1), "400.00"); err != nil { // under the limit
		t.Fatalf("card payment under the offline limit: %v", err)
	}
	for _, m := range c.Members {
		m.Start()
	}
	posted := waitPosted(t, kiosk, res.Receipt.Number)
	if posted.Index == 0 || posted.At != res.Receipt.At {
		t.Fatalf("posted receipt %+v lost its intake time or index", posted)
	}
	c.Converge(20 * time.Second)
	for _, m := range c.Members {
		b, _ := m.Node.Bill(synctest.BillID(0))
		if len(b.Payments) != 1 || b.Payments[0].CommandID != res.CommandID {
			t.Fatalf("%s: bill 0 payments %+v, want the one offline payment once", m.ID, b.Payments)
		}
	}
	if c := kiosk.Node.Consistency(); c.Pending != 0 {
		t.Fatalf("pending after replay: %d", c.Pending)
	}
}

// TestOfflineCartReplaysOnce: a payment of several bills taken on a node
// cut off from the others (pay_bills) gets a provisional receipt listing
// its bills, is held to the offline card limit by its total, and posts
// once on every bill when the others return: one receipt, the same on
// every node.
func TestOfflineCartReplaysOnce(t *testing.T) {
	c := offlineCluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(3)
	c.Converge(10 * time.Second)
	kiosk := c.Follower(10 * time.Second)
	for _, m := range c.Members {
		if m != kiosk {
			m.Stop()
		}
	}
	time.Sleep(1500 * time.Millisecond) // the leader's lease runs out
	cart := func(amounts ...string) (domain.Result, error) {
		return kiosk.Submit(domain.KindPayBills, func(cmd *domain.Command) {
			p := &domain.PayBills{Account: "100101", Tender: domain.Card, Reference: "SIM"}
			for i, a := range amounts {
				p.Bills = append(p.Bills, domain.BillAmount{BillID: synctest.BillID(i), Amount: domain.MustMoney(a)})
			}
			cmd.Payload = p
		})
	}
	if _, err := cart("300.00", "300.00"); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("a cart over the offline limit in total: %v, want refused", err)
	}
	res, err := cart("40.00", "25.00")
	if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Provisional || len(res.Receipt.Lines) != 2 || !res.Receipt.Amount.Equal(domain.MustMoney("65.00")) {
		t.Fatalf("offline cart: %+v, %v; want a provisional receipt of two bills", res.Receipt, err)
	}
	for _, m := range c.Members {
		m.Start()
	}
	posted := waitPosted(t, kiosk, res.Receipt.Number)
	if len(posted.Lines) != 2 || posted.Index == 0 || posted.At != res.Receipt.At {
		t.Fatalf("posted receipt %+v", posted)
	}
	c.Converge(20 * time.Second)
	for _, m := range c.Members {
		for i, want := range []string{"40.00", "25.00"} {
			b, _ := m.Node.Bill(synctest.BillID(i))
			if len(b.Payments) != 1 || b.Payments[0].CommandID != res.CommandID || b.Payments[0].Receipt != posted.Number || !b.Payments[0].Amount.Equal(domain.MustMoney(want)) {
				t.Fatalf("%s: bill %d payments %+v, want the cart's %s once", m.ID, i, b.Payments, want)
			}
		}
		if b, _ := m.Node.Bill(synctest.BillID(2)); len(b.Payments) != 0 {
			t.Fatalf("%s: a bill outside the cart was paid", m.ID)
		}
		if r, err := m.Node.Receipt(posted.Number); err != nil || len(r.Lines) != 2 {
			t.Fatalf("%s: receipt %+v, %v", m.ID, r, err)
		}
	}
}

// TestReplayedPaymentBecomesRefundDue: a payment taken offline on a bill
// that the rest of the village paid in full meanwhile posts as an
// overpayment with a refund due under §5.07(1) — nothing is dropped.
func TestReplayedPaymentBecomesRefundDue(t *testing.T) {
	c := offlineCluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(2)
	c.Converge(10 * time.Second)
	kiosk := c.Follower(10 * time.Second)
	others := []*synctest.Member{}
	for _, m := range c.Members {
		if m != kiosk {
			others = append(others, m)
			m.Stop()
		}
	}
	time.Sleep(1500 * time.Millisecond)
	offline, err := cardPayment(kiosk, synctest.BillID(0), "100.00")
	if err != nil || offline.Receipt.Status != domain.Provisional {
		t.Fatalf("offline payment: %+v, %v", offline, err)
	}
	kiosk.Stop()
	for _, m := range others {
		m.Start()
	}
	hall := c.Leader(10 * time.Second)
	if _, err := hall.Pay(synctest.BillID(0), "101.50"); err != nil { // principal and April's interest
		t.Fatalf("pay at the hall: %v", err)
	}
	kiosk.Start()
	posted := waitPosted(t, kiosk, offline.Receipt.Number)
	if !posted.Allocation.Overpayment.Equal(domain.MustMoney("100.00")) {
		t.Fatalf("replayed payment allocation %+v, want all of it overpaid", posted.Allocation)
	}
	c.Converge(20 * time.Second)
	refunds, err := hall.Node.FSM().RefundsDue()
	if err != nil || len(refunds) != 1 || refunds[0].CommandID != offline.CommandID {
		t.Fatalf("refunds due: %+v, %v", refunds, err)
	}
}

// TestRefusedReplayIsAnException: an offline payment the ledger refuses
// when it replays (here: a bill that does not exist) is kept as an
// exception for the clerk on every node, and does not block the queue.
func TestRefusedReplayIsAnException(t *testing.T) {
	c := offlineCluster(t)
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	c.Converge(10 * time.Second)
	kiosk := c.Follower(10 * time.Second)
	for _, m := range c.Members {
		if m != kiosk {
			m.Stop()
		}
	}
	time.Sleep(1500 * time.Millisecond)
	bad, _ := kiosk.Pay("NO-SUCH-BILL", "10.00")
	good, _ := kiosk.Pay(synctest.BillID(0), "10.00")
	for _, m := range c.Members {
		m.Start()
	}
	waitPosted(t, kiosk, good.Receipt.Number)
	c.Converge(20 * time.Second)
	for _, m := range c.Members {
		ex, err := m.Node.Exceptions()
		if err != nil || len(ex) != 1 || ex[0].Command.ID != bad.CommandID || ex[0].Error.Code != domain.ENOTFOUND {
			t.Fatalf("%s exceptions: %+v, %v", m.ID, ex, err)
		}
	}
	if _, err := kiosk.Node.Receipt(bad.Receipt.Number); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the refused payment's receipt: %v, want the refusal", err)
	}
}

// TestClockSanity: a node whose clock reads earlier than the ledger's
// latest command, or far from its peers, refuses to date commands.
func TestClockSanity(t *testing.T) {
	loc, _ := time.LoadLocation("America/Chicago")
	base := time.Date(2026, 4, 10, 10, 0, 0, 0, loc)
	var mu sync.Mutex
	skewed := map[string]time.Duration{}
	skew := func(id string, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		skewed[id] = d
	}
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		id := cfg.ID
		cfg.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return base.Add(skewed[id])
		}
		cfg.ClockCheckEvery = 100 * time.Millisecond
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	if _, err := leader.Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatal(err)
	}
	c.Converge(10 * time.Second)
	follower := c.Follower(10 * time.Second)
	// Not yet: the follower's clock is fine.
	if _, err := follower.Node.NewCommand(domain.KindPayBill, "kiosk"); err != nil {
		t.Fatalf("clock fine: %v", err)
	}
	follower.Stop()
	skew(follower.ID, -10*365*24*time.Hour) // the RTC battery died
	follower.Start()
	if _, err := follower.Node.NewCommand(domain.KindPayBill, "kiosk"); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("clock ten years back: %v, want refused", err)
	} else {
		t.Logf("refusal: %v", err)
	}
	follower.Stop()
	skew(follower.ID, 10*time.Minute) // ahead of its peers
	follower.Start()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := follower.Node.NewCommand(domain.KindPayBill, "kiosk")
		if domain.ErrorCode(err) == domain.EUNAVAILABLE {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a clock 10 minutes ahead of both peers was trusted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := leader.Node.NewCommand(domain.KindPayBill, "kiosk"); err != nil {
		t.Fatalf("the leader, agreeing with one of two peers, must keep working: %v", err)
	}
}
