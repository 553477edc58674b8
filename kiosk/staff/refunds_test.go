package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestReturnedCheckAndRefund: a check overpays a bill; the refund shows in
// the queue with its deadline; the treasurer approves it; the check comes
// back unpaid, so the payment is reversed, the fee billed, the refund
// cancelled and a notice made for the payer.
func TestReturnedCheckAndRefund(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	c.post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.get("/staff/window")
	p := c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"100.00"}, "tender": {"check"}, "reference": {"3003"}, "payer": {"Luis Ramirez"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("check: %d %s", p.status, p.text("window-error"))
	}
	p = c.get(p.location)
	receipt := p.text("receipt-number")
	if !p.has("return-check") {
		t.Fatal("a check's receipt offers no returned-check link to the clerk")
	}
	p = c.get("/staff/refunds")
	row := p.doc.Find(`tr[data-refund]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "10.00") || !strings.Contains(row.Text(), "due") {
		t.Fatalf("refund queue: %q", p.text("refunds"))
	}
	cmd, _ := row.Attr("data-refund")
	if p.has("approve-" + cmd) {
		t.Fatal("the clerk is offered the approval")
	}
	tr := h.signedIn("treasurer", domain.RoleTreasurer)
	tr.get("/staff/refunds")
	if p := tr.post("/staff/refunds/"+cmd+"/approve", url.Values{"bill": {"B-2026-0102"}}); p.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", p.status, p.text("error"))
	}
	if p := tr.get("/staff/refunds"); !strings.Contains(p.text("refund-state-"+cmd), "approved") || !p.has("record-check-"+cmd) {
		t.Fatalf("after approval: %q", p.text("refund-state-"+cmd))
	}
	// 16 business days later the approved refund is overdue.
	h.setClock(h.now().Add(25 * 24 * time.Hour))
	tr.login("treasurer", testPassword)
	if p := tr.get("/staff/refunds"); !p.has("overdue-" + cmd) {
		t.Fatal("an approved refund past its deadline is not flagged")
	}
	if p := tr.get("/staff/"); !p.has("alert-refunds-late") {
		t.Fatal("the start page does not flag the late refund")
	}
	p = tr.get("/staff/returned-checks/new?receipt=" + receipt)
	if p.status != http.StatusOK || p.text("return-fee") == "" {
		t.Fatalf("return form: %d", p.status)
	}
	p = tr.post("/staff/returned-checks", url.Values{"bill": {"B-2026-0102"}, "receipt": {receipt}, "referral": {"Second returned check this year."}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("return: %d %s", p.status, p.text("error"))
	}
	p = tr.get(p.location)
	fee := h.ledger.params.At(domain.DateOf(h.now())).ReturnedCheckFee
	if p.text("notice-fee") != "$"+fee.String() || p.text("notice-owed") != "$"+domain.MustMoney("100.00").Add(fee).String() || !p.has("notice-referral") {
		t.Fatalf("notice: fee %q owed %q", p.text("notice-fee"), p.text("notice-owed"))
	}
	b, _ := h.ledger.Bill("B-2026-0102")
	if len(b.Payments) != 0 {
		t.Fatal("the returned check's payment is still on the bill")
	}
	fees, _ := h.ledger.BillsByAccount("100102")
	if len(fees) != 2 {
		t.Fatalf("account has %d bills, want the fee billed too", len(fees))
	}
	if p := tr.get("/staff/refunds"); !strings.Contains(p.text("refund-state-"+cmd), "cancelled") || p.has("overdue-"+cmd) {
		t.Fatalf("refund after the return: %q", p.text("refund-state-"+cmd))
	}
	// A second return of the same receipt is refused.
	if p := tr.post("/staff/returned-checks", url.Values{"bill": {"B-2026-0102"}, "receipt": {receipt}}); p.status != http.StatusNotFound {
		t.Fatalf("second return: %d", p.status)
	}
}

func TestRefundCheckRecorded(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	c.post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.get("/staff/window")
	c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"150.00"}, "tender": {"cash"}, "tendered": {"150.00"}})
	p := c.get("/staff/refunds")
	cmd, _ := p.doc.Find(`tr[data-refund]`).Attr("data-refund")
	if p := c.post("/staff/refunds/"+cmd+"/check", url.Values{"bill": {"B-2026-0101"}, "check_number": {"9001"}}); p.status != http.StatusConflict {
		t.Fatalf("check before approval: %d", p.status)
	}
	tr := h.signedIn("treasurer", domain.RoleTreasurer)
	tr.get("/staff/refunds")
	tr.post("/staff/refunds/"+cmd+"/approve", url.Values{"bill": {"B-2026-0101"}})
	c.get("/staff/refunds")
	if p := c.post("/staff/refunds/"+cmd+"/check", url.Values{"bill": {"B-2026-0101"}, "check_number": {"9001"}}); p.status != http.StatusSeeOther {
		t.Fatalf("record check: %d %s", p.status, p.text("error"))
	}
	if p := c.get("/staff/refunds"); !strings.Contains(p.text("refund-state-"+cmd), "paid check 9001") {
		t.Fatalf("state: %q", p.text("refund-state-"+cmd))
	}
}
