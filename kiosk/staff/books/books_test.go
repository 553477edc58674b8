package books_test

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// formulaName is the name of a revenue account as a hostile chart import
// could give it: a spreadsheet would run it.
const formulaName = `=HYPERLINK("http://evil.test","Miscellaneous revenue")`

// villageBooks starts the office with the books over a ledger that posts
// them with the real domain rules: a chart of two funds (the general
// fund, whose line 48000 collects the village bills that name no revenue
// account, and the water utility, whose bills name 46100; the public
// works department a department head heads), a water bill
// of 120.00 and a weed cutting bill of 80.00 on March 2, 2026, the water
// bill paid 130.00 by card on March 10 (10.00 overpaid, owed back,
// §5.07(1)) and 30.00 paid on the weed cutting bill on March 20. The
// clock is then November 2, 2026.
func villageBooks(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.New()}})
	h.Seed()
	h.Ledger.ClearBills()
	at := func(day string) {
		d := domain.MustDate(day)
		h.SetClock(time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, h.Loc))
	}
	at("2026-01-05")
	h.Submit("admin", &domain.ChartChange{Source: "books test", Accounts: []domain.ChartAccount{
		{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "WU", Type: domain.AccountFund, Name: "Water utility"},
		{Code: stafftest.Unit, Type: domain.AccountDepartment, Name: "Public works", Fund: "GF"},
		{Code: "48000", Type: domain.AccountRevenue, Name: formulaName, Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
		{Code: "46100", Type: domain.AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services"},
	}})
	at("2026-03-02")
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100102", Parcel: "0601-141-2002", Description: "weed cutting", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("80.00")},
	}})
	at("2026-03-10")
	h.Submit("kiosk", &domain.PayBill{BillID: "B-W1", Amount: domain.MustMoney("130.00"), Tender: domain.Card, Reference: "SIM-1"})
	at("2026-03-20")
	h.Submit("kiosk", &domain.PayBill{BillID: "B-G1", Amount: domain.MustMoney("30.00"), Tender: domain.Card, Reference: "SIM-2"})
	h.SetClock(time.Date(2026, time.November, 2, 9, 0, 0, 0, h.Loc))
	return h
}

// TestTrialBalanceOfTwoFunds: the postings of bills and card payments in
// two funds show by fund, each account with its debits, credits and
// balance on its normal side, each fund's totals equal, and the grand
// totals balanced; each account links to its detail; as of a day before
// the payments, only the bills stand.
func TestTrialBalanceOfTwoFunds(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	p := tr.Get("/staff/books")
	if p.Status != http.StatusOK {
		t.Fatalf("trial balance: %d %s", p.Status, p.Text("error"))
	}
	if p.Has("books-unbalanced") || p.Has("books-not-open") || p.Text("total-balanced") != "balanced" {
		t.Fatalf("banners: unbalanced %v, not open %v, total %q", p.Has("books-unbalanced"), p.Has("books-not-open"), p.Text("total-balanced"))
	}
	if !strings.Contains(p.Text("fund-GF"), "General fund") || !strings.Contains(p.Text("fund-WU"), "Water utility") {
		t.Fatalf("fund headings: %q, %q", p.Text("fund-GF"), p.Text("fund-WU"))
	}
	// code: debits, credits, balance on the normal side.
	want := map[string][3]string{
		"GF-112": {"$30.00", "$0.00", "$30.00"},   // receipts not yet deposited
		"GF-121": {"$80.00", "$30.00", "$50.00"},  // still owed on the weed cutting bill
		"48000":  {"$0.00", "$80.00", "$80.00"},   // revenue: credit-normal
		"WU-112": {"$130.00", "$0.00", "$130.00"}, // the card payment
		"WU-121": {"$120.00", "$120.00", "$0.00"}, // the water bill, paid
		"WU-212": {"$0.00", "$10.00", "$10.00"},   // the overpayment, owed back
		"46100":  {"$0.00", "$120.00", "$120.00"},
	}
	for code, w := range want {
		got := [3]string{p.Text("debit-" + code), p.Text("credit-" + code), p.Text("balance-" + code)}
		if got != w {
			t.Errorf("account %s: %v, want %v", code, got, w)
		}
	}
	if n := p.Doc.Find(`[data-testid="trial-balance-GF"] [data-testid^="account-"]`).Length(); n != 3 {
		t.Errorf("the general fund shows %d accounts, want 3", n)
	}
	if n := p.Doc.Find(`[data-testid="trial-balance-WU"] [data-testid^="account-"]`).Length(); n != 4 {
		t.Errorf("the water utility shows %d accounts, want 4", n)
	}
	if got := p.Text("fund-total-GF"); !strings.Contains(got, "$110.00") || strings.Contains(got, "does not balance") {
		t.Errorf("the general fund's total: %q", got)
	}
	if got := p.Text("fund-total-WU"); !strings.Contains(got, "$250.00") || strings.Contains(got, "does not balance") {
		t.Errorf("the water utility's total: %q", got)
	}
	if p.Text("total-debit") != "$360.00" || p.Text("total-credit") != "$360.00" {
		t.Errorf("grand totals: debits %q, credits %q", p.Text("total-debit"), p.Text("total-credit"))
	}
	if href, _ := p.Doc.Find(`[data-testid="account-GF-121"] a`).Attr("href"); href != "/staff/books/accounts/GF-121?from=2026-01-01&to=2026-11-02" {
		t.Errorf("GF-121 links to %q", href)
	}
	if !strings.Contains(p.Text("account-48000"), formulaName) {
		t.Errorf("the account's name is shown as typed: %q", p.Text("account-48000"))
	}

	// As of March 9 only the bills stand.
	p = tr.Get("/staff/books?as_of=2026-03-09")
	if p.Status != http.StatusOK || p.Text("balance-GF-121") != "$80.00" || p.Text("balance-WU-121") != "$120.00" || p.Has("account-WU-112") || p.Text("total-debit") != "$200.00" {
		t.Fatalf("as of March 9: %d, GF-121 %q, WU-121 %q, WU-112 shown %v, debits %q", p.Status, p.Text("balance-GF-121"), p.Text("balance-WU-121"), p.Has("account-WU-112"), p.Text("total-debit"))
	}
	// Before the chart there is nothing: the books are open (the chart
	// names its general fund) but hold no posting yet.
	if p := tr.Get("/staff/books?as_of=2025-12-31"); !p.Has("books-empty") || p.Has("books-not-open") || p.Has("total-debit") {
		t.Fatalf("as of 2025: empty %v, not open %v", p.Has("books-empty"), p.Has("books-not-open"))
	}
	// The link is in the navigation.
	if tr.Get("/staff/").Doc.Find(`nav a[href="/staff/books"], .top a[href="/staff/books"]`).Length() == 0 {
		t.Error("no link to the books in the treasurer's navigation")
	}
}

