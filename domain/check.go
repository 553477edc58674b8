package domain

const sectionReturnedCheck = "§5.20"

// ReturnedCheckInput is a check returned unpaid.
type ReturnedCheckInput struct {
	ReturnedOn  Date  `json:"returned_on"`
	CheckAmount Money `json:"check_amount"`
	// FeeSchedule, when not nil, replaces the fee schedule.
	FeeSchedule []FeeRow `json:"fee_schedule,omitempty"`
}

// UnmarshalJSON reads the input strictly.
func (in *ReturnedCheckInput) UnmarshalJSON(b []byte) error {
	*in = ReturnedCheckInput{}
	return decodeObject(sectionReturnedCheck, "returned check", b,
		req("returned_on", &in.ReturnedOn),
		req("check_amount", &in.CheckAmount),
		opt("fee_schedule", &in.FeeSchedule),
	)
}

// ReturnedCheck is what the party who presented a returned check owes.
type ReturnedCheck struct {
	Fee  Money `json:"fee"`
	Owed Money `json:"owed"`
}

// ComputeReturnedCheck applies §5.20: the returned_check fee in force on the
// day the check came back, and the check amount plus the fee. The payment
// the check made is reversed elsewhere (the ledger): the bill it paid is
// unpaid again, with interest as if never paid.
func ComputeReturnedCheck(in ReturnedCheckInput, p *Params) (ReturnedCheck, error) {
	var r ReturnedCheck
	switch {
	case in.ReturnedOn.IsZero():
		return r, Errorf(EINVALID, sectionReturnedCheck, "The date the check was returned is required.")
	case in.CheckAmount.IsNegative():
		return r, Errorf(EINVALID, sectionReturnedCheck, "The check amount cannot be negative.")
	}
	p = withCaseCalendar(p, nil, in.FeeSchedule)
	v := p.At(in.ReturnedOn)
	if err := v.require(sectionReturnedCheck, in.ReturnedOn, "returned_check"); err != nil {
		return r, err
	}
	r.Fee = v.ReturnedCheckFee
	r.Owed = in.CheckAmount.Add(r.Fee)
	return r, nil
}
