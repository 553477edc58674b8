// Package assessments is the clerk's office's special assessments and
// special charges (§5.14): the project of a work or improvement from the
// board's preliminary resolution through the report, the notice (and the
// mailed letters, a PDF), the hearing, the final resolution and the levy;
// each parcel's assessment, its installments, its payments at the window
// and its appeal; the board's changes with their refunds; the repair
// notices and the special charges of §5.14(13); and the API for all of it.
//
// It is a staff.Module. Its handlers hold no rule: they read the domain
// (domain.Reads, the ledger's parcels), build the commands of
// assessmentproject.go, assessmentlevy.go and specialcharge.go, submit
// them through the office and show what the domain computed. Every route
// names its capability (staff.CapReadAssessments …, kiosk/staff/roles.go).
package assessments

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the special assessments capability of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module, to mount on the office.
func New() *Module { return &Module{} }

var _ staff.Module = (*Module)(nil)

// Mount adds the module's pages, API routes, navigation and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/assessments", staff.CapReadAssessments, m.showProjectsPage)
	o.Page("GET /staff/assessments/new", staff.CapAssessmentBoard, m.showNewProjectPage)
	o.Page("POST /staff/assessments", staff.CapAssessmentBoard, m.submitPreliminary)
	o.Page("GET /staff/assessments/{project}", staff.CapReadAssessments, m.showProjectPage)
	o.Page("GET /staff/assessments/{project}/documents/{doc}", staff.CapReadAssessments, m.showDocument)
	o.Page("GET /staff/assessments/{project}/letters.pdf", staff.CapReadAssessments, m.showNoticeLetters)
	for _, st := range steps {
		o.Page("POST /staff/assessments/{project}/"+st.name, st.cap, m.submitStep(st))
	}
	o.Page("GET /staff/assessment/{id}", staff.CapReadAssessments, m.showAssessmentPage)
	o.Page("POST /staff/assessment/{id}/appeal", staff.CapAssessmentClerk, m.submitAppeal)
	o.Page("GET /staff/assessment/{id}/pay", staff.CapWindow, m.showWindowPage)
	o.Page("POST /staff/assessment/{id}/pay", staff.CapWindow, m.submitWindowPayment)
	o.Page("GET /staff/special-charges", staff.CapReadAssessments, m.showChargesPage)
	o.Page("POST /staff/special-charges/notices", staff.CapSpecialCharges, m.submitRepairNotice)
	o.Page("POST /staff/special-charges/notices/{id}/hearing", staff.CapSpecialCharges, m.submitRepairHearing)
	o.Page("GET /staff/special-charges/notices/{id}/letters.pdf", staff.CapReadAssessments, m.showRepairLetters)
	o.Page("POST /staff/special-charges", staff.CapSpecialCharges, m.submitSpecialCharge)
	m.mountAPI(o)
	o.Nav(staff.CapReadAssessments, "Special assessments", "/staff/assessments")
	o.Alert(m.alerts)
	return nil
}

// alerts raise the next step of each project with the people who take
// it: the notice, the publication and the levy.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
	ps, err := m.o.Reads().AssessmentProjects()
	if err != nil {
		return nil, err
	}
	var out []staffview.Alert
	for _, p := range ps {
		var text string
		switch {
		case p.Stage == domain.StageReported && staff.Allowed(who.Role, staff.CapAssessmentClerk):
			text = fmt.Sprintf("The report on project %s is filed: give notice of the hearing (§5.14(6)).", p.ID)
		case p.Stage == domain.StageAdopted && staff.Allowed(who.Role, staff.CapAssessmentClerk):
			text = fmt.Sprintf("Publish the final resolution of project %s (§5.14(7)(e)).", p.ID)
		case p.Stage == domain.StageFinal && staff.Allowed(who.Role, staff.CapAssessmentLevy):
			text = fmt.Sprintf("The final resolution of project %s is published: levy its assessments.", p.ID)
		default:
			continue
		}
		out = append(out, staffview.Alert{TestID: "alert-assessment-" + p.ID, Text: text, URL: "/staff/assessments/" + p.ID})
	}
	return out, nil
}

// fail shows err as a form's problem on the page render makes, or as the
// error page when it is not one the person can fix.
func (m *Module) formFail(w http.ResponseWriter, r *http.Request, err error, render func(status int, msg string)) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	render(status, msg)
}

// newID returns a fresh record id with a prefix, made before the command
// enters the log: "SC-2026-08-03-1f3a9c0b".
func (m *Module) newID(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + m.o.Today().String() + "-" + hex.EncodeToString(b)
}

// basisTitle names a basis for people.
func basisTitle(b string) string {
	if b == domain.BasisPolicePower {
		return "police power"
	}
	return "benefits"
}

