package books

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The detail of one account over a period (?from=&to=, the calendar year
// of today by default): the balance brought forward from before the
// period, then every journal line to the account in date and log order,
// with the account's balance on its normal side after each.

// AccountCSVHeader is the layout of an account's CSV: the balance brought
// forward first (kind "brought_forward", dated the period's first day),
// then one line a journal line to the account; debit, credit and balance
// are plain decimals.
var AccountCSVHeader = []string{"account", "date", "kind", "command_id", "memo", "section", "debit", "credit", "balance"}

// accountCode reads the account of the path: the {code} segment is the
// account when the chart holds it, else, when it ends in ".csv", the
// account of the rest, whose CSV is asked for. (Reading: a code may hold
// dots, so "A.csv" is the page of an account coded "A.csv" when the chart
// has one; its CSV is then "A.csv.csv".)
func accountCode(ch domain.Chart, segment string) (a domain.ChartAccount, csv bool, err error) {
	if a, ok := ch.Account(segment); ok {
		return a, false, nil
	}
	if code, ok := strings.CutSuffix(segment, ".csv"); ok {
		if a, ok := ch.Account(code); ok {
			return a, true, nil
		}
	}
	return domain.ChartAccount{}, false, domain.Errorf(domain.ENOTFOUND, "", "The chart has no account %q.", strings.TrimSuffix(segment, ".csv"))
}

// period reads ?from= and ?to=, the calendar year of today by default.
func (m *Module) period(r *http.Request) (from, to domain.Date, err error) {
	today := m.o.Today()
	if from, err = queryDate(r, "from", "The first day", domain.NewDate(today.Year(), 1, 1)); err != nil {
		return from, to, err
	}
	if to, err = queryDate(r, "to", "The last day", domain.NewDate(today.Year(), 12, 31)); err != nil {
		return from, to, err
	}
	if from.After(to) {
		return from, to, domain.Errorf(domain.EMALFORMED, "", "The period starts on %s, after its last day %s: give the first day first.", from, to)
	}
	return from, to, nil
}

func (m *Module) showAccount(w http.ResponseWriter, r *http.Request) {
	ch, err := m.read().Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	a, csv, err := accountCode(ch, r.PathValue("code"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	from, to, err := m.period(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	bf, err := m.broughtForward(a, from)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	entries, err := m.read().BookEntries(from, to, a.Code)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if csv {
		m.exportAccount(w, a, from, to, bf, entries)
		return
	}
	v := accountOf(a, ch, from, to, bf, entries, staff.Allowed(m.o.Who(r).Role, staff.CapJournal))
	m.o.Render(w, r, http.StatusOK, accountPage(m.o.Frame(r, "Account "+a.Code+" "+a.Name), v))
}

// broughtForward is the account's debits and credits before from: its row
// of the trial balance as of the day before (a zero row when nothing was
// posted to it by then).
func (m *Module) broughtForward(a domain.ChartAccount, from domain.Date) (domain.TrialBalanceRow, error) {
	tb, err := m.read().TrialBalance(from.AddDays(-1))
	if err != nil {
		return domain.TrialBalanceRow{}, err
	}
	for _, row := range tb.Rows {
		if row.Account.Code == a.Code {
			row.Account = a
			return row, nil
		}
	}
	return domain.TrialBalanceRow{Account: a}, nil
}

// running walks the account's lines of entries from the balance brought
// forward, calling fn with each line and the account's debits and credits
// after it.
func running(bf domain.TrialBalanceRow, entries []domain.BookEntry, fn func(e domain.BookEntry, l domain.BookLine, after domain.TrialBalanceRow)) domain.TrialBalanceRow {
	at := bf
	for _, e := range entries {
		for _, l := range e.Lines {
			if l.Account != bf.Account.Code {
				continue
			}
			at.Debit, at.Credit = at.Debit.Add(l.Debit), at.Credit.Add(l.Credit)
			fn(e, l, at)
		}
	}
	return at
}

// memo joins what the entry and its line say: "opening entry · bills
// open when the books opened".
func memo(e domain.BookEntry, l domain.BookLine) string {
	switch {
	case e.Memo == "":
		return l.Memo
	case l.Memo == "" || l.Memo == e.Memo:
		return e.Memo
	}
	return e.Memo + " · " + l.Memo
}

// accountOf lays out an account's detail; journal says whether the
// person may open the journal, where each command is found.
func accountOf(a domain.ChartAccount, ch domain.Chart, from, to domain.Date, bf domain.TrialBalanceRow, entries []domain.BookEntry, journal bool) accountView {
	normal := "credit"
	if (domain.TrialBalanceRow{Account: a, Debit: domain.Cents(1)}).Balance().IsPositive() {
		normal = "debit"
	}
	v := accountView{Code: a.Code, Name: a.Name, Type: typeName(a.Type), Fund: fundName(ch, a.Fund), Normal: normal,
		From: from.String(), To: to.String(), BroughtForward: dollars(bf.Balance()),
		CSV:          "/staff/books/accounts/" + url.PathEscape(a.Code) + ".csv?from=" + from.String() + "&to=" + to.String(),
		TrialBalance: "/staff/books?as_of=" + to.String()}
	var debit, credit domain.Money
	end := running(bf, entries, func(e domain.BookEntry, l domain.BookLine, after domain.TrialBalanceRow) {
		row := entryRow{Date: e.Date.String(), Kind: string(e.Kind), Memo: memo(e, l), Section: l.Section, CommandID: e.CommandID,
			Debit: amount(l.Debit), Credit: amount(l.Credit), Balance: dollars(after.Balance())}
		if journal {
			row.JournalURL = "/staff/journal?q=" + url.QueryEscape(e.CommandID)
		}
		v.Lines = append(v.Lines, row)
		debit, credit = debit.Add(l.Debit), credit.Add(l.Credit)
	})
	v.Debit, v.Credit, v.Closing = dollars(debit), dollars(credit), dollars(end.Balance())
	return v
}

// amount writes a debit or a credit of a line: blank when it is none.
func amount(m domain.Money) string {
	if m.IsZero() {
		return ""
	}
	return dollars(m)
}

func (m *Module) exportAccount(w http.ResponseWriter, a domain.ChartAccount, from, to domain.Date, bf domain.TrialBalanceRow, entries []domain.BookEntry) {
	out := m.o.CSV(w, "account-"+a.Code+"-"+from.String()+"-"+to.String()+".csv")
	_ = out.Write(AccountCSVHeader)
	_ = out.Write([]string{a.Code, from.String(), "brought_forward", "", "balance before " + from.String(), "", bf.Debit.String(), bf.Credit.String(), bf.Balance().String()})
	running(bf, entries, func(e domain.BookEntry, l domain.BookLine, after domain.TrialBalanceRow) {
		_ = out.Write([]string{a.Code, e.Date.String(), string(e.Kind), e.CommandID, memo(e, l), l.Section, l.Debit.String(), l.Credit.String(), after.Balance().String()})
	})
	_ = out.Flush()
}
