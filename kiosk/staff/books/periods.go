package books

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The periods of the books: the day they are closed through and every
// close and reopening, with the treasurer's form to close the next month
// and the form to reopen the latest close (docs/books.md, "Closing a
// period").

func (m *Module) showPeriods(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	m.periodsPage(w, r, http.StatusOK, periodForm{}, q.Get("closed"), q.Get("reopened"))
}

// periodsPage shows the periods with the forms f (and their errors);
// closed or reopened is the close just made or reopened.
func (m *Module) periodsPage(w http.ResponseWriter, r *http.Request, status int, f periodForm, closed, reopened string) {
	st, err := m.read().BooksStatus()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	role := m.o.Who(r).Role
	today := m.o.Today()
	v := periodsView{Open: st.Open, Form: f, Closed: closed, Reopened: reopened,
		CanClose: staff.Allowed(role, staff.CapKeepBooks), CanReopen: staff.Allowed(role, staff.CapReopenBooks) && !st.ClosedThrough.IsZero()}
	if st.Open {
		v.Opened = longDate(st.Opened)
	}
	if !st.ClosedThrough.IsZero() {
		v.ClosedThrough = longDate(st.ClosedThrough)
	}
	if v.Form.Through == "" {
		// The month before today's, the one a treasurer closes next.
		v.Form.Through = domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1).String()
	}
	for i := len(st.Closes) - 1; i >= 0; i-- {
		c := st.Closes[i]
		row := closeRow{Through: c.Through.String(), On: c.On.String(), By: c.By}
		if c.Reopened != nil {
			row.Reopened, row.ReopenedBy, row.Reason = c.Reopened.On.String(), c.Reopened.By, c.Reopened.Reason
		}
		v.Closes = append(v.Closes, row)
	}
	m.o.Render(w, r, status, periodsPage(m.o.Frame(r, "Periods of the books"), v))
}

// closePeriod serves POST /staff/books/periods/close: the treasurer
// closes the books through the last day of a month.
func (m *Module) closePeriod(w http.ResponseWriter, r *http.Request) {
	f := periodForm{Through: m.o.Form(r, "through")}
	d, err := staff.ParseDate("The last day closed", f.Through)
	if err == nil {
		_, err = m.o.Submit(r, &domain.BooksPeriod{Op: domain.BooksClose, Through: d})
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			f.CloseError = msg
			m.periodsPage(w, r, status, f, "", "")
		})
		return
	}
	m.o.Redirect(w, r, "/staff/books/periods?closed="+d.String())
}

// reopenPeriod serves POST /staff/books/periods/reopen: the latest close
// is reopened, with the reason the record keeps.
func (m *Module) reopenPeriod(w http.ResponseWriter, r *http.Request) {
	f := periodForm{Reason: m.o.Form(r, "reason")}
	res, err := m.o.Submit(r, &domain.BooksPeriod{Op: domain.BooksReopen, Reason: f.Reason})
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			f.ReopenError = msg
			m.periodsPage(w, r, status, f, "", "")
		})
		return
	}
	m.o.Redirect(w, r, "/staff/books/periods?reopened="+res.Ref)
}

// formFail shows err beside the form (show) when the person can fix it,
// else the error page.
func (m *Module) formFail(w http.ResponseWriter, r *http.Request, err error, show func(status int, msg string)) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	show(status, msg)
}
