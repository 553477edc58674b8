package payables

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

type sigView struct {
	ID, Official, Office, Form, Approval, Approved, Withdrawn, Uses string
	Usable                                                          bool
}

type runRow struct {
	ID, URL, On, Account, Total, By string
	Checks                          int
}

type checksView struct {
	Payable    []claimRow
	Signatures []sigView
	Runs       []runRow
	Accounts   []option // the depositories checks are drawn on
	Today      string
	Error      string
	CanRun     bool
	CanSign    bool
}

func (m *Module) showChecks(w http.ResponseWriter, r *http.Request) {
	m.checksPage(w, r, http.StatusOK, "")
}

func (m *Module) checksPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	reads := m.o.Reads()
	role := m.o.Who(r).Role
	today := m.o.Today()
	v := checksView{Today: today.String(), Error: msg, CanRun: staff.Allowed(role, staff.CapCheckRuns), CanSign: staff.Allowed(role, staff.CapSignatures)}
	for _, y := range []int{today.Year() - 1, today.Year()} {
		cls, err := reads.PayableClaims(y)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, c := range cls {
			v.Payable = append(v.Payable, rowOf(c))
		}
	}
	deps, err := reads.Depositories()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, d := range deps {
		if d.Number != "" && d.DesignatedOn(today) {
			v.Accounts = append(v.Accounts, option{Value: d.ID, Label: d.Name + ", " + d.Institution + ", account " + d.Number})
		}
	}
	sigs, err := reads.Signatures()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, s := range sigs {
		sv := sigView{ID: s.ID, Official: s.Official, Office: s.Office, Form: s.Form, Approval: s.Approval, Approved: s.ApprovedOn.String(),
			Uses: strings.Join(s.Uses, ", "), Usable: s.Usable(today)}
		if s.Withdrawn != nil {
			sv.Withdrawn = fmt.Sprintf("withdrawn from %s (%s)", s.WithdrawOn, s.Withdrawn.Reason)
		}
		v.Signatures = append(v.Signatures, sv)
	}
	runs, err := reads.CheckRuns()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for i := len(runs) - 1; i >= 0; i-- {
		x := runs[i]
		v.Runs = append(v.Runs, runRow{ID: x.ID, URL: "/staff/checks/runs/" + url.PathEscape(x.ID), On: x.On.String(), Account: x.Account, Total: dollars(x.Total), By: x.By, Checks: len(x.Checks)})
	}
	m.o.Render(w, r, status, checksPage(m.o.Frame(r, "Checks"), v))
}

func (m *Module) afterChecks(w http.ResponseWriter, r *http.Request, err error, to string) {
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			m.checksPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, to)
}

func (m *Module) submitRun(w http.ResponseWriter, r *http.Request) {
	on, err := staff.ParseDate("The date of the run", m.o.Form(r, "on"))
	var res domain.Result
	if err == nil {
		res, err = m.o.Submit(r, &domain.CheckRun{On: on, Account: m.o.Form(r, "account"), Claims: r.PostForm["claim"], Signatures: r.PostForm["signature"]})
	}
	m.afterChecks(w, r, err, "/staff/checks/runs/"+url.PathEscape(res.Ref))
}

func (m *Module) submitStock(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(m.o.Form(r, "next"))
	if err != nil {
		err = domain.Errorf(domain.EINVALID, "", "The next check number is a whole number, not %q.", m.o.Form(r, "next"))
	} else {
		_, err = m.o.Submit(r, &domain.CheckStock{Next: n, Account: m.o.Form(r, "account")})
	}
	m.afterChecks(w, r, err, "/staff/checks")
}

func (m *Module) submitSignature(w http.ResponseWriter, r *http.Request) {
	p := &domain.SignatureChange{Op: m.o.Form(r, "op"), ID: m.o.Form(r, "id"), Official: m.o.Form(r, "official"), Office: m.o.Form(r, "office"),
		Form: m.o.Form(r, "form"), Approval: m.o.Form(r, "approval")}
	var err error
	if p.Op == "approve" {
		p.ApprovedOn, err = staff.ParseDate("The day of the board's approval", m.o.Form(r, "on"))
	} else {
		p.WithdrawOn, err = staff.ParseDate("The day of the withdrawal", m.o.Form(r, "on"))
	}
	if err == nil {
		_, err = m.o.Submit(r, p)
	}
	m.afterChecks(w, r, err, "/staff/checks")
}

type checkView struct {
	Number, Claim, ClaimURL, Payee, Purpose, Line, Amount, Void string
	Voidable                                                    bool
}

type runView struct {
	ID, On, Account, Total, By, At, Signatures string
	Checks                                     []checkView
	CanRun                                     bool
	Error                                      string
}

func (m *Module) showRun(w http.ResponseWriter, r *http.Request) { m.runPage(w, r, http.StatusOK, "") }

func (m *Module) runPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	run, err := m.o.Reads().CheckRun(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	can := staff.Allowed(m.o.Who(r).Role, staff.CapCheckRuns)
	v := runView{ID: run.ID, On: run.On.String(), Account: run.Account, Total: dollars(run.Total), By: run.By, At: run.At.String(), Signatures: strings.Join(run.Signatures, ", "), CanRun: can, Error: msg}
	for _, n := range run.Checks {
		c, err := m.o.Reads().Check(n)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		cv := checkView{Number: itoa(c.Number), Claim: c.Claim, ClaimURL: "/staff/claims/" + url.PathEscape(c.Claim), Payee: c.Payee, Purpose: c.Purpose, Line: c.Line, Amount: dollars(c.Amount), Voidable: can && c.Void == nil}
		if c.Void != nil {
			cv.Void = fmt.Sprintf("void: %s (%s, %s)", c.Void.Reason, c.Void.By, c.Void.At)
		}
		v.Checks = append(v.Checks, cv)
	}
	m.o.Render(w, r, status, runPage(m.o.Frame(r, "Check run "+run.ID), v))
}

func (m *Module) submitVoid(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no check %q.", r.PathValue("number")))
		return
	}
	c, err := m.o.Reads().Check(n)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	_, err = m.o.Submit(r, &domain.CheckVoid{Number: n, Reason: m.o.Form(r, "reason")})
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			r.SetPathValue("id", c.Run)
			m.runPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/checks/runs/"+url.PathEscape(c.Run))
}

// showPositivePay serves a run's checks as the bank's positive-pay file:
// one line a check the bank may honour, with the bank's number of the
// account it is drawn on, its number, date, amount and payee; a voided
// check is listed as void, so the bank refuses it. A run of an older
// ledger named its account in words, which the file repeats.
func (m *Module) showPositivePay(w http.ResponseWriter, r *http.Request) {
	run, err := m.o.Reads().CheckRun(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	account := run.Account
	if deps, err := m.o.Reads().Depositories(); err == nil {
		for _, d := range deps {
			if d.ID == run.Account && d.Number != "" {
				account = d.Number
			}
		}
	}
	out := m.o.CSV(w, "positive-pay-"+run.ID+".csv")
	out.Write([]string{"account", "check_number", "issue_date", "amount", "payee", "status"})
	for _, n := range run.Checks {
		c, err := m.o.Reads().Check(n)
		if err != nil {
			return
		}
		status := "issued"
		if c.Void != nil {
			status = "void"
		}
		out.Write([]string{account, itoa(c.Number), c.On.String(), c.Amount.String(), c.Payee, status})
	}
	out.Flush()
}
