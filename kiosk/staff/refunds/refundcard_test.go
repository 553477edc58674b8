package refunds_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// TestRefundToTheCard: an approved refund of a card
// payment's overpayment goes back to the card through the terminal, once,
// and is recorded in the ledger as the refund's payment with the
// processor's reference.
func TestRefundToTheCard(t *testing.T) {
	sim := terminal.NewSimulator()
	h := stafftest.NewWith(t, stafftest.Options{CardRefunds: sim})
	cmd, err := h.Ledger.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	a, err := sim.Charge(context.Background(), cmd.ID, domain.MustMoney("100.00"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B-2026-0102", Amount: domain.MustMoney("100.00"), Tender: domain.Card, Reference: a.Reference}
	if _, err := h.Ledger.Submit(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}

	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	p := tr.Get("/staff/refunds")
	if p.Has("refund-card-" + cmd.ID) {
		t.Fatal("a refund not yet approved is offered to the card")
	}
	if p := tr.PostConfirmed("/staff/refunds/"+cmd.ID+"/approve", url.Values{"bill": {"B-2026-0102"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("approve: %d", p.Status)
	}
	clerk := h.SignedIn("jdoe", domain.RoleClerk)
	if p := clerk.Get("/staff/refunds"); !p.Has("refund-card-" + cmd.ID) {
		t.Fatalf("an approved card refund is not offered to the card: %s", p.Text("refunds"))
	}
	if p := clerk.Post("/staff/refunds/"+cmd.ID+"/card", url.Values{"bill": {"B-2026-0102"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("refund to the card: %d %s", p.Status, p.Body)
	}
	r := sim.Refunds()
	if len(r) != 1 || !r[0].Amount.Equal(domain.MustMoney("10.00")) {
		t.Fatalf("refunds at the terminal %+v", r)
	}
	st, ok, err := domain.ReadsOf(h.Ledger).RefundState(cmd.ID)
	if err != nil || !ok || st.State != domain.RefundPaid || !strings.Contains(st.CheckNumber, r[0].Reference) {
		t.Fatalf("ledger: %+v %v %v", st, ok, err)
	}
	// Done: a second post refunds nothing more.
	if p := clerk.Post("/staff/refunds/"+cmd.ID+"/card", url.Values{"bill": {"B-2026-0102"}}); p.Status == http.StatusSeeOther {
		t.Error("a paid refund went to the card again")
	}
	if n := len(sim.Refunds()); n != 1 {
		t.Errorf("%d refunds at the terminal", n)
	}
}
