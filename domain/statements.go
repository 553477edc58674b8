package domain

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The statements the auditors and the Department of Revenue ask of the
// books: the balance sheet of each fund as of a day, the statement of a
// fund's revenues, expenditures and changes in fund balance for a fiscal
// year with its budget beside it, and the year's revenues and
// expenditures by the Department's classification (Form CT). They are
// questions asked of the postings (books.go) and of the budget
// (budgetcycle.go, appropriation.go), never figures kept on the side, and
// they post nothing.
//
// A year's activity is what its postings did to an account, dated in the
// year, less the close of that year (§5.05): the close brings every
// revenue and expenditure account to zero into fund balance on December
// 31, and a statement of the year shows what was earned and spent before
// it.

// Sections of the balance sheet, in the order it shows them. Deferred
// outflows of resources have no account type in the chart yet: the
// balance sheet shows their section empty.
const (
	SectionAssets           = "assets"
	SectionDeferredOutflows = "deferred_outflows"
	SectionLiabilities      = "liabilities"
	SectionDeferredInflows  = "deferred_inflows"
	SectionFundBalance      = "fund_balance"
)

// The rows of the balance sheet that are no account: revenues less
// expenditures not yet closed into fund balance (§5.05).
const (
	RowNetChangeUnclosed = "net_change_unclosed" // this year's, to the day
	RowEarlierUnclosed   = "earlier_unclosed"    // of years before it that were not closed
)

// BalanceSheet is the financial position of each fund as of the end of a
// day, the funds in columns: its assets, deferred outflows, liabilities,
// deferred inflows and fund balance. The budgetary pair (encumbrances and
// the reserve for them, §5.05, §5.12(6)) is left out: it balances itself
// in every fund and is no asset and no fund balance. Fund balance
// includes the revenues less expenditures not yet closed, in rows of
// their own, so that in every fund assets + deferred outflows =
// liabilities + deferred inflows + fund balance.
type BalanceSheet struct {
	AsOf Date
	// Funds are the funds with postings by AsOf, the general fund first,
	// then by code: the columns of every row.
	Funds    []string
	Sections []BalanceSection
	// Positions are each fund's section totals, in the order of Funds.
	Positions []FundPosition
	// Total is the sum of all funds.
	Total FundPosition
}

// BalanceSection is one section of the balance sheet.
type BalanceSection struct {
	Key   string // SectionAssets …
	Title string // "Assets"
	Rows  []BalanceRow
	// Amounts are the section's totals by fund, in the order of Funds;
	// Total is their sum.
	Amounts []Money
	Total   Money
}

// BalanceRow is one line of the balance sheet: the accounts of the funds
// that control one thing (cash, receivables …), or that share a name when
// they control nothing, or one of the rows of revenues less expenditures
// not yet closed (Row).
type BalanceRow struct {
	Caption  string
	Control  Control  // the control, when the row is one
	Row      string   // RowNetChangeUnclosed or RowEarlierUnclosed, else ""
	Accounts []string // the accounts summed, by code
	Amounts  []Money  // by fund, in the order of Funds, on the section's side
	Total    Money
}

// FundPosition is a fund's totals in the balance sheet.
type FundPosition struct {
	Fund             string
	Assets           Money
	DeferredOutflows Money
	Liabilities      Money
	DeferredInflows  Money
	FundBalance      Money
}

// Balanced reports whether assets and deferred outflows equal
// liabilities, deferred inflows and fund balance.
func (p FundPosition) Balanced() bool { return p.Difference().IsZero() }

// Difference is assets and deferred outflows less liabilities, deferred
// inflows and fund balance: zero when the fund balances.
func (p FundPosition) Difference() Money {
	return p.Assets.Add(p.DeferredOutflows).Sub(p.Liabilities).Sub(p.DeferredInflows).Sub(p.FundBalance)
}

// Balanced reports whether every fund balances.
func (b BalanceSheet) Balanced() bool {
	for _, p := range b.Positions {
		if !p.Balanced() {
			return false
		}
	}
	return true
}

// Position returns fund's totals; ok is false when the balance sheet has
// no column for it.
func (b BalanceSheet) Position(fund string) (FundPosition, bool) {
	i := slices.Index(b.Funds, fund)
	if i < 0 {
		return FundPosition{Fund: fund}, false
	}
	return b.Positions[i], true
}

