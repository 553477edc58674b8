package kiosk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// stamped returns how many commands the kiosk asked the ledger to stamp.
func (l *fakeLedger) stamped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// expectUntouched fails the test unless the kiosk stamped, submitted and
// applied nothing.
func (h *harness) expectUntouched(what string) {
	h.t.Helper()
	if s, a := h.ledger.counts(); s != 0 || a != 0 || h.ledger.stamped() != 0 {
		h.t.Errorf("%s: stamped %d, submitted %d, applied %d; want nothing", what, h.ledger.stamped(), s, a)
	}
	if n := len(h.sim.Approved()); n != 0 {
		h.t.Errorf("%s: %d charges", what, n)
	}
}

// TestNoTerminalStartScreen: a kiosk without a card terminal says so before
// the resident starts.
func TestNoTerminalStartScreen(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	for lang, want := range map[string]string{"en": "Card payments are not available at this kiosk today", "es": "Hoy no se aceptan pagos con tarjeta"} {
		p := h.get("/?lang=" + lang)
		h.expect(p, http.StatusOK)
		if !strings.Contains(p.text("card-off"), want) || !strings.Contains(p.text("card-off"), map[string]string{"en": "clerk's window", "es": "ventanilla"}[lang]) {
			t.Errorf("%s: notice %q", lang, p.text("card-off"))
		}
	}
	// With a terminal there is no such notice.
	if p := newHarness(t).get("/"); p.count("card-off") != 0 {
		t.Error("a kiosk with a terminal says it takes no cards")
	}
}

// TestNoTerminalBillPage: a payable bill shows what to pay at the clerk's
// window and what to bring, in both languages, and no pay button.
func TestNoTerminalBillPage(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	for _, tc := range []struct {
		lang                   string
		title, window, amount  string
		bring, money, dueLabel string
	}{
		{"en", "Card payments are not available at this kiosk today.", "clerk's window", "$221.00", "the bill number, " + pastDueBill + ", or the account number, 100101", "check made out to the Village of Belleville", "Amount due today, October 20, 2026"},
		{"es", "Hoy no se aceptan pagos con tarjeta en este quiosco.", "ventanilla de la secretaría", "$221.00", "el número de factura, " + pastDueBill + ", o el número de cuenta, 100101", "cheque a nombre de la Villa de Belleville", "Importe a pagar hoy, 20 de octubre de 2026"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			p := h.get("/bills/" + pastDueBill + "?lang=" + tc.lang)
			h.expect(p, http.StatusOK)
			if p.count("pay-button") != 0 {
				t.Error("a Pay button that cannot work")
			}
			if p.count("card-off") != 1 {
				t.Fatal("no card-off notice")
			}
			for _, want := range []string{tc.title, tc.window, tc.amount, tc.bring, tc.money, tc.dueLabel} {
				if !strings.Contains(p.text("card-off"), want) {
					t.Errorf("notice %q lacks %q", p.text("card-off"), want)
				}
			}
			if p.text("card-off-amount") != tc.amount {
				t.Errorf("amount %q, want %s", p.text("card-off-amount"), tc.amount)
			}
		})
	}
	// A paid bill needs no notice.
	if p := h.get("/bills/" + paidBill); p.count("card-off") != 0 || p.count("pay-button") != 0 {
		t.Errorf("paid bill: notice %d, pay button %d", p.count("card-off"), p.count("pay-button"))
	}
	h.expectUntouched("bill page")
}

