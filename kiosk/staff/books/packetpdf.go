package books

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// packet is what the board's monthly packet prints: the books as of the
// end of the month ending Through.
type packet struct {
	Village    string
	Through    domain.Date
	Prepared   domain.Date
	Chart      domain.Chart
	Sheet      domain.BalanceSheet
	Statements []domain.MonthStatement // a fund each, in the balance sheet's order
	Checks     []domain.CheckRecord
}

// The packet's parts, in the order it prints them.
const (
	partCash     = "Cash and investments by fund"
	partSheet    = "Balance sheet by fund"
	partRegister = "Check register"
)

// cashControls are the balance sheet's rows of money the village holds:
// in its depositories, received and not yet deposited, and invested.
var cashControls = []domain.Control{domain.ControlCash, domain.ControlUndeposited, domain.ControlInvestments}

// packetPDF writes the packet. The cover's contents name the page each
// part starts on, which is known once the parts are laid out: the packet
// is laid out once to learn them and again to print them (the cover is as
// long either way).
func packetPDF(out *bytes.Buffer, p packet, stamp time.Time) error {
	first := layoutPacket(p, stamp, nil)
	var starts []int
	for _, e := range first.toc {
		starts = append(starts, e.page)
	}
	final := layoutPacket(p, stamp, starts)
	return final.r.Output(out)
}

type tocEntry struct {
	title string
	page  int
}

type packetLayout struct {
	r   *staff.Report
	toc []tocEntry
}

// partTitles are the titles of the parts after the cover, in order.
func (p packet) partTitles() []string {
	titles := []string{partCash, partSheet}
	for _, st := range p.Statements {
		titles = append(titles, "Revenues and expenditures, budget to actual: "+p.fundName(st.Fund))
	}
	return append(titles, partRegister)
}

// fundName is a fund's code and name, as the columns and titles show it.
func (p packet) fundName(code string) string {
	for _, a := range p.Chart.Accounts {
		if a.Code == code && a.Type == domain.AccountFund && a.Name != "" {
			return code + " " + a.Name
		}
	}
	return code
}

func layoutPacket(p packet, stamp time.Time, starts []int) packetLayout {
	month := p.Through.Month().String() + " " + fmt.Sprint(p.Through.Year())
	r := staff.NewReport(p.Village, "Monthly financial report, "+month, "L", stamp)
	l := packetLayout{r: r}
	ended := "For the month ended " + longDate(p.Through)

	// The cover.
	r.Part("Monthly financial report", ended)
	r.PDF.Ln(4)
	r.Text(month, 16, "B")
	r.PDF.Ln(2)
	r.Text("Prepared "+longDate(p.Prepared)+" for the Village Board, from the village's books as of "+longDate(p.Through)+".", 10, "")
	r.PDF.Ln(6)
	r.Heading("Contents")
	pageW := r.AmountWidth("Page", "9999")
	toc := r.Table([]staff.Column{{Title: "Part", Width: r.Width - pageW}, {Title: "Page", Width: pageW, Amount: true}})
	for i, t := range p.partTitles() {
		page := ""
		if i < len(starts) {
			page = fmt.Sprint(starts[i])
		}
		toc.Row(fmt.Sprintf("%d. %s", i+1, t), page)
	}
	toc.End()
	r.Text("Amounts in parentheses are negative. Revenues and expenditures are those the books count: a bill when it is issued, a claim when it is allowed. The year to date runs from January 1 through the month's last day.", 8.5, "")

	titles := p.partTitles()
	start := func(title string) {
		r.Part(title, ended)
		l.toc = append(l.toc, tocEntry{title: title, page: r.Pages()})
	}

	start(titles[0])
	cashPart(r, p)
	start(titles[1])
	sheetPart(r, p)
	for i, st := range p.Statements {
		start(titles[2+i])
		statementPart(r, p, st)
	}
	start(titles[len(titles)-1])
	registerPart(r, p)
	return l
}

