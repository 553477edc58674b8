package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The village's books: a double-entry general ledger by fund, kept in the
// same transaction as the event that moves the money (ledger format 5).
// Every command kind that moves money or a claim to money names its
// journal lines beside its descriptor (Descriptor.Books); Table.Apply posts
// them with the command, dated by its legal date, and refuses a command
// whose lines do not balance in total and in every fund, so nothing is
// ever half posted. Reports (the trial balance, the detail of an account)
// are questions asked of these postings, never numbers kept on the side.
//
// A fund's balance-sheet accounts are found by what they control (cash,
// receivables, refunds payable …). The chart may name them, with the
// village's own numbers and names; a fund that has none for a control gets
// the standard one the first time a posting needs it (standardAccounts),
// recorded in the chart like any other.
//
// The books open when the chart names its general fund: a ledger without
// a chart keeps no books (the rules still apply); the commands before then
// are carried by the opening entry (OpenBooks), which counts the bills
// then open as receivables against fund balance.

// BooksFormat is the ledger format from which the books are kept.
const BooksFormat = 5

// ReconciledFormat is the ledger format from which the books reach every
// money event and tie to the bank: bank statements are recorded and
// reconciled against cash by depository, the books' corrections to the
// first release's postings apply, and the budget's actuals are read from
// the books alone.
const ReconciledFormat = 6

// Control is what a balance-sheet account of a fund controls.
type Control string

// The controls the postings use.
const (
	ControlCash        Control = "cash"               // money in the village's depositories
	ControlUndeposited Control = "undeposited"        // receipts taken and not yet deposited
	ControlReceivable  Control = "receivable"         // village bills issued and not paid
	ControlRefunds     Control = "refunds_payable"    // overpayments owed back (§5.07(1))
	ControlDueToOthers Control = "due_to_governments" // taxes collected for other jurisdictions
	ControlPayable     Control = "vouchers_payable"   // claims allowed and not yet paid
	ControlFundBalance Control = "fund_balance"       // what the fund holds net of what it owes
	ControlInvoiced    Control = "invoices_payable"   // deliveries invoiced (§5.12(8)) whose claim is not yet allowed
	// The budgetary pair of §5.05 and §5.12(6): what orders, employments
	// and claims hold of their appropriations. They are kept on the balance
	// sheet only so that they balance by fund; they are no asset and no
	// fund balance a statement shows.
	ControlEncumbrances        Control = "encumbrances"             // budgetary: commitments outstanding
	ControlReserveEncumbrances Control = "reserve_for_encumbrances" // budgetary: fund balance reserved for them

	// The treasury's and the tax roll's.
	ControlInvestments   Control = "investments"     // securities bought with the fund's money (§5.09)
	ControlDueFromCounty Control = "due_from_county" // village bills certified to the tax roll, which the county collects (§5.10)

	// Taxes and assessments the village levies itself.
	ControlTaxReceivable         Control = "tax_receivable"         // room tax, fees and interest the returns owe (§5.22)
	ControlAssessmentsReceivable Control = "assessments_receivable" // special assessments levied and not yet paid (§5.14)
)

// standardAccount is the account a fund gets for a control it has none for.
type standardAccount struct {
	typ    AccountType
	number string
	name   string
}

var controls = map[Control]standardAccount{
	ControlCash:        {AccountAsset, "111", "Cash in depositories"},
	ControlUndeposited: {AccountAsset, "112", "Receipts not yet deposited"},
	ControlReceivable:  {AccountAsset, "121", "Village bills receivable"},
	ControlRefunds:     {AccountLiability, "212", "Refunds payable"},
	ControlDueToOthers: {AccountLiability, "221", "Due to other governments"},
	ControlPayable:     {AccountLiability, "211", "Vouchers payable"},
	ControlFundBalance: {AccountFundBalance, "341", "Unassigned fund balance"},
	ControlInvoiced:    {AccountLiability, "213", "Invoices payable, claims not yet allowed"},
	// Budgetary (§5.05, §5.12(6)).
	ControlEncumbrances:        {AccountAsset, "191", "Encumbrances outstanding (budgetary)"},
	ControlReserveEncumbrances: {AccountFundBalance, "342", "Reserve for encumbrances (budgetary)"},

	ControlInvestments:   {AccountAsset, "115", "Investments"},
	ControlDueFromCounty: {AccountAsset, "132", "Due from the county: bills on the tax roll"},

	ControlTaxReceivable:         {AccountAsset, "122", "Room tax receivable"},
	ControlAssessmentsReceivable: {AccountAsset, "123", "Special assessments receivable"},
}

