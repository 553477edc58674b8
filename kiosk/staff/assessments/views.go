package assessments

import (
	"strconv"

	"github.com/villagehall/appliance/domain"
)

// The view models of the special assessments pages: handlers fill them
// with text already formatted; the templ components only lay them out.
// Every element a test reads carries a data-testid attribute.

// Projects is the list of special assessment projects.
type Projects struct {
	Rows      []ProjectRow
	CanCreate bool
}

// ProjectRow is one project in the list.
type ProjectRow struct {
	ID, Purpose, Stage, Parcels, Estimate, Levied, URL string
}

// Option is one choice of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// PreliminaryForm is the form of a preliminary resolution.
type PreliminaryForm struct {
	Project, Number, AdoptedOn, Purpose, Basis, Improvements, District, Limits, Installments, CostShare, Officer string
	Error                                                                                                        string
	Parcels                                                                                                      []Option // the ledger's parcels, for reference
}

// Project is a project's page: what the resolution declared, each step,
// the schedule of the report, and the form of each step the person may
// take next.
type Project struct {
	ID, Number, AdoptedOn, Purpose, Basis, Limits, Officer, Installments, CostShare string
	Stage, StageKey                                                                 string
	Improvements                                                                    []string
	Steps                                                                           []Step
	Report                                                                          *Report
	Schedule                                                                        *Schedule
	Notices                                                                         []NoticeRow
	Window                                                                          string // the hearing window of the latest notice
	Waivers, Objections                                                             []OwnerRow
	Hearings                                                                        []HearingRow
	Final                                                                           *Final
	Levy                                                                            *Levy
	Assessments                                                                     []AssessmentRow
	Changes                                                                         []ChangeRow

	Error, ErrorStep string // the last form's problem, and which form
	Can              Can
	ReportForm       ReportForm
	NoticeForm       NoticeForm
	OwnerForm        OwnerForm
	HearingForm      HearingForm
	FinalForm        FinalForm
	PublishForm      PublishForm
	LevyForm         LevyForm
	ChangeForm       ChangeForm
}

// Can says which step forms the page shows.
type Can struct {
	Report, Notice, Owner, Hearing, Final, Publish, Levy, Change bool
}

// Step is one recorded step.
type Step struct{ On, Kind, Summary, By string }

// Report is a filed report.
type Report struct {
	FiledOn, Estimate, Benefited string
	Documents                    []Doc
	Costs                        []Cost
}

// Doc is an attached document.
type Doc struct{ Name, URL, Size, SHA256 string }

// Cost is a line of the estimate.
type Cost struct{ Improvement, Category, Description, Amount string }

// Schedule is the schedule of proposed (or levied) assessments.
type Schedule struct {
	Improvements                                                 []string
	Rows                                                         []ScheduleRow
	Estimate, Assessed, VillagePays, Benefits, Net, Compensation string
}

// ScheduleRow is one parcel of the schedule.
type ScheduleRow struct {
	Parcel, Address, Owner, Units, Assessed, Corner   string
	Exempt                                            bool
	Lines                                             []Line
	Benefits, Damages, Net, Compensation, VillagePays string
}

// Line is one improvement's share of a parcel.
type Line struct {
	Amount   string
	Separate bool
}

// NoticeRow is a notice given.
type NoticeRow struct {
	NoticeOn, Method, MailedOn, Mailed, HearingOn, HearingAt, Inspection, LettersURL string
}

// OwnerRow is an owner's waiver or objection.
type OwnerRow struct{ Parcel, Improvement, SignedOn, Signer string }

// HearingRow is a hearing held.
type HearingRow struct{ HeldOn, Action, Directions, Modified string }

// Final is the final resolution.
type Final struct {
	Number, AdoptedOn, Installments, Rate, FirstDueOn, PublishedOn, Publication, AppealBy string
	Waived                                                                                bool
}

// Levy is the levy.
type Levy struct{ LeviedOn, Assessments, Levied, VillagePays, Compensation string }

// AssessmentRow is one parcel's assessment in the project's list.
type AssessmentRow struct {
	ID, Parcel, Address, Amount, Outstanding, Status, Appeal, URL string
}

// ChangeRow is a change of the board.
type ChangeRow struct{ Op, On, NoticeOn, Reason, Before, After, Refunds string }

// ParcelInput is one parcel's row of the report's form (and of a
// modification at the hearing).
type ParcelInput struct {
	Parcel, Address, Units, Damages, BenefitValue, LongSide, Deduction string
	Exempt                                                             bool
}

// CostInput is one line of the estimate's form.
type CostInput struct {
	Improvement, Category, Description, Amount string
}

