// Package books is the village's books in the back office: the trial
// balance by fund as of a day, the detail of one account over a period
// with its running balance, and the statements the auditors and the
// Department of Revenue ask for (the balance sheet by fund, a fund's
// statement of revenues, expenditures and changes in fund balance beside
// its budget, the Form CT schedule by classification), each also as CSV. The books are the
// domain's (domain/books.go): every kind that moves money posts balanced
// journal lines by fund with its command, and these pages only ask the
// ledger for its trial balance and its entries. Reading them is
// staff.CapReadBooks; the treasurer keeps them (staff.CapKeepBooks):
// closes a period, posts an adjusting entry, imports the opening trial
// balance at conversion; the treasurer or the administrator reopens the
// latest closed period (staff.CapReopenBooks). Each of these is a command
// of the ledger, which refuses what its rules refuse.
package books

import (
	"net/http"
	"strconv"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Books is what the pages read of the books; domain.Reads answers it, and
// a test may answer with books of its own.
type Books interface {
	// TrialBalance returns every account's debits and credits to the end
	// of asOf.
	TrialBalance(asOf domain.Date) (domain.TrialBalance, error)
	// BookEntries returns the journal entries dated from from to to,
	// those with a line to account when it is set.
	BookEntries(from, to domain.Date, account string) ([]domain.BookEntry, error)
	// Chart returns the chart of accounts.
	Chart() (domain.Chart, error)
	// BalanceSheet returns each fund's balance sheet as of the end of
	// asOf.
	BalanceSheet(asOf domain.Date) (domain.BalanceSheet, error)
	// FundStatement returns fund's statement of revenues, expenditures
	// and changes in fund balance for fiscal year year.
	FundStatement(year int, fund string) (domain.FundStatement, error)
	// FormCT returns year's revenues and expenditures by the Department
	// of Revenue's classification.
	FormCT(year int) (domain.FormCT, error)
	// BooksStatus returns when the books opened, the periods closed and
	// the import of the opening trial balance.
	BooksStatus() (domain.BooksStatus, error)
	// ControlTies ties each fund's control accounts to the records they
	// control (bills are every bill of the ledger) as of today.
	ControlTies(bills []domain.Bill, today domain.Date, p *domain.Params) ([]domain.ControlTie, error)
}

// Module is the books' part of the clerk's office.
type Module struct {
	o     *staff.Office
	books Books // nil: the office's ledger
}

// New returns the module, reading the books of the office's ledger.
func New() *Module { return &Module{} }

// NewFrom returns the module reading the books from b instead of the
// office's ledger.
func NewFrom(b Books) *Module { return &Module{books: b} }

// Mount adds the books' routes and link.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/books", staff.CapReadBooks, m.showTrialBalance)
	o.Page("GET /staff/books.csv", staff.CapReadBooks, m.exportTrialBalance)
	// An account's CSV is its page's path with ".csv" (accountCode):
	// the router matches whole segments only.
	o.Page("GET /staff/books/accounts/{code}", staff.CapReadBooks, m.showAccount)
	o.Page("GET /staff/books/balance-sheet", staff.CapReadBooks, m.showBalanceSheet)
	o.Page("GET /staff/books/balance-sheet.csv", staff.CapReadBooks, m.exportBalanceSheet)
	o.Page("GET /staff/books/statement", staff.CapReadBooks, m.showStatement)
	o.Page("GET /staff/books/statement.csv", staff.CapReadBooks, m.exportStatement)
	o.Page("GET /staff/books/form-ct", staff.CapReadBooks, m.showFormCT)
	o.Page("GET /staff/books/form-ct.csv", staff.CapReadBooks, m.exportFormCT)
	o.Page("GET /staff/books/controls", staff.CapReadBooks, m.showControls)
	o.Page("GET /staff/books/controls.csv", staff.CapReadBooks, m.exportControls)
	o.Page("GET /staff/books/packet.pdf", staff.CapReadBooks, m.showPacket)
	o.Page("GET /staff/books/cash", staff.CapReadBooks, m.showCash)
	o.Page("GET /staff/books/cash.csv", staff.CapReadBooks, m.exportCash)
	o.Page("GET /staff/books/bank", staff.CapReadBooks, m.showBank)
	o.Page("GET /staff/books/bank.csv", staff.CapReadBooks, m.exportBank)
	o.Page("POST /staff/books/bank", staff.CapTreasury, m.saveBank)
	o.Page("GET /staff/books/periods", staff.CapReadBooks, m.showPeriods)
	o.Page("POST /staff/books/periods/close", staff.CapKeepBooks, m.closePeriod)
	o.Page("POST /staff/books/periods/reopen", staff.CapReopenBooks, m.reopenPeriod)
	o.Page("GET /staff/books/adjust", staff.CapKeepBooks, m.showAdjust)
	o.Page("POST /staff/books/adjust", staff.CapKeepBooks, m.saveAdjust)
	o.Page("GET /staff/books/opening", staff.CapKeepBooks, m.showOpening)
	o.Page("POST /staff/books/opening", staff.CapKeepBooks, m.submitOpening)
	o.Nav(staff.CapReadBooks, "Books", "/staff/books")
	return nil
}

// read returns the books the module reads.
func (m *Module) read() Books {
	if m.books != nil {
		return m.books
	}
	return m.o.Reads()
}

// queryDate reads the date of query parameter name (what names it in the
// message), def when the parameter is absent. A date that is not one is
// a malformed request (400), with a sentence that says how to write it.
func queryDate(r *http.Request, name, what string, def domain.Date) (domain.Date, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	d, err := domain.ParseDate(s)
	if err != nil {
		return domain.Date{}, domain.Errorf(domain.EMALFORMED, "", "%s %q is not a real date written as YYYY-MM-DD (?%s=2026-12-31).", what, s, name)
	}
	return d, nil
}

// queryYear reads the fiscal year of ?year=, def when it is absent. A
// year that is not four digits is a malformed request (400).
func queryYear(r *http.Request, def int) (int, error) {
	s := r.URL.Query().Get("year")
	if s == "" {
		return def, nil
	}
	y, err := strconv.Atoi(s)
	if err != nil || len(s) != 4 || y < 1900 {
		return 0, domain.Errorf(domain.EMALFORMED, "", "The year %q is not a fiscal year written as four digits (?year=2027).", s)
	}
	return y, nil
}

// dollars writes an amount for people: "$1,234.56", "-$20.00".
func dollars(m domain.Money) string { return staff.Dollars(m) }

// longDate writes a date for a heading: "December 31, 2026".
func longDate(d domain.Date) string {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).Format("January 2, 2006")
}
