package domain

import (
	"slices"
	"strings"
	"time"
)

const sectionReceivable = "§5.10"

// DatedAmount is a payment: an amount on a date.
type DatedAmount struct {
	On     Date  `json:"on"`
	Amount Money `json:"amount"`
}

// UnmarshalJSON reads a payment strictly: both fields, no others.
func (a *DatedAmount) UnmarshalJSON(b []byte) error {
	*a = DatedAmount{}
	return decodeObject("", "payment", b, req("on", &a.On), req("amount", &a.Amount))
}

// ReceivableInput is a village bill under §5.10 and its payments, seen on
// AsOf.
type ReceivableInput struct {
	BilledOn  Date          `json:"billed_on"`
	Principal Money         `json:"principal"`
	AsOf      Date          `json:"as_of"`
	Payments  []DatedAmount `json:"payments,omitempty"`

	// Ledger says the bill is one the ledger holds, whose place on the
	// tax roll is what the ledger recorded rather than the calendar's
	// (Bill.Figures): the November run certifies it, on CertifiedOn, and
	// until then it stays open for payment, past tax_roll_on included,
	// with the status BillRollPending. RULES.md's pure rule (the
	// conformance cases, `appliance rules`) leaves it false: there the
	// bill is on the roll at the end of tax_roll_on and a payment dated
	// after it is an error.
	Ledger bool `json:"-"`
	// CertifiedOn is the day the November run certified the bill to the
	// tax roll (Ledger only); zero while it is not certified.
	CertifiedOn Date `json:"-"`
}

// UnmarshalJSON reads the input strictly: unknown fields and missing
// required fields are errors.
func (in *ReceivableInput) UnmarshalJSON(b []byte) error {
	*in = ReceivableInput{}
	return decodeObject(sectionReceivable, "bill", b,
		req("billed_on", &in.BilledOn),
		req("principal", &in.Principal),
		req("as_of", &in.AsOf),
		opt("payments", &in.Payments),
	)
}

// BillStatus is where a §5.10 bill stands on its as-of date.
type BillStatus string

// The statuses of a bill, in the order RULES.md tests them.
const (
	BillPaid    BillStatus = "paid"     // balance 0.00
	BillTaxRoll BillStatus = "tax_roll" // unpaid after tax_roll_on: a special charge and lien
	// BillRollPending is a ledger bill unpaid after tax_roll_on that the
	// November run has not certified yet: it still takes payments, and
	// goes on the roll on the day the run certifies it.
	BillRollPending BillStatus = "tax_roll_pending"
	BillPastDue     BillStatus = "past_due" // unpaid after due_on
	BillCurrent     BillStatus = "current"  // unpaid, not yet due
)

