package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Special assessment projects (§5.14). A project moves from the board's
// preliminary resolution to the levy through recorded steps, each a
// command of its own kind with the date it happened (which may be before
// the day it is recorded, never after, and never before the step before
// it): the preliminary resolution (§5.14(3)(a)), the report filed for
// public inspection (§5.14(3)(b)), the notice of the hearing (§5.14(6)),
// the owners' waivers and objections (§5.14(14)(b), §5.14(8)), the hearing
// and the board's action on the report (§5.14(7)), the final resolution
// and its publication (§5.14(7)(c)–(f)), and the levy
// (assessmentlevy.go). A step out of order is refused and changes
// nothing. Every figure of the report comes from the rules of assessment.go
// (5.14/apportion), every hearing date from 5.14/hearing-window.

// Collections of special assessment projects.
const (
	CollectionAssessmentProjects  = "assessment-projects"  // id: project id → Project
	CollectionAssessmentDocuments = "assessment-documents" // id: document id → AssessmentDocument (plans and specifications)
)

// Bases of a special assessment (§5.14(1), (2)).
const (
	BasisBenefit     = "benefit"      // a benefited property test: no assessment above the value of the benefits
	BasisPolicePower = "police_power" // an exercise of the police power: a reasonable basis, a schedule of assessments
)

// Stages of a project, in the order of §5.14.
const (
	StagePreliminary = "preliminary" // the preliminary resolution is adopted; the report is due
	StageReported    = "reported"    // the report is filed with the clerk for public inspection
	StageNoticed     = "noticed"     // notice of the hearing is given
	StageApproved    = "approved"    // after the hearing the board approved the report, as made or modified
	StageRereferred  = "rereferred"  // the board re-referred the report to the officer: a new report is due
	StageDisapproved = "disapproved" // the board disapproved the report: the project ends
	StageAdopted     = "adopted"     // the final resolution is adopted, not yet published
	StageFinal       = "final"       // the final resolution is published: the assessments are deemed made
	StageLevied      = "levied"      // the assessments are levied on the parcels
	StageCancelled   = "cancelled"   // the board cancelled the assessments (§5.14(9))
)

// StageTitle names a project's stage for people.
func StageTitle(stage string) string {
	switch stage {
	case StagePreliminary:
		return "preliminary resolution adopted"
	case StageReported:
		return "report filed"
	case StageNoticed:
		return "notice of the hearing given"
	case StageApproved:
		return "report approved after the hearing"
	case StageRereferred:
		return "report re-referred to the officer"
	case StageDisapproved:
		return "report disapproved"
	case StageAdopted:
		return "final resolution adopted"
	case StageFinal:
		return "final resolution published"
	case StageLevied:
		return "assessments levied"
	case StageCancelled:
		return "assessments cancelled"
	}
	return stage
}

// Cost categories of an estimate (§5.14(4)).
const (
	CostDirect      = "direct"      // the direct cost of the work
	CostIndirect    = "indirect"    // its indirect cost
	CostDamages     = "damages"     // damages occasioned by it
	CostInterest    = "interest"    // interest on bonds or notes issued in anticipation of the assessments
	CostStaff       = "staff"       // a reasonable charge for the village's administrative staff
	CostEngineering = "engineering" // architectural and engineering services
	CostLegal       = "legal"       // legal services
	CostOther       = "other"       // any other cost reasonably attributed to the work
)

// CostCategories are the categories of §5.14(4), in the order forms list
// them.
func CostCategories() []string {
	return []string{CostDirect, CostIndirect, CostDamages, CostInterest, CostStaff, CostEngineering, CostLegal, CostOther}
}

// Bounds of a project, so that one log entry stays small.
const (
	maxDistrictParcels = 500
	maxInstallments    = 30
	maxDocuments       = 5
	maxDocumentBytes   = 512 << 10
)

// Units are a parcel's front feet or benefit units: a plain decimal,
// never negative, written like 66 or 80.5.
type Units struct{ d decimal.Decimal }

// ParseUnits reads units as a form or a file writes them.
func ParseUnits(s string) (Units, error) {
	var v unitsValue
	err := v.UnmarshalJSON([]byte(strconv.Quote(strings.TrimSpace(s))))
	return Units(v), err
}

// MustUnits is ParseUnits for literals in code and tests.
func MustUnits(s string) Units {
	u, err := ParseUnits(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Decimal returns the units as a decimal.
func (u Units) Decimal() decimal.Decimal { return u.d }

// String returns the units as a plain decimal ("80.5").
func (u Units) String() string { return u.d.String() }

// IsZero reports whether there are no units.
func (u Units) IsZero() bool { return u.d.IsZero() }

// MarshalJSON writes the units as a string.
func (u Units) MarshalJSON() ([]byte, error) { return json.Marshal(u.d.String()) }

// UnmarshalJSON reads units from a string or a plain number.
func (u *Units) UnmarshalJSON(b []byte) error {
	var v unitsValue
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	u.d = v.d
	return nil
}

// Project is a special assessment project as the ledger keeps it: what the
// preliminary resolution declared, the report as last filed (and modified
// by the board), the notices, waivers, objections and hearings, the final
// resolution, the levy, and every step with its date.
type Project struct {
	ID           string   `json:"id"`
	Number       string   `json:"number"` // the preliminary resolution's number
	AdoptedOn    Date     `json:"adopted_on"`
	Purpose      string   `json:"purpose"`
	Basis        string   `json:"basis"`
	Improvements []string `json:"improvements"`
	// District is the parcels of the assessment district, in the order
	// the resolution lists them; Limits describes its limits in words.
	District     []string `json:"district"`
	Limits       string   `json:"limits"`
	Installments int      `json:"installments"` // 0: to be determined at the hearing
	// CostShare, when set, is the proportion of the cost to be assessed
	// (§5.14(3)(a)); the rest is the village's.
	CostShare *Rate  `json:"cost_share,omitempty"`
	Officer   string `json:"officer"` // the officer or employee directed to report

	Stage      string           `json:"stage"`
	Report     *Report          `json:"report,omitempty"`
	Reports    int              `json:"reports,omitempty"` // reports filed: a re-referral asks another
	Notices    []Notice         `json:"notices,omitempty"`
	Waivers    []OwnerAct       `json:"waivers,omitempty"`
	Objections []OwnerAct       `json:"objections,omitempty"`
	Hearings   []Hearing        `json:"hearings,omitempty"`
	Final      *FinalResolution `json:"final,omitempty"`
	Levy       *Levy            `json:"levy,omitempty"`
	Changes    []ProjectChange  `json:"changes,omitempty"`
	Steps      []ProjectStep    `json:"steps"`
}

// Report is the report of §5.14(3)(b) as filed, and as the board modified
// it after the hearing.
type Report struct {
	FiledOn   Date           `json:"filed_on"`
	Documents []DocumentRef  `json:"documents"` // the plans and specifications
	Costs     []CostItem     `json:"costs"`     // the estimate of the entire cost (§5.14(4))
	Parcels   []ReportParcel `json:"parcels"`   // one for every parcel of the district, in its order
	// Benefited is the statement that the property is benefited, which a
	// police-power project's report makes (§5.14(3)(b)4).
	Benefited string `json:"benefited,omitempty"`
}

// CostItem is one line of the estimate of the entire cost (§5.14(4)).
type CostItem struct {
	Improvement string `json:"improvement"`
	Category    string `json:"category"`
	Description string `json:"description"`
	Amount      Money  `json:"amount"`
}

// ReportParcel is what the report says of one parcel of the district.
type ReportParcel struct {
	Parcel string `json:"parcel"`
	Units  Units  `json:"units"`
	// Exempt parcels are exempt by law; their share is computed and paid
	// by the village (§5.14(5)(a)).
	Exempt  bool  `json:"exempt,omitempty"`
	Damages Money `json:"damages"` // damages awarded for property taken or damaged
	// BenefitValue, when set, is the value of the benefits accruing to
	// the parcel: a benefit-basis assessment may not exceed it (§5.14(2)).
	BenefitValue *Money `json:"benefit_value,omitempty"`
	// Corner is the deduction the board allows a corner lot
	// (§5.14(5)(b)).
	Corner *CornerLot `json:"corner,omitempty"`
}

// CornerLot is a corner lot's deduction: Deduction units off its
// frontage, never below LongSide, the long way of the lot (§5.14(5)(b)).
type CornerLot struct {
	LongSide  Units `json:"long_side"`
	Deduction Units `json:"deduction"`
}

// Document is a file a report attaches (plans and specifications).
type Document struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Data        []byte `json:"data"`
}

// DocumentRef is an attached document as the report lists it; its content
// is the AssessmentDocument of the same id.
type DocumentRef struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
}

