package kiosk_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// browser drives one Chromium tab through the kiosk and fails the test on
// the first step that does not work.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func openBrowser(t *testing.T, h *harness, opts ...browsertest.Options) *browser {
	b := &browser{t: t, ctx: browsertest.New(t, opts...), base: h.srv.URL}
	// Collect console errors and exceptions: a blocked script or style (the
	// CSP) or a script error shows up here.
	cctx, stop := context.WithCancel(b.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(cctx) {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		stop()
		<-done
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, m := range b.console {
			// The kiosk answers bad input and refused cards with a 4xx page,
			// which the console reports; a missing asset is still an error.
			if strings.HasPrefix(m.Text, "Failed to load resource") && !strings.Contains(m.URL, "/assets/") {
				continue
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				t.Errorf("browser console %s: %s (%s)", m.Type, m.Text, m.URL)
			}
		}
	})
	return b
}

func tid(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

func (b *browser) open(path string, waitFor string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(tid(waitFor)))
}

// click presses an element and waits for an element of the next page.
func (b *browser) click(sel chromedp.CSS, waitFor string) {
	b.t.Helper()
	b.do("click "+string(sel), chromedp.Click(sel, chromedp.NodeVisible), chromedp.WaitVisible(tid(waitFor)))
}

func (b *browser) typeInto(id, text string) {
	b.t.Helper()
	b.do("type into "+id, chromedp.Clear(tid(id)), chromedp.SendKeys(tid(id), text))
}

func (b *browser) text(id string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(tid(id)))
	if err != nil {
		b.t.Fatalf("read %s: %v", id, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

func (b *browser) expectText(id, want string) {
	b.t.Helper()
	if got := b.text(id); !strings.Contains(got, want) {
		b.t.Errorf("%s: %q, want %q", id, got, want)
	}
}

func (b *browser) lang() string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string]("document.documentElement.lang"))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

func (b *browser) shot(name string) { b.t.Helper(); browsertest.Screenshot(b.t, b.ctx, name) }

// TestBrowserPayPartOfABill finds a bill by account number on the kiosk's
// portrait screen, tries a bad amount, pays part of the bill, is declined
// once by the simulated terminal, pays, and reads the receipt, also as
// printed on 80 mm paper.
func TestBrowserPayPartOfABill(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h)

	b.open("/", "start-pay")
	if b.lang() != "en" {
		t.Errorf("lang %q", b.lang())
	}
	b.shot("01-start")

	b.click(tid("start-pay"), "search-input")
	b.shot("02-find")

	b.typeInto("search-input", "100101")
	b.click(tid("search-button"), "result-group")
	b.expectText("group-title", "Account 100101")
	b.shot("03-account")

	b.click(chromedp.CSS(`[data-bill="`+pastDueBill+`"] a`), "amount-due")
	b.expectText("amount-due", "$221.00")
	b.expectText("next-steps", "If the bill is unpaid on November 1, 2026, a 1.5% penalty is added")
	b.shot("04-bill")

	b.click(tid("pay-button"), "amount-input")
	b.typeInto("amount-input", "12.345")
	b.click(tid("pay-continue"), "error-message")
	b.expectText("error-message", "more than two digits")
	b.shot("05-pay-error")

	b.typeInto("amount-input", "$50")
	b.click(tid("pay-continue"), "confirm-amount")
	b.expectText("confirm-amount", "$50.00")
	b.expectText("alloc-interest", "$21.00")
	b.expectText("alloc-principal", "$29.00")
	b.expectText("remaining-balance", "$171.00")
	b.shot("06-confirm")

	b.click(tid("sim-decline"), "charge-button")
	b.click(tid("charge-button"), "error-message")
	b.expectText("error-message", "declined")
	b.shot("07-declined")
	if n := len(h.sim.Approved()); n != 0 {
		t.Fatalf("%d charges after a decline", n)
	}

	b.click(tid("sim-approve"), "charge-button")
	b.click(tid("charge-button"), "receipt-number")
	b.expectText("receipt-amount", "$50.00")
	b.expectText("alloc-penalty", "$0.00")
	b.expectText("alloc-interest", "$21.00")
	b.expectText("alloc-principal", "$29.00")
	b.expectText("receipt-balance", "$171.00")
	b.expectText("receipt-status", "Posted")
	b.expectText("receipt-number", "hall-kiosk-")
	b.do("print button", chromedp.WaitVisible(tid("print-button")))
	b.shot("08-receipt")

	if s, a := h.ledger.counts(); s != 1 || a != 1 || len(h.sim.Approved()) != 1 {
		t.Errorf("submits %d, applied %d, charges %d; want 1 each", s, a, len(h.sim.Approved()))
	}

	// The receipt as printed: 80 mm wide, without the kiosk's header.
	b.do("print media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}), chromedp.EmulateViewport(302, 900))
	b.shot("09-receipt-print")
	pdf, err := chromedp.Run(b.ctx, chromedp.PrintToPDF(chromedp.PDFPreferCSSPageSize()))
	if err != nil {
		t.Fatal(err)
	}
	// 80 mm is 226.77 pt; Chromium rounds to its pixel grid.
	box := regexp.MustCompile(`/MediaBox \[0 0 ([0-9.]+) `).FindSubmatch(pdf)
	if box == nil {
		t.Fatal("no page size in the printed PDF")
	}
	if w, err := strconv.ParseFloat(string(box[1]), 64); err != nil || w < 225 || w > 229 {
		t.Errorf("printed page width %s pt, want 226.77 (80 mm)", box[1])
	}

	// Landscape 1280×800: the same receipt on another screen.
	b.do("screen media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: ""})
		return err
	}))
	browsertest.Resize(t, b.ctx, 1280, 800)
	b.shot("10-receipt-1280")
}