// unbalanced is books whose trial balance does not balance: what the
// page must never hide, though the ledger refuses every entry that would
// make it.
type unbalanced struct{}

func (unbalanced) TrialBalance(asOf domain.Date) (domain.TrialBalance, error) {
	cash := domain.ChartAccount{Code: "GF-111", Type: domain.AccountAsset, Name: "Cash in depositories", Fund: "GF", Control: domain.ControlCash}
	rev := domain.ChartAccount{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF"}
	return domain.TrialBalance{AsOf: asOf, Rows: []domain.TrialBalanceRow{
		{Account: cash, Debit: domain.MustMoney("100.00")},
		{Account: rev, Credit: domain.MustMoney("90.00")},
	}, Debit: domain.MustMoney("100.00"), Credit: domain.MustMoney("90.00")}, nil
}

func (unbalanced) BookEntries(from, to domain.Date, account string) ([]domain.BookEntry, error) {
	return nil, nil
}

func (unbalanced) Chart() (domain.Chart, error) { return domain.Chart{}, nil }

func (unbalanced) BooksStatus() (domain.BooksStatus, error) { return domain.BooksStatus{}, nil }

// ControlTies answers a receivable the books hold $5.00 more of than its
// one bill owes.
func (unbalanced) ControlTies([]domain.Bill, domain.Date, *domain.Params) ([]domain.ControlTie, error) {
	return []domain.ControlTie{{Fund: "GF", Control: domain.ControlReceivable, Account: "GF-121", Books: domain.MustMoney("25.00"),
		Records: domain.MustMoney("20.00"), Items: 1, Source: "unpaid principal of the open village bills"}}, nil
}

// TestUnbalancedBooksSayIt: a trial balance whose debits are not its
// credits shows the banner with both figures and the difference, and the
// fund's total says it does not balance.
func TestUnbalancedBooksSayIt(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.NewFrom(unbalanced{})}})
	p := h.SignedIn("audrey", domain.RoleAuditor).Get("/staff/books")
	if p.Status != http.StatusOK {
		t.Fatalf("status %d", p.Status)
	}
	banner := p.Text("books-unbalanced")
	for _, s := range []string{"do not balance", "debits $100.00", "credits $90.00", "difference of $10.00"} {
		if !strings.Contains(banner, s) {
			t.Errorf("the banner %q does not say %q", banner, s)
		}
	}
	if !strings.Contains(p.Text("fund-total-GF"), "does not balance") || p.Text("total-balanced") != "does not balance" {
		t.Errorf("totals: %q, %q", p.Text("fund-total-GF"), p.Text("total-balanced"))
	}
	if p.Has("books-not-open") {
		t.Error("books with rows are open, whatever the chart says")
	}
}