// AssessmentDocument is an attached document with its content.
type AssessmentDocument struct {
	DocumentRef
	Project string `json:"project"`
	Data    []byte `json:"data"`
}

// Notice is a notice of the hearing on a project (§5.14(6)), or of the
// board's intent to amend, cancel or confirm its assessments (§5.14(9)).
type Notice struct {
	Method     string   `json:"method"` // NoticePublication | NoticePosting
	Newspaper  string   `json:"newspaper,omitempty"`
	Places     []string `json:"places,omitempty"`
	NoticeOn   Date     `json:"notice_on"` // the day it was published or posted
	MailedOn   Date     `json:"mailed_on"`
	Mailed     int      `json:"mailed"`     // copies mailed: the district's owners whose address is known
	Inspection string   `json:"inspection"` // where and when the report may be inspected
	HearingOn  Date     `json:"hearing_on"`
	HearingAt  string   `json:"hearing_at"` // the place and time of the hearing
	CommandID  string   `json:"command_id"`
}

// Ways of giving notice (§5.14(6)).
const (
	NoticePublication = "publication" // published in the official newspaper
	NoticePosting     = "posting"     // posted in not less than three public places
)

// OwnerAct is an owner's written waiver of notice and hearing
// (§5.14(14)(b)) or objection to one improvement of a combined assessment
// (§5.14(8)).
type OwnerAct struct {
	Parcel      string   `json:"parcel"`
	Improvement string   `json:"improvement,omitempty"` // the improvement objected to
	SignedOn    Date     `json:"signed_on"`
	Signer      string   `json:"signer"`
	CommandID   string   `json:"command_id"`
	At          DateTime `json:"at"`
}

// Board actions on a report after the hearing (§5.14(7)(a)).
const (
	ActionApprove    = "approve"
	ActionDisapprove = "disapprove"
	ActionModify     = "modify"
	ActionRerefer    = "rerefer"
)

// Hearing is a hearing held and the board's action on the report.
type Hearing struct {
	HeldOn     Date     `json:"held_on"`
	Action     string   `json:"action"`
	Directions string   `json:"directions,omitempty"` // a re-referral's directions to the officer
	Modified   []string `json:"modified,omitempty"`   // the parcels a modification changed
	Costs      bool     `json:"costs,omitempty"`      // a modification replaced the estimate
	CommandID  string   `json:"command_id"`
}

// FinalResolution is the board's final resolution on a project
// (§5.14(7)(c)–(f)) and its publication.
type FinalResolution struct {
	Number       string `json:"number"`
	AdoptedOn    Date   `json:"adopted_on"`
	Installments int    `json:"installments"`
	InterestRate Rate   `json:"interest_rate"` // a year, on the unpaid balance
	FirstDueOn   Date   `json:"first_due_on"`  // the first installment's due date; the others a year apart
	Waived       bool   `json:"waived,omitempty"`
	PublishedOn  Date   `json:"published_on,omitzero"`
	Publication  string `json:"publication,omitempty"`
	AppealBy     Date   `json:"appeal_by,omitzero"` // the last day to appeal (Wis. Stat. 66.0703(12))
}

// ProjectStep is one recorded step of a project.
type ProjectStep struct {
	Kind      Kind     `json:"kind"`
	On        Date     `json:"on"`
	Summary   string   `json:"summary"`
	CommandID string   `json:"command_id"`
	By        string   `json:"by"`
	At        DateTime `json:"at"`
}

// InDistrict reports whether parcel is in the project's district.
func (p Project) InDistrict(parcel string) bool { return slices.Contains(p.District, parcel) }

// Combined reports whether the project combines the assessments of more
// than one improvement into one on each parcel (§5.14(8)).
func (p Project) Combined() bool { return len(p.Improvements) > 1 }

// LastNotice returns the latest notice of the hearing, if any.
func (p Project) LastNotice() (Notice, bool) {
	if len(p.Notices) == 0 {
		return Notice{}, false
	}
	return p.Notices[len(p.Notices)-1], true
}

// Waived reports whether every owner of the district waived notice and
// hearing in writing (§5.14(14)(b)).
func (p Project) Waived() bool {
	for _, parcel := range p.District {
		if !slices.ContainsFunc(p.Waivers, func(w OwnerAct) bool { return w.Parcel == parcel }) {
			return false
		}
	}
	return len(p.District) > 0
}

// Objected reports whether the owner of parcel objected to improvement.
func (p Project) Objected(parcel, improvement string) bool {
	return slices.ContainsFunc(p.Objections, func(o OwnerAct) bool { return o.Parcel == parcel && o.Improvement == improvement })
}

// Contemplated reports whether the project is a contemplated improvement
// (§5.11): past its preliminary resolution, neither levied nor ended.
func (p Project) Contemplated() bool {
	switch p.Stage {
	case StageLevied, StageDisapproved, StageCancelled:
		return false
	}
	return true
}

// lastStep returns the date of the latest step.
func (p Project) lastStep() Date {
	if len(p.Steps) == 0 {
		return Date{}
	}
	return p.Steps[len(p.Steps)-1].On
}

// expect refuses a step when the project is not at one of the stages it
// follows.
func (p Project) expect(step string, stages ...string) error {
	if slices.Contains(stages, p.Stage) {
		return nil
	}
	return Errorf(ECONFLICT, sectionAssessment, "Project %s is at the stage %q: %s.", p.ID, StageTitle(p.Stage), step)
}

// stepOn checks the date of a step: given, not after the day it is
// recorded, and not before the project's latest step.
func (p Project) stepOn(on Date, c Command, what string) error {
	switch {
	case on.IsZero():
		return Errorf(EINVALID, sectionAssessment, "The date of the %s is required.", what)
	case on.After(c.At.Date):
		return Errorf(EINVALID, sectionAssessment, "The %s is dated %s, after today (%s): a step is recorded when it has happened.", what, on, c.At.Date)
	case on.Before(p.lastStep()):
		return Errorf(ECONFLICT, sectionAssessment, "The %s is dated %s, before the project's latest step (%s): steps are recorded in order.", what, on, p.lastStep())
	}
	return nil
}

