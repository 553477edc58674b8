package books

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The adjusting entry: the treasurer's form of a dated journal entry, its
// reason and its lines (account, debit or credit, memo), as many rows as
// it needs ("More lines" adds four). The ledger checks it as it checks
// every entry: it balances in every fund, and its date is in an open
// period (docs/books.md, "Closing a period").

// adjustRows is how many blank rows the form offers, and adds at a time.
const adjustRows = 4

func (m *Module) showAdjust(w http.ResponseWriter, r *http.Request) {
	f := adjustForm{On: m.o.Today().String(), Posted: r.URL.Query().Get("posted"), PostedOn: r.URL.Query().Get("on")}
	f.Lines = make([]adjustLineForm, adjustRows)
	m.adjustPage(w, r, http.StatusOK, f)
}

func (m *Module) adjustPage(w http.ResponseWriter, r *http.Request, status int, f adjustForm) {
	for i := range f.Lines {
		f.Lines[i].N = i + 1
	}
	if f.PostedOn != "" {
		f.TrialBalance = "/staff/books?as_of=" + f.PostedOn
	}
	m.o.Render(w, r, status, adjustPage(m.o.Frame(r, "Adjusting entry"), f))
}

// saveAdjust serves POST /staff/books/adjust: action=more shows the form
// again with more rows; otherwise the entry is posted, or shown again
// with what the ledger said.
func (m *Module) saveAdjust(w http.ResponseWriter, r *http.Request) {
	f := adjustForm{On: m.o.Form(r, "on"), Reason: m.o.Form(r, "reason")}
	rows, _ := strconv.Atoi(m.o.Form(r, "rows"))
	for i := 1; i <= min(rows, domain.MaxAdjustLines); i++ {
		n := strconv.Itoa(i)
		l := adjustLineForm{Account: m.o.Form(r, "account_"+n), Debit: m.o.Form(r, "debit_"+n), Credit: m.o.Form(r, "credit_"+n), Memo: m.o.Form(r, "memo_"+n)}
		if l != (adjustLineForm{}) {
			f.Lines = append(f.Lines, l) // the rows left blank are dropped, so "Line 2" is the second row shown
		}
	}
	more := m.o.Form(r, "action") == "more"
	blank := adjustRows
	if !more {
		blank = max(0, 2-len(f.Lines))
	}
	pad := func() { f.Lines = append(f.Lines, make([]adjustLineForm, blank)...) }
	if more {
		pad()
		m.adjustPage(w, r, http.StatusOK, f)
		return
	}
	p, errs := parseAdjust(f)
	if len(errs) == 0 {
		res, err := m.o.Submit(r, p)
		if err == nil {
			m.o.Redirect(w, r, "/staff/books/adjust?posted="+res.Ref+"&on="+p.On.String())
			return
		}
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		f.Errors = []string{msg}
		pad()
		m.adjustPage(w, r, status, f)
		return
	}
	f.Errors = errs
	pad()
	m.adjustPage(w, r, http.StatusUnprocessableEntity, f)
}

// parseAdjust reads the form into an adjusting entry, with every problem
// of its fields named by line.
func parseAdjust(f adjustForm) (*domain.BooksAdjust, []string) {
	var errs []string
	p := &domain.BooksAdjust{Reason: f.Reason}
	on, err := staff.ParseDate("The date of the entry", f.On)
	if err != nil {
		errs = append(errs, domain.ErrorMessage(err))
	}
	p.On = on
	amount := func(what, s string) domain.Money {
		if s == "" {
			return domain.Money{}
		}
		m, err := staff.ParseAmount(what, s)
		if err != nil {
			errs = append(errs, domain.ErrorMessage(err))
		}
		return m
	}
	for i, l := range f.Lines {
		p.Lines = append(p.Lines, domain.AdjustLine{Account: l.Account, Memo: l.Memo,
			Debit: amount(fmt.Sprintf("Line %d: the debit", i+1), l.Debit), Credit: amount(fmt.Sprintf("Line %d: the credit", i+1), l.Credit)})
	}
	return p, errs
}
