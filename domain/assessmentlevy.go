package domain

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// The levy of a project's assessments and what becomes of them (§5.14):
// each parcel's assessment in the installments the final resolution set,
// with interest; payments by card at the kiosk and in cash or by check at
// the window; the board's changes (§5.14(9), (10)) with refunds through
// the refund queue of §5.07(1); appeals (§5.14(11)); and the installments
// not paid by their date extended on the tax roll as a delinquent tax in
// the November run (§5.14(12)).

// Collections and indexes of special assessments.
const (
	CollectionAssessments       = "assessments"           // id: AssessmentID(project, parcel) → Assessment
	IndexAssessmentsByParcel    = "assessments-by-parcel" // key: "<parcel>/<assessment id>"
	CollectionAssessmentRefunds = "assessment-refunds"    // id: the refund's key (RefundDue.CommandID) → AssessmentRefund
)

// AssessmentID returns the id of the assessment of a project on a parcel:
// "<project>~<parcel>" (a project id holds no "~").
func AssessmentID(project, parcel string) string { return project + "~" + parcel }

// InstallmentKey names installment n of an assessment, as the November
// run lists it and the tax roll export prints it: "<assessment id>#<n>".
func InstallmentKey(assessment string, n int) string { return assessment + "#" + strconv.Itoa(n) }

// villageShareID stands for the village's own share of a project's cost
// among the assessments a reduction to the actual cost shares out; no
// parcel id has its form.
const villageShareID = "~village"

// Levy is a project's levy.
type Levy struct {
	LeviedOn     Date   `json:"levied_on"`
	Assessments  int    `json:"assessments"`  // parcels levied (a net above $0.00)
	Levied       Money  `json:"levied"`       // the total levied
	VillagePays  Money  `json:"village_pays"` // exempt parcels' shares and corner deductions
	Compensation Money  `json:"compensation"` // damages above benefits, owed to owners
	CommandID    string `json:"command_id"`
}

// ProjectChange is a change the board made to a project's assessments
// after the levy.
type ProjectChange struct {
	Op         string `json:"op"`
	On         Date   `json:"on"`
	NoticeOn   Date   `json:"notice_on,omitzero"`
	Reason     string `json:"reason"`
	ActualCost Money  `json:"actual_cost"`
	Before     Money  `json:"before"`  // the total levied before
	After      Money  `json:"after"`   // and after
	Refunds    Money  `json:"refunds"` // refunds due it made
	// VillageBefore and VillageAfter are the village's own share of the
	// cost (Levy.VillagePays: exempt parcels' shares and corner
	// deductions) before and after the change, from ledger format 7: a
	// cost below the levy reduces the village's share in the same
	// proportion as every owner's (§5.14(10)).
	VillageBefore Money  `json:"village_before,omitzero"`
	VillageAfter  Money  `json:"village_after,omitzero"`
	CommandID     string `json:"command_id"`
}

// Assessment is the special assessment levied on one parcel by one
// project: its lines (one per improvement, an objected one separate), the
// net of damages, the installments and every payment.
type Assessment struct {
	ID           string              `json:"id"`
	Project      string              `json:"project"`
	Parcel       string              `json:"parcel"`
	Purpose      string              `json:"purpose"`
	Lines        []ScheduleLine      `json:"lines"`
	Benefits     Money               `json:"benefits"`
	Damages      Money               `json:"damages"`
	Levied       Money               `json:"levied"` // as first levied
	Amount       Money               `json:"amount"` // as it stands after the board's changes
	LeviedOn     Date                `json:"levied_on"`
	InterestRate Rate                `json:"interest_rate"`
	Installments []Installment       `json:"installments"`
	Payments     []AssessmentPayment `json:"payments,omitempty"`
	Changes      []AssessmentChange  `json:"changes,omitempty"`
	Appeals      []Appeal            `json:"appeals,omitempty"`
	Cancelled    bool                `json:"cancelled,omitempty"`
	CommandID    string              `json:"command_id"`
}

// Installment is one installment of an assessment. Its interest is the
// year's interest on the principal unpaid on the schedule when its year
// begins (InterestFrom, the day after the installment before fell due);
// it is owed from that day (see Assessment.Figures).
type Installment struct {
	N              int    `json:"n"`
	DueOn          Date   `json:"due_on"`
	Principal      Money  `json:"principal"`
	Interest       Money  `json:"interest"`
	InterestFrom   Date   `json:"interest_from,omitzero"`
	PrincipalPaid  Money  `json:"principal_paid"`
	InterestPaid   Money  `json:"interest_paid"`
	ClosedOn       Date   `json:"closed_on,omitzero"` // paid in full (or closed by a change)
	TaxRollYear    int    `json:"tax_roll_year,omitempty"`
	TaxRollAmount  Money  `json:"tax_roll_amount"`
	TaxRollCommand string `json:"tax_roll_command,omitempty"`
}

// AssessmentPayment is a payment on an assessment, as it was applied.
type AssessmentPayment struct {
	CommandID   string                  `json:"command_id"`
	Receipt     string                  `json:"receipt"`
	At          DateTime                `json:"at"`
	Amount      Money                   `json:"amount"`
	Option      string                  `json:"option,omitempty"`
	Tender      Tender                  `json:"tender"`
	Reference   string                  `json:"reference,omitempty"`
	Payer       string                  `json:"payer,omitempty"`
	DrawerID    string                  `json:"drawer_id,omitempty"`
	Allocation  []InstallmentAllocation `json:"allocation"`
	Overpayment Money                   `json:"overpayment"`
}

// InstallmentAllocation is the part of a payment one installment took.
type InstallmentAllocation struct {
	N         int   `json:"n"`
	Interest  Money `json:"interest"`
	Principal Money `json:"principal"`
}

// AssessmentChange is what a board's change did to one assessment.
type AssessmentChange struct {
	Op        string `json:"op"`
	On        Date   `json:"on"`
	From      Money  `json:"from"`
	To        Money  `json:"to"`
	Refund    Money  `json:"refund"`
	RefundID  string `json:"refund_id,omitempty"`
	CommandID string `json:"command_id"`
}

// Appeal is an appeal of an assessment (Wis. Stat. 66.0703(12)).
type Appeal struct {
	FiledOn     Date   `json:"filed_on"`
	Reference   string `json:"reference"` // the court and case
	State       string `json:"state"`     // AppealOpen | AppealDismissed
	DismissedOn Date   `json:"dismissed_on,omitzero"`
	CommandID   string `json:"command_id"`
}

// Appeal states.
const (
	AppealOpen      = "open"
	AppealDismissed = "dismissed" // dismissed on default in payment (§5.14(11))
)

// AssessmentRefund is an amount of an assessment the village owes back:
// an overpayment (§5.07(1)), or what was paid above an assessment the
// board reduced or cancelled (§5.14(10)). Its key is the refund due's
// command id in the refund queue.
type AssessmentRefund struct {
	Key        string   `json:"key"`
	Assessment string   `json:"assessment"`
	Project    string   `json:"project"`
	Parcel     string   `json:"parcel"`
	Amount     Money    `json:"amount"`
	Reason     string   `json:"reason"`
	CommandID  string   `json:"command_id"`
	At         DateTime `json:"at"`
}