// record appends a step and writes the project.
func (p *Project) record(tx Tx, c Command, on Date, summary string, res *Result) error {
	p.Steps = append(p.Steps, ProjectStep{Kind: c.Kind, On: on, Summary: summary, CommandID: c.ID, By: c.Actor, At: c.At})
	res.Note = fmt.Sprintf("project %s: %s", p.ID, summary)
	return tx.Put(CollectionAssessmentProjects, p.ID, *p)
}

// getProject reads a project inside a transaction.
func getProject(tx Tx, id string) (Project, error) {
	var p Project
	ok, err := tx.Get(CollectionAssessmentProjects, id, &p)
	if err != nil {
		return p, err
	}
	if !ok {
		return p, Errorf(ENOTFOUND, sectionAssessment, "There is no special assessment project %q.", id)
	}
	return p, nil
}

// validProjectID accepts letters, digits and dashes, like SA-2026-01.
func validProjectID(id string) error {
	ok := id != "" && len(id) <= 32
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return Errorf(EINVALID, sectionAssessment, "A project id is letters, digits and dashes, at most 32, like SA-2026-01.")
	}
	return nil
}

// required refuses a blank text.
func required(what, s string) error {
	if strings.TrimSpace(s) == "" {
		return Errorf(EINVALID, sectionAssessment, "%s is required.", what)
	}
	return nil
}

// ---- The preliminary resolution (§5.14(3)(a)) ----

// AssessmentPreliminary records the board's preliminary resolution, which
// starts a project: its purpose, the limits of the district, the basis,
// the number of installments (or that the hearing will set it), any limit
// on the share of the cost assessed, and the officer directed to report.
type AssessmentPreliminary struct {
	Project      string   `json:"project"`
	Number       string   `json:"number"`
	AdoptedOn    Date     `json:"adopted_on"`
	Purpose      string   `json:"purpose"`
	Basis        string   `json:"basis"`
	Improvements []string `json:"improvements"`
	District     []string `json:"district"`
	Limits       string   `json:"limits"`
	Installments int      `json:"installments"`
	CostShare    *Rate    `json:"cost_share,omitempty"`
	Officer      string   `json:"officer"`
}

// KindAssessmentPreliminary records a preliminary resolution (§5.14(3)(a)).
const KindAssessmentPreliminary Kind = "assessment_preliminary"

// Kind names the payload's kind.
func (*AssessmentPreliminary) Kind() Kind { return KindAssessmentPreliminary }

func (p *AssessmentPreliminary) textFields() []textField {
	fields := []textField{oneLine("The project id", p.Project), oneLine("The resolution number", p.Number), manyLines("The purpose", p.Purpose), oneLine("The basis", p.Basis),
		manyLines("The limits of the district", p.Limits), oneLine("The officer", p.Officer)}
	for _, s := range p.Improvements {
		fields = append(fields, oneLine("An improvement", s))
	}
	for _, s := range p.District {
		fields = append(fields, oneLine("A parcel number", s))
	}
	return fields
}

func applyAssessmentPreliminary(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*AssessmentPreliminary)
	if err := validProjectID(in.Project); err != nil {
		return err
	}
	if _, err := getProject(tx, in.Project); err == nil {
		return Errorf(ECONFLICT, sectionAssessment, "Project %s already exists.", in.Project)
	} else if ErrorCode(err) != ENOTFOUND {
		return err
	}
	for _, f := range []struct{ what, v string }{{"The resolution's number", in.Number}, {"The purpose", in.Purpose}, {"The limits of the district", in.Limits}, {"The officer directed to report", in.Officer}} {
		if err := required(f.what, f.v); err != nil {
			return err
		}
	}
	if in.Basis != BasisBenefit && in.Basis != BasisPolicePower {
		return Errorf(EINVALID, sectionAssessment, "The basis is the benefits to the property or the police power, not %q.", in.Basis)
	}
	if len(in.Improvements) == 0 {
		return Errorf(EINVALID, sectionAssessment, "Name the improvement (at least one).")
	}
	for i, s := range in.Improvements {
		if strings.TrimSpace(s) == "" || slices.Contains(in.Improvements[:i], s) {
			return Errorf(EINVALID, sectionAssessment, "Each improvement needs a name of its own.")
		}
	}
	if len(in.District) == 0 || len(in.District) > maxDistrictParcels {
		return Errorf(EINVALID, sectionAssessment, "The district needs between 1 and %d parcels.", maxDistrictParcels)
	}
	for i, id := range in.District {
		if slices.Contains(in.District[:i], id) {
			return Errorf(EINVALID, sectionAssessment, "Parcel %s is listed twice in the district.", id)
		}
		if _, ok, err := tx.Parcel(id); err != nil {
			return err
		} else if !ok {
			return Errorf(EINVALID, sectionAssessment, "There is no parcel %q.", id)
		}
	}
	if in.Installments < 0 || in.Installments > maxInstallments {
		return Errorf(EINVALID, sectionAssessment, "The number of installments is 1 to %d, or 0 for \"to be determined at the hearing\".", maxInstallments)
	}
	if s := in.CostShare; s != nil && (!s.Decimal().IsPositive() || s.Decimal().GreaterThan(decimal.NewFromInt(1))) {
		return Errorf(EINVALID, sectionAssessment, "The share of the cost assessed is more than 0 and at most 1 (100%%).")
	}
	p := Project{ID: in.Project, Number: strings.TrimSpace(in.Number), Purpose: strings.TrimSpace(in.Purpose), Basis: in.Basis, Improvements: slices.Clone(in.Improvements),
		District: slices.Clone(in.District), Limits: strings.TrimSpace(in.Limits), Installments: in.Installments, CostShare: in.CostShare, Officer: strings.TrimSpace(in.Officer), Stage: StagePreliminary}
	if err := p.stepOn(in.AdoptedOn, c, "preliminary resolution"); err != nil {
		return err
	}
	p.AdoptedOn = in.AdoptedOn
	return p.record(tx, c, in.AdoptedOn, fmt.Sprintf("preliminary resolution %s adopted: %d parcels", p.Number, len(p.District)), res)
}

// ---- The report (§5.14(3)(b), §5.14(4)) ----

// AssessmentReport files the report of the officer directed to report:
// the plans and specifications, the estimate of the entire cost, and for
// each parcel of the district its units, damages and deductions, from
// which the schedule of proposed assessments follows (ComputeSchedule).
type AssessmentReport struct {
	Project   string         `json:"project"`
	FiledOn   Date           `json:"filed_on"`
	Documents []Document     `json:"documents"`
	Costs     []CostItem     `json:"costs"`
	Parcels   []ReportParcel `json:"parcels"`
	Benefited string         `json:"benefited,omitempty"`
}

// KindAssessmentReport files a project's report (§5.14(3)(b)).
const KindAssessmentReport Kind = "assessment_report"

// Kind names the payload's kind.
func (*AssessmentReport) Kind() Kind { return KindAssessmentReport }

func (p *AssessmentReport) textFields() []textField {
	fields := []textField{oneLine("The project id", p.Project), manyLines("The statement that the property is benefited", p.Benefited)}
	for _, d := range p.Documents {
		fields = append(fields, oneLine("A document's name", d.Name), oneLine("A document's type", d.ContentType))
	}
	fields = append(fields, costTextFields(p.Costs)...)
	for _, rp := range p.Parcels {
		fields = append(fields, oneLine("A parcel number", rp.Parcel))
	}
	return fields
}

