package bills

import staffview "github.com/villagehall/appliance/kiosk/staff/view"

// The view models of the bills', the accounts' and the charges' pages:
// handlers fill them with text already formatted; the templ components
// only lay them out.

// BillForm is the new-bill form. DescriptionES is the optional Spanish
// description; Spanish says whether the ledger records one (format 7),
// else the field is shown disabled.
type BillForm struct {
	Account, Parcel, Description, DescriptionES, BilledOn, Amount string
	Spanish                                                       bool
	Error                                                         string
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
	Line                                                              int
	ID, Account, Parcel, Description, DescriptionES, BilledOn, Amount string
}

// Bill is a bill with its §5.10 figures today and its postings.
type Bill struct {
	ID, Account, Parcel, Description, BilledOn, Principal string
	// DescriptionES is the Spanish description the resident kiosk shows
	// on its Spanish pages, "" for none.
	DescriptionES string
	// Shown is the bill's number for people ("2026-000123"), or its ID
	// for a bill made before the ledger gave numbers.
	Shown                                           string
	DueOn, Interest, Penalty, Paid, Balance, Status string
	TaxRollOn                                       string
	Postings                                        []Posting
	Created, CanPay                                 bool
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

// ChargeForm bills a charge (§5.19, §5.21).
type ChargeForm struct {
	Kind, Account, Parcel, Reference, Placed string
	Kinds                                    []staffview.Option
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
	More     bool // more parcels match than Results lists
}

// ParcelHit is a parcel that matches a search, with the accounts billed
// for it.
type ParcelHit struct {
	Parcel, Address, Owner, County string
	Accounts                       []string
}
