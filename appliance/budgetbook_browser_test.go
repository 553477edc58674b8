package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
	"github.com/villagehall/appliance/kiosk/staff/pdfcheck"
)

// TestProposedBudgetAtTheKiosk: once the notice of the hearing on next
// year's budget is published, a resident finds the proposed budget at the
// kiosk, marked "Proposed — hearing on" the day the notice names, with
// its summary and a link to the budget book, a PDF that reads right; in
// real Chromium, with axe on each page. Before the notice it is not
// there.
func TestProposedBudgetAtTheKiosk(t *testing.T) {
	now := time.Date(2026, time.October, 20, 10, 0, 0, 0, villageNow.Location())
	m := startMainAt(t, t.TempDir(), now)
	if out, code := userCLI(t, m, "add", "--username", "admin", "--name", "Ada Admin", "--role", "administrator"); code != 0 {
		t.Fatalf("user add: %s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	submit := func(p domain.Payload) {
		t.Helper()
		cmd, err := m.Node.NewCommand(p.Kind(), "admin")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = p
		if res, err := m.Node.Submit(ctx, cmd); err != nil || res.Error != nil {
			t.Fatalf("%s: %v %v", p.Kind(), err, res.Error)
		}
	}
	money := domain.MustMoney
	submit(&domain.BudgetProposal{Year: 2027, Lines: []domain.BudgetLine{
		{Account: "100-41110", Amount: money("1228000.00")}, {Account: "100-43410", Amount: money("220000.00")}, {Account: "100-46100", Amount: money("99500.00")},
		{Account: "100-51400", Amount: money("418000.00")}, {Account: "100-53300", Amount: money("89400.00")}, {Account: "100-55200", Amount: money("71000.00")},
	}, Balances: []domain.FundBalance{{Fund: "100", Beginning: money("1410000.00")}},
		Sections: []domain.BudgetSection{{Title: "Levy limit", Body: "The levy is within the limit of Wis. Stat. 66.0602."}}})
	kiosk := "http://" + m.Addr()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(kiosk + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, _ := get("/budget/2027"); status != http.StatusNotFound {
		t.Fatalf("a proposal without its notice at the kiosk: %d", status)
	}
	submit(&domain.BudgetNoticeChange{Year: 2027, BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: domain.MustDate("2026-10-20"),
		Newspaper: "Belleville Recorder", HearingOn: domain.MustDate("2026-11-10")}})

	b := browsertest.New(t)
	check := func(name string) {
		t.Helper()
		browsertest.Screenshot(t, b, name)
		browsertest.Axe(t, b, name)
	}
	do(t, b, "the budgets",
		chromedp.Navigate(kiosk+"/budget?lang=en"),
		chromedp.WaitVisible(testid("budget-row-proposed")),
	)
	if got := text(t, b, "budget-row-proposed"); got != "Proposed — hearing on November 10, 2026" {
		t.Errorf("the list marks the proposal %q", got)
	}
	check("budget-proposed-list")
	do(t, b, "the proposed budget",
		chromedp.Click(`[data-testid="budget-row"][data-year="2027"] a`),
		chromedp.WaitVisible(testid("budget-proposed")),
	)
	if got := text(t, b, "budget-proposed"); got != "Proposed — hearing on November 10, 2026" {
		t.Errorf("the budget is marked %q", got)
	}
	if got := text(t, b, "budget-appropriated"); got != "$578,400.00" {
		t.Errorf("appropriated %q (418,000 + 89,400 + 71,000)", got)
	}
	if got := text(t, b, "summary-expenditures-total"); got != "$578,400.00" {
		t.Errorf("the summary's expenditures %q", got)
	}
	check("budget-proposed")
	attr, err := chromedp.Run(b, chromedp.AttributeValue(testid("budget-book"), "href"))
	href := attr.Value
	if err != nil || href != "/budget/2027/book.pdf" {
		t.Fatalf("the book's link %q, %v", href, err)
	}
	status, pdf := get(href)
	if status != http.StatusOK {
		t.Fatalf("the book: %d", status)
	}
	pdfcheck.Assert(t, "the proposed budget book", []byte(pdf), pdfcheck.Layout{Left: 14, Right: 14})
	pages, err := pdfcheck.Read([]byte(pdf))
	if err != nil {
		t.Fatal(err)
	}
	first := pages[0].String()
	for _, want := range []string{"Proposed budget for 2027", "Proposed — hearing on November 10, 2026", "Revenues by major source", "$578,400.00"} {
		if !strings.Contains(first, want) {
			t.Errorf("the book's first page lacks %q:\n%s", want, first)
		}
	}
	var all strings.Builder
	for _, p := range pages {
		all.WriteString(p.String())
	}
	for _, want := range []string{"100 General fund", "Of which the property tax levy", "$1,228,000.00", "Fund balance, beginning of year", "$1,410,000.00", "Parks", "Levy limit"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the book lacks %q", want)
		}
	}
}
