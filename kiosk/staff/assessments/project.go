package assessments

import (
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// costRows is how many lines the estimate's forms offer.
const costRows = 6

// step is one step of a project taken from its page: its route (POST
// /staff/assessments/{project}/<name>), the capability it needs, and how
// its form becomes the step's command.
type step struct {
	name  string
	cap   staff.Capability
	build func(m *Module, r *http.Request, p domain.Project) (domain.Payload, error)
}

// steps are the forms of a project's page, in the order of §5.14.
var steps = []step{
	{"report", staff.CapAssessmentClerk, (*Module).reportOf},
	{"notice", staff.CapAssessmentClerk, (*Module).noticeOf},
	{"owner", staff.CapAssessmentClerk, (*Module).ownerOf},
	{"hearing", staff.CapAssessmentBoard, (*Module).hearingOf},
	{"final", staff.CapAssessmentBoard, (*Module).finalOf},
	{"publish", staff.CapAssessmentClerk, (*Module).publishOf},
	{"levy", staff.CapAssessmentLevy, (*Module).levyOf},
	{"change", staff.CapAssessmentBoard, (*Module).changeOf},
}

// submitStep takes one step of a project: its form read into the step's
// command and submitted. A refusal shows the project again with the
// problem beside the form, the form as typed.
func (m *Module) submitStep(st step) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := m.o.Reads().AssessmentProject(r.PathValue("project"))
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		in, err := st.build(m, r, p)
		if err == nil {
			_, err = m.o.Submit(r, in)
		}
		if err != nil {
			m.formFail(w, r, err, func(status int, msg string) { m.projectPage(w, r, status, p, st.name, msg) })
			return
		}
		m.o.Redirect(w, r, "/staff/assessments/"+p.ID)
	}
}