func costTextFields(costs []CostItem) []textField {
	var fields []textField
	for i, it := range costs {
		fields = append(fields, oneLine(fmt.Sprintf("Cost line %d's improvement", i+1), it.Improvement), oneLine(fmt.Sprintf("Cost line %d's category", i+1), it.Category),
			oneLine(fmt.Sprintf("Cost line %d's description", i+1), it.Description))
	}
	return fields
}

// checkCosts checks an estimate: at least one line, each of a known
// category and an improvement of the project, described, above $0.00.
func (p Project) checkCosts(costs []CostItem) error {
	if len(costs) == 0 {
		return Errorf(EINVALID, sectionAssessment, "The estimate of the cost needs at least one line (§5.14(4)).")
	}
	for i, it := range costs {
		switch {
		case !slices.Contains(p.Improvements, it.Improvement):
			return Errorf(EINVALID, sectionAssessment, "Cost line %d is for %q, which is not an improvement of project %s.", i+1, it.Improvement, p.ID)
		case !slices.Contains(CostCategories(), it.Category):
			return Errorf(EINVALID, sectionAssessment, "Cost line %d: %q is not a cost of §5.14(4) (direct, indirect, damages, interest, staff, engineering, legal or other).", i+1, it.Category)
		case strings.TrimSpace(it.Description) == "":
			return Errorf(EINVALID, sectionAssessment, "Cost line %d needs a description.", i+1)
		case !it.Amount.IsPositive():
			return Errorf(EINVALID, sectionAssessment, "Cost line %d (%s) must be more than $0.00.", i+1, it.Description)
		}
	}
	return nil
}

// checkParcel checks one parcel of a report: in the district, its damages
// not negative, its corner deduction sound.
func (p Project) checkParcel(rp ReportParcel) error {
	if !p.InDistrict(rp.Parcel) {
		return Errorf(EINVALID, sectionAssessment, "Parcel %s is outside the district of project %s.", rp.Parcel, p.ID)
	}
	if rp.Damages.IsNegative() {
		return Errorf(EINVALID, sectionAssessment, "Parcel %s: damages cannot be negative.", rp.Parcel)
	}
	if rp.BenefitValue != nil && rp.BenefitValue.IsNegative() {
		return Errorf(EINVALID, sectionAssessment, "Parcel %s: the value of the benefits cannot be negative.", rp.Parcel)
	}
	if k := rp.Corner; k != nil {
		if k.LongSide.d.GreaterThan(rp.Units.d) {
			return Errorf(EINVALID, "§5.14(5)(b)", "Parcel %s: the long way of the lot (%s) is more than its units (%s).", rp.Parcel, k.LongSide, rp.Units)
		}
		if k.Deduction.d.GreaterThan(rp.Units.d) {
			return Errorf(EINVALID, "§5.14(5)(b)", "Parcel %s: the corner deduction (%s) is more than its units (%s).", rp.Parcel, k.Deduction, rp.Units)
		}
	}
	return nil
}

// checkReportParcels checks that parcels name every parcel of the district
// once, in any order, and returns them in the district's order.
func (p Project) checkReportParcels(parcels []ReportParcel) ([]ReportParcel, error) {
	byID := map[string]ReportParcel{}
	for _, rp := range parcels {
		if err := p.checkParcel(rp); err != nil {
			return nil, err
		}
		if _, dup := byID[rp.Parcel]; dup {
			return nil, Errorf(EINVALID, sectionAssessment, "Parcel %s is listed twice in the report.", rp.Parcel)
		}
		byID[rp.Parcel] = rp
	}
	out := make([]ReportParcel, 0, len(p.District))
	for _, id := range p.District {
		rp, ok := byID[id]
		if !ok {
			return nil, Errorf(EINVALID, sectionAssessment, "The report says nothing of parcel %s of the district: give its units (0 if it is not benefited).", id)
		}
		out = append(out, rp)
	}
	return out, nil
}