// Words says where the bill stands in words: "past due".
func (s BillStatus) Words() string {
	switch s {
	case BillPaid:
		return "paid"
	case BillTaxRoll:
		return "on the tax roll"
	case BillRollPending:
		return "going on the tax roll"
	case BillPastDue:
		return "past due"
	case BillCurrent:
		return "not yet due"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// Allocation is how one payment was applied: to the penalty, then interest,
// then principal, and the rest an overpayment to refund under §5.07(1).
type Allocation struct {
	Penalty     Money `json:"penalty"`
	Interest    Money `json:"interest"`
	Principal   Money `json:"principal"`
	Overpayment Money `json:"overpayment"`
}

// plus returns the sum of a and b, part by part: the allocation of a
// payment over several bills.
func (a Allocation) plus(b Allocation) Allocation {
	return Allocation{a.Penalty.Add(b.Penalty), a.Interest.Add(b.Interest), a.Principal.Add(b.Principal), a.Overpayment.Add(b.Overpayment)}
}

// Applied returns the part of the payment that paid the bill.
func (a Allocation) Applied() Money { return a.Penalty.Add(a.Interest).Add(a.Principal) }

// Posting is a charge posted to a bill: one month's interest or the penalty.
type Posting struct {
	On     Date   `json:"on"`
	Kind   string `json:"kind"`            // "interest" | "penalty"
	Month  int    `json:"month,omitempty"` // 1-based, interest only
	Base   Money  `json:"base"`            // the unpaid principal it was computed on
	Amount Money  `json:"amount"`          // rounded to the cent on its own
}

// Posting kinds.
const (
	PostingInterest = "interest"
	PostingPenalty  = "penalty"
)

// Receivable is the state of a §5.10 bill on its as-of date. Its JSON field
// names are those of RULES.md's output list.
type Receivable struct {
	DueOn          Date       `json:"due_on"`
	PenaltyOn      Date       `json:"penalty_on"`
	TaxRollOn      Date       `json:"tax_roll_on"`
	Interest       Money      `json:"interest"`
	InterestMonths int        `json:"interest_months"`
	Penalty        Money      `json:"penalty"`
	Paid           Money      `json:"paid"`
	Balance        Money      `json:"balance"`
	Overpayment    Money      `json:"overpayment"`
	Status         BillStatus `json:"status"`

	UnpaidPrincipal Money `json:"unpaid_principal"`
	UnpaidInterest  Money `json:"unpaid_interest"`
	UnpaidPenalty   Money `json:"unpaid_penalty"`

	// Postings are every interest month and the penalty, in date order.
	Postings []Posting `json:"postings"`
	// Allocations has one entry per input payment, in input order, though
	// payments are applied in date order.
	Allocations []Allocation `json:"allocations"`
	// NextInterestOn is the day the next month of interest posts if the
	// principal stays unpaid; zero (null) when no further month will.
	NextInterestOn Date `json:"next_interest_on"`
}

// ComputeReceivable applies §5.10 to a bill as of in.AsOf.
//
// The reading taken (RULES.md): the bill is due 30 days after billing. Interest
// "per month or any fraction thereof" posts at the start of each month while
// principal is unpaid; month k starts on (due_on + (k−1) calendar months,
// clamped) + 1 day, at the rate in force that day, rounded on its own. A
// posting on a day comes before that day's payments.
//
// Known defect of the text: §5.10 runs interest "until the following
// fifteenth day of November" but also puts bills unpaid on November 1 on the
// tax roll. The reading reconciles them with a cycle year Y (the year of
// due_on if it falls in January–October, else the next): a month starting
// on or before November 15 of Y is charged, none after; on November 2 of Y a
// bill with principal unpaid is charged the penalty once (1.5% of unpaid
// principal); at the end of November 15 of Y the bill goes on the tax roll,
// and a payment dated after that is refused with ECONFLICT even on a bill
// already paid, because the bill's own account is closed.
//
// Payments apply in date order (same day: input order) to penalty, then
// interest, then principal; money beyond the balance is an overpayment.
func ComputeReceivable(in ReceivableInput, p *Params) (Receivable, error) {
	r, _, err := computeReceivable(in, p, nil)
	return r, err
}

// computeReceivable is ComputeReceivable that also returns the account as
// it stood right after the last payment in date order (the state a bill's
// summary keeps, BillSummary), and that can continue an account instead of
// opening it: with from, the account starts from that state and
// in.Payments are the payments after it, each dated on or after
// from.Latest. Those take exactly the steps the full computation takes
// after the payments from covers (the same postThrough and pay, in the
// same order), so the allocations and the balance are the same to the
// cent; Postings then lists only what posted after from, and Allocations
// only in.Payments.
func computeReceivable(in ReceivableInput, p *Params, from *BillSummary) (Receivable, BillSummary, error) {
	var r Receivable
	var st BillSummary
	if err := in.validate(); err != nil {
		return r, st, err
	}
	v := p.receivableAt(in.BilledOn)
	if err := v.require(sectionReceivable, in.BilledOn, "receivable_due_days"); err != nil {
		return r, st, err
	}
	r.DueOn = in.BilledOn.AddDays(v.ReceivableDueDays)
	y := r.DueOn.Year()
	if r.DueOn.Month() >= time.November {
		y++ // not yet past due on November 1: the November rules catch it next year
	}
	r.PenaltyOn = NewDate(y, time.November, 2)
	r.TaxRollOn = NewDate(y, time.November, 15)
	for _, pay := range in.Payments {
		if !in.Ledger && pay.On.After(r.TaxRollOn) {
			return Receivable{}, BillSummary{}, Errorf(ECONFLICT, sectionReceivable,
				"The bill is on the tax roll since %s; a payment dated %s cannot be taken on it.", r.TaxRollOn, pay.On)
		}
	}

	// Payments in date order; sorting indices keeps same-day payments in
	// input order and lets allocations come back in input order.
	order := make([]int, len(in.Payments))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return in.Payments[a].On.Compare(in.Payments[b].On) })

	acc := receivableAccount{r: &r, p: p, principal: in.Principal, month: 1, penaltyDue: true}
	var latest Date
	if from != nil {
		acc.resume(*from)
		latest = from.Latest
	}
	r.Allocations = make([]Allocation, len(in.Payments))
	// At most one interest month a month from the due date to the tax
	// roll, and the penalty: room for them at once, rather than the
	// slice growing a posting at a time (a page figures thousands).
	r.Postings = make([]Posting, 0, 14)
	for _, i := range order {
		pay := in.Payments[i]
		if err := acc.postThrough(pay.On); err != nil {
			return Receivable{}, BillSummary{}, err
		}
		r.Allocations[i] = acc.pay(pay.Amount)
		r.Paid = r.Paid.Add(pay.Amount)
		latest = pay.On
	}
	st = acc.summary(latest)
	if err := acc.postThrough(in.AsOf); err != nil {
		return Receivable{}, BillSummary{}, err
	}
	if r.Postings == nil {
		r.Postings = []Posting{}
	}

	r.UnpaidPrincipal, r.UnpaidInterest, r.UnpaidPenalty = acc.principal, acc.interest, acc.penalty
	r.Balance = SumMoney(acc.principal, acc.interest, acc.penalty)
	if acc.principal.IsPositive() {
		if next := acc.monthStart(); !next.After(r.TaxRollOn) {
			r.NextInterestOn = next
		}
	}
	switch {
	case r.Balance.IsZero():
		r.Status = BillPaid
	case in.Ledger && !in.CertifiedOn.IsZero() && !in.AsOf.Before(in.CertifiedOn):
		r.Status = BillTaxRoll
	case in.Ledger && in.AsOf.After(r.TaxRollOn):
		r.Status = BillRollPending
	case in.AsOf.After(r.TaxRollOn):
		r.Status = BillTaxRoll
	case in.AsOf.After(r.DueOn):
		r.Status = BillPastDue
	default:
		r.Status = BillCurrent
	}
	return r, st, nil
}