// controlNames lists the controls of type t, for messages.
func controlNames(t AccountType) []string {
	var out []string
	for c, s := range controls {
		if s.typ == t {
			out = append(out, string(c))
		}
	}
	slices.Sort(out)
	return out
}

// unclassifiedRevenue is the number of the revenue line a fund gets for
// money the chart names no revenue account for.
const unclassifiedRevenue = "4999"

// BookLine is one line of a journal entry: a debit or a credit to one
// account of the chart. Section cites the ordinance the line follows.
type BookLine struct {
	Account string `json:"account"`
	Fund    string `json:"fund"`
	Debit   Money  `json:"debit,omitzero"`
	Credit  Money  `json:"credit,omitzero"`
	Section string `json:"section,omitempty"`
	Memo    string `json:"memo,omitempty"`
}

// BookEntry is the journal entry one command posted to the books.
type BookEntry struct {
	Index     uint64     `json:"index"`
	Date      Date       `json:"date"` // the command's legal date
	Kind      Kind       `json:"kind"`
	CommandID string     `json:"command_id"`
	Memo      string     `json:"memo,omitempty"`
	Lines     []BookLine `json:"lines"`
}

// AccountTotals are the debits and credits posted to an account.
type AccountTotals struct {
	Debit  Money `json:"debit"`
	Credit Money `json:"credit"`
}

// Collections of the books.
const (
	// CollectionBookEntries holds the journal entries, by "<date>/<index>"
	// (and "<date>/<index>.0002" … for more than one on a day, freeEntryID).
	CollectionBookEntries = "book-entries"
	// CollectionBookDays holds each account's totals of each day, by
	// "<account>/<date>": a balance as of a date sums its days.
	CollectionBookDays = "book-days"
	// CollectionBookMeta holds the books' own records ("opened").
	CollectionBookMeta = "book-meta"
	// CollectionBookYears holds each account's totals of each calendar
	// (fiscal) year, by "<account>/<year>", and "~years" the years that
	// have any: the close of a year reads them inside its transaction,
	// which cannot list the days (§5.05).
	CollectionBookYears = "book-years"
	// CollectionBookCommitments holds, by order, employment or claim, the
	// encumbrance the books hold for it (commitmentLines).
	CollectionBookCommitments = "book-commitments"
)

// booksOpened is the record of the day the books opened.
type booksOpened struct {
	On    Date   `json:"on"`
	Index uint64 `json:"index"`
}

// Lines gathers the journal lines of one command. An account is named by
// its code, or found by a fund's control (Control). The zero Lines is
// ready to use.
type Lines struct {
	lines []BookLine
	err   error
	tx    Tx
	chart *Chart
	on    Date // the entry's date when not the command's (DateOn)
	// params are the parameters in force (Env.Params), for the lines
	// that recompute a §5.10 account (a returned check); nil in the
	// zero Lines.
	params *Params
}

// newLines returns the lines of a posting inside tx.
func newLines(tx Tx) (*Lines, error) {
	ch, err := loadChart(tx)
	if err != nil {
		return nil, err
	}
	return &Lines{tx: tx, chart: ch}, nil
}

// Debit adds a debit of amount to account (a code of the chart).
func (l *Lines) Debit(account string, amount Money, section, memo string) {
	l.add(account, amount, Money{}, section, memo)
}

// Credit adds a credit of amount to account.
func (l *Lines) Credit(account string, amount Money, section, memo string) {
	l.add(account, Money{}, amount, section, memo)
}

