package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// formFields returns the hidden fields of the form with data-testid id.
func formFields(p page, id string) (string, url.Values) {
	v := url.Values{}
	f := p.doc.Find(`form[data-testid="` + id + `"]`)
	f.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(name, val)
	})
	action, _ := f.Attr("action")
	return action, v
}

func TestStartMenu(t *testing.T) {
	h := newHarness(t)
	p := h.get("/")
	for id, want := range map[string]string{"start-tax": "/property-tax", "start-letter": "/letters", "start-purchases": "/purchases", "start-pay": "/find"} {
		if href, _ := p.doc.Find(`[data-testid="` + id + `"]`).Attr("href"); href != want {
			t.Errorf("%s leads to %q, want %q", id, href, want)
		}
	}
}

func TestStatusLetterRequest(t *testing.T) {
	h := newHarness(t)
	form := h.get("/letters")
	h.expect(form, http.StatusOK)
	// Tuesday October 20, 2026 at 10:15: the 45.00 fee (in force since July
	// 1), ready Thursday.
	if form.text("letter-fee") != "$45.00" || !strings.Contains(form.text("letter-ready"), "October 22, 2026") {
		t.Fatalf("terms %q %q", form.text("letter-fee"), form.text("letter-ready"))
	}

	t.Run("missing fields are named beside each field", func(t *testing.T) {
		r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {""}, "name": {" "}, "contact": {""}})
		h.expect(r, http.StatusUnprocessableEntity)
		for _, id := range []string{"letter-parcel-error", "letter-name-error", "letter-contact-error"} {
			if r.count(id) != 1 {
				t.Errorf("no %s", id)
			}
		}
		if v, _ := r.doc.Find(`#name`).Attr("aria-invalid"); v != "true" {
			t.Errorf("name aria-invalid %q", v)
		}
		if d, _ := r.doc.Find(`#contact`).Attr("aria-describedby"); d != "contact-hint contact-error" {
			t.Errorf("contact described by %q", d)
		}
		if s, a := h.ledger.counts(); s != 0 || a != 0 {
			t.Error("a bad form reached the ledger")
		}
	})
	t.Run("several parcels offer a choice", func(t *testing.T) {
		r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"145 W Main"}, "name": {"Dana"}, "contact": {"608-555-0100"}})
		h.expect(r, http.StatusUnprocessableEntity)
		if r.count("choice-0601-141-2002") != 1 || r.count("choice-0601-141-2003") != 1 {
			t.Fatalf("choices missing: %s", r.text("parcel-choices"))
		}
		if v, _ := r.doc.Find(`#name`).Attr("value"); v != "Dana" {
			t.Errorf("name lost: %q", v)
		}
	})

	r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"141 West Main Stret"}, "name": {"  Dana  Title Co. "}, "contact": {"608-555-0100"}})
	h.expect(r, http.StatusOK)
	if !strings.Contains(r.text("letter-confirm-parcel"), "0601-141-2001") || r.text("letter-confirm-name") != "Dana Title Co." ||
		!strings.Contains(r.text("letter-confirm-ready"), "October 22, 2026") || r.text("confirm-amount") != "$45.00" {
		t.Fatalf("confirm %q %q %q %q", r.text("letter-confirm-parcel"), r.text("letter-confirm-name"), r.text("letter-confirm-ready"), r.text("confirm-amount"))
	}
	action, fields := formFields(r, "charge-form")

	t.Run("a changed request is refused", func(t *testing.T) {
		bad := url.Values{}
		for k, v := range fields {
			bad[k] = v
		}
		bad.Set("fee", "1.00")
		p := h.post(action, bad)
		h.expect(p, http.StatusBadRequest)
		if len(h.sim.Approved()) != 0 {
			t.Fatal("charged a changed form")
		}
	})

	c := h.post(action, fields)
	h.expect(c, http.StatusSeeOther)
	// A double tap is the same request: one charge, one claim.
	again := h.post(action, fields)
	h.expect(again, http.StatusSeeOther)
	if again.location != c.location || len(h.sim.Approved()) != 1 {
		t.Fatalf("second tap %q vs %q, %d charges", again.location, c.location, len(h.sim.Approved()))
	}
	rc := h.get(c.location)
	h.expect(rc, http.StatusOK)
	claim := strings.TrimPrefix(mustURL(c.location).Path, "/receipt/")
	if rc.text("claim-number") != claim || !strings.HasPrefix(claim, "hall-kiosk-") {
		t.Errorf("claim %q, location %q", rc.text("claim-number"), c.location)
	}
	if !strings.Contains(rc.text("claim-ready"), "October 22, 2026") || rc.text("receipt-amount") != "$45.00" || rc.text("receipt-requester") != "Dana Title Co." {
		t.Errorf("claim page %q %q %q", rc.text("claim-ready"), rc.text("receipt-amount"), rc.text("receipt-requester"))
	}
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
	// The clerk's queue finds it by ready-by date.
	keys, _ := h.ledger.Keys(domain.StatusRequestsByReadyDate, "2026-10-22/")
	if len(keys) != 1 || keys[0] != "2026-10-22/"+claim {
		t.Errorf("queue %v", keys)
	}
}

