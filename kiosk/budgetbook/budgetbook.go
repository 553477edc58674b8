// Package budgetbook writes the village budget for citizens as one PDF
// (§5.02(5) and (6) of the Village Code; Wis. Stat. 65.90): the proposed
// budget from the publication of the notice of its hearing, the adopted
// budget after, with the summary by fund the ordinance asks for. The
// resident kiosk serves it; the office prints the same book.
package budgetbook

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Book is what the budget book is printed from.
type Book struct {
	Village string
	View    domain.BudgetView
	Chart   domain.Chart
	// Hearing is the day of the hearing: the one the notice names while
	// the budget is proposed, or the one held.
	Hearing domain.Date
}

// Proposed reports whether the book is of a budget not adopted yet.
func (b Book) Proposed() bool { return b.View.Budget.Status != domain.BudgetAdopted }

// Status is the line under the book's title: "Proposed — hearing on
// November 10, 2026" or "Adopted by the Village Board on November 10,
// 2026".
func (b Book) Status() string {
	if b.Proposed() {
		if b.Hearing.IsZero() {
			return "Proposed — hearing to be announced"
		}
		return "Proposed — hearing on " + LongDate(b.Hearing)
	}
	s := "Adopted by the Village Board on " + LongDate(b.View.Budget.AdoptedOn)
	if n := b.View.Budget.Amendments; n == 1 {
		s += ", amended once since"
	} else if n > 1 {
		s += fmt.Sprintf(", amended %d times since", n)
	}
	return s
}

// LongDate writes a date as "November 10, 2026".
func LongDate(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s %d, %d", d.Month(), d.Day(), d.Year())
}

// pdfText is s with the characters the core fonts' code page lacks
// written with ones it has: the minus sign of a signed change as an en
// dash.
func pdfText(s string) string { return strings.ReplaceAll(s, "−", "–") }

// IsLevy reports whether a revenue account is the property tax levy: an
// account that collects the property tax (domain.SourcePropertyTax), or a
// tax whose name says it is the general property tax.
func IsLevy(a domain.ChartAccount) bool {
	if a.Type != domain.AccountRevenue {
		return false
	}
	for _, s := range a.Sources {
		if s == domain.SourcePropertyTax {
			return true
		}
	}
	return strings.EqualFold(a.Major, "Taxes") && strings.Contains(strings.ToLower(a.Name), "property tax")
}

