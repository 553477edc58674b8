package kiosk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// check saves a screenshot of the page and runs axe-core on it: no serious
// or critical WCAG 2.1 A/AA violation.
func (b *browser) check(name string) {
	b.t.Helper()
	b.shot(name)
	browsertest.Axe(b.t, b.ctx, name)
}

// TestBrowserStatusLetter requests a status letter on the portrait screen:
// the parcel typed with a typo, a first try without a contact, the fee
// charged by the simulated terminal, and the claim with its ready-by date.
func TestBrowserStatusLetter(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h)
	b.open("/", "start-letter")
	b.check("01-start")
	b.click(tid("start-letter"), "letter-form")
	b.expectText("letter-fee", "$45.00")
	b.expectText("letter-ready", "October 22, 2026")
	b.check("02-letter-form")

	b.typeInto("letter-parcel", "141 W Mian St")
	b.typeInto("letter-name", "Dana Title Co.")
	b.click(tid("letter-continue"), "letter-contact-error")
	b.expectText("letter-contact-error", "telephone number or e-mail")
	b.check("03-letter-error")

	b.typeInto("letter-contact", "608-555-0100")
	b.click(tid("letter-continue"), "letter-summary")
	b.expectText("letter-confirm-parcel", "0601-141-2001")
	b.expectText("letter-confirm-ready", "October 22, 2026")
	b.check("04-letter-confirm")

	b.click(tid("charge-button"), "claim-number")
	b.expectText("claim-ready", "October 22, 2026")
	b.expectText("receipt-amount", "$45.00")
	b.check("05-claim")
	if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
		t.Errorf("applied %d, charges %d", a, len(h.sim.Approved()))
	}
	browsertest.Resize(t, b.ctx, 1280, 800)
	b.shot("06-claim-1280")
}

// TestBrowserStatusLetterInSpanish requests a letter in Spanish on the
// landscape screen after closing time on a Friday: received Monday, ready
// Wednesday.
func TestBrowserStatusLetterInSpanish(t *testing.T) {
	h := newHarness(t, withClock(time.Date(2026, time.October, 23, 16, 45, 0, 0, chicago)))
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800})
	b.open("/?lang=es", "start-letter")
	b.expectText("start-letter", "Pedir una carta de estado")
	b.click(tid("start-letter"), "letter-form")
	b.click(tid("letter-continue"), "letter-parcel-error")
	b.expectText("letter-name-error", "Escriba su nombre")
	b.check("01-carta-errores")
	b.typeInto("letter-parcel", "145 W Main")
	b.typeInto("letter-name", "Luis Ramírez")
	b.typeInto("letter-contact", "luis@example.com")
	b.click(tid("letter-continue"), "parcel-choices")
	b.check("02-carta-elegir")
	b.click(tid("choice-0601-141-2003"), "letter-continue")
	b.click(tid("letter-continue"), "letter-summary")
	b.expectText("letter-confirm-received", "26 de octubre de 2026")
	b.expectText("letter-confirm-ready", "28 de octubre de 2026")
	b.expectText("letter-next-day", "cerrada")
	b.check("03-carta-confirmar")
	b.click(tid("charge-button"), "claim-number")
	if b.lang() != "es" {
		t.Errorf("lang %q", b.lang())
	}
	b.expectText("claim-ready", "28 de octubre de 2026")
	b.check("04-carta-reclamo")
}