func TestStatusLetterAfterClosing(t *testing.T) {
	// Friday October 23, 2026 at 16:45: received Monday the 26th, ready
	// Wednesday the 28th; the page says why.
	h := newHarness(t, withClock(time.Date(2026, time.October, 23, 16, 45, 0, 0, chicago)))
	form := h.get("/letters?lang=es")
	r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"0601-141-2005"}, "name": {"Luis"}, "contact": {"luis@example.com"}})
	h.expect(r, http.StatusOK)
	if !strings.Contains(r.text("letter-confirm-received"), "26 de octubre de 2026") || !strings.Contains(r.text("letter-confirm-ready"), "28 de octubre de 2026") || r.count("letter-next-day") != 1 {
		t.Errorf("received %q ready %q", r.text("letter-confirm-received"), r.text("letter-confirm-ready"))
	}
}

func TestStatusLetterDeclinedThenOffline(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	form := h.get("/letters")
	r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale"}, "name": {"Luis"}, "contact": {"x@example.com"}})
	h.expect(r, http.StatusOK)
	action, fields := formFields(r, "charge-form")
	fields.Set("terminal", string(terminal.Decline))
	d := h.post(action, fields)
	h.expect(d, http.StatusPaymentRequired)
	if !strings.Contains(d.text("error-message"), "declined") || d.count("charge-form") != 1 {
		t.Fatalf("decline page %q", d.text("error-message"))
	}
	if s, _ := h.ledger.counts(); s != 0 {
		t.Fatal("a declined request reached the ledger")
	}
	h.ledger.setOffline(0)
	fields.Set("terminal", string(terminal.Approve))
	c := h.post(action, fields)
	h.expect(c, http.StatusSeeOther)
	rc := h.get(c.location)
	h.expect(rc, http.StatusOK)
	if s, _ := rc.doc.Find(`[data-testid="receipt-status"]`).Attr("data-status"); s != "provisional" || rc.count("claim-ready") != 1 {
		t.Errorf("status %q, ready %q", s, rc.text("claim-ready"))
	}
}

func TestPropertyTaxFirstInstallment(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	s := h.get("/property-tax?q=" + url.QueryEscape("141 w main street"))
	h.expect(s, http.StatusSeeOther)
	if s.location != "/property-tax/0601-141-2001" {
		t.Fatalf("search leads to %q", s.location)
	}
	list := h.get(s.location)
	h.expect(list, http.StatusOK)
	if list.count("tax-row") != 1 || list.text("tax-balance") != "$3,232.73" {
		t.Fatalf("list %d %q", list.count("tax-row"), list.text("tax-balance"))
	}
	bill := h.get("/tax-bills/" + taxBill2026Dane)
	h.expect(bill, http.StatusOK)
	// Half of 3,001.25 rounds half-up to 1,500.63; the first installment
	// carries the special items whole.
	if !strings.Contains(bill.text("tax-first"), "$1,732.11") || !strings.Contains(bill.text("tax-first"), "January 31, 2027") ||
		!strings.Contains(bill.text("tax-second"), "$1,500.62") || !strings.Contains(bill.text("tax-second"), "Dane County") {
		t.Fatalf("installments %q / %q", bill.text("tax-first"), bill.text("tax-second"))
	}
	if bill.count("tax-pay-full") != 1 || bill.count("tax-pay-first_installment") != 1 {
		t.Fatal("payment options missing")
	}
	r := h.post("/tax-bills/"+taxBill2026Dane+"/pay", url.Values{"csrf": {bill.csrf()}, "option": {"first_installment"}})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	h.expect(c, http.StatusOK)
	if c.text("confirm-amount") != "$1,732.11" || c.text("remaining-balance") != "$1,500.62" {
		t.Fatalf("confirm %q %q", c.text("confirm-amount"), c.text("remaining-balance"))
	}
	action, fields := formFields(c, "charge-form")
	done := h.post(action, fields)
	h.expect(done, http.StatusSeeOther)
	rc := h.get(done.location)
	h.expect(rc, http.StatusOK)
	if rc.text("receipt-amount") != "$1,732.11" || rc.text("receipt-balance") != "$1,500.62" || rc.text("receipt-option") != "First installment" {
		t.Fatalf("receipt %q %q %q", rc.text("receipt-amount"), rc.text("receipt-balance"), rc.text("receipt-option"))
	}
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
	// Reloading the confirmation leads to the receipt, never a second charge.
	again := h.get(r.location)
	h.expect(again, http.StatusSeeOther)
	after := h.get("/tax-bills/" + taxBill2026Dane)
	if after.count("tax-pay-first_installment") != 0 || after.count("tax-pay-full") != 1 || after.text("tax-status") != "First installment paid" {
		t.Errorf("after: %d %d %q", after.count("tax-pay-first_installment"), after.count("tax-pay-full"), after.text("tax-status"))
	}
}

