package domain

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

const sectionRoomTax = "§5.22"

// ExemptEntity is the kind of buyer a room sale is exempt for under §5.22(2).
type ExemptEntity string

// The exempt entities.
const (
	EntityFederal         ExemptEntity = "federal"
	EntityState           ExemptEntity = "state"
	EntityLocalGovernment ExemptEntity = "local_government"
	EntityNonprofit       ExemptEntity = "nonprofit"
)

// ExemptSale is a room sale the operator claims is exempt.
type ExemptSale struct {
	Amount         Money        `json:"amount"`
	Entity         ExemptEntity `json:"entity"`
	BilledToEntity bool         `json:"billed_to_entity"`
	// Document is what the operator holds: "purchase_order",
	// "certificate_number" or "none"; anything else (or nothing) holds no
	// valid document.
	Document string `json:"document,omitempty"`
}

// UnmarshalJSON reads an exempt sale strictly. An unknown entity is an
// error; a missing or unknown document is not (the claim is only invalid).
func (s *ExemptSale) UnmarshalJSON(b []byte) error {
	var x ExemptSale
	var entity string
	if err := decodeObject("", "exempt sale", b,
		req("amount", &x.Amount),
		req("entity", &entity),
		opt("billed_to_entity", &x.BilledToEntity),
		opt("document", &x.Document),
	); err != nil {
		return err
	}
	x.Entity = ExemptEntity(entity)
	switch x.Entity {
	case EntityFederal, EntityState, EntityLocalGovernment, EntityNonprofit:
	default:
		return Errorf(EINVALID, "", "The exempt entity %q is not federal, state, local_government or nonprofit.", entity)
	}
	*s = x
	return nil
}

// valid reports whether the claim meets §5.22(3): billed in the entity's
// name, and the operator holds a purchase order or similar written document
// (governments) or the certificate of exempt status number (nonprofits).
func (s ExemptSale) valid() bool {
	if !s.BilledToEntity {
		return false
	}
	if s.Entity == EntityNonprofit {
		return s.Document == "certificate_number"
	}
	return s.Document == "purchase_order"
}

// Quarter is a calendar quarter, the room tax reporting period.
type Quarter struct {
	Year int
	Q    int // 1–4
}

// ParseQuarter parses "2026-Q1".
func ParseQuarter(s string) (Quarter, error) {
	y, q, ok := strings.Cut(s, "-Q")
	year, err1 := strconv.Atoi(y)
	n, err2 := strconv.Atoi(q)
	if !ok || len(y) != 4 || !allDigits(y) || len(q) != 1 || err1 != nil || err2 != nil || n < 1 || n > 4 {
		return Quarter{}, Errorf(EINVALID, sectionRoomTax, "The period %q is not a quarter written like 2026-Q1.", s)
	}
	return Quarter{year, n}, nil
}

// String returns "2026-Q1".
func (q Quarter) String() string { return strconv.Itoa(q.Year) + "-Q" + strconv.Itoa(q.Q) }

// Last returns the last day of the quarter.
func (q Quarter) Last() Date { return NewDate(q.Year, time.Month(3*q.Q), 1).LastOfMonth() }

// DueOn returns the due date of the quarter's tax and return under §5.22(4):
// the last day of the month after the quarter.
func (q Quarter) DueOn() Date { return q.Last().FirstOfNextMonth().LastOfMonth() }

// MarshalJSON writes "2026-Q1".
func (q Quarter) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(q.String())), nil }

// UnmarshalJSON reads "2026-Q1".
func (q *Quarter) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return Errorf(EINVALID, sectionRoomTax, "The period must be a string like \"2026-Q1\".")
	}
	v, err := ParseQuarter(s)
	if err != nil {
		return err
	}
	*q = v
	return nil
}

// RoomTaxInput is an operator's quarterly room tax return and payments.
type RoomTaxInput struct {
	Period        Quarter       `json:"period"`
	GrossReceipts Money         `json:"gross_receipts"`
	ExemptSales   []ExemptSale  `json:"exempt_sales,omitempty"`
	FiledOn       Date          `json:"filed_on,omitzero"`    // zero: not filed
	ExtendedTo    Date          `json:"extended_to,omitzero"` // zero: no extension
	Payments      []DatedAmount `json:"payments,omitempty"`
	AsOf          Date          `json:"as_of"`
}

