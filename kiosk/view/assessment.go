package view

import "github.com/villagehall/appliance/domain"

// AssessmentRow is one special assessment in a parcel's list (§5.14),
// with what it still owes today.
type AssessmentRow struct {
	ID          string
	Purpose     string
	Outstanding domain.Money
	Status      string // domain.AssessmentFigures.Status
	URL         string
}

// AssessmentBill is a special assessment's screen (§5.14): what was
// levied, the installments as of today, and the ways to pay it today.
type AssessmentBill struct {
	ID        string
	Project   string
	Purpose   string
	Parcel    string
	Address   string
	LeviedOn  domain.Date
	Figures   domain.AssessmentFigures
	Options   []AssessmentOption
	Action    string // POST: choose an option
	ParcelURL string
	CardOff   *CardOff
	Problem   *Problem
}

// AssessmentOption is a way to pay an assessment today.
type AssessmentOption struct {
	Option string // domain.PayInstallment | domain.PayInFull
	N      int    // the installment, for PayInstallment
	Amount domain.Money
}

// AssessmentConfirm is shown before an assessment payment is charged.
type AssessmentConfirm struct {
	ID        string
	Purpose   string
	Parcel    string
	Address   string
	Option    string
	N         int
	Amount    domain.Money
	Remaining domain.Money
	CommandID string
	Signature string
	Action    string
	BackURL   string
	Problem   *Problem
	Simulator bool
	Outcomes  []string
}
