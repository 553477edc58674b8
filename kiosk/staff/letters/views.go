package letters

// The view models of the status letter pages: handlers fill them with
// text already formatted; the templ components only lay them out.

// Letters is the status letter queue (§5.11).
type Letters struct {
	All  bool
	Rows []LetterRow
}

// LetterRow is one request in the queue.
type LetterRow struct {
	Claim, Parcel, Address, Requester, RequestedAt, ReadyBy, State string
	Overdue, DueToday                                              bool
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
	Lines                                                                        []LetterLine
	CanWork                                                                      bool
	Form                                                                         LetterForm
}

// LetterLine is one fact from the ledger.
type LetterLine struct {
	Topic, Text, Amount string
}