func TestPropertyTaxInSpanishInFull(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	bill := h.get("/tax-bills/" + taxBill2026Green + "?lang=es")
	h.expect(bill, http.StatusOK)
	r := h.post("/tax-bills/"+taxBill2026Green+"/pay", url.Values{"csrf": {bill.csrf()}, "option": {"full"}})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	action, fields := formFields(c, "charge-form")
	done := h.post(action, fields)
	h.expect(done, http.StatusSeeOther)
	rc := h.get(done.location)
	if rc.lang() != "es" || rc.text("receipt-amount") != "$2,480.40" || rc.text("receipt-balance") != "$0.00" || !strings.Contains(rc.text("receipt-bill"), "Condado de Green") {
		t.Errorf("receipt %q %q %q", rc.text("receipt-amount"), rc.text("receipt-balance"), rc.text("receipt-bill"))
	}
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
}

func TestPropertyTaxWindow(t *testing.T) {
	t.Run("under 100.00 general tax: no installments", func(t *testing.T) {
		h := newHarness(t, withClock(inJanuary))
		b := h.get("/tax-bills/" + taxBillSmall)
		if b.count("tax-no-installments") != 1 || b.count("tax-pay-first_installment") != 0 || b.count("tax-pay-full") != 1 {
			t.Error("installments offered on a small bill")
		}
		r := h.post("/tax-bills/"+taxBillSmall+"/pay", url.Values{"csrf": {b.csrf()}, "option": {"first_installment"}})
		h.expect(r, http.StatusConflict)
	})
	t.Run("after January 31 the county collects", func(t *testing.T) {
		h := newHarness(t) // October 20, 2026: the 2025 roll closed January 31
		b := h.get("/tax-bills/" + taxBill2025Roll)
		h.expect(b, http.StatusOK)
		if b.count("tax-county") != 1 || b.count("tax-pay-full") != 0 || !strings.Contains(b.text("tax-county"), "Dane County treasurer") {
			t.Errorf("county notice %q", b.text("tax-county"))
		}
	})
	t.Run("before the bill is issued", func(t *testing.T) {
		h := newHarness(t)
		b := h.get("/tax-bills/" + taxBill2026Dane)
		if b.count("tax-not-yet") != 1 || b.count("tax-pay-full") != 0 {
			t.Error("a bill not yet issued takes payments")
		}
	})
	t.Run("a bill on the tax roll leads to the property tax", func(t *testing.T) {
		h := newHarness(t)
		b := h.get("/bills/" + taxRollBill)
		href, _ := b.doc.Find(`[data-testid="tax-roll-link"]`).Attr("href")
		if href != "/property-tax/0601-141-2002" {
			t.Fatalf("tax roll link %q", href)
		}
		l := h.get(href)
		h.expect(l, http.StatusOK)
		if l.count("tax-row") != 1 {
			t.Errorf("%d tax bills", l.count("tax-row"))
		}
		tb := h.get("/tax-bills/" + taxBill2025Roll)
		if !strings.Contains(tb.text("tax-special"), taxRollBill) {
			t.Errorf("special item %q does not name the village bill", tb.text("tax-special"))
		}
	})
	t.Run("a changed confirmation is refused", func(t *testing.T) {
		h := newHarness(t, withClock(inJanuary))
		p := h.get("/tax-bills/" + taxBill2026Dane + "/confirm?option=full&amount=1.00&cmd=x&sig=y")
		h.expect(p, http.StatusBadRequest)
	})
}