// TestNoTerminalTaxAndLetterPages: the property tax bill lists the amounts
// to pay at the window instead of pay buttons; the status letter page shows
// the fee and what to bring instead of a form that ends in a card charge.
func TestNoTerminalTaxAndLetterPages(t *testing.T) {
	h := newHarness(t, withoutTerminal, withClock(inJanuary))
	p := h.get("/tax-bills/" + taxBill2026Dane)
	h.expect(p, http.StatusOK)
	if p.count("tax-pay-full") != 0 || p.count("tax-pay-first_installment") != 0 {
		t.Error("pay buttons that cannot work")
	}
	notice := p.text("card-off")
	for _, want := range []string{"not available at this kiosk today", "Payment in full", "$3,232.73", "First installment", "the parcel number, 0601-141-2001", "2026"} {
		if !strings.Contains(notice, want) {
			t.Errorf("tax notice %q lacks %q", notice, want)
		}
	}

	for lang, want := range map[string][]string{
		"en": {"not available at this kiosk today", "Status letter fee", "$45.00", "the parcel number or street address"},
		"es": {"Hoy no se aceptan pagos con tarjeta", "Tarifa de la carta de estado", "$45.00", "el número de parcela o la dirección"},
	} {
		l := h.get("/letters?lang=" + lang)
		h.expect(l, http.StatusOK)
		if l.count("letter-form") != 0 || l.count("charge-form") != 0 {
			t.Errorf("%s: a request form that ends in a card charge", lang)
		}
		for _, w := range want {
			if !strings.Contains(l.text("card-off"), w) {
				t.Errorf("%s: letter notice %q lacks %q", lang, l.text("card-off"), w)
			}
		}
	}
	h.expectUntouched("tax and letter pages")
}