func (l *Lines) add(account string, debit, credit Money, section, memo string) {
	if l.err != nil || (debit.IsZero() && credit.IsZero()) {
		return
	}
	if debit.IsNegative() || credit.IsNegative() {
		// A negative amount is the other side.
		debit, credit = credit.Neg(), debit.Neg()
	}
	a, ok := l.chart.Account(account)
	if !ok {
		l.err = Errorf(ECONFLICT, "", "The books have no account %s.", account)
		return
	}
	fund := a.Fund
	if a.Type == AccountFund {
		l.err = Errorf(EINVALID, "", "Account %s is a fund: postings go to its accounts.", account)
		return
	}
	l.lines = append(l.lines, BookLine{Account: account, Fund: fund, Debit: debit, Credit: credit, Section: section, Memo: memo})
}

// Control returns fund's account of control c, adding the standard one to
// the chart when the fund has none.
func (l *Lines) Control(fund string, c Control) string {
	if l.err != nil {
		return ""
	}
	for _, a := range l.chart.Accounts {
		if a.Fund == fund && a.Control == c && !a.Closed {
			return a.Code
		}
	}
	std, ok := controls[c]
	if !ok {
		l.err = fmt.Errorf("books: unknown control %q", c)
		return ""
	}
	return l.addStandard(ChartAccount{Code: fund + "-" + std.number, Type: std.typ, Name: std.name, Fund: fund, Control: c})
}

// unclassified returns the revenue line money of fund goes to when the
// chart names none: the fund's unclassified revenue, added when missing.
func (l *Lines) unclassified(fund string) string {
	code := fund + "-" + unclassifiedRevenue
	if _, ok := l.chart.Account(code); ok || l.err != nil {
		return code
	}
	return l.addStandard(ChartAccount{Code: code, Type: AccountRevenue, Name: "Revenue not yet classified", Fund: fund, Major: "Other revenue"})
}

func (l *Lines) addStandard(a ChartAccount) string {
	if !ValidCode(a.Code) {
		l.err = Errorf(EINVALID, sectionChart, "The books need an account %s for fund %s, which is no valid code: give the fund a shorter code.", a.Code, a.Fund)
		return ""
	}
	if _, taken := l.chart.Account(a.Code); taken {
		l.err = Errorf(ECONFLICT, sectionChart, "The books need fund %s's %s account and the code %s is taken: name the fund's %s account in the chart.", a.Fund, a.Control, a.Code, a.Control)
		return ""
	}
	l.chart.put(a)
	if err := l.tx.Put(CollectionChart, chartRecord, l.chart.Accounts); err != nil {
		l.err = err
	}
	return a.Code
}

// RevenueOf returns the revenue line a receipt of a village bill counts
// in: the bill's own, else the line collecting source, else the general
// fund's unclassified revenue.
func (l *Lines) RevenueOf(own, source string) string {
	code := l.chart.RevenueOf(own, source)
	if general := l.chart.GeneralFund(); code == general+"-"+unclassifiedRevenue {
		return l.unclassified(general)
	}
	return code
}

// DateOn dates the entry on day instead of the command's legal date: the
// close of a fiscal year is dated the year's last day (§5.05), whenever
// the treasurer closes it.
func (l *Lines) DateOn(day Date) { l.on = day }

// FundOf returns the fund of account code.
func (l *Lines) FundOf(code string) string {
	a, _ := l.chart.Account(code)
	return a.Fund
}

// BooksOpen reports whether the ledger keeps books in tx: from ledger
// format 5, once the chart names its general fund.
func BooksOpen(tx Tx) (bool, error) {
	if RulesFormat(tx) < BooksFormat {
		return false, nil
	}
	ch, err := loadChart(tx)
	if err != nil {
		return false, err
	}
	return ch.GeneralFund() != "", nil
}