// TestBrowserPropertyTax pays the first installment of a Dane County tax
// bill in January on the portrait screen.
func TestBrowserPropertyTax(t *testing.T) {
	h := newHarness(t, withClock(inJanuary), withSimulatorPanel)
	b := openBrowser(t, h)
	b.open("/", "start-tax")
	b.click(tid("start-tax"), "tax-search-input")
	b.check("01-tax-search")
	b.typeInto("tax-search-input", "141 w main street")
	b.click(tid("tax-search-button"), "tax-row")
	b.check("02-tax-parcel")
	b.click(chromedp.CSS(`[data-bill="`+taxBill2026Dane+`"] a`), "tax-breakdown")
	b.expectText("tax-first", "$1,732.11")
	b.expectText("tax-second", "Dane County treasurer")
	b.check("03-tax-bill")
	b.click(tid("tax-pay-first_installment"), "confirm-amount")
	b.expectText("confirm-amount", "$1,732.11")
	b.expectText("remaining-balance", "$1,500.62")
	b.check("04-tax-confirm")
	b.click(tid("sim-decline"), "charge-button")
	b.click(tid("charge-button"), "error-message")
	b.expectText("error-message", "declined")
	b.check("05-tax-declined")
	b.click(tid("sim-approve"), "charge-button")
	b.click(tid("charge-button"), "receipt-number")
	b.expectText("receipt-option", "First installment")
	b.expectText("receipt-balance", "$1,500.62")
	b.check("06-tax-receipt")
	browsertest.Resize(t, b.ctx, 1280, 800)
	b.shot("07-tax-receipt-1280")
}

// TestBrowserPropertyTaxInSpanish follows a bill on the tax roll to the
// property tax of its parcel, then pays a Green County bill in full, in
// Spanish on the landscape screen.
func TestBrowserPropertyTaxInSpanish(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800})
	b.open("/bills/"+taxRollBill+"?lang=es", "tax-roll-notice")
	b.check("01-factura-en-registro")
	b.click(tid("tax-roll-link"), "tax-row")
	b.check("02-impuestos-parcela")
	b.click(chromedp.CSS(`[data-bill="`+taxBill2025Roll+`"] a`), "tax-county")
	b.expectText("tax-county", "tesorero del condado de Dane")
	b.check("03-impuestos-condado")
	b.open("/tax-bills/"+taxBill2026Green, "tax-pay-full")
	b.click(tid("tax-pay-full"), "confirm-amount")
	b.expectText("confirm-amount", "$2,480.40")
	b.check("04-impuestos-confirmar")
	b.click(tid("charge-button"), "receipt-number")
	b.expectText("receipt-balance", "$0.00")
	b.expectText("receipt-bill", "Condado de Green")
	b.check("05-impuestos-recibo")
}

// TestBrowserPurchasingRecords browses the public purchasing records in
// both languages.
func TestBrowserPurchasingRecords(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h)
	b.open("/", "start-purchases")
	b.click(tid("start-purchases"), "purchase-row")
	b.check("01-purchases")
	b.click(chromedp.CSS(`[data-purchase="PO-2026-014"] a`), "bids")
	b.expectText("low-bid", "lowest bid")
	b.check("02-open-market")
	b.open("/purchases?kind=emergency&lang=es", "purchase-row")
	b.check("03-emergencias")
	b.click(chromedp.CSS(`[data-purchase="EM-2026-003"] a`), "emergency-record")
	b.expectText("purchase-invoice", "BSP-88213")
	b.check("04-emergencia")
	browsertest.Resize(t, b.ctx, 1280, 800)
	b.shot("05-emergencia-1280")
}