// fundColumns lays out a table of funds in columns after a caption
// column, with a total column: as many funds a table as fit the page,
// the total in the last. Each group of columns is an index into the
// balance sheet's funds, -1 for the total.
func fundColumns(r *staff.Report, p packet, captionW, amountW float64) [][]int {
	per := max(1, int((r.Width-captionW)/amountW))
	all := make([]int, 0, len(p.Sheet.Funds)+1)
	for i := range p.Sheet.Funds {
		all = append(all, i)
	}
	all = append(all, -1)
	var groups [][]int
	for len(all) > 0 {
		n := min(per, len(all))
		groups = append(groups, all[:n])
		all = all[n:]
	}
	return groups
}

// fundTable draws rows of amounts by fund, in as many tables as the
// funds need; rows is called once a table with the cell of each column
// chosen.
func fundTable(r *staff.Report, p packet, caption string, amounts []string, rows func(t *staff.Table, cell func(amounts []domain.Money, total domain.Money) []string)) {
	amountW := r.AmountWidth("Total", amounts...)
	for _, f := range p.Sheet.Funds {
		amountW = max(amountW, r.AmountWidth(p.fundName(f)))
	}
	amountW = max(amountW, 26)
	captionW := min(80, r.Width-amountW)
	groups := fundColumns(r, p, captionW, amountW)
	for gi, g := range groups {
		if len(groups) > 1 {
			r.Heading(fmt.Sprintf("Columns %d of %d", gi+1, len(groups)))
		}
		cols := []staff.Column{{Title: caption, Width: r.Width - amountW*float64(len(g))}}
		for _, i := range g {
			title := "Total"
			if i >= 0 {
				title = p.fundName(p.Sheet.Funds[i])
			}
			cols = append(cols, staff.Column{Title: title, Width: amountW, Amount: true})
		}
		t := r.Table(cols)
		rows(t, func(byFund []domain.Money, total domain.Money) []string {
			var out []string
			for _, i := range g {
				if i < 0 {
					out = append(out, staff.Accounting(total))
				} else {
					out = append(out, staff.Accounting(byFund[i]))
				}
			}
			return out
		})
		t.End()
	}
}

// sheetAmounts are every amount of the balance sheet, written, to size
// its columns.
func sheetAmounts(bs domain.BalanceSheet) []string {
	var out []string
	add := func(ms ...domain.Money) {
		for _, m := range ms {
			out = append(out, staff.Accounting(m))
		}
	}
	for _, s := range bs.Sections {
		add(s.Amounts...)
		add(s.Total)
		for _, row := range s.Rows {
			add(row.Amounts...)
			add(row.Total)
		}
	}
	for _, q := range bs.Positions {
		add(claimsOn(q), q.Difference())
	}
	add(claimsOn(bs.Total), bs.Total.Difference())
	return out
}

func cashPart(r *staff.Report, p packet) {
	bs := p.Sheet
	var rows []domain.BalanceRow
	for _, s := range bs.Sections {
		if s.Key != domain.SectionAssets {
			continue
		}
		for _, c := range cashControls {
			for _, row := range s.Rows {
				if row.Control == c {
					rows = append(rows, row)
				}
			}
		}
	}
	if len(rows) == 0 {
		r.Text("The books hold no cash, receipts not yet deposited or investments at the end of "+longDate(p.Through)+".", 10, "")
		return
	}
	r.Text("What each fund holds in the village's depositories, in receipts not yet deposited and in investments at the end of the month, as the balance sheet shows it.", 9, "")
	r.PDF.Ln(2)
	byFund := make([]domain.Money, len(bs.Funds))
	var total domain.Money
	for _, row := range rows {
		for i, a := range row.Amounts {
			byFund[i] = byFund[i].Add(a)
		}
		total = total.Add(row.Total)
	}
	amounts := []string{staff.Accounting(total)}
	for _, row := range rows {
		for _, a := range append(row.Amounts, row.Total) {
			amounts = append(amounts, staff.Accounting(a))
		}
	}
	for _, a := range byFund {
		amounts = append(amounts, staff.Accounting(a))
	}
	fundTable(r, p, "", amounts, func(t *staff.Table, cell func([]domain.Money, domain.Money) []string) {
		for _, row := range rows {
			t.Row(append([]string{row.Caption}, cell(row.Amounts, row.Total)...)...)
		}
		t.Final(append([]string{"Total cash and investments"}, cell(byFund, total)...)...)
	})
}

