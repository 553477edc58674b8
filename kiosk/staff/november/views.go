package november

// The view models of the November run's pages: handlers fill them with text already
// formatted; the templ components only lay them out.

// November is the November run page (§5.10).
type November struct {
	Year                        int
	PenaltyDay, TaxRollDay      string
	CanRun, MayPost, MayCertify bool
	PenaltiesPosted, Certified  bool
	PenaltiesAt, CertifiedAt    string
	// PenaltiesPart and RollPart say what a step posted so far while
	// parts of it remain (domain.RunPartsFormat); empty otherwise.
	PenaltiesPart, RollPart string
	Penalties, Roll         RunTable
	Counties                []CountyTotal
}

// RunTable is a page of a step's lines, with the count and total of all
// of them and the addresses of the pages before and after (empty at
// either end).
type RunTable struct {
	Rows             []RunRow
	Count            int
	Total            string
	Page, Pages      int
	PrevURL, NextURL string
}

// NovemberConfirm is a step of the November run shown before it posts.
type NovemberConfirm struct {
	Year                          int
	Step                          string   // "penalties" | "certify"
	Table                         RunTable // the first page of lines
	Count                         int
	Total                         string
	Counties                      []CountyTotal
	PenaltyDay, TaxRollDay, Today string
}

// RunRow is one bill in a step of the run.
type RunRow struct {
	BillID, Account, Parcel, County, Owner string
	Principal, Interest, Penalty, Amount   string
	URL                                    string // the bill's page, or the special assessment's
}

// CountyTotal is one county's share of the roll.
type CountyTotal struct {
	County, Key string
	Count       int
	Total       string
}
