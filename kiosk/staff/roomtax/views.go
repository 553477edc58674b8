package roomtax

import "strconv"

// The view models of the room tax pages (§5.22): handlers fill them with
// text already formatted; the templ components only lay them out. Every
// element a test reads carries a data-testid attribute.

// Figures are a return's §5.22 figures on a date, as the rule computed
// them.
type Figures struct {
	AsOf, DueOn, EffectiveDueOn          string
	Gross, ExemptSales, Taxable, Tax     string
	LateFee, Interest, Paid, Balance     string
	Overpayment, DelinquentAfter         string
	Delinquent, Extended, Late, Overpaid bool
	Rejected                             []int // 1-based lines of the exempt sales the rule rejected
}

// Sale is one exempt sale claimed on a return.
type Sale struct {
	Line                                   int
	Amount, Entity, Buyer, Document, Count string
	Number                                 string
	Billed, Rejected                       bool
}

// SaleInput is one row of the exempt sales of a form.
type SaleInput struct {
	Amount, Entity, Buyer, Document, Number string
	Billed                                  bool
}

// Filing is one filing of a return: the original, an amendment, or an
// annual return's correction.
type Filing struct {
	Version                              int
	FiledAt, By, Signer, Capacity, Gross string
	Amends                               bool
	Reason, Annual                       string
	Sales                                []Sale
}

// Payment is one payment toward a return.
type Payment struct {
	At, Amount, Tender, Reference, Receipt, Payer string
}

// Determination is one of the treasurer's determinations of a return.
type Determination struct {
	Kind, At, By, Basis, Gross, Tax, RefundDue string
	Sales                                      []Sale
}

// Return is a quarterly return's page.
type Return struct {
	ID, Operator, OperatorName, Period string
	Status, RetainUntil, ReadID, Basis string
	Figures                            *Figures
	Sales                              []Sale
	Filings                            []Filing
	Extension                          string
	Payments                           []Payment
	Determinations                     []Determination
	NoInterest                         string
	CanAmend, CanAdmin, CanPay         bool
	Filed                              bool
	Drawer                             string // the treasurer's open drawer, for a payment at the window
	Error                              string
	Today                              string
	ExtendMax                          string
	KioskNote                          string
	PaymentRef                         string      // what the operator types at the kiosk (domain/roomtaxpayref.go)
	DetSales                           []SaleInput // the determination form's exempt sales, those in force first
	Entities, Documents                []Option
}

// FileForm is the form of a return (new or amended) and its preview.
type FileForm struct {
	Operator, OperatorName, Action, Heading string
	Period                                  string
	Periods                                 []string // quarters that may be filed
	Gross                                   string
	Sales                                   []SaleInput
	Signer, Capacity, Reason                string
	Amend, NeedsElection                    bool
	Basis, EndMonth                         string
	Preview                                 *Figures
	PreviewSales                            []Sale
	Digest                                  string // what was previewed: signing needs it
	Error                                   string
	Entities, Documents                     []Option
}

// Option is one choice of a select.
type Option struct{ Value, Label string }

// ReturnRow is one return in a list.
type ReturnRow struct {
	ID, Period, Status, Tax, Balance, DueOn, RetainUntil string
	Delinquent, HasFigures                               bool
}

// Home is the room tax start page: an operator's account and returns, or
// the links of the treasurer's office, the auditors and officials.
type Home struct {
	IsOperator, CanFile, CanAdmin, CanDirectory, CanLog bool
	Operator                                            *Operator
	Returns                                             []ReturnRow
	Annual                                              []AnnualRow
	DuePeriods                                          []string
	AnnualDue                                           []string
	Grants                                              []Grant
	ReadID                                              string
	Note                                                string
	PasswordChanged                                     bool // the operator lands here after changing its password
	// The operator's portal: every quarter due or on record, what it owes
	// today and what may be done with it; the receipts; when the annual
	// return is due.
	Portal     []PortalRow
	Receipts   []ReceiptRow
	AnnualNote string
}

// PortalRow is one quarter on the operator's home: its status in words
// (due, late, filed, amended, paid, balance due), its figures today ("—"
// before there are any) and the actions it offers.
type PortalRow struct {
	ID, Period, Status, DueOn, Tax, Paid, Balance string
	FileURL                                       string
	File, Amend, Pay, View, Late, Delinquent      bool
}

// ReceiptRow is one payment toward an operator's returns.
type ReceiptRow struct{ Number, At, Period, Amount, Tender string }

// Pay is the page on which an operator pays a return: by card at the
// terminal, or by check at the window with a remittance slip.
type Pay struct {
	ID, Period, OperatorName, DueOn string
	Tax, Paid, Balance              string
	BalanceDollars                  string
	Amount                          string // the form's amount: the balance, or what was typed
	Ref                             string // the payment reference the slip and the window name it by
	Cards                           bool   // the node has a card terminal
	Error                           string
}

// Charge confirms a card payment before the terminal charges it; its
// command id is the charge's key and the payment's id.
type Charge struct {
	ID, Period, OperatorName string
	Amount, AmountDollars    string
	CommandID                string
	Signature                string // the office's seal (chargeSeal) of this return, amount and command id for the session
	Error                    string
}