// Budgetary reports whether c is one of the budgetary pair the statements
// leave out (§5.05, §5.12(6)).
func (c Control) Budgetary() bool {
	return c == ControlEncumbrances || c == ControlReserveEncumbrances
}

// sectionOf is the balance-sheet section of an account type, "" for the
// accounts that are not on it.
func sectionOf(t AccountType) string {
	switch t {
	case AccountAsset:
		return SectionAssets
	case AccountLiability:
		return SectionLiabilities
	case AccountDeferredInflow:
		return SectionDeferredInflows
	case AccountFundBalance:
		return SectionFundBalance
	}
	return ""
}

// fundOrder sorts fund codes for columns: the general fund first, then by
// code.
func fundOrder(ch Chart, funds []string) {
	general := ch.GeneralFund()
	slices.SortFunc(funds, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == general:
			return -1
		case b == general:
			return 1
		}
		return strings.Compare(a, b)
	})
}

// unclosed returns, by fund, the revenues less expenditures that the
// trial balance still holds in its revenue and expenditure accounts: what
// no close of a year has yet brought into fund balance.
func unclosed(tb TrialBalance) map[string]Money {
	out := map[string]Money{}
	for _, r := range tb.Rows {
		if r.Account.Type.Line() {
			out[r.Account.Fund] = out[r.Account.Fund].Add(r.Credit).Sub(r.Debit)
		}
	}
	return out
}

// BalanceSheet returns each fund's balance sheet as of the end of asOf,
// from the trial balance of that day. The revenues less expenditures not
// yet closed are split in two rows: those of asOf's year, and those of
// earlier years that were not closed (shown only when there are any).
func (x Reads) BalanceSheet(asOf Date) (BalanceSheet, error) {
	ch, err := x.Chart()
	if err != nil {
		return BalanceSheet{}, err
	}
	tb, err := x.TrialBalance(asOf)
	if err != nil {
		return BalanceSheet{}, err
	}
	before, err := x.TrialBalance(NewDate(asOf.Year()-1, 12, 31))
	if err != nil {
		return BalanceSheet{}, err
	}
	now, earlier := unclosed(tb), unclosed(before)

	type key struct{ section, caption string }
	type cell struct {
		row     BalanceRow
		byFund  map[string]Money
		ordinal string // sorts the rows of a section
	}
	cells := map[key]*cell{}
	var keys []key
	var funds []string
	addFund := func(f string) {
		if f != "" && !slices.Contains(funds, f) {
			funds = append(funds, f)
		}
	}
	for _, r := range tb.Rows {
		a := r.Account
		if a.Type.Line() {
			addFund(a.Fund)
			continue
		}
		sec := sectionOf(a.Type)
		if sec == "" || a.Control.Budgetary() {
			continue
		}
		addFund(a.Fund)
		k := key{sec, a.Name}
		ordinal := "2 " + a.Name
		if std, ok := controls[a.Control]; ok && a.Control != "" {
			k, ordinal = key{sec, string(a.Control)}, "1 "+std.number
		}
		c, ok := cells[k]
		if !ok {
			caption := a.Name
			if std, ok := controls[a.Control]; ok && a.Control != "" {
				caption = std.name
			}
			c = &cell{row: BalanceRow{Caption: caption, Control: a.Control}, byFund: map[string]Money{}, ordinal: ordinal}
			cells[k] = c
			keys = append(keys, k)
		}
		c.row.Accounts = append(c.row.Accounts, a.Code)
		c.byFund[a.Fund] = c.byFund[a.Fund].Add(r.Balance())
	}
	for f := range earlier {
		addFund(f)
	}
	fundOrder(ch, funds)

	bs := BalanceSheet{AsOf: asOf, Funds: funds}
	titles := []struct{ key, title string }{
		{SectionAssets, "Assets"}, {SectionDeferredOutflows, "Deferred outflows of resources"},
		{SectionLiabilities, "Liabilities"}, {SectionDeferredInflows, "Deferred inflows of resources"},
		{SectionFundBalance, "Fund balance"},
	}
	row := func(r BalanceRow, byFund map[string]Money) BalanceRow {
		r.Amounts = make([]Money, len(funds))
		for i, f := range funds {
			r.Amounts[i] = byFund[f]
			r.Total = r.Total.Add(byFund[f])
		}
		slices.Sort(r.Accounts)
		return r
	}
	for _, t := range titles {
		s := BalanceSection{Key: t.key, Title: t.title, Amounts: make([]Money, len(funds))}
		var mine []*cell
		for _, k := range keys {
			if k.section == t.key {
				mine = append(mine, cells[k])
			}
		}
		slices.SortFunc(mine, func(a, b *cell) int { return cmp.Compare(a.ordinal, b.ordinal) })
		for _, c := range mine {
			s.Rows = append(s.Rows, row(c.row, c.byFund))
		}
		if t.key == SectionFundBalance {
			thisYear := map[string]Money{}
			hasEarlier := false
			for _, f := range funds {
				thisYear[f] = now[f].Sub(earlier[f])
				hasEarlier = hasEarlier || !earlier[f].IsZero()
			}
			if hasEarlier {
				s.Rows = append(s.Rows, row(BalanceRow{Caption: fmt.Sprintf("Revenues less expenditures of years before %d, not yet closed", asOf.Year()), Row: RowEarlierUnclosed}, earlier))
			}
			s.Rows = append(s.Rows, row(BalanceRow{Caption: "Net change this year, not yet closed", Row: RowNetChangeUnclosed}, thisYear))
		}
		for _, r := range s.Rows {
			for i := range funds {
				s.Amounts[i] = s.Amounts[i].Add(r.Amounts[i])
			}
			s.Total = s.Total.Add(r.Total)
		}
		bs.Sections = append(bs.Sections, s)
	}
	bs.Positions = make([]FundPosition, len(funds))
	for i, f := range funds {
		p := FundPosition{Fund: f}
		for _, s := range bs.Sections {
			p.set(s.Key, s.Amounts[i])
		}
		bs.Positions[i] = p
	}
	for _, s := range bs.Sections {
		bs.Total.set(s.Key, s.Total)
	}
	return bs, nil
}

