package kiosk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestBrowserPayAllBills pays several bills at once in Chromium on the touch
// screen, by tapping only: account 100101's two bills paid together with
// one card charge, and one receipt listing both, each paid in full. Then
// the other way: one bill unticked stays as it was. axe-core runs on the
// cart, its confirmation and the receipt.
func TestBrowserPayAllBills(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h)
	b.touchScreen()
	total := h.owes(pastDueBill).Add(h.owes(currentBill))

	b.open("/accounts/100101", "pay-all")
	b.expectText("pay-all", "$"+total.String())
	b.tap("pay-all")
	b.do("cart", chromedp.WaitVisible(tid("cart-form")))
	browsertest.Axe(t, b.ctx, "the cart")
	b.shot("cart")
	b.tap("cart-continue")
	b.do("confirmation", chromedp.WaitVisible(tid("cart-lines")))
	b.expectText("confirm-amount", "$"+total.String())
	browsertest.Axe(t, b.ctx, "the cart's confirmation")
	b.shot("cart-confirm")
	b.tap("sim-approve")
	b.tap("charge-button")
	b.do("receipt", chromedp.WaitVisible(tid("receipt-number")))
	browsertest.Axe(t, b.ctx, "the receipt of several bills")
	b.shot("cart-receipt")
	b.expectText("receipt-amount", "$"+total.String())
	b.expectText("receipt-card", "Visa •••• 4242")
	for _, id := range []string{pastDueBill, currentBill} {
		if !strings.Contains(b.text("cart-lines"), id) {
			t.Errorf("the receipt does not list %s: %q", id, b.text("cart-lines"))
		}
		if !h.owes(id).IsZero() {
			t.Errorf("%s owes %s after paying all", id, h.owes(id))
		}
	}
	if a := h.sim.Approved(); len(a) != 1 || !a[0].Amount.Equal(total) {
		t.Fatalf("charges %+v, want one of %s", a, total)
	}
}

// TestBrowserPayChosenBills: the resident unticks a bill by tapping it;
// only the other is charged and paid. In Spanish: the bill the village
// gave a Spanish description is named by it on its page and in the cart.
func TestBrowserPayChosenBills(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h)
	b.touchScreen()
	past, cur := h.owes(pastDueBill), h.owes(currentBill)
	const spanish = "Agua y alcantarillado, primer trimestre"
	b.open("/bills/"+pastDueBill+"?lang=es", "bill-description")
	b.expectText("bill-description", spanish)
	b.open("/accounts/100101/pay?lang=es", "cart-form")
	if got, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(`[data-bill="`+pastDueBill+`"] [data-testid="cart-bill-description"]`))); err != nil || got != spanish {
		t.Errorf("the cart names %s %q (%v), want %q", pastDueBill, got, err, spanish)
	}
	b.tap("cart-choice-" + pastDueBill)
	if checked, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="cart-choice-`+pastDueBill+`"]').checked`)); err != nil || checked {
		t.Fatalf("after a tap the bill is still ticked (%v)", err)
	}
	b.tap("cart-continue")
	b.do("confirmation", chromedp.WaitVisible(tid("cart-lines")))
	b.expectText("confirm-amount", "$"+cur.String())
	if b.lang() != "es" {
		t.Errorf("confirmation in %q, want es", b.lang())
	}
	b.tap("sim-approve")
	b.tap("charge-button")
	b.do("receipt", chromedp.WaitVisible(tid("receipt-number")))
	if !h.owes(currentBill).IsZero() || !h.owes(pastDueBill).Equal(past) {
		t.Errorf("%s owes %s, %s owes %s (was %s)", currentBill, h.owes(currentBill), pastDueBill, h.owes(pastDueBill), past)
	}
}