// post checks that lines balance, in total and in every fund, and writes
// them as the journal entry of c, dated by its legal date.
func post(tx Tx, c Command, env Env, memo string, lines []BookLine) error {
	if len(lines) == 0 {
		return nil
	}
	funds := map[string][2]Money{}
	for _, p := range lines {
		t := funds[p.Fund]
		t[0], t[1] = t[0].Add(p.Debit), t[1].Add(p.Credit)
		funds[p.Fund] = t
	}
	var unbalanced []string
	for fund, t := range funds {
		if !t[0].Equal(t[1]) {
			unbalanced = append(unbalanced, fmt.Sprintf("fund %s: debits %s, credits %s", fund, dollarsIn(tx, t[0]), dollarsIn(tx, t[1])))
		}
	}
	if len(unbalanced) > 0 {
		slices.Sort(unbalanced)
		return Errorf(EINVALID, "", "This would not balance the books (%s); nothing was posted.", strings.Join(unbalanced, "; "))
	}
	on := c.At.Date
	if err := checkPeriodOpen(tx, c.Kind, on); err != nil {
		return err
	}
	e := BookEntry{Index: env.Index, Date: on, Kind: c.Kind, CommandID: c.ID, Memo: memo, Lines: lines}
	id, err := freeEntryID(tx, on, env.Index)
	if err != nil {
		return err
	}
	if err := tx.Put(CollectionBookEntries, id, e); err != nil {
		return err
	}
	days := map[string]AccountTotals{}
	var order []string
	for _, p := range lines {
		id := p.Account + "/" + on.String()
		t, ok := days[id]
		if !ok {
			if _, err := tx.Get(CollectionBookDays, id, &t); err != nil {
				return err
			}
			order = append(order, id)
		}
		t.Debit, t.Credit = t.Debit.Add(p.Debit), t.Credit.Add(p.Credit)
		days[id] = t
	}
	for _, id := range order {
		if err := tx.Put(CollectionBookDays, id, days[id]); err != nil {
			return err
		}
	}
	return postYearTotals(tx, on, lines)
}

// booksYears is the id of the record listing the years with totals.
const booksYears = "~years"

// postYearTotals adds lines, dated on, to their accounts' totals of on's
// year, so the close of a year (§5.05) finds what each revenue and
// expenditure account holds without listing the days.
func postYearTotals(tx Tx, on Date, lines []BookLine) error {
	year := on.Year()
	var years []int
	if _, err := tx.Get(CollectionBookYears, booksYears, &years); err != nil {
		return err
	}
	if !slices.Contains(years, year) {
		years = append(years, year)
		slices.Sort(years)
		if err := tx.Put(CollectionBookYears, booksYears, years); err != nil {
			return err
		}
	}
	totals := map[string]AccountTotals{}
	var order []string
	for _, p := range lines {
		t, ok := totals[p.Account]
		if !ok {
			if _, err := tx.Get(CollectionBookYears, bookYearID(p.Account, year), &t); err != nil {
				return err
			}
			order = append(order, p.Account)
		}
		t.Debit, t.Credit = t.Debit.Add(p.Debit), t.Credit.Add(p.Credit)
		totals[p.Account] = t
	}
	for _, a := range order {
		if err := tx.Put(CollectionBookYears, bookYearID(a, year), totals[a]); err != nil {
			return err
		}
	}
	return nil
}

func bookYearID(account string, year int) string { return fmt.Sprintf("%s/%04d", account, year) }

// totalsThrough returns account's debits and credits posted in the years
// to year, inclusive, inside tx.
func totalsThrough(tx Tx, account string, year int) (AccountTotals, error) {
	var years []int
	if _, err := tx.Get(CollectionBookYears, booksYears, &years); err != nil {
		return AccountTotals{}, err
	}
	var sum AccountTotals
	for _, y := range years {
		if y > year {
			break
		}
		var t AccountTotals
		if _, err := tx.Get(CollectionBookYears, bookYearID(account, y), &t); err != nil {
			return AccountTotals{}, err
		}
		sum.Debit, sum.Credit = sum.Debit.Add(t.Debit), sum.Credit.Add(t.Credit)
	}
	return sum, nil
}

func bookEntryID(on Date, index uint64) string { return fmt.Sprintf("%s/%012d", on, index) }

// freeEntryID returns the id of the next entry dated on at log index
// index: bookEntryID for the first, then that id with ".0002", ".0003" …
// for the next, which sort after it and before the next index's. One log
// entry posts more than one journal entry on a day only when it applies
// several commands: a demo's history (seeddemo.go), whose steps all share
// the seed's index. Without the numbering a later step's entry would
// replace an earlier one's while the days' totals kept both.
func freeEntryID(tx Tx, on Date, index uint64) (string, error) {
	id := bookEntryID(on, index)
	for n := 2; ; n++ {
		taken, err := has(tx, CollectionBookEntries, id)
		if err != nil || !taken {
			return id, err
		}
		id = fmt.Sprintf("%s.%04d", bookEntryID(on, index), n)
	}
}