func (p *FundPosition) set(section string, m Money) {
	switch section {
	case SectionAssets:
		p.Assets = m
	case SectionDeferredOutflows:
		p.DeferredOutflows = m
	case SectionLiabilities:
		p.Liabilities = m
	case SectionDeferredInflows:
		p.DeferredInflows = m
	case SectionFundBalance:
		p.FundBalance = m
	}
}

// yearActivity returns what the postings dated in year did to each
// account of accounts, less the close of that year (§5.05): the year's
// totals (CollectionBookYears) without the lines of the year_end_close
// entry dated December 31.
func (x Reads) yearActivity(year int, accounts []ChartAccount) (map[string]AccountTotals, error) {
	out := map[string]AccountTotals{}
	for _, a := range accounts {
		t, _, err := get[AccountTotals](x.r, CollectionBookYears, bookYearID(a.Code, year))
		if err != nil {
			return nil, err
		}
		out[a.Code] = t
	}
	closed, err := x.closeOfYear(year)
	if err != nil {
		return nil, err
	}
	for code, c := range closed {
		if t, ok := out[code]; ok {
			t.Debit, t.Credit = t.Debit.Sub(c.Debit), t.Credit.Sub(c.Credit)
			out[code] = t
		}
	}
	return out, nil
}

// closeOfYear returns, by account, what the close of year (§5.05) posted:
// the lines of the year_end_close entries dated its December 31, read
// from that day's entries alone.
func (x Reads) closeOfYear(year int) (map[string]AccountTotals, error) {
	last := NewDate(year, 12, 31)
	entries, err := x.BookEntries(last, last, "")
	if err != nil {
		return nil, err
	}
	out := map[string]AccountTotals{}
	for _, e := range entries {
		if e.Kind != KindYearEndClose {
			continue
		}
		for _, l := range e.Lines {
			t := out[l.Account]
			t.Debit, t.Credit = t.Debit.Add(l.Debit), t.Credit.Add(l.Credit)
			out[l.Account] = t
		}
	}
	return out, nil
}

// onSide is an account's net activity on its normal side: debits less
// credits for assets and expenditures, credits less debits for the rest.
func onSide(a ChartAccount, t AccountTotals) Money {
	return TrialBalanceRow{Account: a, Debit: t.Debit, Credit: t.Credit}.Balance()
}