// Write writes the book, dated stamp (the budget's last change, so that
// the same budget renders the same bytes).
func Write(out *bytes.Buffer, b Book, stamp time.Time) error {
	bv := b.View
	year := bv.Budget.Year
	name := fmt.Sprintf("Budget for %d", year)
	if b.Proposed() {
		name = fmt.Sprintf("Proposed budget for %d", year)
	}
	r := staff.NewReport(b.Village, name, "P", stamp)
	status := b.Status()

	// The summary of §5.02(5), all funds together.
	r.Part(name, pdfText(status))
	r.Text(fmt.Sprintf("The %s of the %s for %d, for citizens (Village Code §5.02(5) and (6); Wis. Stat. 65.90). "+
		"Each table sets this budget beside the budget in effect (%d) and the budget of the year before it (%d); the change is from the budget in effect.",
		map[bool]string{true: "proposed budget", false: "budget"}[b.Proposed()], b.Village, year, year-1, year-2), 9.5, "")
	r.PDF.Ln(2)
	this := fmt.Sprintf("%d %s", year, map[bool]string{true: "proposed", false: "adopted"}[b.Proposed()])
	s := bv.Summary
	var amounts []string
	for _, rows := range [][]domain.SummaryRow{s.Revenues, s.Expenditures, s.Sources, s.Uses, s.Balances, {s.TotalExpend, s.TotalRevenue}} {
		for _, row := range rows {
			amounts = append(amounts, staff.Accounting(row.Preceding), staff.Accounting(row.InEffect), staff.Accounting(row.Proposed),
				staff.Accounting(row.PrecedingEnd), staff.Accounting(row.InEffectEnd), staff.Accounting(row.ProposedEnd))
		}
	}
	aw := r.AmountWidth("9999 proposed", amounts...)
	cw := r.AmountWidth("Change", "+99,999.9%")
	cols := func(first string) []staff.Column {
		return []staff.Column{{Title: first, Width: r.Width - 3*aw - cw}, {Title: fmt.Sprintf("%d budget", year-2), Width: aw, Amount: true},
			{Title: fmt.Sprintf("%d budget", year-1), Width: aw, Amount: true}, {Title: this, Width: aw, Amount: true}, {Title: "Change", Width: cw, Amount: true}}
	}
	summary := func(title string, rows []domain.SummaryRow, total *domain.SummaryRow) {
		if len(rows) == 0 {
			return
		}
		t := r.Table(cols(title))
		for _, row := range rows {
			t.Row(row.Label, staff.Accounting(row.Preceding), staff.Accounting(row.InEffect), staff.Accounting(row.Proposed), row.Change)
		}
		if total != nil {
			t.Total("Total", staff.Accounting(total.Preceding), staff.Accounting(total.InEffect), staff.Accounting(total.Proposed), total.Change)
		}
		t.End()
	}
	summary("Revenues by major source", s.Revenues, &s.TotalRevenue)
	summary("Expenditures by major category", s.Expenditures, &s.TotalExpend)
	summary("Other financing sources", s.Sources, nil)
	summary("Other financing uses", s.Uses, nil)
	if len(s.Balances) > 0 {
		t := r.Table(cols("Fund balances"))
		for _, row := range s.Balances {
			t.Row(row.Label+", beginning of year", staff.Accounting(row.Preceding), staff.Accounting(row.InEffect), staff.Accounting(row.Proposed), "")
			t.Row(row.Label+", end of year", staff.Accounting(row.PrecedingEnd), staff.Accounting(row.InEffectEnd), staff.Accounting(row.ProposedEnd), row.Change)
		}
		t.End()
	}

	// Each fund: what it takes in, the levy, what it spends, and its
	// balances, beside the budget in effect.
	r.Part("By fund", pdfText(status))
	r.Text(fmt.Sprintf("Each fund's revenues, property tax levy, expenditures and balances in this budget, beside the budget in effect (%d).", year-1), 9.5, "")
	r.PDF.Ln(2)
	fw := r.AmountWidth(fmt.Sprintf("%d budget", year-1), amounts...)
	for _, f := range bv.Funds {
		type sums struct{ inEffect, proposed domain.Money }
		revenue, expend := map[string]*sums{}, map[string]*sums{}
		var revOrder, expOrder []string
		var levy, totRev, totExp sums
		for _, l := range bv.Lines {
			if l.Account.Fund != f.Fund.Code {
				continue
			}
			m, order := expend, &expOrder
			if l.Account.Type == domain.AccountRevenue {
				m, order = revenue, &revOrder
			}
			major := l.Account.Major
			if major == "" {
				major = l.Account.Name
			}
			if m[major] == nil {
				m[major] = &sums{}
				*order = append(*order, major)
			}
			m[major].inEffect, m[major].proposed = m[major].inEffect.Add(l.InEffect), m[major].proposed.Add(l.Proposed)
			if l.Account.Type == domain.AccountRevenue {
				totRev.inEffect, totRev.proposed = totRev.inEffect.Add(l.InEffect), totRev.proposed.Add(l.Proposed)
				if IsLevy(l.Account) {
					levy.inEffect, levy.proposed = levy.inEffect.Add(l.InEffect), levy.proposed.Add(l.Proposed)
				}
			} else {
				totExp.inEffect, totExp.proposed = totExp.inEffect.Add(l.InEffect), totExp.proposed.Add(l.Proposed)
			}
		}
		r.Heading(f.Fund.Code + " " + f.Fund.Name)
		t := r.Table([]staff.Column{{Title: "", Width: r.Width - 2*fw - cw}, {Title: fmt.Sprintf("%d budget", year-1), Width: fw, Amount: true},
			{Title: this, Width: fw, Amount: true}, {Title: "Change", Width: cw, Amount: true}})
		row := func(label string, x sums, total bool) {
			cells := []string{label, staff.Accounting(x.inEffect), staff.Accounting(x.proposed), domain.PercentChange(x.inEffect, x.proposed)}
			if total {
				t.Total(cells...)
			} else {
				t.Row(cells...)
			}
		}
		t.Subhead("Revenues")
		for _, k := range revOrder {
			row(k, *revenue[k], false)
		}
		row("Total revenues", totRev, true)
		row("Of which the property tax levy", levy, false)
		t.Subhead("Expenditures")
		for _, k := range expOrder {
			row(k, *expend[k], false)
		}
		row("Total expenditures", totExp, true)
		t.Subhead("Balances")
		t.Row("Other financing sources", "", staff.Accounting(f.Sources), "")
		t.Row("Other financing uses", "", staff.Accounting(f.Uses), "")
		t.Row("Fund balance, beginning of year", "", staff.Accounting(f.Beginning), "")
		t.Final("Fund balance, end of year", "", staff.Accounting(f.Ending), "")
		t.End()
	}

	// The appropriations line by line, by department, committee,
	// commission and board; then the anticipated revenue.
	r.Part("Appropriations and revenues", pdfText(status))
	lw := r.AmountWidth(this, amounts...)
	units := map[string][]domain.BudgetViewLine{}
	var unitOrder []string
	var revenues []domain.BudgetViewLine
	for _, l := range bv.Lines {
		if l.Account.Type == domain.AccountRevenue {
			revenues = append(revenues, l)
			continue
		}
		if _, ok := units[l.Account.Unit]; !ok {
			unitOrder = append(unitOrder, l.Account.Unit)
		}
		units[l.Account.Unit] = append(units[l.Account.Unit], l)
	}
	for _, u := range unitOrder {
		title := u
		if a, ok := b.Chart.Account(u); ok {
			title = a.Name
		}
		t := r.Table([]staff.Column{{Title: title, Width: r.Width - 2*lw}, {Title: fmt.Sprintf("%d budget", year-1), Width: lw, Amount: true}, {Title: this, Width: lw, Amount: true}})
		var in, pr domain.Money
		for _, l := range units[u] {
			label := l.Account.Code + " " + l.Account.Name
			if l.Continuing {
				label += " (continuing: " + l.Purpose + ")"
			}
			t.Row(label, staff.Accounting(l.InEffect), staff.Accounting(l.Proposed))
			in, pr = in.Add(l.InEffect), pr.Add(l.Proposed)
		}
		t.Total("Total", staff.Accounting(in), staff.Accounting(pr))
		t.End()
	}
	if len(revenues) > 0 {
		t := r.Table([]staff.Column{{Title: "Anticipated revenue", Width: r.Width - 2*lw}, {Title: fmt.Sprintf("%d budget", year-1), Width: lw, Amount: true}, {Title: this, Width: lw, Amount: true}})
		for _, l := range revenues {
			t.Row(l.Account.Code+" "+l.Account.Name, staff.Accounting(l.InEffect), staff.Accounting(l.Proposed))
		}
		t.End()
	}
	if len(bv.Budget.Debts) > 0 {
		dw := r.AmountWidth("Due in 9999", amounts...)
		r.Heading("Existing indebtedness")
		t := r.Table([]staff.Column{{Title: "Debt", Width: r.Width - 2*dw}, {Title: "Outstanding", Width: dw, Amount: true}, {Title: fmt.Sprintf("Due in %d", year), Width: dw, Amount: true}})
		for _, d := range bv.Budget.Debts {
			t.Row(d.Description, staff.Accounting(d.Outstanding), staff.Accounting(d.DueInYear))
		}
		t.End()
	}

	// The amendments since the adoption (§5.04), each change signed: it is
	// added to the line or taken from it, never its new total.
	var amended []domain.BudgetVoteRecord
	for _, v := range bv.Budget.Votes {
		if v.Action == domain.BudgetAmend && v.Passed {
			amended = append(amended, v)
		}
	}
	if len(amended) > 0 {
		r.Heading("Amendments since the adoption")
		r.Text("Each change is added to the line or taken from it by a two-thirds vote of the entire board (§5.04); the amounts above include them.", 9, "")
		var changes []string
		for _, v := range amended {
			for _, c := range v.Changes {
				changes = append(changes, pdfText(c.Change.Change()))
			}
		}
		chw := r.AmountWidth("Change", changes...)
		for _, v := range amended {
			title := fmt.Sprintf("Amendment %d, %s", v.Amendment, LongDate(v.On))
			if v.Purpose != "" {
				title += ": " + v.Purpose
			}
			t := r.Table([]staff.Column{{Title: title, Width: r.Width - chw}, {Title: "Change", Width: chw, Amount: true}})
			for _, c := range v.Changes {
				label := c.Account
				if a, ok := b.Chart.Account(c.Account); ok {
					label += " " + a.Name
				}
				t.Row(label, pdfText(c.Change.Change()))
			}
			t.End()
		}
	}
	for _, sec := range bv.Budget.Sections {
		r.Heading(sec.Title)
		r.Text(sec.Body, 9.5, "")
	}
	return r.Output(out)
}
