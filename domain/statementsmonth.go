package domain

import (
	"cmp"
	"slices"
	"strings"
)

// A fund's statement of revenues, expenditures and changes in fund
// balance read through a day of the year, with the month that day ends
// beside the year to date: the budget to actual of the Village Board's
// monthly financial report. The budget figures are the year's statement's
// (FundStatement); only the actuals and the fund balance are read to the
// day, so a month's report and the year's statement never disagree on a
// budget.

// MonthRow is a major source or category, or a total, of a month's
// statement. Its StatementRow's Actual is the year to date through the
// statement's day and its Variance is against it (favourable when
// positive); Month is the actual of the month alone.
type MonthRow struct {
	StatementRow
	Month Money
}

// MonthStatement is a fund's statement through the last day of a month
// (Through), the month being the days from From to Through. Revenues and
// Expenditures are by major, in the order the chart first names each.
type MonthStatement struct {
	Fund          string
	From, Through Date
	// Adopted and RevenueBudget are the year's statement's.
	Adopted       bool
	RevenueBudget bool
	Revenues      []MonthRow
	Expenditures  []MonthRow
	// TotalRevenues and TotalExpenditures sum the rows.
	TotalRevenues     MonthRow
	TotalExpenditures MonthRow
	// NetChange and MonthNetChange are revenues less expenditures, year to
	// date and of the month.
	NetChange      Money
	MonthNetChange Money
	// OtherChanges are the postings straight to the fund's balance from
	// January 1 through Through (the opening entry of the books).
	OtherChanges Money
	// Beginning is the fund balance at the start of the year, Ending the
	// fund balance at the end of Through: Beginning + NetChange +
	// OtherChanges, the balance sheet's of that day.
	Beginning Money
	Ending    Money
}

// FundStatementThrough returns fund's statement for the month that
// through ends: the year's budget by major (FundStatement of through's
// year), the actual year to date through the end of through and the
// actual of the days from the first of through's month (LineActivity).
// Encumbrances are the year's statement's: as they stand now, not as of
// through. A major is shown when it has a budget figure, an encumbrance or
// an actual year to date or in the month; a line whose year's actual came
// after through, and that has no budget, is left out. A fund the chart
// does not hold is ENOTFOUND.
func (x Reads) FundStatementThrough(fund string, through Date) (MonthStatement, error) {
	year := through.Year()
	st, err := x.FundStatement(year, fund)
	if err != nil {
		return MonthStatement{}, err
	}
	ch, err := x.Chart()
	if err != nil {
		return MonthStatement{}, err
	}
	var lines, balances []ChartAccount
	for _, a := range ch.Accounts {
		switch {
		case a.Fund != fund:
		case a.Type.Line():
			lines = append(lines, a)
		case a.Type == AccountFundBalance && !a.Control.Budgetary():
			balances = append(balances, a)
		}
	}
	from := NewDate(year, through.Month(), 1)
	ytd, err := x.LineActivity(lines, year, through)
	if err != nil {
		return MonthStatement{}, err
	}
	before := map[string]Money{}
	if from.Month() != 1 {
		if before, err = x.LineActivity(lines, year, from.AddDays(-1)); err != nil {
			return MonthStatement{}, err
		}
	}
	other, err := x.LineActivity(balances, year, through)
	if err != nil {
		return MonthStatement{}, err
	}

	ms := MonthStatement{Fund: fund, From: from, Through: through, Adopted: st.Adopted, RevenueBudget: st.RevenueBudget, Beginning: st.Beginning}
	group := func(t AccountType, budget []StatementRow) []MonthRow {
		// The budget of each major, from the year's statement.
		byMajor := map[string]StatementRow{}
		for _, r := range budget {
			byMajor[r.Major] = r
		}
		var out []MonthRow
		for _, a := range lines {
			if a.Type != t {
				continue
			}
			major := cmp.Or(strings.TrimSpace(a.Major), noMajor)
			b, budgeted := byMajor[major]
			inBudget := budgeted && slices.Contains(b.Accounts, a.Code)
			actual, month := ytd[a.Code], ytd[a.Code].Sub(before[a.Code])
			if !inBudget && actual.IsZero() && month.IsZero() {
				continue
			}
			i := slices.IndexFunc(out, func(r MonthRow) bool { return r.Major == major })
			if i < 0 {
				r := MonthRow{StatementRow: StatementRow{Major: major}}
				if budgeted {
					r.Original, r.Amendments, r.Carried, r.Final, r.Encumbrances = b.Original, b.Amendments, b.Carried, b.Final, b.Encumbrances
				}
				out = append(out, r)
				i = len(out) - 1
			}
			out[i].Accounts = append(out[i].Accounts, a.Code)
			out[i].Actual = out[i].Actual.Add(actual)
			out[i].Month = out[i].Month.Add(month)
		}
		return slices.DeleteFunc(out, func(r MonthRow) bool {
			return r.Original.IsZero() && r.Amendments.IsZero() && r.Carried.IsZero() && r.Final.IsZero() && r.Encumbrances.IsZero() && r.Actual.IsZero() && r.Month.IsZero()
		})
	}
	variance := func(t AccountType, r *MonthRow) {
		if t == AccountRevenue {
			r.Variance = r.Actual.Sub(r.Final)
		} else {
			r.Variance = r.Final.Sub(r.Actual)
		}
	}
	ms.Revenues, ms.Expenditures = group(AccountRevenue, st.Revenues), group(AccountExpenditure, st.Expenditures)
	ms.TotalRevenues = MonthRow{StatementRow: StatementRow{Major: st.TotalRevenues.Major}}
	ms.TotalExpenditures = MonthRow{StatementRow: StatementRow{Major: st.TotalExpenditures.Major}}
	for i := range ms.Revenues {
		variance(AccountRevenue, &ms.Revenues[i])
		ms.TotalRevenues.add(ms.Revenues[i].StatementRow)
		ms.TotalRevenues.Month = ms.TotalRevenues.Month.Add(ms.Revenues[i].Month)
	}
	for i := range ms.Expenditures {
		variance(AccountExpenditure, &ms.Expenditures[i])
		ms.TotalExpenditures.add(ms.Expenditures[i].StatementRow)
		ms.TotalExpenditures.Month = ms.TotalExpenditures.Month.Add(ms.Expenditures[i].Month)
	}
	ms.NetChange = ms.TotalRevenues.Actual.Sub(ms.TotalExpenditures.Actual)
	ms.MonthNetChange = ms.TotalRevenues.Month.Sub(ms.TotalExpenditures.Month)
	for _, a := range balances {
		ms.OtherChanges = ms.OtherChanges.Add(other[a.Code])
	}
	ms.Ending = ms.Beginning.Add(ms.NetChange).Add(ms.OtherChanges)
	return ms, nil
}
