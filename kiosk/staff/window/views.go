package window

import staffview "github.com/villagehall/appliance/kiosk/staff/view"

// The view models of the window's, the drawers' and the receipts' pages:
// handlers fill them with text already formatted; the templ components
// only lay them out.

// PaymentForm is the window's payment form.
type PaymentForm struct {
	BillID, Amount, Tender, Tendered, Reference, Payer string
	Error                                              string
}

// WindowConfirm is a window payment shown before it posts: for cash the
// change to hand back, for a check the excess that becomes a refund.
type WindowConfirm struct {
	Form                                  PaymentForm // as it will post
	Cash                                  bool
	Amount, Tendered, Change, Overpayment string
	RefundBy, Balance                     string
}

// Window is the clerk's window: the drawer, the payment form, the bill.
type Window struct {
	Form        PaymentForm
	Query       string        // what was looked up, when it was not a bill number
	Matches     []WindowMatch // the bills it found
	Open        bool
	DrawerID    string
	OpenedAt    string
	Float       string
	Count       int
	LastReceipt string
	Bill        *Bill // the bill looked up, with its figures today
}

// WindowMatch is a bill found at the window by account or address.
type WindowMatch struct {
	BillID, Account, Address, Description, Balance, Status string
}

// Receipt is a payment's receipt, with the change due at the window.
type Receipt struct {
	Number, BillID, Account, Parcel, Payer, At, Amount, Tender, Reference string
	Penalty, Interest, Principal, Overpayment, Balance                    string
	CommandID, Status, Tendered, Change                                   string
	// Card is the card's brand and last four digits ("Visa •••• 4242"),
	// when the terminal gave them.
	Card      string
	CanReturn bool
	Head      Letterhead
	// Lines are the bills of a payment of several at the kiosk (pay_bills).
	Lines []ReceiptLine
}

// ReceiptLine is one bill of a receipt that paid several.
type ReceiptLine struct {
	BillID, Amount, Penalty, Interest, Principal, Balance string
}

// Letterhead is the village hall on a printed receipt; zero fields keep
// the built-in text.
type Letterhead struct {
	Name, Address, Phone, Email string
}

// CloseForm is the blind count.
type CloseForm struct {
	DrawerID, Cash, Checks, CheckCount string
	Error                              string
}

// Drawer is a cash drawer; the totals are empty while a blind count is due.
type Drawer struct {
	ID, Cashier, OpenedAt, Float, DepositID string
	Closed                                  bool
	Cash, Checks                            string
	CheckCount                              int
	ClosedAt, CountedCash, CountedChecks    string
	ExpectedCash, ExpectedChecks, OverShort string
	CashOverShort, ChecksOverShort          string // per tender: counted − expected
	Payments                                []DrawerPayment
}

// DrawerPayment is one payment in a drawer.
type DrawerPayment struct {
	Receipt, BillID, At, Tender, Amount, Reference, CommandID string
	Returned                                                  string // the returned check's record, when it came back unpaid
}

// Drawers is the drawers page with the deposit form.
type Drawers struct {
	Late         bool
	CanDeposit   bool
	Depositories []staffview.Option // designated today (§5.06)
	Pending      []Drawer
	Recent       []Drawer
}

// Deposit is a deposit slip (§5.06).
type Deposit struct {
	ID, Depository, At, By, CommandID string
	Drawers                           []string
	Cash, CheckTotal, Total           string
	Checks                            []DepositCheck
}

// DepositCheck is one check on a slip.
type DepositCheck struct {
	Receipt, Reference, Payer, Amount string
}

// Bill is a bill's §5.10 figures today, as the window shows the bill a
// payment is taken for.
type Bill struct {
	ID, Account, Parcel, Description, BilledOn, Principal string
	// Shown is the bill's number for people, or its ID for a bill made
	// before the ledger gave numbers (domain.Bill.Shown).
	Shown                                           string
	DueOn, Interest, Penalty, Paid, Balance, Status string
}

// contactLine is the letterhead's telephone and e-mail, as one line.
func contactLine(h Letterhead) string {
	switch {
	case h.Phone != "" && h.Email != "":
		return "Questions: " + h.Phone + " · " + h.Email
	case h.Phone != "":
		return "Questions: " + h.Phone
	default:
		return "Questions: " + h.Email
	}
}
