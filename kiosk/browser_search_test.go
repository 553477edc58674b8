package kiosk_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestBrowserSearch searches the way residents type,
// tapping the on-screen keyboard: a bill number with spaces and one
// without its "B-" find the bill; a mistyped address offers the address
// the ledger holds; an owner's name finds nothing at the public kiosk and
// the page never shows it.
func TestBrowserSearch(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Timeout: 3 * time.Minute})
	b.touchScreen()
	for _, q := range []string{"B 2026 0101", "2026-0101"} {
		b.open("/find", "search-input")
		b.tap("search-input")
		b.tapText(strings.ToLower(q))
		b.tap("osk-enter")
		b.do("bill "+q, chromedp.WaitVisible(tid("amount-due")))
		b.expectText("bill-id", pastDueBill)
	}

	for _, lang := range []string{"en", "es"} {
		b.open("/find?lang="+lang, "search-input")
		b.tap("search-input")
		b.tapText("305 hail st")
		b.tap("osk-enter")
		b.do("did you mean", chromedp.WaitVisible(tid("did-you-mean")))
		b.expectText("did-you-mean-link", "305 Hale St")
		b.check(lang + "-did-you-mean")
		b.tap("did-you-mean-link")
		b.do("parcel", chromedp.WaitVisible(tid("group-title")))
		b.expectText("group-title", "0601-141-2005")
	}

	// The owner of 141 W Main St is Ana Gutierrez: not searchable here.
	b.open("/find?q="+url.QueryEscape("Ana Gutierrez"), "error-message")
	if b.visible("result-group") || b.visible("bill-row") || b.visible("did-you-mean") {
		t.Error("a search by owner name found something")
	}
	b.open("/find?q="+url.QueryEscape("141 W Main St"), "group-title")
	if body := b.text("html"); strings.Contains(body, "Gutierrez") {
		t.Error("the kiosk shows the owner's name")
	}
}
