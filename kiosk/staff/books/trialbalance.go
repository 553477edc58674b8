package books

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// The trial balance: every account's debits and credits to the end of a
// day (?as_of=, today by default), by fund, each with its balance on its
// normal side, the funds' totals and the grand totals.

// TrialBalanceCSVHeader is the layout of the trial balance's CSV: one
// line an account, by fund then code; debit, credit and balance are plain
// decimals, the balance on the account's normal side (negative when it
// stands on the other).
var TrialBalanceCSVHeader = []string{"as_of", "fund", "code", "name", "type", "debit", "credit", "balance"}

// trialBalance reads the trial balance the request asks for, and the
// chart its accounts are named in.
func (m *Module) trialBalance(r *http.Request) (domain.TrialBalance, domain.Chart, error) {
	asOf, err := queryDate(r, "as_of", "The day", m.o.Today())
	if err != nil {
		return domain.TrialBalance{}, domain.Chart{}, err
	}
	tb, err := m.read().TrialBalance(asOf)
	if err != nil {
		return domain.TrialBalance{}, domain.Chart{}, err
	}
	ch, err := m.read().Chart()
	if err != nil {
		return domain.TrialBalance{}, domain.Chart{}, err
	}
	return tb, ch, nil
}

func (m *Module) showTrialBalance(w http.ResponseWriter, r *http.Request) {
	tb, ch, err := m.trialBalance(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := trialBalanceOf(tb, ch)
	m.o.Render(w, r, http.StatusOK, trialBalancePage(m.o.Frame(r, "Trial balance as of "+v.AsOfLong), v))
}

func (m *Module) exportTrialBalance(w http.ResponseWriter, r *http.Request) {
	tb, _, err := m.trialBalance(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, "trial-balance-"+tb.AsOf.String()+".csv")
	_ = out.Write(TrialBalanceCSVHeader)
	for _, row := range tb.Rows {
		a := row.Account
		_ = out.Write([]string{tb.AsOf.String(), a.Fund, a.Code, a.Name, string(a.Type), row.Debit.String(), row.Credit.String(), row.Balance().String()})
	}
	_ = out.Flush()
}

// trialBalanceOf lays out a trial balance by fund (its rows come by fund,
// then code), with each fund's totals.
func trialBalanceOf(tb domain.TrialBalance, ch domain.Chart) trialBalanceView {
	v := trialBalanceView{AsOf: tb.AsOf.String(), AsOfLong: longDate(tb.AsOf),
		NotOpen: len(tb.Rows) == 0 && ch.GeneralFund() == "", Empty: len(tb.Rows) == 0 && ch.GeneralFund() != "",
		Unbalanced: !tb.Balanced(), Debit: dollars(tb.Debit), Credit: dollars(tb.Credit), Difference: dollars(tb.Debit.Sub(tb.Credit)),
		CSV:          "/staff/books.csv?as_of=" + tb.AsOf.String(),
		BalanceSheet: "/staff/books/balance-sheet?as_of=" + tb.AsOf.String(),
		Statement:    fmt.Sprintf("/staff/books/statement?year=%d", tb.AsOf.Year()),
		FormCT:       fmt.Sprintf("/staff/books/form-ct?year=%d", tb.AsOf.Year())}
	yearStart := domain.NewDate(tb.AsOf.Year(), 1, 1)
	var f *fundView
	var debit, credit domain.Money
	closeFund := func() {
		if f != nil {
			f.Debit, f.Credit, f.Unbalanced = dollars(debit), dollars(credit), !debit.Equal(credit)
			v.Funds = append(v.Funds, *f)
		}
	}
	for _, row := range tb.Rows {
		a := row.Account
		if f == nil || f.Code != a.Fund {
			closeFund()
			f, debit, credit = &fundView{Code: a.Fund, Name: fundName(ch, a.Fund)}, domain.Money{}, domain.Money{}
		}
		debit, credit = debit.Add(row.Debit), credit.Add(row.Credit)
		f.Rows = append(f.Rows, trialBalanceRow{Code: a.Code, Name: a.Name, Type: typeName(a.Type),
			URL:   accountURL(a.Code, yearStart, tb.AsOf),
			Debit: dollars(row.Debit), Credit: dollars(row.Credit), Balance: dollars(row.Balance()), Contra: row.Balance().IsNegative()})
	}
	closeFund()
	return v
}

// fundName names a fund for a heading: "GF General fund", or "No fund"
// for accounts the chart does not hold.
func fundName(ch domain.Chart, fund string) string {
	if fund == "" {
		return "No fund (accounts the chart does not hold)"
	}
	return ch.Name(fund)
}

// typeName writes an account type for people: "fund balance".
func typeName(t domain.AccountType) string { return strings.ReplaceAll(string(t), "_", " ") }

// accountURL is the page of an account's detail over a period.
func accountURL(code string, from, to domain.Date) string {
	return fmt.Sprintf("/staff/books/accounts/%s?from=%s&to=%s", url.PathEscape(code), from, to)
}
