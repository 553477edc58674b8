package terminal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

var ten = domain.MustMoney("10.00")

func TestSimulatorApprovesByDefault(t *testing.T) {
	s := terminal.NewSimulator()
	a, err := s.Charge(context.Background(), "k1", ten)
	if err != nil || a.Reference == "" || a.Key != "k1" || !a.Amount.Equal(ten) {
		t.Fatalf("approval %+v, err %v", a, err)
	}
}

// TestSimulatorOutcomesBelongToOneCharge: a double
// tap set "approve" twice for one charge; with one shared queue the unused
// "approve" then approved a later charge the resident had told to decline.
// Outcomes are now the charge's own, keyed by its command id.
func TestSimulatorOutcomesBelongToOneCharge(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetOutcome("first", terminal.Approve)
	s.SetOutcome("first", terminal.Approve) // the double tap
	if _, err := s.Charge(context.Background(), "first", ten); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Charge(context.Background(), "first", ten); err != nil {
		t.Fatal(err)
	}
	s.SetOutcome("second", terminal.Decline)
	_, err := s.Charge(context.Background(), "second", ten)
	if !errors.Is(err, terminal.ErrDeclined) || terminal.DeclineReason(err) == "" {
		t.Fatalf("the later charge told to decline: %v", err)
	}
	for _, want := range []struct {
		o   terminal.Outcome
		err error
	}{{terminal.Timeout, terminal.ErrTimeout}, {terminal.Cancel, terminal.ErrCancelled}, {terminal.Approve, nil}} {
		s.SetOutcome("second", want.o)
		_, err := s.Charge(context.Background(), "second", ten)
		if !errors.Is(err, want.err) && !(want.err == nil && err == nil) {
			t.Fatalf("%s: err %v, want %v", want.o, err, want.err)
		}
	}
	if _, err := s.Charge(context.Background(), "third", ten); err != nil {
		t.Errorf("a charge with no outcome set: %v", err)
	}
	if n := len(s.Approved()); n != 3 {
		t.Errorf("%d approvals, want 3", n)
	}
}

func TestSimulatorIsIdempotentPerKey(t *testing.T) {
	s := terminal.NewSimulator()
	a1, err := s.Charge(context.Background(), "k", ten)
	if err != nil {
		t.Fatal(err)
	}
	s.SetOutcome("k", terminal.Decline) // an approved key stays approved
	a2, err := s.Charge(context.Background(), "k", ten)
	if err != nil || a2 != a1 {
		t.Fatalf("second charge %+v, %v; want %+v", a2, err, a1)
	}
	if _, err := s.Charge(context.Background(), "k", domain.MustMoney("11.00")); err == nil {
		t.Error("the same key for another amount was accepted")
	}
	if n := len(s.Approved()); n != 1 {
		t.Errorf("%d approvals, want 1", n)
	}
}

