package budget

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The appropriations of a year (§5.05, §5.16): what each allows, what was
// expended and is encumbered, what is available; the record of everything
// charged to each; the treasurer's payroll expenses (below ledger format
// 6, from which the payroll is a claim); and the close of the year,
// previewed before it is done.

func urlq(s string) string { return url.QueryEscape(s) }

func (m *Module) showAppropriations(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.appropriationsPage(w, r, http.StatusOK, year, expenseForm{On: m.o.Today().String()})
}

func (m *Module) appropriationsPage(w http.ResponseWriter, r *http.Request, status, year int, f expenseForm) {
	reads := m.o.Reads()
	apps, err := reads.Appropriations(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	chart, err := reads.Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	fy, _, err := reads.FiscalYear(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := appropriationsView{Year: year, Closed: fy.Closed, ClosedOn: date(fy.ClosedOn), CanCharge: staff.Allowed(m.o.Who(r).Role, staff.CapCertify) && !fy.Closed, Form: f}
	v.ChargePayroll = v.CanCharge && !m.payrollIsClaim()
	var amount, expended, encumbered, available domain.Money
	for _, a := range apps {
		acct, _ := chart.Account(a.Line)
		v.Lines = append(v.Lines, appropriationRow{Line: a.Line, Name: acct.Name, Unit: a.Unit, Amount: dollars(a.Amount()), Expended: dollars(a.Expended),
			Encumbered: dollars(a.Encumbered), Available: dollars(a.Available()), Over: a.Available().IsNegative(), Continuing: a.Continuing, Closed: a.Closed,
			URL: fmt.Sprintf("/staff/appropriations/%d/%s", year, url.PathEscape(a.Line))})
		amount, expended, encumbered, available = amount.Add(a.Amount()), expended.Add(a.Expended), encumbered.Add(a.Encumbered), available.Add(a.Available())
		if !a.Closed {
			v.LineOptions = append(v.LineOptions, option{Value: a.Line, Label: a.Line + " " + acct.Name, Selected: a.Line == f.Line})
		}
	}
	v.Total = appropriationRow{Amount: dollars(amount), Expended: dollars(expended), Encumbered: dollars(encumbered), Available: dollars(available)}
	m.o.Render(w, r, status, appropriationsPage(m.o.Frame(r, fmt.Sprintf("Appropriations %d", year)), v))
}

func (m *Module) showAppropriation(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	a, err := m.o.Reads().Appropriation(year, r.PathValue("line"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	chart, err := m.o.Reads().Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	acct, _ := chart.Account(a.Line)
	v := appropriationView{Year: year, Line: a.Line, Name: acct.Name, Unit: a.Unit, Fund: a.Fund, Adopted: dollars(a.Adopted), Amended: dollars(a.Amended), Carried: dollars(a.Carried),
		Amount: dollars(a.Amount()), Expended: dollars(a.Expended), Encumbered: dollars(a.Encumbered), Available: dollars(a.Available()),
		Continuing: a.Continuing, Purpose: a.Purpose, Closed: a.Closed, Lapsed: dollars(a.Lapsed), CarriedForward: dollars(a.CarriedForward),
		CanEnd: a.Continuing && !a.Closed && staff.Allowed(m.o.Who(r).Role, staff.CapCertify), Today: m.o.Today().String()}
	if a.Ended != nil {
		v.Ended = a.Ended.Reason + " on " + a.Ended.On.String()
	}
	for _, c := range a.Charges {
		row := chargeView{Ref: c.Ref, Type: c.Type, On: c.On.String(), Amount: dollars(c.Amount), Description: c.Description}
		switch c.Type {
		case "order":
			row.URL = "/staff/orders/" + url.PathEscape(c.Ref)
		}
		v.Charges = append(v.Charges, row)
	}
	m.o.Render(w, r, http.StatusOK, appropriationPage(m.o.Frame(r, fmt.Sprintf("%s in %d", a.Line, year)), v))
}

// payrollIsClaim reports whether the ledger pays an employment's payroll
// by a claim and refuses the expense kind: from ledger format 6
// (domain.ReconciledFormat). A ledger that does not say its format is
// this build's.
func (m *Module) payrollIsClaim() bool {
	return m.o.LedgerFormat() >= domain.ReconciledFormat
}

// submitExpense takes the treasurer's payroll expense, which a ledger
// below format 6 still charges; from format 6 the ledger refuses it and
// says to enter a claim naming the employment.
func (m *Module) submitExpense(w http.ResponseWriter, r *http.Request) {
	f := expenseForm{Line: m.o.Form(r, "line"), On: m.o.Form(r, "on"), Amount: m.o.Form(r, "amount"), Payee: m.o.Form(r, "payee"), Description: m.o.Form(r, "description"), Against: m.o.Form(r, "against")}
	year := m.o.Today().Year()
	err := func() error {
		on, err := staff.ParseDate("The day of the expense", f.On)
		if err != nil {
			return err
		}
		year = on.Year()
		amt, err := staff.ParseAmount("The amount", f.Amount)
		if err != nil {
			return err
		}
		_, err = m.o.Submit(r, &domain.Expense{Line: f.Line, On: on, Amount: amt, Payee: f.Payee, Description: f.Description, Against: f.Against})
		return err
	}()
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) { f.Error = msg; m.appropriationsPage(w, r, status, year, f) })
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/appropriations/%d", year))
}

func (m *Module) submitEnd(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	line := r.PathValue("line")
	err = func() error {
		on, err := staff.ParseDate("The day it ended", m.o.Form(r, "on"))
		if err != nil {
			return err
		}
		_, err = m.o.Submit(r, &domain.AppropriationEnd{Year: year, Line: line, On: on, Reason: m.o.Form(r, "reason")})
		return err
	}()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/appropriations/%d/%s", year, url.PathEscape(line)))
}

// showClose serves GET /staff/appropriations/{year}/close: the preview of
// the close, which is exactly what closing records.
func (m *Module) showClose(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.closePage(w, r, http.StatusOK, year, "")
}

func (m *Module) closePage(w http.ResponseWriter, r *http.Request, status, year int, problem string) {
	fy, ok, err := m.o.Reads().FiscalYear(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.05", "There is no adopted budget for %d.", year))
		return
	}
	plan, err := m.o.Reads().YearEndPreview(year)
	if fy.Closed && fy.Close != nil {
		plan = *fy.Close
	}
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	last := domain.NewDate(year, 12, 31)
	v := closeView{Year: year, Closed: fy.Closed, ClosedOn: date(fy.ClosedOn), ClosedBy: fy.ClosedBy, GeneralFund: plan.GeneralFund, Lapsed: dollars(plan.Lapsed), Carried: dollars(plan.Carried),
		LastDay: last.String(), Early: m.o.Today().Before(last), CanClose: staff.Allowed(m.o.Who(r).Role, staff.CapCertify), Error: problem}
	for _, l := range plan.Lines {
		v.Lines = append(v.Lines, closeLine{Line: l.Line, Available: dollars(l.Available), Encumbered: dollars(l.Encumbered), Continuing: l.Continuing,
			Lapsed: dollars(l.Lapsed), Carried: dollars(l.Carried), Orders: l.Orders})
	}
	m.o.Render(w, r, status, closePage(m.o.Frame(r, fmt.Sprintf("Close %d", year)), v))
}

func (m *Module) submitClose(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if _, err := m.o.Submit(r, &domain.YearEndClose{Year: year}); err != nil {
		m.formFail(w, r, err, func(status int, msg string) { m.closePage(w, r, status, year, msg) })
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/appropriations/%d/close", year))
}

// noticeNamesHearing reports whether a notice of the hearing records the
// day it names: from ledger format 7 (domain.DocumentsFormat), since a
// node of an earlier release refuses the field.
func (m *Module) noticeNamesHearing() bool {
	return m.o.LedgerFormat() >= domain.DocumentsFormat
}
