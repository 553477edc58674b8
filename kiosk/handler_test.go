package kiosk_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

func TestStartPage(t *testing.T) {
	h := newHarness(t)
	p := h.get("/")
	h.expect(p, http.StatusOK)
	if p.lang() != "en" {
		t.Errorf("lang %q, want en", p.lang())
	}
	if href, _ := p.doc.Find(`[data-testid="start-pay"]`).Attr("href"); href != "/find" {
		t.Errorf("start button leads to %q, want /find", href)
	}
	if p.count("lang-switch") != 1 || p.count("start-lang-es") != 1 {
		t.Errorf("start screen lacks the language switch")
	}
	if _, idle := p.doc.Find("body").Attr("data-idle-seconds"); idle {
		t.Errorf("the start screen must not run the idle timer")
	}
	if p.count("start-over") != 0 {
		t.Errorf("the start screen links to itself")
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	var session *http.Cookie
	for _, c := range h.client.Jar.Cookies(mustURL(h.srv.URL)) {
		if c.Name == "kiosk_session" {
			session = c
		}
	}
	if session == nil {
		t.Fatal("no session cookie")
	}
	if strings.Contains(p.body, "/staff") || strings.Contains(p.body, "/admin") {
		t.Errorf("the kiosk links to a staff page")
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestLanguageSwitch(t *testing.T) {
	h := newHarness(t)
	p := h.get("/find?lang=es")
	h.expect(p, http.StatusOK)
	if p.lang() != "es" || p.text("search-button") != "Buscar" {
		t.Fatalf("lang %q, button %q; want Spanish", p.lang(), p.text("search-button"))
	}
	// The choice is remembered for the next pages.
	p = h.get("/bills/" + pastDueBill)
	if p.lang() != "es" || !strings.Contains(p.text("next-steps"), "recargo") {
		t.Errorf("lang %q, next steps %q; want Spanish", p.lang(), p.text("next-steps"))
	}
	// The switch links to the same page in the other language.
	if href, _ := p.doc.Find(`[data-testid="lang-en"]`).Attr("href"); href != "/bills/"+pastDueBill+"?lang=en" {
		t.Errorf("English link %q", href)
	}
	// Starting over returns to English for the next resident.
	r := h.get("/reset")
	h.expect(r, http.StatusSeeOther)
	if p := h.get("/"); p.lang() != "en" {
		t.Errorf("after reset lang %q, want en", p.lang())
	}
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, q, want string
	}{
		{"bill number", pastDueBill, "/bills/" + pastDueBill},
		{"bill number, lower case and spaces", "  b-2026-0101 ", "/bills/" + pastDueBill},
		{"account number", "100101", "/accounts/100101"},
		{"parcel id", "0601-141-2001", "/parcels/0601-141-2001"},
		{"parcel id without dashes", "06011412001", "/parcels/0601-141-2001"},
		{"parcel id with spaces", "0601 141 2005", "/parcels/0601-141-2005"},
		{"street address", "141 West Main Street", "/parcels/0601-141-2001"},
		{"street address, abbreviated", "305 hale st.", "/parcels/0601-141-2005"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := h.get("/find?q=" + url.QueryEscape(tc.q))
			h.expect(p, http.StatusSeeOther)
			if p.location != tc.want {
				t.Errorf("search %q leads to %q, want %q", tc.q, p.location, tc.want)
			}
		})
	}

	t.Run("several matches are listed", func(t *testing.T) {
		h := newHarness(t)
		p := h.get("/find?q=" + url.QueryEscape("145 W Main"))
		h.expect(p, http.StatusOK)
		if n := p.count("result-group"); n != 2 {
			t.Fatalf("%d groups, want 2 (145 W Main St and its Unit 2)", n)
		}
	})
	t.Run("a street name alone lists nothing", func(t *testing.T) {
		h := newHarness(t)
		p := h.get("/find?q=" + url.QueryEscape("Main St"))
		h.expect(p, http.StatusNotFound)
	})
	t.Run("no match", func(t *testing.T) {
		h := newHarness(t)
		p := h.get("/find?q=ZZZ-999")
		h.expect(p, http.StatusNotFound)
		if !strings.Contains(p.text("error-message"), "ZZZ-999") || p.text("error-suggestion") == "" {
			t.Errorf("message %q, suggestion %q", p.text("error-message"), p.text("error-suggestion"))
		}
		if v, _ := p.doc.Find(`[data-testid="search-input"]`).Attr("value"); v != "ZZZ-999" {
			t.Errorf("the box lost the query: %q", v)
		}
		if v, _ := p.doc.Find(`[data-testid="search-input"]`).Attr("aria-invalid"); v != "true" {
			t.Errorf("aria-invalid %q", v)
		}
	})
	t.Run("empty", func(t *testing.T) {
		h := newHarness(t)
		p := h.get("/find?q=+++")
		h.expect(p, http.StatusUnprocessableEntity)
		if p.text("error-message") == "" {
			t.Error("no message")
		}
	})
}

func TestAccountPageListsEveryBill(t *testing.T) {
	h := newHarness(t)
	p := h.get("/accounts/100101")
	h.expect(p, http.StatusOK)
	rows := p.doc.Find(`[data-testid="bill-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("%d bills, want 2", rows.Length())
	}
	want := map[string][2]string{
		pastDueBill: {"past_due", "$221.00"},
		currentBill: {"current", "$80.00"},
	}
	for i := range rows.Length() {
		row := rows.Eq(i)
		id, _ := row.Attr("data-bill")
		status, _ := row.Find(`[data-testid="status"]`).Attr("data-status")
		balance := squash(row.Find(`[data-testid="bill-balance"]`).Text())
		if w := want[id]; status != w[0] || balance != w[1] {
			t.Errorf("bill %s: status %s balance %s, want %v", id, status, balance, w)
		}
	}
	if strings.Contains(p.body, "Ana Gutierrez") {
		t.Errorf("the account page shows the payer's name at a public kiosk")
	}
	h.expect(h.get("/accounts/999999"), http.StatusNotFound)
}

func TestParcelPage(t *testing.T) {
	h := newHarness(t)
	p := h.get("/parcels/0601-141-2002")
	h.expect(p, http.StatusOK)
	if p.count("bill-row") != 2 || p.text("group-subtitle") != "145 W Main St" {
		t.Fatalf("%d bills, subtitle %q", p.count("bill-row"), p.text("group-subtitle"))
	}
}

func TestBillPage(t *testing.T) {
	h := newHarness(t)

	t.Run("past due", func(t *testing.T) {
		p := h.get("/bills/" + pastDueBill)
		h.expect(p, http.StatusOK)
		if got := p.text("amount-due"); got != "$221.00" {
			t.Errorf("amount due %q, want $221.00 (200.00 + 7 months × 3.00)", got)
		}
		if n := p.count("line-interest"); n != 7 {
			t.Errorf("%d interest months, want 7", n)
		}
		if p.count("line-penalty") != 0 {
			t.Error("a penalty before November 2")
		}
		if next, _ := p.doc.Find(`[data-testid="next-steps"]`).Attr("data-next"); next != "interest" {
			t.Errorf("next %q", next)
		}
		steps := p.text("next-steps")
		for _, want := range []string{"November 1, 2026", "1.5%", "penalty", "November 15, 2026", "property tax bill", "March 31, 2026"} {
			if !strings.Contains(steps, want) {
				t.Errorf("next steps lack %q: %q", want, steps)
			}
		}
		if !strings.Contains(p.text("section-cite"), "§5.10") {
			t.Errorf("cite %q", p.text("section-cite"))
		}
		if p.count("pay-button") != 1 {
			t.Error("no pay button")
		}
	})
	t.Run("partly paid", func(t *testing.T) {
		p := h.get("/bills/" + partBill)
		h.expect(p, http.StatusOK)
		b, _ := h.ledger.Bill(partBill)
		fig, err := b.Figures(domain.DateOf(fixedAt), h.ledger.params)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.text("amount-due"); got != "$"+fig.Balance.String() {
			t.Errorf("amount due %q, want %s", got, fig.Balance)
		}
		if p.count("line-payment") != 1 || p.text("line-paid") == "" {
			t.Errorf("payments so far not shown")
		}
		if p.count("line-interest") != fig.InterestMonths {
			t.Errorf("%d interest lines, want %d", p.count("line-interest"), fig.InterestMonths)
		}
	})
	t.Run("on the tax roll", func(t *testing.T) {
		p := h.get("/bills/" + taxRollBill)
		h.expect(p, http.StatusOK)
		if p.count("tax-roll-notice") != 1 || p.count("pay-button") != 0 || p.count("line-penalty") != 1 {
			t.Errorf("notice %d, pay button %d, penalty %d", p.count("tax-roll-notice"), p.count("pay-button"), p.count("line-penalty"))
		}
		// The date on the roll is the day the run certified it; the page
		// names the day §5.10 uses too.
		if got := p.text("tax-roll-notice"); !strings.Contains(got, "On December 1, 2025 the village certified") || !strings.Contains(got, "end of November 15, 2025") {
			t.Errorf("notice %q", got)
		}
		// Its pay form leads back to the bill.
		r := h.get("/bills/" + taxRollBill + "/pay")
		h.expect(r, http.StatusSeeOther)
	})
	t.Run("past November 15, not certified", func(t *testing.T) {
		p := h.get("/bills/" + rollPendingBill)
		h.expect(p, http.StatusOK)
		if s, _ := p.doc.Find(`[data-testid="status"]`).Attr("data-status"); s != "tax_roll_pending" || p.count("tax-roll-pending") != 1 || p.count("tax-roll-notice") != 0 || p.count("pay-button") != 1 {
			t.Errorf("status %q, pending %d, notice %d, pay button %d", s, p.count("tax-roll-pending"), p.count("tax-roll-notice"), p.count("pay-button"))
		}
		if next, _ := p.doc.Find(`[data-testid="next-steps"]`).Attr("data-next"); next != "tax_roll_pending" {
			t.Errorf("next %q", next)
		}
		h.expect(h.get("/bills/"+rollPendingBill+"/pay"), http.StatusOK)
	})
	t.Run("paid", func(t *testing.T) {
		p := h.get("/bills/" + paidBill)
		if s, _ := p.doc.Find(`[data-testid="status"]`).Attr("data-status"); s != "paid" || p.count("pay-button") != 0 {
			t.Errorf("status %q, pay buttons %d", s, p.count("pay-button"))
		}
	})
	t.Run("current", func(t *testing.T) {
		p := h.get("/bills/" + currentBill)
		if next, _ := p.doc.Find(`[data-testid="next-steps"]`).Attr("data-next"); next != "pay_by" {
			t.Errorf("next %q", next)
		}
		if !strings.Contains(p.text("next-steps"), "November 4") {
			t.Errorf("next steps %q lack the due date", p.text("next-steps"))
		}
	})
	t.Run("no such bill", func(t *testing.T) {
		h.expect(h.get("/bills/NOPE"), http.StatusNotFound)
	})
}

func TestBadAmountChangesNothing(t *testing.T) {
	for _, tc := range []struct{ name, amount, message string }{
		{"empty", "  ", "enter an amount"},
		{"words", "ten dollars", "not an amount"},
		{"exponent", "1e3", "not an amount"},
		{"negative", "-5", "not an amount"},
		{"three decimals", "12.345", "more than two digits"},
		{"zero", "$0.00", "more than $0.00"},
		{"more than due", "$1,000", "more than the $221.00 due"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			form := h.get("/bills/" + pastDueBill + "/pay")
			p := h.post("/bills/"+pastDueBill+"/pay", url.Values{"csrf": {form.csrf()}, "amount": {tc.amount}})
			h.expect(p, http.StatusUnprocessableEntity)
			if !strings.Contains(strings.ToLower(p.text("error-message")), strings.ToLower(tc.message)) {
				t.Errorf("message %q, want it to say %q", p.text("error-message"), tc.message)
			}
			if p.text("error-suggestion") == "" {
				t.Error("no suggestion")
			}
			in := p.doc.Find(`[data-testid="amount-input"]`)
			if v, _ := in.Attr("value"); v != tc.amount {
				t.Errorf("the field shows %q, want %q as typed", v, tc.amount)
			}
			if v, _ := in.Attr("aria-invalid"); v != "true" {
				t.Error("the field is not marked invalid")
			}
			if v, _ := in.Attr("aria-describedby"); !strings.Contains(v, "amount-error") {
				t.Errorf("aria-describedby %q", v)
			}
			if s, a := h.ledger.counts(); s != 0 || a != 0 || len(h.sim.Approved()) != 0 {
				t.Errorf("submits %d, applied %d, charges %d; want none", s, a, len(h.sim.Approved()))
			}
		})
	}
}

func TestAmountsAsResidentsTypeThem(t *testing.T) {
	// A comma is read only where English puts one ("5,0.00" is refused: see
	// TestReadAmount).
	for _, typed := range []string{"50", "50.00", "$50", " $50.00 ", "050"} {
		h := newHarness(t)
		c := h.confirmPage(pastDueBill, typed)
		if got := c.text("confirm-amount"); got != "$50.00" {
			t.Errorf("%q: confirm amount %q", typed, got)
		}
	}
}

func TestConfirmShowsAllocation(t *testing.T) {
	h := newHarness(t)
	c := h.confirmPage(pastDueBill, "100")
	for id, want := range map[string]string{
		"confirm-amount":    "$100.00",
		"alloc-penalty":     "$0.00",
		"alloc-interest":    "$21.00",
		"alloc-principal":   "$79.00",
		"remaining-balance": "$121.00",
	} {
		if got := c.text(id); !strings.HasSuffix(got, want) {
			t.Errorf("%s: %q, want %s", id, got, want)
		}
	}
	if c.count("simulator") != 0 {
		t.Error("the simulator panel shows without Config.Simulator")
	}
	f := chargeForm(c)
	if f.Get("command_id") == "" || f.Get("sig") == "" || f.Get("csrf") == "" {
		t.Errorf("form %v lacks command id, signature or CSRF token", f)
	}
	// Reloading the page keeps the command id.
	again := h.get(mustURL(h.srv.URL + "/bills/" + pastDueBill + "/confirm?" + url.Values{"amount": {f.Get("amount")}, "cmd": {f.Get("command_id")}, "sig": {f.Get("sig")}}.Encode()).RequestURI())
	h.expect(again, http.StatusOK)
	if chargeForm(again).Get("command_id") != f.Get("command_id") {
		t.Error("reloading the confirmation page changed the command id")
	}
}

func TestPayAndReceipt(t *testing.T) {
	h := newHarness(t)
	c := h.confirmPage(pastDueBill, "100.00")
	f := chargeForm(c)
	r := h.post(chargeAction(c), f)
	h.expect(r, http.StatusSeeOther)
	if !strings.HasPrefix(r.location, "/receipt/") {
		t.Fatalf("charge leads to %q", r.location)
	}
	rc := h.get(r.location)
	h.expect(rc, http.StatusOK)
	for id, want := range map[string]string{
		"receipt-number":  "hall-kiosk-000001",
		"receipt-status":  "Posted",
		"receipt-bill":    pastDueBill,
		"receipt-amount":  "$100.00",
		"alloc-penalty":   "$0.00",
		"alloc-interest":  "$21.00",
		"alloc-principal": "$79.00",
		"receipt-balance": "$121.00",
		"receipt-time":    "October 20, 2026, 10:15 AM",
	} {
		if got := rc.text(id); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %s", id, got, want)
		}
	}
	if !strings.Contains(rc.text("receipt-tender"), "SIM000001") {
		t.Errorf("tender %q lacks the approval reference", rc.text("receipt-tender"))
	}
	if rc.count("posted-note") != 1 || rc.count("provisional-note") != 0 {
		t.Error("a posted receipt must say so")
	}
	if got := h.sim.Approved(); len(got) != 1 || got[0].Key != f.Get("command_id") || got[0].Amount.String() != "100.00" {
		t.Errorf("charges %+v", got)
	}
	b, _ := h.ledger.Bill(pastDueBill)
	if len(b.Payments) != 1 || b.Payments[0].CommandID != f.Get("command_id") || b.Payments[0].Tender != domain.Card {
		t.Errorf("payments %+v", b.Payments)
	}
	// The bill page now shows the payment and the new balance.
	bp := h.get("/bills/" + pastDueBill)
	if bp.text("amount-due") != "$121.00" || bp.count("line-payment") != 1 {
		t.Errorf("after paying: amount due %q, payments %d", bp.text("amount-due"), bp.count("line-payment"))
	}
	// Going back to the confirmation page leads to the receipt, not a
	// second payment.
	back := h.get("/bills/" + pastDueBill + "/confirm?" + url.Values{"amount": {f.Get("amount")}, "cmd": {f.Get("command_id")}, "sig": {f.Get("sig")}}.Encode())
	h.expect(back, http.StatusSeeOther)
	if back.location != r.location {
		t.Errorf("confirmation page after paying leads to %q, want %q", back.location, r.location)
	}
}

func TestDoubleSubmitChargesOnce(t *testing.T) {
	h := newHarness(t)
	c := h.confirmPage(pastDueBill, "50.00")
	f := chargeForm(c)

	first := h.post(chargeAction(c), f)
	h.expect(first, http.StatusSeeOther)
	second := h.post(chargeAction(c), f)
	h.expect(second, http.StatusSeeOther)
	if first.location != second.location {
		t.Errorf("two receipts: %q and %q", first.location, second.location)
	}

	// A browser retry racing itself.
	c2 := h.confirmPage(currentBill, "80.00")
	f2 := chargeForm(c2)
	var wg sync.WaitGroup
	locs := make([]string, 4)
	for i := range locs {
		wg.Go(func() {
			r := h.post(chargeAction(c2), f2)
			locs[i] = r.location
		})
	}
	wg.Wait()
	for _, l := range locs {
		if l != locs[0] || !strings.HasPrefix(l, "/receipt/") {
			t.Errorf("concurrent submits led to %q", locs)
			break
		}
	}

	if n := len(h.sim.Approved()); n != 2 {
		t.Errorf("%d charges, want 2 (one per payment)", n)
	}
	if _, applied := h.ledger.counts(); applied != 2 {
		t.Errorf("%d payments applied, want 2", applied)
	}
	for _, id := range []string{pastDueBill, currentBill} {
		if b, _ := h.ledger.Bill(id); len(b.Payments) != 1 {
			t.Errorf("bill %s has %d payments, want 1", id, len(b.Payments))
		}
	}
}

func TestTamperedFormIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(url.Values) (path string)
	}{
		{"amount", func(v url.Values) string { v.Set("amount", "1.00"); return "" }},
		{"amount spelled otherwise", func(v url.Values) string { v.Set("amount", "100.0"); return "" }},
		{"command id", func(v url.Values) string { v.Set("command_id", "0190aaaa-0000-7000-8000-000000000000"); return "" }},
		{"signature", func(v url.Values) string { v.Set("sig", "AAAA"+v.Get("sig")[4:]); return "" }},
		{"no signature", func(v url.Values) string { v.Del("sig"); return "" }},
		{"another bill", func(v url.Values) string { return "/bills/" + currentBill + "/charge" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			c := h.confirmPage(pastDueBill, "100.00")
			f := chargeForm(c)
			path := tc.change(f)
			if path == "" {
				path = chargeAction(c)
			}
			p := h.post(path, f)
			h.expect(p, http.StatusBadRequest)
			if !strings.Contains(p.text("error-message"), "changed") {
				t.Errorf("message %q", p.text("error-message"))
			}
			if s, _ := h.ledger.counts(); s != 0 || len(h.sim.Approved()) != 0 {
				t.Errorf("submits %d, charges %d; want none", s, len(h.sim.Approved()))
			}
			// The confirmation page refuses a changed URL too.
			q := url.Values{"amount": {f.Get("amount")}, "cmd": {f.Get("command_id")}, "sig": {f.Get("sig")}}
			h.expect(h.get(strings.TrimSuffix(path, "/charge")+"/confirm?"+q.Encode()), http.StatusBadRequest)
		})
	}
}

// flipFirst returns s with its first character changed, so it is surely
// another token.
func flipFirst(s string) string {
	if s == "" || s[0] == 'x' {
		return "y" + s[min(1, len(s)):]
	}
	return "x" + s[1:]
}

func TestCSRF(t *testing.T) {
	h := newHarness(t)
	c := h.confirmPage(pastDueBill, "100.00")
	f := chargeForm(c)
	for _, tc := range []struct {
		name   string
		client *http.Client
		token  string
	}{
		{"missing token", h.client, ""},
		{"wrong token", h.client, flipFirst(f.Get("csrf"))},
		{"another session's token", h.newClient(), f.Get("csrf")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := url.Values{}
			for k := range f {
				v.Set(k, f.Get(k))
			}
			if tc.token == "" {
				v.Del("csrf")
			} else {
				v.Set("csrf", tc.token)
			}
			for _, path := range []string{chargeAction(c), "/bills/" + pastDueBill + "/pay"} {
				p := h.do(tc.client, http.MethodPost, path, v)
				h.expect(p, http.StatusForbidden)
				if p.text("error-message") == "" {
					t.Error("no message")
				}
			}
			if s, _ := h.ledger.counts(); s != 0 || len(h.sim.Approved()) != 0 {
				t.Errorf("submits %d, charges %d; want none", s, len(h.sim.Approved()))
			}
		})
	}
	// A new session (the next resident) cannot submit the last one's form.
	h.get("/reset")
	h.get("/")
	h.expect(h.post(chargeAction(c), f), http.StatusForbidden)
}

func TestTerminalRefusalSubmitsNothing(t *testing.T) {
	for _, tc := range []struct {
		outcome terminal.Outcome
		status  int
		message string
	}{
		{terminal.Decline, http.StatusPaymentRequired, "declined"},
		{terminal.Timeout, http.StatusGatewayTimeout, "did not receive an answer"},
		{terminal.Cancel, http.StatusPaymentRequired, "cancelled"},
	} {
		t.Run(string(tc.outcome), func(t *testing.T) {
			h := newHarness(t)
			c := h.confirmPage(pastDueBill, "100.00")
			f := chargeForm(c)
			h.sim.SetOutcome(f.Get("command_id"), tc.outcome)
			p := h.post(chargeAction(c), f)
			h.expect(p, tc.status)
			if tc.outcome == terminal.Timeout {
				// A terminal that did not answer cannot promise that no
				// money moved: the page says what the clerk can find the
				// payment by, a short part of the command id (its random
				// end), never all 36 characters.
				id := f.Get("command_id")
				if !strings.Contains(p.text("error-message"), tc.message) || strings.Contains(p.text("error-message"), "not been charged") ||
					!strings.Contains(p.text("error-suggestion"), "reference "+strings.ToUpper(id[len(id)-8:])+";") || strings.Contains(p.text("error-suggestion"), id) {
					t.Errorf("message %q, suggestion %q", p.text("error-message"), p.text("error-suggestion"))
				}
			} else if !strings.Contains(p.text("error-message"), tc.message) || !strings.Contains(p.text("error-message"), "not been charged") {
				t.Errorf("message %q", p.text("error-message"))
			}
			// Back on the confirmation page, with the same command id.
			if p.count("charge-form") != 1 || chargeForm(p).Get("command_id") != f.Get("command_id") {
				t.Error("not back on the confirmation page with the same command id")
			}
			if s, _ := h.ledger.counts(); s != 0 || len(h.sim.Approved()) != 0 {
				t.Errorf("submits %d, charges %d; want none", s, len(h.sim.Approved()))
			}
			// Trying again goes through, once.
			r := h.post(chargeAction(p), chargeForm(p))
			h.expect(r, http.StatusSeeOther)
			if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
				t.Errorf("applied %d, charges %d after the retry", a, len(h.sim.Approved()))
			}
		})
	}
}

func TestLedgerRefusal(t *testing.T) {
	t.Run("before the charge", func(t *testing.T) {
		h := newHarness(t)
		c := h.confirmPage(pastDueBill, "100.00")
		h.ledger.setRefuse(domain.Errorf(domain.EUNAVAILABLE, "", "The clock of this node is wrong; payments are paused."))
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusServiceUnavailable)
		if len(h.sim.Approved()) != 0 {
			t.Error("the card was charged although the ledger takes no payments")
		}
		if !strings.Contains(p.text("error-message"), "not reachable") {
			t.Errorf("message %q", p.text("error-message"))
		}
	})
	t.Run("after the charge", func(t *testing.T) {
		// The bill went on the tax roll between the approval and the
		// ledger: nothing is recorded, so the charge
		// is refunded through the terminal and the resident is told.
		h := newHarness(t)
		c := h.confirmPage(pastDueBill, "100.00")
		h.ledger.setRefuse(domain.Errorf(domain.ECONFLICT, "§5.10", "bill is on the tax roll"))
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusConflict)
		if !strings.Contains(p.text("error-message"), "refunded") || !strings.Contains(p.text("error-message"), "$100.00") ||
			!strings.Contains(p.text("error-message"), "SIMR000001") || !strings.Contains(p.text("error-message"), "tax roll") {
			t.Errorf("message %q", p.text("error-message"))
		}
		if r := h.sim.Refunds(); len(r) != 1 || !r[0].Amount.Equal(domain.MustMoney("100.00")) {
			t.Errorf("refunds %+v", r)
		}
		if !strings.Contains(h.logs.String(), "payment refused by the ledger; the card was refunded") {
			t.Error("not logged for the clerk")
		}
		// The form is spent: a second tap charges nothing and refunds
		// nothing more, even once the ledger would take it.
		h.ledger.setRefuse(nil)
		again := h.post(chargeAction(c), chargeForm(c))
		h.expect(again, http.StatusConflict)
		if _, a := h.ledger.counts(); a != 0 || len(h.sim.Approved()) != 1 || len(h.sim.Refunds()) != 1 {
			t.Errorf("applied %d, charges %d, refunds %d; want 0, 1, 1", a, len(h.sim.Approved()), len(h.sim.Refunds()))
		}
	})
	t.Run("not known to be refused", func(t *testing.T) {
		// A failure that is not the ledger's refusal (the command may
		// still post from the outbox) is not refunded: the clerk resolves
		// it with the approval reference.
		h := newHarness(t)
		c := h.confirmPage(pastDueBill, "100.00")
		h.ledger.setRefuse(errors.New("disk full"))
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusBadGateway)
		if !strings.Contains(p.text("error-message"), "SIM000001") || !strings.Contains(p.text("error-suggestion"), "clerk") {
			t.Errorf("message %q, suggestion %q", p.text("error-message"), p.text("error-suggestion"))
		}
		if len(h.sim.Refunds()) != 0 {
			t.Error("refunded a payment that may still post")
		}
		h.ledger.setRefuse(nil)
		h.expect(h.post(chargeAction(c), chargeForm(c)), http.StatusSeeOther)
		if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
			t.Errorf("applied %d, charges %d; want 1 and 1", a, len(h.sim.Approved()))
		}
	})
}

func TestSimulatorPanel(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	c := h.confirmPage(pastDueBill, "100.00")
	if c.count("simulator") != 1 || !strings.Contains(c.text("simulator"), "Card terminal (simulator)") {
		t.Fatalf("panel %q", c.text("simulator"))
	}
	f := chargeForm(c)
	f.Set("terminal", "decline")
	p := h.post(chargeAction(c), f)
	h.expect(p, http.StatusPaymentRequired)
	f.Set("terminal", "approve")
	h.expect(h.post(chargeAction(c), f), http.StatusSeeOther)
	if s, a := h.ledger.counts(); s != 1 || a != 1 {
		t.Errorf("submits %d applied %d", s, a)
	}
}

func TestOfflinePaymentIsProvisional(t *testing.T) {
	h := newHarness(t)
	h.ledger.setOffline(0)
	c := h.confirmPage(pastDueBill, "21.00")
	if !strings.Contains(c.text("banner"), "Working offline: 0 payments waiting to post") {
		t.Errorf("banner %q", c.text("banner"))
	}
	r := h.post(chargeAction(c), chargeForm(c))
	h.expect(r, http.StatusSeeOther)
	rc := h.get(r.location)
	h.expect(rc, http.StatusOK)
	if rc.count("provisional-note") != 1 || !strings.Contains(rc.text("provisional-note"), "Recorded; it posts when the network returns") {
		t.Errorf("provisional note %q", rc.text("provisional-note"))
	}
	if s, _ := rc.doc.Find(`[data-testid="receipt-status"]`).Attr("data-status"); s != "provisional" {
		t.Errorf("status %q", s)
	}
	if rc.text("alloc-interest") == "" || !strings.Contains(rc.text("banner"), "1 payments waiting") {
		t.Errorf("allocation %q, banner %q", rc.text("alloc-interest"), rc.text("banner"))
	}
}

func TestConsistencyBanner(t *testing.T) {
	h := newHarness(t)
	if p := h.get("/find"); p.count("banner") != 0 {
		t.Error("a banner while current")
	}
	h.ledger.setConsistency(domain.Consistency{Level: domain.Replica, LastContact: fixedAt.Add(-93 * 60e9)})
	p := h.get("/find")
	if got := p.text("banner-as-of"); !strings.Contains(got, "Records as of 8:42 AM") {
		t.Errorf("banner %q", got)
	}
	p = h.get("/find?lang=es")
	if got := p.text("banner-as-of"); !strings.Contains(got, "08:42") {
		t.Errorf("Spanish banner %q", got)
	}
}

func TestReceiptNotFound(t *testing.T) {
	h := newHarness(t)
	p := h.get("/receipt/hall-kiosk-999999")
	h.expect(p, http.StatusNotFound)
	if !strings.Contains(p.text("error-message"), "hall-kiosk-999999") {
		t.Errorf("message %q", p.text("error-message"))
	}
}

func TestUnknownPage(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/staff", "/admin/backup", "/nope"} {
		p := h.get(path)
		h.expect(p, http.StatusNotFound)
		if p.text("error-message") == "" {
			t.Errorf("%s: bare 404", path)
		}
	}
}

func TestIdleTimerOnEveryOtherPage(t *testing.T) {
	h := newHarness(t, withIdle(90e9))
	for _, path := range []string{"/find", "/bills/" + pastDueBill, "/accounts/100101"} {
		p := h.get(path)
		body := p.doc.Find("body")
		secs, _ := body.Attr("data-idle-seconds")
		warn, _ := body.Attr("data-idle-warn")
		if secs != "90" || warn != "30" || p.count("idle-warning") != 1 {
			t.Errorf("%s: idle %q warn %q", path, secs, warn)
		}
	}
}

func TestAssets(t *testing.T) {
	h := newHarness(t)
	p := h.get("/")
	css, _ := p.doc.Find(`link[rel="stylesheet"]`).Attr("href")
	js, _ := p.doc.Find(`script[src]`).Attr("src")
	for _, u := range []string{css, js} {
		a := h.get(u)
		h.expect(a, http.StatusOK)
		if !strings.Contains(a.header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: cache %q", u, a.header.Get("Cache-Control"))
		}
	}
	if a := h.get(css); !strings.Contains(a.body, "@page { size: 80mm 297mm; size: 80mm auto;") {
		t.Error("the stylesheet does not print receipts on 80 mm paper")
	}
}

// TestReceiptNumbersWithoutGaps: the command is
// stamped (and takes this node's next receipt number) only once the card
// is approved, so declined, cancelled and timed-out charges leave no hole
// in the clerk's sequence. Before, each of them took a number.
func TestReceiptNumbersWithoutGaps(t *testing.T) {
	h := newHarness(t)
	var numbers []string
	for i, outcomes := range [][]terminal.Outcome{{terminal.Decline, terminal.Cancel}, {terminal.Timeout}, {}} {
		c := h.confirmPage(pastDueBill, "10.00")
		f := chargeForm(c)
		for _, o := range outcomes {
			h.sim.SetOutcome(f.Get("command_id"), o)
			if p := h.post(chargeAction(c), f); p.status == http.StatusSeeOther {
				t.Fatalf("payment %d: %s was taken", i, o)
			}
		}
		r := h.post(chargeAction(c), f)
		h.expect(r, http.StatusSeeOther)
		u, err := url.Parse(r.location)
		if err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, strings.TrimPrefix(u.Path, "/receipt/"))
	}
	want := []string{"hall-kiosk-000001", "hall-kiosk-000002", "hall-kiosk-000003"}
	if strings.Join(numbers, " ") != strings.Join(want, " ") {
		t.Errorf("receipt numbers %v, want %v", numbers, want)
	}
}