func TestSimulatorCancelStopsTheChargeWaiting(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetDelay(time.Minute)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Charge(context.Background(), "k", ten)
		errc <- err
	}()
	// Cancel until the charge has started waiting and ends: a Cancel before
	// it starts finds nothing to cancel, which is not an error.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-errc:
			if !errors.Is(err, terminal.ErrCancelled) {
				t.Fatalf("cancelled charge: %v", err)
			}
			if len(s.Approved()) != 0 {
				t.Error("a cancelled charge was approved")
			}
			return
		case <-tick.C:
			if err := s.Cancel(context.Background(), "k"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestSimulatorRefunds(t *testing.T) {
	s := terminal.NewSimulator()
	a, err := s.Charge(context.Background(), "k", ten)
	if err != nil {
		t.Fatal(err)
	}
	req := terminal.RefundRequest{Key: "r1", ChargeKey: "k", Reference: a.Reference, Amount: domain.MustMoney("4.00")}
	r1, err := s.Refund(context.Background(), req)
	if err != nil || !r1.Amount.Equal(req.Amount) || r1.Reference == "" {
		t.Fatalf("refund %+v, %v", r1, err)
	}
	if again, err := s.Refund(context.Background(), req); err != nil || again != r1 {
		t.Fatalf("the same refund key again: %+v, %v", again, err)
	}
	over := terminal.RefundRequest{Key: "r2", ChargeKey: "k", Reference: a.Reference, Amount: domain.MustMoney("6.01")}
	if _, err := s.Refund(context.Background(), over); err == nil {
		t.Error("a refund of more than the charge holds")
	}
	if _, err := s.Refund(context.Background(), terminal.RefundRequest{Key: "r3", ChargeKey: "nope", Amount: ten}); err == nil {
		t.Error("a refund of a charge never made")
	}
	if n := len(s.Refunds()); n != 1 {
		t.Errorf("%d refunds, want 1", n)
	}
	txns, err := s.Transactions(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil || len(txns) != 2 || txns[0].CommandID != "k" || txns[1].CommandID != "r1" || !txns[1].Amount.Equal(domain.MustMoney("-4.00")) {
		t.Errorf("transactions %+v, %v", txns, err)
	}
}

func TestSimulatorOffline(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetOffline(errors.New("no route to the processor"))
	if err := s.Check(context.Background()); !errors.Is(err, terminal.ErrUnavailable) {
		t.Errorf("check: %v", err)
	}
	if _, err := s.Charge(context.Background(), "k", ten); !errors.Is(err, terminal.ErrUnavailable) {
		t.Errorf("charge: %v", err)
	}
	s.SetOffline(nil)
	if err := s.Check(context.Background()); err != nil {
		t.Errorf("check back online: %v", err)
	}
	if !s.Capabilities().StoreAndForward {
		t.Error("the simulator stands in for a store-and-forward terminal")
	}
}

func TestSimulatorConcurrentSameKey(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetDelay(20 * time.Millisecond)
	var wg sync.WaitGroup
	refs := make([]string, 8)
	for i := range refs {
		wg.Go(func() {
			a, err := s.Charge(context.Background(), "same", ten)
			if err != nil {
				t.Error(err)
			}
			refs[i] = a.Reference
		})
	}
	wg.Wait()
	for _, r := range refs {
		if r != refs[0] {
			t.Fatalf("references %v differ", refs)
		}
	}
	if n := len(s.Approved()); n != 1 {
		t.Errorf("%d charges for one key", n)
	}
}

func TestSimulatorHonoursContext(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetDelay(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Charge(ctx, "k", ten)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if len(s.Approved()) != 0 {
		t.Error("charged after the context ended")
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	s.SetDelay(0)
	if _, err := s.Charge(done, "k2", ten); !errors.Is(err, context.Canceled) {
		t.Errorf("charge on a cancelled context: %v", err)
	}
}

func TestSimulatorRefusesBadInput(t *testing.T) {
	s := terminal.NewSimulator()
	if _, err := s.Charge(context.Background(), "", ten); err == nil {
		t.Error("a charge without a key")
	}
	if _, err := s.Charge(context.Background(), "k", domain.Money{}); err == nil {
		t.Error("a charge of zero")
	}
}

func TestParseOutcome(t *testing.T) {
	for _, o := range terminal.Outcomes() {
		if got, ok := terminal.ParseOutcome(string(o)); !ok || got != o {
			t.Errorf("%s: %s %v", o, got, ok)
		}
	}
	if _, ok := terminal.ParseOutcome("explode"); ok {
		t.Error("unknown outcome parsed")
	}
}

// TestSimulatorGivesTheTestCard: an approval names the test card's brand
// and last four digits, and nothing more; a retry of the key gives the
// same card; a simulator told to give no card, or a card that is more
// than a brand and four digits, gives none and still approves.
func TestSimulatorGivesTheTestCard(t *testing.T) {
	s := terminal.NewSimulator()
	a, err := s.Charge(context.Background(), "k1", ten)
	if err != nil {
		t.Fatal(err)
	}
	if a.Card == nil || a.Card.Brand != terminal.TestCardBrand || a.Card.Last4 != terminal.TestCardLast4 || a.Card.String() != "Visa •••• 4242" {
		t.Fatalf("approval card %+v", a.Card)
	}
	s.SetCard(&domain.CardShown{Brand: "mastercard", Last4: "4444"})
	if again, err := s.Charge(context.Background(), "k1", ten); err != nil || again.Card == nil || *again.Card != *a.Card {
		t.Errorf("a retry of an approved key: %+v, %v", again.Card, err)
	}
	if b, err := s.Charge(context.Background(), "k2", ten); err != nil || b.Card == nil || b.Card.String() != "Mastercard •••• 4444" {
		t.Errorf("after SetCard: %+v, %v", b.Card, err)
	}
	s.SetCard(nil)
	if c, err := s.Charge(context.Background(), "k3", ten); err != nil || c.Card != nil {
		t.Errorf("a terminal that gives no card: %+v, %v", c.Card, err)
	}
	s.SetCard(&domain.CardShown{Brand: "visa", Last4: "4242424242424242"})
	if c, err := s.Charge(context.Background(), "k4", ten); err != nil || c.Card != nil {
		t.Errorf("a full card number was reported: %+v, %v", c.Card, err)
	}
}

func TestCardOf(t *testing.T) {
	if c := terminal.CardOf("", "0005"); c == nil || c.Brand != "unknown" || c.String() != "•••• 0005" {
		t.Errorf("no brand: %+v", c)
	}
	for _, bad := range [][2]string{{"visa", ""}, {"visa", "42"}, {"Visa Debit", "4242"}} {
		if c := terminal.CardOf(bad[0], bad[1]); c != nil {
			t.Errorf("CardOf(%q, %q) = %+v, want nil", bad[0], bad[1], c)
		}
	}
}