func (m *Module) showProjectsPage(w http.ResponseWriter, r *http.Request) {
	ps, err := m.o.Reads().AssessmentProjects()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Projects{CanCreate: staff.Allowed(m.o.Who(r).Role, staff.CapAssessmentBoard)}
	params := m.o.Ledger().Params()
	for _, p := range ps {
		row := ProjectRow{ID: p.ID, Purpose: p.Purpose, Stage: domain.StageTitle(p.Stage), Parcels: strconv.Itoa(len(p.District)), URL: "/staff/assessments/" + p.ID}
		if s, err := p.Schedule(params); err == nil {
			row.Estimate = s.Estimate.String()
		}
		if p.Levy != nil {
			row.Levied = p.Levy.Levied.String()
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, ProjectsPage(m.o.Frame(r, "Special assessments"), v))
}

func (m *Module) showNewProjectPage(w http.ResponseWriter, r *http.Request) {
	m.newProjectPage(w, r, http.StatusOK, PreliminaryForm{AdoptedOn: m.o.Today().String(), Installments: "0", Basis: domain.BasisBenefit})
}

func (m *Module) newProjectPage(w http.ResponseWriter, r *http.Request, status int, f PreliminaryForm) {
	parcels, err := m.o.Ledger().Parcels()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	slices.SortFunc(parcels, func(a, b domain.Parcel) int { return strings.Compare(a.ID, b.ID) })
	for _, pc := range parcels {
		f.Parcels = append(f.Parcels, Option{Value: pc.ID, Label: pc.Address})
	}
	m.o.Render(w, r, status, NewProjectPage(m.o.Frame(r, "Preliminary resolution (§5.14(3)(a))"), f))
}

// lines splits a text area into its non-blank lines, trimmed.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// optionalDate reads a date that may be left empty.
func optionalDate(what, s string) (domain.Date, error) {
	if strings.TrimSpace(s) == "" {
		return domain.Date{}, nil
	}
	return staff.ParseDate(what, s)
}

// optionalAmount reads an amount that may be left empty (0.00).
func optionalAmount(what, s string) (domain.Money, error) {
	if strings.TrimSpace(s) == "" {
		return domain.Cents(0), nil
	}
	return staff.ParseAmount(what, s)
}

// count reads a whole number that may be left empty (0).
func count(what, s string) (int, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, domain.Errorf(domain.EINVALID, "", "%s %q is not a whole number.", what, s)
	}
	return n, nil
}

// PreliminaryOf reads a preliminary resolution's form.
func preliminaryOf(o *staff.Office, r *http.Request) (PreliminaryForm, *domain.AssessmentPreliminary, error) {
	f := PreliminaryForm{Project: o.Form(r, "project"), Number: o.Form(r, "number"), AdoptedOn: o.Form(r, "adopted_on"), Purpose: o.Form(r, "purpose"), Basis: o.Form(r, "basis"),
		Improvements: o.Form(r, "improvements"), District: o.Form(r, "district"), Limits: o.Form(r, "limits"), Installments: o.Form(r, "installments"), CostShare: o.Form(r, "cost_share"), Officer: o.Form(r, "officer")}
	in := &domain.AssessmentPreliminary{Project: f.Project, Number: f.Number, Purpose: f.Purpose, Basis: f.Basis, Improvements: lines(f.Improvements), District: lines(f.District), Limits: f.Limits, Officer: f.Officer}
	var err error
	if in.AdoptedOn, err = staff.ParseDate("The adoption date", f.AdoptedOn); err != nil {
		return f, in, err
	}
	if in.Installments, err = count("The number of installments", f.Installments); err != nil {
		return f, in, err
	}
	if f.CostShare != "" {
		share, err := domain.ParseRate(f.CostShare)
		if err != nil {
			return f, in, err
		}
		in.CostShare = &share
	}
	return f, in, nil
}

func (m *Module) submitPreliminary(w http.ResponseWriter, r *http.Request) {
	f, in, err := preliminaryOf(m.o, r)
	if err == nil {
		_, err = m.o.Submit(r, in)
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			f.Error = msg
			m.newProjectPage(w, r, status, f)
		})
		return
	}
	m.o.Redirect(w, r, "/staff/assessments/"+in.Project)
}

// showDocument serves a document a report attached: plans and
// specifications, as filed.
func (m *Module) showDocument(w http.ResponseWriter, r *http.Request) {
	d, err := m.o.Reads().AssessmentDocument(r.PathValue("doc"))
	if err != nil || d.Project != r.PathValue("project") {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such document."))
		return
	}
	serveDocument(w, d)
}

// serveDocument writes an attached document for download. Its type is
// what the uploader said it was, but the browser is told not to sniff or
// run it: it is downloaded, never shown inline.
func serveDocument(w http.ResponseWriter, d domain.AssessmentDocument) {
	ct := d.ContentType
	if ct != "application/pdf" && !strings.HasPrefix(ct, "image/") && ct != "text/plain" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", safeFileName(d.Name)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(d.Data)
}

// safeFileName keeps the letters, digits, dots, dashes and underscores of
// a file name, for a download's header.
func safeFileName(s string) string {
	out := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
	if out == "" {
		return "document"
	}
	return out
}
