package books_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// budgetedVillage starts the office with the books over a village of two
// funds with an adopted 2027 budget, posted with the real domain rules:
//   - the general fund 100 estimates $900,000.00 of property taxes and
//     $1,000.00 of charges for services (100-46100, which collects the
//     village bills, Form CT class 46300) and appropriates $40,000.00 for
//     streets (100-53300, class 53300); the water utility WU estimates no
//     revenue and appropriates $6,000.00 for distribution (WU-53700, no
//     class); its water sales (WU-46100) are class 46300 too;
//   - on February 1, 2027 an $800.00 general fund bill and a $300.00
//     water bill, paid at the window on February 2 and deposited;
//   - on March 1 a $500.00 streets claim and a $200.00 water claim,
//     allowed (§5.07(3)) and paid by one check run.
//
// The clock is then June 30, 2027.
func budgetedVillage(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.New()}})
	h.Seed()
	h.Ledger.ClearBills()
	at := func(when string) {
		d, err := time.ParseInLocation("2006-01-02T15:04", when, h.Loc)
		if err != nil {
			t.Fatal(err)
		}
		h.SetClock(d)
	}
	at("2026-10-01T09:00")
	h.Submit("admin", &domain.ChartChange{Source: "statements test", Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "WU", Type: domain.AccountFund, Name: "Water utility"},
		{Code: "PW", Type: domain.AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "WATER", Type: domain.AccountDepartment, Name: "Water department", Fund: "WU"},
		{Code: "100-41110", Type: domain.AccountRevenue, Name: "General property taxes", Fund: "100", Major: "Taxes"},
		{Code: "100-46100", Type: domain.AccountRevenue, Name: "Charges for services", Fund: "100", Major: "Public charges for services", Sources: []string{domain.SourceBills}, Class: "46300"},
		{Code: "WU-46100", Type: domain.AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services", Class: "46300"},
		{Code: "100-53300", Type: domain.AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works", Class: "53300"},
		{Code: "WU-53700", Type: domain.AccountExpenditure, Name: "Water distribution", Fund: "WU", Unit: "WATER", Major: "Utilities"},
	}})
	var votes []domain.MemberVote
	for i := range 7 {
		id := fmt.Sprintf("trustee-%c", 'a'+i)
		h.Submit("admin", &domain.BoardMember{ID: id, Name: id, Seat: "trustee", From: domain.MustDate("2025-04-15")})
		votes = append(votes, domain.MemberVote{Member: id, Vote: "aye"})
	}
	h.Submit("admin", &domain.BudgetProposal{Year: 2027, Lines: []domain.BudgetLine{
		{Account: "100-41110", Amount: domain.MustMoney("900000.00")},
		{Account: "100-46100", Amount: domain.MustMoney("1000.00")},
		{Account: "100-53300", Amount: domain.MustMoney("40000.00")},
		{Account: "WU-53700", Amount: domain.MustMoney("6000.00")},
	}})
	h.Submit("clerk", &domain.BudgetNoticeChange{Year: 2027, BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: domain.MustDate("2026-10-01"), Newspaper: "Recorder"}})
	at("2026-11-04T21:00")
	h.Submit("clerk", &domain.BudgetHearingChange{Year: 2027, BudgetHearing: domain.BudgetHearing{On: domain.MustDate("2026-11-04")}})
	h.Submit("clerk", &domain.BudgetVoteChange{Year: 2027, Action: domain.BudgetAdopt, On: domain.MustDate("2026-11-04"), Votes: votes, Present: 7})

	at("2027-02-01T09:00")
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: domain.MustDate("2027-02-01"), Principal: domain.MustMoney("800.00")},
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q4", BilledOn: domain.MustDate("2027-02-01"), Principal: domain.MustMoney("300.00"), Revenue: "WU-46100"},
	}})
	at("2027-02-02T09:00")
	h.Submit("clerk", &domain.DrawerOpen{DrawerID: "D-1", Float: domain.MustMoney("0.00")})
	for _, b := range []struct{ id, amount string }{{"B-G1", "800.00"}, {"B-W1", "300.00"}} {
		h.Submit("clerk", &domain.WindowPayment{DrawerID: "D-1", BillID: b.id, Amount: domain.MustMoney(b.amount), Tender: domain.Cash, Tendered: domain.MustMoney(b.amount)})
	}
	at("2027-02-02T16:00")
	h.Submit("clerk", &domain.DrawerClose{DrawerID: "D-1", CountedCash: domain.MustMoney("1100.00")})
	h.Submit("treas", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2027-01", From: domain.MustDate("2027-01-01"), Number: "000123456789"})
	h.Submit("treas", &domain.Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})

	at("2027-03-01T09:00")
	for _, s := range []domain.SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2027-01-03 #5", ApprovedOn: domain.MustDate("2027-01-03")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2027-01-03 #5", ApprovedOn: domain.MustDate("2027-01-03")},
	} {
		h.Submit("clerk", &s)
	}
	h.Submit("treas", &domain.CheckStock{Next: 5001, Account: "BOB"})
	h.AddUser("treas", domain.RoleTreasurer, true)
	h.AddUser("admin", domain.RoleAdministrator, true)
	var claims []string
	for _, c := range []struct{ vendor, amount, line string }{{"Sugar River Asphalt", "500.00", "100-53300"}, {"Badger Meter", "200.00", "WU-53700"}} {
		id := h.Submit("clerk", &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: c.vendor, Invoice: c.vendor + "-1", InvoiceDate: domain.MustDate("2027-03-01"), Amount: domain.MustMoney(c.amount), Line: c.line, Description: "work"}).Ref
		for _, x := range []struct{ who, what, basis string }{{"treas", domain.CertifyFundsAvailable, ""}, {"admin", domain.CertifyAuthorized, "motion of the board"}, {"admin", domain.CertifyConformity, "work seen done"}, {"treas", domain.CertifyValid, ""}} {
			h.Submit(x.who, &domain.ClaimChange{Op: domain.ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
		}
		h.Submit("treas", &domain.ClaimChange{Op: domain.ClaimEndorse, ID: id})
		claims = append(claims, id)
	}
	h.Submit("treas", &domain.CheckRun{On: domain.MustDate("2027-03-01"), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}})
	at("2027-06-30T09:00")
	return h
}

