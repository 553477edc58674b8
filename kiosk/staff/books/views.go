package books

// The view models of the books' pages: the handlers fill them with text
// already formatted; the templ components only lay them out.

// trialBalanceView is the trial balance as of a day.
type trialBalanceView struct {
	AsOf, AsOfLong string
	// NotOpen: the chart names no general fund, so the ledger keeps no
	// books yet.
	NotOpen bool
	// Empty: the books are open and nothing is posted to them by AsOf.
	Empty bool
	// Unbalanced: the debits are not the credits (never, when every
	// entry balanced as it was posted).
	Unbalanced                bool
	Debit, Credit, Difference string
	Funds                     []fundView
	CSV                       string
}

// fundView is one fund's accounts in the trial balance and their totals.
type fundView struct {
	Code, Name    string
	Rows          []trialBalanceRow
	Debit, Credit string
	Unbalanced    bool
}

// trialBalanceRow is one account of the trial balance.
type trialBalanceRow struct {
	Code, Name, Type, URL  string
	Debit, Credit, Balance string
	Contra                 bool // the balance is on the side opposite the account's normal one
}

// accountView is one account's detail over a period.
type accountView struct {
	Code, Name, Type, Fund string
	Normal                 string // "debit" or "credit"
	From, To               string
	BroughtForward         string
	Lines                  []entryRow
	Debit, Credit, Closing string
	CSV, TrialBalance      string
}

// entryRow is one journal line to the account, with the account's
// balance after it.
type entryRow struct {
	Date, Kind, Memo, Section string
	CommandID, JournalURL     string
	Debit, Credit, Balance    string
}