// TestNoTerminalCheckoutChargesNothing posts to, and opens, every card
// checkout of a kiosk without a terminal, with forms as a browser kept them
// or as a probe makes them (terminal=approve included): each says plainly
// that card payments are not available and where to pay, and nothing is
// stamped, charged or submitted.
func TestNoTerminalCheckoutChargesNothing(t *testing.T) {
	type checkout struct {
		name, method, path string
		form               url.Values
		amount             string
	}
	// withField copies a form kept from a kiosk that took cards, with this
	// session's CSRF token and terminal=approve.
	withField := func(v url.Values, csrf string) url.Values {
		out := url.Values{}
		for k := range v {
			out.Set(k, v.Get(k))
		}
		out.Set("csrf", csrf)
		out.Set("terminal", "approve")
		return out
	}
	run := func(t *testing.T, h *harness, checkouts []checkout) {
		for _, tc := range checkouts {
			t.Run(tc.name, func(t *testing.T) {
				p := h.do(h.client, tc.method, tc.path, tc.form)
				if p.status != http.StatusServiceUnavailable {
					t.Fatalf("status %d, want 503; error %q", p.status, p.text("error-message"))
				}
				if !strings.Contains(p.text("card-off-title"), "Card payments are not available at this kiosk today") ||
					!strings.Contains(p.text("card-off-nothing"), "Nothing was charged") ||
					!strings.Contains(p.text("card-off"), "clerk's window") ||
					!strings.Contains(p.text("card-off-amounts"), tc.amount) {
					t.Errorf("page %q", p.text("card-off"))
				}
				if p.count("charge-form") != 0 || p.count("charge-button") != 0 {
					t.Error("a charge form on a kiosk without a terminal")
				}
				h.expectUntouched(tc.name)
			})
		}
	}

	t.Run("bills and letters", func(t *testing.T) {
		// The forms come from a kiosk that takes cards, with the same
		// secret, as if the terminal had been unplugged since.
		donor := newHarness(t)
		c := donor.confirmPage(pastDueBill, "100.00")
		billForm := chargeForm(c)
		confirm := "/bills/" + pastDueBill + "/confirm?" + url.Values{"amount": {billForm.Get("amount")}, "cmd": {billForm.Get("command_id")}, "sig": {billForm.Get("sig")}}.Encode()
		form := donor.get("/letters")
		lc := donor.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale St"}, "name": {"Luis"}, "contact": {"x@example.com"}})
		_, letterForm := formFields(lc, "charge-form")

		h := newHarness(t, withoutTerminal)
		h.get("/")
		csrf := h.csrfToken(h.client)
		run(t, h, []checkout{
			{"bill pay form", http.MethodGet, "/bills/" + pastDueBill + "/pay", nil, "$221.00"},
			{"bill amount", http.MethodPost, "/bills/" + pastDueBill + "/pay", url.Values{"csrf": {csrf}, "amount": {"100.00"}}, "$221.00"},
			{"bill confirmation", http.MethodGet, confirm, nil, "$221.00"},
			{"bill charge", http.MethodPost, chargeAction(c), withField(billForm, csrf), "$221.00"},
			{"bill charge, probe", http.MethodPost, "/bills/" + pastDueBill + "/charge", url.Values{"csrf": {csrf}, "terminal": {"approve"}, "amount": {"221.00"}}, "$221.00"},
			{"letter request", http.MethodPost, "/letters", url.Values{"csrf": {csrf}, "q": {"305 Hale St"}, "name": {"Luis"}, "contact": {"x@example.com"}}, "$45.00"},
			{"letter charge", http.MethodPost, "/letters/charge", withField(letterForm, csrf), "$45.00"},
		})
		// The same page in Spanish.
		p := h.get("/bills/" + pastDueBill + "/pay?lang=es")
		h.expect(p, http.StatusServiceUnavailable)
		if !strings.Contains(p.text("card-off"), "No se cobró nada") || !strings.Contains(p.text("card-off"), "ventanilla") {
			t.Errorf("Spanish page %q", p.text("card-off"))
		}
	})
	t.Run("property tax", func(t *testing.T) {
		donor := newHarness(t, withClock(inJanuary))
		tb := donor.get("/tax-bills/" + taxBill2026Dane)
		tr := donor.post("/tax-bills/"+taxBill2026Dane+"/pay", url.Values{"csrf": {tb.csrf()}, "option": {"full"}})
		donor.expect(tr, http.StatusSeeOther)
		_, taxForm := formFields(donor.get(tr.location), "charge-form")

		h := newHarness(t, withoutTerminal, withClock(inJanuary))
		h.get("/")
		csrf := h.csrfToken(h.client)
		run(t, h, []checkout{
			{"tax option", http.MethodPost, "/tax-bills/" + taxBill2026Dane + "/pay", url.Values{"csrf": {csrf}, "option": {"full"}}, "$3,232.73"},
			{"tax confirmation", http.MethodGet, tr.location, nil, "$3,232.73"},
			{"tax charge", http.MethodPost, "/tax-bills/" + taxBill2026Dane + "/charge", withField(taxForm, csrf), "$3,232.73"},
		})
	})
}

// recordingTerminal stands in for a real card terminal: it answers with a
// fixed outcome and records every charge and every attempt to set its
// outcome. It implements terminal.OutcomeSetter, the most a tampered form
// could hope to reach.
type recordingTerminal struct {
	mu      sync.Mutex
	decline bool
	charges []domain.Money
	set     []terminal.Outcome
}

var _ terminal.OutcomeSetter = (*recordingTerminal)(nil)

func (r *recordingTerminal) Charge(_ context.Context, key string, amount domain.Money) (terminal.Approval, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.charges = append(r.charges, amount)
	if r.decline {
		return terminal.Approval{}, terminal.ErrDeclined
	}
	return terminal.Approval{Key: key, Reference: "REAL0001", Amount: amount}, nil
}

func (r *recordingTerminal) Refund(context.Context, terminal.RefundRequest) (terminal.Refund, error) {
	return terminal.Refund{}, errors.New("recordingTerminal refunds nothing")
}

func (r *recordingTerminal) Cancel(context.Context, string) error { return nil }

func (r *recordingTerminal) Capabilities() terminal.Capabilities { return terminal.Capabilities{} }

func (r *recordingTerminal) SetOutcome(_ string, o terminal.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set = append(r.set, o)
}