func (m *Module) showProjectPage(w http.ResponseWriter, r *http.Request) {
	p, err := m.o.Reads().AssessmentProject(r.PathValue("project"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.projectPage(w, r, http.StatusOK, p, "", "")
}

// projectPage shows a project, with the problem of the form of failed
// (kept as typed) when there is one.
func (m *Module) projectPage(w http.ResponseWriter, r *http.Request, status int, p domain.Project, failed, problem string) {
	v, err := m.projectView(r, p, failed)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.Error, v.ErrorStep = problem, failed
	if !shown(v.Can, failed) {
		v.ErrorStep = "" // no form to show it beside: at the top
	}
	m.o.Render(w, r, status, ProjectPage(m.o.Frame(r, "Project "+p.ID), v))
}

// shown reports whether the page shows the form of step.
func shown(c Can, step string) bool {
	return map[string]bool{"report": c.Report, "notice": c.Notice, "owner": c.Owner, "hearing": c.Hearing, "final": c.Final, "publish": c.Publish, "levy": c.Levy, "change": c.Change}[step]
}

// parcelOf returns a parcel of the ledger, or one with only its id.
func (m *Module) parcelOf(id string) domain.Parcel {
	pc, err := m.o.Ledger().Parcel(id)
	if err != nil {
		return domain.Parcel{ID: id}
	}
	return pc
}

func (m *Module) projectView(r *http.Request, p domain.Project, failed string) (Project, error) {
	today := m.o.Today()
	params := m.o.Ledger().Params()
	v := Project{ID: p.ID, Number: p.Number, AdoptedOn: p.AdoptedOn.String(), Purpose: p.Purpose, Basis: basisTitle(p.Basis), Limits: p.Limits, Officer: p.Officer,
		Installments: "to be determined at the hearing", CostShare: "all of it", Stage: domain.StageTitle(p.Stage), StageKey: p.Stage, Improvements: p.Improvements}
	if p.Installments > 0 {
		v.Installments = strconv.Itoa(p.Installments)
	}
	if p.CostShare != nil {
		v.CostShare = p.CostShare.Percent()
	}
	for _, s := range p.Steps {
		v.Steps = append(v.Steps, Step{On: s.On.String(), Kind: strings.TrimPrefix(string(s.Kind), "assessment_"), Summary: s.Summary, By: s.By})
	}
	if rp := p.Report; rp != nil {
		rv := &Report{FiledOn: rp.FiledOn.String(), Benefited: rp.Benefited}
		total := domain.Cents(0)
		for _, d := range rp.Documents {
			rv.Documents = append(rv.Documents, Doc{Name: d.Name, URL: "/staff/assessments/" + p.ID + "/documents/" + d.ID, Size: strconv.Itoa(d.Size), SHA256: d.SHA256})
		}
		for _, c := range rp.Costs {
			rv.Costs = append(rv.Costs, Cost{Improvement: c.Improvement, Category: c.Category, Description: c.Description, Amount: c.Amount.String()})
			total = total.Add(c.Amount)
		}
		rv.Estimate = total.String()
		v.Report = rv
		s, err := p.Schedule(params)
		if err != nil {
			return v, err
		}
		v.Schedule = m.scheduleView(p, s)
	}
	for _, n := range p.Notices {
		v.Notices = append(v.Notices, NoticeRow{NoticeOn: n.NoticeOn.String(), Method: n.Method, MailedOn: n.MailedOn.String(), Mailed: strconv.Itoa(n.Mailed), HearingOn: n.HearingOn.String(), HearingAt: n.HearingAt, Inspection: n.Inspection,
			LettersURL: "/staff/assessments/" + p.ID + "/letters.pdf?notice=" + n.CommandID})
	}
	if n, ok := p.LastNotice(); ok && p.Stage == domain.StageNoticed {
		if hw, err := domain.ComputeHearingWindow(domain.HearingWindowInput{NoticeOn: n.NoticeOn}, params); err == nil {
			v.Window = fmt.Sprintf("The hearing commences from %s to %s (§5.14(6): 10 to 40 days after the notice of %s).", hw.EarliestHearing, hw.LatestHearing, n.NoticeOn)
		}
	}
	for _, o := range p.Waivers {
		v.Waivers = append(v.Waivers, OwnerRow{Parcel: o.Parcel, SignedOn: o.SignedOn.String(), Signer: o.Signer})
	}
	for _, o := range p.Objections {
		v.Objections = append(v.Objections, OwnerRow{Parcel: o.Parcel, Improvement: o.Improvement, SignedOn: o.SignedOn.String(), Signer: o.Signer})
	}
	for _, h := range p.Hearings {
		hr := HearingRow{HeldOn: h.HeldOn.String(), Action: h.Action, Directions: h.Directions}
		if len(h.Modified) > 0 {
			hr.Modified = "parcels " + strings.Join(h.Modified, ", ")
		}
		if h.Costs {
			hr.Modified += " and the estimate"
		}
		v.Hearings = append(v.Hearings, hr)
	}
	if f := p.Final; f != nil {
		v.Final = &Final{Number: f.Number, AdoptedOn: f.AdoptedOn.String(), Installments: strconv.Itoa(f.Installments), Rate: f.InterestRate.Percent(), FirstDueOn: f.FirstDueOn.String(), Waived: f.Waived}
		if !f.PublishedOn.IsZero() {
			v.Final.PublishedOn, v.Final.Publication, v.Final.AppealBy = f.PublishedOn.String(), f.Publication, f.AppealBy.String()
		}
	}
	if l := p.Levy; l != nil {
		v.Levy = &Levy{LeviedOn: l.LeviedOn.String(), Assessments: strconv.Itoa(l.Assessments), Levied: l.Levied.String(), VillagePays: l.VillagePays.String(), Compensation: l.Compensation.String()}
		as, err := m.o.Reads().AssessmentsOfProject(p.ID)
		if err != nil {
			return v, err
		}
		for _, a := range as {
			f := a.Figures(today)
			row := AssessmentRow{ID: a.ID, Parcel: a.Parcel, Address: m.parcelOf(a.Parcel).Address, Amount: a.Amount.String(), Outstanding: f.Outstanding.String(), Status: f.Status, URL: "/staff/assessment/" + a.ID}
			for _, x := range a.Appeals {
				row.Appeal = x.State + " (" + x.Reference + ")"
			}
			v.Assessments = append(v.Assessments, row)
		}
	}
	for _, c := range p.Changes {
		v.Changes = append(v.Changes, ChangeRow{Op: c.Op, On: c.On.String(), NoticeOn: c.NoticeOn.String(), Reason: c.Reason, Before: c.Before.String(), After: c.After.String(), Refunds: c.Refunds.String()})
	}
	m.forms(r, p, &v, failed)
	return v, nil
}

// scheduleView formats a schedule with the parcels' addresses and owners.
func (m *Module) scheduleView(p domain.Project, s domain.Schedule) *Schedule {
	sv := &Schedule{Improvements: p.Improvements, Estimate: s.Estimate.String(), Assessed: s.Assessed.String(), VillagePays: s.VillagePays.String(), Benefits: s.Benefits.String(), Net: s.Net.String(), Compensation: s.Compensation.String()}
	for i, row := range s.Rows {
		pc := m.parcelOf(row.Parcel)
		x := ScheduleRow{Parcel: row.Parcel, Address: pc.Address, Owner: pc.Owner, Units: row.Units.String(), Assessed: row.Assessed.String(), Exempt: row.Exempt,
			Benefits: row.Benefits.String(), Damages: row.Damages.String(), Net: row.Net.String(), Compensation: row.Compensation.String(), VillagePays: row.VillagePays.String()}
		if k := p.Report.Parcels[i].Corner; k != nil {
			x.Corner = fmt.Sprintf("corner lot: %s deducted, long side %s", k.Deduction, k.LongSide)
		}
		for _, l := range row.Lines {
			x.Lines = append(x.Lines, Line{Amount: l.Assessment.String(), Separate: l.Separate})
		}
		sv.Rows = append(sv.Rows, x)
	}
	return sv
}

// forms fills in the forms of the steps the person may take next: from
// the project as it stands, or as typed when the form of failed was
// refused.
func (m *Module) forms(r *http.Request, p domain.Project, v *Project, failed string) {
	role := m.o.Who(r).Role
	may := func(c staff.Capability, stages ...string) bool {
		if !staff.Allowed(role, c) {
			return false
		}
		for _, s := range stages {
			if p.Stage == s {
				return true
			}
		}
		return false
	}
	today := m.o.Today().String()
	typed := func(step, name, def string) string {
		if failed == step {
			return m.o.Form(r, name)
		}
		return def
	}
	v.Can = Can{
		Report:  may(staff.CapAssessmentClerk, domain.StagePreliminary, domain.StageRereferred),
		Notice:  may(staff.CapAssessmentClerk, domain.StageReported, domain.StageNoticed),
		Owner:   may(staff.CapAssessmentClerk, domain.StageReported, domain.StageNoticed) || (p.Combined() && may(staff.CapAssessmentClerk, domain.StagePreliminary, domain.StageApproved, domain.StageRereferred)),
		Hearing: may(staff.CapAssessmentBoard, domain.StageNoticed),
		Final:   may(staff.CapAssessmentBoard, domain.StageApproved) || (p.Waived() && may(staff.CapAssessmentBoard, domain.StageReported, domain.StageNoticed)),
		Publish: may(staff.CapAssessmentClerk, domain.StageAdopted),
		Levy:    may(staff.CapAssessmentLevy, domain.StageFinal),
		Change:  may(staff.CapAssessmentBoard, domain.StageLevied),
	}
	cats := domain.CostCategories()
	current := m.reportInputs(p)
	costs := costInputs(p)
	if v.Can.Report {
		f := ReportForm{FiledOn: typed("report", "filed_on", today), Benefited: typed("report", "benefited", ""), Parcels: current, Costs: costs, Improvements: p.Improvements, Categories: cats}
		if failed == "report" {
			f.Parcels, f.Costs = m.typedParcels(r, p), typedCosts(r)
		}
		v.ReportForm = f
	}
	if v.Can.Notice {
		f := NoticeForm{Method: typed("notice", "method", domain.NoticePublication), Newspaper: typed("notice", "newspaper", ""), NoticeOn: typed("notice", "notice_on", today), MailedOn: typed("notice", "mailed_on", today),
			Inspection: typed("notice", "inspection", "Village hall, weekdays 8:00 to 16:30"), HearingOn: typed("notice", "hearing_on", ""), HearingAt: typed("notice", "hearing_at", "")}
		for i := 1; i <= 4; i++ {
			f.Places = append(f.Places, typed("notice", fmt.Sprintf("place%d", i), ""))
		}
		v.NoticeForm = f
	}
	if v.Can.Owner {
		f := OwnerForm{Op: typed("owner", "op", domain.OwnerWaive), Improvement: typed("owner", "improvement", ""), SignedOn: typed("owner", "signed_on", today), Signer: typed("owner", "signer", ""), Improvements: p.Improvements, Combined: p.Combined()}
		sel := typed("owner", "parcel", "")
		for _, id := range p.District {
			pc := m.parcelOf(id)
			f.Parcels = append(f.Parcels, Option{Value: id, Label: pc.Address + " (" + pc.Owner + ")", Selected: id == sel})
		}
		v.OwnerForm = f
	}
	if v.Can.Hearing {
		held := ""
		if n, ok := p.LastNotice(); ok {
			held = n.HearingOn.String()
		}
		f := HearingForm{HeldOn: typed("hearing", "held_on", held), Action: typed("hearing", "action", domain.ActionApprove), Directions: typed("hearing", "directions", ""), Parcels: current, Costs: costs, Improvements: p.Improvements, Categories: cats}
		if failed == "hearing" {
			f.Parcels, f.Costs = m.typedParcels(r, p), typedCosts(r)
		}
		v.HearingForm = f
	}
	if v.Can.Final {
		f := FinalForm{Number: typed("final", "number", ""), AdoptedOn: typed("final", "adopted_on", today), Installments: typed("final", "installments", ""), Rate: typed("final", "rate", ""), FirstDueOn: typed("final", "first_due_on", "")}
		if p.Installments > 0 {
			f.FixedInstallments = strconv.Itoa(p.Installments)
		}
		v.FinalForm = f
	}
	if v.Can.Publish {
		v.PublishForm = PublishForm{PublishedOn: typed("publish", "published_on", today), Publication: typed("publish", "publication", "")}
	}
	if v.Can.Levy {
		v.LevyForm = LevyForm{LeviedOn: typed("levy", "levied_on", today)}
	}
	if v.Can.Change {
		f := ChangeForm{Op: typed("change", "op", domain.ChangeActualCost), On: typed("change", "on", today), NoticeOn: typed("change", "notice_on", ""), Reason: typed("change", "reason", ""), ActualCost: typed("change", "actual_cost", ""),
			Costs: costs, Improvements: p.Improvements, Categories: cats}
		if failed == "change" {
			f.Costs = typedCosts(r)
		}
		v.ChangeForm = f
	}
}

// reportInputs returns the parcels' rows of the report's form: as the
// report stands, or empty for a first report.
func (m *Module) reportInputs(p domain.Project) []ParcelInput {
	var out []ParcelInput
	for i, id := range p.District {
		x := ParcelInput{Parcel: id, Address: m.parcelOf(id).Address}
		if p.Report != nil && i < len(p.Report.Parcels) {
			rp := p.Report.Parcels[i]
			x.Units, x.Exempt, x.Damages = rp.Units.String(), rp.Exempt, rp.Damages.String()
			if rp.BenefitValue != nil {
				x.BenefitValue = rp.BenefitValue.String()
			}
			if rp.Corner != nil {
				x.LongSide, x.Deduction = rp.Corner.LongSide.String(), rp.Corner.Deduction.String()
			}
		}
		out = append(out, x)
	}
	return out
}

// costInputs returns the estimate's rows: the report's lines, then empty
// ones up to costRows.
func costInputs(p domain.Project) []CostInput {
	var out []CostInput
	if p.Report != nil {
		for _, c := range p.Report.Costs {
			out = append(out, CostInput{Improvement: c.Improvement, Category: c.Category, Description: c.Description, Amount: c.Amount.String()})
		}
	}
	for n := max(costRows, len(out)+1); len(out) < n; {
		out = append(out, CostInput{Category: domain.CostDirect})
	}
	return out
}

// typedCosts returns the estimate's rows as typed.
func typedCosts(r *http.Request) []CostInput {
	var out []CostInput
	for i := 1; r.PostForm.Has(fmt.Sprintf("cost_desc%d", i)); i++ {
		f := func(n string) string { return strings.TrimSpace(r.PostForm.Get(fmt.Sprintf("%s%d", n, i))) }
		out = append(out, CostInput{Improvement: f("cost_imp"), Category: f("cost_cat"), Description: f("cost_desc"), Amount: f("cost_amt")})
	}
	return out
}

// typedParcels returns the parcels' rows as typed.
func (m *Module) typedParcels(r *http.Request, p domain.Project) []ParcelInput {
	var out []ParcelInput
	for _, id := range p.District {
		f := func(n string) string { return strings.TrimSpace(r.PostForm.Get(n + "_" + id)) }
		out = append(out, ParcelInput{Parcel: id, Address: m.parcelOf(id).Address, Units: f("units"), Exempt: f("exempt") != "", Damages: f("damages"), BenefitValue: f("benefit"), LongSide: f("long"), Deduction: f("deduction")})
	}
	return out
}

// costsOf reads the estimate's rows; an empty row is skipped.
func costsOf(r *http.Request) ([]domain.CostItem, error) {
	var out []domain.CostItem
	for i, c := range typedCosts(r) {
		if c.Description == "" && c.Amount == "" {
			continue
		}
		amount, err := staff.ParseAmount(fmt.Sprintf("Cost line %d's amount", i+1), c.Amount)
		if err != nil {
			return nil, err
		}
		out = append(out, domain.CostItem{Improvement: c.Improvement, Category: c.Category, Description: c.Description, Amount: amount})
	}
	return out, nil
}

// parcelsOf reads the parcels' rows of a report's form.
func parcelsOf(r *http.Request, p domain.Project) ([]domain.ReportParcel, error) {
	var out []domain.ReportParcel
	for _, id := range p.District {
		f := func(n string) string { return strings.TrimSpace(r.PostForm.Get(n + "_" + id)) }
		if f("units") == "" {
			return nil, domain.Errorf(domain.EINVALID, "", "Parcel %s: the units are missing (write 0 if it is not benefited).", id)
		}
		units, err := domain.ParseUnits(f("units"))
		if err != nil {
			return nil, domain.Errorf(domain.EINVALID, "", "Parcel %s: %s", id, domain.ErrorMessage(err))
		}
		rp := domain.ReportParcel{Parcel: id, Units: units, Exempt: f("exempt") != ""}
		if rp.Damages, err = optionalAmount("Parcel "+id+"'s damages", f("damages")); err != nil {
			return nil, err
		}
		if f("benefit") != "" {
			bv, err := staff.ParseAmount("Parcel "+id+"'s value of benefits", f("benefit"))
			if err != nil {
				return nil, err
			}
			rp.BenefitValue = &bv
		}
		switch {
		case f("long") == "" && f("deduction") == "":
		case f("long") == "" || f("deduction") == "":
			return nil, domain.Errorf(domain.EINVALID, "§5.14(5)(b)", "Parcel %s: a corner lot needs both the long way of the lot and the deduction.", id)
		default:
			long, err := domain.ParseUnits(f("long"))
			if err != nil {
				return nil, domain.Errorf(domain.EINVALID, "", "Parcel %s: %s", id, domain.ErrorMessage(err))
			}
			ded, err := domain.ParseUnits(f("deduction"))
			if err != nil {
				return nil, domain.Errorf(domain.EINVALID, "", "Parcel %s: %s", id, domain.ErrorMessage(err))
			}
			rp.Corner = &domain.CornerLot{LongSide: long, Deduction: ded}
		}
		out = append(out, rp)
	}
	return out, nil
}

// maxUpload bounds one attached document as the form reads it (the
// domain refuses larger ones with its own message).
const maxUpload = 4 << 20

func (m *Module) reportOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentReport{Project: p.ID, Benefited: m.o.Form(r, "benefited")}
	var err error
	if in.FiledOn, err = staff.ParseDate("The filing date", m.o.Form(r, "filed_on")); err != nil {
		return nil, err
	}
	if in.Costs, err = costsOf(r); err != nil {
		return nil, err
	}
	if in.Parcels, err = parcelsOf(r, p); err != nil {
		return nil, err
	}
	if r.MultipartForm != nil {
		for _, fh := range r.MultipartForm.File["documents"] {
			f, err := fh.Open()
			if err != nil {
				return nil, domain.Errorf(domain.EINVALID, "", "The document %s could not be read.", fh.Filename)
			}
			data, err := io.ReadAll(io.LimitReader(f, maxUpload))
			f.Close()
			if err != nil {
				return nil, domain.Errorf(domain.EINVALID, "", "The document %s could not be read.", fh.Filename)
			}
			in.Documents = append(in.Documents, domain.Document{Name: fh.Filename, ContentType: fh.Header.Get("Content-Type"), Data: data})
		}
	}
	return in, nil
}

func (m *Module) noticeOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentNotice{Project: p.ID, Method: m.o.Form(r, "method"), Newspaper: m.o.Form(r, "newspaper"), Inspection: m.o.Form(r, "inspection"), HearingAt: m.o.Form(r, "hearing_at")}
	for i := 1; i <= 4; i++ {
		if pl := m.o.Form(r, fmt.Sprintf("place%d", i)); pl != "" {
			in.Places = append(in.Places, pl)
		}
	}
	if in.Method == domain.NoticePublication {
		in.Places = nil
	} else {
		in.Newspaper = ""
	}
	var err error
	if in.NoticeOn, err = staff.ParseDate("The day of publication or posting", m.o.Form(r, "notice_on")); err != nil {
		return nil, err
	}
	if in.MailedOn, err = staff.ParseDate("The day the copies were mailed", m.o.Form(r, "mailed_on")); err != nil {
		return nil, err
	}
	if in.HearingOn, err = staff.ParseDate("The hearing date", m.o.Form(r, "hearing_on")); err != nil {
		return nil, err
	}
	return in, nil
}

