// Package payables is the Finance Director/Treasurer's accounts payable
// (§5.07(2)-(4), §5.18): claims and their four certifications, check runs
// with the board's approved signatures, voids, the positive-pay file for
// the bank, the monthly check register for the board and its review, and
// the accounts payable policy with its annual review. It is a
// staff.Module; every rule is the domain's (domain/payable.go).
package payables

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is accounts payable's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the routes, links and alerts of accounts payable.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	page := o.Page
	page("GET /staff/claims", staff.CapReadPayables, m.showClaims)
	page("POST /staff/claims", staff.CapClaims, m.submitClaim)
	page("GET /staff/claims/{id}", staff.CapReadPayables, m.showClaim)
	page("POST /staff/claims/{id}/certify", staff.CapClaims, m.submitCertification)
	page("POST /staff/claims/{id}/endorse", staff.CapCheckRuns, m.submitEndorsement)
	page("POST /staff/claims/{id}/cancel", staff.CapClaims, m.submitCancel)
	page("GET /staff/checks", staff.CapReadPayables, m.showChecks)
	page("POST /staff/checks/runs", staff.CapCheckRuns, m.submitRun)
	page("GET /staff/checks/runs/{id}", staff.CapReadPayables, m.showRun)
	page("GET /staff/checks/runs/{id}/positive-pay.csv", staff.CapCheckRuns, m.showPositivePay)
	page("POST /staff/checks/stock", staff.CapCheckRuns, m.submitStock)
	page("POST /staff/checks/{number}/void", staff.CapCheckRuns, m.submitVoid)
	page("POST /staff/signatures", staff.CapSignatures, m.submitSignature)
	page("GET /staff/check-register", staff.CapReadPayables, m.showRegister)
	page("GET /staff/check-register/{month}/register.pdf", staff.CapReadPayables, m.showRegisterPDF)
	page("GET /staff/check-register/{month}/register.csv", staff.CapReadPayables, m.showRegisterCSV)
	page("POST /staff/check-register/{month}/review", staff.CapRegister, m.submitReview)
	page("GET /staff/ap-policy", staff.CapReadPayables, m.showPolicy)
	page("POST /staff/ap-policy", staff.CapAPPolicy, m.submitPolicy)

	api := o.API
	api("GET /api/v1/claims", staff.CapReadPayables, m.apiClaims)
	api("GET /api/v1/claims/{id}", staff.CapReadPayables, m.apiClaim)
	api("POST /api/v1/claims", staff.CapClaims, m.apiClaimChange)
	api("GET /api/v1/check-runs", staff.CapReadPayables, m.apiRuns)
	api("POST /api/v1/check-runs", staff.CapCheckRuns, m.apiRun)
	api("POST /api/v1/checks/void", staff.CapCheckRuns, m.apiVoid)
	api("GET /api/v1/check-register/{month}", staff.CapReadPayables, m.apiRegister)
	api("GET /api/v1/signatures", staff.CapReadPayables, m.apiSignatures)
	api("POST /api/v1/signatures", staff.CapSignatures, m.apiSignature)

	o.Nav(staff.CapReadPayables, "Claims", "/staff/claims")
	o.Nav(staff.CapReadPayables, "Checks", "/staff/checks")
	o.Alert(m.alerts)
	return nil
}

func dollars(m domain.Money) string { return staff.Dollars(m) }

func itoa(n int) string { return strconv.Itoa(n) }

// year reads ?year=, else this year.
func (m *Module) year(r *http.Request) int {
	if y, err := strconv.Atoi(r.URL.Query().Get("year")); err == nil && y > 1900 && y < 10000 {
		return y
	}
	return m.o.Today().Year()
}

// claimRow is a claim in a list.
type claimRow struct {
	ID, URL, Vendor, Invoice, Line, Amount, Status, Missing, Check string
}

func rowOf(c domain.Claim) claimRow {
	return claimRow{ID: c.ID, URL: "/staff/claims/" + url.PathEscape(c.ID), Vendor: c.Vendor, Invoice: c.Invoice, Line: c.Line, Amount: dollars(c.Amount),
		Status: c.Status, Missing: strings.Join(c.Missing(), ", "), Check: strings.TrimLeft(c.Check, "0")}
}

type option struct {
	Value, Label string
	Selected     bool
}

type claimForm struct {
	Line, Vendor, Invoice, InvoiceDate, Amount, Order, Employment, Description string
	Error                                                                      string
}

type claimsView struct {
	Year, Prev, Next int
	// Claims are a page of the year's, newest first: from Newest down to
	// Oldest of Count; Newer and Older link the pages beside it.
	Claims         []claimRow
	Count          int
	Newest, Oldest string
	Newer, Older   string
	Lines          []option
	// Employments are the open employments whose payroll a claim may pay
	// (ledger format 6); Payroll says the ledger takes such claims.
	Employments []option
	Payroll     bool
	Form        claimForm
	CanEnter    bool
}

