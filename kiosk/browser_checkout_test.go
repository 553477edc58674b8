package kiosk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// commandID returns the command id of the charge form on the page.
func (b *browser) commandID() string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="charge-form"] input[name="command_id"]').value`))
	if err != nil || v == "" {
		b.t.Fatalf("command id: %q, %v", v, err)
	}
	return v
}

// TestBrowserCheckoutAtTheReader checks, in Chromium, three moments of a
// card checkout a resident once found confusing or wrong:
//   - the reader at work: after Pay the screen said nothing while the
//     reader worked; now a processing panel says to follow the reader and
//     not leave. A reader that does not answer gave "You have not been
//     charged", which a terminal cannot know; now the page says what the
//     clerk finds the payment by (the command id).
//   - the double tap: it set "approve" twice in the simulator's one queue;
//     the next payment, told to decline, was approved and recorded. Now
//     outcomes belong to one charge.
//   - Back after paying showed a live "Pay" page over a stale balance;
//     now it shows the receipt.
//
// axe-core runs on each new state.
func TestBrowserCheckoutAtTheReader(t *testing.T) {
	h := newHarness(t, withSimulatorPanel)
	b := openBrowser(t, h)

	// The processing panel while the reader works. The simulated
	// reader waits until the test cancels the charge, so the panel is
	// seen while the request is open.
	h.sim.SetDelay(time.Hour)
	b.open("/bills/"+pastDueBill+"/pay", "pay-continue")
	b.typeInto("amount-input", "10.00")
	b.click(tid("pay-continue"), "charge-button")
	first := b.commandID()
	// The tap. chromedp cannot query a page whose navigation is pending
	// (it waits for the next document), so the form's own navigation is
	// held back for a moment: the kiosk's script sees the same submit
	// event and shows the panel, which is read, checked by axe-core, and
	// then the form goes on to the kiosk as the tap would have sent it.
	b.do("hold the navigation", chromedp.Evaluate[chromedp.Void](`window.__held = e => e.preventDefault(); document.querySelector('[data-testid="charge-form"]').addEventListener("submit", window.__held)`))
	b.do("tap Pay", chromedp.Click(tid("charge-button"), chromedp.NodeVisible), chromedp.WaitVisible(tid("processing")))
	b.expectText("processing", "Follow the instructions on the card reader; do not leave.")
	// The kiosk's script disables the buttons just after the submit (a
	// button disabled during it would leave the form's data): wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		d, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="charge-button"]').disabled`))
		if err == nil && d {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Pay still takes taps while the reader works (disabled %v, %v)", d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.shot("01-processing")
	browsertest.Axe(t, b.ctx, "the processing panel")
	b.do("send the form", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="charge-form"]').submit()`))
	tick := time.NewTicker(5 * time.Millisecond)
	// The resident presses Cancel on the reader, once the charge is
	// waiting there.
	for !h.sim.Waiting(first) {
		<-tick.C
	}
	tick.Stop()
	if err := h.sim.Cancel(b.ctx, first); err != nil {
		t.Fatal(err)
	}
	b.do("cancelled", chromedp.WaitVisible(tid("error-message")))
	b.expectText("error-message", "cancelled")

	// A reader that does not answer: no promise, and the reference.
	h.sim.SetDelay(0)
	b.click(tid("sim-timeout"), "charge-button")
	b.tapPay("error-message")
	b.expectText("error-message", "We did not receive an answer from the card reader")
	if strings.Contains(b.text("error-message"), "not been charged") {
		t.Errorf("the timeout promises no charge: %q", b.text("error-message"))
	}
	// A reference short enough to read out, which names this charge
	// among the processor's transactions by a part of its command id.
	ref := strings.ToUpper(first[len(first)-8:])
	b.expectText("error-suggestion", "reference "+ref+";")
	if strings.Contains(b.text("error-suggestion"), first) {
		t.Errorf("the resident is asked to quote the whole command id: %q", b.text("error-suggestion"))
	}
	txns, err := h.sim.Transactions(b.ctx, fixedAt.Add(-24*time.Hour), fixedAt.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txns {
		if tx.CommandID != first && strings.Contains(strings.ToLower(tx.CommandID), strings.ToLower(ref)) {
			t.Errorf("reference %s also names %s", ref, tx.CommandID)
		}
	}
	b.shot("02-timeout")
	browsertest.Axe(t, b.ctx, "the timeout message")

	// The double tap. Both taps of the same form reach the
	// kiosk with "approve" (sent as the page's form twice, as a tap
	// before the page could stop the second one).
	b.click(tid("sim-approve"), "charge-button")
	var receipt string
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const f = document.querySelector('[data-testid="charge-form"]');
		const send = () => fetch(f.action, {method: "POST", body: new URLSearchParams(new FormData(f)), redirect: "follow"});
		const [a, b] = await Promise.all([send(), send()]);
		return a.url + " " + b.url;
	})()`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	if n := len(h.sim.Approved()); n != 1 {
		t.Fatalf("%d charges after a double tap, want 1", n)
	}
	// The next payment is told to decline: it is declined.
	b.open("/bills/"+pastDueBill+"/pay", "pay-continue")
	b.typeInto("amount-input", "5.00")
	b.click(tid("pay-continue"), "charge-button")
	if b.commandID() == first {
		t.Fatal("the second payment has the first one's command id")
	}
	b.click(tid("sim-decline"), "charge-button")
	b.tapPay("error-message")
	b.expectText("error-message", "declined")
	if n := len(h.sim.Approved()); n != 1 {
		t.Errorf("%d charges: the decline was approved", n)
	}
	if _, a := h.ledger.counts(); a != 1 {
		t.Errorf("%d payments recorded, want 1", a)
	}
	browsertest.Axe(t, b.ctx, "the declined payment")

	// Pay, then Back: the receipt again, never a live Pay page.
	b.click(tid("sim-approve"), "charge-button")
	b.tapPay("receipt-number")
	receipt = b.text("receipt-number")
	b.do("back", chromedp.NavigateBack(), chromedp.WaitVisible(tid("receipt-number")))
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="charge-button"]').length`)); err != nil || n != 0 {
		t.Errorf("Back after paying shows %d live Pay buttons (%v)", n, err)
	}
	b.expectText("receipt-number", receipt)
	b.shot("03-back-after-paying")
	browsertest.Axe(t, b.ctx, "Back after paying")
	if _, a := h.ledger.counts(); a != 2 || len(h.sim.Approved()) != 2 {
		t.Errorf("applied %d, charges %d; want 2 and 2", a, len(h.sim.Approved()))
	}

	// The same for a status letter, whose confirmation is the answer to
	// the request's POST: Back after paying shows the letter's form, not
	// a live Pay button (a second tap there would be a new payment).
	b.open("/letters", "letter-form")
	b.typeInto("letter-parcel", "0601-141-2001")
	b.typeInto("letter-name", "Dana Title Co.")
	b.typeInto("letter-contact", "608-555-0100")
	b.click(tid("letter-continue"), "charge-button")
	b.tapPay("claim-number")
	b.do("back from the claim", chromedp.NavigateBack(), chromedp.WaitVisible(tid("letter-form")))
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="charge-button"]').length`)); err != nil || n != 0 {
		t.Errorf("Back after paying a letter shows %d live Pay buttons (%v)", n, err)
	}
	browsertest.Axe(t, b.ctx, "Back after paying a letter")
	if _, a := h.ledger.counts(); a != 3 || len(h.sim.Approved()) != 3 {
		t.Errorf("applied %d, charges %d; want 3 and 3", a, len(h.sim.Approved()))
	}
}

// tapPay taps Pay and waits for waitFor on the next page (the page that
// shows Pay may already hold a waitFor, the last attempt's message: it is
// removed first, so the wait is for the answer to this tap).
func (b *browser) tapPay(waitFor string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelectorAll('[data-testid="`+waitFor+`"]').forEach(e => e.remove()); true`)); err != nil {
		b.t.Fatal(err)
	}
	b.do("tap Pay", chromedp.Click(tid("charge-button"), chromedp.NodeVisible), chromedp.WaitVisible(tid(waitFor)))
}