// Receipt is a receipt of a payment toward an operator's return.
type Receipt struct {
	Number, At, OperatorName, Operator, Period, ReturnID string
	Amount, Tender, Reference, Card, Payer, ReadID       string
	Village                                              string
}

// Remittance is the treasurer's window's search for a return by the
// reference on its remittance slip.
type Remittance struct{ Ref, Error string }

// AnnualRow is one annual return in a list.
type AnnualRow struct{ ID, Year, FiledAt, Difference string }

// Operator is an operator account.
type Operator struct {
	ID, LegalName, SellersPermit, Contact, Registered, Year string
	Establishments                                          []Establishment
	Marketplace, Closed                                     bool
	ClosedOn, CloseReason                                   string
	Logins                                                  []string
	Periods                                                 []PeriodRow
}

// Establishment is an operator's establishment.
type Establishment struct{ Name, Address string }

// PeriodRow is one return on record, without figures.
type PeriodRow struct{ ID, Period, Status, RetainUntil string }

// Operators is the directory of operators and, for the treasurer, the
// registration form.
type Operators struct {
	Rows     []Operator
	CanAdmin bool
	Form     OperatorForm
}

// OperatorForm registers an operator.
type OperatorForm struct {
	ID, LegalName, SellersPermit, Contact string
	Marketplace                           bool
	Establishments                        []Establishment
	Error                                 string
}

// OperatorPage is one operator's account.
type OperatorPage struct {
	Operator Operator
	CanAdmin bool
	CanRead  bool
	Error    string
	Notice   string
	Logins   []string // hotel operator logins not linked yet
	Unfiled  []string // quarters due and not on record
	Today    string
}

// Grant is an access grant.
type Grant struct {
	ID, Official, Operator, Reason, Until, GrantedAt, GrantedBy string
	Active, Revoked                                             bool
}

// Grants is the access grants page.
type Grants struct {
	Rows      []Grant
	Officials []Option
	Operators []Option
	Error     string
}

// Read is one read of returns.
type Read struct {
	ID, At, Reader, Role, Basis, What, Operator, Subjects, Reason, Official string
}

// Reads is the access log.
type Reads struct {
	Rows     []Read
	Operator string
}

// QuarterTotal is one quarter's collections.
type QuarterTotal struct{ Period, Total string }

// Reports is the collections report in total and the tourism share.
type Reports struct {
	Year                                                     string
	Quarters                                                 []QuarterTotal
	Total                                                    string
	Collections, Retained, Share, Required, Transferred, Due string
	Transfers                                                []Transfer
	CanAdmin, CanByOperator                                  bool
	Error                                                    string
}

// Transfer is a transfer to tourism promotion.
type Transfer struct{ ID, Year, On, Amount, To, Reference, By string }

// ByOperator is the confidential report of collections by operator.
type ByOperator struct {
	Year, ReadID string
	Rows         []OperatorTotal
	Total        string
}

// OperatorTotal is one operator's collections in a year, by quarter.
type OperatorTotal struct {
	Operator, Name string
	Quarters       []string
	Total          string
}

// Enforcement is the treasurer's page of certificates, successors and
// forfeitures.
type Enforcement struct {
	Certificates []Certificate
	Successors   []Successor
	Forfeitures  []Forfeiture
	Operators    []Option
	Error        string
}

// Certificate is a certificate on the sale of a business.
type Certificate struct {
	ID, Operator, Requester, RequesterIs, IssuedOn, AmountDue, By, ReadID string
	NothingDue                                                            bool
	Unfiled                                                               []string
}

// Successor is a successor's liability.
type Successor struct{ ID, Operator, Successor, Certificate, Price, Due, Liability, At string }

// Forfeiture is a forfeiture record.
type Forfeiture struct{ ID, Operator, Violation, From, To, Days, PerDay, Total string }

// Annual is an annual return's page.
type Annual struct {
	ID, Operator, OperatorName, Year, Election, DueOn, FiledAt, By string
	Signer, Capacity, FiledTax, Tax, Difference, ReadID            string
	Late                                                           bool
	Quarters                                                       []AnnualQuarter
}

// AnnualQuarter is one quarter of an annual return.
type AnnualQuarter struct {
	Period, Gross, FiledTax, Tax, Difference string
	Corrected                                bool
}

// AnnualForm is the annual return's form.
type AnnualForm struct {
	Operator, OperatorName, Year, Election, DueOn, Action string
	Quarters                                              []AnnualFormQuarter
	Signer, Capacity, Error                               string
}

// AnnualFormQuarter is one quarter's line of the annual return's form.
type AnnualFormQuarter struct {
	Period, Gross, FiledGross string
	Sales                     []SaleInput
}

// ReasonForm asks why a return is to be read before it is shown.
type ReasonForm struct {
	Action, What string
	Hidden       []Option // the query to keep (name, value)
	Reasons      []Option
}

func itoa(n int) string { return strconv.Itoa(n) }

func joinInts(ns []int) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(n)
	}
	return s
}