func sheetPart(r *staff.Report, p packet) {
	bs := p.Sheet
	if len(bs.Funds) == 0 {
		r.Text("Nothing was posted to the books by the end of "+longDate(p.Through)+".", 10, "")
		return
	}
	fundTable(r, p, "", sheetAmounts(bs), func(t *staff.Table, cell func([]domain.Money, domain.Money) []string) {
		for _, s := range bs.Sections {
			t.Subhead(s.Title)
			if len(s.Rows) == 0 {
				t.Row("   None")
				continue
			}
			for _, row := range s.Rows {
				t.Row(append([]string{"   " + row.Caption}, cell(row.Amounts, row.Total)...)...)
			}
			t.Total(append([]string{"Total " + strings.ToLower(s.Title)}, cell(s.Amounts, s.Total)...)...)
		}
		claims := make([]domain.Money, len(bs.Funds))
		for i, q := range bs.Positions {
			claims[i] = claimsOn(q)
		}
		t.Final(append([]string{"Total liabilities, deferred inflows and fund balance"}, cell(claims, claimsOn(bs.Total))...)...)
		if !bs.Balanced() {
			diff := make([]domain.Money, len(bs.Funds))
			for i, q := range bs.Positions {
				diff[i] = q.Difference()
			}
			t.Row(append([]string{"Does not balance, by"}, cell(diff, bs.Total.Difference())...)...)
		}
	})
}

// percentOf is actual as a whole percentage of budget, "" without a
// budget.
func percentOf(actual, budget domain.Money) string {
	if budget.IsZero() {
		return ""
	}
	return actual.Decimal().Mul(decimal.NewFromInt(100)).Div(budget.Decimal()).Round(0).String() + "%"
}

func statementPart(r *staff.Report, p packet, st domain.MonthStatement) {
	switch {
	case !st.Adopted:
		r.Text(fmt.Sprintf("No budget for %d is adopted: the budget columns are empty.", st.Through.Year()), 9, "")
	case !st.RevenueBudget:
		r.Text("The adopted budget estimates no revenue of this fund: its revenues show the actuals only.", 9, "")
	}
	r.Text(fmt.Sprintf("The month is %s through %s; the year to date runs from January 1. Variance is favourable when positive: actual less budget for revenues, budget less actual for expenditures.", longDate(st.From), longDate(st.Through)), 9, "")
	r.PDF.Ln(2)
	type line struct {
		row    domain.MonthRow
		budget bool
	}
	format := func(l line) []string {
		cells := []string{"   " + l.row.Major, "", "", staff.Accounting(l.row.Month), staff.Accounting(l.row.Actual), "", ""}
		if l.budget {
			cells[1], cells[2] = staff.Accounting(l.row.Original), staff.Accounting(l.row.Final)
			cells[5], cells[6] = staff.Accounting(l.row.Variance), percentOf(l.row.Actual, l.row.Final)
		}
		return cells
	}
	revBudget := st.Adopted && st.RevenueBudget
	var lines []line
	for _, row := range st.Revenues {
		lines = append(lines, line{row, revBudget})
	}
	lines = append(lines, line{st.TotalRevenues, revBudget})
	for _, row := range st.Expenditures {
		lines = append(lines, line{row, st.Adopted})
	}
	lines = append(lines, line{st.TotalExpenditures, st.Adopted})
	var amounts []string
	for _, l := range lines {
		amounts = append(amounts, format(l)[1:]...)
	}
	netBudget := st.TotalRevenues.Final.Sub(st.TotalExpenditures.Final)
	amounts = append(amounts, staff.Accounting(netBudget), staff.Accounting(st.MonthNetChange), staff.Accounting(st.NetChange),
		staff.Accounting(st.Beginning), staff.Accounting(st.OtherChanges), staff.Accounting(st.Ending))

	titles := []string{"Original budget", "Final budget", "Month", "Year to date", "Variance", "Percent of budget"}
	amountW := 26.0
	for _, t := range titles {
		amountW = max(amountW, r.AmountWidth(t, amounts...))
	}
	cols := []staff.Column{{Title: "", Width: r.Width - amountW*float64(len(titles))}}
	for _, t := range titles {
		cols = append(cols, staff.Column{Title: t, Width: amountW, Amount: true})
	}
	t := r.Table(cols)
	t.Subhead("Revenues")
	if len(st.Revenues) == 0 {
		t.Row("   None")
	}
	for _, l := range lines[:len(st.Revenues)] {
		t.Row(format(l)...)
	}
	t.Total(append([]string{st.TotalRevenues.Major}, format(lines[len(st.Revenues)])[1:]...)...)
	t.Subhead("Expenditures")
	if len(st.Expenditures) == 0 {
		t.Row("   None")
	}
	for _, l := range lines[len(st.Revenues)+1 : len(lines)-1] {
		t.Row(format(l)...)
	}
	t.Total(append([]string{st.TotalExpenditures.Major}, format(lines[len(lines)-1])[1:]...)...)
	net := []string{"Revenues less expenditures", "", "", staff.Accounting(st.MonthNetChange), staff.Accounting(st.NetChange), "", ""}
	if revBudget {
		net[2] = staff.Accounting(netBudget)
	}
	t.Final(net...)
	t.End()

	r.Heading("Fund balance")
	fb := r.Table([]staff.Column{{Title: "", Width: r.Width - amountW}, {Title: "Amount", Width: amountW, Amount: true}})
	fb.Row(fmt.Sprintf("Fund balance, January 1, %d", st.Through.Year()), staff.Accounting(st.Beginning))
	fb.Row("Revenues less expenditures, year to date", staff.Accounting(st.NetChange))
	if !st.OtherChanges.IsZero() {
		fb.Row("Other changes in fund balance", staff.Accounting(st.OtherChanges))
	}
	fb.Final("Fund balance, "+longDate(st.Through), staff.Accounting(st.Ending))
	fb.End()
}