func (m *Module) ownerOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentOwner{Op: m.o.Form(r, "op"), Project: p.ID, Parcel: m.o.Form(r, "parcel"), Signer: m.o.Form(r, "signer")}
	if in.Op == domain.OwnerObject {
		in.Improvement = m.o.Form(r, "improvement")
	}
	var err error
	in.SignedOn, err = staff.ParseDate("The day the owner signed", m.o.Form(r, "signed_on"))
	return in, err
}

// hearingOf reads the hearing's form. A modification carries the parcels
// whose row differs from the report, and the estimate when it differs.
func (m *Module) hearingOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentHearing{Project: p.ID, Action: m.o.Form(r, "action"), Directions: m.o.Form(r, "directions")}
	var err error
	if in.HeldOn, err = staff.ParseDate("The hearing date", m.o.Form(r, "held_on")); err != nil {
		return nil, err
	}
	if in.Action != domain.ActionModify || p.Report == nil {
		return in, nil
	}
	parcels, err := parcelsOf(r, p)
	if err != nil {
		return nil, err
	}
	for i, rp := range parcels {
		if !sameParcel(rp, p.Report.Parcels[i]) {
			in.Parcels = append(in.Parcels, rp)
		}
	}
	costs, err := costsOf(r)
	if err != nil {
		return nil, err
	}
	if !sameCosts(costs, p.Report.Costs) {
		in.Costs = costs
	}
	return in, nil
}