// FundStatement is a fund's statement of revenues, expenditures and
// changes in fund balance for a fiscal year, on the budgetary
// comparison's layout: each major revenue source and major expenditure
// category (the chart's Major) with its original and final budget, the
// actual from the books, the variance, and for expenditures the
// encumbrances outstanding; then the fund balance at the start of the
// year, the net change and the fund balance at the end.
type FundStatement struct {
	Year int
	Fund string
	// Adopted reports whether the year has an adopted budget; without one
	// every budget column is zero.
	Adopted bool
	// RevenueBudget reports whether the adopted budget estimates any
	// revenue of the fund. Without it the revenues have actuals only.
	RevenueBudget bool
	Revenues      []StatementRow
	Expenditures  []StatementRow
	// TotalRevenues and TotalExpenditures sum the rows.
	TotalRevenues     StatementRow
	TotalExpenditures StatementRow
	// NetChange is the actual revenues less the actual expenditures.
	NetChange Money
	// OtherChanges are the year's postings straight to the fund's
	// balance, the close of the year apart: the opening entry of the
	// books carrying the bills then open.
	OtherChanges Money
	// Beginning is the fund balance at the end of the year before, as
	// the balance sheet of that day shows it (revenues less expenditures
	// not yet closed included); Ending is Beginning + NetChange +
	// OtherChanges, the fund balance of the balance sheet of December 31.
	Beginning Money
	Ending    Money
}

// StatementRow is one major source or category of the statement, or a
// total. Final = Original + Amendments + Carried. Variance is favourable
// when positive: actual less final for revenues, final less actual for
// expenditures.
type StatementRow struct {
	Major      string
	Accounts   []string // the line accounts summed, by code
	Original   Money    // the adopted budget
	Amendments Money    // the amendments since (§5.04)
	Carried    Money    // appropriations carried from the year before (§5.05)
	Final      Money
	Actual     Money
	Variance   Money
	// Encumbrances are what orders, employments and claims still hold of
	// the appropriations (§5.05, §5.12(6)): as they stand now, or as the
	// close of the year carried them forward.
	Encumbrances Money
}

func (r *StatementRow) add(o StatementRow) {
	r.Original, r.Amendments, r.Carried = r.Original.Add(o.Original), r.Amendments.Add(o.Amendments), r.Carried.Add(o.Carried)
	r.Final, r.Actual, r.Variance = r.Final.Add(o.Final), r.Actual.Add(o.Actual), r.Variance.Add(o.Variance)
	r.Encumbrances = r.Encumbrances.Add(o.Encumbrances)
	r.Accounts = append(r.Accounts, o.Accounts...)
}

// noMajor is the major of a line the chart names none for.
const noMajor = "(no major category)"