// UnmarshalJSON reads the input strictly.
func (in *RoomTaxInput) UnmarshalJSON(b []byte) error {
	*in = RoomTaxInput{}
	return decodeObject(sectionRoomTax, "room tax return", b,
		req("period", &in.Period),
		req("gross_receipts", &in.GrossReceipts),
		opt("exempt_sales", &in.ExemptSales),
		opt("filed_on", &in.FiledOn),
		opt("extended_to", &in.ExtendedTo),
		opt("payments", &in.Payments),
		req("as_of", &in.AsOf),
	)
}

// RoomTaxReturn is the computed state of a return on its as-of date.
type RoomTaxReturn struct {
	DueOn              Date  `json:"due_on"`
	EffectiveDueOn     Date  `json:"effective_due_on"`
	ExemptSales        Money `json:"exempt_sales"` // the valid exemptions only
	RejectedExemptions []int `json:"rejected_exemptions"`
	TaxableReceipts    Money `json:"taxable_receipts"`
	Tax                Money `json:"tax"`
	LateFilingFee      Money `json:"late_filing_fee"`
	Interest           Money `json:"interest"`
	Paid               Money `json:"paid"`
	Balance            Money `json:"balance"`
	Overpayment        Money `json:"overpayment"`
	Delinquent         bool  `json:"delinquent"`
	DelinquentAfter    Date  `json:"delinquent_after"` // the deadline the delinquency test uses
}