func (r *recordingTerminal) calls() (charges int, set []terminal.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.charges), append([]terminal.Outcome(nil), r.set...)
}

// TestTerminalFieldIgnoredWithoutSimulator: on a kiosk that is not a demo,
// the posted terminal field never reaches the terminal, even one whose
// outcome could be set, and a tampered form never posts a payment.
func TestTerminalFieldIgnoredWithoutSimulator(t *testing.T) {
	t.Run("a declining terminal stays declining", func(t *testing.T) {
		term := &recordingTerminal{decline: true}
		h := newHarness(t, withTerminal(term))
		c := h.confirmPage(pastDueBill, "100.00")
		if c.count("simulator") != 0 {
			t.Error("the simulator panel shows on a kiosk that is not a demo")
		}
		f := chargeForm(c)
		f.Set("terminal", "approve")
		p := h.post(chargeAction(c), f)
		h.expect(p, http.StatusPaymentRequired)
		if n, set := term.calls(); n != 1 || len(set) != 0 {
			t.Errorf("charges %d, outcomes set %v; want the one charge the form asked for and none set", n, set)
		}
		if s, a := h.ledger.counts(); s != 0 || a != 0 {
			t.Errorf("submitted %d, applied %d after a decline", s, a)
		}
		if b, _ := h.ledger.Bill(pastDueBill); len(b.Payments) != 0 {
			t.Errorf("payments %+v", b.Payments)
		}
	})
	t.Run("decline asked of an approving terminal", func(t *testing.T) {
		term := &recordingTerminal{}
		h := newHarness(t, withTerminal(term))
		c := h.confirmPage(pastDueBill, "100.00")
		f := chargeForm(c)
		f.Set("terminal", "decline")
		r := h.post(chargeAction(c), f)
		h.expect(r, http.StatusSeeOther)
		if n, set := term.calls(); n != 1 || len(set) != 0 {
			t.Errorf("charges %d, outcomes set %v", n, set)
		}
		rc := h.get(r.location)
		h.expect(rc, http.StatusOK)
		if !strings.Contains(rc.text("receipt-tender"), "REAL0001") {
			t.Errorf("tender %q: the terminal's own answer", rc.text("receipt-tender"))
		}
	})
	t.Run("a tampered field alone posts nothing", func(t *testing.T) {
		term := &recordingTerminal{}
		h := newHarness(t, withTerminal(term))
		c := h.confirmPage(pastDueBill, "100.00")
		f := chargeForm(c)
		for name, v := range map[string]url.Values{
			"only the field":       {"csrf": {f.Get("csrf")}, "terminal": {"approve"}},
			"field and an amount":  {"csrf": {f.Get("csrf")}, "terminal": {"approve"}, "amount": {"221.00"}, "command_id": {"0190aaaa-0000-7000-8000-000000000000"}},
			"field, another price": {"csrf": {f.Get("csrf")}, "terminal": {"approve"}, "amount": {"1.00"}, "command_id": {f.Get("command_id")}, "sig": {f.Get("sig")}},
		} {
			p := h.post(chargeAction(c), v)
			h.expect(p, http.StatusBadRequest)
			if n, set := term.calls(); n != 0 || len(set) != 0 {
				t.Errorf("%s: charges %d, outcomes set %v", name, n, set)
			}
		}
		for _, path := range []string{"/letters/charge", "/tax-bills/" + taxBill2026Dane + "/charge"} {
			p := h.post(path, url.Values{"csrf": {f.Get("csrf")}, "terminal": {"approve"}})
			h.expect(p, http.StatusBadRequest)
		}
		if n, _ := term.calls(); n != 0 {
			t.Errorf("%d charges", n)
		}
		if s, a := h.ledger.counts(); s != 0 || a != 0 || h.ledger.stamped() != 0 {
			t.Errorf("stamped %d, submitted %d, applied %d", h.ledger.stamped(), s, a)
		}
	})
	t.Run("a demo kiosk honours it", func(t *testing.T) {
		term := &recordingTerminal{}
		h := newHarness(t, withTerminal(term), withSimulatorPanel)
		c := h.confirmPage(pastDueBill, "100.00")
		f := chargeForm(c)
		f.Set("terminal", "decline")
		h.post(chargeAction(c), f)
		if _, set := term.calls(); len(set) != 1 || set[0] != terminal.Decline {
			t.Errorf("outcomes set %v, want [decline]", set)
		}
	})
}

