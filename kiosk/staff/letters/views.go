package letters

// The view models of the status letter pages: handlers fill them with
// text already formatted; the templ components only lay them out.

// Letters is the status letter queue (§5.11).
type Letters struct {
	All     bool
	CanWork bool // may take a request at the window
	Rows    []LetterRow
}

// LetterRow is one request in the queue: who asked, how the letter goes
// to them ("E-mail to closings@title.example", "Pick up", "Mail") and
// when it was sent or handed over.
type LetterRow struct {
	Claim, Parcel, Address, Requester, RequestedAt, ReadyBy, State string
	Delivery, Sent                                                 string
	Overdue, DueToday                                              bool
}

// RequestForm is a status letter request taken at the window: for a
// title company, most often, that gives an e-mail address.
type RequestForm struct {
	CommandID                                 string // keys the card charge: a form sent twice charges once
	Parcel, Requester, Contact, Email, MailTo string
	ClosingOn, Delivery, Payment              string
	CheckNumber, Account                      string
	Fee, ReceivedOn, ReadyBy                  string // the terms of a request made now
	Drawer                                    string // the clerk's open drawer, "" when none
	Card                                      bool   // the node has a card terminal
	Error                                     string
}

// LetterForm is what the clerk adds to a letter.
type LetterForm struct {
	AssessmentChanges, Deferred, Improvements, Floodplain, Violations, Notes string
	Error                                                                    string
}

// Letter is a request and, once written, its letter.
type Letter struct {
	Claim, Parcel, Address, Requester, Contact, RequestedAt, ReadyBy, State, Fee string
	Number, AsOf, Delivery, DeliveredAt                                          string
	// How the letter goes out ("E-mail to …", "Pick up", "Mail to …"),
	// and the e-mail address when it is e-mailed.
	HowDelivered, Email, ClosingOn, ReceivedOn string
	// Paid says how the fee was paid ("Card SIM-1", "Check 5512",
	// "Billed on account 300001, bill B-…"); CheckReceipt is the receipt
	// of a check, for a check that comes back.
	Paid, CheckReceipt string
	// CanEmail offers to e-mail the written letter to Email.
	CanEmail bool
	Lines    []LetterLine
	CanWork  bool
	Form     LetterForm
}

// LetterLine is one fact from the ledger.
type LetterLine struct {
	Topic, Text, Amount string
}