// Open reports whether the appeal is still open.
func (a Assessment) openAppeal() int {
	return slices.IndexFunc(a.Appeals, func(x Appeal) bool { return x.State == AppealOpen })
}

// VillagePays is the village's own share of the project's cost as it
// stands: as levied, or as the board's last change that recorded it left
// it (ledger format 7).
func (p Project) VillagePays() Money {
	if p.Levy == nil {
		return Cents(0)
	}
	v := p.Levy.VillagePays
	for _, ch := range p.Changes {
		if !ch.VillageBefore.IsZero() || !ch.VillageAfter.IsZero() {
			v = ch.VillageAfter
		}
	}
	return v
}

// receipts are the receipt numbers of the payments on the assessment, in
// the order they were posted.
func (a Assessment) receipts() []string {
	var out []string
	for _, x := range a.Payments {
		out = append(out, x.Receipt)
	}
	return out
}

// ---- Installments ----

// installmentSchedule splits an amount into n yearly installments, the
// first due on first: the principal in equal parts to the cent (the cents
// left over one each to the earliest installments), and for each
// installment after the first the year's interest on the principal still
// unpaid on the schedule (rounded to the cent on its own), owed from the
// day after the installment before fell due. The first installment bears
// no interest: it is the assessment paid when first due.
func installmentSchedule(amount Money, n int, rate Rate, first Date) []Installment {
	weights := make([]*big.Int, n)
	for i := range weights {
		weights[i] = big.NewInt(1)
	}
	parts := largestRemainder(amount, weights)
	out := make([]Installment, n)
	for k := range n {
		out[k] = Installment{N: k + 1, DueOn: first.AddMonths(12 * k), Principal: parts[k], Interest: Cents(0), PrincipalPaid: Cents(0), InterestPaid: Cents(0), TaxRollAmount: Cents(0)}
		if k > 0 {
			out[k].InterestFrom = out[k-1].DueOn.AddDays(1)
		}
	}
	scheduleInterest(out, rate, Date{})
	return out
}

// scheduleInterest sets the interest of the installments whose interest
// year has not begun on `from` (every installment for a zero from): the
// rate times the principal of it and every later installment.
func scheduleInterest(inst []Installment, rate Rate, from Date) {
	for k := range inst {
		if k == 0 || (!from.IsZero() && !from.Before(inst[k].InterestFrom)) || !inst[k].ClosedOn.IsZero() {
			continue
		}
		unpaid := Cents(0)
		for _, later := range inst[k:] {
			unpaid = unpaid.Add(later.Principal)
		}
		inst[k].Interest = unpaid.MulRate(rate)
	}
}

// taxRollDayOf returns the November 15 whose tax roll an installment due
// on due is extended on when it is not paid: that of its own year when it
// falls due by then, else the next year's (§5.14(12), read with the
// November run of §5.10).
func taxRollDayOf(due Date) Date {
	d := TaxRollDay(due.Year())
	if due.After(d) {
		d = TaxRollDay(due.Year() + 1)
	}
	return d
}

// InstallmentRollDay returns the November 15 whose tax roll an
// installment due on due is extended on when it is not paid by the end of
// that day (§5.14(12)); for any other day, the first November 15 on or
// after it. A notice of delinquency warns the owner before it.
func InstallmentRollDay(due Date) Date { return taxRollDayOf(due) }

// DueForRoll returns the installments payable on day on that the next
// tax roll (the first November 15 on or after on) takes if they are not
// paid by then (§5.14(12)): those past due, and the one falling due by
// that day. Installments due later are deferred, not yet owed; one on
// the roll is collected with the property tax, not by the village.
func (a Assessment) DueForRoll(on Date) []InstallmentFigures {
	roll := taxRollDayOf(on)
	var out []InstallmentFigures
	for _, x := range a.Figures(on).Installments {
		if x.Payable() && x.Left.IsPositive() && taxRollDayOf(x.DueOn) == roll {
			out = append(out, x)
		}
	}
	return out
}

// Installment statuses, as of a day.
const (
	InstallmentPaid      = "paid"
	InstallmentDue       = "due"      // payable, not yet past its due date
	InstallmentPastDue   = "past_due" // payable, past its due date: extended on the tax roll if unpaid at the end of November 15
	InstallmentTaxRoll   = "tax_roll" // not paid by November 15: a delinquent tax collected with the property tax
	InstallmentCancelled = "cancelled"
)

// InstallmentFigures is an installment as of a day.
type InstallmentFigures struct {
	N         int   `json:"n"`
	DueOn     Date  `json:"due_on"`
	Principal Money `json:"principal"`
	Interest  Money `json:"interest"` // owed as of the day
	// Scheduled is the installment's year of interest as the schedule
	// sets it (the rate on the principal unpaid when its year begins), and
	// InterestFrom the day it is owed from: before that day Interest is
	// 0.00 and Scheduled says what it will be.
	Scheduled     Money  `json:"scheduled_interest"`
	InterestFrom  Date   `json:"interest_from,omitzero"`
	PrincipalPaid Money  `json:"principal_paid"`
	InterestPaid  Money  `json:"interest_paid"`
	Left          Money  `json:"left"`
	Status        string `json:"status"`
	TaxRollYear   int    `json:"tax_roll_year,omitempty"`
}

// Payable reports whether the village takes a payment on the installment.
func (f InstallmentFigures) Payable() bool {
	return f.Status == InstallmentDue || f.Status == InstallmentPastDue
}

// AssessmentFigures are an assessment's figures as of a day.
type AssessmentFigures struct {
	AsOf         Date                 `json:"as_of"`
	Amount       Money                `json:"amount"`
	Installments []InstallmentFigures `json:"installments"`
	Paid         Money                `json:"paid"`        // principal and interest paid
	Outstanding  Money                `json:"outstanding"` // everything left, on the tax roll included
	Payable      Money                `json:"payable"`     // what pays it off at the village today
	Next         Money                `json:"next"`        // the first payable installment
	NextN        int                  `json:"next_n"`
	PastDue      Money                `json:"past_due"` // left of installments past their due date (tax roll included)
	Deferred     Money                `json:"deferred"` // principal of installments not yet due
	OnTaxRoll    Money                `json:"tax_roll"` // extended, or to be extended, on the tax roll
	Status       string               `json:"status"`   // "paid", "current", "past_due", "tax_roll", "cancelled"
}

// paidOf says what an installment had paid, and whether it was closed.
type paidOf func(k int) (principal, interest Money, closed bool)