// FundStatement returns fund's statement for fiscal year year (the
// calendar year, §5.01). The budget is the year's adopted budget: for a
// revenue line its estimate (Budget.Lines), less the amendments that
// passed (§5.04) for the original; for an expenditure line its
// appropriation (Adopted, Amended, Carried; Encumbered). The actual is
// the year's activity in the books (yearActivity). A fund the chart does
// not hold is ENOTFOUND.
func (x Reads) FundStatement(year int, fund string) (FundStatement, error) {
	ch, err := x.Chart()
	if err != nil {
		return FundStatement{}, err
	}
	if f, ok := ch.Account(fund); !ok || f.Type != AccountFund {
		return FundStatement{}, Errorf(ENOTFOUND, "", "The chart has no fund %q.", fund)
	}
	var lines, balances []ChartAccount
	for _, a := range ch.Accounts {
		switch {
		case a.Fund != fund:
		case a.Type.Line():
			lines = append(lines, a)
		case a.Type == AccountFundBalance && !a.Control.Budgetary():
			balances = append(balances, a)
		}
	}
	act, err := x.yearActivity(year, append(slices.Clone(lines), balances...))
	if err != nil {
		return FundStatement{}, err
	}
	st := FundStatement{Year: year, Fund: fund}

	// The budget, line by line.
	budget := map[string]StatementRow{}
	b, ok, err := x.Budget(year)
	if err != nil {
		return FundStatement{}, err
	}
	if ok && b.Status == BudgetAdopted {
		st.Adopted = true
		amended := map[string]Money{}
		for _, v := range b.Votes {
			if v.Action == BudgetAmend && v.Passed {
				for _, c := range v.Changes {
					amended[c.Account] = amended[c.Account].Add(c.Change)
				}
			}
		}
		for _, l := range b.Lines {
			if a, ok := ch.Account(l.Account); ok && a.Type == AccountRevenue && a.Fund == fund {
				st.RevenueBudget = true
				budget[l.Account] = StatementRow{Original: l.Amount.Sub(amended[l.Account]), Amendments: amended[l.Account], Final: l.Amount}
			}
		}
	}
	apps, err := x.Appropriations(year)
	if err != nil {
		return FundStatement{}, err
	}
	for _, ap := range apps {
		if a, ok := ch.Account(ap.Line); (ok && a.Fund != fund) || (!ok && ap.Fund != fund) {
			continue
		}
		budget[ap.Line] = StatementRow{Original: ap.Adopted, Amendments: ap.Amended, Carried: ap.Carried, Final: ap.Amount(), Encumbrances: ap.Encumbered}
	}

	// By major, in the order the chart first names each.
	group := func(t AccountType) []StatementRow {
		var out []StatementRow
		for _, a := range lines {
			if a.Type != t {
				continue
			}
			r := budget[a.Code]
			r.Actual = onSide(a, act[a.Code])
			if r.Actual.IsZero() && r.Final.IsZero() && r.Encumbrances.IsZero() {
				continue
			}
			if t == AccountRevenue {
				r.Variance = r.Actual.Sub(r.Final)
			} else {
				r.Variance = r.Final.Sub(r.Actual)
			}
			r.Accounts = []string{a.Code}
			major := cmp.Or(strings.TrimSpace(a.Major), noMajor)
			i := slices.IndexFunc(out, func(s StatementRow) bool { return s.Major == major })
			if i < 0 {
				out = append(out, StatementRow{Major: major})
				i = len(out) - 1
			}
			out[i].add(r)
		}
		return out
	}
	st.Revenues, st.Expenditures = group(AccountRevenue), group(AccountExpenditure)
	st.TotalRevenues, st.TotalExpenditures = StatementRow{Major: "Total revenues"}, StatementRow{Major: "Total expenditures"}
	for _, r := range st.Revenues {
		st.TotalRevenues.add(r)
	}
	for _, r := range st.Expenditures {
		st.TotalExpenditures.add(r)
	}
	st.NetChange = st.TotalRevenues.Actual.Sub(st.TotalExpenditures.Actual)
	for _, a := range balances {
		st.OtherChanges = st.OtherChanges.Add(onSide(a, act[a.Code]))
	}

	start, err := x.BalanceSheet(NewDate(year-1, 12, 31))
	if err != nil {
		return FundStatement{}, err
	}
	p, _ := start.Position(fund)
	st.Beginning = p.FundBalance
	st.Ending = st.Beginning.Add(st.NetChange).Add(st.OtherChanges)
	return st, nil
}

// FormCT is a year's revenues and expenditures by the classification the
// Wisconsin Department of Revenue compiles the municipal financial report
// by (the chart's Class), across all funds: what the clerk carries to the
// Department's form, which is filed on its own site. Accounts of the
// same class are summed; accounts without a class are listed one by one
// under Unclassified, so the clerk can give them one in the chart.
type FormCT struct {
	Year         int
	Revenues     []CTRow // by class
	Expenditures []CTRow // by class
	// Unclassified are the line accounts with activity in the year and no
	// class, one row each (Class ""), by code.
	Unclassified []CTRow
	// TotalRevenues and TotalExpenditures include the unclassified.
	TotalRevenues     Money
	TotalExpenditures Money
}

// CTRow is one class of Form CT, or one unclassified account.
type CTRow struct {
	Class    string
	Type     AccountType // revenue or expenditure
	Accounts []string    // by code
	Funds    []string    // the funds of the accounts, by code
	Amount   Money       // on the normal side: revenue earned, expenditure made
}