// storeDocuments checks and writes a report's attached documents and
// returns their references.
func storeDocuments(tx Tx, project string, rev int, docs []Document) ([]DocumentRef, error) {
	if len(docs) == 0 {
		return nil, Errorf(EINVALID, sectionAssessment, "Attach the plans and specifications (§5.14(3)(b)1).")
	}
	if len(docs) > maxDocuments {
		return nil, Errorf(EINVALID, sectionAssessment, "A report attaches at most %d documents.", maxDocuments)
	}
	var refs []DocumentRef
	for i, d := range docs {
		if strings.TrimSpace(d.Name) == "" || len(d.Data) == 0 {
			return nil, Errorf(EINVALID, sectionAssessment, "Document %d is empty or has no name.", i+1)
		}
		if len(d.Data) > maxDocumentBytes {
			return nil, Errorf(EINVALID, sectionAssessment, "Document %s is larger than %d KiB; attach a smaller copy and keep the full set at the clerk's office.", d.Name, maxDocumentBytes>>10)
		}
		sum := sha256.Sum256(d.Data)
		ref := DocumentRef{ID: fmt.Sprintf("%s~%d~%d", project, rev, i+1), Name: strings.TrimSpace(d.Name), ContentType: d.ContentType, Size: len(d.Data), SHA256: hex.EncodeToString(sum[:])}
		if ref.ContentType == "" {
			ref.ContentType = "application/octet-stream"
		}
		if err := tx.Put(CollectionAssessmentDocuments, ref.ID, AssessmentDocument{DocumentRef: ref, Project: project, Data: d.Data}); err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

func applyAssessmentReport(tx Tx, c Command, p0 *Params, res *Result) error {
	in := c.Payload.(*AssessmentReport)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("a report is filed after the preliminary resolution, or again when the board re-refers it", StagePreliminary, StageRereferred); err != nil {
		return err
	}
	if err := p.stepOn(in.FiledOn, c, "report"); err != nil {
		return err
	}
	if err := p.checkCosts(in.Costs); err != nil {
		return err
	}
	parcels, err := p.checkReportParcels(in.Parcels)
	if err != nil {
		return err
	}
	if p.Basis == BasisPolicePower {
		if err := required("A police-power report's statement that the property is benefited (§5.14(3)(b)4)", in.Benefited); err != nil {
			return err
		}
	}
	r := Report{FiledOn: in.FiledOn, Costs: in.Costs, Parcels: parcels, Benefited: strings.TrimSpace(in.Benefited)}
	if _, err := p.ComputeSchedule(r, p0); err != nil {
		return err
	}
	if r.Documents, err = storeDocuments(tx, p.ID, p.Reports+1, in.Documents); err != nil {
		return err
	}
	p.Report, p.Reports, p.Stage = &r, p.Reports+1, StageReported
	// A new report asks new notice, hearing and waivers of it.
	p.Waivers = nil
	return p.record(tx, c, in.FiledOn, fmt.Sprintf("report %d filed for public inspection: estimate %s", p.Reports, sumCosts(r.Costs)), res)
}

func sumCosts(costs []CostItem) Money {
	total := Cents(0)
	for _, it := range costs {
		total = total.Add(it.Amount)
	}
	return total
}

// ---- The schedule of proposed assessments ----

// ScheduleLine is one improvement's share of a parcel.
type ScheduleLine struct {
	Improvement string `json:"improvement"`
	Assessment  Money  `json:"assessment"`   // the assessment of benefits to be levied
	VillagePays Money  `json:"village_pays"` // an exempt parcel's share, or a corner lot's deduction
	Separate    bool   `json:"separate,omitempty"`
}

// ScheduleRow is what a report makes of one parcel (§5.14(3)(b)3): the
// assessment of benefits, the damages, and the net of either over the
// other.
type ScheduleRow struct {
	Parcel       string         `json:"parcel"`
	Units        Units          `json:"units"`
	Assessed     Units          `json:"assessed_units"` // after a corner lot's deduction
	Exempt       bool           `json:"exempt,omitempty"`
	Lines        []ScheduleLine `json:"lines"`
	Benefits     Money          `json:"benefits"` // the assessment of benefits, all improvements
	Damages      Money          `json:"damages"`
	Net          Money          `json:"net"`          // benefits over damages: what is levied
	Compensation Money          `json:"compensation"` // damages over benefits: what the village pays the owner
	VillagePays  Money          `json:"village_pays"`
}

// ImprovementCost is the estimate of one improvement and the part of it
// assessed.
type ImprovementCost struct {
	Improvement string `json:"improvement"`
	Estimate    Money  `json:"estimate"`
	Assessed    Money  `json:"assessed"`
}

// Schedule is the schedule of proposed assessments of a report.
type Schedule struct {
	Rows         []ScheduleRow     `json:"rows"`
	Costs        []ImprovementCost `json:"costs"`
	Estimate     Money             `json:"estimate"`
	Assessed     Money             `json:"assessed"` // the cost assessed (after any limit on the share)
	VillagePays  Money             `json:"village_pays"`
	Benefits     Money             `json:"benefits"`
	Damages      Money             `json:"damages"`
	Net          Money             `json:"net"` // the total to levy
	Compensation Money             `json:"compensation"`
}

// Row returns the schedule's row of parcel.
func (s Schedule) Row(parcel string) (ScheduleRow, bool) {
	i := slices.IndexFunc(s.Rows, func(r ScheduleRow) bool { return r.Parcel == parcel })
	if i < 0 {
		return ScheduleRow{}, false
	}
	return s.Rows[i], true
}

// ComputeSchedule applies §5.14 to a report. For each improvement, the
// estimate (times the share of the cost assessed, when the preliminary
// resolution limits it, rounded to the cent) is apportioned among the
// district's parcels in proportion to their units by 5.14/apportion
// (Apportion): an exempt parcel's share is paid by the village
// (§5.14(5)(a)).
//
// A corner lot's deduction (§5.14(5)(b)) comes off its units, but never
// below the long way of the lot. The reading taken: the deducted units
// are apportioned too, as an exempt part paid by the village, so that a
// deduction the board allows one owner does not raise the others' shares.
//
// Damages awarded to a parcel are netted against its benefits
// (§5.14(7)(b)): the net is levied, or, when the damages are larger, the
// difference is compensation the village pays. On a benefit basis no
// parcel is assessed above the value of its benefits, where the report
// gives it (§5.14(2)). An improvement the owner objected to combining is
// marked separate (§5.14(8)).
func (p Project) ComputeSchedule(r Report, params *Params) (Schedule, error) {
	var s Schedule
	if len(r.Parcels) == 0 {
		return s, Errorf(EINVALID, sectionAssessment, "The report lists no parcels.")
	}
	rows := make([]ScheduleRow, len(r.Parcels))
	district := make([]DistrictParcel, 0, len(r.Parcels))
	var corners []DistrictParcel
	cornerOf := map[string]int{}
	for i, rp := range r.Parcels {
		assessed := rp.Units.d
		if k := rp.Corner; k != nil && !rp.Exempt {
			assessed = decimal.Max(rp.Units.d.Sub(k.Deduction.d), k.LongSide.d)
			if deducted := rp.Units.d.Sub(assessed); deducted.IsPositive() {
				cornerOf[rp.Parcel] = len(corners)
				corners = append(corners, DistrictParcel{ID: "corner deduction " + rp.Parcel, Units: deducted, Exempt: true})
			}
		}
		rows[i] = ScheduleRow{Parcel: rp.Parcel, Units: rp.Units, Assessed: Units{assessed}, Exempt: rp.Exempt, Damages: rp.Damages, Benefits: Cents(0), VillagePays: Cents(0)}
		district = append(district, DistrictParcel{ID: rp.Parcel, Units: assessed, Exempt: rp.Exempt})
	}
	district = append(district, corners...)
	s.Estimate, s.Assessed, s.VillagePays = Cents(0), Cents(0), Cents(0)
	for _, imp := range p.Improvements {
		ic := ImprovementCost{Improvement: imp, Estimate: Cents(0)}
		for _, it := range r.Costs {
			if it.Improvement == imp {
				ic.Estimate = ic.Estimate.Add(it.Amount)
			}
		}
		ic.Assessed = ic.Estimate
		if p.CostShare != nil {
			ic.Assessed = ic.Estimate.MulRate(*p.CostShare)
		}
		s.Costs = append(s.Costs, ic)
		s.Estimate, s.Assessed = s.Estimate.Add(ic.Estimate), s.Assessed.Add(ic.Assessed)
		ap, err := Apportion(ApportionInput{TotalCost: ic.Assessed, Parcels: district}, params)
		if err != nil {
			return Schedule{}, err
		}
		for i := range rows {
			share := ap.Assessments[i]
			line := ScheduleLine{Improvement: imp, Assessment: share.Assessment, VillagePays: share.VillagePays, Separate: p.Combined() && p.Objected(rows[i].Parcel, imp)}
			if k, ok := cornerOf[rows[i].Parcel]; ok {
				line.VillagePays = line.VillagePays.Add(ap.Assessments[len(rows)+k].VillagePays)
			}
			rows[i].Lines = append(rows[i].Lines, line)
			rows[i].Benefits = rows[i].Benefits.Add(line.Assessment)
			rows[i].VillagePays = rows[i].VillagePays.Add(line.VillagePays)
		}
		s.VillagePays = s.VillagePays.Add(ap.VillagePays)
	}
	s.Benefits, s.Damages, s.Net, s.Compensation = Cents(0), Cents(0), Cents(0), Cents(0)
	for i, row := range rows {
		rows[i].Net = row.Benefits.Sub(row.Damages).Max(Cents(0))
		rows[i].Compensation = row.Damages.Sub(row.Benefits).Max(Cents(0))
		if bv := r.Parcels[i].BenefitValue; p.Basis == BasisBenefit && bv != nil && rows[i].Net.GreaterThan(*bv) {
			return Schedule{}, Errorf(EINVALID, "§5.14(2)", "Parcel %s would be assessed %s, more than the value of its benefits (%s): on a benefit basis no assessment may exceed it. Lower its units or the cost assessed.", row.Parcel, rows[i].Net, *bv)
		}
		s.Benefits, s.Damages = s.Benefits.Add(row.Benefits), s.Damages.Add(row.Damages)
		s.Net, s.Compensation = s.Net.Add(rows[i].Net), s.Compensation.Add(rows[i].Compensation)
	}
	s.Rows = rows
	return s, nil
}

// Schedule returns the schedule of the project's report as it stands.
func (p Project) Schedule(params *Params) (Schedule, error) {
	if p.Report == nil {
		return Schedule{}, Errorf(ENOTFOUND, sectionAssessment, "Project %s has no report yet.", p.ID)
	}
	return p.ComputeSchedule(*p.Report, params)
}

// ---- The notice (§5.14(6)) ----

// AssessmentNotice records the notice of the hearing: published or posted
// in at least three public places, with a copy mailed to every interested
// person whose address is known; the hearing between 10 and 40 days after
// (5.14/hearing-window).
type AssessmentNotice struct {
	Project    string   `json:"project"`
	Method     string   `json:"method"`
	Newspaper  string   `json:"newspaper,omitempty"`
	Places     []string `json:"places,omitempty"`
	NoticeOn   Date     `json:"notice_on"`
	MailedOn   Date     `json:"mailed_on"`
	Inspection string   `json:"inspection"`
	HearingOn  Date     `json:"hearing_on"`
	HearingAt  string   `json:"hearing_at"`
}

// KindAssessmentNotice records the notice of a project's hearing (§5.14(6)).
const KindAssessmentNotice Kind = "assessment_notice"

// Kind names the payload's kind.
func (*AssessmentNotice) Kind() Kind { return KindAssessmentNotice }

func (p *AssessmentNotice) textFields() []textField {
	fields := []textField{oneLine("The project id", p.Project), oneLine("The method", p.Method), oneLine("The newspaper", p.Newspaper),
		manyLines("Where and when the report may be inspected", p.Inspection), manyLines("The place and time of the hearing", p.HearingAt)}
	for _, s := range p.Places {
		fields = append(fields, oneLine("A public place", s))
	}
	return fields
}

// checkNotice checks a notice's method, dates against the hearing window,
// and mailing, and returns it as recorded.
func checkNotice(in AssessmentNotice, since Date, c Command, params *Params) (Notice, error) {
	n := Notice{Method: in.Method, Newspaper: strings.TrimSpace(in.Newspaper), NoticeOn: in.NoticeOn, MailedOn: in.MailedOn, Inspection: strings.TrimSpace(in.Inspection), HearingOn: in.HearingOn, HearingAt: strings.TrimSpace(in.HearingAt), CommandID: c.ID}
	for _, pl := range in.Places {
		if strings.TrimSpace(pl) != "" {
			n.Places = append(n.Places, strings.TrimSpace(pl))
		}
	}
	switch in.Method {
	case NoticePublication:
		if n.Newspaper == "" {
			return n, Errorf(EINVALID, sectionAssessment, "Name the newspaper the notice was published in.")
		}
	case NoticePosting:
		if min := params.At(in.NoticeOn).NoticePostingPlaces; len(n.Places) < min {
			return n, Errorf(EINVALID, sectionAssessment, "A posted notice goes up in not less than %d public places; %d are named.", min, len(n.Places))
		}
	default:
		return n, Errorf(EINVALID, sectionAssessment, "Notice is given by publication or by posting, not %q.", in.Method)
	}
	switch {
	case in.NoticeOn.IsZero() || in.MailedOn.IsZero() || in.HearingOn.IsZero():
		return n, Errorf(EINVALID, sectionAssessment, "The notice needs the day it was published or posted, the day copies were mailed and the hearing date.")
	case in.NoticeOn.After(c.At.Date) || in.MailedOn.After(c.At.Date):
		return n, Errorf(EINVALID, sectionAssessment, "A notice is recorded once it is published or posted and mailed, not before.")
	case in.NoticeOn.Before(since) || in.MailedOn.Before(since):
		return n, Errorf(ECONFLICT, sectionAssessment, "The notice is dated before the step it follows (%s).", since)
	case in.MailedOn.After(in.HearingOn):
		return n, Errorf(EINVALID, sectionAssessment, "The copies must be mailed before the hearing.")
	}
	if err := required("Where and when the report may be inspected", n.Inspection); err != nil {
		return n, err
	}
	if err := required("The place and time of the hearing", n.HearingAt); err != nil {
		return n, err
	}
	if err := checkHearingOn(in.NoticeOn, in.HearingOn, params); err != nil {
		return n, err
	}
	return n, nil
}

// checkHearingOn refuses a hearing outside 5.14/hearing-window of the
// notice.
func checkHearingOn(noticeOn, hearingOn Date, params *Params) error {
	w, err := ComputeHearingWindow(HearingWindowInput{NoticeOn: noticeOn}, params)
	if err != nil {
		return err
	}
	if hearingOn.Before(w.EarliestHearing) || hearingOn.After(w.LatestHearing) {
		return Errorf(EINVALID, sectionAssessment, "The hearing on %s is %d days after the notice of %s; it must commence 10 to 40 days after it, from %s to %s.",
			hearingOn, noticeOn.DaysUntil(hearingOn), noticeOn, w.EarliestHearing, w.LatestHearing)
	}
	return nil
}

// mailedTo counts the district's owners whose address is known: the
// interested persons a copy of the notice is mailed to (the mail merge
// prints one letter for each).
func mailedTo(tx Tx, p Project) (int, error) {
	n := 0
	for _, id := range p.District {
		pc, ok, err := tx.Parcel(id)
		if err != nil {
			return 0, err
		}
		if ok && strings.TrimSpace(pc.Owner) != "" && strings.TrimSpace(pc.Address) != "" {
			n++
		}
	}
	return n, nil
}

func applyAssessmentNotice(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*AssessmentNotice)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("notice of the hearing is given once the report is filed (again, before the hearing, to move it)", StageReported, StageNoticed); err != nil {
		return err
	}
	n, err := checkNotice(*in, p.lastStep(), c, params)
	if err != nil {
		return err
	}
	if n.Mailed, err = mailedTo(tx, p); err != nil {
		return err
	}
	p.Notices, p.Stage = append(p.Notices, n), StageNoticed
	return p.record(tx, c, in.NoticeOn, fmt.Sprintf("notice by %s on %s, %d copies mailed on %s; hearing %s", n.Method, n.NoticeOn, n.Mailed, n.MailedOn, n.HearingOn), res)
}

// ---- Owners' waivers and objections (§5.14(14)(b), §5.14(8)) ----

// Owner acts.
const (
	OwnerWaive  = "waive"  // waives notice and hearing in writing (§5.14(14)(b))
	OwnerObject = "object" // objects to one improvement of a combined assessment (§5.14(8))
)

// AssessmentOwner records an owner's written waiver of notice and
// hearing, or objection to one improvement of a combined assessment.
type AssessmentOwner struct {
	Op          string `json:"op"`
	Project     string `json:"project"`
	Parcel      string `json:"parcel"`
	Improvement string `json:"improvement,omitempty"`
	SignedOn    Date   `json:"signed_on"`
	Signer      string `json:"signer"`
}

// KindAssessmentOwner records an owner's waiver or objection.
const KindAssessmentOwner Kind = "assessment_owner"

// Kind names the payload's kind.
func (*AssessmentOwner) Kind() Kind { return KindAssessmentOwner }

func (p *AssessmentOwner) textFields() []textField {
	return []textField{oneLine("The operation", p.Op), oneLine("The project id", p.Project), oneLine("The parcel number", p.Parcel), oneLine("The improvement", p.Improvement), oneLine("The signer", p.Signer)}
}

func applyAssessmentOwner(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*AssessmentOwner)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if !p.InDistrict(in.Parcel) {
		return Errorf(EINVALID, sectionAssessment, "Parcel %s is outside the district of project %s.", in.Parcel, p.ID)
	}
	if err := required("The name of the owner who signed", in.Signer); err != nil {
		return err
	}
	if in.SignedOn.IsZero() || in.SignedOn.After(c.At.Date) {
		return Errorf(EINVALID, sectionAssessment, "The day the owner signed is required, and not after today.")
	}
	act := OwnerAct{Parcel: in.Parcel, SignedOn: in.SignedOn, Signer: strings.TrimSpace(in.Signer), CommandID: c.ID, At: c.At}
	var summary string
	switch in.Op {
	case OwnerWaive:
		if err := p.expect("owners waive notice and hearing of a filed report, before the final resolution", StageReported, StageNoticed); err != nil {
			return err
		}
		if p.Report != nil && in.SignedOn.Before(p.Report.FiledOn) {
			return Errorf(EINVALID, "§5.14(14)(b)", "The waiver is signed before the report it waives was filed (%s).", p.Report.FiledOn)
		}
		if slices.ContainsFunc(p.Waivers, func(w OwnerAct) bool { return w.Parcel == in.Parcel }) {
			return Errorf(ECONFLICT, "§5.14(14)(b)", "The owner of parcel %s already waived notice and hearing.", in.Parcel)
		}
		p.Waivers = append(p.Waivers, act)
		summary = fmt.Sprintf("the owner of %s waived notice and hearing (%d of %d)", in.Parcel, len(p.Waivers), len(p.District))
	case OwnerObject:
		if err := p.expect("owners object to a combined improvement before the final resolution", StagePreliminary, StageReported, StageNoticed, StageApproved, StageRereferred); err != nil {
			return err
		}
		if !p.Combined() {
			return Errorf(EINVALID, "§5.14(8)", "Project %s undertakes one improvement: there is no combined assessment to object to.", p.ID)
		}
		if !slices.Contains(p.Improvements, in.Improvement) {
			return Errorf(EINVALID, "§5.14(8)", "%q is not an improvement of project %s.", in.Improvement, p.ID)
		}
		if p.Objected(in.Parcel, in.Improvement) {
			return Errorf(ECONFLICT, "§5.14(8)", "The owner of parcel %s already objected to %s.", in.Parcel, in.Improvement)
		}
		act.Improvement = in.Improvement
		p.Objections = append(p.Objections, act)
		summary = fmt.Sprintf("the owner of %s objected to combining %s; it is assessed separately", in.Parcel, in.Improvement)
	default:
		return Errorf(EINVALID, "", "Unknown owner act %q.", in.Op)
	}
	// An owner's act is dated when signed; the project's steps stay in
	// the order they were recorded.
	return p.record(tx, c, laterOf(in.SignedOn, p.lastStep()), summary, res)
}