// TestBrowserPayInSpanish switches to Spanish on the start screen of a
// 1280×800 screen, finds a bill by parcel number typed without dashes,
// pays it in full and reads the receipt.
func TestBrowserPayInSpanish(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Width: 1280, Height: 800})

	b.open("/", "start-lang-es")
	b.click(tid("start-lang-es"), "start-pay")
	if b.lang() != "es" {
		t.Fatalf("lang %q after switching", b.lang())
	}
	b.expectText("start-pay", "Buscar y pagar una factura")
	b.shot("01-inicio")

	b.click(tid("start-pay"), "search-input")
	b.typeInto("search-input", "0601 141 2005")
	b.click(tid("search-button"), "result-group")
	b.expectText("group-title", "Parcela 0601-141-2005")
	b.shot("02-parcela")

	b.click(chromedp.CSS(`[data-bill="`+partBill+`"] a`), "amount-due")
	b.expectText("status", "Vencida")
	b.expectText("next-steps", "Qué pasa después")
	due := b.text("amount-due")
	b.shot("03-factura")

	b.click(tid("pay-button"), "pay-full")
	b.shot("04-importe")
	b.click(tid("pay-full"), "confirm-amount")
	b.expectText("confirm-amount", due)
	b.expectText("remaining-balance", "$0.00")
	b.shot("05-confirmar")

	b.click(tid("charge-button"), "receipt-number")
	if b.lang() != "es" {
		t.Errorf("receipt lang %q", b.lang())
	}
	b.expectText("receipt-status", "Registrado")
	b.expectText("receipt-amount", due)
	b.expectText("receipt-balance", "$0.00")
	b.expectText("posted-note", "Pago registrado")
	b.shot("06-recibo")

	// Done returns to the start, in English for the next resident.
	b.click(tid("done-button"), "start-pay")
	if b.lang() != "en" {
		t.Errorf("after Done lang %q, want en", b.lang())
	}
}

// TestBrowserIdleTimer checks that a page left alone warns and then returns
// to the start screen, and that a payment already submitted is never
// interrupted by the timer.
func TestBrowserIdleTimer(t *testing.T) {
	h := newHarness(t, withIdle(4*time.Second))
	b := openBrowser(t, h)

	b.open("/bills/"+pastDueBill+"?lang=es", "amount-due")
	b.do("idle warning", chromedp.WaitVisible(tid("idle-warning")))
	b.expectText("idle-warning", "¿Sigue ahí?")
	b.shot("01-aviso")
	// "I need more time" keeps the page.
	b.do("stay", chromedp.Click(tid("idle-stay")), chromedp.WaitNotVisible(tid("idle-warning")))
	// Left alone again, it returns to the start screen, in English.
	b.do("return to start", chromedp.WaitVisible(tid("start-pay")))
	if b.lang() != "en" {
		t.Errorf("after the idle reset lang %q, want en", b.lang())
	}

	// A charge that takes longer than the idle timeout still ends on the
	// receipt.
	h.sim.SetDelay(6 * time.Second)
	b.open("/bills/"+pastDueBill+"/pay", "pay-full")
	b.click(tid("pay-full"), "charge-button")
	b.do("pay", chromedp.Click(tid("charge-button")), chromedp.WaitVisible(tid("receipt-number")))
	if _, a := h.ledger.counts(); a != 1 {
		t.Errorf("%d payments applied, want 1", a)
	}
}
