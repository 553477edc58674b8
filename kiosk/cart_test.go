package kiosk_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// owes returns what bill owes on the harness's day, as the domain says.
func (h *harness) owes(bill string) domain.Money {
	h.t.Helper()
	b, err := h.ledger.Bill(bill)
	if err != nil {
		h.t.Fatal(err)
	}
	fig, err := b.Figures(domain.DateOf(fixedAt), h.ledger.Params())
	if err != nil {
		h.t.Fatal(err)
	}
	return fig.Balance
}

// cartConfirm ticks bills on the account's cart page and returns the
// confirmation page.
func (h *harness) cartConfirm(account string, bills ...string) page {
	h.t.Helper()
	form := h.get("/accounts/" + account + "/pay")
	h.expect(form, http.StatusOK)
	r := h.post("/accounts/"+account+"/pay", url.Values{"csrf": {form.csrf()}, "bill": bills})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	h.expect(c, http.StatusOK)
	return c
}

// TestPayAllBillsOfAnAccount: account 100101 has two bills to pay. Its
// page offers to pay both together for their sum; the cart lists both
// ticked; the confirmation shows each bill's part with the allocation
// posting will give; Pay charges the card once for the total, and one
// receipt lists both bills, each paid in full. A second tap finds the
// receipt and charges nothing.
func TestPayAllBillsOfAnAccount(t *testing.T) {
	h := newHarness(t)
	past, cur := h.owes(pastDueBill), h.owes(currentBill)
	total := past.Add(cur)

	acct := h.get("/accounts/100101")
	h.expect(acct, http.StatusOK)
	if got, want := acct.text("pay-all"), "Pay 2 bills together: $"+total.String(); got != want {
		t.Fatalf("offer %q, want %q", got, want)
	}
	// A bill of the account offers it too.
	if bill := h.get("/bills/" + currentBill); bill.text("pay-all") != acct.text("pay-all") {
		t.Errorf("the bill page offers %q", bill.text("pay-all"))
	}
	cart := h.get("/accounts/100101/pay")
	if n := cart.doc.Find(`[data-testid="cart-bill"] input[type="checkbox"]:checked`).Length(); n != 2 {
		t.Fatalf("%d bills ticked, want 2", n)
	}
	c := h.cartConfirm("100101", pastDueBill, currentBill)
	if c.text("confirm-amount") != "$"+total.String() || c.count("cart-line") != 2 {
		t.Fatalf("confirmation: %q, %d lines", c.text("confirm-amount"), c.count("cart-line"))
	}
	b, _ := h.ledger.Bill(pastDueBill)
	pv, err := b.PreviewPayment(domain.DateTimeOf(fixedAt), past, h.ledger.Params())
	if err != nil {
		t.Fatal(err)
	}
	line := c.doc.Find(`[data-testid="cart-line"][data-bill="` + pastDueBill + `"]`)
	if got := squash(line.Find(`[data-testid="cart-line-allocation"]`).Text()); !strings.Contains(got, "interest $"+pv.Allocation.Interest.String()) || !strings.Contains(got, "amount billed $"+pv.Allocation.Principal.String()) {
		t.Errorf("allocation shown %q, want the preview's %+v", got, pv.Allocation)
	}

	done := h.post(chargeAction(c), chargeForm(c))
	h.expect(done, http.StatusSeeOther)
	if a := h.sim.Approved(); len(a) != 1 || !a[0].Amount.Equal(total) {
		t.Fatalf("charges %+v, want one of %s", a, total)
	}
	rcp := h.get(done.location)
	h.expect(rcp, http.StatusOK)
	if rcp.count("cart-line") != 2 || rcp.text("receipt-amount") != "$"+total.String() || rcp.text("receipt-balance") != "$0.00" || rcp.text("receipt-account") != "100101" {
		t.Errorf("receipt: %d lines, amount %q, balance %q, account %q", rcp.count("cart-line"), rcp.text("receipt-amount"), rcp.text("receipt-balance"), rcp.text("receipt-account"))
	}
	for _, id := range []string{pastDueBill, currentBill} {
		if !h.owes(id).IsZero() {
			t.Errorf("%s still owes %s", id, h.owes(id))
		}
	}
	again := h.post(chargeAction(c), chargeForm(c))
	h.expect(again, http.StatusSeeOther)
	if again.location != done.location || len(h.sim.Approved()) != 1 {
		t.Errorf("second tap: to %q, %d charges", again.location, len(h.sim.Approved()))
	}
	if _, a := h.ledger.counts(); a != 1 {
		t.Errorf("%d commands applied, want 1", a)
	}
	// Nothing is left to pay together.
	if h.get("/accounts/100101").count("pay-all") != 0 {
		t.Error("the account still offers to pay all")
	}
}

