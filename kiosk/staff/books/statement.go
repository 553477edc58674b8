package books

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// A fund's statement of revenues, expenditures and changes in fund
// balance for a fiscal year (?year=, this year by default; ?fund=, the
// general fund by default): revenues by major source and expenditures by
// major category with the budget beside them, the actual from the books,
// the variance and the encumbrances outstanding; then the fund balance
// from the start of the year to its end (domain.FundStatement).

// StatementCSVHeader is the layout of the statement's CSV: one line a
// major source ("revenues") or category ("expenditures"), then their
// totals ("total_revenues", "total_expenditures"), then the fund balance
// ("fund_balance": beginning, net_change, other_changes, ending, the
// amount in "actual"). The budget columns of revenues are blank when the
// budget estimates no revenue of the fund.
var StatementCSVHeader = []string{"year", "fund", "section", "major", "accounts", "original", "amendments", "carried", "final", "actual", "variance", "encumbrances"}

// statement reads the statement the request asks for. A fund the chart
// does not hold is a malformed request, with the funds it does.
func (m *Module) statement(r *http.Request) (domain.FundStatement, domain.Chart, error) {
	year, err := queryYear(r, m.o.Today().Year())
	if err != nil {
		return domain.FundStatement{}, domain.Chart{}, err
	}
	ch, err := m.read().Chart()
	if err != nil {
		return domain.FundStatement{}, domain.Chart{}, err
	}
	fund := r.URL.Query().Get("fund")
	if fund == "" {
		fund = ch.GeneralFund()
	}
	if a, ok := ch.Account(fund); !ok || a.Type != domain.AccountFund {
		var codes []string
		for _, f := range ch.Of(domain.AccountFund) {
			codes = append(codes, f.Code)
		}
		if len(codes) == 0 {
			return domain.FundStatement{}, ch, domain.Errorf(domain.EMALFORMED, "", "The chart has no funds yet: the books open when it names its general fund.")
		}
		return domain.FundStatement{}, ch, domain.Errorf(domain.EMALFORMED, "", "The chart has no fund %q: ?fund= takes a fund's code (%s).", fund, strings.Join(codes, ", "))
	}
	st, err := m.read().FundStatement(year, fund)
	return st, ch, err
}

func (m *Module) showStatement(w http.ResponseWriter, r *http.Request) {
	st, ch, err := m.statement(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := statementOf(st, ch)
	m.o.Render(w, r, http.StatusOK, statementPage(m.o.Frame(r, fmt.Sprintf("Revenues, expenditures and changes in fund balance %d: %s", st.Year, v.FundName)), v))
}

func (m *Module) exportStatement(w http.ResponseWriter, r *http.Request) {
	st, _, err := m.statement(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, fmt.Sprintf("statement-%d-%s.csv", st.Year, st.Fund))
	_ = out.Write(StatementCSVHeader)
	year := fmt.Sprint(st.Year)
	line := func(section string, row domain.StatementRow, budget bool) {
		rec := []string{year, st.Fund, section, row.Major, strings.Join(row.Accounts, " ")}
		if budget {
			rec = append(rec, row.Original.String(), row.Amendments.String(), row.Carried.String(), row.Final.String())
		} else {
			rec = append(rec, "", "", "", "")
		}
		rec = append(rec, row.Actual.String())
		if budget {
			rec = append(rec, row.Variance.String())
		} else {
			rec = append(rec, "")
		}
		_ = out.Write(append(rec, row.Encumbrances.String()))
	}
	for _, row := range st.Revenues {
		line("revenues", row, st.RevenueBudget)
	}
	line("total_revenues", st.TotalRevenues, st.RevenueBudget)
	for _, row := range st.Expenditures {
		line("expenditures", row, true)
	}
	line("total_expenditures", st.TotalExpenditures, true)
	for _, fb := range []struct {
		name   string
		amount domain.Money
	}{{"beginning", st.Beginning}, {"net_change", st.NetChange}, {"other_changes", st.OtherChanges}, {"ending", st.Ending}} {
		_ = out.Write([]string{year, st.Fund, "fund_balance", fb.name, "", "", "", "", "", fb.amount.String(), "", ""})
	}
	_ = out.Flush()
}

// statementOf lays out a fund's statement; revenue rows have no budget
// figures when the budget estimates no revenue of the fund.
func statementOf(st domain.FundStatement, ch domain.Chart) statementView {
	v := statementView{Year: fmt.Sprint(st.Year), Fund: st.Fund, FundName: ch.Name(st.Fund), Adopted: st.Adopted, RevenueBudget: st.RevenueBudget,
		Beginning: dollars(st.Beginning), NetChange: dollars(st.NetChange), OtherChanges: dollars(st.OtherChanges), Ending: dollars(st.Ending),
		HasOther:     !st.OtherChanges.IsZero(),
		CSV:          fmt.Sprintf("/staff/books/statement.csv?year=%d&fund=%s", st.Year, url.QueryEscape(st.Fund)),
		BalanceSheet: fmt.Sprintf("/staff/books/balance-sheet?as_of=%d-12-31", st.Year)}
	for _, f := range ch.Of(domain.AccountFund) {
		v.Funds = append(v.Funds, option{Value: f.Code, Label: f.Code + " " + f.Name, Selected: f.Code == st.Fund})
	}
	row := func(prefix string, r domain.StatementRow, budget bool) statementRow {
		out := statementRow{TestID: prefix, Major: r.Major, Accounts: strings.Join(r.Accounts, ", "), Actual: dollars(r.Actual), Encumbrances: amount(r.Encumbrances)}
		if budget {
			out.Original, out.Amendments, out.Carried, out.Final = dollars(r.Original), amount(r.Amendments), amount(r.Carried), dollars(r.Final)
			out.Variance, out.Unfavourable = dollars(r.Variance), r.Variance.IsNegative()
		}
		return out
	}
	for i, r := range st.Revenues {
		v.Revenues = append(v.Revenues, row(fmt.Sprintf("revenue-%d", i+1), r, st.RevenueBudget))
	}
	for i, r := range st.Expenditures {
		v.Expenditures = append(v.Expenditures, row(fmt.Sprintf("expenditure-%d", i+1), r, true))
	}
	v.TotalRevenues = row("total-revenues", st.TotalRevenues, st.RevenueBudget)
	v.TotalExpenditures = row("total-expenditures", st.TotalExpenditures, true)
	return v
}