// laterOf returns the later of two dates.
func laterOf(a, b Date) Date {
	if a.Before(b) {
		return b
	}
	return a
}

// ---- The hearing and the board's action (§5.14(7)) ----

// AssessmentHearing records the hearing and the board's action on the
// report: approve it, disapprove it, modify it (parcels' units, damages,
// exemptions and corner deductions, the estimate), or re-refer it to the
// officer with directions.
type AssessmentHearing struct {
	Project    string         `json:"project"`
	HeldOn     Date           `json:"held_on"`
	Action     string         `json:"action"`
	Directions string         `json:"directions,omitempty"`
	Parcels    []ReportParcel `json:"parcels,omitempty"` // a modification's parcels, each replacing the report's
	Costs      []CostItem     `json:"costs,omitempty"`   // a modification's estimate, replacing the report's
}

// KindAssessmentHearing records a project's hearing and the board's action.
const KindAssessmentHearing Kind = "assessment_hearing"

// Kind names the payload's kind.
func (*AssessmentHearing) Kind() Kind { return KindAssessmentHearing }

func (p *AssessmentHearing) textFields() []textField {
	fields := []textField{oneLine("The project id", p.Project), oneLine("The action", p.Action), manyLines("The directions", p.Directions)}
	fields = append(fields, costTextFields(p.Costs)...)
	for _, rp := range p.Parcels {
		fields = append(fields, oneLine("A parcel number", rp.Parcel))
	}
	return fields
}

