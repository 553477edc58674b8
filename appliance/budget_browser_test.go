package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestBudgetCycleInBrowser takes the village through a budget year in
// real Chromium on a real node (Badger and Raft), the clock moving from
// September to the January after: the public works head files the
// estimates, the administrator proposes the budget and prints its summary
// for the class 1 notice, the hearing is held and the board adopts it (the
// resident kiosk then shows it); an amendment that four of seven vote for
// fails and one that five do passes; a purchase order over what its
// appropriation has left is refused at the treasurer's certification; and
// the treasurer closes the year.
func TestBudgetCycleInBrowser(t *testing.T) {
	// The demo holds the chart, the board and the budgets of 2026 and 2027.
	b := newOfficeBrowser(t, "2027-09-10T09:00",
		[4]string{"pwhead", "Pat Works", "department_head", "PW"},
		[4]string{"admin", "Ada Admin", "administrator", ""},
		[4]string{"treas", "Tom Treasurer", "treasurer", ""})
	ctx, base, m := b.ctx, b.base, b.m
	do := func(_ *testing.T, _ context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		b.do(what, steps...)
	}
	has, as, setClock := b.has, b.as, b.setClock
	// vote fills the vote form: the first ayes members aye, the rest nay.
	vote := func(what, action, on string, ayes int, extra ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.Navigate(base + "/staff/budget/2028/vote"),
			chromedp.WaitVisible(testid("vote-form")),
			set(`[data-testid="vote-form"] select[name="action"]`, action),
			set(`[data-testid="vote-form"] input[name="on"]`, on),
		}
		steps = append(steps, extra...)
		do(t, ctx, what, steps...)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`(() => { const s = document.querySelectorAll('[data-testid="vote-form"] select[name^="vote-"]');
			s.forEach((x, i) => { x.value = i < %d ? 'aye' : 'nay'; }); return s.length; })()`, ayes))); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, what+": record", submit("vote-save", "budget-status"))
	}

	// September 10: the public works head files the estimates for 2028.
	as("pwhead")
	do(t, ctx, "estimates",
		chromedp.Navigate(base+"/staff/budget/2028/estimates?unit=PW"),
		chromedp.WaitVisible(testid("estimate-form")),
		set(`input[name="prior-100-53300"]`, "83,900.00"),
		set(`input[name="current-100-53300"]`, "86,200.00"),
		set(`input[name="next-100-53300"]`, "88,000.00"),
		submit("estimate-save", "estimate-filed"),
	)
	if got := text(t, ctx, "estimate-PW"); !strings.Contains(got, "2027-09-10") || !strings.Contains(got, "pwhead") || has("estimate-late") {
		t.Fatalf("the tracker's public works row: %q", got)
	}
	browsertest.Screenshot(t, ctx, "budget-1-estimates")

	// October 1: the administrator proposes the budget.
	setClock("2027-10-01T10:00")
	as("admin")
	amounts := map[string]string{"100-41110": "1,204,000.00", "100-43410": "216,000.00", "100-46100": "98,000.00",
		"100-51400": "410,000.00", "100-53300": "88,000.00", "100-55200": "66,000.00"}
	steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/staff/budget/2028/proposal"), chromedp.WaitVisible(testid("proposal-form"))}
	for acct, amount := range amounts {
		steps = append(steps, set(`[data-testid="amount-`+acct+`"]`, amount))
	}
	steps = append(steps, set(`[data-testid="beginning-100"]`, "421,500.00"),
		set(`input[name="debt-0"]`, "2019 general obligation promissory note"),
		set(`input[name="debt-outstanding-0"]`, "1,050,000.00"), set(`input[name="debt-due-0"]`, "150,000.00"),
		submit("proposal-save", "budget-status"))
	do(t, ctx, "the proposed budget", steps...)
	if got := text(t, ctx, "budget-status"); !strings.Contains(got, "Proposed") {
		t.Fatalf("after the proposal the budget is %q", got)
	}
	browsertest.Screenshot(t, ctx, "budget-2-proposed")

	// The summary and its PDF for the class 1 notice.
	do(t, ctx, "the summary", chromedp.Navigate(base+"/staff/budget/2028/summary"), chromedp.WaitVisible(testid("summary-pdf")))
	if got := text(t, ctx, "summary-publish-by"); !strings.Contains(got, "2027") {
		t.Errorf("the last day to publish the notice: %q", got)
	}
	head, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="summary-pdf"]').href).then(r => r.text().then(b => r.headers.get('content-type') + ' ' + r.status + ' ' + b.slice(0, 5)))`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(head, "application/pdf 200 %PDF-") {
		t.Fatalf("the summary's PDF: %q, %v", head, err)
	}
	browsertest.Screenshot(t, ctx, "budget-3-summary")

	// October 20: the notice is published; November 8: the hearing and
	// the adoption, six ayes and one nay.
	setClock("2027-10-20T10:00")
	as("admin")
	do(t, ctx, "the notice",
		chromedp.Navigate(base+"/staff/budget/2028"),
		chromedp.WaitVisible(testid("notice-form")),
		set(`[data-testid="notice-form"] input[name="published"]`, "2027-10-20"),
		submit("notice-save", "budget-notices"),
	)
	setClock("2027-11-08T20:30")
	as("admin")
	do(t, ctx, "the hearing",
		chromedp.Navigate(base+"/staff/budget/2028"),
		chromedp.WaitVisible(testid("hearing-form")),
		set(`[data-testid="hearing-form"] input[name="on"]`, "2027-11-08"),
		submit("hearing-save", "budget-hearing"),
	)
	vote("the adoption", "adopt", "2027-11-08", 6)
	if got := text(t, ctx, "budget-status"); !strings.Contains(strings.ToLower(got), "adopted") {
		t.Fatalf("after the vote the budget is %q", got)
	}
	browsertest.Screenshot(t, ctx, "budget-4-adopted")

	// The resident kiosk shows the adopted budget as a public record.
	kiosk := "http://" + m.Addr()
	do(t, ctx, "the kiosk's copy", chromedp.Navigate(kiosk+"/budget/2028?lang=en"), chromedp.WaitVisible(testid("budget-appropriated")))
	if got := text(t, ctx, "budget-appropriated"); got != "$564,000.00" {
		t.Errorf("the kiosk shows %q appropriated (410,000 + 88,000 + 66,000)", got)
	}
	browsertest.Screenshot(t, ctx, "budget-5-kiosk")

	// January 15: an amendment for the parks. Four of seven is not two
	// thirds of the entire board; five is.
	setClock("2028-01-15T20:00")
	as("admin")
	change := []chromedp.Action[chromedp.Void]{
		set(`input[name="change-account-0"]`, "100-55200"),
		set(`input[name="change-amount-0"]`, "5,000.00"),
		set(`input[name="purpose"]`, "Playground equipment"),
	}
	vote("an amendment with four ayes", "amend", "2028-01-15", 4, change...)
	vote("an amendment with five ayes", "amend", "2028-01-15", 5, change...)
	outcomes, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="vote-outcome"]')).map(e => e.textContent.trim()).join(',')`))
	if err != nil || outcomes != "passed,failed,passed" {
		t.Fatalf("vote outcomes %q, %v", outcomes, err)
	}
	if !has("amendment-notice-due") {
		t.Error("the amendment's class 1 notice is not tracked")
	}
	browsertest.Screenshot(t, ctx, "budget-6-amended")

	// February 1: an order for more than the streets appropriation has.
	setClock("2028-02-01T09:00")
	as("admin")
	do(t, ctx, "a new order",
		chromedp.Navigate(base+"/staff/orders"),
		chromedp.WaitVisible(testid("order-form")),
		set(`[data-testid="order-line"]`, "100-53300"),
		set(`[data-testid="order-form"] input[name="description"]`, "Resurfacing of Hale Street"),
		set(`[data-testid="order-form"] select[name="category"]`, "contractual_services"),
		set(`[data-testid="order-form"] input[name="estimate"]`, "95,000.00"),
		submit("order-create", "order-figures"),
	)
	for _, b := range [][2]string{{"Payne & Dolan", "94,500.00"}, {"Rock Road Companies", "96,200.00"}, {"Wolf Paving", "97,000.00"}} {
		do(t, ctx, "a bid from "+b[0],
			chromedp.WaitVisible(testid("bid-form")),
			set(`[data-testid="bid-form"] input[name="vendor"]`, b[0]),
			set(`[data-testid="bid-form"] input[name="amount"]`, b[1]),
			submit("bid-save", "order-bids"),
		)
	}
	do(t, ctx, "the award",
		set(`[data-testid="award-form"] input[name="vendor"]`, "Payne & Dolan"),
		set(`[data-testid="award-form"] input[name="amount"]`, "94,500.00"),
		set(`[data-testid="award-form"] input[name="board_meeting"]`, "2028-01-31"),
		set(`[data-testid="award-form"] input[name="board_present"]`, "7"),
		set(`[data-testid="award-form"] input[name="board_ayes"]`, "6"),
		set(`[data-testid="award-form"] input[name="board_nays"]`, "1"),
		submit("award-save", "order-award"),
	)
	var order string
	if order, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname.split('/').pop()`)); err != nil {
		t.Fatal(err)
	}
	as("treas")
	do(t, ctx, "the certification",
		chromedp.Navigate(base+"/staff/orders/"+order),
		chromedp.WaitVisible(testid("certify-form")),
		submit("certify-submit", "order-error"),
	)
	if got := text(t, ctx, "order-error"); !strings.Contains(got, "$88,000.00 available, less than $94,500.00") {
		t.Fatalf("the refusal for lack of funds: %q", got)
	}
	if has("order-certified") || !has("certify-form") {
		t.Fatal("an order over its appropriation was certified")
	}
	browsertest.Screenshot(t, ctx, "budget-7-no-funds")

	// January 3 of the year after: the treasurer closes 2028.
	setClock("2029-01-03T10:00")
	as("treas")
	do(t, ctx, "the year-end close",
		chromedp.Navigate(base+"/staff/appropriations/2028/close"),
		chromedp.WaitVisible(testid("close-preview")),
	)
	if got := text(t, ctx, "close-totals"); !strings.Contains(got, "569,000.00 lapses") && !strings.Contains(got, "569000.00 lapses") {
		t.Errorf("the close's preview: %q (every appropriation unspent lapses)", got)
	}
	do(t, ctx, "close", submit("close-submit", "close-done"))
	browsertest.Screenshot(t, ctx, "budget-8-closed")
}