// ReportForm files the report.
type ReportForm struct {
	FiledOn, Benefited string
	Parcels            []ParcelInput
	Costs              []CostInput
	Improvements       []string
	Categories         []string
}

// NoticeForm records the notice.
type NoticeForm struct {
	Method, Newspaper, NoticeOn, MailedOn, Inspection, HearingOn, HearingAt string
	Places                                                                  []string
}

// OwnerForm records a waiver or an objection.
type OwnerForm struct {
	Op, Parcel, Improvement, SignedOn, Signer string
	Parcels                                   []Option
	Improvements                              []string
	Combined                                  bool
}

// HearingForm records the hearing and the board's action.
type HearingForm struct {
	HeldOn, Action, Directions string
	Parcels                    []ParcelInput
	Costs                      []CostInput
	Improvements               []string
	Categories                 []string
}

// FinalForm records the final resolution.
type FinalForm struct {
	Number, AdoptedOn, Installments, Rate, FirstDueOn string
	FixedInstallments                                 string // set by the preliminary resolution
}

// PublishForm records the final resolution's publication.
type PublishForm struct{ PublishedOn, Publication string }

// LevyForm levies the assessments.
type LevyForm struct{ LeviedOn string }

// ChangeForm records a change of the board.
type ChangeForm struct {
	Op, On, NoticeOn, Reason, ActualCost string
	Costs                                []CostInput
	Improvements                         []string
	Categories                           []string
}

// Assessment is one parcel's assessment.
type Assessment struct {
	ID, Project, ProjectURL, Parcel, Address, Owner, Purpose string
	Levied, Amount, LeviedOn, Rate, Damages, Benefits        string
	Lines                                                    []AssessmentLine
	Installments                                             []InstallmentRow
	Payments                                                 []PaymentRow
	Changes                                                  []ChangeRow
	Appeals                                                  []AppealRow
	Outstanding, Payable, Next, PastDue, Deferred, Status    string
	Cancelled                                                bool
	CanAppeal, CanPay                                        bool
	AppealBy                                                 string
	Error                                                    string
	AppealForm                                               AppealForm
}

// AssessmentLine is one improvement's line.
type AssessmentLine struct {
	Improvement, Amount, VillagePays string
	Separate                         bool
}

// InstallmentRow is one installment as of today.
type InstallmentRow struct {
	N, DueOn, Principal, Interest, Paid, Left, Status, TaxRoll string
	InterestFrom                                               string // when the year's interest is owed from, if it bears any
	// BillURL prints the installment's bill while it is payable;
	// NoticeURL its notice before the tax roll while it is past due
	// (§5.14(12)).
	BillURL, NoticeURL string
}

// installmentStatus says an installment's status in words.
var installmentStatus = map[string]string{
	domain.InstallmentPaid:      "paid",
	domain.InstallmentDue:       "not yet due",
	domain.InstallmentPastDue:   "past due",
	domain.InstallmentTaxRoll:   "on the tax roll",
	domain.InstallmentCancelled: "cancelled",
}

// PaymentRow is one payment.
type PaymentRow struct {
	Receipt, At, Amount, Tender, Option, Interest, Principal, Overpayment, URL string
}

// AppealRow is an appeal.
type AppealRow struct{ FiledOn, Reference, State, DismissedOn string }

// AppealForm files or dismisses an appeal.
type AppealForm struct{ Op, On, Reference string }

// Window is the window's form for a cash or check payment on an
// assessment.
type Window struct {
	Assessment                                        Assessment
	DrawerID                                          string
	Open                                              bool
	Amount, Tender, Tendered, Reference, Payer, Error string
	Options                                           []PayOption
}

// PayOption is one way to pay an assessment today.
type PayOption struct{ Option, Label, Amount string }

// Charges is the special charges page: the repair notices and the forms.
type Charges struct {
	Notices     []RepairRow
	CanWork     bool
	Categories  []Option
	Repairs     []Option
	NoticeForm  RepairForm
	ChargeForm  ChargeForm
	Error       string
	ErrorForm   string
	Billed      string // the bill a charge just made
	BilledTotal string
}

// RepairRow is one repair notice.
type RepairRow struct {
	ID, Category, Parcels, Description, PublishedOn, MailedOn, HearingOn, HearingAt, HeldOn, Decision string
	Open                                                                                              bool
}

// RepairForm records a repair notice.
type RepairForm struct {
	ID, Category, Parcels, Description, Method, Newspaper, PublishedOn, MailedOn, HearingOn, HearingAt string
	Places                                                                                             []string
}

// ChargeForm bills a special charge.
type ChargeForm struct {
	Category, Account, Parcel, Notice, Reference, Installments string
	Lines                                                      []CostInput // Description and Amount
}

func itoa(n int) string { return strconv.Itoa(n) }
