package journal

// The view models of the journal's page: handlers fill them with text
// already formatted; the templ components only lay them out.

// Search is the journal search.
type Search struct {
	Actor, Kind, Outcome, Q, From, To string
	Bill, Receipt, Account            string
	Total, Shown                      int
	CSV                               string
	Rows                              []Row
}

// Row is one journal entry.
type Row struct {
	Seq, Index, At, Actor, Node, Kind, CommandID, Outcome, Error string
	Bill, Receipt, Amount                                        string
}