func (in ReceivableInput) validate() error {
	switch {
	case in.BilledOn.IsZero():
		return Errorf(EINVALID, sectionReceivable, "The billing date is required.")
	case in.AsOf.IsZero():
		return Errorf(EINVALID, sectionReceivable, "The as-of date is required.")
	case !in.Principal.IsPositive():
		return Errorf(EINVALID, sectionReceivable, "The amount billed must be more than zero.")
	case in.AsOf.Before(in.BilledOn):
		return Errorf(EINVALID, sectionReceivable, "The as-of date %s is before the billing date %s.", in.AsOf, in.BilledOn)
	}
	for _, pay := range in.Payments {
		switch {
		case pay.On.IsZero():
			return Errorf(EINVALID, sectionReceivable, "A payment has no date.")
		case !pay.Amount.IsPositive():
			return Errorf(EINVALID, sectionReceivable, "The payment of %s on %s must be more than zero.", pay.Amount, pay.On)
		case pay.On.Before(in.BilledOn):
			return Errorf(EINVALID, sectionReceivable, "The payment on %s is before the billing date %s.", pay.On, in.BilledOn)
		case pay.On.After(in.AsOf):
			return Errorf(EINVALID, sectionReceivable, "The payment on %s is after the as-of date %s.", pay.On, in.AsOf)
		}
	}
	return nil
}

