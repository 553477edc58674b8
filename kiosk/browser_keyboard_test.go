package kiosk_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// touchScreen makes the tab a touch screen, as the kiosk's is.
func (b *browser) touchScreen() {
	b.t.Helper()
	b.do("touch screen", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 1})
		return err
	}))
}

// tap touches the middle of the element with the data-testid and lifts
// the finger: touch events only, no mouse and no key events. An element
// out of sight or under something (the bar of actions) is scrolled to
// the middle of the screen first, as a resident would.
func (b *browser) tap(id string) {
	b.t.Helper()
	type point struct{ X, Y float64 }
	p, err := chromedp.Run(b.ctx, chromedp.Evaluate[point](`(() => {
		const el = document.querySelector('[data-testid="`+id+`"]');
		if (!el) { throw new Error("no element `+id+`"); }
		let r = el.getBoundingClientRect();
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		if (r.top < 0 || r.bottom > window.innerHeight || !hit || !el.contains(hit)) {
			el.scrollIntoView({block: "center"});
			r = el.getBoundingClientRect();
		}
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2};
	})()`))
	if err != nil {
		b.t.Fatalf("find %s to tap: %v", id, err)
	}
	b.do("tap "+id, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{
			Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: p.X, Y: p.Y}},
		}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{
			Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{},
		})
		return err
	}))
}

// tapText types s on the on-screen keyboard, one tap a key: the shift key
// before a capital letter.
func (b *browser) tapText(s string) {
	b.t.Helper()
	for _, r := range s {
		k := string(r)
		if lower := strings.ToLower(k); lower != k {
			b.tap("osk-shift")
			k = lower
		}
		b.tap(oskID(k))
	}
}

func oskID(k string) string {
	switch k {
	case " ":
		return "osk-space"
	case "'":
		return "osk-apos"
	case "&":
		return "osk-amp"
	case "#":
		return "osk-hash"
	case "/":
		return "osk-slash"
	case "+":
		return "osk-plus"
	case "@":
		return "osk-at"
	case "_":
		return "osk-under"
	case ",":
		return "osk-comma"
	case ".":
		return "osk-dot"
	case "-":
		return "osk-dash"
	}
	return "osk-" + k
}

func (b *browser) value(id string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Value(tid(id)))
	if err != nil {
		b.t.Fatalf("value of %s: %v", id, err)
	}
	return v
}

func (b *browser) visible(id string) bool {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => {
		const el = document.querySelector('[data-testid="`+id+`"]');
		return !!el && !el.hidden && el.getBoundingClientRect().height > 0;
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// TestBrowserOnScreenKeyboard uses the kiosk as its touch screen does,
// without a keyboard: every text field is typed into
// by tapping the on-screen keyboard, in English on the portrait screen
// and in Spanish on the landscape one, with ñ and accented letters, the
// marks of an address and of an e-mail address, a capital letter, a
// correction with the delete key, and the enter key to move on and send.
func TestBrowserOnScreenKeyboard(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h, browsertest.Options{Timeout: 3 * time.Minute})
	b.touchScreen()

	// Find a bill: the box has the focus on arrival, so the keyboard is open.
	b.open("/", "start-pay")
	if b.visible("osk") {
		t.Error("the keyboard is open on the start screen, which has no text field")
	}
	b.tap("start-pay")
	b.do("find page", chromedp.WaitVisible(tid("osk")))
	b.tapText("100102")
	b.tap("osk-back")
	b.tapText("1")
	if v := b.value("search-input"); v != "100101" {
		t.Fatalf("search box %q after tapping 1 0 0 1 0 2 ⌫ 1", v)
	}
	b.check("01-find-keyboard")
	b.tap("osk-enter")
	b.do("results", chromedp.WaitVisible(tid("result-group")))
	b.expectText("group-title", "100101")

	// Property tax: a street address with capitals.
	b.open("/property-tax", "tax-search-input")
	b.tap("tax-search-input")
	b.do("keyboard", chromedp.WaitVisible(tid("osk")))
	b.tapText("305 Hale St")
	if v := b.value("tax-search-input"); v != "305 Hale St" {
		t.Fatalf("tax search %q", v)
	}
	b.tap("osk-enter")
	b.do("tax parcel", chromedp.WaitVisible(tid("group-title")))
	b.expectText("group-title", "0601-141-2005")

	// The status letter in Spanish on the landscape screen: hide the
	// keyboard and bring it back, three fields, enter to move and send.
	browsertest.Resize(t, b.ctx, 1280, 800)
	b.open("/letters?lang=es", "letter-form")
	b.tap("letter-parcel")
	b.do("keyboard", chromedp.WaitVisible(tid("osk")))
	b.check("02-carta-teclado")
	b.tapText("305 Hale St")
	b.tap("osk-hide")
	if b.visible("osk") {
		t.Fatal("the keyboard stayed open after Ocultar")
	}
	b.tap("letter-parcel")
	b.do("keyboard again", chromedp.WaitVisible(tid("osk")))
	b.tap("osk-enter")
	if f, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("data-testid")`)); f != "letter-name" {
		t.Fatalf("enter moved the focus to %q, want letter-name", f)
	}
	name := "José Muñoz-Güell & Hijos"
	b.tapText(name)
	b.tap("osk-enter")
	contact := "jose_m+carta@correo.ex"
	b.tapText(contact)
	for id, want := range map[string]string{"letter-parcel": "305 Hale St", "letter-name": name, "letter-contact": contact} {
		if v := b.value(id); v != want {
			t.Errorf("%s: %q, want %q", id, v, want)
		}
	}
	if n := utf8.RuneCountInString(name); n != 24 {
		t.Fatalf("test name has %d letters", n)
	}
	b.tap("osk-enter")
	b.do("confirm", chromedp.WaitVisible(tid("letter-summary")))
	b.expectText("letter-confirm-name", name)
	b.expectText("letter-confirm-parcel", "0601-141-2005")
	b.check("03-carta-confirmar")
}

// TestBrowserTextFieldsWithoutScript checks the progressive enhancement:
// with scripts off the on-screen keyboard stays hidden and the search and
// the letter form are plain forms a physical keyboard fills in.
func TestBrowserTextFieldsWithoutScript(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	b.do("scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	b.open("/find", "search-input")
	if b.visible("osk") {
		t.Fatal("the on-screen keyboard shows without its script")
	}
	b.typeInto("search-input", "100101")
	b.click(tid("search-button"), "result-group")
	b.open("/letters", "letter-form")
	b.typeInto("letter-parcel", "305 Hale St")
	b.typeInto("letter-name", "Luis")
	b.typeInto("letter-contact", "608-555-0100")
	b.click(tid("letter-continue"), "letter-summary")
	b.expectText("letter-confirm-parcel", "0601-141-2005")
}
