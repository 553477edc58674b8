package parcels

// The view models of the parcel roll's pages: handlers fill them with text already
// formatted; the templ components only lay them out.

// Roll is the parcel roll import page: its dry run or its result.
type Roll struct {
	Header    string
	CSV       string
	Name      string
	Rows      []RollRow
	Errors    []string
	DryRun    bool
	Imported  bool
	CommandID string
	Note      string
}

// RollRow is one parcel of a roll and what importing it does.
type RollRow struct {
	Line                                int
	Parcel, Address, County, Owner      string
	Floodplain                          bool
	Change, Was, Account, AccountChange string
}
