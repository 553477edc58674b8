package purchasing

// The view models of purchasing's pages, filled with text already
// formatted.

type option struct {
	Value, Label string
	Selected     bool
}

type newOrderForm struct {
	Line, Description, Category, Estimate, Requisition, Solicited string
	Emergency, Municipal, OwnWork                                 bool
	Explanation, EmergencyResolution                              string
	Error                                                         string
}

type orderRow struct {
	ID, URL, Description, Line, Unit, Status, Amount, Vendor string
	Emergency                                                bool
}

type ordersView struct {
	Year, Prev, Next         int
	Orders                   []orderRow
	Form                     newOrderForm
	Lines, Categories        []option
	CanOrder, DepartmentHead bool
}

type bidView struct{ Vendor, Amount, Received, Notes string }

type awardView struct {
	Vendor, Amount, Basis, Reasons, On, BoardApproval, BoardApprovedOn, By string
	Vote                                                                   *voteView
}

// voteView is the board's vote approving an award (ledger format 6).
type voteView struct {
	Meeting             string
	Present, Ayes, Nays int
}

type ruleView struct {
	BoardApproval, Bids, Class2, Funds, Direct bool
	Record                                     string
}

type actView struct{ By, At, Available, Reason string }

type deliveryView struct {
	On, Inspector, Notes, Invoice, Invoiced string
	Conforms, Final                         bool
	Tests, Expenses                         []string
}

type orderView struct {
	ID                                                  string
	Year                                                int
	Line, Unit, Description, Category, Estimate, Buyer  string
	Status, Explanation, Requisition, Solicited, Ground string
	Emergency                                           bool
	Available, Held, Paid, Created, CreatedBy, Today    string
	Notices                                             []string
	BidsOpen, NoticeFirstBy, NoticeSecondBy             string
	NoticeQualifies                                     bool
	// NoticeClass is the notice the order needs (2, 1, or 0 for none),
	// printable as a PDF; NoticeAsksOpen: the print form asks the day
	// bids open, which the order does not record yet.
	NoticeClass                           int
	NoticeAsksOpen                        bool
	Bids                                  []bidView
	Award                                 *awardView
	Rule                                  *ruleView
	Certified, Refused, Issued, Cancelled *actView
	// Standing is where the public record says the order stands, and
	// PaidByCheck what checks paid on its claims.
	Standing, PaidByCheck string
	// Votes: the award form asks for the board's vote (format 6), not
	// the motion in free text; Refusable: the treasurer may record a
	// refusal to certify the funds.
	Votes, Refusable                                     bool
	Deliveries                                           []deliveryView
	Draft, Awarded, Certifiable, Receivable, Cancellable bool
	CanAct, CanCertify                                   bool
	BoardThreshold, Class1Threshold, Class2Threshold     string
	Error                                                string
}

type itemForm struct{ Description, Quantity, Estimated string }

type requisitionForm struct {
	Unit, Type, Period, Category, NeededBy string
	Items                                  []itemForm
	Error                                  string
}

type requisitionRow struct {
	ID, Unit, Type, Period, Category, Total, Filed, By string
	Items                                              []string
}

type requisitionsView struct {
	Year         int
	Requisitions []requisitionRow
	Form         requisitionForm
	CanFile      bool
}

type surplusItemView struct {
	Index                           int
	Description, Condition, Outcome string
	Quantity                        int
}

type surplusRow struct {
	ID, Unit, Reported, By string
	Items                  []surplusItemView
}

type surplusView struct {
	Year                  int
	Reports               []surplusRow
	Unit, Error, Today    string
	CanReport, CanDispose bool
}

type rulesRow struct {
	Version                     int
	Text, Drafted, By, Approved string
}

type rulesView struct {
	InForce                      int
	InForceText, InForceApproval string
	Versions                     []rulesRow
	Draft, Error, Today          string
	CanEdit                      bool
}

type employmentForm struct {
	Line, Person, Position, Amount, From, To, Approval, ApprovedOn string
	Error                                                          string
}

type employmentRow struct {
	ID, Line, Person, Position, Amount, Charged, From, To, Approval string
}

type employmentView struct {
	Year        int
	Employments []employmentRow
	Form        employmentForm
	CanRecord   bool
}
