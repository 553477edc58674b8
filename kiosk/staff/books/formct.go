package books

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// The Form CT schedule of a year (?year=, last year by default, the year
// the report is filed for): the year's revenues and expenditures from the
// books by the classification the Department of Revenue compiles its
// municipal financial report by (the chart's class), and the accounts
// with none, for the clerk to classify (domain.FormCT). The Department's
// own form is filed on its site; this is what the clerk carries to it.

// FormCTCSVHeader is the layout of the Form CT CSV: one line a class
// (revenues, then expenditures, by class), then one line an account
// without a class (class "unclassified"), then the totals (class
// "total"). Amounts are on the normal side: revenue earned, expenditure
// made.
var FormCTCSVHeader = []string{"year", "type", "class", "accounts", "names", "funds", "amount"}

func (m *Module) formCT(r *http.Request) (domain.FormCT, domain.Chart, error) {
	year, err := queryYear(r, m.o.Today().Year()-1)
	if err != nil {
		return domain.FormCT{}, domain.Chart{}, err
	}
	ct, err := m.read().FormCT(year)
	if err != nil {
		return domain.FormCT{}, domain.Chart{}, err
	}
	ch, err := m.read().Chart()
	return ct, ch, err
}

func (m *Module) showFormCT(w http.ResponseWriter, r *http.Request) {
	ct, ch, err := m.formCT(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := formCTOf(ct, ch)
	m.o.Render(w, r, http.StatusOK, formCTPage(m.o.Frame(r, "Form CT schedule "+v.Year), v))
}

func (m *Module) exportFormCT(w http.ResponseWriter, r *http.Request) {
	ct, ch, err := m.formCT(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, fmt.Sprintf("form-ct-%d.csv", ct.Year))
	_ = out.Write(FormCTCSVHeader)
	year := fmt.Sprint(ct.Year)
	line := func(class string, row domain.CTRow) {
		var names []string
		for _, code := range row.Accounts {
			a, _ := ch.Account(code)
			names = append(names, a.Name)
		}
		_ = out.Write([]string{year, string(row.Type), class, strings.Join(row.Accounts, " "), strings.Join(names, "; "), strings.Join(row.Funds, " "), row.Amount.String()})
	}
	for _, row := range ct.Revenues {
		line(row.Class, row)
	}
	for _, row := range ct.Expenditures {
		line(row.Class, row)
	}
	for _, row := range ct.Unclassified {
		line("unclassified", row)
	}
	_ = out.Write([]string{year, string(domain.AccountRevenue), "total", "", "", "", ct.TotalRevenues.String()})
	_ = out.Write([]string{year, string(domain.AccountExpenditure), "total", "", "", "", ct.TotalExpenditures.String()})
	_ = out.Flush()
}

// formCTOf lays out the schedule; an unclassified account shows its code
// and name.
func formCTOf(ct domain.FormCT, ch domain.Chart) formCTView {
	v := formCTView{Year: fmt.Sprint(ct.Year), TotalRevenues: dollars(ct.TotalRevenues), TotalExps: dollars(ct.TotalExpenditures),
		CSV: fmt.Sprintf("/staff/books/form-ct.csv?year=%d", ct.Year)}
	row := func(testID string, r domain.CTRow) ctRow {
		var accounts []string
		for _, code := range r.Accounts {
			accounts = append(accounts, ch.Name(code))
		}
		return ctRow{TestID: testID, Class: r.Class, Type: string(r.Type), Accounts: strings.Join(accounts, ", "), Funds: strings.Join(r.Funds, ", "), Amount: dollars(r.Amount)}
	}
	for _, r := range ct.Revenues {
		v.Revenues = append(v.Revenues, row(string(r.Type)+"-"+r.Class, r))
	}
	for _, r := range ct.Expenditures {
		v.Expenditures = append(v.Expenditures, row(string(r.Type)+"-"+r.Class, r))
	}
	for _, r := range ct.Unclassified {
		v.Unclassified = append(v.Unclassified, row("unclassified-"+r.Accounts[0], r))
	}
	return v
}
