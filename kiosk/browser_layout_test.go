package kiosk_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// screens are the kiosk's two screens: portrait and landscape.
var screens = []struct {
	name string
	w, h int
}{{"portrait", 1080, 1920}, {"landscape", 1280, 800}}

// box is where an element is on the screen, and whether a touch at its
// middle reaches it (nothing, such as the on-screen keyboard, covers it).
type box struct {
	Found        bool
	Top, Bottom  float64
	Left, Right  float64
	ViewW, ViewH float64
	Reached      bool
}

// boxOf measures the element with the data-testid at the top of the page,
// without scrolling; while the on-screen keyboard is open, where the page
// put the field in use.
func (b *browser) boxOf(id string) box {
	b.t.Helper()
	// Two animation frames: the resize of the screen has reached the
	// page's script (the keyboard takes its new height) before measuring.
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[box](`new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok))).then(() => {
		if (!document.documentElement.classList.contains("osk-open")) { window.scrollTo(0, 0); }
		const el = document.querySelector('[data-testid="`+id+`"]');
		if (!el || el.getClientRects().length === 0) { return {Found: false}; }
		const r = el.getBoundingClientRect();
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return {Found: true, Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right,
			ViewW: window.innerWidth, ViewH: window.innerHeight, Reached: !!hit && el.contains(hit)};
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("measure %s: %v", id, err)
	}
	return v
}

// expectInView fails unless every element named is wholly on the screen
// without scrolling and can be touched.
func (b *browser) expectInView(state, screen string, ids ...string) {
	b.t.Helper()
	for _, id := range ids {
		v := b.boxOf(id)
		switch {
		case !v.Found:
			b.t.Errorf("%s, %s: no %s on the page", state, screen, id)
		case v.Top < 0 || v.Left < 0 || v.Bottom > v.ViewH || v.Right > v.ViewW:
			b.t.Errorf("%s, %s: %s at y %.0f–%.0f, x %.0f–%.0f, outside the %.0f×%.0f screen", state, screen, id, v.Top, v.Bottom, v.Left, v.Right, v.ViewW, v.ViewH)
		case !v.Reached:
			b.t.Errorf("%s, %s: %s is covered by something else", state, screen, id)
		}
	}
}

// pageState is a kiosk page in one state, how to get there, and its
// primary action (and whatever else must be seen with it).
type pageState struct {
	name    string
	reach   func(b *browser, lang string)
	primary []string
}

func openPage(path, wait string) func(*browser, string) {
	return func(b *browser, lang string) {
		sep := "?"
		if containsQuery(path) {
			sep = "&"
		}
		b.open(path+sep+"lang="+lang, wait)
	}
}

// checkStates reaches each state in each language and measures its
// primary action on both screens; each new state is checked by axe-core.
func checkStates(t *testing.T, b *browser, states []pageState) {
	for _, lang := range []string{"en", "es"} {
		for _, s := range states {
			browsertest.Resize(t, b.ctx, screens[0].w, screens[0].h)
			s.reach(b, lang)
			for _, sc := range screens {
				browsertest.Resize(t, b.ctx, sc.w, sc.h)
				b.expectInView(lang+" "+s.name, sc.name, s.primary...)
				b.shot(fmt.Sprintf("%s-%s-%s", lang, s.name, sc.name))
			}
			browsertest.Axe(t, b.ctx, lang+" "+s.name)
		}
	}
}

// TestBrowserPrimaryActionInView measures, on the portrait 1080×1920 and
// the landscape 1280×800 screen and in both languages, that every kiosk
// page's primary action is on the screen without scrolling (once, on the
// landscape screen the keypad was half off the screen and
// Continue at y 1178 on the pay page, Print 1,300 px down on the receipt,
// the start screen's tiles below the fold).
func TestBrowserPrimaryActionInView(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h, browsertest.Options{Timeout: 8 * time.Minute})
	states := []pageState{
		{"start", openPage("/", "start-pay"), []string{"start-pay", "start-tax", "start-letter", "start-purchases", "start-budget", "start-assessment-reports", "start-room-tax"}},
		{"find", openPage("/find", "search-input"), []string{"search-input", "search-button"}},
		{"find-results", openPage("/find?q=145+W+Main", "result-group"), []string{"search-button", "bill-row"}},
		{"find-nothing", openPage("/find?q=ZZZ", "error-message"), []string{"error-message", "search-button"}},
		{"account", openPage("/accounts/100101", "result-group"), []string{"bill-row", "pay-all"}},
		{"bill-past-due", openPage("/bills/"+pastDueBill, "amount-due"), []string{"amount-due", "pay-button"}},
		{"bill-current", openPage("/bills/"+currentBill, "amount-due"), []string{"amount-due", "pay-button"}},
		{"bill-tax-roll", openPage("/bills/"+taxRollBill, "tax-roll-notice"), []string{"amount-due", "tax-roll-link"}},
		{"pay", openPage("/bills/"+pastDueBill+"/pay", "keypad"), []string{"amount-input", "keypad", "pay-continue"}},
		{"pay-error", func(b *browser, lang string) {
			openPage("/bills/"+pastDueBill+"/pay", "keypad")(b, lang)
			b.typeInto("amount-input", "abc")
			b.click(tid("pay-continue"), "error-message")
		}, []string{"error-message", "amount-input", "keypad", "pay-continue"}},
		{"confirm", func(b *browser, lang string) {
			openPage("/bills/"+pastDueBill+"/pay", "keypad")(b, lang)
			b.typeInto("amount-input", "10")
			b.click(tid("pay-continue"), "confirm-amount")
		}, []string{"confirm-amount", "charge-button"}},
		{"receipt", func(b *browser, lang string) {
			openPage("/bills/"+pastDueBill+"/pay", "keypad")(b, lang)
			b.typeInto("amount-input", "10")
			b.click(tid("pay-continue"), "confirm-amount")
			b.click(tid("charge-button"), "receipt-number")
			b.do("print button", chromedp.WaitVisible(tid("print-button")))
		}, []string{"print-button", "done-button"}},
		{"letter", openPage("/letters", "letter-form"), []string{"letter-parcel", "letter-continue"}},
		{"letter-error", func(b *browser, lang string) {
			openPage("/letters", "letter-form")(b, lang)
			b.typeInto("letter-parcel", "141 W Main St")
			b.click(tid("letter-continue"), "letter-contact-error")
		}, []string{"letter-continue"}},
		{"letter-confirm", func(b *browser, lang string) {
			openPage("/letters", "letter-form")(b, lang)
			b.typeInto("letter-parcel", "141 W Main St")
			b.typeInto("letter-name", "Dana Title Co.")
			b.typeInto("letter-contact", "608-555-0100")
			b.click(tid("letter-continue"), "letter-summary")
		}, []string{"confirm-amount", "charge-button"}},
		{"claim", func(b *browser, lang string) {
			b.click(tid("charge-button"), "claim-number")
			b.do("print button", chromedp.WaitVisible(tid("print-button")))
		}, []string{"claim-number", "print-button", "done-button"}},
		{"letter-keyboard", func(b *browser, lang string) {
			openPage("/letters", "letter-form")(b, lang)
			b.do("focus contact", chromedp.Focus(tid("letter-contact")), chromedp.WaitVisible(tid("osk")))
		}, []string{"letter-contact", "letter-continue", "osk-enter"}},
		{"cart", openPage("/accounts/100101/pay", "cart-form"), []string{"cart-bills", "cart-continue"}},
		{"cart-confirm", func(b *browser, lang string) {
			openPage("/accounts/100101/pay", "cart-form")(b, lang)
			b.click(tid("cart-continue"), "cart-lines")
		}, []string{"confirm-amount", "charge-button"}},
		{"property-tax", openPage("/property-tax", "tax-search-input"), []string{"tax-search-input", "tax-search-button"}},
		{"room-tax", openPage("/room-tax", "room-tax-form"), []string{"room-tax-ref", "room-tax-continue"}},
	}
	checkStates(t, b, states)
}