func TestPurchasingRecords(t *testing.T) {
	h := newHarness(t)
	l := h.get("/purchases")
	h.expect(l, http.StatusOK)
	if l.count("purchase-row") != 2 {
		t.Fatalf("%d records", l.count("purchase-row"))
	}
	// Newest first.
	if first, _ := l.doc.Find(`[data-testid="purchase-row"]`).First().Attr("data-purchase"); first != "PO-2026-014" {
		t.Errorf("first %q", first)
	}
	em := h.get("/purchases?kind=emergency")
	if em.count("purchase-row") != 1 {
		t.Errorf("emergency filter: %d", em.count("purchase-row"))
	}
	om := h.get("/purchases/PO-2026-014")
	h.expect(om, http.StatusOK)
	if om.count("bid") != 3 || om.count("low-bid") != 1 {
		t.Errorf("bids %d, low %d", om.count("bid"), om.count("low-bid"))
	}
	if !strings.Contains(om.doc.Find(`[data-testid="low-bid"]`).Parent().Text(), "Compass Minerals") {
		t.Error("the lowest bid is not Compass's")
	}
	e := h.get("/purchases/EM-2026-003?lang=es")
	if e.text("purchase-invoice") != "BSP-88213" || !strings.Contains(e.text("purchase-explanation"), "Vine Street") || e.text("purchase-kind") != "Emergencia" {
		t.Errorf("emergency record %q %q %q", e.text("purchase-invoice"), e.text("purchase-explanation"), e.text("purchase-kind"))
	}
	h.expect(h.get("/purchases/nope"), http.StatusNotFound)
	if strings.Contains(l.body, "<form method=\"post\"") {
		t.Error("the records page has a form that changes something")
	}
}

func TestFindToleratesTypos(t *testing.T) {
	for _, q := range []string{"141 W Mian St", "141 west main stret", "305 Hael Street", "141 Main", "305 hale avenu"} {
		t.Run(q, func(t *testing.T) {
			h := newHarness(t)
			p := h.get("/find?q=" + url.QueryEscape(q))
			if q == "305 hale avenu" {
				// "avenu" is an avenue, and Hale is a street: no match.
				h.expect(p, http.StatusNotFound)
				return
			}
			if p.status == http.StatusSeeOther {
				return // an exact match after normalizing
			}
			h.expect(p, http.StatusOK)
			if p.count("result-group") != 1 || !strings.Contains(p.text("results-title"), "Did you mean") {
				t.Errorf("groups %d, title %q", p.count("result-group"), p.text("results-title"))
			}
		})
	}
	t.Run("a typo in the house number finds nothing", func(t *testing.T) {
		h := newHarness(t)
		h.expect(h.get("/find?q="+url.QueryEscape("142 W Main St")), http.StatusNotFound)
	})
}

// TestChargeFormsStopTheIdleTimer checks that the forms that charge a card
// for a status letter and for property tax carry data-commit, which stops
// the idle timer once submitted, so a charge in progress is never dropped.
func TestChargeFormsStopTheIdleTimer(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	form := h.get("/letters")
	l := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale St"}, "name": {"Luis"}, "contact": {"x"}})
	bill := h.get("/tax-bills/" + taxBill2026Dane)
	r := h.post("/tax-bills/"+taxBill2026Dane+"/pay", url.Values{"csrf": {bill.csrf()}, "option": {"full"}})
	tc := h.get(r.location)
	for name, p := range map[string]page{"letter": l, "tax": tc} {
		if _, ok := p.doc.Find(`form[data-testid="charge-form"]`).Attr("data-commit"); !ok {
			t.Errorf("%s: the charge form lacks data-commit", name)
		}
	}
}

// TestProvisionalWithoutReadBack charges a status letter and a property tax
// payment on a ledger that is offline and makes no provisional receipt for
// these kinds (so cannot read one back): the kiosk shows the command's own
// provisional receipt in its answer rather than a page it cannot serve.
func TestProvisionalWithoutReadBack(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	h.ledger.setOffline(0)
	h.ledger.bare = true
	form := h.get("/letters")
	l := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale St"}, "name": {"Luis"}, "contact": {"x"}})
	action, fields := formFields(l, "charge-form")
	c := h.post(action, fields)
	h.expect(c, http.StatusOK)
	if s, _ := c.doc.Find(`[data-testid="receipt-status"]`).Attr("data-status"); s != "provisional" || !strings.HasPrefix(c.text("claim-number"), "hall-kiosk-") || !strings.Contains(c.text("claim-ready"), "January 14, 2027") {
		t.Errorf("status %q, claim %q, ready %q", s, c.text("claim-number"), c.text("claim-ready"))
	}
	bill := h.get("/tax-bills/" + taxBill2026Dane)
	r := h.post("/tax-bills/"+taxBill2026Dane+"/pay", url.Values{"csrf": {bill.csrf()}, "option": {"full"}})
	tc := h.get(r.location)
	action, fields = formFields(tc, "charge-form")
	p := h.post(action, fields)
	h.expect(p, http.StatusOK)
	if p.text("receipt-amount") != "$3,232.73" || p.count("provisional-note") != 1 {
		t.Errorf("amount %q, provisional %d", p.text("receipt-amount"), p.count("provisional-note"))
	}
	if got := p.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
}
