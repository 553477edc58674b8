package books

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// The balance sheet by fund as of a day (?as_of=, today by default):
// assets, deferred outflows, liabilities, deferred inflows and fund
// balance, each fund in a column and a total column; the budgetary
// encumbrances and their reserve are left out; fund balance includes the
// revenues less expenditures not yet closed (domain.BalanceSheet).

// BalanceSheetCSVHeader is the start of the balance sheet's CSV layout:
// after these columns come one column a fund (its code, the general fund
// first) and "total". A row is an account row of a section (caption,
// accounts summed), a section's total ("total", accounts blank), or the
// last row, "liabilities, deferred inflows and fund balance".
var BalanceSheetCSVHeader = []string{"as_of", "section", "caption", "accounts"}

func (m *Module) balanceSheet(r *http.Request) (domain.BalanceSheet, domain.Chart, error) {
	asOf, err := queryDate(r, "as_of", "The day", m.o.Today())
	if err != nil {
		return domain.BalanceSheet{}, domain.Chart{}, err
	}
	bs, err := m.read().BalanceSheet(asOf)
	if err != nil {
		return domain.BalanceSheet{}, domain.Chart{}, err
	}
	ch, err := m.read().Chart()
	return bs, ch, err
}

func (m *Module) showBalanceSheet(w http.ResponseWriter, r *http.Request) {
	bs, ch, err := m.balanceSheet(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := balanceSheetOf(bs, ch)
	m.o.Render(w, r, http.StatusOK, balanceSheetPage(m.o.Frame(r, "Balance sheet by fund as of "+v.AsOfLong), v))
}

func (m *Module) exportBalanceSheet(w http.ResponseWriter, r *http.Request) {
	bs, _, err := m.balanceSheet(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, "balance-sheet-"+bs.AsOf.String()+".csv")
	_ = out.Write(append(append(append([]string{}, BalanceSheetCSVHeader...), bs.Funds...), "total"))
	line := func(section, caption, accounts string, amounts []domain.Money, total domain.Money) {
		rec := []string{bs.AsOf.String(), section, caption, accounts}
		for _, a := range amounts {
			rec = append(rec, a.String())
		}
		_ = out.Write(append(rec, total.String()))
	}
	for _, s := range bs.Sections {
		for _, row := range s.Rows {
			line(s.Key, row.Caption, strings.Join(row.Accounts, " "), row.Amounts, row.Total)
		}
		line(s.Key, "total", "", s.Amounts, s.Total)
	}
	claims := make([]domain.Money, len(bs.Funds))
	for i, p := range bs.Positions {
		claims[i] = claimsOn(p)
	}
	line("", "liabilities, deferred inflows and fund balance", "", claims, claimsOn(bs.Total))
	_ = out.Flush()
}

// claimsOn is what stands against a fund's assets: its liabilities,
// deferred inflows and fund balance.
func claimsOn(p domain.FundPosition) domain.Money {
	return p.Liabilities.Add(p.DeferredInflows).Add(p.FundBalance)
}

// balanceSheetOf lays out the balance sheet with a column a fund and the
// total column.
func balanceSheetOf(bs domain.BalanceSheet, ch domain.Chart) balanceSheetView {
	v := balanceSheetView{AsOf: bs.AsOf.String(), AsOfLong: longDate(bs.AsOf), Empty: len(bs.Funds) == 0, Unbalanced: !bs.Balanced(),
		CSV: "/staff/books/balance-sheet.csv?as_of=" + bs.AsOf.String(), TrialBalance: "/staff/books?as_of=" + bs.AsOf.String()}
	for _, f := range bs.Funds {
		name := f
		if a, ok := ch.Account(f); ok {
			name = a.Name
		}
		v.Funds = append(v.Funds, fundColumn{Code: f, Name: name})
	}
	cells := func(prefix string, amounts []domain.Money, total domain.Money) []sheetCell {
		var out []sheetCell
		for i, a := range amounts {
			out = append(out, sheetCell{TestID: prefix + "-" + bs.Funds[i], Amount: dollars(a)})
		}
		return append(out, sheetCell{TestID: prefix + "-total", Amount: dollars(total)})
	}
	for _, s := range bs.Sections {
		sv := sheetSection{Key: s.Key, Title: s.Title, TotalLabel: "Total " + strings.ToLower(s.Title), Totals: cells("total-"+s.Key, s.Amounts, s.Total)}
		for _, row := range s.Rows {
			key := rowKey(row)
			sv.Rows = append(sv.Rows, sheetRow{Key: key, Caption: row.Caption, Accounts: strings.Join(row.Accounts, ", "), Unclosed: row.Row != "",
				Cells: cells(key, row.Amounts, row.Total)})
		}
		v.Sections = append(v.Sections, sv)
	}
	claims := make([]domain.Money, len(bs.Funds))
	for i, p := range bs.Positions {
		claims[i] = claimsOn(p)
		v.Checks = append(v.Checks, check("balanced-"+p.Fund, p))
	}
	v.Claims = cells("claims", claims, claimsOn(bs.Total))
	v.Checks = append(v.Checks, check("balanced-total", bs.Total))
	return v
}

// rowKey names a row in data-testid attributes: its control, the kind of
// row not yet closed, else its first account.
func rowKey(row domain.BalanceRow) string {
	switch {
	case row.Control != "":
		return string(row.Control)
	case row.Row != "":
		return row.Row
	case len(row.Accounts) > 0:
		return "account-" + row.Accounts[0]
	}
	return "row"
}

func check(testID string, p domain.FundPosition) sheetCheck {
	if p.Balanced() {
		return sheetCheck{TestID: testID, Text: "balanced", Balanced: true}
	}
	return sheetCheck{TestID: testID, Text: "off by " + dollars(p.Difference())}
}

// colspan writes a column count for a colspan attribute.
func colspan(n int) string { return strconv.Itoa(n) }