// TestBrowserCartLiveTotal unticks and ticks again the bills of a cart in
// Chromium: the total under them follows each tap, in the page's
// language. Without the script the total the page is served with is that
// of the bills ticked when it was made (the confirmation's "change the
// bills" link ticks only those it names).
func TestBrowserCartLiveTotal(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	b.touchScreen()
	past, cur := h.owes(pastDueBill), h.owes(currentBill)
	money := func(m domain.Money) string { return "$" + m.String() }

	b.open("/accounts/100101/pay?lang=es", "cart-total")
	b.expectText("cart-total", money(past.Add(cur)))
	b.tap("cart-choice-" + pastDueBill)
	b.expectText("cart-total", money(cur))
	b.check("cart-one-unticked")
	b.tap("cart-choice-" + currentBill)
	b.expectText("cart-total", money(domain.Money{}))
	b.tap("cart-choice-" + pastDueBill)
	b.expectText("cart-total", money(past))
	b.tap("cart-continue")
	b.do("confirmation", chromedp.WaitVisible(tid("cart-lines")))
	b.expectText("confirm-amount", money(past))

	// Served without the script: the total of the bills the link ticks.
	b.do("scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	b.open("/accounts/100101/pay?bill="+currentBill, "cart-total")
	b.expectText("cart-total", money(cur))
}

// TestBrowserPayAllFromParcel finds a parcel by its street address, as a
// resident without a bill in hand does: the parcel page says what its
// bills owe together today and pays them all with one charge, through the
// cart of their account. The account page says the same total.
func TestBrowserPayAllFromParcel(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	b.touchScreen()
	total := h.owes(pastDueBill).Add(h.owes(currentBill))

	b.open("/accounts/100101", "group-total")
	b.expectText("group-total", "$"+total.String())

	b.open("/find", "search-input")
	b.typeInto("search-input", "141 W Main St")
	b.click(tid("search-button"), "group-total")
	b.expectText("group-title", "0601-141-2001")
	b.expectText("group-total", "$"+total.String())
	b.expectText("pay-all", "$"+total.String())
	b.check("parcel-total")
	b.tap("pay-all")
	b.do("cart", chromedp.WaitVisible(tid("cart-form")))
	b.expectText("cart-total", "$"+total.String())
	b.check("parcel-cart")
	b.tap("cart-continue")
	b.do("confirmation", chromedp.WaitVisible(tid("cart-lines")))
	b.expectText("confirm-amount", "$"+total.String())
	b.tap("sim-approve")
	b.tap("charge-button")
	b.do("receipt", chromedp.WaitVisible(tid("receipt-number")))
	b.expectText("receipt-amount", "$"+total.String())
	for _, id := range []string{pastDueBill, currentBill} {
		if !h.owes(id).IsZero() {
			t.Errorf("%s owes %s after paying all from its parcel", id, h.owes(id))
		}
	}
	if a := h.sim.Approved(); len(a) != 1 || !a[0].Amount.Equal(total) {
		t.Fatalf("charges %+v, want one of %s", a, total)
	}
}

// TestBrowserCartReceiptPrinted prints the receipt of two bills paid
// together as the kiosk's 80 mm roll printer does (print media, a page
// 80 mm wide), in both languages: the receipt is laid out for the
// printer's 48 columns (a line of 48 characters fits), nothing runs off
// the paper, and no two cells of a row of its table of bills overlap or
// touch: "Amount" and "Left to pay" read as two headers.
func TestBrowserCartReceiptPrinted(t *testing.T) {
	for _, lang := range []string{"en", "es"} {
		t.Run(lang, func(t *testing.T) {
			h := newHarness(t)
			b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
			b.open("/accounts/100101/pay?lang="+lang, "cart-form")
			b.click(tid("cart-continue"), "charge-button")
			b.click(tid("charge-button"), "receipt-number")
			b.do("print media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
				return err
			}), chromedp.EmulateViewport(302, 1200))
			type layout struct {
				Overlaps     []string
				Columns      float64 // how many characters of the receipt's type fit its width
				ScrollWidth  float64
				PaperWidthPx float64
			}
			l, err := chromedp.Run(b.ctx, chromedp.Evaluate[layout](`(() => {
				const text = el => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect(); };
				const out = [];
				for (const row of document.querySelectorAll('[data-testid="cart-lines"] tr')) {
					const cells = Array.from(row.children).map(c => ({name: c.textContent.trim().replace(/\s+/g, " "), box: text(c)}));
					for (let i = 1; i < cells.length; i++) {
						const a = cells[i-1], b = cells[i];
						const apart = b.box.left - a.box.right;
						const stacked = b.box.top >= a.box.bottom || a.box.top >= b.box.bottom;
						if (apart < 4 && !stacked) { out.push(a.name + " | " + b.name + " (" + apart.toFixed(1) + " px apart)"); }
					}
				}
				const receipt = document.querySelector('[data-testid="receipt"]');
				const probe = document.createElement("span");
				probe.style.whiteSpace = "pre";
				probe.textContent = "0123456789";
				receipt.appendChild(probe);
				const perChar = probe.getBoundingClientRect().width / 10;
				probe.remove();
				const cs = getComputedStyle(receipt);
				const inner = receipt.getBoundingClientRect().width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
				return {Overlaps: out, Columns: inner / perChar, ScrollWidth: document.documentElement.scrollWidth, PaperWidthPx: 302};
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range l.Overlaps {
				t.Errorf("printed cells run together: %s", o)
			}
			if l.Columns < 48 || l.Columns > 52 {
				t.Errorf("the printed receipt holds %.1f columns, want 48", l.Columns)
			}
			if l.ScrollWidth > l.PaperWidthPx {
				t.Errorf("the printed receipt is %.0f px wide, more than the paper's %.0f", l.ScrollWidth, l.PaperWidthPx)
			}
			b.shot(lang + "-cart-receipt-80mm")
		})
	}
}
