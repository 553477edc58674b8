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
	Penalties, Roll             []RunRow
	PenaltyTotal, RollTotal     string
	Counties                    []CountyTotal
}

// NovemberConfirm is a step of the November run shown before it posts.
type NovemberConfirm struct {
	Year                          int
	Step                          string // "penalties" | "certify"
	Rows                          []RunRow
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