// TestPayChosenBills: unticking a bill leaves it as it was; the change
// link comes back with the same choice.
func TestPayChosenBills(t *testing.T) {
	h := newHarness(t)
	cur, past := h.owes(currentBill), h.owes(pastDueBill)
	c := h.cartConfirm("100101", currentBill)
	if c.count("cart-line") != 1 || c.text("confirm-amount") != "$"+cur.String() {
		t.Fatalf("confirmation: %d lines, %q", c.count("cart-line"), c.text("confirm-amount"))
	}
	change, _ := c.doc.Find(`[data-testid="change-amount"]`).Attr("href")
	back := h.get(change)
	if n := back.doc.Find(`input[type="checkbox"]:checked`).Length(); n != 1 {
		t.Errorf("%s: %d ticked, want the one chosen", change, n)
	}
	h.expect(h.post(chargeAction(c), chargeForm(c)), http.StatusSeeOther)
	if !h.owes(currentBill).IsZero() || !h.owes(pastDueBill).Equal(past) {
		t.Errorf("after paying %s: it owes %s, %s owes %s (was %s)", currentBill, h.owes(currentBill), pastDueBill, h.owes(pastDueBill), past)
	}
}

// TestCartRefusals: no bill ticked, a bill of another account slipped into
// the form, a signed list changed on the way, and a bill paid meanwhile:
// each gets a clear answer, and nothing is charged or recorded.
func TestCartRefusals(t *testing.T) {
	t.Run("nothing ticked", func(t *testing.T) {
		h := newHarness(t)
		form := h.get("/accounts/100101/pay")
		p := h.post("/accounts/100101/pay", url.Values{"csrf": {form.csrf()}})
		h.expect(p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.text("error-message"), "at least one bill") {
			t.Errorf("problem %q", p.text("error-message"))
		}
		h.expectUntouched("an empty cart")
	})
	t.Run("another account's bill", func(t *testing.T) {
		h := newHarness(t)
		form := h.get("/accounts/100101/pay")
		p := h.post("/accounts/100101/pay", url.Values{"csrf": {form.csrf()}, "bill": {currentBill, partBill}})
		h.expect(p, http.StatusUnprocessableEntity)
		h.expectUntouched("another account's bill")
	})
	t.Run("changed list", func(t *testing.T) {
		h := newHarness(t)
		c := h.cartConfirm("100101", pastDueBill, currentBill)
		f := chargeForm(c)
		for _, changed := range []string{
			url.QueryEscape(currentBill) + "=1.00",                            // a bill dropped, another's amount
			strings.Replace(f.Get("bills"), "=", "=0", 1),                     // an amount re-spelled
			f.Get("bills") + "," + url.QueryEscape(partBill) + "=1.00",        // a bill added
			url.QueryEscape(pastDueBill) + "=" + h.owes(pastDueBill).String(), // one of the two
		} {
			g := url.Values{}
			for k, v := range f {
				g[k] = v
			}
			g.Set("bills", changed)
			h.expect(h.post(chargeAction(c), g), http.StatusBadRequest)
		}
		// Another account's address for the same signed form.
		h.expect(h.post("/accounts/100105/charge", f), http.StatusBadRequest)
		h.expectUntouched("changed carts")
	})
	t.Run("a bill paid meanwhile", func(t *testing.T) {
		h := newHarness(t)
		c := h.cartConfirm("100101", pastDueBill, currentBill)
		single := h.confirmPage(currentBill, "10.00")
		h.expect(h.post(chargeAction(single), chargeForm(single)), http.StatusSeeOther)
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusConflict)
		if !strings.Contains(p.text("error-message"), currentBill) || !strings.Contains(p.text("error-message"), h.owes(currentBill).String()) {
			t.Errorf("message %q", p.text("error-message"))
		}
		if len(h.sim.Approved()) != 1 {
			t.Errorf("%d charges, want only the single payment's", len(h.sim.Approved()))
		}
	})
	t.Run("refused by the ledger after the charge", func(t *testing.T) {
		h := newHarness(t)
		c := h.cartConfirm("100101", pastDueBill, currentBill)
		total := h.owes(pastDueBill).Add(h.owes(currentBill))
		h.ledger.setRefuse(domain.Errorf(domain.ECONFLICT, "§5.10", "bill is on the tax roll"))
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusConflict)
		if r := h.sim.Refunds(); len(r) != 1 || !r[0].Amount.Equal(total) {
			t.Errorf("refunds %+v, want the whole %s back", r, total)
		}
		if _, a := h.ledger.counts(); a != 0 {
			t.Errorf("%d applied", a)
		}
	})
}