// TestBooksNotOpen: before the chart names its general fund the ledger
// keeps no books, and the page says why rather than showing empty tables.
func TestBooksNotOpen(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.New()}})
	h.Seed()
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: domain.MustDate("2026-11-02"), Principal: domain.MustMoney("80.00")},
	}})
	p := h.SignedIn("cleo", domain.RoleClerk).Get("/staff/books")
	if p.Status != http.StatusOK || !strings.Contains(p.Text("books-not-open"), "The books open when the chart names its general fund") {
		t.Fatalf("status %d, %q", p.Status, p.Text("books-not-open"))
	}
	if p.Has("books-unbalanced") || p.Has("books-empty") || p.Has("trial-balance-total") {
		t.Error("books not yet open show more than the message")
	}
}

// TestAccountDetail: an account's lines in date order, with the balance
// on its normal side running from the balance brought forward; the same
// for a credit-normal account; the command links to the journal for those
// who may read it, and is plain text for the others.
func TestAccountDetail(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)

	// The calendar year by default: nothing before January 1, then the
	// bill and the payment.
	p := tr.Get("/staff/books/accounts/GF-121")
	if p.Status != http.StatusOK {
		t.Fatalf("detail: %d %s", p.Status, p.Text("error"))
	}
	if !strings.Contains(p.Text("account-about"), "debit side") || p.Text("brought-forward-balance") != "$0.00" {
		t.Fatalf("about %q, brought forward %q", p.Text("account-about"), p.Text("brought-forward-balance"))
	}
	rows := entries(p)
	wantRows := [][5]string{
		{"2026-03-02", "create_bills", "$80.00", "", "$80.00"},
		{"2026-03-20", "pay_bill", "", "$30.00", "$50.00"},
	}
	if !slices.Equal(rows, wantRows) {
		t.Fatalf("GF-121 in 2026:\n got %v\nwant %v", rows, wantRows)
	}
	if !strings.Contains(p.Doc.Find(`[data-testid="entry-memo"]`).First().Text(), "bill B-G1") || p.Text("closing-balance") != "$50.00" ||
		p.Text("period-debit") != "$80.00" || p.Text("period-credit") != "$30.00" {
		t.Errorf("memo %q, closing %q, period %q / %q", p.Doc.Find(`[data-testid="entry-memo"]`).First().Text(), p.Text("closing-balance"), p.Text("period-debit"), p.Text("period-credit"))
	}
	cmd := p.Doc.Find(`[data-testid="entry-command"] a`).First()
	if href, _ := cmd.Attr("href"); !strings.HasPrefix(href, "/staff/journal?q=") || !strings.HasSuffix(href, cmd.Text()) || cmd.Text() == "" {
		t.Errorf("the treasurer's link to the journal: %q for %q", href, cmd.Text())
	}

	// From March 15: the bill is brought forward.
	p = tr.Get("/staff/books/accounts/GF-121?from=2026-03-15&to=2026-12-31")
	if p.Text("brought-forward-balance") != "$80.00" || !slices.Equal(entries(p), [][5]string{{"2026-03-20", "pay_bill", "", "$30.00", "$50.00"}}) {
		t.Fatalf("from March 15: brought forward %q, %v", p.Text("brought-forward-balance"), entries(p))
	}
	// A period with nothing in it says so, and carries the balance.
	p = tr.Get("/staff/books/accounts/GF-121?from=2026-04-01&to=2026-04-30")
	if !p.Has("account-no-entries") || p.Text("brought-forward-balance") != "$50.00" || p.Text("closing-balance") != "$50.00" {
		t.Fatalf("April: none %v, brought forward %q, closing %q", p.Has("account-no-entries"), p.Text("brought-forward-balance"), p.Text("closing-balance"))
	}
	// Revenue runs on the credit side.
	p = tr.Get("/staff/books/accounts/48000")
	if !strings.Contains(p.Text("account-about"), "credit side") || !slices.Equal(entries(p), [][5]string{{"2026-03-02", "create_bills", "", "$80.00", "$80.00"}}) {
		t.Fatalf("48000: %q %v", p.Text("account-about"), entries(p))
	}

	// The clerk may not open the journal: the command is plain text.
	p = h.SignedIn("cleo", domain.RoleClerk).Get("/staff/books/accounts/GF-121")
	if p.Status != http.StatusOK || p.Doc.Find(`[data-testid="entry-command"] a`).Length() != 0 || p.Text("entry-command") == "" {
		t.Errorf("the clerk's view of the commands: %d, %d links", p.Status, p.Doc.Find(`[data-testid="entry-command"] a`).Length())
	}
}