// TestBalanceSheetPage: each fund in a column and the total, cash and
// the net change of the year not yet closed, every fund balanced; the
// trial balance links to it.
func TestBalanceSheetPage(t *testing.T) {
	h := budgetedVillage(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	if href, _ := tr.Get("/staff/books").Doc.Find(`[data-testid="link-balance-sheet"]`).Attr("href"); href != "/staff/books/balance-sheet?as_of=2027-06-30" {
		t.Fatalf("the trial balance links to %q", href)
	}
	p := tr.Get("/staff/books/balance-sheet")
	if p.Status != http.StatusOK {
		t.Fatalf("balance sheet: %d %s", p.Status, p.Text("error"))
	}
	if !strings.Contains(p.Text("column-100"), "General fund") || !strings.Contains(p.Text("column-WU"), "Water utility") {
		t.Errorf("columns: %q, %q", p.Text("column-100"), p.Text("column-WU"))
	}
	for id, want := range map[string]string{
		"cash-100": "$300.00", "cash-WU": "$100.00", "cash-total": "$400.00",
		"net_change_unclosed-100": "$300.00", "net_change_unclosed-WU": "$100.00", "net_change_unclosed-total": "$400.00",
		"total-assets-100": "$300.00", "total-liabilities-100": "$0.00", "total-fund_balance-WU": "$100.00",
		"claims-100": "$300.00", "claims-WU": "$100.00", "claims-total": "$400.00",
		"balanced-100": "balanced", "balanced-WU": "balanced", "balanced-total": "balanced",
	} {
		if got := p.Text(id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(p.Text("row-net_change_unclosed"), "Net change this year, not yet closed") || !strings.Contains(p.Text("section-deferred_outflows"), "None.") {
		t.Errorf("rows: %q, %q", p.Text("row-net_change_unclosed"), p.Text("section-deferred_outflows"))
	}
	if p.Has("balance-sheet-unbalanced") || p.Has("row-encumbrances") || p.Has("row-reserve_for_encumbrances") {
		t.Error("an unbalanced banner or a budgetary row")
	}
	// Before the payments only the bills stand: receivables against the
	// revenue not yet closed.
	p = tr.Get("/staff/books/balance-sheet?as_of=2027-02-01")
	if p.Text("receivable-100") != "$800.00" || p.Text("receivable-WU") != "$300.00" || p.Text("balanced-total") != "balanced" || p.Has("row-cash") {
		t.Errorf("as of February 1: receivables %q %q, %q", p.Text("receivable-100"), p.Text("receivable-WU"), p.Text("balanced-total"))
	}
	if p := tr.Get("/staff/books/balance-sheet?as_of=2025-12-31"); !p.Has("balance-sheet-empty") || p.Has("balance-sheet") {
		t.Errorf("before the books: empty %v", p.Has("balance-sheet-empty"))
	}
}

// TestStatementPage: the general fund's 2027 budget beside its actuals by
// major source and category, the variance and the fund balance from the
// start of the year to its end; the water utility's budget estimates no
// revenue, which the page says, and its revenue shows the actual only.
func TestStatementPage(t *testing.T) {
	h := budgetedVillage(t)
	au := h.SignedIn("audrey", domain.RoleAuditor)
	if href, _ := au.Get("/staff/books").Doc.Find(`[data-testid="link-statement"]`).Attr("href"); href != "/staff/books/statement?year=2027" {
		t.Fatalf("the trial balance links to %q", href)
	}
	p := au.Get("/staff/books/statement")
	if p.Status != http.StatusOK {
		t.Fatalf("statement: %d %s", p.Status, p.Text("error"))
	}
	row := func(p stafftest.Page, id string) []string {
		var out []string
		for _, c := range []string{"original", "amendments", "carried", "final", "actual", "variance", "encumbrances"} {
			out = append(out, p.Text(id+"-"+c))
		}
		return out
	}
	for id, want := range map[string][]string{
		"revenue-1":          {"$900,000.00", "", "", "$900,000.00", "$0.00", "-$900,000.00", ""},
		"revenue-2":          {"$1,000.00", "", "", "$1,000.00", "$800.00", "-$200.00", ""},
		"total-revenues":     {"$901,000.00", "", "", "$901,000.00", "$800.00", "-$900,200.00", ""},
		"expenditure-1":      {"$40,000.00", "", "", "$40,000.00", "$500.00", "$39,500.00", ""},
		"total-expenditures": {"$40,000.00", "", "", "$40,000.00", "$500.00", "$39,500.00", ""},
	} {
		if got := row(p, id); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(p.Text("revenue-2"), "Public charges for services") || !strings.Contains(p.Text("expenditure-1"), "Public works") {
		t.Errorf("majors: %q, %q", p.Text("revenue-2"), p.Text("expenditure-1"))
	}
	if p.Text("fund-balance-beginning") != "$0.00" || p.Text("fund-balance-net-change") != "$300.00" || p.Text("fund-balance-ending") != "$300.00" || p.Has("fund-balance-other") {
		t.Errorf("fund balance: %q + %q = %q", p.Text("fund-balance-beginning"), p.Text("fund-balance-net-change"), p.Text("fund-balance-ending"))
	}
	if p.Has("statement-no-revenue-budget") || p.Has("statement-no-budget") {
		t.Error("the general fund's budget estimates revenue")
	}

	p = au.Get("/staff/books/statement?year=2027&fund=WU")
	if !strings.Contains(p.Text("statement-no-revenue-budget"), "estimates no revenue of this fund") {
		t.Fatalf("the water utility: %q", p.Text("statement-no-revenue-budget"))
	}
	if got := row(p, "revenue-1"); !slices.Equal(got, []string{"", "", "", "", "$300.00", "", ""}) {
		t.Errorf("water sales: %q", got)
	}
	if got := row(p, "expenditure-1"); !slices.Equal(got, []string{"$6,000.00", "", "", "$6,000.00", "$200.00", "$5,800.00", ""}) {
		t.Errorf("water distribution: %q", got)
	}
	// 2026 has no budget; the page says so.
	if p := au.Get("/staff/books/statement?year=2026"); !p.Has("statement-no-budget") || p.Status != http.StatusOK {
		t.Errorf("2026: %d, no budget %v", p.Status, p.Has("statement-no-budget"))
	}
}

// TestFormCTPage: the year's revenues and expenditures by class, summed
// across the funds; the water distribution line, which has no class, is
// listed under unclassified with its code, and the page says to classify
// it and that the Department's form is filed on its site.
func TestFormCTPage(t *testing.T) {
	h := budgetedVillage(t)
	cl := h.SignedIn("cleo", domain.RoleClerk)
	if href, _ := cl.Get("/staff/books").Doc.Find(`[data-testid="link-form-ct"]`).Attr("href"); href != "/staff/books/form-ct?year=2027" {
		t.Fatalf("the trial balance links to %q", href)
	}
	p := cl.Get("/staff/books/form-ct?year=2027")
	if p.Status != http.StatusOK {
		t.Fatalf("form CT: %d %s", p.Status, p.Text("error"))
	}
	for id, want := range map[string]string{
		"revenue-46300-amount": "$1,100.00", "expenditure-53300-amount": "$500.00", "unclassified-WU-53700-amount": "$200.00",
		"form-ct-total-revenues": "$1,100.00", "form-ct-total-expenditures": "$700.00",
	} {
		if got := p.Text(id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if got := p.Text("revenue-46300"); !strings.Contains(got, "100-46100") || !strings.Contains(got, "WU-46100") {
		t.Errorf("class 46300 sums %q", got)
	}
	if !strings.Contains(p.Text("unclassified-WU-53700"), "WU-53700 Water distribution") || !strings.Contains(p.Text("form-ct-unclassified-alert"), "have no classification") {
		t.Errorf("unclassified: %q, %q", p.Text("unclassified-WU-53700"), p.Text("form-ct-unclassified-alert"))
	}
	if !strings.Contains(p.Text("form-ct-note"), "filed on the Department's site") {
		t.Errorf("note: %q", p.Text("form-ct-note"))
	}
	// Last year by default: the year the report is filed for.
	if p := cl.Get("/staff/books/form-ct"); !p.Has("form-ct") || p.Has("revenue-46300") || p.Text("form-ct-total-revenues") != "$0.00" {
		t.Errorf("2026 by default: %q", p.Text("form-ct-total-revenues"))
	}
}

// TestStatementsCSV: the three statements as CSV, with the figures of
// the pages as plain decimals.
func TestStatementsCSV(t *testing.T) {
	h := budgetedVillage(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)

	p := tr.Get("/staff/books/balance-sheet.csv?as_of=2027-06-30")
	recs := readCSV(t, p.Body)
	if p.Status != http.StatusOK || !slices.Equal(recs[0], append(slices.Clone(books.BalanceSheetCSVHeader), "100", "WU", "total")) {
		t.Fatalf("balance sheet CSV: %d\n%s", p.Status, p.Body)
	}
	find := func(recs [][]string, pred func([]string) bool) []string {
		for _, r := range recs {
			if pred(r) {
				return r
			}
		}
		t.Fatalf("no such line in %q", recs)
		return nil
	}
	if cash := find(recs, func(r []string) bool { return r[1] == "assets" && r[2] == "Cash in depositories" }); !slices.Equal(cash[3:], []string{"100-111 WU-111", "300.00", "100.00", "400.00"}) {
		t.Errorf("cash: %q", cash)
	}
	if last := recs[len(recs)-1]; !slices.Equal(last[2:], []string{"liabilities, deferred inflows and fund balance", "", "300.00", "100.00", "400.00"}) {
		t.Errorf("last line: %q", last)
	}

	p = tr.Get("/staff/books/statement.csv?year=2027&fund=WU")
	recs = readCSV(t, p.Body)
	if p.Status != http.StatusOK || !slices.Equal(recs[0], books.StatementCSVHeader) {
		t.Fatalf("statement CSV: %d\n%s", p.Status, p.Body)
	}
	want := [][]string{
		{"2027", "WU", "revenues", "Charges for services", "WU-46100", "", "", "", "", "300.00", "", "0.00"},
		{"2027", "WU", "total_revenues", "Total revenues", "WU-46100", "", "", "", "", "300.00", "", "0.00"},
		{"2027", "WU", "expenditures", "Utilities", "WU-53700", "6000.00", "0.00", "0.00", "6000.00", "200.00", "5800.00", "0.00"},
		{"2027", "WU", "total_expenditures", "Total expenditures", "WU-53700", "6000.00", "0.00", "0.00", "6000.00", "200.00", "5800.00", "0.00"},
		{"2027", "WU", "fund_balance", "beginning", "", "", "", "", "", "0.00", "", ""},
		{"2027", "WU", "fund_balance", "net_change", "", "", "", "", "", "100.00", "", ""},
		{"2027", "WU", "fund_balance", "other_changes", "", "", "", "", "", "0.00", "", ""},
		{"2027", "WU", "fund_balance", "ending", "", "", "", "", "", "100.00", "", ""},
	}
	if !slices.EqualFunc(recs[1:], want, slices.Equal) {
		t.Errorf("statement CSV:\n got %q\nwant %q", recs[1:], want)
	}

	p = tr.Get("/staff/books/form-ct.csv?year=2027")
	recs = readCSV(t, p.Body)
	want = [][]string{
		books.FormCTCSVHeader,
		{"2027", "revenue", "46300", "100-46100 WU-46100", "Charges for services; Water sales", "100 WU", "1100.00"},
		{"2027", "expenditure", "53300", "100-53300", "Streets", "100", "500.00"},
		{"2027", "expenditure", "unclassified", "WU-53700", "Water distribution", "WU", "200.00"},
		{"2027", "revenue", "total", "", "", "", "1100.00"},
		{"2027", "expenditure", "total", "", "", "", "700.00"},
	}
	if p.Status != http.StatusOK || !slices.EqualFunc(recs, want, slices.Equal) {
		t.Errorf("form CT CSV: %d\n got %q\nwant %q", p.Status, recs, want)
	}
}

// TestStatementsBadRequests: a day, a year or a fund that is not one is a
// 400 with a sentence saying what to give, on the pages and the CSV.
func TestStatementsBadRequests(t *testing.T) {
	h := budgetedVillage(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	for _, c := range []struct{ path, want string }{
		{"/staff/books/balance-sheet?as_of=2027-02-30", `The day "2027-02-30" is not a real date written as YYYY-MM-DD`},
		{"/staff/books/balance-sheet.csv?as_of=today", `The day "today" is not a real date`},
		{"/staff/books/statement?year=27", `The year "27" is not a fiscal year written as four digits`},
		{"/staff/books/statement?fund=NOPE", `The chart has no fund "NOPE": ?fund= takes a fund's code (100, WU).`},
		{"/staff/books/statement.csv?year=2027&fund=PW", `The chart has no fund "PW"`},
		{"/staff/books/form-ct?year=next", `The year "next" is not a fiscal year`},
		{"/staff/books/form-ct.csv?year=0999", `The year "0999" is not a fiscal year`},
	} {
		p := tr.Get(c.path)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Text("error"), c.want) {
			t.Errorf("%s: %d %q, want 400 %q", c.path, p.Status, p.Text("error"), c.want)
		}
	}
}