func registerPart(r *staff.Report, p packet) {
	var total domain.Money
	voided := 0
	for _, c := range p.Checks {
		if c.Void != nil {
			voided++
			continue
		}
		total = total.Add(c.Amount)
	}
	if len(p.Checks) == 0 {
		r.Text("No checks were written in "+p.Through.Month().String()+" "+fmt.Sprint(p.Through.Year())+".", 10, "")
		return
	}
	r.Text(fmt.Sprintf("Every claim and refund check written in the month (Village Code §5.07(4)), by number: %d written, %d of them voided. A voided check counts nothing in the total.", len(p.Checks), voided), 9, "")
	r.PDF.Ln(2)
	amounts := []string{staff.Accounting(total), "void"}
	for _, c := range p.Checks {
		amounts = append(amounts, staff.Accounting(c.Amount))
	}
	amountW := max(24, r.AmountWidth("Amount", amounts...))
	fixed := 20.0 + 16 + 36 + 26 + amountW + 44
	flex := r.Width - fixed
	t := r.Table([]staff.Column{
		{Title: "Date", Width: 20}, {Title: "Check", Width: 16}, {Title: "Payee", Width: flex * 0.45}, {Title: "Purpose", Width: flex * 0.55},
		{Title: "Claim or refund", Width: 36}, {Title: "Appropriation", Width: 26}, {Title: "Void", Width: 44}, {Title: "Amount", Width: amountW, Amount: true},
	})
	for _, c := range p.Checks {
		pays := c.Claim
		if c.Refund != "" {
			pays = "refund, bill " + c.Bill
		}
		amount, void := staff.Accounting(c.Amount), ""
		if c.Void != nil {
			amount, void = "void", "Void ("+staff.Accounting(c.Amount)+"): "+c.Void.Reason
		}
		t.Row(c.On.String(), fmt.Sprint(c.Number), c.Payee, c.Purpose, pays, c.Line, void, amount)
	}
	t.Final("", "", "Total", "", "", "", "", staff.Accounting(total))
	t.End()
}