// entries returns the date, kind, debit, credit and balance of each line
// of an account's page.
func entries(p stafftest.Page) [][5]string {
	var out [][5]string
	p.Doc.Find(`tr[data-testid="entry"]`).Each(func(_ int, s *goquery.Selection) {
		cells := s.Find("td")
		text := func(i int) string { return strings.TrimSpace(cells.Eq(i).Text()) }
		out = append(out, [5]string{text(0), text(1), text(4), text(5), text(6)})
	})
	return out
}

// TestBooksCSV: the trial balance and an account's detail as CSV, plain
// decimals a spreadsheet sums, and a cell a spreadsheet would run as a
// formula (an account's name from a chart import) neutralised.
func TestBooksCSV(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	p := tr.Get("/staff/books.csv?as_of=2026-12-31")
	if p.Status != http.StatusOK {
		t.Fatalf("trial balance CSV: %d", p.Status)
	}
	recs := readCSV(t, p.Body)
	if !slices.Equal(recs[0], books.TrialBalanceCSVHeader) || len(recs) != 8 {
		t.Fatalf("trial balance CSV:\n%s", p.Body)
	}
	var rev []string
	for _, r := range recs[1:] {
		if r[2] == "48000" {
			rev = r
		}
	}
	if want := []string{"2026-12-31", "GF", "48000", "'" + formulaName, "revenue", "0.00", "80.00", "80.00"}; !slices.Equal(rev, want) {
		t.Fatalf("48000 in the CSV: %q, want %q", rev, want)
	}

	p = tr.Get("/staff/books/accounts/GF-121.csv?from=2026-03-15&to=2026-12-31")
	if p.Status != http.StatusOK {
		t.Fatalf("account CSV: %d", p.Status)
	}
	recs = readCSV(t, p.Body)
	if !slices.Equal(recs[0], books.AccountCSVHeader) || len(recs) != 3 {
		t.Fatalf("account CSV:\n%s", p.Body)
	}
	if bf := recs[1]; bf[2] != "brought_forward" || bf[6] != "80.00" || bf[7] != "0.00" || bf[8] != "80.00" {
		t.Errorf("brought forward: %q", bf)
	}
	if pay := recs[2]; pay[1] != "2026-03-20" || pay[2] != "pay_bill" || pay[6] != "0.00" || pay[7] != "30.00" || pay[8] != "50.00" || pay[3] == "" {
		t.Errorf("the payment: %q", pay)
	}
}

func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("CSV %q: %v", body, err)
	}
	return recs
}

// TestBooksBadRequests: a date that is not one, or a period backwards, is
// a 400 with a sentence saying how to write it, on the pages and the
// CSV; an account the chart does not hold is a 404.
func TestBooksBadRequests(t *testing.T) {
	h := villageBooks(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	for _, c := range []struct{ path, want string }{
		{"/staff/books?as_of=2026-13-01", `The day "2026-13-01" is not a real date written as YYYY-MM-DD`},
		{"/staff/books.csv?as_of=yesterday", `The day "yesterday" is not a real date`},
		{"/staff/books/accounts/GF-121?from=03/15/2026", `The first day "03/15/2026" is not a real date`},
		{"/staff/books/accounts/GF-121.csv?to=2026-02-30", `The last day "2026-02-30" is not a real date`},
		{"/staff/books/accounts/GF-121?from=2026-12-01&to=2026-01-01", "The period starts on 2026-12-01, after its last day 2026-01-01"},
	} {
		p := tr.Get(c.path)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Text("error"), c.want) {
			t.Errorf("%s: %d %q, want 400 %q", c.path, p.Status, p.Text("error"), c.want)
		}
	}
	if p := tr.Get("/staff/books/accounts/NOPE"); p.Status != http.StatusNotFound || !strings.Contains(p.Text("error"), `The chart has no account "NOPE"`) {
		t.Errorf("unknown account: %d %q", p.Status, p.Text("error"))
	}
}

func (unbalanced) BalanceSheet(asOf domain.Date) (domain.BalanceSheet, error) {
	return domain.BalanceSheet{AsOf: asOf}, nil
}

func (unbalanced) FundStatement(year int, fund string) (domain.FundStatement, error) {
	return domain.FundStatement{Year: year, Fund: fund}, nil
}

func (unbalanced) FormCT(year int) (domain.FormCT, error) { return domain.FormCT{Year: year}, nil }