// recordChecker is a Tx that tells whether a record exists without
// decoding it (the FSM's).
type recordChecker interface {
	Has(collection, id string) (bool, error)
}

// has reports whether record id of collection exists in tx.
func has(tx Tx, collection, id string) (bool, error) {
	if rc, ok := tx.(recordChecker); ok {
		return rc.Has(collection, id)
	}
	var raw json.RawMessage
	return tx.Get(collection, id, &raw)
}

// postBooks posts the journal lines of c's kind, when the ledger keeps
// books (Table.Apply).
func postBooks(tx Tx, d *Descriptor, c Command, env Env, res Result) error {
	if d.Books == nil {
		return nil
	}
	if RulesFormat(tx) < BooksFormat {
		return nil
	}
	// One read of the chart serves the check that the books are open and
	// every line of the entry: it is on every payment's path.
	l, err := newLines(tx)
	if err != nil || l.chart.GeneralFund() == "" {
		return err
	}
	l.params = env.Params
	memo := d.Books(l, tx, c, res)
	if l.err != nil {
		return l.err
	}
	if !l.on.IsZero() {
		c.At.Date = l.on
	}
	if err := post(tx, c, env, memo, l.lines); err != nil {
		return err
	}
	if res.Receipt != nil && res.Receipt.Tender == Card {
		// The processor settles the day's card receipts (card_settlement).
		return noteCardReceipt(tx, l.chart, c.At.Date, l.lines)
	}
	return nil
}

// receiptLines are the lines of a receipt the ledger posted for money
// taken (a bill paid at the kiosk or the window, a fee): the money into
// receipts not yet deposited, out of the bills it pays (their principal)
// and into revenue (interest and penalty, §5.10), an overpayment owed back
// (§5.07(1)). A receipt of several bills posts each bill's part.
func receiptLines(l *Lines, tx Tx, rc *Receipt, source string) {
	if rc == nil || rc.Amount.IsZero() {
		return
	}
	if len(rc.Lines) > 0 {
		for _, part := range rc.Lines {
			one := *rc
			one.BillID, one.Amount, one.Allocation, one.Lines = part.BillID, part.Amount, part.Allocation, nil
			receiptLines(l, tx, &one, source)
		}
		return
	}
	own := ""
	if rc.BillID != "" {
		b, ok, err := tx.Bill(rc.BillID)
		if err != nil {
			l.err = err
			return
		}
		if !ok {
			// A receipt for something other than a village bill (a fee,
			// a return) is revenue of its source.
			rev := l.RevenueOf("", source)
			fund := l.FundOf(rev)
			l.Debit(l.Control(fund, ControlUndeposited), rc.Amount, "", "received "+rc.Number)
			l.Credit(rev, rc.Amount, "", rc.Number)
			return
		}
		own = b.Revenue
	}
	rev := l.RevenueOf(own, source)
	fund := l.FundOf(rev)
	al := rc.Allocation
	l.Debit(l.Control(fund, ControlUndeposited), rc.Amount, "§5.10", "received "+rc.Number)
	if rc.BillID == "" {
		l.Credit(rev, rc.Amount, "", rc.Number)
		return
	}
	l.Credit(l.Control(fund, ControlReceivable), al.Principal, "§5.10", "principal of "+rc.BillID)
	l.Credit(rev, al.Interest.Add(al.Penalty), "§5.10", "interest and penalty on "+rc.BillID)
	l.Credit(l.Control(fund, ControlRefunds), al.Overpayment, "§5.07(1)", "overpayment of "+rc.BillID+", to be refunded")
	if rest := rc.Amount.Sub(al.Principal).Sub(al.Interest).Sub(al.Penalty).Sub(al.Overpayment); !rest.IsZero() {
		l.Credit(rev, rest, "", rc.Number)
	}
}

// billLines are the lines of village bills issued (read back by id after
// the rule made them): each bill's principal into the receivables of its
// fund and the revenue it is for (§5.10).
func billLines(l *Lines, tx Tx, ids []string) {
	for _, id := range ids {
		b, ok, err := tx.Bill(id)
		if err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("books: bill %s was not made", id)
			}
			l.err = err
			return
		}
		rev := l.RevenueOf(b.Revenue, SourceBills)
		fund := l.FundOf(rev)
		l.Debit(l.Control(fund, ControlReceivable), b.Principal, "§5.10", "bill "+b.ID)
		l.Credit(rev, b.Principal, "§5.10", "bill "+b.ID)
	}
}