// TestProcessorUnreachable: while the terminal cannot
// take cards (its processor unreachable, a key refused, a reader unknown)
// the kiosk says card payments are not available and sends the resident to
// the clerk's window, as a kiosk without a terminal does; a charge that
// finds it so marks cards down at once; nothing is charged or recorded.
func TestProcessorUnreachable(t *testing.T) {
	t.Run("a charge finds it", func(t *testing.T) {
		h := newHarness(t)
		c := h.confirmPage(pastDueBill, "100.00")
		h.sim.SetOffline(errors.New("dial tcp: no route to api.stripe.com"))
		p := h.post(chargeAction(c), chargeForm(c))
		h.expect(p, http.StatusServiceUnavailable)
		if !strings.Contains(p.text("card-off-title"), "Card payments are not available") || !strings.Contains(p.text("card-off-window"), "clerk's window") {
			t.Errorf("page %q %q", p.text("card-off-title"), p.text("card-off-window"))
		}
		if s, a := h.ledger.counts(); s != 0 || a != 0 || len(h.sim.Approved()) != 0 {
			t.Errorf("submits %d, applied %d, charges %d", s, a, len(h.sim.Approved()))
		}
		if !strings.Contains(h.logs.String(), "no route to api.stripe.com") {
			t.Error("the detail is not in the log for the staff")
		}
		// Marked down: the start page says so before anyone tries.
		if s := h.get("/"); s.count("card-off") != 1 {
			t.Error("the start page offers cards after a charge found them unavailable")
		}
	})
	t.Run("the terminal says so", func(t *testing.T) {
		h := newHarness(t, func(c *kiosk.Config) { c.CardCheck = -1 })
		h.sim.SetOffline(errors.New("reader tmr_1 is offline"))
		if s := h.get("/"); s.count("card-off") != 1 {
			t.Error("the start page offers cards while the terminal cannot take them")
		}
		p := h.get("/bills/" + pastDueBill + "/pay")
		h.expect(p, http.StatusServiceUnavailable)
		h.sim.SetOffline(nil)
		if s := h.get("/"); s.count("card-off") != 0 {
			t.Error("cards still off once the terminal takes them again")
		}
		h.expect(h.get("/bills/"+pastDueBill+"/pay"), http.StatusOK)
	})
}

// limitTerminal refuses every charge as unavailable (an amount over its
// single-payment limit) while its processor answers.
type limitTerminal struct{ *terminal.Simulator }

func (limitTerminal) Charge(context.Context, string, domain.Money) (terminal.Approval, error) {
	return terminal.Approval{}, fmt.Errorf("%w: 100.00 is over the single-payment limit of 50.00", terminal.ErrUnavailable)
}

// TestChargeOverTheLimitLeavesCardsUp: a charge the terminal refuses for
// its own sake sends that resident to the window, and leaves card payments
// open to the next one, since the terminal still answers.
func TestChargeOverTheLimitLeavesCardsUp(t *testing.T) {
	h := newHarness(t, withTerminal(limitTerminal{terminal.NewSimulator()}))
	c := h.confirmPage(pastDueBill, "100.00")
	h.expect(h.post(chargeAction(c), chargeForm(c)), http.StatusServiceUnavailable)
	if s := h.get("/"); s.count("card-off") != 0 {
		t.Error("one refused amount closed card payments for everyone")
	}
}