// FormCT returns year's Form CT schedule from the year's activity in the
// books (yearActivity), across all funds. An account with no activity in
// the year is left out.
func (x Reads) FormCT(year int) (FormCT, error) {
	ch, err := x.Chart()
	if err != nil {
		return FormCT{}, err
	}
	lines := ch.linesAll()
	act, err := x.yearActivity(year, lines)
	if err != nil {
		return FormCT{}, err
	}
	ct := FormCT{Year: year}
	for _, a := range lines {
		amount := onSide(a, act[a.Code])
		if amount.IsZero() {
			continue
		}
		if a.Type == AccountRevenue {
			ct.TotalRevenues = ct.TotalRevenues.Add(amount)
		} else {
			ct.TotalExpenditures = ct.TotalExpenditures.Add(amount)
		}
		class := strings.TrimSpace(a.Class)
		if class == "" {
			ct.Unclassified = append(ct.Unclassified, CTRow{Type: a.Type, Accounts: []string{a.Code}, Funds: []string{a.Fund}, Amount: amount})
			continue
		}
		rows := &ct.Expenditures
		if a.Type == AccountRevenue {
			rows = &ct.Revenues
		}
		i := slices.IndexFunc(*rows, func(r CTRow) bool { return r.Class == class })
		if i < 0 {
			*rows = append(*rows, CTRow{Class: class, Type: a.Type})
			i = len(*rows) - 1
		}
		r := &(*rows)[i]
		r.Accounts = append(r.Accounts, a.Code)
		if !slices.Contains(r.Funds, a.Fund) {
			r.Funds = append(r.Funds, a.Fund)
			slices.Sort(r.Funds)
		}
		r.Amount = r.Amount.Add(amount)
	}
	byClass := func(a, b CTRow) int { return strings.Compare(a.Class, b.Class) }
	slices.SortFunc(ct.Revenues, byClass)
	slices.SortFunc(ct.Expenditures, byClass)
	return ct, nil
}

// linesAll returns every revenue and expenditure account, closed ones
// too (a closed account may hold postings of the year), by code.
func (ch Chart) linesAll() []ChartAccount {
	var out []ChartAccount
	for _, a := range ch.Accounts {
		if a.Type.Line() {
			out = append(out, a)
		}
	}
	return out
}

// LineActivity returns what the postings did to each line account of
// lines in year, from January 1 through the end of through (a day of
// year), on the account's normal side: revenue earned, expenditure made.
// Through December 31 it is the year's activity (yearActivity, from the
// years' totals, the close of the year left out); through an earlier day
// it sums the account's days of the year up to it, listed by the
// account's own prefix, so a year of about a hundred lines stays cheap.
func (x Reads) LineActivity(lines []ChartAccount, year int, through Date) (map[string]Money, error) {
	out := map[string]Money{}
	if through == NewDate(year, 12, 31) {
		act, err := x.yearActivity(year, lines)
		if err != nil {
			return nil, err
		}
		for _, a := range lines {
			out[a.Code] = onSide(a, act[a.Code])
		}
		return out, nil
	}
	for _, a := range lines {
		var sum AccountTotals
		err := x.r.List(CollectionBookDays, fmt.Sprintf("%s/%04d-", a.Code, year), func(id string, raw []byte) error {
			_, day, _ := strings.Cut(id, "/")
			if d, err := ParseDate(day); err != nil || d.After(through) {
				return nil
			}
			var t AccountTotals
			if err := json.Unmarshal(raw, &t); err != nil {
				return err
			}
			sum.Debit, sum.Credit = sum.Debit.Add(t.Debit), sum.Credit.Add(t.Credit)
			return nil
		})
		if err != nil {
			return nil, err
		}
		out[a.Code] = onSide(a, sum)
	}
	return out, nil
}

// FundBalancesAt returns each fund's balance at the end of year, as the
// balance sheet of December 31 shows it: the fund balance accounts (the
// budgetary reserve left out) with the revenues less expenditures no
// close has yet brought into them. It reads the years' totals, not the
// days, since every one of those accounts is on the credit side: the sum
// is their credits less their debits.
func (x Reads) FundBalancesAt(year int) (map[string]Money, error) {
	ch, err := x.Chart()
	if err != nil {
		return nil, err
	}
	years, _, err := get[[]int](x.r, CollectionBookYears, booksYears)
	if err != nil {
		return nil, err
	}
	out := map[string]Money{}
	for _, f := range ch.Of(AccountFund) {
		out[f.Code] = Money{}
	}
	for _, a := range ch.Accounts {
		if !a.Type.Line() && (a.Type != AccountFundBalance || a.Control.Budgetary()) {
			continue
		}
		for _, y := range years {
			if y > year {
				break
			}
			t, _, err := get[AccountTotals](x.r, CollectionBookYears, bookYearID(a.Code, y))
			if err != nil {
				return nil, err
			}
			out[a.Fund] = out[a.Fund].Add(t.Credit).Sub(t.Debit)
		}
	}
	return out, nil
}