// Figures returns the assessment's figures as of a day, counting the
// payments dated on or before it. Changes the board made are counted as
// they stand now (the schedule is the current one).
func (a Assessment) Figures(asOf Date) AssessmentFigures {
	return a.figuresWith(asOf, func(k int) (Money, Money, bool) {
		pp, ip := Cents(0), Cents(0)
		for _, pay := range a.Payments {
			if pay.At.Date.After(asOf) {
				continue
			}
			for _, al := range pay.Allocation {
				if al.N == a.Installments[k].N {
					pp, ip = pp.Add(al.Principal), ip.Add(al.Interest)
				}
			}
		}
		c := a.Installments[k].ClosedOn
		return pp, ip, !c.IsZero() && !c.After(asOf)
	})
}

// current returns the figures on a day with every payment the assessment
// holds, whatever its date: what posting a payment allocates against
// (an offline payment replayed may be dated before one already posted).
func (a Assessment) current(on Date) AssessmentFigures {
	return a.figuresWith(on, func(k int) (Money, Money, bool) {
		in := a.Installments[k]
		return in.PrincipalPaid, in.InterestPaid, !in.ClosedOn.IsZero()
	})
}

func (a Assessment) figuresWith(asOf Date, paid paidOf) AssessmentFigures {
	f := AssessmentFigures{AsOf: asOf, Amount: a.Amount, Paid: Cents(0), Outstanding: Cents(0), Payable: Cents(0), Next: Cents(0), PastDue: Cents(0), Deferred: Cents(0), OnTaxRoll: Cents(0)}
	for k, in := range a.Installments {
		pp, ip, closed := paid(k)
		x := InstallmentFigures{N: in.N, DueOn: in.DueOn, Principal: in.Principal, Interest: Cents(0), Scheduled: in.Interest, InterestFrom: in.InterestFrom, PrincipalPaid: pp, InterestPaid: ip, Left: Cents(0), TaxRollYear: in.TaxRollYear}
		f.Paid = f.Paid.Add(pp).Add(ip)
		if !in.InterestFrom.After(asOf) {
			x.Interest = in.Interest
		}
		switch {
		case closed:
			x.Status, x.Interest = InstallmentPaid, ip
		case a.Cancelled:
			x.Status = InstallmentCancelled
		default:
			x.Left = in.Principal.Sub(pp).Add(x.Interest.Sub(ip).Max(Cents(0)))
			switch {
			case in.TaxRollYear > 0 || asOf.After(taxRollDayOf(in.DueOn)):
				x.Status = InstallmentTaxRoll
				if in.TaxRollYear > 0 {
					x.Left = in.TaxRollAmount
				}
				f.OnTaxRoll = f.OnTaxRoll.Add(x.Left)
				f.PastDue = f.PastDue.Add(x.Left)
			case asOf.After(in.DueOn):
				x.Status = InstallmentPastDue
				f.PastDue = f.PastDue.Add(x.Left)
			default:
				x.Status = InstallmentDue
				f.Deferred = f.Deferred.Add(in.Principal.Sub(pp))
			}
			f.Outstanding = f.Outstanding.Add(x.Left)
			if x.Payable() {
				f.Payable = f.Payable.Add(x.Left)
				if f.NextN == 0 {
					f.Next, f.NextN = x.Left, x.N
				}
			}
		}
		f.Installments = append(f.Installments, x)
	}
	switch {
	case a.Cancelled:
		f.Status = "cancelled"
	case f.Outstanding.IsZero():
		f.Status = "paid"
	case f.OnTaxRoll.IsPositive():
		f.Status = "tax_roll"
	case f.PastDue.IsPositive():
		f.Status = "past_due"
	default:
		f.Status = "current"
	}
	return f
}

// Payment options at the kiosk and the window.
const (
	PayInstallment = "installment" // the first installment payable
	PayInFull      = "full"        // every installment payable: the assessment paid off
)

// Option returns what option o pays on a day, and whether it is open: the
// next installment while more than one is payable, or all of them.
func (f AssessmentFigures) Option(o string) (Money, bool) {
	payable := 0
	for _, x := range f.Installments {
		if x.Payable() {
			payable++
		}
	}
	switch o {
	case PayInFull:
		return f.Payable, f.Payable.IsPositive()
	case PayInstallment:
		return f.Next, payable > 1 && f.Next.IsPositive()
	}
	return Money{}, false
}

// allocate applies a payment on a day to the installments the village
// takes payments on, in order: to each one's interest owed, then its
// principal; an installment paid in full closes that day. What is left is
// an overpayment.
func (a *Assessment) allocate(amount Money, on Date) ([]InstallmentAllocation, Money) {
	f := a.current(on)
	left := amount
	var out []InstallmentAllocation
	for k, x := range f.Installments {
		if !x.Payable() || !left.IsPositive() {
			continue
		}
		in := &a.Installments[k]
		al := InstallmentAllocation{N: in.N, Interest: x.Interest.Sub(in.InterestPaid).Max(Cents(0)).Min(left)}
		left = left.Sub(al.Interest)
		al.Principal = in.Principal.Sub(in.PrincipalPaid).Min(left)
		left = left.Sub(al.Principal)
		in.InterestPaid, in.PrincipalPaid = in.InterestPaid.Add(al.Interest), in.PrincipalPaid.Add(al.Principal)
		if in.PrincipalPaid.Equal(in.Principal) && !in.InterestPaid.LessThan(x.Interest) {
			in.ClosedOn = on
		}
		if al.Interest.IsPositive() || al.Principal.IsPositive() {
			out = append(out, al)
		}
	}
	return out, left
}

// principalPaid returns the principal the assessment's payments paid.
func (a Assessment) principalPaid() Money {
	sum := Cents(0)
	for _, in := range a.Installments {
		sum = sum.Add(in.PrincipalPaid)
	}
	return sum
}

// onTaxRoll reports whether an installment went on the tax roll.
func (a Assessment) onTaxRoll() bool {
	return slices.ContainsFunc(a.Installments, func(in Installment) bool { return in.TaxRollYear > 0 })
}

// reamount sets the assessment to a new amount on a day (a reduction by
// 5.14/adjust, an amendment): when no more than the principal paid, every
// open installment closes at what it was paid; else what is left to pay
// is spread over the open installments in proportion to their unpaid
// principal (largest remainder), and the interest of the installments
// whose year has not begun is computed again on the new principal.
func (a *Assessment) reamount(amount Money, on Date) {
	a.Amount = amount
	paid := a.principalPaid()
	var open []int
	for k, in := range a.Installments {
		if in.ClosedOn.IsZero() {
			open = append(open, k)
		}
	}
	if !amount.GreaterThan(paid) || len(open) == 0 {
		for _, k := range open {
			in := &a.Installments[k]
			in.Principal = in.PrincipalPaid
			if !in.InterestFrom.After(on) {
				in.Interest = in.InterestPaid
			} else {
				in.Interest = Cents(0)
			}
			in.ClosedOn = on
		}
		return
	}
	weights := make([]*big.Int, len(open))
	sum := int64(0)
	for i, k := range open {
		in := a.Installments[k]
		weights[i] = big.NewInt(in.Principal.Sub(in.PrincipalPaid).Cents())
		sum += weights[i].Int64()
	}
	if sum == 0 {
		weights[len(weights)-1] = big.NewInt(1)
	}
	shares := largestRemainder(amount.Sub(paid), weights)
	for i, k := range open {
		in := &a.Installments[k]
		in.Principal = in.PrincipalPaid.Add(shares[i])
	}
	scheduleInterest(a.Installments, a.InterestRate, on)
	for _, k := range open {
		in := &a.Installments[k]
		if in.Principal.Equal(in.PrincipalPaid) && !in.InterestFrom.After(on) && !in.InterestPaid.LessThan(in.Interest) {
			in.ClosedOn = on
		}
	}
}

