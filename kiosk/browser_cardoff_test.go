package kiosk_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestBrowserNoTerminal walks a kiosk without a card terminal in real
// Chromium, in both languages: the start screen says card payments are not
// available today; a bill, a property tax bill and the status letter page
// show what to pay at the clerk's window and what to bring instead of a
// button that cannot work; a checkout address kept from before says the
// same. Every page passes axe-core.
func TestBrowserNoTerminal(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	b := openBrowser(t, h)

	b.open("/", "card-off")
	b.expectText("card-off", "Card payments are not available at this kiosk today")
	b.check("01-start")

	b.click(tid("start-pay"), "search-input")
	b.typeInto("search-input", "100101")
	b.click(tid("search-button"), "result-group")
	b.click(chromedp.CSS(`[data-bill="`+pastDueBill+`"] a`), "card-off")
	b.expectText("card-off-title", "Card payments are not available at this kiosk today.")
	b.expectText("card-off-amount", "$221.00")
	b.expectText("card-off-bring", pastDueBill)
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="pay-button"]').length`)); err != nil || n != 0 {
		t.Errorf("%d pay buttons (%v)", n, err)
	}
	b.check("02-bill")

	b.open("/bills/"+pastDueBill+"/pay", "card-off-nothing")
	b.expectText("card-off-nothing", "Nothing was charged")
	b.check("03-checkout")
	b.click(tid("card-off-back"), "amount-due")

	b.open("/letters?lang=es", "card-off")
	b.expectText("card-off", "Hoy no se aceptan pagos con tarjeta")
	b.expectText("card-off-amount", "$45.00")
	b.check("04-carta")

	b.open("/bills/"+pastDueBill, "card-off")
	b.expectText("card-off", "Importe a pagar hoy")
	b.check("05-factura")
	if s, a := h.ledger.counts(); s != 0 || a != 0 || h.ledger.stamped() != 0 {
		t.Errorf("stamped %d, submitted %d, applied %d", h.ledger.stamped(), s, a)
	}
}

// TestBrowserNoTerminalPropertyTax shows a property tax bill in January on
// a kiosk without a card terminal, on the landscape screen.
func TestBrowserNoTerminalPropertyTax(t *testing.T) {
	h := newHarness(t, withoutTerminal, withClock(inJanuary))
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800})
	b.open("/tax-bills/"+taxBill2026Dane, "card-off")
	b.expectText("card-off-amounts", "$3,232.73")
	b.expectText("card-off-bring", "0601-141-2001")
	b.check("01-tax-bill")
	b.open("/tax-bills/"+taxBill2026Dane+"?lang=es", "card-off")
	b.expectText("card-off-amounts", "Pago total")
	b.check("02-impuestos")
}

// TestBrowserBackAfterDone pays a bill, presses Done, and presses the
// browser's Back button, as the next resident could: the receipt is gone.
func TestBrowserBackAfterDone(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h)
	b.open("/bills/"+pastDueBill+"/pay", "pay-full")
	b.click(tid("pay-full"), "charge-button")
	b.click(tid("charge-button"), "receipt-number")
	number := b.text("receipt-number")
	b.click(tid("done-button"), "start-pay")
	b.do("back", chromedp.NavigateBack(), chromedp.WaitVisible(tid("error-message")))
	b.expectText("error-message", "We could not find receipt "+number)
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="receipt"]').length`)); err != nil || n != 0 {
		t.Errorf("%d receipts shown after Back (%v)", n, err)
	}
	b.check("01-back-after-done")
	// Back once more: the confirmation page of the last visit is refused,
	// charging nothing.
	b.do("back again", chromedp.NavigateBack(), chromedp.WaitVisible(tid("error-message")))
	b.expectText("error-message", "from an earlier visit")
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="receipt"]').length`)); err != nil || n != 0 {
		t.Errorf("%d receipts shown after Back twice (%v)", n, err)
	}
	if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
		t.Errorf("applied %d, charges %d", a, len(h.sim.Approved()))
	}
}
