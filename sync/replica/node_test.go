package replica

import (
	"context"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

func openNode(t *testing.T, dir string, now time.Time) *Node {
	t.Helper()
	return openNodeClock(t, dir, func() time.Time { return now })
}

// openNodeClock is openNode with a clock of the test's own.
func openNodeClock(t *testing.T, dir string, now func() time.Time) *Node {
	t.Helper()
	n, err := Open(Config{
		ID: "n1", Dir: dir, Params: params, Now: now,
		Logger: quietLogger(), Bootstrap: true, SubmitWait: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	// A new leader's reads are current once a barrier of its term has
	// applied; on a busy machine that takes a moment after the election.
	for n.Consistency().Level != domain.Current {
		if ctx.Err() != nil {
			t.Fatalf("the node leads but its reads are not current: %+v", n.Consistency())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// seedNode loads the test records through the node's own command path.
func seedNode(t *testing.T, n *Node) {
	t.Helper()
	cmd, err := n.NewCommand(domain.KindSeedDemo, "test")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = seedCommand().Payload.(*domain.SeedDemo)
	submit(t, n, cmd)
}

func submit(t *testing.T, n *Node, cmd domain.Command) domain.Result {
	t.Helper()
	res, err := n.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatalf("submit %s: %v", cmd.ID, err)
	}
	return res
}

// TestNodeRestartKeepsPaymentsOnce pays a bill, closes and reopens the node
// and checks the payment is there exactly once, and that resubmitting the
// same command returns the first receipt without paying again.
func TestNodeRestartKeepsPaymentsOnce(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, dir, now)
	seedNode(t, n)

	cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("101.50"), Tender: domain.Card, Reference: "A1"}
	res := submit(t, n, cmd)
	if res.Receipt == nil || res.Receipt.Status != domain.Posted || !res.Receipt.Balance.IsZero() {
		t.Fatalf("receipt: %+v", res.Receipt)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	n = openNode(t, dir, now.Add(time.Hour))
	defer n.Close()
	bill, err := n.Bill("B1")
	if err != nil {
		t.Fatal(err)
	}
	if len(bill.Payments) != 1 || bill.Payments[0].CommandID != cmd.ID {
		t.Fatalf("after restart the bill has payments %+v, want exactly the one", bill.Payments)
	}
	again := submit(t, n, cmd)
	if again.Receipt == nil || again.Receipt.Number != res.Receipt.Number {
		t.Fatalf("resubmitting returned %+v, want the first receipt %s", again.Receipt, res.Receipt.Number)
	}
	if bill, _ = n.Bill("B1"); len(bill.Payments) != 1 {
		t.Fatalf("resubmitting applied the payment again: %d payments", len(bill.Payments))
	}
	got, err := n.Receipt(res.Receipt.Number)
	if err != nil || got.CommandID != cmd.ID {
		t.Fatalf("receipt lookup: %+v, %v", got, err)
	}
	next, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	if next.Seq <= cmd.Seq {
		t.Fatalf("sequence went backwards after restart: %d after %d", next.Seq, cmd.Seq)
	}
	if h := n.Health(); h.State != "Leader" || h.Applied == 0 || h.Consistency.Level != domain.Current {
		t.Fatalf("health: %+v", h)
	}
}

// TestNodeRefusalIsReportedAndSetAside checks that a payment the rules
// refuse comes back as the domain's error and does not block the queue.
func TestNodeRefusalIsReportedAndSetAside(t *testing.T) {
	n := openNode(t, t.TempDir(), time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	defer n.Close()
	seedNode(t, n)
	bad, _ := n.NewCommand(domain.KindPayBill, "kiosk")
	// A bill past the tax-roll day but not certified still takes payments
	// (the roll is what the November run records); a bill that does not
	// exist does not.
	bad.Payload = &domain.PayBill{BillID: "B404", Amount: domain.MustMoney("10.00"), Tender: domain.Card}
	if _, err := n.Submit(context.Background(), bad); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("payment on a bill that does not exist: err = %v, want not found", err)
	}
	due, _ := n.NewCommand(domain.KindPayBill, "kiosk")
	due.Payload = &domain.PayBill{BillID: "B2", Amount: domain.MustMoney("10.00"), Tender: domain.Card}
	if res := submit(t, n, due); res.Receipt == nil {
		t.Fatalf("a payment on a bill past the roll day, not certified: %+v", res)
	}
	good, _ := n.NewCommand(domain.KindPayBill, "kiosk")
	good.Payload = &domain.PayBill{BillID: "B3", Amount: domain.MustMoney("10.00"), Tender: domain.Card}
	if res := submit(t, n, good); res.Receipt == nil {
		t.Fatalf("the queue is blocked after a refusal: %+v", res)
	}
	if c := n.Consistency(); c.Pending != 0 {
		t.Fatalf("pending = %d, want 0", c.Pending)
	}
}

// TestReusedCommandIDIsAConflict: the same command id sent again with the
// same request answers with the first result; with another request (another
// amount, another account) it is refused as a conflict — on the node that
// queued it, and by the ledger when it arrives from another node — and
// nothing is paid twice.
func TestReusedCommandIDIsAConflict(t *testing.T) {
	n := openNode(t, t.TempDir(), time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC))
	defer n.Close()
	seedNode(t, n)
	pay := func(amount, actor string) (domain.Result, error) {
		cmd, err := n.NewCommand(domain.KindPayBill, actor)
		if err != nil {
			t.Fatal(err)
		}
		cmd.ID = "client-42"
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney(amount), Tender: domain.Card, Reference: "A1"}
		return n.Submit(context.Background(), cmd)
	}
	first, err := pay("10.00", "api-user")
	if err != nil {
		t.Fatal(err)
	}
	again, err := pay("10.00", "api-user")
	if err != nil || again.Receipt == nil || again.Receipt.Number != first.Receipt.Number {
		t.Fatalf("the same request again: %+v, %v; want the first receipt %s", again.Receipt, err, first.Receipt.Number)
	}
	for _, c := range []struct{ amount, actor string }{{"999.00", "api-user"}, {"10.00", "someone-else"}} {
		if _, err := pay(c.amount, c.actor); domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("id reused for %s by %s: %v, want a conflict", c.amount, c.actor, err)
		}
	}
	if b, _ := n.Bill("B1"); len(b.Payments) != 1 {
		t.Fatalf("B1 holds %d payments, want 1", len(b.Payments))
	}
}