// ---- The levy (§5.14(5), (12)) ----

// AssessmentLevy levies a project's assessments, once its final
// resolution is published: each parcel's net by the schedule of the
// report finally approved, in the installments and with the interest the
// final resolution set.
type AssessmentLevy struct {
	Project  string `json:"project"`
	LeviedOn Date   `json:"levied_on"`
}

// KindAssessmentLevy levies a project's assessments.
const KindAssessmentLevy Kind = "assessment_levy"

// Kind names the payload's kind.
func (*AssessmentLevy) Kind() Kind { return KindAssessmentLevy }

func (p *AssessmentLevy) textFields() []textField {
	return []textField{oneLine("The project id", p.Project)}
}

func applyAssessmentLevy(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*AssessmentLevy)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("the assessments are levied after the final resolution is adopted and published", StageFinal); err != nil {
		return err
	}
	if err := p.stepOn(in.LeviedOn, c, "levy"); err != nil {
		return err
	}
	if !in.LeviedOn.Before(p.Final.FirstDueOn) {
		return Errorf(EINVALID, sectionAssessment, "The levy on %s would come after the first installment fell due (%s).", in.LeviedOn, p.Final.FirstDueOn)
	}
	sched, err := p.Schedule(params)
	if err != nil {
		return err
	}
	lv := Levy{LeviedOn: in.LeviedOn, Levied: Cents(0), VillagePays: sched.VillagePays, Compensation: sched.Compensation, CommandID: c.ID}
	for _, row := range sched.Rows {
		if !row.Net.IsPositive() {
			continue
		}
		a := Assessment{ID: AssessmentID(p.ID, row.Parcel), Project: p.ID, Parcel: row.Parcel, Purpose: p.Purpose, Lines: row.Lines, Benefits: row.Benefits, Damages: row.Damages,
			Levied: row.Net, Amount: row.Net, LeviedOn: in.LeviedOn, InterestRate: p.Final.InterestRate, CommandID: c.ID,
			Installments: installmentSchedule(row.Net, p.Final.Installments, p.Final.InterestRate, p.Final.FirstDueOn)}
		if err := tx.Put(CollectionAssessments, a.ID, a); err != nil {
			return err
		}
		if err := tx.Index(IndexAssessmentsByParcel, a.Parcel+"/"+a.ID); err != nil {
			return err
		}
		lv.Assessments++
		lv.Levied = lv.Levied.Add(a.Amount)
	}
	p.Levy, p.Stage = &lv, StageLevied
	return p.record(tx, c, in.LeviedOn, fmt.Sprintf("%d assessments levied, %s; the village pays %s", lv.Assessments, lv.Levied, lv.VillagePays), res)
}

// ---- Payments ----

// PayAssessment pays an assessment by card at the kiosk: the next
// installment, or all of it.
type PayAssessment struct {
	AssessmentID string `json:"assessment_id"`
	Option       string `json:"option"`
	Amount       Money  `json:"amount"`
	Tender       Tender `json:"tender"`
	Reference    string `json:"reference,omitempty"`
	Payer        string `json:"payer,omitempty"`
	// Card is what the terminal showed of the card (card.go); the kiosk
	// sends it from ledger format 3.
	Card *CardShown `json:"card,omitempty"`
}

// WindowAssessmentPayment is a cash or check payment on an assessment
// taken at the clerk's window into the cashier's open drawer.
type WindowAssessmentPayment struct {
	DrawerID     string `json:"drawer_id"`
	AssessmentID string `json:"assessment_id"`
	Option       string `json:"option,omitempty"`
	Amount       Money  `json:"amount"`
	Tender       Tender `json:"tender"`
	Tendered     Money  `json:"tendered"`
	Reference    string `json:"reference,omitempty"`
	Payer        string `json:"payer,omitempty"`
}

// Kinds of assessment payments.
const (
	KindPayAssessment           Kind = "pay_assessment"            // by card, at the kiosk
	KindWindowAssessmentPayment Kind = "window_assessment_payment" // in cash or by check, at the window
)

// Kind names the payload's kind.
func (*PayAssessment) Kind() Kind { return KindPayAssessment }

// Kind names the payload's kind.
func (*WindowAssessmentPayment) Kind() Kind { return KindWindowAssessmentPayment }

func (p *PayAssessment) textFields() []textField {
	return []textField{oneLine("The assessment", p.AssessmentID), oneLine("The option", p.Option), oneLine("The reference", p.Reference), oneLine("The payer's name", p.Payer)}
}

func (p *WindowAssessmentPayment) textFields() []textField {
	return []textField{oneLine("The drawer id", p.DrawerID), oneLine("The assessment", p.AssessmentID), oneLine("The option", p.Option), oneLine("The check number", p.Reference), oneLine("The payer's name", p.Payer)}
}

// getAssessment reads an assessment inside a transaction.
func getAssessment(tx Tx, id string) (Assessment, error) {
	var a Assessment
	ok, err := tx.Get(CollectionAssessments, id, &a)
	if err != nil {
		return a, err
	}
	if !ok {
		return a, Errorf(ENOTFOUND, sectionAssessment, "There is no special assessment %q.", id)
	}
	return a, nil
}

