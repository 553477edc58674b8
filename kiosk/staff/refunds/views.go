package refunds

// The view models of the refund queue's and the returned checks' pages:
// handlers fill them with text already formatted; the templ components
// only lay them out.

// ReturnCheckForm records a returned check.
type ReturnCheckForm struct {
	Receipt, BillID, Payer, Amount, Reference, Fee string
}

// ReturnedCheck is the notice to the payer of a returned check (§5.20).
type ReturnedCheck struct {
	ID, BillID, Account, AccountName, Payer, Reference string
	PaidOn, ReturnedOn, Amount, Fee, Owed, FeeBillID   string
	Referral, CommandID, BillBalance                   string
	OwedOn                                             string // the day Owed and BillBalance are as of ("": Owed is the record's check + fee)
	PDF                                                string // the notice to mail
	// Addressee is whom the notice is to: the payer, else the account's
	// holder. Presenter says the payer is not the holder (§5.20 holds the
	// presenter liable), so the notice needs the address on the check.
	Addressee string
	Presenter bool
}

// Refunds is the refund queue (§5.07(1)).
type Refunds struct {
	CanApprove, CanCheck bool
	Rows                 []Refund
}

// Refund is one refund due.
type Refund struct {
	CommandID, Receipt, BillID, Account, PaidAt, Amount, RefundBy string
	Overdue                                                       bool
	State, CheckNumber, ApprovedBy, Note                          string
	Card                                                          bool   // paid by card through this node's terminal: it can go back to the card
	Payee, Address                                                string // who the refund check is made out and mailed to
}