// TestBrowserAccessibility runs axe-core on every other kiosk page in both
// languages: the bill in each state, the pay form with an error, the
// confirmation, a receipt, an error page, the searches, and the idle
// warning.
func TestBrowserAccessibility(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	seedBudgets(t, h.ledger)
	seedAssessmentReport(t, h.ledger)
	// Some forty pages, each checked by axe-core: longer than the default
	// two minutes under the race detector.
	b := openBrowser(t, h, browsertest.Options{Timeout: 10 * time.Minute})
	pages := []struct{ path, wait string }{
		{"/", "start-pay"},
		{"/letters", "letter-form"},
		{"/find", "search-input"},
		{"/find?q=145+W+Main", "result-group"},
		{"/find?q=ZZZ", "error-message"},
		{"/find?q=141+W+Mian", "result-group"},
		{"/accounts/100101", "result-group"},
		{"/parcels/0601-141-2002", "parcel-tax"},
		{"/bills/" + pastDueBill, "amount-due"},
		{"/bills/" + currentBill, "amount-due"},
		{"/bills/" + paidBill, "amount-due"},
		{"/bills/" + taxRollBill, "tax-roll-notice"},
		{"/bills/" + pastDueBill + "/pay", "amount-input"},
		{"/property-tax", "tax-search-input"},
		{"/property-tax?q=nothing+here", "error-message"},
		{"/tax-bills/" + taxBill2026Dane, "tax-not-yet"},
		{"/purchases", "purchase-row"},
		{"/purchases/PO-2026-0001", "purchase-board"},
		{"/budget", "budget-row"},
		{"/budget/2027", "summary-expenditures"},
		{"/assessment-reports", "assessment-report-row"},
		{"/assessment-reports/SA-2026-1", "assessment-report-parcels"},
		{"/nope", "error-message"},
	}
	for _, lang := range []string{"en", "es"} {
		for _, pg := range pages {
			sep := "?"
			if len(pg.path) > 0 && containsQuery(pg.path) {
				sep = "&"
			}
			b.open(pg.path+sep+"lang="+lang, pg.wait)
			browsertest.Axe(t, b.ctx, lang+" "+pg.path)
		}
		// The pay form with an error, and the confirmation.
		b.open("/bills/"+pastDueBill+"/pay?lang="+lang, "amount-input")
		b.typeInto("amount-input", "abc")
		b.click(tid("pay-continue"), "error-message")
		browsertest.Axe(t, b.ctx, lang+" pay error")
		b.typeInto("amount-input", "10")
		b.click(tid("pay-continue"), "confirm-amount")
		browsertest.Axe(t, b.ctx, lang+" confirm")
		b.click(tid("charge-button"), "receipt-number")
		b.check(lang + "-receipt")
	}
}

func containsQuery(p string) bool {
	for _, r := range p {
		if r == '?' {
			return true
		}
	}
	return false
}

