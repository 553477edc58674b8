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
	// The statements read from the books: the balance sheet of the same
	// day, the statement of revenues, expenditures and changes in fund
	// balance and the Form CT schedule of its year.
	BalanceSheet, Statement, FormCT string
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

// balanceSheetView is each fund's balance sheet as of a day, the funds in
// columns and a total column.
type balanceSheetView struct {
	AsOf, AsOfLong string
	// Empty: no fund has postings by AsOf.
	Empty    bool
	Funds    []fundColumn
	Sections []sheetSection
	// Claims are, by fund then the total, liabilities + deferred inflows
	// + fund balance, the figure that equals the assets.
	Claims []sheetCell
	// Checks say, by fund then the total, whether the fund balances.
	Checks            []sheetCheck
	Unbalanced        bool
	CSV, TrialBalance string
}

// fundColumn is one fund's column.
type fundColumn struct{ Code, Name string }

// sheetSection is one section of the balance sheet with its total row.
type sheetSection struct {
	Key, Title string
	TotalLabel string // "Total assets"
	Rows       []sheetRow
	Totals     []sheetCell // by fund, then the total
}

// sheetRow is one row of the balance sheet.
type sheetRow struct {
	Key, Caption, Accounts string
	Unclosed               bool // a row of revenues less expenditures not yet closed
	Cells                  []sheetCell
}

// sheetCell is one amount of a row, with its data-testid.
type sheetCell struct{ TestID, Amount string }

// sheetCheck says whether one fund (or all) balances.
type sheetCheck struct {
	TestID, Text string
	Balanced     bool
}

// statementView is a fund's statement of revenues, expenditures and
// changes in fund balance for a year.
type statementView struct {
	Year, Fund, FundName string
	Funds                []option
	Adopted              bool
	RevenueBudget        bool
	Revenues             []statementRow
	Expenditures         []statementRow
	TotalRevenues        statementRow
	TotalExpenditures    statementRow
	Beginning, NetChange string
	OtherChanges, Ending string
	HasOther             bool
	CSV, BalanceSheet    string
}

// option is one choice of a select.
type option struct {
	Value, Label string
	Selected     bool
}

// statementRow is one major source or category, or a total.
type statementRow struct {
	TestID, Major, Accounts              string
	Original, Amendments, Carried, Final string
	Actual, Variance, Encumbrances       string
	Unfavourable                         bool
}

// formCTView is a year's Form CT schedule.
type formCTView struct {
	Year                     string
	Revenues, Expenditures   []ctRow
	Unclassified             []ctRow
	TotalRevenues, TotalExps string
	CSV                      string
}

// ctRow is one class, or one unclassified account.
type ctRow struct {
	TestID, Class, Type, Accounts, Funds, Amount string
}

// periodsView is the periods of the books and the forms that close and
// reopen them.
type periodsView struct {
	Open                bool
	Opened              string // the day the books opened, for people
	ClosedThrough       string // empty when no period is closed
	Closes              []closeRow
	CanClose, CanReopen bool
	Form                periodForm
	// Closed and Reopened are the day of the close just made or reopened.
	Closed, Reopened string
}

// closeRow is one close of the books, latest first.
type closeRow struct {
	Through, On, By              string
	Reopened, ReopenedBy, Reason string
}

// periodForm is what the forms of the periods carry back.
type periodForm struct {
	Through, CloseError string
	Reason, ReopenError string
}

// adjustForm is the adjusting entry's form.
type adjustForm struct {
	On, Reason string
	Lines      []adjustLineForm
	Errors     []string
	// Posted is the ref of the entry just posted, PostedOn its date and
	// TrialBalance the trial balance as of it.
	Posted, PostedOn, TrialBalance string
}

// adjustLineForm is one row of the adjusting entry's form; N numbers it
// (from 1) for the field names.
type adjustLineForm struct {
	N                            int
	Account, Debit, Credit, Memo string
}

// openingView is the import of the opening trial balance.
type openingView struct {
	Header string
	Open   bool
	Opened string // the day the books opened, the entry's date
	Done   string // the import already made, when it was
	// CSV and Name are the file a dry run read, carried to the import.
	CSV, Name string
	Errors    []string
	Rows      []openingRow
	Posts     []postRow // what the import posts over the automatic opening entry
	DryRun    bool
	Imported  bool
}

// openingRow is one line of the file.
type openingRow struct {
	Line                               int
	Account, Name, Fund, Debit, Credit string
	New                                bool // an account the import adds to the chart
}

// postRow is one line the import would post.
type postRow struct {
	Account, Fund, Debit, Credit, Memo string
}
