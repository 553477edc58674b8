package records

import (
	"net/http"
	"net/url"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// ShowAssessmentReportsPage lists the special assessment projects whose
// report is filed with the clerk for public inspection (§5.14(3)(b)):
// from the report's filing on, anyone may read it at the kiosk.
func (rec *Records) ShowAssessmentReportsPage(w http.ResponseWriter, r *http.Request) {
	ps, err := rec.reads.AssessmentProjects()
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.assessment_reports")
	var v view.AssessmentReports
	for i := len(ps) - 1; i >= 0; i-- {
		pr := ps[i]
		if pr.Report == nil {
			continue
		}
		v.Items = append(v.Items, view.AssessmentReportRow{ID: pr.ID, Purpose: pr.Purpose, Stage: pr.Stage, FiledOn: pr.Report.FiledOn, URL: "/assessment-reports/" + url.PathEscape(pr.ID)})
	}
	rec.pages.Render(w, r, http.StatusOK, view.AssessmentReportsPage(p, v))
}

// ShowAssessmentReportPage shows a project's report as filed (or as the
// board modified it): the estimate of the entire cost, and per parcel the
// units, the benefits, the damages and the net, with the parcel's address.
func (rec *Records) ShowAssessmentReportPage(w http.ResponseWriter, r *http.Request) {
	pr, err := rec.reads.AssessmentProject(r.PathValue("id"))
	if err == nil && pr.Report == nil {
		err = domain.Errorf(domain.ENOTFOUND, "§5.14(3)(b)", "The report of project %s is not filed yet.", pr.ID)
	}
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	sched, err := pr.Schedule(rec.ledger.Params())
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.assessment_report", "project", pr.Number)
	v := view.AssessmentReport{Project: pr, Schedule: sched, BackURL: "/assessment-reports"}
	for _, row := range sched.Rows {
		addr := row.Parcel
		if pc, err := rec.ledger.Parcel(row.Parcel); err == nil {
			addr = pc.Address
		}
		v.Addresses = append(v.Addresses, addr)
	}
	rec.pages.Render(w, r, http.StatusOK, view.AssessmentReportPage(p, v))
}