// TestBrowserIdleWarningIsAccessible shows the idle warning and checks it
// with axe-core, and that "I need more time" has the focus.
func TestBrowserIdleWarningIsAccessible(t *testing.T) {
	h := newHarness(t, withIdle(22*time.Second))
	b := openBrowser(t, h)
	b.open("/letters", "letter-form")
	b.do("idle warning", chromedp.WaitVisible(tid("idle-warning")))
	focused, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("data-testid")`))
	if err != nil || focused != "idle-stay" {
		t.Errorf("focus on %q (%v), want idle-stay", focused, err)
	}
	b.check("01-idle-warning")
	// A key press (a tactile keypad) keeps the page.
	b.do("keep", chromedp.KeyEvent("\r"), chromedp.WaitNotVisible(tid("idle-warning")))
}

// tabTo presses Tab (as a tactile keypad does) until the element with the
// data-testid has the focus, and checks that the focus is visible.
func (b *browser) tabTo(id string) {
	b.t.Helper()
	for range 25 {
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement && (document.activeElement.getAttribute("data-testid") || "")`))
		if err != nil {
			b.t.Fatal(err)
		}
		if got == id {
			outline, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle + " " + getComputedStyle(document.activeElement).boxShadow`))
			if err != nil || strings.HasPrefix(outline, "none none") {
				b.t.Errorf("focus on %s is not visible: %q %v", id, outline, err)
			}
			return
		}
		b.do("tab", chromedp.KeyEvent("\t"))
	}
	b.t.Fatalf("Tab never reached %s", id)
}

// TestBrowserKeyboardOnly finds and opens a bill and starts a status
// letter with the keyboard alone: Tab, Enter and typing, as with the
// kiosk's tactile keypad.
func TestBrowserKeyboardOnly(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800})
	b.open("/", "start-pay")
	b.tabTo("start-pay")
	b.shot("01-focus-start")
	b.do("enter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(tid("search-input")))
	// The search box has the focus on arrival.
	b.do("search", chromedp.KeyEvent("100101\r"), chromedp.WaitVisible(tid("result-group")))
	b.do("first bill", chromedp.Focus(chromedp.CSS(`[data-bill="`+pastDueBill+`"] a`)))
	b.shot("02-focus-bill")
	b.do("open", chromedp.KeyEvent("\r"), chromedp.WaitVisible(tid("amount-due")))
	b.tabTo("pay-button")
	b.do("pay", chromedp.KeyEvent("\r"), chromedp.WaitVisible(tid("amount-input")))
	b.open("/", "start-letter")
	b.tabTo("start-letter")
	b.do("letter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(tid("letter-form")))
	b.tabTo("letter-parcel")
	b.do("type", chromedp.KeyEvent("305 Hale St\tLuis\t608-555-0100\r"), chromedp.WaitVisible(tid("letter-summary")))
	b.shot("03-letter-by-keyboard")
}

// TestBrowserKeypad types an amount with the on-screen number pad, in
// Spanish: the first tap replaces the amount the page filled in (it used
// to append: "188.79100"), a second decimal mark and a third decimal are
// ignored, and the decimal key is the period every amount on the page is
// written with.
func TestBrowserKeypad(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h)
	b.open("/bills/"+pastDueBill+"/pay?lang=es", "keypad")
	value := func() string {
		t.Helper()
		v, err := chromedp.Run(b.ctx, chromedp.Value(tid("amount-input")))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := value(); v != h.owes(pastDueBill).String() {
		t.Fatalf("the pre-filled amount in Spanish is %q, want %s as the page writes it", v, h.owes(pastDueBill))
	}
	if got := b.text("key-decimal"); got != "." {
		t.Fatalf("the decimal key reads %q", got)
	}
	for _, k := range []string{"2", "5", "decimal", "decimal", "5", "0", "9"} {
		b.do("key "+k, chromedp.Click(tid("key-"+k)))
	}
	if v := value(); v != "25.50" {
		t.Fatalf("amount %q, want 25.50", v)
	}
	for _, k := range []string{"back", "back", "back", "0"} {
		b.do("key "+k, chromedp.Click(tid("key-"+k)))
	}
	if v := value(); v != "250" {
		t.Fatalf("amount %q after three backs and a 0, want 250", v)
	}
	b.do("clear", chromedp.Click(tid("key-clear")))
	for _, k := range []string{"2", "5", "decimal", "5"} {
		b.do("key "+k, chromedp.Click(tid("key-"+k)))
	}
	b.check("01-teclado")
	b.click(tid("pay-continue"), "confirm-amount")
	b.expectText("confirm-amount", "$25.50")
}

// TestBrowserAmountByLanguage types "12,50" on the English pay page: it is
// refused, saying how a comma and a period read there, and nothing is
// charged. The Spanish page writes amounts as the English one does and
// reads both "12,50" and "12.50" as twelve dollars fifty; the amount its
// "too much" message suggests, typed as it reads, is taken.
func TestBrowserAmountByLanguage(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	b.open("/bills/"+pastDueBill+"/pay?lang=en", "amount-input")
	b.do("type 12,50", chromedp.Clear(tid("amount-input")), chromedp.SendKeys(tid("amount-input"), "12,50"))
	b.click(tid("pay-continue"), "error-message")
	b.expectText("error-message", "a comma separates thousands")
	for _, typed := range []string{"12,50", "12.50", "$12.50"} {
		b.open("/bills/"+pastDueBill+"/pay?lang=es", "amount-input")
		b.do("type "+typed, chromedp.Clear(tid("amount-input")), chromedp.SendKeys(tid("amount-input"), typed))
		b.click(tid("pay-continue"), "confirm-amount")
		b.expectText("confirm-amount", "$12.50")
	}

	owes := "$" + h.owes(pastDueBill).String()
	b.open("/bills/"+pastDueBill+"/pay?lang=es", "amount-input")
	b.expectText("amount-hint", owes)
	b.typeInto("amount-input", "1000")
	b.click(tid("pay-continue"), "error-message")
	b.expectText("error-suggestion", "Escriba "+owes+" o menos")
	b.check("es-too-much")
	b.typeInto("amount-input", owes)
	b.click(tid("pay-continue"), "confirm-amount")
	b.expectText("confirm-amount", owes)
	if submits, _ := h.ledger.counts(); submits != 0 {
		t.Fatalf("%d commands submitted before any charge", submits)
	}
}