// OpenBooks posts the opening entry of the books, on the day they open:
// the principal still owed on every open bill as receivables of its fund,
// against the fund's balance. The commands before it are in the ledger
// and its journal; from it on, each posts its own lines. It does nothing
// when the books are not open or were opened before.
func OpenBooks(tx Tx, c Command, env Env) error {
	open, err := BooksOpen(tx)
	if err != nil || !open {
		return err
	}
	var done booksOpened
	if ok, err := tx.Get(CollectionBookMeta, "opened", &done); err != nil || ok {
		return err
	}
	l, err := newLines(tx)
	if err != nil {
		return err
	}
	lister, ok := tx.(interface {
		EachBill(fn func(Bill) error) error
	})
	if ok {
		owed := map[string]Money{}
		var revs []string
		if err := lister.EachBill(func(b Bill) error {
			if b.Certified != nil {
				return nil // on the tax roll: the county collects it
			}
			principal := b.unpaidPrincipal()
			if !principal.IsPositive() {
				return nil
			}
			rev := l.RevenueOf(b.Revenue, SourceBills)
			if _, seen := owed[rev]; !seen {
				revs = append(revs, rev)
			}
			owed[rev] = owed[rev].Add(principal)
			return nil
		}); err != nil {
			return err
		}
		for _, rev := range revs {
			fund := l.FundOf(rev)
			l.Debit(l.Control(fund, ControlReceivable), owed[rev], "§5.10", "bills open when the books opened, of "+rev)
			l.Credit(l.Control(fund, ControlFundBalance), owed[rev], "", "bills open when the books opened, of "+rev)
		}
	}
	if l.err != nil {
		return l.err
	}
	if err := post(tx, c, env, "opening entry", l.lines); err != nil {
		return err
	}
	return tx.Put(CollectionBookMeta, "opened", booksOpened{On: c.At.Date, Index: env.Index})
}

// TrialBalanceRow is one account's balance in the trial balance.
type TrialBalanceRow struct {
	Account ChartAccount
	Debit   Money // total debits to the date
	Credit  Money // total credits to the date
}

// Balance is the account's balance on its normal side: debits less
// credits for assets and expenditures, credits less debits for the rest.
func (r TrialBalanceRow) Balance() Money {
	switch r.Account.Type {
	case AccountAsset, AccountExpenditure:
		return r.Debit.Sub(r.Credit)
	}
	return r.Credit.Sub(r.Debit)
}

// TrialBalance is every account's debits and credits to a date.
type TrialBalance struct {
	AsOf   Date
	Rows   []TrialBalanceRow // by fund, then code
	Debit  Money
	Credit Money
}

// Balanced reports whether debits equal credits.
func (tb TrialBalance) Balanced() bool { return tb.Debit.Equal(tb.Credit) }

