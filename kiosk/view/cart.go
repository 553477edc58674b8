package view

import "github.com/villagehall/appliance/domain"

// Cart is the page that pays several bills of one account at once: every
// bill the account can pay today, all chosen unless the resident unticks
// some.
type Cart struct {
	Account string
	Bills   []CartBill
	Total   domain.Money // of the bills chosen
	Action  string
	BackURL string
	Problem *Problem
	// More is how many more bills the account has to pay than one
	// payment takes (the oldest are listed).
	More int
}

// CartBill is one bill of a Cart or of its confirmation: what it owes
// today and whether it is chosen; on the confirmation, how §5.10 applies
// the payment to it and what it owes after.
type CartBill struct {
	Bill       BillRow
	Chosen     bool
	Amount     domain.Money
	Allocation domain.Allocation
	Remaining  domain.Money
}

// CartConfirm is shown before the card is charged for several bills: each
// bill with its part and its allocation, and the one total charged.
type CartConfirm struct {
	Account   string
	Bills     []CartBill
	Total     domain.Money
	Field     string // the signed list of bills and amounts the form posts back
	CommandID string
	Signature string
	Action    string
	ChangeURL string
	Problem   *Problem
	Simulator bool
	Outcomes  []string
}

// ReceiptLine is one bill of a receipt that paid several.
type ReceiptLine struct {
	BillID      string
	Shown       string // the bill's number for people, or its ID
	Description string
	Amount      domain.Money
	Allocation  domain.Allocation
	Balance     domain.Money
}

// Cart reports whether the receipt paid several bills at once.
func (r Receipt) Cart() bool { return r.Kind == domain.KindPayBills }

// cartBills are the receipt's lines as the bill table shows them.
func (r Receipt) cartBills() []CartBill {
	out := make([]CartBill, 0, len(r.Lines))
	for _, l := range r.Lines {
		out = append(out, CartBill{Bill: BillRow{ID: l.BillID, Shown: l.Shown, Description: l.Description}, Amount: l.Amount, Allocation: l.Allocation, Remaining: l.Balance})
	}
	return out
}