// postAssessmentPayment posts a payment on an assessment at its intake
// time: applied to the installments the village takes payments on
// (Assessment.allocate); money beyond them (paid meanwhile at another
// node, or by a cancelled assessment) is an overpayment, a refund due
// under §5.07(1). A payment dated before the levy is refused, and so is
// one on an assessment whose open installments are all on the tax roll:
// the county treasurer collects them with the property tax.
func postAssessmentPayment(tx Tx, c Command, pay AssessmentPayment, card *CardShown, id string, index uint64, params *Params, res *Result) error {
	if err := CheckPaymentAmount(pay.Amount, c.At.Date, params); err != nil {
		return err
	}
	if pay.Option != "" && pay.Option != PayInstallment && pay.Option != PayInFull {
		return Errorf(EINVALID, sectionAssessment, "Unknown payment option %q.", pay.Option)
	}
	a, err := getAssessment(tx, id)
	if err != nil {
		return err
	}
	if c.At.Date.Before(a.LeviedOn) {
		return Errorf(EINVALID, sectionAssessment, "A payment cannot be dated before the levy (%s).", a.LeviedOn)
	}
	before := a.current(c.At.Date)
	if !a.Cancelled && !before.Payable.IsPositive() && before.OnTaxRoll.IsPositive() {
		return Errorf(ECONFLICT, "§5.14(12)", "What is left of assessment %s is on the tax roll: it is paid with the property tax.", a.ID)
	}
	pay.Allocation, pay.Overpayment = a.allocate(pay.Amount, c.At.Date)
	if a.Cancelled {
		pay.Allocation, pay.Overpayment = nil, pay.Amount
	}
	pay.CommandID, pay.Receipt, pay.At = c.ID, c.ReceiptNumber(), c.At
	a.Payments = append(a.Payments, pay)
	if err := tx.Put(CollectionAssessments, a.ID, a); err != nil {
		return err
	}
	alloc := Allocation{Interest: Cents(0), Principal: Cents(0), Penalty: Cents(0), Overpayment: pay.Overpayment}
	for _, al := range pay.Allocation {
		alloc.Interest, alloc.Principal = alloc.Interest.Add(al.Interest), alloc.Principal.Add(al.Principal)
	}
	rc := Receipt{Number: pay.Receipt, Kind: c.Kind, CommandID: c.ID, Status: Posted, BillID: a.ID, Parcel: a.Parcel, Payer: pay.Payer, At: c.At, Amount: pay.Amount,
		Tender: pay.Tender, Reference: pay.Reference, Card: card, Allocation: alloc, Balance: a.current(c.At.Date).Outstanding, Node: c.Node, Index: index}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	if pay.Overpayment.IsPositive() {
		rd, err := assessmentRefundDue(tx, c, a, c.ID, pay.Overpayment, "overpayment of receipt "+rc.Number, params)
		if err != nil {
			return err
		}
		rd.Receipt = rc.Number
		if err := tx.PutRefundDue(rd); err != nil {
			return err
		}
		res.Refund = &rd
	}
	return nil
}

// assessmentRefundDue records an amount of assessment a the village owes
// back, under key, and returns the refund due with its §5.07(1) deadline
// counted from the command's day. The caller puts it in the refund queue.
func assessmentRefundDue(tx Tx, c Command, a Assessment, key string, amount Money, reason string, params *Params) (RefundDue, error) {
	r, err := ComputeRefund(RefundInput{PaidOn: c.At.Date, AmountPaid: amount}, params)
	if err != nil {
		return RefundDue{}, err
	}
	rec := AssessmentRefund{Key: key, Assessment: a.ID, Project: a.Project, Parcel: a.Parcel, Amount: r.Refund, Reason: reason, CommandID: c.ID, At: c.At}
	if err := tx.Put(CollectionAssessmentRefunds, key, rec); err != nil {
		return RefundDue{}, err
	}
	return RefundDue{CommandID: key, BillID: a.ID, PaidAt: c.At, Amount: r.Refund, RefundBy: r.RefundBy}, nil
}

func applyPayAssessment(tx Tx, c Command, index uint64, params *Params, res *Result) error {
	in := c.Payload.(*PayAssessment)
	if in.Tender != Card {
		return Errorf(EINVALID, "", "A %s payment is taken at the clerk's window, into an open drawer.", in.Tender)
	}
	card, err := receiptCard(tx, in.Card, in.Tender)
	if err != nil {
		return err
	}
	return postAssessmentPayment(tx, c, AssessmentPayment{Amount: in.Amount, Option: in.Option, Tender: in.Tender, Reference: in.Reference, Payer: in.Payer}, card, in.AssessmentID, index, params, res)
}

// applyWindowAssessmentPayment takes cash or a check into the cashier's
// open drawer, as the window takes a bill's (applyWindowPayment), and
// posts it on the assessment.
func applyWindowAssessmentPayment(tx Tx, c Command, index uint64, params *Params, res *Result) error {
	in := c.Payload.(*WindowAssessmentPayment)
	d, dp, err := windowTake(tx, c, in.DrawerID, in.Tender, in.Amount, in.Tendered, in.Reference, in.Payer, in.AssessmentID, params)
	if err != nil {
		return err
	}
	pay := AssessmentPayment{Amount: in.Amount, Option: in.Option, Tender: in.Tender, Reference: in.Reference, Payer: in.Payer, DrawerID: d.ID}
	if err := postAssessmentPayment(tx, c, pay, nil, in.AssessmentID, index, params, res); err != nil {
		return err
	}
	return recordWindowTake(tx, d, dp, res)
}

// ---- Changes (§5.14(9), (10)) ----

// Changes the board makes to a project's assessments after the levy.
const (
	ChangeActualCost = "actual_cost" // §5.14(10): the cost is less than levied; every assessment reduced, without notice
	ChangeAmend      = "amend"       // §5.14(9): a new estimate, after notice
	ChangeCancel     = "cancel"      // §5.14(9): the assessments cancelled, after notice
	ChangeConfirm    = "confirm"     // §5.14(9): the assessments confirmed as levied, after notice
)

// AssessmentChangeCmd is a change the board makes to a project's
// assessments after completion or after the receipt of bids.
type AssessmentChangeCmd struct {
	Op         string     `json:"op"`
	Project    string     `json:"project"`
	On         Date       `json:"on"`
	NoticeOn   Date       `json:"notice_on,omitzero"` // the notice of §5.14(9), for amend, cancel and confirm
	Reason     string     `json:"reason"`
	ActualCost Money      `json:"actual_cost"`     // actual_cost: the cost the assessments pay
	Costs      []CostItem `json:"costs,omitempty"` // amend: the new estimate
}

// KindAssessmentChange amends, cancels or confirms a project's
// assessments, or reduces them to the actual cost.
const KindAssessmentChange Kind = "assessment_change"

// Kind names the payload's kind.
func (*AssessmentChangeCmd) Kind() Kind { return KindAssessmentChange }

func (p *AssessmentChangeCmd) textFields() []textField {
	return append([]textField{oneLine("The change", p.Op), oneLine("The project id", p.Project), manyLines("The reason", p.Reason)}, costTextFields(p.Costs)...)
}

