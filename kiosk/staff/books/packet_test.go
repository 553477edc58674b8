package books_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/pdfcheck"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// pdfWord is one text of a page of the packet, as pdfcheck reads it.
type pdfWord = pdfcheck.Text

// pdfPages reads the texts of each page of a PDF.
func pdfPages(t *testing.T, pdf string) [][]pdfWord {
	t.Helper()
	pages, err := pdfcheck.Read([]byte(pdf))
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]pdfWord, len(pages))
	for i, p := range pages {
		out[i] = p.Texts
	}
	return out
}

// line returns what the texts on the baseline of the first text of page
// that reads caption say, left to right; nil when there is none.
func line(page []pdfWord, caption string) []string {
	on := pdfcheck.Line(page, caption)
	if on == nil {
		return nil
	}
	return pdfcheck.Strings(on)
}

func pageText(page []pdfWord) string { return pdfcheck.Page{Texts: page}.String() }

// packetVillage is budgetedVillage with a March of many checks: besides
// the two of March 1, thirty-eight streets claims paid on March 10, one
// of them to a payee whose name is longer than its column; the water
// claim's check is voided on March 20.
func packetVillage(t *testing.T) *stafftest.Harness {
	h := budgetedVillage(t)
	at := func(when string) {
		d, err := time.ParseInLocation("2006-01-02T15:04", when, h.Loc)
		if err != nil {
			t.Fatal(err)
		}
		h.SetClock(d)
	}
	at("2027-03-10T09:00")
	var claims []string
	for i := range 38 {
		vendor := fmt.Sprintf("Vendor %02d", i+1)
		if i == 7 {
			vendor = "The Sugar River Asphalt, Concrete and Paving Company of Southern Wisconsin, Limited Liability Company"
		}
		id := h.Submit("clerk", &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: vendor, Invoice: fmt.Sprintf("INV-%d", i), InvoiceDate: domain.MustDate("2027-03-10"),
			Amount: domain.MustMoney(fmt.Sprintf("%d.25", 100+i)), Line: "100-53300", Description: "patching"}).Ref
		for _, x := range []struct{ who, what, basis string }{{"treas", domain.CertifyFundsAvailable, ""}, {"admin", domain.CertifyAuthorized, "motion of the board"}, {"admin", domain.CertifyConformity, "work seen done"}, {"treas", domain.CertifyValid, ""}} {
			h.Submit(x.who, &domain.ClaimChange{Op: domain.ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
		}
		h.Submit("treas", &domain.ClaimChange{Op: domain.ClaimEndorse, ID: id})
		claims = append(claims, id)
	}
	h.Submit("treas", &domain.CheckRun{On: domain.MustDate("2027-03-10"), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}})
	at("2027-03-20T09:00")
	h.Submit("treas", &domain.CheckVoid{Number: 5002, Reason: "lost in the mail"})
	at("2027-06-30T09:00")
	return h
}