// TestCartWithoutTerminal: a kiosk with no card terminal offers no cart;
// its addresses say what each bill owes at the clerk's window.
func TestCartWithoutTerminal(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	if h.get("/accounts/100101").count("pay-all") != 0 {
		t.Error("a kiosk without a terminal offers to pay all")
	}
	p := h.get("/accounts/100101/pay")
	h.expect(p, http.StatusServiceUnavailable)
	for _, id := range []string{pastDueBill, currentBill} {
		if !strings.Contains(p.body, id) || !strings.Contains(p.body, h.owes(id).String()) {
			t.Errorf("the window's amounts do not name %s at %s", id, h.owes(id))
		}
	}
	h.expectUntouched("a kiosk without a terminal")
}

// TestCartInSpanish: the cart and its confirmation in Spanish.
func TestCartInSpanish(t *testing.T) {
	h := newHarness(t)
	h.get("/?lang=es")
	c := h.cartConfirm("100101", pastDueBill, currentBill)
	if c.lang() != "es" || !strings.Contains(c.body, "Un solo pago con tarjeta por 2 facturas") || !strings.Contains(c.body, "recargo") {
		t.Errorf("confirmation in %q: %s", c.lang(), c.text("cart-lines"))
	}
}

// manyBills gives account 100103 n payable bills, billed a day apart from
// September 1, 2026, and returns their ids, oldest first.
func (h *harness) manyBills(n int) []string {
	h.t.Helper()
	var ids []string
	h.ledger.mu.Lock()
	defer h.ledger.mu.Unlock()
	for i := range n {
		id := fmt.Sprintf("B-2026-9%03d", i)
		h.ledger.bills[id] = domain.Bill{ID: id, Account: "100103", Parcel: "0601-141-2003", Description: "Water and sewer",
			BilledOn: domain.MustDate("2026-09-01").AddDays(i), Principal: domain.Cents(int64(1000 + i))}
		ids = append(ids, id)
	}
	return ids
}

// TestCartOfMoreBillsThanOnePaymentTakes: an account with more payable
// bills than one payment pays lists the oldest that many, says how many it
// left out, and takes no other; the clerk's window, where a kiosk takes no
// card, still names them all.
func TestCartOfMoreBillsThanOnePaymentTakes(t *testing.T) {
	h := newHarness(t)
	ids := h.manyBills(domain.MaxBillsPerPayment + 2)
	oldest, newest := ids[:domain.MaxBillsPerPayment], ids[domain.MaxBillsPerPayment:]

	acct := h.get("/accounts/100103")
	if got := acct.text("pay-all"); !strings.HasPrefix(got, fmt.Sprintf("Pay %d bills together", domain.MaxBillsPerPayment)) {
		t.Errorf("offer %q", got)
	}
	cart := h.get("/accounts/100103/pay")
	h.expect(cart, http.StatusOK)
	if n := cart.count("cart-bill"); n != domain.MaxBillsPerPayment {
		t.Fatalf("%d bills listed, want %d", n, domain.MaxBillsPerPayment)
	}
	for _, id := range newest {
		if cart.doc.Find(`[data-bill="`+id+`"]`).Length() != 0 {
			t.Errorf("the newest bill %s is listed over the limit", id)
		}
	}
	for _, id := range oldest {
		if cart.doc.Find(`[data-bill="`+id+`"]`).Length() != 1 {
			t.Errorf("the older bill %s is not listed", id)
		}
	}
	want := fmt.Sprintf("This account has 2 more bills to pay. One payment takes at most %d: these are the oldest %d.", domain.MaxBillsPerPayment, domain.MaxBillsPerPayment)
	if got := cart.text("cart-more"); !strings.HasPrefix(got, want) {
		t.Errorf("note %q, want it to start %q", got, want)
	}

	// A bill left out, added to the form by hand, is refused and nothing
	// is charged.
	r := h.post("/accounts/100103/pay", url.Values{"csrf": {cart.csrf()}, "bill": {oldest[0], newest[0]}})
	h.expect(r, http.StatusUnprocessableEntity)
	c := h.cartConfirm("100103", oldest...)
	if c.count("cart-line") != domain.MaxBillsPerPayment {
		t.Errorf("confirmation of %d lines", c.count("cart-line"))
	}
	h.expectUntouched("a cart over the limit")

	// Within the limit, no note.
	if h.get("/accounts/100101/pay").count("cart-more") != 0 {
		t.Error("a cart within the limit says bills were left out")
	}
	off := newHarness(t, withoutTerminal)
	off.manyBills(domain.MaxBillsPerPayment + 2)
	p := off.get("/accounts/100103/pay")
	for _, id := range ids {
		if !strings.Contains(p.body, id) {
			t.Errorf("the window's amounts leave out %s", id)
		}
	}
}
