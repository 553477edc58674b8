package domain

const sectionRefund = "§5.07(1)"

// RefundInput is a payment into escrow and the amount it was due to cover.
type RefundInput struct {
	PaidOn     Date  `json:"paid_on"`
	AmountPaid Money `json:"amount_paid"`
	AmountDue  Money `json:"amount_due"`
	// Holidays, when not nil, replaces the village holidays.
	Holidays []Date `json:"holidays,omitempty"`
}

// UnmarshalJSON reads the input strictly.
func (in *RefundInput) UnmarshalJSON(b []byte) error {
	*in = RefundInput{}
	return decodeObject(sectionRefund, "refund", b,
		req("paid_on", &in.PaidOn),
		req("amount_paid", &in.AmountPaid),
		req("amount_due", &in.AmountDue),
		opt("holidays", &in.Holidays),
	)
}

// Refund is the excess to refund and the day it must be refunded by.
type Refund struct {
	Refund   Money `json:"refund"`
	RefundBy Date  `json:"refund_by"` // zero (null) when there is nothing to refund
}

// ComputeRefund applies §5.07(1) (cited by content: the published "§5.07"
// heading sits over another paragraph): the excess of a payment over the
// amount due is refunded by the 15th business day after the day of payment,
// which itself does not count.
func ComputeRefund(in RefundInput, p *Params) (Refund, error) {
	var r Refund
	switch {
	case in.PaidOn.IsZero():
		return r, Errorf(EINVALID, sectionRefund, "The date of payment is required.")
	case in.AmountPaid.IsNegative() || in.AmountDue.IsNegative():
		return r, Errorf(EINVALID, sectionRefund, "Amounts paid and due cannot be negative.")
	}
	if !in.AmountPaid.GreaterThan(in.AmountDue) {
		return r, nil
	}
	p = withCaseCalendar(p, in.Holidays, nil)
	v := p.At(in.PaidOn)
	if err := v.require(sectionRefund, in.PaidOn, "refund_business_days"); err != nil {
		return r, err
	}
	r.Refund = in.AmountPaid.Sub(in.AmountDue)
	r.RefundBy = p.Calendar().AddBusinessDays(in.PaidOn, v.RefundBusinessDays)
	return r, nil
}