// projectAssessments reads every assessment of a project, in the order
// of its district.
func projectAssessments(tx Tx, p Project) ([]Assessment, error) {
	var out []Assessment
	for _, parcel := range p.District {
		var a Assessment
		ok, err := tx.Get(CollectionAssessments, AssessmentID(p.ID, parcel), &a)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// applyAssessmentChange applies the board's change to every assessment of
// a levied project. A reduction to the actual cost (§5.14(10)) needs no
// notice: the amounts come from 5.14/adjust (AdjustAssessments), with the
// principal paid, and what was paid above a reduced amount is a refund
// due (§5.07(1) clock from the day of the reduction). An amendment,
// cancellation or confirmation (§5.14(9)) comes after notice given as for
// the hearing: the board acts 10 to 40 days after it (5.14/hearing-window).
// An amendment applies a new estimate through the schedule of the report
// (5.14/apportion), a cancellation refunds everything paid. The reading
// taken: once an installment is on the tax roll the county collects it,
// so a change to those assessments is made with the county, not here.
func applyAssessmentChange(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*AssessmentChangeCmd)
	p, err := getProject(tx, in.Project)
	if err != nil {
		return err
	}
	if err := p.expect("the board changes assessments once they are levied", StageLevied); err != nil {
		return err
	}
	if err := p.stepOn(in.On, c, "board's change"); err != nil {
		return err
	}
	if err := required("The reason for the change", in.Reason); err != nil {
		return err
	}
	if in.Op == ChangeAmend || in.Op == ChangeCancel || in.Op == ChangeConfirm {
		if in.NoticeOn.IsZero() {
			return Errorf(EINVALID, "§5.14(9)", "The board amends, cancels or confirms assessments after giving notice: the notice date is required.")
		}
		if in.NoticeOn.Before(p.Levy.LeviedOn) {
			return Errorf(EINVALID, "§5.14(9)", "The notice of the change is dated before the levy (%s).", p.Levy.LeviedOn)
		}
		if err := checkHearingOn(in.NoticeOn, in.On, params); err != nil {
			return err
		}
	}
	as, err := projectAssessments(tx, p)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		return Errorf(ECONFLICT, sectionAssessment, "Project %s levied no assessment to change.", p.ID)
	}
	for _, a := range as {
		if a.onTaxRoll() && in.Op != ChangeConfirm {
			return Errorf(ECONFLICT, "§5.14(12)", "An installment of %s is on the tax roll: the county collects it, so the change is made with the county.", a.ID)
		}
		if a.Cancelled {
			return Errorf(ECONFLICT, "§5.14(9)", "The assessments of project %s are cancelled.", p.ID)
		}
	}
	withVillage := RulesFormat(tx) >= DocumentsFormat
	ch := ProjectChange{Op: in.Op, On: in.On, NoticeOn: in.NoticeOn, Reason: strings.TrimSpace(in.Reason), ActualCost: Cents(0), Before: Cents(0), After: Cents(0), Refunds: Cents(0), CommandID: c.ID}
	targets := make([]Money, len(as))
	refunds := make([]Money, len(as))
	for i, a := range as {
		ch.Before = ch.Before.Add(a.Amount)
		targets[i], refunds[i] = a.Amount, Cents(0)
	}
	switch in.Op {
	case ChangeActualCost:
		if in.ActualCost.IsNegative() {
			return Errorf(EINVALID, "§5.14(10)", "The actual cost cannot be negative.")
		}
		adj := AdjustInput{ActualCost: in.ActualCost}
		for _, a := range as {
			adj.Assessments = append(adj.Assessments, LeviedAssessment{ID: a.ID, Amount: a.Amount, Paid: a.principalPaid()})
		}
		// From format 7 the cost compared and shared out is the whole
		// cost the levy spread: the owners' assessments and the village's
		// own share, which §5.14(10) reduces in the same proportion.
		village := Cents(0)
		if withVillage && p.VillagePays().IsPositive() {
			village = p.VillagePays()
			adj.Assessments = append(adj.Assessments, LeviedAssessment{ID: villageShareID, Amount: village, Paid: Cents(0)})
		}
		out, err := AdjustAssessments(adj, params)
		if err != nil {
			return err
		}
		if !out.Reduced {
			if withVillage {
				return Errorf(EINVALID, "§5.14(10)", "The actual cost (%s) is not less than the cost levied (%s, the village's own share of %s included): nothing is reduced. A higher cost is an amendment, after notice (§5.14(9)).", in.ActualCost, ch.Before.Add(village), village)
			}
			return Errorf(EINVALID, "§5.14(10)", "The actual cost (%s) is not less than the assessments levied (%s): nothing is reduced. A higher cost is an amendment, after notice (§5.14(9)).", in.ActualCost, ch.Before)
		}
		ch.ActualCost = in.ActualCost
		for i, x := range out.Assessments[:len(as)] {
			targets[i], refunds[i] = x.Amount, x.Refund
		}
		if village.IsPositive() {
			ch.VillageBefore, ch.VillageAfter = village, out.Assessments[len(as)].Amount
		}
	case ChangeAmend:
		if err := p.checkCosts(in.Costs); err != nil {
			return err
		}
		r := *p.Report
		r.Costs = in.Costs
		sched, err := p.ComputeSchedule(r, params)
		if err != nil {
			return err
		}
		p.Report = &r
		for i, a := range as {
			row, _ := sched.Row(a.Parcel)
			targets[i] = row.Net
			refunds[i] = a.principalPaid().Sub(row.Net).Max(Cents(0))
		}
		if withVillage && !sched.VillagePays.Equal(p.VillagePays()) {
			ch.VillageBefore, ch.VillageAfter = p.VillagePays(), sched.VillagePays
		}
	case ChangeCancel:
		for i, a := range as {
			targets[i] = Cents(0)
			refunds[i] = a.Figures(in.On).Paid
		}
	case ChangeConfirm:
	default:
		return Errorf(EINVALID, sectionAssessment, "The board amends, cancels, confirms or reduces to the actual cost, not %q.", in.Op)
	}
	var due []RefundDue
	for i := range as {
		a := &as[i]
		rec := AssessmentChange{Op: in.Op, On: in.On, From: a.Amount, To: targets[i], Refund: refunds[i], CommandID: c.ID}
		switch in.Op {
		case ChangeCancel:
			a.reamount(Cents(0), in.On)
			for k := range a.Installments {
				a.Installments[k].Interest = a.Installments[k].InterestPaid
			}
			a.Cancelled = true
		case ChangeActualCost, ChangeAmend:
			a.reamount(targets[i], in.On)
		}
		if refunds[i].IsPositive() {
			rec.RefundID = c.ID + "-" + a.Parcel
			reason := fmt.Sprintf("%s of project %s on %s", in.Op, p.ID, in.On)
			if withVillage {
				// What is refunded was paid by these receipts, which the
				// refund's record names for the owner and the auditor.
				reason += "; paid by receipt " + strings.Join(a.receipts(), ", ")
			}
			rd, err := assessmentRefundDue(tx, c, *a, rec.RefundID, refunds[i], reason, params)
			if err != nil {
				return err
			}
			if err := tx.PutRefundDue(rd); err != nil {
				return err
			}
			due = append(due, rd)
			ch.Refunds = ch.Refunds.Add(refunds[i])
		}
		a.Changes = append(a.Changes, rec)
		ch.After = ch.After.Add(a.Amount)
		if err := tx.Put(CollectionAssessments, a.ID, *a); err != nil {
			return err
		}
	}
	if len(due) == 1 {
		res.Refund = &due[0]
	}
	p.Changes = append(p.Changes, ch)
	if in.Op == ChangeCancel {
		p.Stage = StageCancelled
	}
	summary := fmt.Sprintf("%s: levied %s → %s; %d refunds due, %s", in.Op, ch.Before, ch.After, len(due), ch.Refunds)
	if !ch.VillageBefore.Equal(ch.VillageAfter) {
		summary += fmt.Sprintf("; the village's own share %s → %s", ch.VillageBefore, ch.VillageAfter)
	}
	if in.Op == ChangeConfirm {
		summary = fmt.Sprintf("assessments confirmed as levied (%s) after notice of %s", ch.Before, in.NoticeOn)
	}
	return p.record(tx, c, in.On, summary, res)
}

