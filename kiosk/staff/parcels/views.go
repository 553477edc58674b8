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
	Mailing                             string // the line's mailing address, one line
}

// Parcel is a parcel's page: the county roll's word on it, the owner's
// mailing address, and the accounts billed for it.
type Parcel struct {
	ID, Address, County, Owner string
	Floodplain                 bool
	MailTo                     []string // where its bills go, as on the envelope
	Accounts                   []string
	Form                       MailingForm
	CanEdit                    bool
	Saved                      bool
}

// MailingForm records a mailing address; Action is where it posts.
type MailingForm struct {
	Action                                  string
	Name, Street, Street2, City, State, ZIP string
	Error                                   string
	// Enabled is false until the cluster's ledger records mailing
	// addresses (ledger format 7).
	Enabled bool
}

// AccountMailing is the page recording an account's mailing address.
type AccountMailing struct {
	Number, Name string
	MailTo       []string
	Form         MailingForm
	Saved        bool
}