// getPDF asks for path and returns the status, the content type and the
// body.
func getPDF(t *testing.T, c *stafftest.Client, path string) (int, string, string) {
	t.Helper()
	resp, err := c.HTTP.Get(c.H.Srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestBoardPacket: March's packet has its cover with the contents, each
// part on its own page headed with the village, its title and the month's
// end, in order, at the page the contents say; its figures are the
// books' own (the balance sheet's cash and rows, each fund's statement
// through March 31, the month's checks with the voided one marked and
// left out of the total); the register runs onto a second page with its
// header repeated; pages are numbered "Page n of m"; no two words on a
// line overlap and every word is within the margins.
func TestBoardPacket(t *testing.T) {
	h := packetVillage(t)
	clerk := h.SignedIn("carla", domain.RoleClerk)
	if !clerk.Get("/staff/books").Has("packet-form") {
		t.Fatal("the books' index has no form for the packet")
	}
	status, ctype, body := getPDF(t, clerk, "/staff/books/packet.pdf?month=2027-03")
	if status != http.StatusOK || ctype != "application/pdf" || !strings.HasPrefix(body, "%PDF-") {
		t.Fatalf("packet: %d %s %.200q", status, ctype, body)
	}
	pages := pdfPages(t, body)
	if len(pages) < 7 {
		t.Fatalf("the packet has %d pages", len(pages))
	}

	reads := domain.ReadsOf(h.Ledger)
	through := domain.MustDate("2027-03-31")
	bs, err := reads.BalanceSheet(through)
	if err != nil {
		t.Fatal(err)
	}
	ended := "For the month ended March 31, 2027"
	titles := []string{"Cash and investments by fund", "Balance sheet by fund",
		"Revenues and expenditures, budget to actual: 100 General fund", "Revenues and expenditures, budget to actual: WU Water utility", "Check register"}
	if !slices.Equal(bs.Funds, []string{"100", "WU"}) {
		t.Fatalf("funds %v", bs.Funds)
	}

	// The cover, and its contents naming where each part starts.
	cover := pageText(pages[0])
	for _, want := range []string{"Village of Belleville", "Monthly financial report", ended, "March 2027", "Prepared June 30, 2027", "Contents"} {
		if !strings.Contains(cover, want) {
			t.Errorf("the cover lacks %q:\n%s", want, cover)
		}
	}
	start := map[string]int{}
	last := 1
	for i, title := range titles {
		l := line(pages[0], fmt.Sprintf("%d. %s", i+1, title))
		if len(l) != 2 {
			t.Fatalf("contents line %q: %v", title, l)
		}
		n, _ := strconv.Atoi(l[1])
		if n <= last || n > len(pages) {
			t.Fatalf("part %q starts on page %d, after page %d of %d", title, n, last, len(pages))
		}
		last, start[title] = n, n
		head := pageText(pages[n-1])
		if !strings.HasPrefix(head, "Village of Belleville\n"+title+"\n"+ended+"\n") {
			t.Errorf("page %d, %q, is headed:\n%.200s", n, title, head)
		}
	}
	part := func(title string) []pdfWord { return pages[start[title]-1] }

	// Cash and investments: the balance sheet's rows, fund by fund.
	for _, s := range bs.Sections {
		for _, row := range s.Rows {
			want := []string{row.Caption}
			for _, a := range append(row.Amounts, row.Total) {
				want = append(want, staff.Accounting(a))
			}
			if row.Control == domain.ControlCash {
				if got := line(part(titles[0]), row.Caption); !slices.Equal(got, want) {
					t.Errorf("cash: %v, want %v", got, want)
				}
			}
			if got := line(part(titles[1]), row.Caption); !slices.Equal(got, want) {
				t.Errorf("balance sheet row %q: %v, want %v", row.Caption, got, want)
			}
		}
		want := []string{"Total " + strings.ToLower(s.Title)}
		for _, a := range append(s.Amounts, s.Total) {
			want = append(want, staff.Accounting(a))
		}
		if len(s.Rows) > 0 {
			if got := line(part(titles[1]), want[0]); !slices.Equal(got, want) {
				t.Errorf("balance sheet %v, want %v", got, want)
			}
		}
	}
	if cash := line(part(titles[0]), "Cash in depositories"); len(cash) != 4 {
		t.Errorf("no cash row: %v", cash)
	}

	// Each fund's statement through March 31: the month, the year to
	// date and the budget, major by major, and the fund balance at the
	// balance sheet's.
	for i, fund := range bs.Funds {
		st, err := reads.FundStatementThrough(fund, through)
		if err != nil {
			t.Fatal(err)
		}
		year, err := reads.FundStatement(2027, fund)
		if err != nil {
			t.Fatal(err)
		}
		page := part(titles[2+i])
		rows := append(append(slices.Clone(st.Revenues), st.TotalRevenues), append(st.Expenditures, st.TotalExpenditures)...)
		for _, r := range rows {
			got := line(page, r.Major)
			if len(got) < 3 {
				t.Errorf("fund %s, %q: %v", fund, r.Major, got)
				continue
			}
			if !slices.Contains(got, staff.Accounting(r.Month)) || !slices.Contains(got, staff.Accounting(r.Actual)) {
				t.Errorf("fund %s, %q: %v, want the month %s and the year to date %s", fund, r.Major, got, staff.Accounting(r.Month), staff.Accounting(r.Actual))
			}
		}
		te := line(page, "Total expenditures")
		want := []string{"Total expenditures", staff.Accounting(year.TotalExpenditures.Original), staff.Accounting(year.TotalExpenditures.Final),
			staff.Accounting(st.TotalExpenditures.Month), staff.Accounting(st.TotalExpenditures.Actual), staff.Accounting(year.TotalExpenditures.Final.Sub(st.TotalExpenditures.Actual))}
		if len(te) < len(want) || !slices.Equal(te[:len(want)], want) {
			t.Errorf("fund %s total expenditures: %v, want %v", fund, te, want)
		}
		p, _ := bs.Position(fund)
		if got := line(page, "Fund balance, March 31, 2027"); !slices.Equal(got, []string{"Fund balance, March 31, 2027", staff.Accounting(p.FundBalance)}) {
			t.Errorf("fund %s ends at %v, the balance sheet has %s", fund, got, staff.Accounting(p.FundBalance))
		}
	}
	general := pageText(part(titles[2]))
	if !strings.Contains(general, "Public works") || !strings.Contains(general, "Taxes") {
		t.Errorf("the general fund's statement:\n%s", general)
	}

	// The check register: every check of March, the voided one marked and
	// left out of the total, its header on each page it runs onto.
	checks, err := reads.CheckRegister("2027-03")
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 40 {
		t.Fatalf("%d checks in March", len(checks))
	}
	reg := slices.Concat(pages[start[titles[4]]-1:]...)
	var total domain.Money
	for _, c := range checks {
		got := line(reg, strconv.Itoa(c.Number))
		if len(got) < 6 || got[0] != c.On.String() {
			t.Errorf("check %d: %v", c.Number, got)
			continue
		}
		if c.Void != nil {
			if !slices.Contains(got, "void") || !strings.Contains(strings.Join(got, " "), "lost in the mail") {
				t.Errorf("the voided check %d: %v", c.Number, got)
			}
			continue
		}
		total = total.Add(c.Amount)
		if !slices.Contains(got, staff.Accounting(c.Amount)) {
			t.Errorf("check %d: %v, want %s", c.Number, got, staff.Accounting(c.Amount))
		}
		if c.Payee != "" && len(c.Payee) < 30 && !slices.Contains(got, c.Payee) {
			t.Errorf("check %d: %v, want the payee %q", c.Number, got, c.Payee)
		}
	}
	if got := line(reg, "Total"); !slices.Contains(got, staff.Accounting(total)) {
		t.Errorf("register total %v, want %s", got, staff.Accounting(total))
	}
	if len(pages) <= start[titles[4]] {
		t.Fatal("the register of 40 checks fits one page")
	}
	second := pageText(pages[start[titles[4]]])
	if !strings.Contains(second, "Check register (continued)") || line(pages[start[titles[4]]], "Payee") == nil || !strings.Contains(second, "Appropriation") {
		t.Errorf("the register's second page repeats no header:\n%.300s", second)
	}
	if !slices.ContainsFunc(reg, func(w pdfWord) bool {
		return strings.HasPrefix(w.S, "The Sugar River") && strings.HasSuffix(w.S, "...")
	}) {
		t.Error("the long payee is not cut short in its column")
	}

	// Layout: page numbers, nothing overlapping, nothing past the margins.
	for n, page := range pages {
		if !strings.Contains(pageText(page), fmt.Sprintf("Page %d of %d", n+1, len(pages))) {
			t.Errorf("page %d is not numbered", n+1)
		}
	}
	checkLayout(t, pages)
}

// TestBoardPacketDefaultsToLastMonth: without ?month= the packet is of
// the last whole month.
func TestBoardPacketDefaultsToLastMonth(t *testing.T) {
	h := budgetedVillage(t)
	board := h.SignedIn("bea", domain.RoleBoard)
	status, _, body := getPDF(t, board, "/staff/books/packet.pdf")
	if status != http.StatusOK {
		t.Fatalf("packet: %d", status)
	}
	if cover := pageText(pdfPages(t, body)[0]); !strings.Contains(cover, "For the month ended May 31, 2027") {
		t.Errorf("the default packet:\n%s", cover)
	}
}

// TestBoardPacketRefused: a month that is not one, or has not ended, is a
// bad request with a sentence saying so and no PDF; a role that does not
// read the books is refused.
func TestBoardPacketRefused(t *testing.T) {
	h := budgetedVillage(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	for _, c := range []struct{ month, want string }{
		{"2027-13", `The month "2027-13" is not a month written as YYYY-MM (?month=2027-05).`},
		{"March", `The month "March" is not a month written as YYYY-MM`},
		{"2027-3", `The month "2027-3" is not a month written as YYYY-MM`},
		{"2027-06", `The month 2027-06 has not ended yet: the packet reports a whole month, the last being 2027-05.`},
		{"2027-09", `has not ended yet`},
	} {
		p := tr.Get("/staff/books/packet.pdf?month=" + c.month)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Text("error"), c.want) || strings.HasPrefix(p.Body, "%PDF") {
			t.Errorf("?month=%s: %d %q, want 400 %q", c.month, p.Status, p.Text("error"), c.want)
		}
	}
	head := h.SignedIn("dana", domain.RoleDepartmentHead)
	if status, ctype, body := getPDF(t, head, "/staff/books/packet.pdf?month=2027-03"); status != http.StatusForbidden || ctype == "application/pdf" || strings.HasPrefix(body, "%PDF") {
		t.Errorf("a department head: %d %s", status, ctype)
	}
}

// wideBooks are books of nine funds with long names and amounts in the
// hundreds of millions, some negative, and no checks: more than a page's
// width of columns.
type wideBooks struct{ unbalanced }

func (wideBooks) funds() []string {
	var out []string
	for i := range 9 {
		out = append(out, fmt.Sprintf("F%d", i+1))
	}
	return out
}

func (b wideBooks) Chart() (domain.Chart, error) {
	var ch domain.Chart
	for i, f := range b.funds() {
		ch.Accounts = append(ch.Accounts, domain.ChartAccount{Code: f, Type: domain.AccountFund, Name: fmt.Sprintf("Tax Incremental District Number %d Capital Projects Fund", i+1), General: i == 0})
	}
	return ch, nil
}

// wideAmount is fund i's figure of row n: large, and negative for every
// third fund.
func wideAmount(i, n int) domain.Money {
	m := domain.MustMoney(fmt.Sprintf("%d%03d%03d.%02d", 100+i*97, n*7, i*13, (i*n)%100))
	if i%3 == 2 {
		return m.Neg()
	}
	return m
}

func (b wideBooks) BalanceSheet(asOf domain.Date) (domain.BalanceSheet, error) {
	bs := domain.BalanceSheet{AsOf: asOf, Funds: b.funds()}
	for si, key := range []string{domain.SectionAssets, domain.SectionLiabilities, domain.SectionFundBalance} {
		s := domain.BalanceSection{Key: key, Title: []string{"Assets", "Liabilities", "Fund balance"}[si], Amounts: make([]domain.Money, len(bs.Funds))}
		for n, c := range []domain.Control{domain.ControlCash, domain.ControlInvestments} {
			row := domain.BalanceRow{Caption: fmt.Sprintf("%s row %d with a caption long enough to need cutting short in its column", s.Title, n), Control: c}
			for i := range bs.Funds {
				a := wideAmount(i, si*2+n)
				row.Amounts = append(row.Amounts, a)
				row.Total = row.Total.Add(a)
				s.Amounts[i] = s.Amounts[i].Add(a)
			}
			s.Total = s.Total.Add(row.Total)
			s.Rows = append(s.Rows, row)
		}
		bs.Sections = append(bs.Sections, s)
	}
	for _, f := range bs.Funds {
		bs.Positions = append(bs.Positions, domain.FundPosition{Fund: f})
	}
	return bs, nil
}

func (b wideBooks) FundStatementThrough(fund string, through domain.Date) (domain.MonthStatement, error) {
	row := func(major string, n int) domain.MonthRow {
		a := wideAmount(n, n)
		return domain.MonthRow{StatementRow: domain.StatementRow{Major: major, Original: a, Final: a.Add(a), Actual: a.Neg(), Variance: a.Add(a).Add(a)}, Month: a.Neg()}
	}
	return domain.MonthStatement{Fund: fund, From: domain.NewDate(through.Year(), through.Month(), 1), Through: through, Adopted: true, RevenueBudget: true,
		Revenues:      []domain.MonthRow{row("Intergovernmental revenues of a kind whose name runs longer than its column", 5)},
		TotalRevenues: row("Total revenues", 8), Expenditures: []domain.MonthRow{row("Public works", 2)}, TotalExpenditures: row("Total expenditures", 7),
		NetChange: wideAmount(2, 2), MonthNetChange: wideAmount(5, 1), Beginning: wideAmount(8, 8), Ending: wideAmount(1, 1)}, nil
}

func (wideBooks) CheckRegister(month string) ([]domain.CheckRecord, error) { return nil, nil }

// TestBoardPacketWideBooks: funds too many for one table's width go in
// tables of as many columns as fit, the total in the last; every amount is
// printed whole, right-aligned within the margins, and no two words on a
// line overlap. A month without checks says so.
func TestBoardPacketWideBooks(t *testing.T) {
	b := wideBooks{}
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.NewFrom(b)}})
	h.SetClock(time.Date(2027, 7, 15, 9, 0, 0, 0, h.Loc))
	status, _, body := getPDF(t, h.SignedIn("audrey", domain.RoleAuditor), "/staff/books/packet.pdf?month=2027-06")
	if status != http.StatusOK {
		t.Fatalf("packet: %d %.300s", status, body)
	}
	pages := pdfPages(t, body)
	all := slices.Concat(pages...)
	text := pageText(all)
	if !strings.Contains(text, "Columns 1 of 2") || !strings.Contains(text, "Columns 2 of 2") || !strings.Contains(text, "No checks were written in June 2027.") {
		t.Errorf("the packet:\n%s", text)
	}
	bs, _ := b.BalanceSheet(domain.MustDate("2027-06-30"))
	for _, s := range bs.Sections {
		for _, row := range s.Rows {
			for _, a := range append(row.Amounts, row.Total) {
				if !slices.ContainsFunc(all, func(w pdfWord) bool { return w.S == staff.Accounting(a) }) {
					t.Errorf("%s is not printed whole", staff.Accounting(a))
				}
			}
		}
	}
	checkLayout(t, pages)
}

// checkLayout fails the test when a text of a landscape Letter page with
// 14 mm margins runs past them, when an amount is cut short, or when two
// texts are drawn over each other.
func checkLayout(t *testing.T, pages [][]pdfWord) {
	t.Helper()
	var all []pdfcheck.Page
	for n, p := range pages {
		all = append(all, pdfcheck.Page{N: n + 1, Width: 279.4, Height: 215.9, Texts: p})
	}
	for _, p := range pdfcheck.Check(all, pdfcheck.Layout{Left: 14, Right: 14}) {
		t.Error(p)
	}
}
