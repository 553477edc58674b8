package budget

import (
	"slices"
	"strconv"
)

// The view models of the budget's pages: handlers fill them with text
// already formatted; the templ components only lay them out.

type option struct {
	Value, Label string
	Selected     bool
}

type accountForm struct {
	Code, Type, Name, Fund, Unit, Major string
	General, Reserve, Closed            bool
	Sources                             []string
	Error                               string
}

type accountView struct {
	Code, Type, Name, Fund, Unit, Major string
	General, Reserve, Closed            bool
	Sources, Changed, ChangedBy         string
}

type chartView struct {
	Accounts []accountView
	Form     accountForm
	Types    []option
	Sources  []string
	Saved    string
	CanEdit  bool
}

type chartImport struct {
	Columns  string
	File     string
	Errors   []string
	Rows     []accountView
	DryRun   bool
	Imported bool
}

type memberForm struct {
	ID, Name, Seat, From, To string
	Error                    string
}

type memberView struct {
	ID, Name, Seat, From, To string
	Sitting                  bool
}

type boardView struct {
	Members        []memberView
	Form           memberForm
	CanEdit        bool
	Seats, Sitting int
}

type yearRow struct {
	Year                int
	URL, Status, Closed string
	Version, Amendments int
}

type yearsView struct {
	Years        []yearRow
	Preparing    int
	EstimatesDue string
}

type lineView struct {
	Code, Name, Unit, Major            string
	Reserve, Continuing                bool
	Purpose                            string
	Preceding, Current, Rest, RestFrom string
	InEffect, Proposed, Estimate       string
}

type debtView struct{ Description, Outstanding, Due string }

type fundView struct {
	Fund, Beginning, Revenue, Sources, Expenditure, Uses, Ending, Surplus string
}

type sectionView struct{ Title, Body string }

type noticeView struct{ What, Published, Newspaper, By string }

type memberVote struct{ ID, Name, Vote string }

type changeView struct {
	Account, Change, Purpose string
	Continuing               bool
}

type voteView struct {
	Action, On                           string
	Passed                               bool
	Ayes, Nays, Present, Board, Required int
	Amendment                            int
	Purpose                              string
	Members                              []memberVote
	Changes                              []changeView
	NoticeBy                             string
	Noticed                              bool
}

type versionRow struct {
	Version                  int
	Status, Changed, By, URL string
}

type hearingForm struct{ On string }

type summaryRow struct {
	Label, Preceding, InEffect, Proposed, Change string
	PrecedingEnd, InEffectEnd, ProposedEnd       string
}

type summaryView struct {
	Year                                            int
	Expenditures, Revenues, Sources, Uses, Balances []summaryRow
	TotalExpend, TotalRevenue                       summaryRow
}

type budgetView struct {
	Year                     int
	Exists, Adopted          bool
	Status, AdoptedOn, Today string
	Version, Amendments      int
	CanPropose, CanMeet      bool
	Error                    string

	PrecedingYear, CurrentYear   int
	PrecedingFrom, CurrentFrom   string
	ActualMonths                 int
	ActualsThrough, Unclassified string
	FewMonths                    bool
	Revenues, Expenditures       []lineView
	Debts                        []debtView
	Funds                        []fundView
	Sections                     []sectionView
	Summary                      summaryView

	Notices      []noticeView
	Hearing      string
	HearingNotes string
	HearingForm  hearingForm
	Votes        []voteView
	Versions     []versionRow
}

type trackRow struct {
	Unit, Name, Type, Filed, By string
	Version                     int
	Late                        bool
}

type estimateLine struct {
	Account, Name, Type, Prior, Current, Next string
}

type estimateForm struct {
	Unit, Notes string
	Lines       []estimateLine
	Error       string
}

type estimatesView struct {
	Year        int
	Due, Filed  string
	Units       []trackRow
	UnitOptions []option
	Form        estimateForm
	CanFile     bool
}

type proposalLine struct {
	Account, Name, Type, Unit, Estimate, Amount, Purpose string
	Continuing                                           bool
}

type debtForm struct{ Description, Outstanding, Due string }

type financingForm struct{ Description, Fund, Kind, Amount string }

type balanceForm struct{ Fund, Name, Beginning string }

type proposalForm struct {
	Year      int
	Lines     []proposalLine
	Debts     []debtForm
	Financing []financingForm
	Balances  []balanceForm
	Sections  []sectionView
	Error     string
}

type versionView struct {
	Year, Version       int
	Status, Changed, By string
	Lines               []lineView
}

type voteForm struct {
	Year                         int
	Action, On, Present, Purpose string
	Board                        int
	Members                      []memberVote
	Changes                      []changeView
	Error, Outcome               string
}

type summaryPageView struct {
	Year                              int
	Summary                           summaryView
	Status                            string
	Hearing, HearingLong, Time, Place string
	PublishBy                         string
	PublishLate                       bool
	Published                         []string
	PDF                               string
}

type appropriationRow struct {
	Line, Name, Unit, URL                   string
	Amount, Expended, Encumbered, Available string
	Over, Continuing, Closed                bool
}

type expenseForm struct {
	Line, On, Amount, Payee, Description, Against string
	Error                                         string
}

type appropriationsView struct {
	Year      int
	Closed    bool
	ClosedOn  string
	Lines     []appropriationRow
	Total     appropriationRow
	CanCharge bool
	// ChargePayroll offers the treasurer's payroll expense: only on a
	// ledger below format 6, from which the payroll is a claim.
	ChargePayroll bool
	LineOptions   []option
	Form          expenseForm
}

type chargeView struct{ Ref, Type, On, Amount, Description, URL string }

type appropriationView struct {
	Year                                          int
	Line, Name, Unit, Fund                        string
	Adopted, Amended, Carried, Amount             string
	Expended, Encumbered, Available               string
	Continuing, Closed, CanEnd                    bool
	Purpose, Ended, Lapsed, CarriedForward, Today string
	Charges                                       []chargeView
}

type closeLine struct {
	Line, Available, Encumbered, Lapsed, Carried string
	Continuing                                   bool
	Orders                                       []string
}

type closeView struct {
	Year                                     int
	Closed, Early, CanClose                  bool
	ClosedOn, ClosedBy, GeneralFund, LastDay string
	Lapsed, Carried, Error                   string
	Lines                                    []closeLine
}

func itoa(n int) string { return strconv.Itoa(n) }

func contains(xs []string, x string) bool { return slices.Contains(xs, x) }

// fileOf names the imported file in a sentence: " from chart.csv".
func fileOf(name string) string {
	if name == "" {
		return ""
	}
	return " from " + name
}

// endedOf says how a continuing appropriation ended: " (accomplished on …)".
func endedOf(ended string) string {
	if ended == "" {
		return ""
	}
	return " (" + ended + ")"
}