// TrialBalance returns the books' trial balance as of the end of asOf:
// each account's totals of the years before asOf's (CollectionBookYears),
// and of asOf's year its days to asOf (CollectionBookDays, read by the
// account's prefix), so a trial balance reads one year's days whatever
// the books' age.
func (x Reads) TrialBalance(asOf Date) (TrialBalance, error) {
	ch, err := x.Chart()
	if err != nil {
		return TrialBalance{}, err
	}
	totals := map[string]AccountTotals{}
	add := func(code string, raw []byte) error {
		var t AccountTotals
		if err := json.Unmarshal(raw, &t); err != nil {
			return err
		}
		sum := totals[code]
		sum.Debit, sum.Credit = sum.Debit.Add(t.Debit), sum.Credit.Add(t.Credit)
		totals[code] = sum
		return nil
	}
	whole := asOf == NewDate(asOf.Year(), time.December, 31)
	var current []string // accounts with postings in asOf's year
	err = x.r.List(CollectionBookYears, "", func(id string, raw []byte) error {
		code, year, ok := strings.Cut(id, "/")
		if !ok {
			return nil // the list of years
		}
		y, err := strconv.Atoi(year)
		switch {
		case err != nil || y > asOf.Year():
			return nil
		case y < asOf.Year() || whole:
			return add(code, raw)
		}
		current = append(current, code)
		return nil
	})
	if err != nil {
		return TrialBalance{}, err
	}
	for _, code := range current {
		err := x.r.List(CollectionBookDays, fmt.Sprintf("%s/%04d-", code, asOf.Year()), func(id string, raw []byte) error {
			_, day, _ := strings.Cut(id, "/")
			if d, err := ParseDate(day); err != nil || d.After(asOf) {
				return nil
			}
			return add(code, raw)
		})
		if err != nil {
			return TrialBalance{}, err
		}
	}
	tb := TrialBalance{AsOf: asOf}
	for code, t := range totals {
		a, ok := ch.Account(code)
		if !ok {
			a = ChartAccount{Code: code, Name: "(not in the chart)"}
		}
		tb.Rows = append(tb.Rows, TrialBalanceRow{Account: a, Debit: t.Debit, Credit: t.Credit})
		tb.Debit, tb.Credit = tb.Debit.Add(t.Debit), tb.Credit.Add(t.Credit)
	}
	slices.SortFunc(tb.Rows, func(a, b TrialBalanceRow) int {
		if c := strings.Compare(a.Account.Fund, b.Account.Fund); c != 0 {
			return c
		}
		return strings.Compare(a.Account.Code, b.Account.Code)
	})
	return tb, nil
}

// BookEntries returns the journal entries of the books dated from from to
// to (inclusive), in date and log order; account, when set, keeps the
// entries with a line to it. Entries are kept by date ("<date>/<index>"),
// so it reads those days only: from from to the first entry after to.
func (x Reads) BookEntries(from, to Date, account string) ([]BookEntry, error) {
	out, _, err := x.bookEntries(from, to, account, from.String(), 0)
	return out, err
}

// BookEntriesBy calls fn with the entries BookEntries returns, in its
// order, at most n at a time: each part is read in a read of its own and
// fn is called between reads, so that an export writing them to a slow
// reader holds neither a read of the ledger open (a snapshot restore
// waits for reads to end) nor more than n entries in memory.
func (x Reads) BookEntriesBy(from, to Date, account string, n int, fn func([]BookEntry) error) error {
	next := from.String()
	for {
		part, more, err := x.bookEntries(from, to, account, next, max(n, 1))
		if err != nil {
			return err
		}
		if len(part) > 0 {
			if err := fn(part); err != nil {
				return err
			}
		}
		if more == "" {
			return nil
		}
		next = more
	}
}

// bookEntries reads the entries BookEntries returns whose ids are not
// before start, at most n of them when n > 0. next is where the entries
// after them start, "" when there are none.
func (x Reads) bookEntries(from, to Date, account, start string, n int) (out []BookEntry, next string, err error) {
	err = listFrom(x.r, CollectionBookEntries, "", start, func(id string, raw []byte) error {
		day, _, _ := strings.Cut(id, "/")
		d, err := ParseDate(day)
		switch {
		case err != nil || d.Before(from):
			return nil
		case d.After(to):
			// Ids begin with their date as YYYY-MM-DD, so every id
			// after this one is dated after to as well.
			return errStopList
		}
		if n > 0 && len(out) == n {
			next = id
			return errStopList
		}
		var e BookEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		if account != "" && !slices.ContainsFunc(e.Lines, func(p BookLine) bool { return p.Account == account }) {
			return nil
		}
		out = append(out, e)
		return nil
	})
	if errors.Is(err, errStopList) {
		err = nil
	}
	return out, next, err
}

// The close of a period. The treasurer closes the books through a month's
// last day (books_period, booksperiod.go); from then no entry may be dated
// on or before that day, whichever kind posts it, so that the figures of a
// closed month, once reported, stay as they were reported. A correction is
// a new entry, dated in the open period (books_adjust), as in any ledger
// whose transfers are immutable. The close of the latest period may be
// reopened, with a reason, and the record keeps every close and reopening.

// booksClosedRecord is the id, in CollectionBookMeta, of the periods
// closed (booksClosed).
const booksClosedRecord = "closed"

