package domain

const sectionStatusLetter = "§5.11"

// StatusLetterInput is a request for a statement of real property status.
type StatusLetterInput struct {
	RequestedAt DateTime `json:"requested_at"`
	// ClosesAt is the office's closing time that day; nil means the
	// office_closes parameter.
	ClosesAt *ClockTime `json:"closes_at,omitempty"`
	// Holidays, when not nil, replaces the village holidays for this request.
	Holidays []Date `json:"holidays,omitempty"`
	// FeeSchedule, when not nil, replaces the fee schedule for this request.
	FeeSchedule []FeeRow `json:"fee_schedule,omitempty"`
}

// UnmarshalJSON reads the input strictly.
func (in *StatusLetterInput) UnmarshalJSON(b []byte) error {
	*in = StatusLetterInput{}
	return decodeObject(sectionStatusLetter, "status letter request", b,
		req("requested_at", &in.RequestedAt),
		opt("closes_at", &in.ClosesAt),
		opt("holidays", &in.Holidays),
		opt("fee_schedule", &in.FeeSchedule),
	)
}

// StatusLetter is when a status letter request counts as received, when the
// letter must be ready, and its fee.
type StatusLetter struct {
	ReceivedOn Date  `json:"received_on"`
	ReadyBy    Date  `json:"ready_by"`
	Fee        Money `json:"fee"`
}

// ComputeStatusLetter applies §5.11 (cited by content: the published "§5.11"
// heading sits over the claims text). A request made on a day that is not a
// business day, or at or after closing time, is received the next business
// day; the letter is ready by the second business day after the day received,
// which itself does not count ("a minimum of two (2) business days"). The fee
// is the status_letter fee in force on the day of the request, not the day it
// is received.
func ComputeStatusLetter(in StatusLetterInput, p *Params) (StatusLetter, error) {
	var r StatusLetter
	if in.RequestedAt.IsZero() {
		return r, Errorf(EINVALID, sectionStatusLetter, "The time of the request is required.")
	}
	p = withCaseCalendar(p, in.Holidays, in.FeeSchedule)
	day := in.RequestedAt.Date
	v := p.At(day)
	if err := v.require(sectionStatusLetter, day, "status_letter", "office_closes", "status_letter_business_days"); err != nil {
		return r, err
	}
	closes := v.OfficeCloses
	if in.ClosesAt != nil {
		closes = *in.ClosesAt
	}
	cal := p.Calendar()
	r.ReceivedOn = day
	if !cal.IsBusinessDay(day) || in.RequestedAt.Clock() >= closes {
		r.ReceivedOn = cal.AddBusinessDays(day, 1)
	}
	r.ReadyBy = cal.AddBusinessDays(r.ReceivedOn, v.StatusLetterBusinessDays)
	r.Fee = v.StatusLetterFee
	return r, nil
}

// withCaseCalendar returns p with the holidays and fee schedule a case
// carries, where it carries them (nil: keep p's).
func withCaseCalendar(p *Params, holidays []Date, fees []FeeRow) *Params {
	if holidays != nil {
		p = p.WithHolidays(holidays)
	}
	if fees != nil {
		p = p.WithFeeSchedule(fees)
	}
	return p
}
