package domain

import (
	"fmt"
	"testing"
)

// wantMonthRow compares a month's statement row with figures: final
// budget, month, year to date, variance.
func wantMonthRow(t *testing.T, r MonthRow, major string, figures ...string) {
	t.Helper()
	got := []string{r.Final.String(), r.Month.String(), r.Actual.String(), r.Variance.String()}
	if r.Major != major || fmt.Sprint(got) != fmt.Sprint(figures) {
		t.Errorf("row %q: %v, want %q %v", r.Major, got, major, figures)
	}
}

// TestFundStatementThrough: April's statement of the general fund has
// the year's budget beside April's own actuals (the $150.00 bill, the
// $500.00 streets claim) and the year to date (February's $800.00 bill
// too); every month's year to date is the trial balance's revenues and
// expenditures of that day and ends at the balance sheet's fund balance;
// the months add up to the year's statement; the close of the year
// changes none of it.
func TestFundStatementThrough(t *testing.T) {
	v := statementsVillage(t)
	april, err := v.reads().FundStatementThrough("100", MustDate("2027-04-30"))
	if err != nil {
		t.Fatal(err)
	}
	if april.From != MustDate("2027-04-01") || !april.Adopted || !april.RevenueBudget || len(april.Revenues) != 2 || len(april.Expenditures) != 3 {
		t.Fatalf("April: %+v", april)
	}
	wantMonthRow(t, april.Revenues[0], "Taxes", "905000.00", "0.00", "0.00", "-905000.00")
	wantMonthRow(t, april.Revenues[1], "Public charges for services", "120000.00", "150.00", "950.00", "-119050.00")
	wantMonthRow(t, april.Expenditures[1], "Public works", "540000.00", "500.00", "500.00", "539500.00")
	wantMonthRow(t, april.TotalExpenditures, "Total expenditures", "935000.00", "500.00", "500.00", "934500.00")
	if !april.NetChange.Equal(MustMoney("450.00")) || !april.MonthNetChange.Equal(MustMoney("-350.00")) || !april.Ending.Equal(MustMoney("450.00")) {
		t.Errorf("April: net change %s, of the month %s, ending %s", april.NetChange, april.MonthNetChange, april.Ending)
	}

	check := func(when string) {
		t.Helper()
		for _, fund := range []string{"100", "WU"} {
			year, err := v.reads().FundStatement(2027, fund)
			if err != nil {
				t.Fatal(err)
			}
			var sumRev, sumExp Money
			for m := 1; m <= 12; m++ {
				through := NewDate(2027, 1, 1).AddMonths(m).AddDays(-1)
				ms, err := v.reads().FundStatementThrough(fund, through)
				if err != nil {
					t.Fatal(err)
				}
				sumRev, sumExp = sumRev.Add(ms.TotalRevenues.Month), sumExp.Add(ms.TotalExpenditures.Month)
				if !ms.TotalRevenues.Actual.Equal(sumRev) || !ms.TotalExpenditures.Actual.Equal(sumExp) {
					t.Errorf("%s, fund %s through %s: year to date %s and %s, the months add to %s and %s", when, fund, through, ms.TotalRevenues.Actual, ms.TotalExpenditures.Actual, sumRev, sumExp)
				}
				// The budget is the year's statement's, major by major.
				if len(ms.Expenditures) != len(year.Expenditures) || !ms.TotalExpenditures.Final.Equal(year.TotalExpenditures.Final) || !ms.TotalRevenues.Final.Equal(year.TotalRevenues.Final) {
					t.Errorf("%s, fund %s through %s: budget %s / %s, the year's %s / %s", when, fund, through, ms.TotalRevenues.Final, ms.TotalExpenditures.Final, year.TotalRevenues.Final, year.TotalExpenditures.Final)
				}
				bs, err := v.reads().BalanceSheet(through)
				if err != nil {
					t.Fatal(err)
				}
				if p, _ := bs.Position(fund); !ms.Ending.Equal(p.FundBalance) || !ms.Beginning.Equal(year.Beginning) {
					t.Errorf("%s, fund %s through %s: %s to %s, the balance sheet has %s", when, fund, through, ms.Beginning, ms.Ending, p.FundBalance)
				}
				if when != "before the close" {
					continue
				}
				// Before the close the trial balance still holds the year's
				// revenues and expenditures.
				tb, err := v.reads().TrialBalance(through)
				if err != nil {
					t.Fatal(err)
				}
				var rev, exp Money
				for _, r := range tb.Rows {
					switch {
					case r.Account.Fund != fund:
					case r.Account.Type == AccountRevenue:
						rev = rev.Add(r.Balance())
					case r.Account.Type == AccountExpenditure:
						exp = exp.Add(r.Balance())
					}
				}
				if !ms.TotalRevenues.Actual.Equal(rev) || !ms.TotalExpenditures.Actual.Equal(exp) {
					t.Errorf("fund %s through %s: %s and %s, the trial balance %s and %s", fund, through, ms.TotalRevenues.Actual, ms.TotalExpenditures.Actual, rev, exp)
				}
			}
			if !sumRev.Equal(year.TotalRevenues.Actual) || !sumExp.Equal(year.TotalExpenditures.Actual) {
				t.Errorf("%s, fund %s: the months add to %s and %s, the year's statement has %s and %s", when, fund, sumRev, sumExp, year.TotalRevenues.Actual, year.TotalExpenditures.Actual)
			}
		}
	}
	check("before the close")
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	check("after the close")
	dec, err := v.reads().FundStatementThrough("100", MustDate("2027-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	if !dec.TotalRevenues.Month.IsZero() || !dec.TotalExpenditures.Month.IsZero() || !dec.TotalRevenues.Actual.Equal(MustMoney("950.00")) {
		t.Errorf("December after the close: month %s and %s, year to date %s", dec.TotalRevenues.Month, dec.TotalExpenditures.Month, dec.TotalRevenues.Actual)
	}

	if _, err := v.reads().FundStatementThrough("PW", MustDate("2027-04-30")); ErrorCode(err) != ENOTFOUND {
		t.Errorf("a department as the fund: %v", err)
	}
}