// payrollClaims reports whether the ledger takes claims that pay an
// employment's payroll: from ledger format 6 (domain.ReconciledFormat).
// Until every node applies that format the field is not offered, as a
// node of an earlier release would refuse it. A ledger that does not say
// its format is this build's.
func (m *Module) payrollClaims() bool {
	return m.o.LedgerFormat() >= domain.ReconciledFormat
}

// claimsPerPage is how many claims a page of the claims list shows.
const claimsPerPage = 100

// sectionClaims is the section of the claims' rules, named by the
// page's own refusals.
const sectionClaims = "§5.07(3)"

// claimNumber is the number of a claim's id (CL-YYYY-NNNN); 0 for
// another id.
func claimNumber(id string) int {
	n, _ := strconv.Atoi(id[strings.LastIndexByte(id, '-')+1:])
	return n
}

func (m *Module) showClaims(w http.ResponseWriter, r *http.Request) {
	m.claimsPage(w, r, http.StatusOK, claimForm{InvoiceDate: m.o.Today().String()})
}

func (m *Module) claimsPage(w http.ResponseWriter, r *http.Request, status int, f claimForm) {
	year := m.year(r)
	from, err := queryNumber(r, "from", 0, "a claim number")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cls, count, err := m.o.Reads().ClaimsPage(year, from, claimsPerPage)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := claimsView{Year: year, Prev: year - 1, Next: year + 1, Form: f, CanEnter: staff.Allowed(m.o.Who(r).Role, staff.CapClaims), Count: count}
	for _, c := range cls {
		v.Claims = append(v.Claims, rowOf(c))
	}
	if len(cls) > 0 {
		page := func(from int) string { return fmt.Sprintf("/staff/claims?year=%d&from=%d", year, from) }
		v.Newest, v.Oldest = cls[0].ID, cls[len(cls)-1].ID
		if top := claimNumber(cls[0].ID); top < count {
			v.Newer = page(min(count, top+claimsPerPage))
		}
		if low := claimNumber(cls[len(cls)-1].ID); low > 1 {
			v.Older = page(low - 1)
		}
	}
	apps, err := m.o.Reads().AppropriationBalances(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, a := range apps {
		if !a.Closed {
			v.Lines = append(v.Lines, option{Value: a.Line, Label: fmt.Sprintf("%s (%s available)", a.Line, dollars(a.Available())), Selected: a.Line == f.Line})
		}
	}
	if v.Payroll = m.payrollClaims(); v.Payroll {
		emps, err := m.o.Reads().Employments(year)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, e := range emps {
			if e.Cancelled {
				continue
			}
			open := e.Amount.Sub(e.Charged).Max(domain.Money{})
			v.Employments = append(v.Employments, option{Value: e.ID, Label: fmt.Sprintf("%s %s, %s (%s, %s not yet charged)", e.ID, e.Person, e.Position, e.Line, dollars(open)),
				Selected: e.ID == f.Employment})
		}
	}
	m.o.Render(w, r, status, claimsPage(m.o.Frame(r, fmt.Sprintf("Claims %d", year)), v))
}

func (m *Module) submitClaim(w http.ResponseWriter, r *http.Request) {
	f := claimForm{Line: m.o.Form(r, "line"), Vendor: m.o.Form(r, "vendor"), Invoice: m.o.Form(r, "invoice"), InvoiceDate: m.o.Form(r, "invoice_date"),
		Amount: m.o.Form(r, "amount"), Order: m.o.Form(r, "order"), Employment: m.o.Form(r, "employment"), Description: m.o.Form(r, "description")}
	p := &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: f.Vendor, Invoice: f.Invoice, Line: f.Line, Order: f.Order, Employment: f.Employment, Description: f.Description}
	var err error
	if p.InvoiceDate, err = staff.ParseDate("The invoice date", f.InvoiceDate); err == nil {
		p.Amount, err = staff.ParseAmount("The amount", f.Amount)
	}
	var res domain.Result
	if err == nil {
		res, err = m.o.Submit(r, p)
	}
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			f.Error = msg
			m.claimsPage(w, r, status, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/claims/"+url.PathEscape(res.Ref))
}

type certView struct {
	What, Label, By, Role, At, Basis, Proof, Note string
}

type claimView struct {
	domain.Claim
	AmountText, Entered string
	Certs               []certView
	Missing             []option // value: certification, label: the condition
	CanCertify          bool
	CanCancel           bool
	CanEndorse          bool
	Endorsed            string
	Cancelled           string
	Error               string
}

// conditions are the four conditions of §5.07(3) as the page states them.
var conditions = map[string]string{
	domain.CertifyFundsAvailable: "(a) funds are available for the claim under the budget the board approved",
	domain.CertifyAuthorized:     "(b) the item or service was authorized by the proper department head, board or commission",
	domain.CertifyConformity:     "(c) it was supplied or rendered in conformity with that authorization",
	domain.CertifyValid:          "(d) the claim is just and valid pursuant to law",
}

func (m *Module) showClaim(w http.ResponseWriter, r *http.Request) {
	m.claimPage(w, r, http.StatusOK, "")
}

func (m *Module) claimPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	c, err := m.o.Reads().Claim(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	can := staff.Allowed(m.o.Who(r).Role, staff.CapClaims)
	v := claimView{Claim: c, AmountText: dollars(c.Amount), Entered: c.Entered.String() + " by " + c.EnteredBy, Error: msg,
		CanCertify: can && (c.Status == domain.ClaimEntered), CanCancel: can && (c.Status == domain.ClaimEntered || c.Status == domain.ClaimCertified || c.Status == domain.ClaimApproved),
		CanEndorse: staff.Allowed(m.o.Who(r).Role, staff.CapCheckRuns) && c.Endorsement == nil && len(c.Missing()) == 0 && (c.Status == domain.ClaimCertified || c.Status == domain.ClaimApproved)}
	if e := c.Endorsement; e != nil {
		v.Endorsed = fmt.Sprintf("Approved by %s (%s) at %s, endorsing the four conditions (§5.07(3)).", e.By, e.Role, e.At)
	}
	for _, x := range c.Certifications {
		v.Certs = append(v.Certs, certView{What: x.What, Label: conditions[x.What], By: x.By, Role: string(x.Role), At: x.At.String(), Basis: x.Basis, Proof: x.Proof, Note: x.Note})
	}
	for _, w := range c.Missing() {
		v.Missing = append(v.Missing, option{Value: w, Label: conditions[w]})
	}
	if c.Cancelled != nil {
		v.Cancelled = fmt.Sprintf("Cancelled by %s at %s: %s", c.Cancelled.By, c.Cancelled.At, c.Cancelled.Reason)
	}
	m.o.Render(w, r, status, claimPage(m.o.Frame(r, "Claim "+c.ID), v))
}

func (m *Module) afterClaim(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok && status != http.StatusNotFound {
			m.claimPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/claims/"+url.PathEscape(r.PathValue("id")))
}

func (m *Module) submitCertification(w http.ResponseWriter, r *http.Request) {
	_, err := m.o.Submit(r, &domain.ClaimChange{Op: domain.ClaimCertify, ID: r.PathValue("id"), Certification: m.o.Form(r, "certification"),
		Basis: m.o.Form(r, "basis"), Proof: m.o.Form(r, "proof"), Note: m.o.Form(r, "note")})
	m.afterClaim(w, r, err)
}

// submitEndorsement records the treasurer's endorsement of a claim's four
// conditions (§5.07(3)), which makes it payable.
func (m *Module) submitEndorsement(w http.ResponseWriter, r *http.Request) {
	_, err := m.o.Submit(r, &domain.ClaimChange{Op: domain.ClaimEndorse, ID: r.PathValue("id"), Note: m.o.Form(r, "note")})
	m.afterClaim(w, r, err)
}

func (m *Module) submitCancel(w http.ResponseWriter, r *http.Request) {
	_, err := m.o.Submit(r, &domain.ClaimChange{Op: domain.ClaimCancel, ID: r.PathValue("id"), Reason: m.o.Form(r, "reason")})
	m.afterClaim(w, r, err)
}

// alerts: the accounts payable policy's annual review (§5.07(2)) for who
// keeps it, and last month's check register not yet reviewed by the
// board (§5.07(4)) for who records the review.
func (m *Module) alerts(_ context.Context, who staff.Who) ([]staffview.Alert, error) {
	var out []staffview.Alert
	today := m.o.Today()
	if staff.Allowed(who.Role, staff.CapAPPolicy) {
		pol, ok, err := m.o.Reads().APPolicy()
		if err != nil {
			return nil, err
		}
		switch {
		case !ok:
			out = append(out, staffview.Alert{TestID: "alert-ap-policy", Text: "The village has no accounts payable policy on record (§5.07(2)).", URL: "/staff/ap-policy"})
		case today.After(pol.ReviewDue):
			out = append(out, staffview.Alert{TestID: "alert-ap-policy", Text: fmt.Sprintf("The accounts payable policy was due for its annual review on %s (§5.07(2)).", pol.ReviewDue), URL: "/staff/ap-policy", Due: pol.ReviewDue.String()})
		}
	}
	if staff.Allowed(who.Role, staff.CapRegister) {
		last := domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1)
		month := last.String()[:7]
		checks, err := m.o.Reads().CheckRegister(month)
		if err != nil {
			return nil, err
		}
		_, reviewed, err := m.o.Reads().RegisterReview(month)
		if err != nil {
			return nil, err
		}
		if len(checks) > 0 && !reviewed {
			out = append(out, staffview.Alert{TestID: "alert-register", Text: fmt.Sprintf("The check register of %s (%d checks) awaits the board's review (§5.07(4)).", month, len(checks)),
				URL: "/staff/check-register?month=" + month, Count: len(checks)})
		}
	}
	return out, nil
}