// sameParcel reports whether two report rows say the same.
func sameParcel(a, b domain.ReportParcel) bool {
	if !a.Units.Decimal().Equal(b.Units.Decimal()) || a.Exempt != b.Exempt || !a.Damages.Equal(b.Damages) {
		return false
	}
	if (a.BenefitValue == nil) != (b.BenefitValue == nil) || (a.BenefitValue != nil && !a.BenefitValue.Equal(*b.BenefitValue)) {
		return false
	}
	if (a.Corner == nil) != (b.Corner == nil) {
		return false
	}
	return a.Corner == nil || (a.Corner.LongSide.Decimal().Equal(b.Corner.LongSide.Decimal()) && a.Corner.Deduction.Decimal().Equal(b.Corner.Deduction.Decimal()))
}

// sameCosts reports whether two estimates have the same lines.
func sameCosts(a, b []domain.CostItem) bool {
	norm := func(cs []domain.CostItem) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Improvement+"|"+c.Category+"|"+c.Description+"|"+c.Amount.String())
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func (m *Module) finalOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentFinal{Project: p.ID, Number: m.o.Form(r, "number")}
	var err error
	if in.AdoptedOn, err = staff.ParseDate("The adoption date", m.o.Form(r, "adopted_on")); err != nil {
		return nil, err
	}
	if in.Installments, err = count("The number of installments", m.o.Form(r, "installments")); err != nil {
		return nil, err
	}
	if strings.TrimSpace(m.o.Form(r, "rate")) == "" {
		return nil, domain.Errorf(domain.EINVALID, "", "The interest rate is required (0 for none).")
	}
	if in.InterestRate, err = domain.ParseRate(m.o.Form(r, "rate")); err != nil {
		return nil, err
	}
	in.FirstDueOn, err = staff.ParseDate("The first installment's due date", m.o.Form(r, "first_due_on"))
	return in, err
}

