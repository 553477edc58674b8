package kiosk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestBrowserBillInDateOrder reads a bill paid in part while interest ran:
// its lines are in the order they were posted (the
// payment of May 20 between May's and June's interest, not after all
// interest), "Paid so far" stands outside the sum, and the interest rule
// says on which days interest is added, in both languages.
func TestBrowserBillInDateOrder(t *testing.T) {
	h := newHarness(t)
	d, m := domain.MustDate, domain.MustMoney
	h.ledger.mu.Lock()
	h.ledger.bills["B-2026-0150"] = domain.Bill{ID: "B-2026-0150", Account: "100101", Parcel: "0601-141-2001", Description: "Water and sewer, March", BilledOn: d("2026-03-01"), Principal: m("200.00"),
		Payments: []domain.BillPayment{{CommandID: "old-9", Receipt: "hall-clerk-000009", At: domain.NewDateTime(d("2026-05-20"), 10, 0, 0), Amount: m("50.00"), Tender: domain.Cash}}}
	h.ledger.mu.Unlock()
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	for _, lang := range []string{"en", "es"} {
		b.open("/bills/B-2026-0150?lang="+lang, "breakdown")
		order, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="breakdown"] tbody tr')).map(r => r.dataset.testid + "@" + r.dataset.on)`))
		if err != nil {
			t.Fatal(err)
		}
		// Due March 31: interest months start April 1, May 1, June 1, ...
		want := []string{"line-principal@2026-03-01", "line-interest@2026-04-01", "line-interest@2026-05-01", "line-payment@2026-05-20", "line-interest@2026-06-01"}
		if len(order) < len(want) || strings.Join(order[:len(want)], " ") != strings.Join(want, " ") {
			t.Errorf("%s: lines %q, want them to start %q", lang, order, want)
		}
		for i := 1; i < len(order); i++ {
			if order[i][strings.Index(order[i], "@"):] < order[i-1][strings.Index(order[i-1], "@"):] {
				t.Errorf("%s: %s after %s", lang, order[i], order[i-1])
			}
		}
		inFoot, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="breakdown"] [data-testid="line-paid"]')`))
		if err != nil || inFoot {
			t.Errorf("%s: Paid so far is inside the sum (%v)", lang, err)
		}
		b.expectText("line-paid", "$50.00")
		rule := map[string]string{"en": "on the day after the due date (April 1, 2026), then on the day after each monthly anniversary of the due date (the day after day 31",
			"es": "el día después del vencimiento (1 de abril de 2026) y luego el día después de cada aniversario mensual del vencimiento (el día después del día 31"}[lang]
		b.expectText("interest-rule", rule)
		b.check(lang + "-bill")
	}
}

// TestBrowserLetterListsEveryError sends the status letter form empty: the
// summary lists all three problems, each leading to its field (it showed
// only the first).
func TestBrowserLetterListsEveryError(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	for _, lang := range []string{"en", "es"} {
		b.open("/letters?lang="+lang, "letter-form")
		b.click(tid("letter-continue"), "error-list")
		for _, f := range []string{"q", "name", "contact"} {
			if !b.visible("error-item-" + f) {
				t.Errorf("%s: the summary does not list the %s problem", lang, f)
			}
		}
		b.check(lang + "-letter-errors")
		b.click(tid("error-item-contact"), "letter-contact")
		if f, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.hash`)); f != "#contact" {
			t.Errorf("%s: the contact problem leads to %q", lang, f)
		}
	}
	if s, _ := h.ledger.counts(); s != 0 {
		t.Errorf("%d commands submitted", s)
	}
}

// TestBrowserTaxOtherAmount pays another amount than the options on a
// property tax bill, typed on the number pad in
// Spanish: less than the rest of the first installment is refused, an
// amount between it and the balance is confirmed and charged once.
func TestBrowserTaxOtherAmount(t *testing.T) {
	h := newHarness(t, withClock(inJanuary), withSimulatorPanel)
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800, Timeout: 2 * time.Minute})
	b.open("/tax-bills/"+taxBill2026Dane+"?lang=es", "tax-other")
	b.check("01-otro-importe")
	for _, k := range []string{"1", "0", "0", "0"} {
		b.press("key-" + k)
	}
	b.press("tax-pay-other")
	b.do("error", chromedp.WaitVisible(tid("error-message")))
	b.expectText("error-message", "primera cuota")
	b.check("02-otro-importe-error")
	b.press("key-clear")
	for _, k := range []string{"2", "0", "0", "0", "decimal", "5"} {
		b.press("key-" + k)
	}
	b.press("tax-pay-other")
	b.do("confirm", chromedp.WaitVisible(tid("confirm-amount")))
	b.expectText("confirm-amount", "$2,000.50")
	b.expectText("tax-option", "Otro importe")
	b.check("03-otro-importe-confirmar")
	b.click(tid("charge-button"), "receipt-number")
	b.expectText("receipt-amount", "$2,000.50")
	// More than the first installment: not labelled as only that.
	b.expectText("receipt-option", "Primera cuota y parte de la segunda")
	if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
		t.Errorf("applied %d, charges %d", a, len(h.sim.Approved()))
	}
}

// press scrolls the element to the middle of the screen, clear of the bar
// of actions fixed at the bottom, and clicks it.
func (b *browser) press(id string) {
	b.t.Helper()
	b.do("press "+id,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="`+id+`"]').scrollIntoView({block: "center"})`),
		chromedp.Click(tid(id), chromedp.NodeVisible))
}