func applyAssessmentHearing(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*AssessmentHearing)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("the hearing is held after its notice is given", StageNoticed); err != nil {
		return err
	}
	if err := p.stepOn(in.HeldOn, c, "hearing"); err != nil {
		return err
	}
	n, _ := p.LastNotice()
	if err := checkHearingOn(n.NoticeOn, in.HeldOn, params); err != nil {
		return err
	}
	h := Hearing{HeldOn: in.HeldOn, Action: in.Action, CommandID: c.ID}
	if in.Action != ActionModify && (len(in.Parcels) > 0 || len(in.Costs) > 0) {
		return Errorf(EINVALID, sectionAssessment, "Only a modification changes the report's parcels or estimate.")
	}
	var summary string
	switch in.Action {
	case ActionApprove:
		p.Stage, summary = StageApproved, "hearing held; report approved"
	case ActionDisapprove:
		p.Stage, summary = StageDisapproved, "hearing held; report disapproved"
	case ActionRerefer:
		if err := required("A re-referral's directions to the officer", in.Directions); err != nil {
			return err
		}
		h.Directions = strings.TrimSpace(in.Directions)
		p.Stage, summary = StageRereferred, "hearing held; report re-referred to "+p.Officer
	case ActionModify:
		if len(in.Parcels) == 0 && len(in.Costs) == 0 {
			return Errorf(EINVALID, sectionAssessment, "A modification changes at least one parcel or the estimate.")
		}
		r := *p.Report
		r.Parcels = slices.Clone(r.Parcels)
		for _, rp := range in.Parcels {
			if err := p.checkParcel(rp); err != nil {
				return err
			}
			i := slices.IndexFunc(r.Parcels, func(x ReportParcel) bool { return x.Parcel == rp.Parcel })
			if slices.Contains(h.Modified, rp.Parcel) {
				return Errorf(EINVALID, sectionAssessment, "Parcel %s is modified twice.", rp.Parcel)
			}
			r.Parcels[i] = rp
			h.Modified = append(h.Modified, rp.Parcel)
		}
		if len(in.Costs) > 0 {
			if err := p.checkCosts(in.Costs); err != nil {
				return err
			}
			r.Costs, h.Costs = in.Costs, true
		}
		if _, err := p.ComputeSchedule(r, params); err != nil {
			return err
		}
		p.Report = &r
		p.Stage, summary = StageApproved, fmt.Sprintf("hearing held; report modified (%d parcels", len(h.Modified))
		if h.Costs {
			summary += ", the estimate"
		}
		summary += ") and approved"
	default:
		return Errorf(EINVALID, sectionAssessment, "The board approves, disapproves, modifies or re-refers the report, not %q.", in.Action)
	}
	p.Hearings = append(p.Hearings, h)
	return p.record(tx, c, in.HeldOn, summary, res)
}

// ---- The final resolution and its publication (§5.14(7)(c)–(f)) ----

// AssessmentFinal records the final resolution: the work directed to be
// done (or confirmed) and paid for as the report was finally approved,
// with the installments, their interest and the first due date.
type AssessmentFinal struct {
	Project      string `json:"project"`
	Number       string `json:"number"`
	AdoptedOn    Date   `json:"adopted_on"`
	Installments int    `json:"installments"`
	InterestRate Rate   `json:"interest_rate"`
	FirstDueOn   Date   `json:"first_due_on"`
}