// ---- Appeals (§5.14(11)) ----

// Appeal operations.
const (
	AppealFile    = "file"
	AppealDismiss = "dismiss"
)

// AssessmentAppeal records an appeal of an assessment, or its dismissal
// on default in payment.
type AssessmentAppeal struct {
	Op           string `json:"op"`
	AssessmentID string `json:"assessment_id"`
	On           Date   `json:"on"`
	Reference    string `json:"reference,omitempty"`
}

// KindAssessmentAppeal files or dismisses an appeal of an assessment.
const KindAssessmentAppeal Kind = "assessment_appeal"

// Kind names the payload's kind.
func (*AssessmentAppeal) Kind() Kind { return KindAssessmentAppeal }

func (p *AssessmentAppeal) textFields() []textField {
	return []textField{oneLine("The operation", p.Op), oneLine("The assessment", p.AssessmentID), oneLine("The court and case", p.Reference)}
}

// InDefault reports whether an installment due before a day was not paid
// by its due date: the default on which an appeal is dismissed
// (§5.14(11)).
func (a Assessment) InDefault(on Date) bool {
	for _, in := range a.Installments {
		if !in.DueOn.Before(on) {
			continue
		}
		if in.ClosedOn.IsZero() || in.ClosedOn.After(in.DueOn) {
			return true
		}
	}
	return false
}

// applyAssessmentAppeal files an appeal within the days after the final
// resolution was published (Wis. Stat. 66.0703(12)), or dismisses it on
// default: §5.14(11) keeps an appealed assessment payable when due, and an
// appeal whose assessment is not paid when due is dismissed.
func applyAssessmentAppeal(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*AssessmentAppeal)
	a, err := getAssessment(tx, in.AssessmentID)
	if err != nil {
		return err
	}
	p, err := getProject(tx, a.Project)
	if err != nil {
		return err
	}
	if in.On.IsZero() || in.On.After(c.At.Date) {
		return Errorf(EINVALID, "§5.14(11)", "The date is required, and not after today.")
	}
	open := a.openAppeal()
	var summary string
	switch in.Op {
	case AppealFile:
		if err := required("The court and case number", in.Reference); err != nil {
			return err
		}
		if in.On.Before(p.Final.PublishedOn) || in.On.After(p.Final.AppealBy) {
			return Errorf(EINVALID, "§5.14(11)", "An appeal is taken from %s, when the final resolution was published, to %s; %s is outside that time.", p.Final.PublishedOn, p.Final.AppealBy, in.On)
		}
		if open >= 0 {
			return Errorf(ECONFLICT, "§5.14(11)", "Assessment %s is already under appeal.", a.ID)
		}
		a.Appeals = append(a.Appeals, Appeal{FiledOn: in.On, Reference: strings.TrimSpace(in.Reference), State: AppealOpen, CommandID: c.ID})
		summary = fmt.Sprintf("appeal of %s filed (%s); the assessment stays payable when due", a.Parcel, strings.TrimSpace(in.Reference))
	case AppealDismiss:
		if open < 0 {
			return Errorf(ECONFLICT, "§5.14(11)", "Assessment %s has no open appeal.", a.ID)
		}
		if !a.InDefault(in.On) {
			return Errorf(ECONFLICT, "§5.14(11)", "An appeal is dismissed on default only: every installment of %s due before %s was paid when due.", a.ID, in.On)
		}
		a.Appeals[open].State, a.Appeals[open].DismissedOn = AppealDismissed, in.On
		summary = fmt.Sprintf("appeal of %s dismissed on default in payment", a.Parcel)
	default:
		return Errorf(EINVALID, "", "Unknown appeal operation %q.", in.Op)
	}
	if err := tx.Put(CollectionAssessments, a.ID, a); err != nil {
		return err
	}
	return p.record(tx, c, laterOf(in.On, p.lastStep()), summary, res)
}

// ---- The tax roll (§5.14(12)) ----

// RollItems returns the assessment's installments that belong on the tax
// roll of cycle year: due by its November 15, not paid by the end of that
// day, and not extended on a roll before; each as a RunItem (the county,
// address and owner are the caller's to fill in from the parcel). Its
// BillID is the installment's key (InstallmentKey); the figures are those
// left at the end of November 15, which no later payment changes (the
// village takes none on them after it).
func (a Assessment) RollItems(year int) []RunItem {
	if a.Cancelled {
		return nil
	}
	day := TaxRollDay(year)
	f := a.current(day)
	var out []RunItem
	for k, x := range f.Installments {
		in := a.Installments[k]
		if in.TaxRollYear > 0 || x.Status == InstallmentPaid || taxRollDayOf(in.DueOn).After(day) || !x.Left.IsPositive() {
			continue
		}
		out = append(out, RunItem{BillID: InstallmentKey(a.ID, in.N), Assessment: a.ID, Installment: in.N, Parcel: a.Parcel, BilledOn: a.LeviedOn,
			Description: fmt.Sprintf("Special assessment %s (%s), installment %d of %d, delinquent", a.Project, firstLine(a.Purpose), in.N, len(a.Installments)),
			Principal:   in.Principal.Sub(in.PrincipalPaid), Interest: x.Interest.Sub(in.InterestPaid).Max(Cents(0)), Penalty: Cents(0), Balance: x.Left, Year: year})
	}
	return out
}

// firstLine returns the first line of a text, for one-line descriptions.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// certifyInstallments extends the installments the November run lists on
// the tax roll of year as a delinquent tax (§5.14(12)), each re-checked
// against the ledger: one that does not belong refuses the whole step.
func certifyInstallments(tx Tx, c Command, year int, keys []string) ([]RunItem, Money, error) {
	total := Cents(0)
	var items []RunItem
	seen := map[string]bool{}
	for _, key := range keys {
		if seen[key] {
			continue
		}
		seen[key] = true
		id, nstr, ok := strings.Cut(key, "#")
		n, err := strconv.Atoi(nstr)
		if !ok || err != nil {
			return nil, total, Errorf(EINVALID, "§5.14(12)", "%q does not name an installment of an assessment.", key)
		}
		a, err := getAssessment(tx, id)
		if err != nil {
			return nil, total, err
		}
		i := slices.IndexFunc(a.RollItems(year), func(it RunItem) bool { return it.Installment == n })
		if i < 0 {
			return nil, total, Errorf(ECONFLICT, "§5.14(12)", "Installment %s does not belong on the %d tax roll any more; preview the run again.", key, year)
		}
		it := a.RollItems(year)[i]
		if pc, ok, err := tx.Parcel(a.Parcel); err != nil {
			return nil, total, err
		} else if ok {
			it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
		}
		it.CommandID = c.ID
		in := &a.Installments[n-1]
		in.TaxRollYear, in.TaxRollAmount, in.TaxRollCommand = year, it.Balance, c.ID
		if err := tx.Put(CollectionAssessments, a.ID, a); err != nil {
			return nil, total, err
		}
		items = append(items, it)
		total = total.Add(it.Balance)
	}
	return items, total, nil
}

