// Package view holds the clerk's office templ components and the view
// models they render. Handlers map domain records to these models, already
// formatted; components only lay them out. Every element a test needs
// carries a data-testid attribute.
package view

// Page is what every staff page shares.
type Page struct {
	Title  string
	Today  string
	User   string // "" when signed out
	Name   string
	Role   string
	CSRF   string
	Nav    []NavLink
	Banner string // the records may not be current; "" when they are
}

// NavLink is one entry of the navigation, shown by role.
type NavLink struct {
	Label   string
	URL     string
	Current bool
}

// LoginForm is the sign-in form.
type LoginForm struct {
	Username string
	Next     string
	Error    string
}

// PasswordForm is the change-of-password form; Forced at first sign-in
// and after a reset.
type PasswordForm struct {
	Forced bool
	Error  string
}

// Problem is an error page.
type Problem struct {
	Status  int
	Message string
	Section string
}

// Option is one choice of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// BillForm is the new-bill form.
type BillForm struct {
	Account, Parcel, Description, BilledOn, Amount string
	Error                                          string
}

// Import is the bill import page: the file, and after a dry run or an
// import its rows and errors.
type Import struct {
	Header    string
	CSV       string
	Name      string
	Rows      []ImportRow
	Total     string
	Errors    []string
	DryRun    bool
	Imported  bool
	CommandID string
}

// ImportRow is one bill of an import.
type ImportRow struct {
	Line                                               int
	ID, Account, Parcel, Description, BilledOn, Amount string
}

// Bill is a bill with its §5.10 figures today and its postings.
type Bill struct {
	ID, Account, Parcel, Description, BilledOn, Principal string
	DueOn, Interest, Penalty, Paid, Balance, Status       string
	TaxRollOn                                             string
	Postings                                              []Posting
	Created, CanPay                                       bool
}

// Posting is one line of a bill's history.
type Posting struct {
	On, What, Amount          string
	CommandID, Actor, Receipt string
}

// Account is an account's history.
type Account struct {
	Number, Name string
	Parcels      []string
	Bills        []Bill
	Balance      string
	CanBill      bool
	Charges      []AccountCharge
	Holds        []Hold
}

// Dashboard is the start page.
type Dashboard struct {
	Changed    bool
	Alerts     []Alert
	OpenDrawer string
}

// Alert is something that needs attention.
type Alert struct {
	TestID, Text, URL string
}

// Cluster is the cluster page.
type Cluster struct {
	Leader  string
	Members []Member
}

// Member is one member of the cluster.
type Member struct {
	ID, Address, Suffrage, State, LastContact string
	AppliedIndex, Lag                         uint64
	Error                                     string
	Leader                                    bool
}

// ChargeForm bills a charge (§5.19, §5.21).
type ChargeForm struct {
	Kind, Account, Parcel, Reference, Placed string
	Kinds                                    []Option
	Lines                                    []ChargeLine
	Error                                    string
}

// ChargeLine is one line of a charge form.
type ChargeLine struct {
	Description, Amount string
}

// AccountCharge is a charge on an account's page.
type AccountCharge struct {
	ID, Kind, Reference, BillID, Total, At string
}

// Hold is a permit hold on an account's page.
type Hold struct {
	BillID, Balance, Since string
}

// FindAccount is the account search.
type FindAccount struct {
	Q        string
	Searched bool
	Results  []ParcelHit
}

// ParcelHit is a parcel that matches a search, with the accounts billed
// for it.
type ParcelHit struct {
	Parcel, Address, Owner, County string
	Accounts                       []string
}