// ComputeRoomTaxReturn applies §5.22 to a quarterly return.
//
// Readings taken (RULES.md): the tax is 7% of gross receipts less valid
// exempt sales, rounded once. An extension must be later than the due date
// and at most one calendar month after it; it moves the due date for
// interest and lateness. Payments apply to the tax first, never to the fee
// or interest. Interest of 12% a year is taken as 1% a month on each part of
// a payment applied to tax after the due date, and on tax still unpaid on
// as_of, for whole months from the day after the (effective) due date (the
// ordinance says "from the due date"; the reading counts from the day after
// it) to the first day of the month after payment, a fraction counting as a
// month. The return is delinquent when, after the deadline (30 days after
// the due date for a timely return, else the due date), payments made by the
// deadline fall short of the tax.
//
// Rates and fees are those in force on the effective due date, when the
// return and the tax fell due.
func ComputeRoomTaxReturn(in RoomTaxInput, p *Params) (RoomTaxReturn, error) {
	var r RoomTaxReturn
	if in.AsOf.IsZero() {
		return r, Errorf(EINVALID, sectionRoomTax, "The as-of date is required.")
	}
	if in.GrossReceipts.IsNegative() {
		return r, Errorf(EINVALID, sectionRoomTax, "The gross receipts are negative.")
	}
	if !in.FiledOn.IsZero() && in.FiledOn.After(in.AsOf) {
		return r, Errorf(EINVALID, sectionRoomTax, "The return is filed on %s, after the as-of date %s.", in.FiledOn, in.AsOf)
	}
	for _, pay := range in.Payments {
		switch {
		case pay.On.IsZero():
			return r, Errorf(EINVALID, sectionRoomTax, "A payment has no date.")
		case !pay.Amount.IsPositive():
			return r, Errorf(EINVALID, sectionRoomTax, "The payment of %s on %s must be more than zero.", pay.Amount, pay.On)
		case pay.On.After(in.AsOf):
			return r, Errorf(EINVALID, sectionRoomTax, "The payment on %s is after the as-of date %s.", pay.On, in.AsOf)
		}
	}

	r.DueOn = in.Period.DueOn()
	r.EffectiveDueOn = r.DueOn
	v := p.At(r.DueOn)
	if err := v.require(sectionRoomTax, r.DueOn, "room_tax_extension_months"); err != nil {
		return RoomTaxReturn{}, err
	}
	if !in.ExtendedTo.IsZero() {
		limit := r.DueOn.AddMonths(v.RoomTaxExtensionMonths)
		if !in.ExtendedTo.After(r.DueOn) || in.ExtendedTo.After(limit) {
			return RoomTaxReturn{}, Errorf(EINVALID, sectionRoomTax,
				"An extension must be to a date after %s and no later than %s; %s is not.", r.DueOn, limit, in.ExtendedTo)
		}
		r.EffectiveDueOn = in.ExtendedTo
		v = p.At(r.EffectiveDueOn)
	}
	if err := v.require(sectionRoomTax, r.EffectiveDueOn,
		"room_tax_rate", "room_tax_interest_monthly", "room_tax_late_filing_fee", "room_tax_delinquent_days"); err != nil {
		return RoomTaxReturn{}, err
	}

	// §5.22(2)–(3): exemptions.
	r.RejectedExemptions = []int{}
	for i, s := range in.ExemptSales {
		if s.Amount.IsNegative() {
			return RoomTaxReturn{}, Errorf(EINVALID, sectionRoomTax, "Exempt sale %d has a negative amount.", i)
		}
		if s.valid() {
			r.ExemptSales = r.ExemptSales.Add(s.Amount)
		} else {
			r.RejectedExemptions = append(r.RejectedExemptions, i)
		}
	}
	if r.ExemptSales.GreaterThan(in.GrossReceipts) {
		return RoomTaxReturn{}, Errorf(EINVALID, sectionRoomTax,
			"The exempt sales (%s) are more than the gross receipts (%s).", r.ExemptSales, in.GrossReceipts)
	}
	r.TaxableReceipts = in.GrossReceipts.Sub(r.ExemptSales)
	r.Tax = r.TaxableReceipts.MulRate(v.RoomTaxRate)

	due := r.EffectiveDueOn
	if (in.FiledOn.IsZero() && in.AsOf.After(due)) || in.FiledOn.After(due) {
		r.LateFilingFee = v.RoomTaxLateFilingFee
	}

	// Payments to the tax in date order (same day: input order).
	pays := slices.Clone(in.Payments)
	slices.SortStableFunc(pays, func(a, b DatedAmount) int { return a.On.Compare(b.On) })
	unpaid := r.Tax
	interestOn := func(amount Money, paidOn Date) Money {
		months := interestMonths(due, paidOn)
		return fromDecimal(amount.dec().Mul(v.RoomTaxInterestMonthly.d).Mul(decimal.NewFromInt(int64(months))).Round(2))
	}
	for _, pay := range pays {
		r.Paid = r.Paid.Add(pay.Amount)
		toTax := pay.Amount.Min(unpaid)
		unpaid = unpaid.Sub(toTax)
		if toTax.IsPositive() && pay.On.After(due) {
			r.Interest = r.Interest.Add(interestOn(toTax, pay.On))
		}
	}
	if unpaid.IsPositive() && in.AsOf.After(due) {
		r.Interest = r.Interest.Add(interestOn(unpaid, in.AsOf))
	}

	// Delinquency.
	r.DelinquentAfter = due
	if !in.FiledOn.IsZero() && !in.FiledOn.After(due) {
		r.DelinquentAfter = due.AddDays(v.RoomTaxDelinquentDays)
	}
	if r.Tax.IsPositive() && in.AsOf.After(r.DelinquentAfter) {
		var byDeadline Money
		for _, pay := range pays {
			if !pay.On.After(r.DelinquentAfter) {
				byDeadline = byDeadline.Add(pay.Amount)
			}
		}
		r.Delinquent = byDeadline.LessThan(r.Tax)
	}

	owed := SumMoney(r.Tax, r.LateFilingFee, r.Interest)
	if r.Paid.GreaterThan(owed) {
		r.Overpayment = r.Paid.Sub(owed)
	} else {
		r.Balance = owed.Sub(r.Paid)
	}
	return r, nil
}

// interestMonths counts §5.22 interest months for tax due on due and paid on
// paid: from B, the day after due, to E, the first day of the month after the
// month of payment, the smallest n with B + n calendar months (clamped) on or
// after E, so that a fraction of a month counts as a whole one.
func interestMonths(due, paid Date) int {
	b := due.AddDays(1)
	e := paid.FirstOfNextMonth()
	n := (e.Year()-b.Year())*12 + int(e.Month()-b.Month()) - 1
	if n < 0 {
		n = 0
	}
	for b.AddMonths(n).Before(e) {
		n++
	}
	return n
}