// assessmentRefund returns the amount of the assessment refund of key on
// assessment id, and whether there is one: what issue_refund approves and
// records the check of, as it does a bill's overpayment.
func assessmentRefund(tx Tx, id, key string) (Money, bool, error) {
	var r AssessmentRefund
	ok, err := tx.Get(CollectionAssessmentRefunds, key, &r)
	if err != nil || !ok || r.Assessment != id {
		return Money{}, false, err
	}
	return r.Amount, true, nil
}

// ---- Descriptors ----

var (
	assessmentLevyKind = &Descriptor{
		Kind: KindAssessmentLevy, Section: "§5.14(5)", Since: 2, Roles: []Role{RoleTreasurer, RoleAdministrator},
		New:   func() Payload { return new(AssessmentLevy) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentLevy(tx, c, e.Params, res) },
		Books: assessmentLevyLines,
	}
	payAssessmentKind = &Descriptor{
		Kind: KindPayAssessment, Section: sectionAssessment, Since: 2, Offline: true, Resident: true,
		New: func() Payload { return new(PayAssessment) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error {
			return applyPayAssessment(tx, c, e.Index, e.Params, res)
		},
		Receipt: func(c Command) *Receipt {
			p := c.Payload.(*PayAssessment)
			rc := provisional(c)
			rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.AssessmentID, p.Payer, p.Amount, p.Tender, p.Reference, p.Card.shown()
			return rc
		},
		Books: assessmentPaymentLines,
	}
	windowAssessmentPaymentKind = &Descriptor{
		Kind: KindWindowAssessmentPayment, Section: sectionAssessment, Since: 2, Offline: true, Roles: []Role{RoleClerk, RoleTreasurer},
		New: func() Payload { return new(WindowAssessmentPayment) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error {
			return applyWindowAssessmentPayment(tx, c, e.Index, e.Params, res)
		},
		Receipt: func(c Command) *Receipt {
			p := c.Payload.(*WindowAssessmentPayment)
			rc := provisional(c)
			rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference = p.AssessmentID, p.Payer, p.Amount, p.Tender, p.Reference
			return rc
		},
		Books: assessmentPaymentLines,
	}
	assessmentChangeKind = &Descriptor{
		Kind: KindAssessmentChange, Section: "§5.14(9)", Since: 2, Roles: []Role{RoleAdministrator, RoleBoard},
		New:   func() Payload { return new(AssessmentChangeCmd) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyAssessmentChange(tx, c, e.Params, res) },
		Books: assessmentChangeLines,
	}
	assessmentAppealKind = &Descriptor{
		Kind: KindAssessmentAppeal, Section: "§5.14(11)", Since: 2, Roles: []Role{RoleClerk, RoleAdministrator},
		New:   func() Payload { return new(AssessmentAppeal) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyAssessmentAppeal(tx, c, res) },
	}
)

// ---- Reads ----

// Assessment returns one special assessment.
func (x Reads) Assessment(id string) (Assessment, error) {
	return must[Assessment](x.r, CollectionAssessments, id, "special assessment")
}

// AssessmentsOfProject returns a project's assessments, by parcel id.
func (x Reads) AssessmentsOfProject(project string) ([]Assessment, error) {
	return all[Assessment](x.r, CollectionAssessments, project+"~")
}

// AssessmentsOfParcel returns the special assessments levied on a parcel,
// by project.
func (x Reads) AssessmentsOfParcel(parcel string) ([]Assessment, error) {
	return byIndex[Assessment](x.r, IndexAssessmentsByParcel, parcel+"/", CollectionAssessments, "special assessment")
}

// AssessmentRefund returns an assessment refund by its key in the refund
// queue.
func (x Reads) AssessmentRefund(key string) (AssessmentRefund, bool, error) {
	return get[AssessmentRefund](x.r, CollectionAssessmentRefunds, key)
}

// AssessmentRollItems returns every installment that belongs on the tax
// roll of a cycle year (Assessment.RollItems), by assessment; the caller
// fills in each parcel's county, address and owner.
func (x Reads) AssessmentRollItems(year int) ([]RunItem, error) {
	as, err := all[Assessment](x.r, CollectionAssessments, "")
	var out []RunItem
	for _, a := range as {
		out = append(out, a.RollItems(year)...)
	}
	return out, err
}

// AssessmentLetterLines returns what a status letter (§5.11) states of a
// parcel's special assessments as of a day: each assessment outstanding
// (with what is past due or on the tax roll), the installments deferred
// (not yet due), and the contemplated improvements whose district holds
// the parcel.
func (x Reads) AssessmentLetterLines(parcel string, asOf Date) ([]LetterLine, error) {
	as, err := x.AssessmentsOfParcel(parcel)
	if err != nil {
		return nil, err
	}
	var lines []LetterLine
	for _, a := range as {
		if a.LeviedOn.After(asOf) {
			continue
		}
		f := a.Figures(asOf)
		if f.Outstanding.IsZero() {
			continue
		}
		text := fmt.Sprintf("Special assessment %s (%s), levied %s: %s outstanding", a.Project, firstLine(a.Purpose), a.LeviedOn, f.Outstanding)
		if f.PastDue.IsPositive() {
			text += fmt.Sprintf(", of which %s past due", f.PastDue)
		}
		if f.OnTaxRoll.IsPositive() {
			text += fmt.Sprintf(" (%s extended on the tax roll)", f.OnTaxRoll)
		}
		if i := a.openAppeal(); i >= 0 {
			text += "; under appeal (" + a.Appeals[i].Reference + ")"
		}
		lines = append(lines, LetterLine{Topic: "Special assessments", Text: text, Amount: f.Outstanding})
		if f.Deferred.IsPositive() {
			n := 0
			for _, in := range f.Installments {
				if in.Status == InstallmentDue {
					n++
				}
			}
			lines = append(lines, LetterLine{Topic: "Deferred assessments", Text: fmt.Sprintf("Special assessment %s: %d installments not yet due, at %s a year", a.Project, n, a.InterestRate.Percent()), Amount: f.Deferred})
		}
	}
	ps, err := x.ContemplatedImprovements(parcel)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.AdoptedOn.After(asOf) {
			continue
		}
		text := fmt.Sprintf("Project %s (%s): preliminary resolution %s of %s; %s", p.ID, firstLine(p.Purpose), p.Number, p.AdoptedOn, StageTitle(p.Stage))
		amount := Cents(0)
		if p.Report != nil {
			if s, err := p.ComputeSchedule(*p.Report, nil); err == nil {
				if row, ok := s.Row(parcel); ok {
					amount = row.Net
					text += "; proposed assessment on this parcel"
				}
			}
		}
		lines = append(lines, LetterLine{Topic: "Contemplated improvements", Text: text, Amount: amount})
	}
	return lines, nil
}
