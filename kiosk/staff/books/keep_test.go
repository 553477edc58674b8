package books_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestClosingAPeriod: the treasurer closes the books through October 31
// (a mid-month day is refused beside the form); a payment dated in
// October that reaches the ledger after is refused with the sentence the
// ledger gives; the administrator, who may not close, reopens with a
// reason and the payment is taken.
func TestClosingAPeriod(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	p := tr.Get("/staff/books/periods")
	if p.Status != http.StatusOK || p.Text("closed-through") != "No period is closed." || !p.Has("close-form") || p.Has("reopen-form") {
		t.Fatalf("periods before a close: %d %q, close form %v, reopen form %v", p.Status, p.Text("closed-through"), p.Has("close-form"), p.Has("reopen-form"))
	}
	if v, _ := p.Doc.Find(`[data-testid="close-form"] input[name="through"]`).Attr("value"); v != "2026-10-31" {
		t.Errorf("the form offers to close through %q, want the month before today's", v)
	}
	p = tr.Post("/staff/books/periods/close", url.Values{"through": {"2026-10-15"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("close-error"), "month's last day") {
		t.Fatalf("a close through a mid-month day: %d %q", p.Status, p.Text("close-error"))
	}
	if p = tr.Post("/staff/books/periods/close", url.Values{"through": {"2026-10-31"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("the close: %d %q", p.Status, p.Text("close-error"))
	}
	p = tr.Get("/staff/books/periods?closed=2026-10-31")
	if !strings.Contains(p.Text("closed-through"), "October 31, 2026") || !p.Has("close-2026-10-31") || !p.Has("period-closed") {
		t.Fatalf("after the close: %q", p.Text("closed-through"))
	}

	// A card payment taken offline on October 30 reaches the ledger now.
	h.SetClock(time.Date(2026, time.October, 30, 15, 0, 0, 0, h.Loc))
	late, _ := h.Ledger.NewCommand(domain.KindPayBill, "kiosk")
	late.Payload = &domain.PayBill{BillID: "B-G1", Amount: domain.MustMoney("5.00"), Tender: domain.Card, Reference: "SIM-LATE"}
	h.SetClock(time.Date(2026, time.November, 2, 9, 30, 0, 0, h.Loc))
	if _, err := h.Ledger.Submit(context.Background(), late); err == nil || !strings.Contains(domain.ErrorMessage(err), "The books are closed through 2026-10-31; post a dated adjusting entry instead") {
		t.Fatalf("a payment dated in the closed period: %v", err)
	}

	ad := h.SignedIn("ada", domain.RoleAdministrator)
	p = ad.Get("/staff/books/periods")
	if p.Has("close-form") || !p.Has("reopen-form") {
		t.Fatalf("the administrator's page: close form %v, reopen form %v", p.Has("close-form"), p.Has("reopen-form"))
	}
	if p = ad.Post("/staff/books/periods/reopen", url.Values{"reason": {""}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("reopen-error"), "reason") {
		t.Fatalf("a reopening without a reason: %d %q", p.Status, p.Text("reopen-error"))
	}
	if p = ad.Post("/staff/books/periods/reopen", url.Values{"reason": {"a card payment of October 30 came in late"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("the reopening: %d %q", p.Status, p.Text("reopen-error"))
	}
	p = ad.Get("/staff/books/periods")
	if p.Text("closed-through") != "No period is closed." || !strings.Contains(p.Text("close-2026-10-31"), "came in late") {
		t.Fatalf("after the reopening: %q, %q", p.Text("closed-through"), p.Text("close-2026-10-31"))
	}
	late.ID += "-again"
	if _, err := h.Ledger.Submit(context.Background(), late); err != nil {
		t.Fatalf("the late payment after the reopening: %v", err)
	}
}

// TestAdjustingEntryPage: the treasurer posts an adjusting entry from the
// form and it shows in the trial balance; an entry that does not balance,
// or with an amount that is not one, is shown again with what is wrong
// and the lines as typed; "More lines" adds rows.
func TestAdjustingEntryPage(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	if p := tr.Get("/staff/books/adjust"); p.Status != http.StatusOK || p.Doc.Find(`[data-testid^="adjust-line-"]`).Length() != 4 {
		t.Fatalf("the blank form: %d, %d rows", p.Status, p.Doc.Find(`[data-testid^="adjust-line-"]`).Length())
	}
	form := func(credit string) url.Values {
		return url.Values{"on": {"2026-11-02"}, "reason": {"card fee found on the statement"}, "rows": {"4"},
			"account_1": {"GF-112"}, "debit_1": {"5.00"}, "memo_1": {"receipts"},
			"account_2": {"48000"}, "credit_2": {credit}}
	}
	more := form("5.00")
	more.Set("action", "more")
	if p := tr.Post("/staff/books/adjust", more); p.Status != http.StatusOK || p.Doc.Find(`[data-testid^="adjust-line-"]`).Length() != 6 {
		t.Fatalf("more lines: %d, %d rows", p.Status, p.Doc.Find(`[data-testid^="adjust-line-"]`).Length())
	}
	p := tr.Post("/staff/books/adjust", form("4.00"))
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("adjust-errors"), "would not balance") {
		t.Fatalf("an unbalanced entry: %d %q", p.Status, p.Text("adjust-errors"))
	}
	if v, _ := p.Doc.Find(`input[name="account_2"]`).Attr("value"); v != "48000" {
		t.Errorf("the lines typed are lost: account_2 = %q", v)
	}
	if p = tr.Post("/staff/books/adjust", form("five")); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("adjust-errors"), "Line 2: the credit") {
		t.Fatalf("an amount that is not one: %d %q", p.Status, p.Text("adjust-errors"))
	}
	p = tr.Post("/staff/books/adjust", form("5.00"))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("the entry: %d %q", p.Status, p.Text("adjust-errors"))
	}
	if p := tr.Get(p.Location); !strings.Contains(p.Text("adjust-posted"), "is posted") {
		t.Fatalf("after posting: %q", p.Text("adjust-posted"))
	}
	if p := tr.Get("/staff/books"); p.Text("balance-48000") != "$85.00" || p.Text("balance-GF-112") != "$35.00" || p.Text("total-balanced") != "balanced" {
		t.Fatalf("the trial balance after the entry: 48000 %q, GF-112 %q", p.Text("balance-48000"), p.Text("balance-GF-112"))
	}
}

// TestOpeningTrialBalanceImport: a file with bad lines names each and
// imports nothing; a good one is shown with what it would post, then
// imported whole, dated the day the books opened; the page then says it
// was done and offers no second import.
func TestOpeningTrialBalanceImport(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	if p := tr.Get("/staff/books/opening"); p.Status != http.StatusOK || !p.Has("opening-form") || p.Text("opening-columns") != "account,fund,debit,credit,name,type,control" {
		t.Fatalf("the import page: %d, form %v, columns %q", p.Status, p.Has("opening-form"), p.Text("opening-columns"))
	}
	bad := "account,fund,debit,credit\nGF-101,GF,abc,\nNOPE,GF,1.00,\n48000,GF,1.00,1.00\n46100,GF,,5.00\n"
	p := tr.Upload("/staff/books/opening", map[string]string{"mode": "dry-run"}, "old.csv", bad)
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad file: %d", p.Status)
	}
	errs := p.Doc.Find(`[data-testid="opening-error"]`)
	all := errs.Text()
	for _, want := range []string{`Line 2: the debit "abc"`, "Line 3: the chart has no account NOPE", "Line 4: a balance is a debit or a credit", "Line 5: account 46100 is of fund WU, not GF"} {
		if !strings.Contains(all, want) {
			t.Errorf("the errors do not name %q: %s", want, all)
		}
	}
	good := "account,fund,debit,credit,name,type,control\n" +
		"GF-101,GF,\"1,000.00\",,General checking,asset,cash\n" +
		"GF-341,GF,,1000.00,Unassigned fund balance,fund_balance,fund_balance\n" +
		"WU-1010,WU,250.00,,Water checking,asset,cash\n" +
		"WU-341,WU,,250.00,Net position,fund_balance,fund_balance\n"
	p = tr.Upload("/staff/books/opening", map[string]string{"mode": "dry-run"}, "old.csv", good)
	if p.Status != http.StatusOK || !p.Has("opening-dry-run") || p.Doc.Find(`[data-testid^="opening-post-"]`).Length() != 4 {
		t.Fatalf("the dry run: %d %q, errors %q", p.Status, p.Text("opening-dry-run"), p.Text("opening-errors"))
	}
	if !strings.Contains(p.Text("opening-row-GF-101"), "added to the chart") || p.Text("opening-post-GF-101") == "" {
		t.Errorf("the preview of GF-101: %q / %q", p.Text("opening-row-GF-101"), p.Text("opening-post-GF-101"))
	}
	if st, _ := domain.ReadsOf(h.Ledger).BooksStatus(); st.Balances != nil {
		t.Fatal("the dry run imported")
	}
	p = tr.Post("/staff/books/opening", url.Values{"csv": {good}, "name": {"old.csv"}, "mode": {"import"}})
	if p.Status != http.StatusOK || !p.Has("opening-imported") {
		t.Fatalf("the import: %d %q", p.Status, p.Text("opening-errors"))
	}
	tb := tr.Get("/staff/books?as_of=2026-01-05")
	if tb.Text("balance-GF-101") != "$1,000.00" || tb.Text("balance-WU-341") != "$250.00" || tb.Text("total-balanced") != "balanced" {
		t.Fatalf("the trial balance of the day the books opened: GF-101 %q, WU-341 %q", tb.Text("balance-GF-101"), tb.Text("balance-WU-341"))
	}
	if p := tr.Get("/staff/books/opening"); !p.Has("opening-done") || p.Has("opening-form") {
		t.Fatalf("the page after the import: done %v, form %v", p.Has("opening-done"), p.Has("opening-form"))
	}
	if p := tr.Post("/staff/books/opening", url.Values{"csv": {good}, "name": {"old.csv"}, "mode": {"import"}}); p.Status != http.StatusConflict {
		t.Fatalf("a second import: %d %q", p.Status, p.Text("opening-errors"))
	}
}
