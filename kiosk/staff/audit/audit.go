// Package audit is the auditors' part of the clerk's office (§5.15): the
// certified public accounting firm engaged for each calendar year with
// the board's confirmation, and the yearly extract of the ledger for the
// auditors (extract.go), verifiable with `appliance verify --extract`.
// It is a staff.Module.
package audit

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is the auditors' part of the office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the audit's routes and link.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/audit", staff.CapAudit, m.showAudit)
	o.Page("POST /staff/audit/engagements", staff.CapAuditEngagement, m.submitEngagement)
	o.Page("GET /staff/audit/{year}/extract.zip", staff.CapAudit, m.showExtract)
	o.API("GET /api/v1/audit/{year}/extract.zip", staff.CapAudit, m.showExtract)
	o.API("GET /api/v1/audit/engagements", staff.CapAudit, m.apiEngagements)
	o.API("POST /api/v1/audit/engagements", staff.CapAuditEngagement, m.apiEngagement)
	o.Nav(staff.CapAudit, "Audit", "/staff/audit")
	return nil
}

type engagementRow struct {
	Year                              int
	Firm, Contact, Confirmation, By   string
	ConfirmedOn, Recorded, ExtractURL string
}

type auditView struct {
	Engagements []engagementRow
	Years       []int
	Error       string
	Form        engagementForm
	CanEngage   bool
}

type engagementForm struct{ Year, Firm, Contact, Confirmation, ConfirmedOn string }

func (m *Module) showAudit(w http.ResponseWriter, r *http.Request) {
	m.auditPage(w, r, http.StatusOK, engagementForm{Year: strconv.Itoa(m.o.Today().Year()), ConfirmedOn: m.o.Today().String()}, "")
}

func (m *Module) auditPage(w http.ResponseWriter, r *http.Request, status int, f engagementForm, msg string) {
	es, err := m.o.Reads().AuditEngagements()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	y := m.o.Today().Year()
	v := auditView{Years: []int{y, y - 1, y - 2}, Error: msg, Form: f, CanEngage: staff.Allowed(m.o.Who(r).Role, staff.CapAuditEngagement)}
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		v.Engagements = append(v.Engagements, engagementRow{Year: e.Year, Firm: e.Firm, Contact: e.Contact, Confirmation: e.Confirmation, By: e.By,
			ConfirmedOn: e.ConfirmedOn.String(), Recorded: e.Recorded.String(), ExtractURL: fmt.Sprintf("/staff/audit/%d/extract.zip", e.Year)})
	}
	m.o.Render(w, r, status, auditPage(m.o.Frame(r, "Audit"), v))
}

func (m *Module) submitEngagement(w http.ResponseWriter, r *http.Request) {
	f := engagementForm{Year: m.o.Form(r, "year"), Firm: m.o.Form(r, "firm"), Contact: m.o.Form(r, "contact"), Confirmation: m.o.Form(r, "confirmation"), ConfirmedOn: m.o.Form(r, "confirmed_on")}
	year, err := strconv.Atoi(f.Year)
	if err != nil {
		err = domain.Errorf(domain.EINVALID, "§5.15", "The year is a number, not %q.", f.Year)
	}
	var on domain.Date
	if err == nil {
		on, err = staff.ParseDate("The day of the board's confirmation", f.ConfirmedOn)
	}
	if err == nil {
		_, err = m.o.Submit(r, &domain.AuditEngagement{Year: year, Firm: f.Firm, Contact: f.Contact, Confirmation: f.Confirmation, ConfirmedOn: on})
	}
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			m.auditPage(w, r, status, f, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/audit")
}

// showExtract serves the extract of a year as a zip (a page and an API
// call: the auditors' scripts fetch it with a token), streamed as it is
// written. An error before the archive's first bytes leave is answered as
// any other; one after is logged, and the archive ends without its
// directory, which no zip reader opens.
func (m *Module) showExtract(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(r.PathValue("year"))
	if err != nil || year < 1900 || year > 9999 {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.15", "There is no year %q.", r.PathValue("year")))
		return
	}
	out := &download{w: w, name: fmt.Sprintf("belleville-audit-extract-%d.zip", year)}
	if err := WriteExtract(out, m.o.Reads(), m.o.Journal(), year, m.o.Now()); err != nil {
		if !out.started {
			m.o.Fail(w, r, err)
			return
		}
		m.o.Log().Error("audit extract", "year", year, "err", err)
	}
}

// download is a zip download whose headers are set when its first bytes
// are written, so that an error before then can still be answered with
// an error page.
type download struct {
	w       http.ResponseWriter
	name    string
	started bool
}

func (d *download) Write(p []byte) (int, error) {
	if !d.started {
		d.started = true
		d.w.Header().Set("Content-Type", "application/zip")
		d.w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, d.name))
	}
	return d.w.Write(p)
}

func (m *Module) apiEngagements(w http.ResponseWriter, r *http.Request) {
	es, err := m.o.Reads().AuditEngagements()
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if es == nil {
		es = []domain.AuditEngagement{}
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"engagements": es})
}

func (m *Module) apiEngagement(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.AuditEngagement](m.o, w, r, "an engagement", nil)
}
