package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBooksInBrowser reads the books in real Chromium on a real node
// (Badger and Raft) with the demo data, whose chart names the general
// fund, so the books are open: the treasurer takes cash at the window,
// the trial balance still balances and shows the receipt not yet
// deposited in the general fund, and that account's detail ends with the
// window payment and a closing balance that is the trial balance's; the
// control accounts tie to their records; a board member reads the same
// trial balance.
func TestBooksInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-29T10:00",
		[4]string{"treas", "Tom Treasurer", "treasurer", ""},
		[4]string{"trustee", "Tess Trustee", "board", ""})
	base := b.base

	b.as("treas")
	b.open("/staff/books", "as-of-form")
	if b.has("books-not-open") || b.has("books-unbalanced") {
		t.Fatalf("the demo's books: not open %v, unbalanced %v", b.has("books-not-open"), b.has("books-unbalanced"))
	}
	b.do("open a drawer",
		chromedp.Navigate(base+"/staff/window"),
		chromedp.WaitVisible(testid("open-form")),
		chromedp.Clear(testid("open-float")),
		chromedp.SendKeys(testid("open-float"), "100.00"),
		chromedp.Click(testid("open-drawer")),
		chromedp.WaitVisible(testid("drawer-open")),
	)
	b.do("a cash payment",
		chromedp.Navigate(base+"/staff/window"),
		chromedp.WaitVisible(testid("window-bill")),
		chromedp.SendKeys(testid("window-bill"), "B-2026-0102"),
		chromedp.Click(testid("window-find")),
		chromedp.WaitVisible(testid("pay-form")),
		chromedp.Clear(testid("pay-amount")),
		chromedp.SendKeys(testid("pay-amount"), "96.10"),
		chromedp.Click(testid("tender-cash")),
		chromedp.SendKeys(testid("pay-tendered"), "100.00"),
		chromedp.Click(testid("pay-submit")),
		chromedp.WaitVisible(testid("confirm-change")),
		chromedp.Click(testid("pay-confirm")),
		chromedp.WaitVisible(testid("receipt-number")),
	)

	b.open("/staff/books", "total-balanced")
	if got := b.text("total-balanced"); got != "balanced" || b.text("total-debit") != b.text("total-credit") {
		t.Fatalf("after the payment: %q, debits %q, credits %q", got, b.text("total-debit"), b.text("total-credit"))
	}
	undeposited := b.text("balance-100-112")
	if undeposited == "" {
		t.Fatal("the general fund shows no receipts not yet deposited after a cash payment")
	}
	b.shot("books-1-trial-balance")

	b.do("the account's detail",
		chromedp.Click(`[data-testid="account-100-112"] a`),
		chromedp.WaitVisible(testid("account-entries")),
	)
	last := b.eval(`(() => { const r = [...document.querySelectorAll('tr[data-testid="entry"]')].pop(); return r ? [...r.cells].map(c => c.innerText.trim()).join('|') : ''; })()`)
	if !strings.Contains(last, "window_payment") || !strings.Contains(last, "$96.10") {
		t.Fatalf("the last line of 100-112: %q, want the window payment of $96.10", last)
	}
	if got := b.text("closing-balance"); got != undeposited {
		t.Fatalf("the detail closes at %q, the trial balance says %q", got, undeposited)
	}
	b.shot("books-2-account")

	// The demo's year of receivables, claims and investments, and the
	// payment just taken, tie to their records.
	b.open("/staff/books/controls", "controls")
	if !b.has("controls-tie") || b.has("controls-differ") {
		t.Fatalf("the demo's control accounts: %q", b.text("controls"))
	}
	if got := b.eval(`String(document.querySelectorAll('[data-testid^="control-"]').length)`); got == "0" || got == "" {
		t.Fatalf("no control account tied on the demo node (%q rows)", got)
	}
	b.shot("books-3-controls")

	b.as("trustee")
	b.open("/staff/books", "total-balanced")
	if got := b.text("balance-100-112"); got != undeposited {
		t.Fatalf("the board member reads %q, the treasurer read %q", got, undeposited)
	}
}