// receivableAccount walks a bill forward in time, posting charges and
// applying payments.
type receivableAccount struct {
	r                            *Receivable
	p                            *Params
	principal, interest, penalty Money // unpaid amounts
	month                        int   // the next interest month to consider, 1-based
	penaltyDue                   bool  // the November 2 test has not yet been made
}

// monthStart returns the first day of the account's next interest month.
// Months are counted from due_on each time, never chained, so clamping in a
// short month does not drift later months.
func (a *receivableAccount) monthStart() Date {
	return a.r.DueOn.AddMonths(a.month - 1).AddDays(1)
}

// postThrough posts, in date order, every interest month and the penalty
// that fall on or before d; a month and the penalty on the same day post in
// that order. Nothing posts after the tax-roll date.
func (a *receivableAccount) postThrough(d Date) error {
	for {
		start := a.monthStart()
		monthNext := a.principal.IsPositive() && !start.After(d) && !start.After(a.r.TaxRollOn)
		penaltyNext := a.penaltyDue && !a.r.PenaltyOn.After(d) && (!monthNext || a.r.PenaltyOn.Before(start))
		switch {
		case penaltyNext:
			a.penaltyDue = false
			if !a.principal.IsPositive() {
				continue // paid on or before November 1: no penalty
			}
			v := a.p.receivableAt(a.r.PenaltyOn)
			if err := v.require(sectionReceivable, a.r.PenaltyOn, "receivable_penalty"); err != nil {
				return err
			}
			amt := a.principal.MulRate(v.ReceivablePenalty)
			a.penalty = a.penalty.Add(amt)
			a.r.Penalty = a.r.Penalty.Add(amt)
			a.r.Postings = append(a.r.Postings, Posting{On: a.r.PenaltyOn, Kind: PostingPenalty, Base: a.principal, Amount: amt})
		case monthNext:
			v := a.p.receivableAt(start)
			if err := v.require(sectionReceivable, start, "receivable_interest"); err != nil {
				return err
			}
			amt := a.principal.MulRate(v.ReceivableInterest)
			a.interest = a.interest.Add(amt)
			a.r.Interest = a.r.Interest.Add(amt)
			a.r.InterestMonths++
			a.r.Postings = append(a.r.Postings, Posting{On: start, Kind: PostingInterest, Month: a.month, Base: a.principal, Amount: amt})
			a.month++
		default:
			return nil
		}
	}
}

// resume sets the account to where a bill's summary left it: the unpaid
// amounts, the next interest month, the penalty test, and the totals.
func (a *receivableAccount) resume(s BillSummary) {
	a.principal, a.interest, a.penalty = s.UnpaidPrincipal, s.UnpaidInterest, s.UnpaidPenalty
	a.month, a.penaltyDue = s.Month, s.PenaltyDue
	a.r.Interest, a.r.InterestMonths, a.r.Penalty = s.Interest, s.InterestMonths, s.Penalty
	a.r.Paid, a.r.Overpayment = s.Paid, s.Overpayment
}

// summary returns the account's state as a bill's summary keeps it, after
// a payment dated latest (zero: no payment yet).
func (a *receivableAccount) summary(latest Date) BillSummary {
	return BillSummary{
		Latest:          latest,
		UnpaidPrincipal: a.principal, UnpaidInterest: a.interest, UnpaidPenalty: a.penalty,
		Month: a.month, PenaltyDue: a.penaltyDue,
		Interest: a.r.Interest, InterestMonths: a.r.InterestMonths, Penalty: a.r.Penalty,
		Paid: a.r.Paid, Overpayment: a.r.Overpayment,
	}
}

// pay applies amt to penalty, then interest, then principal.
func (a *receivableAccount) pay(amt Money) Allocation {
	var al Allocation
	take := func(owed *Money) Money {
		t := amt.Min(*owed)
		*owed = owed.Sub(t)
		amt = amt.Sub(t)
		return t
	}
	al.Penalty = take(&a.penalty)
	al.Interest = take(&a.interest)
	al.Principal = take(&a.principal)
	al.Overpayment = amt
	a.r.Overpayment = a.r.Overpayment.Add(amt)
	return al
}
