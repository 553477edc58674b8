package view

import "github.com/villagehall/appliance/domain"

// Menu is one choice on the start screen.
type Menu struct {
	Key  string // catalogue key stem: "start.pay", "start.tax" …
	URL  string
	Test string // data-testid
}

// ParcelChoice is one parcel a search matched, offered as a choice.
type ParcelChoice struct {
	ID      string
	Address string
	Checked bool
}

// Letter is the status letter request form (§5.11).
type Letter struct {
	Action     string
	Query      string // parcel or address, as typed
	Name       string
	Contact    string
	Fee        domain.Money
	ReceivedOn domain.Date // when a request made now counts as received
	ReadyBy    domain.Date // when a letter requested now is ready
	Today      domain.Date
	Problem    *Problem     // the summary at the top of the form
	Errors     []FieldError // every field's problem, in the form's order, listed in the summary
	Fields     map[string]*Problem
	Choices    []ParcelChoice // several parcels matched the query
	CardOff    *CardOff       // no card payments here: the form is not shown, this says where to ask instead
}

// FieldError is one field's problem as the summary of a form lists it.
type FieldError struct {
	Field   string // the field's id
	Message string
}

// FieldProblem returns the problem of a field, or nil.
func (l Letter) FieldProblem(name string) *Problem { return l.Fields[name] }

// LetterConfirm is shown before the status letter fee is charged. Its form
// carries the request and a signature over it.
type LetterConfirm struct {
	Parcel     string
	Address    string
	Name       string
	Contact    string
	Fee        domain.Money
	ReceivedOn domain.Date
	ReadyBy    domain.Date
	Today      domain.Date
	CommandID  string
	Signature  string
	Action     string
	ChangeURL  string
	Problem    *Problem
	Simulator  bool
	Outcomes   []string
}

// TaxSearch is the property tax start: a box for a parcel or address.
type TaxSearch struct {
	Action  string
	Query   string
	Problem *Problem
	Choices []ParcelChoice
}

// TaxParcel lists the property tax bills of a parcel.
type TaxParcel struct {
	Parcel  string
	Address string
	County  string // the county's name
	Bills   []TaxRow
}

// TaxRow is one property tax bill in a list.
type TaxRow struct {
	ID      string
	TaxYear int
	Total   domain.Money
	Balance domain.Money
	Status  domain.TaxStatus
	URL     string
}

// TaxOption is a way to pay a tax bill today.
type TaxOption struct {
	Option domain.TaxOption
	Amount domain.Money
}

// TaxBill is the property tax bill screen (Ch. 74).
type TaxBill struct {
	ID           string
	Parcel       string
	Address      string
	County       string
	TaxYear      int
	GeneralTax   domain.Money
	SpecialItems []domain.TaxItem
	Figures      domain.TaxFigures
	Payments     []domain.TaxPayment
	Today        domain.Date
	Collects     bool // the village treasurer takes payments today
	NotYet       bool // the bill is not issued yet
	IssuedOn     domain.Date
	Options      []TaxOption
	Other        *TaxOther // another amount may be paid; nil when it may not
	CardOff      *CardOff  // the options, to pay at the clerk's window: this kiosk takes no cards today
	Action       string    // POST: choose an option
	ParcelURL    string
	Problem      *Problem
}

// TaxOther is the "pay another amount" form of a tax bill: any amount from
// Min (the rest of the first installment) to Max (the balance).
type TaxOther struct {
	Min, Max domain.Money
	Amount   string   // as typed, after a bad entry
	Problem  *Problem // what was wrong with it
}

// TaxConfirm is shown before a property tax payment is charged.
type TaxConfirm struct {
	BillID    string
	Parcel    string
	Address   string
	County    string
	TaxYear   int
	Option    domain.TaxOption
	Amount    domain.Money
	Remaining domain.Money
	SecondDue domain.Date
	CommandID string
	Signature string
	Action    string
	BackURL   string
	Problem   *Problem
	Simulator bool
	Outcomes  []string
}

// Purchases is the list of public purchasing records.
type Purchases struct {
	Filter string // "", "open_market" or "emergency"
	Items  []PurchaseRow
	Tabs   []Tab
}

// Tab is one filter of a list.
type Tab struct {
	Key     string
	Label   string
	URL     string
	Current bool
}

// PurchaseRow is one purchase in the list.
type PurchaseRow struct {
	domain.PublicPurchase
	URL string
}

// Purchase is one public purchasing record.
type Purchase struct {
	domain.PublicPurchase
	LowBid  int // index of the lowest bid, -1 if none
	BackURL string
}

// Budgets lists the adopted budgets.
type Budgets struct {
	Items []BudgetRow
}

// BudgetRow is one adopted budget in the list.
type BudgetRow struct {
	Year       int
	AdoptedOn  domain.Date
	Amendments int
	URL        string
	// Proposed marks a budget not adopted yet, for the hearing on
	// Hearing (zero when the notice names no day).
	Proposed bool
	Hearing  domain.Date
}

// Budget is one adopted budget as the public reads it.
type Budget struct {
	View     domain.BudgetView
	Adoption *domain.BudgetVoteRecord
	// Revenues are the revenue lines; Units the appropriations by
	// department, committee, commission and board, in the chart's order.
	Revenues          []domain.BudgetViewLine
	Units             []BudgetUnit
	TotalRevenue      domain.Money
	TotalAppropriated domain.Money
	BackURL           string
	// Proposed marks a budget not adopted yet, for the hearing on
	// Hearing; BookURL is its budget book, a PDF.
	Proposed bool
	Hearing  domain.Date
	BookURL  string
	// Amendments are the board's changes since the adoption, oldest
	// first: each line's amount above already includes them.
	Amendments []BudgetAmendment
}

// BudgetAmendment is one amendment the board passed (§5.04): its date,
// why, and the change to each line it made.
type BudgetAmendment struct {
	N       int
	On      domain.Date
	Purpose string
	Changes []BudgetChange
}

// BudgetChange is an amendment's change to one line, added to it or taken
// from it (never its new total).
type BudgetChange struct {
	Account, Name string
	Change        domain.Money
}

// BudgetUnit is a department's (committee's, commission's, board's)
// appropriations.
type BudgetUnit struct {
	Code  string
	Name  string
	Lines []domain.BudgetViewLine
	Total domain.Money
}

// AssessmentReports lists the assessment reports open to inspection.
type AssessmentReports struct {
	Items []AssessmentReportRow
}

// AssessmentReportRow is one project with a filed report.
type AssessmentReportRow struct {
	ID, Purpose, Stage, URL string
	FiledOn                 domain.Date
}

// AssessmentReport is one project's report as the public reads it.
type AssessmentReport struct {
	Project   domain.Project
	Schedule  domain.Schedule
	Addresses []string // of the schedule's rows, in order
	BackURL   string
}
