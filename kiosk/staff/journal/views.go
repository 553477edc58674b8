package journal

// The view models of the journal's page: handlers fill them with text
// already formatted; the templ components only lay them out.

// Search is the journal search: a page of it.
type Search struct {
	Actor, Kind, Outcome, Q, From, To string
	Bill, Receipt, Account            string
	Shown                             int
	CSV                               string
	Rows                              []Row
	// Older and Newer link to the next pages ("": none).
	Older, Newer string
	// Found says what the free text was found to be (receipt, bill,
	// account, command); Text that it is searched as text instead, in at
	// most Budget entries a page.
	Found  string
	Text   bool
	Budget int
	// Stopped says the page read its Budget of entries before it was
	// full: Older goes on from the last entry read.
	Stopped bool
}

// Row is one journal entry.
type Row struct {
	Seq, Index, At, Actor, Node, Kind, CommandID, Outcome, Error string
	Bill, Receipt, Amount                                        string
}
