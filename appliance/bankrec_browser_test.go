package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
)

// TestBankReconciliationInBrowser reconciles SRB in real Chromium on a
// real node (Badger and Raft) with the demo data: the demo's statement of
// October 31 reconciles and the cash is all at SRB; the treasurer records
// November's statement, on which the bank paid check 3022 of the run of
// November 2 and not yet 3023 and 3024: a check number SRB never wrote is
// refused beside the form, and the statement as the bank sent it
// reconciles with the two checks outstanding.
func TestBankReconciliationInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-29T10:00", [4]string{"treas", "Tom Treasurer", "treasurer", ""})
	b.as("treas")

	b.open("/staff/books", "bank-links")
	b.do("the books' link to the bank reconciliation",
		chromedp.Click(testid("link-bank")),
		chromedp.WaitVisible(testid("reconciliation")),
	)
	if got := b.text("statement-heading"); !strings.Contains(got, "October 31, 2026") {
		t.Fatalf("the reconciliation shown: %q, want the demo's statement of October 31", got)
	}
	if b.text("rec-difference") != "$0.00" || !strings.HasPrefix(b.text("rec-status"), "Reconciled") {
		t.Fatalf("the demo's October: difference %q, %q", b.text("rec-difference"), b.text("rec-status"))
	}
	october := domain.MustMoney(strings.NewReplacer("$", "", ",", "").Replace(b.text("rec-bank")))
	b.shot("bankrec-1-october")

	b.open("/staff/books/cash", "cash-by-depository")
	if b.text("cash-difference") != "$0.00" || !b.has("all-placed") || b.text("cash-SRB") != b.text("cash-books") {
		t.Fatalf("cash by depository: SRB %q, books %q, difference %q", b.text("cash-SRB"), b.text("cash-books"), b.text("cash-difference"))
	}

	b.open("/staff/books/bank", "statement-form")
	b.do("a check SRB never wrote",
		set(`[data-testid="statement-form"] input[name="on"]`, "2026-11-28"),
		set(`[data-testid="statement-form"] input[name="balance"]`, october.Sub(domain.MustMoney("612.40")).String()),
		set(`[data-testid="statement-form"] textarea[name="cleared"]`, "3022 9999"),
		set(`[data-testid="statement-form"] input[name="reference"]`, "SRB statement 2026-11"),
		submit("statement-submit", "statement-error"),
	)
	if got := b.text("statement-error"); !strings.Contains(got, "No check 9999 was written on SRB's account") {
		t.Fatalf("the refusal: %q", got)
	}
	b.do("November's statement as the bank sent it",
		set(`[data-testid="statement-form"] textarea[name="cleared"]`, "3022"),
		submit("statement-submit", "statement-recorded"),
	)
	if got := b.text("statement-heading"); !strings.Contains(got, "November 28, 2026") {
		t.Fatalf("after recording: %q", got)
	}
	if b.text("rec-difference") != "$0.00" || b.text("rec-outstanding") != "$449.35" || !strings.HasPrefix(b.text("rec-status"), "Reconciled") {
		t.Fatalf("November: outstanding %q, difference %q, %q", b.text("rec-outstanding"), b.text("rec-difference"), b.text("rec-status"))
	}
	out := b.eval(`[...document.querySelectorAll('[data-testid="outstanding-row"]')].map(r => r.cells[1].innerText.trim()).join(',')`)
	if out != "check 3023,check 3024" {
		t.Fatalf("outstanding checks: %q", out)
	}
	if !b.has("statement-2026-10-31") || !b.has("statement-2026-11-28") {
		t.Fatal("the history lacks a statement")
	}
	if head := b.fetchHead("bank-csv"); !strings.HasPrefix(head, "text/csv") || !strings.Contains(head, " 200 ") {
		t.Fatalf("the reconciliation's CSV: %q", head)
	}
	b.shot("bankrec-2-november")
}