// PeriodClose is one close of the books through a month's last day, and
// its reopening when it was reopened.
type PeriodClose struct {
	Through  Date          `json:"through"` // the last day closed
	On       Date          `json:"on"`      // the day it was closed
	By       string        `json:"by"`
	Index    uint64        `json:"index"`
	Reopened *PeriodReopen `json:"reopened,omitempty"`
}

// PeriodReopen is the reopening of a closed period.
type PeriodReopen struct {
	On     Date   `json:"on"`
	By     string `json:"by"`
	Reason string `json:"reason"`
	Index  uint64 `json:"index"`
}

// booksClosed is every close of the books, in the order they were made.
type booksClosed struct {
	Closes []PeriodClose `json:"closes"`
}

// standing returns the index in Closes of the latest close not reopened,
// -1 when there is none. Closes only move forward and a reopening undoes
// the latest, so it is also the latest day closed.
func (b booksClosed) standing() int {
	for i := len(b.Closes) - 1; i >= 0; i-- {
		if b.Closes[i].Reopened == nil {
			return i
		}
	}
	return -1
}

// through returns the day the books are closed through, zero when no
// period is closed.
func (b booksClosed) through() Date {
	if i := b.standing(); i >= 0 {
		return b.Closes[i].Through
	}
	return Date{}
}

func loadBooksClosed(tx Tx) (booksClosed, error) {
	var b booksClosed
	_, err := tx.Get(CollectionBookMeta, booksClosedRecord, &b)
	return b, err
}

// checkPeriodOpen refuses an entry of kind k dated on when the books are
// closed through on or a later day. The close of a fiscal year (§5.05) is
// the one exception, and a narrow one: its entry is dated December 31
// whenever it is made, and the books may already be closed through that
// very day, because the treasurer closes December with the other months
// and the year once its last claims are in. It may post into the close
// of its own December 31, never into a close through a later day
// (reopen the later months first). That closing entry only moves each
// revenue and expenditure account of the year to its fund's balance: the
// figures of December as reported before the year's close stay the same
// for every balance-sheet account but fund balance.
func checkPeriodOpen(tx Tx, k Kind, on Date) error {
	b, err := loadBooksClosed(tx)
	if err != nil {
		return err
	}
	through := b.through()
	switch {
	case through.IsZero() || on.After(through):
		return nil
	case k == KindYearEndClose && on == through:
		return nil
	case k == KindBooksAdjust:
		return Errorf(ECONFLICT, "", "The books are closed through %s; date the adjusting entry after that day, or reopen the period first.", through)
	}
	return Errorf(ECONFLICT, "", "The books are closed through %s; post a dated adjusting entry instead.", through)
}

// BooksStatus is the state of the books as a whole: the day they opened,
// the periods closed, and the opening balances imported.
type BooksStatus struct {
	// Open: the chart names its general fund and the books opened on
	// Opened, with the automatic opening entry OpeningEntry (nil when
	// it had no line: no bill was open).
	Open         bool
	Opened       Date
	OpeningEntry *BookEntry
	// ClosedThrough is the day the books are closed through, zero when
	// no period is closed; Closes every close, in order.
	ClosedThrough Date
	Closes        []PeriodClose
	// Balances is the import of the opening trial balance, nil before it.
	Balances *OpeningBalances
}

// BooksStatus returns the state of the books.
func (x Reads) BooksStatus() (BooksStatus, error) {
	var st BooksStatus
	opened, ok, err := get[booksOpened](x.r, CollectionBookMeta, "opened")
	if err != nil || !ok {
		return st, err
	}
	st.Open, st.Opened = true, opened.On
	e, ok, err := get[BookEntry](x.r, CollectionBookEntries, bookEntryID(opened.On, opened.Index))
	if err != nil {
		return st, err
	}
	if ok {
		st.OpeningEntry = &e
	}
	closed, _, err := get[booksClosed](x.r, CollectionBookMeta, booksClosedRecord)
	if err != nil {
		return st, err
	}
	st.Closes, st.ClosedThrough = closed.Closes, closed.through()
	bal, ok, err := get[OpeningBalances](x.r, CollectionBookMeta, openingBalancesRecord)
	if err != nil {
		return st, err
	}
	if ok {
		st.Balances = &bal
	}
	return st, nil
}