// KindAssessmentFinal records a project's final resolution.
const KindAssessmentFinal Kind = "assessment_final"

// Kind names the payload's kind.
func (*AssessmentFinal) Kind() Kind { return KindAssessmentFinal }

func (p *AssessmentFinal) textFields() []textField {
	return []textField{oneLine("The project id", p.Project), oneLine("The resolution number", p.Number)}
}

func applyAssessmentFinal(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*AssessmentFinal)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	waived := (p.Stage == StageReported || p.Stage == StageNoticed) && p.Waived()
	if !waived {
		if err := p.expect("the final resolution follows the board's approval of the report after the hearing, or the written waiver of notice and hearing by every owner", StageApproved); err != nil {
			return err
		}
	}
	if err := p.stepOn(in.AdoptedOn, c, "final resolution"); err != nil {
		return err
	}
	if err := required("The final resolution's number", in.Number); err != nil {
		return err
	}
	n := in.Installments
	switch {
	case p.Installments > 0 && n == 0:
		n = p.Installments
	case p.Installments > 0 && n != p.Installments:
		return Errorf(EINVALID, sectionAssessment, "The preliminary resolution set %d installments; the final resolution cannot set %d.", p.Installments, n)
	case n < 1 || n > maxInstallments:
		return Errorf(EINVALID, sectionAssessment, "The preliminary resolution left the number of installments to the hearing: the final resolution sets it, 1 to %d.", maxInstallments)
	}
	if in.InterestRate.Decimal().GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return Errorf(EINVALID, sectionAssessment, "The interest rate is a year's rate below 100%%, like 0.05 (5%%).")
	}
	if !in.FirstDueOn.After(in.AdoptedOn) {
		return Errorf(EINVALID, sectionAssessment, "The first installment falls due after the final resolution is adopted.")
	}
	p.Final = &FinalResolution{Number: strings.TrimSpace(in.Number), AdoptedOn: in.AdoptedOn, Installments: n, InterestRate: in.InterestRate, FirstDueOn: in.FirstDueOn, Waived: waived}
	p.Stage = StageAdopted
	summary := fmt.Sprintf("final resolution %s adopted: %d installments at %s a year, the first due %s", p.Final.Number, n, in.InterestRate.Percent(), in.FirstDueOn)
	if waived {
		summary += "; notice and hearing waived in writing by every owner"
	}
	return p.record(tx, c, in.AdoptedOn, summary, res)
}

// AssessmentPublish records the publication of the final resolution
// (§5.14(7)(e)): from it the assessments are deemed made, subject to
// appeal within the days of Wis. Stat. 66.0703(12).
type AssessmentPublish struct {
	Project     string `json:"project"`
	PublishedOn Date   `json:"published_on"`
	Publication string `json:"publication"`
}

// KindAssessmentPublish records the publication of a final resolution.
const KindAssessmentPublish Kind = "assessment_publish"

// Kind names the payload's kind.
func (*AssessmentPublish) Kind() Kind { return KindAssessmentPublish }

func (p *AssessmentPublish) textFields() []textField {
	return []textField{oneLine("The project id", p.Project), oneLine("The publication", p.Publication)}
}

func applyAssessmentPublish(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*AssessmentPublish)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("the final resolution is published once it is adopted", StageAdopted); err != nil {
		return err
	}
	if err := p.stepOn(in.PublishedOn, c, "publication"); err != nil {
		return err
	}
	if err := required("Where the final resolution was published", in.Publication); err != nil {
		return err
	}
	v := params.At(in.PublishedOn)
	if err := v.require(sectionAssessment, in.PublishedOn, "assessment_appeal_days"); err != nil {
		return err
	}
	p.Final.PublishedOn, p.Final.Publication = in.PublishedOn, strings.TrimSpace(in.Publication)
	p.Final.AppealBy = in.PublishedOn.AddDays(v.AssessmentAppealDays)
	p.Stage = StageFinal
	return p.record(tx, c, in.PublishedOn, fmt.Sprintf("final resolution published in %s; the assessments are deemed made; appeals until %s", p.Final.Publication, p.Final.AppealBy), res)
}

// ---- Descriptors ----

var (
	assessmentPreliminaryKind = &Descriptor{
		Kind: KindAssessmentPreliminary, Section: "§5.14(3)(a)", Since: 2, Roles: []Role{RoleAdministrator, RoleBoard},
		New:   func() Payload { return new(AssessmentPreliminary) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyAssessmentPreliminary(tx, c, res) },
	}
	assessmentReportKind = &Descriptor{
		Kind: KindAssessmentReport, Section: "§5.14(3)(b)", Since: 2, Roles: []Role{RoleAdministrator, RoleClerk},
		New:   func() Payload { return new(AssessmentReport) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentReport(tx, c, e.Params, res) },
	}
	assessmentNoticeKind = &Descriptor{
		Kind: KindAssessmentNotice, Section: "§5.14(6)", Since: 2, Roles: []Role{RoleClerk, RoleAdministrator},
		New:   func() Payload { return new(AssessmentNotice) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentNotice(tx, c, e.Params, res) },
	}
	assessmentOwnerKind = &Descriptor{
		Kind: KindAssessmentOwner, Section: "§5.14(8)", Since: 2, Roles: []Role{RoleClerk, RoleAdministrator},
		New:   func() Payload { return new(AssessmentOwner) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyAssessmentOwner(tx, c, res) },
	}
	assessmentHearingKind = &Descriptor{
		Kind: KindAssessmentHearing, Section: "§5.14(7)", Since: 2, Roles: []Role{RoleAdministrator, RoleBoard},
		New:   func() Payload { return new(AssessmentHearing) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentHearing(tx, c, e.Params, res) },
	}
	assessmentFinalKind = &Descriptor{
		Kind: KindAssessmentFinal, Section: "§5.14(7)", Since: 2, Roles: []Role{RoleAdministrator, RoleBoard},
		New:   func() Payload { return new(AssessmentFinal) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyAssessmentFinal(tx, c, res) },
	}
	assessmentPublishKind = &Descriptor{
		Kind: KindAssessmentPublish, Section: "§5.14(7)(e)", Since: 2, Roles: []Role{RoleClerk, RoleAdministrator},
		New:   func() Payload { return new(AssessmentPublish) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentPublish(tx, c, e.Params, res) },
	}
)

// ---- Reads ----

// AssessmentProjects returns every special assessment project, by id.
func (x Reads) AssessmentProjects() ([]Project, error) {
	return all[Project](x.r, CollectionAssessmentProjects, "")
}

// AssessmentProject returns one project.
func (x Reads) AssessmentProject(id string) (Project, error) {
	return must[Project](x.r, CollectionAssessmentProjects, id, "special assessment project")
}

// AssessmentDocument returns a document a report attached.
func (x Reads) AssessmentDocument(id string) (AssessmentDocument, error) {
	return must[AssessmentDocument](x.r, CollectionAssessmentDocuments, id, "document")
}

// ContemplatedImprovements returns the projects whose district holds the
// parcel and that are past their preliminary resolution but not levied,
// disapproved or cancelled: the contemplated improvements a status letter
// states (§5.11).
func (x Reads) ContemplatedImprovements(parcel string) ([]Project, error) {
	ps, err := x.AssessmentProjects()
	return slices.DeleteFunc(ps, func(p Project) bool { return !p.Contemplated() || !p.InDistrict(parcel) }), err
}