func (m *Module) publishOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentPublish{Project: p.ID, Publication: m.o.Form(r, "publication")}
	var err error
	in.PublishedOn, err = staff.ParseDate("The publication date", m.o.Form(r, "published_on"))
	return in, err
}

func (m *Module) levyOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentLevy{Project: p.ID}
	var err error
	in.LeviedOn, err = staff.ParseDate("The levy date", m.o.Form(r, "levied_on"))
	return in, err
}

func (m *Module) changeOf(r *http.Request, p domain.Project) (domain.Payload, error) {
	in := &domain.AssessmentChangeCmd{Op: m.o.Form(r, "op"), Project: p.ID, Reason: m.o.Form(r, "reason"), ActualCost: domain.Cents(0)}
	var err error
	if in.On, err = staff.ParseDate("The date of the board's action", m.o.Form(r, "on")); err != nil {
		return nil, err
	}
	if in.NoticeOn, err = optionalDate("The notice date", m.o.Form(r, "notice_on")); err != nil {
		return nil, err
	}
	switch in.Op {
	case domain.ChangeActualCost:
		in.NoticeOn = domain.Date{}
		if in.ActualCost, err = staff.ParseAmount("The actual cost", m.o.Form(r, "actual_cost")); err != nil {
			return nil, err
		}
	case domain.ChangeAmend:
		if in.Costs, err = costsOf(r); err != nil {
			return nil, err
		}
	}
	return in, nil
}
