package domain

import (
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// The proposed budget as §5.02(4) asks it to be read, and its summary
// (§5.02(5)): computed from the budget, the budgets of the two years
// before it, the units' estimates and the actuals. The actuals are the
// books' postings to each line for a year the books hold whole
// (booksHold), and the ledger's own receipts and expenses
// (appropriation.go) for a ledger without books, or a year the books do
// not hold whole. From ledger format 6 the ledger stops counting its own
// for a year the books hold whole (actualsRetired), so each year is read
// from one of the two, whole, and never from both.
// Nothing here reads a clock: the day the figures are as of comes in.

// booksHold reports whether books that opened on opened hold the whole of
// year: they were open on its first day, or they opened during it and
// the old books' trial balance of that day, which carries the year's
// revenues and expenditures so far, was imported (imported; "Going live",
// docs/books.md). A year the books opened during without it has its
// months before the opening only in the ledger's own actuals.
func booksHold(opened Date, imported bool, year int) bool {
	return !opened.After(NewDate(year, 1, 1)) || (imported && opened.Year() == year)
}

// actualsRetired reports whether the ledger's own count of receipts and
// expenses (Actual) is retired for money dated on: from ledger format 6,
// for a year the books hold whole. Before format 6 the count is kept as
// it always was, so a ledger of format 5 replays to the same records.
// A year the books opened during, without the old books' trial balance,
// keeps its count to its end: the books miss its first months, and the
// budget reads the year whole from the count (budgetBooks) rather than
// half from each, which would count a bill issued before the opening and
// paid after it in neither (the count takes it when paid, the books when
// issued).
func actualsRetired(tx Tx, on Date) (bool, error) {
	if RulesFormat(tx) < ReconciledFormat {
		return false, nil
	}
	var opened booksOpened
	ok, err := tx.Get(CollectionBookMeta, "opened", &opened)
	if err != nil || !ok {
		return false, err
	}
	if booksHold(opened.On, false, on.Year()) {
		return true, nil
	}
	if opened.On.Year() != on.Year() {
		return false, nil
	}
	var imported OpeningBalances
	return tx.Get(CollectionBookMeta, openingBalancesRecord, &imported)
}

// Figure sources: where a figure of the preceding or current year comes
// from.
const (
	FromLedger    = "ledger"    // the ledger's own receipts and expenses
	FromBooks     = "books"     // the books' postings to the line (ledger format 5)
	FromEstimates = "estimates" // the units' estimates (§5.01(3))
	FromProjected = "projected" // the ledger's months so far, at the same pace
)

// BudgetView is the budget of a year with every element of §5.02(4).
type BudgetView struct {
	Budget Budget `json:"budget"`
	// The preceding year (the year before the current one) and the
	// current year (the year before the budget's).
	PrecedingYear int `json:"preceding_year"`
	CurrentYear   int `json:"current_year"`
	// PrecedingFrom says where the preceding year's actuals come from
	// (§5.02(4)(d)); CurrentFrom the current year's (§5.02(4)(e)).
	PrecedingFrom string `json:"preceding_from"`
	CurrentFrom   string `json:"current_from"`
	// ActualMonths is how many whole months of the current year the
	// ledger's actuals cover, through ActualsThrough; §5.02(4)(e) asks
	// for at least six.
	ActualMonths   int              `json:"actual_months"`
	ActualsThrough Date             `json:"actuals_through,omitzero"`
	Lines          []BudgetViewLine `json:"lines"`
	Funds          []FundProjection `json:"funds"`
	// Unclassified is what the ledger received in the current year that
	// no revenue account collects (a chart to finish).
	Unclassified Money   `json:"unclassified"`
	Summary      Summary `json:"summary"`
}

// BudgetViewLine is one line account of the budget with its history.
type BudgetViewLine struct {
	Account    ChartAccount `json:"account"`
	Preceding  Money        `json:"preceding"` // actual, preceding year (§5.02(4)(d))
	Current    Money        `json:"current"`   // actual so far, current year (§5.02(4)(e))
	Rest       Money        `json:"rest"`      // estimated for the rest of the current year (§5.02(4)(f))
	RestFrom   string       `json:"rest_from"` // estimates or projected
	InEffect   Money        `json:"in_effect"` // the budget in effect (current year, as amended)
	Proposed   Money        `json:"proposed"`  // this budget (§5.02(4)(b)-(c))
	Estimate   Money        `json:"estimate"`  // what the unit estimated for the year (§5.01(3))
	Continuing bool         `json:"continuing,omitempty"`
	Purpose    string       `json:"purpose,omitempty"`
}

// FundProjection is a fund's anticipated balances for the budget's year
// (§5.02(4)(g)): its beginning balance, what the budget anticipates in
// and out, and the unexpended balance (surplus) at the end.
type FundProjection struct {
	Fund        ChartAccount `json:"fund"`
	Beginning   Money        `json:"beginning"`
	Revenue     Money        `json:"revenue"`
	Sources     Money        `json:"sources"`
	Expenditure Money        `json:"expenditure"`
	Uses        Money        `json:"uses"`
	Ending      Money        `json:"ending"`
	Surplus     Money        `json:"surplus"` // Ending − Beginning
}

// Summary is the budget summary of §5.02(5), for the proposed budget, the
// budget in effect and the budget of the preceding year.
type Summary struct {
	Year         int          `json:"year"`
	Expenditures []SummaryRow `json:"expenditures"` // by major expenditure category (a)
	Revenues     []SummaryRow `json:"revenues"`     // by major revenue source (b)
	Sources      []SummaryRow `json:"sources"`      // other financing sources (c)
	Uses         []SummaryRow `json:"uses"`         // other financing uses (c)
	Balances     []SummaryRow `json:"balances"`     // per fund: beginning and year-end (d)
	TotalExpend  SummaryRow   `json:"total_expenditures"`
	TotalRevenue SummaryRow   `json:"total_revenues"`
}

// SummaryRow is one row of the summary: the preceding year's budget, the
// budget in effect, the proposed budget and the change from the budget in
// effect, in percent (empty when the budget in effect had none).
type SummaryRow struct {
	Label     string `json:"label"`
	Preceding Money  `json:"preceding"`
	InEffect  Money  `json:"in_effect"`
	Proposed  Money  `json:"proposed"`
	Change    string `json:"change"` // "+4.2%", "-10.0%", "" when not computable
	// For a fund's balances row: the year-end balances.
	PrecedingEnd Money `json:"preceding_end"`
	InEffectEnd  Money `json:"in_effect_end"`
	ProposedEnd  Money `json:"proposed_end"`
}

// PercentChange returns the change from old to new in percent with one
// decimal, signed ("+4.2%"); "" when old is zero.
func PercentChange(old, new Money) string {
	if old.IsZero() {
		return ""
	}
	p := new.Sub(old).Decimal().Mul(decimal.NewFromInt(100)).DivRound(old.Decimal(), 4).Round(1)
	s := p.StringFixed(1)
	if !p.IsNegative() {
		s = "+" + s
	}
	return s + "%"
}

// BudgetInputs is what a budget view is computed from.
type BudgetInputs struct {
	Budget    Budget
	InEffect  *Budget // the current year's budget, if adopted
	Preceding *Budget // the preceding year's budget, if adopted
	Chart     Chart
	Estimates []Estimate
	// Actuals of the current and preceding years.
	CurrentActuals, PrecedingActuals []Actual
	// Books, when the books are open, are the actuals and fund balances
	// the books hold; they take the place of the ledger's own actuals
	// for the years they hold.
	Books *BookActuals
	// AsOf is the day the view is read: the current year's actuals count
	// the whole months before it.
	AsOf Date
}

// BookActuals are what a budget view reads from the books (ledger format
// 5, once they are open) in place of the ledger's own actuals: each
// line's postings on its normal side, so that the actuals are the trial
// balance's line balances, and each fund's balance at the end of the
// years that are over.
type BookActuals struct {
	// Current is each line's activity in the current year through the
	// view's ActualsThrough; Preceding in the whole preceding year (to the
	// view's day when that is earlier). A nil
	// map is a year the books do not hold whole (they opened during it
	// and the old books' trial balance was not imported): its actuals
	// come from the ledger's own, as before the books.
	Current, Preceding map[string]Money
	// Unclassified is what the general fund's unclassified revenue
	// account took in in the current year through ActualsThrough.
	Unclassified Money
	// FundBalances are each fund's balance at the end of a year (the
	// balance sheet's of December 31), by year and fund: for the years
	// that are over by the view's day and that the books were open at
	// the end of. A budget's beginning and year-end balances of those
	// years are the books'.
	FundBalances map[int]map[string]Money
}

// actualMonths returns how many whole months of the current year come
// before asOf, and the last day they cover (zero when none).
func actualMonths(current int, asOf Date) (int, Date) {
	months := 0
	switch {
	case asOf.Year() > current:
		months = 12
	case asOf.Year() == current:
		months = int(asOf.Month()) - 1
	}
	if months == 0 {
		return 0, Date{}
	}
	return months, NewDate(current, 1, 1).AddMonths(months).AddDays(-1)
}

// ViewBudget computes the view of a budget (§5.02(4)) and its summary
// (§5.02(5)).
func ViewBudget(in BudgetInputs) BudgetView {
	b := in.Budget
	v := BudgetView{Budget: b, PrecedingYear: b.Year - 2, CurrentYear: b.Year - 1}
	v.ActualMonths, v.ActualsThrough = actualMonths(v.CurrentYear, in.AsOf)
	books := in.Books
	if books == nil {
		books = &BookActuals{}
	}
	estimate := func(account string) (EstimateLine, bool) {
		for _, e := range in.Estimates {
			for _, l := range e.Lines {
				if l.Account == account {
					return l, true
				}
			}
		}
		return EstimateLine{}, false
	}
	sum := func(as []Actual, account string, typ AccountType, months int) Money {
		var m Money
		for _, a := range as {
			if a.Account != account || a.Month > months {
				continue
			}
			if typ == AccountRevenue {
				m = m.Add(a.Receipts)
			} else {
				m = m.Add(a.Expended)
			}
		}
		return m
	}
	v.PrecedingFrom, v.CurrentFrom = FromEstimates, FromEstimates
	switch {
	case books.Preceding != nil:
		v.PrecedingFrom = FromBooks
	case len(in.PrecedingActuals) > 0:
		v.PrecedingFrom = FromLedger
	}
	switch {
	case v.ActualMonths == 0:
	case books.Current != nil:
		v.CurrentFrom = FromBooks
		v.Unclassified = books.Unclassified
	case len(in.CurrentActuals) > 0:
		v.CurrentFrom = FromLedger
		for _, a := range in.CurrentActuals {
			if a.Account == unclassified && a.Month <= v.ActualMonths {
				v.Unclassified = v.Unclassified.Add(a.Receipts)
			}
		}
	}
	amountIn := func(x *Budget, account string) Money {
		if x == nil {
			return Money{}
		}
		for _, l := range x.Lines {
			if l.Account == account {
				return l.Amount
			}
		}
		return Money{}
	}
	// The lines: those of the budget, then those the budget in effect or
	// an estimate has and it does not, so nothing is hidden.
	accounts := []string{}
	for _, l := range b.Lines {
		accounts = append(accounts, l.Account)
	}
	add := func(code string) {
		if !slices.Contains(accounts, code) {
			if a, ok := in.Chart.Account(code); ok && a.Type.Line() {
				accounts = append(accounts, code)
			}
		}
	}
	if in.InEffect != nil {
		for _, l := range in.InEffect.Lines {
			add(l.Account)
		}
	}
	for _, e := range in.Estimates {
		for _, l := range e.Lines {
			add(l.Account)
		}
	}
	slices.SortStableFunc(accounts, func(x, y string) int {
		ax, _ := in.Chart.Account(x)
		ay, _ := in.Chart.Account(y)
		if ax.Type != ay.Type {
			return strings.Compare(string(ax.Type), string(ay.Type)) * -1 // revenue before expenditure
		}
		return strings.Compare(x, y)
	})
	for _, code := range accounts {
		acct, ok := in.Chart.Account(code)
		if !ok {
			acct = ChartAccount{Code: code, Name: code}
		}
		l := BudgetViewLine{Account: acct, InEffect: amountIn(in.InEffect, code), Proposed: amountIn(&b, code)}
		if i := slices.IndexFunc(b.Lines, func(x BudgetLine) bool { return x.Account == code }); i >= 0 {
			l.Continuing, l.Purpose = b.Lines[i].Continuing, b.Lines[i].Purpose
		}
		est, hasEst := estimate(code)
		l.Estimate = est.Next
		switch v.PrecedingFrom {
		case FromBooks:
			l.Preceding = books.Preceding[code]
		case FromLedger:
			l.Preceding = sum(in.PrecedingActuals, code, acct.Type, 12)
		default:
			l.Preceding = est.Prior
		}
		if v.CurrentFrom != FromEstimates {
			if v.CurrentFrom == FromBooks {
				l.Current = books.Current[code]
			} else {
				l.Current = sum(in.CurrentActuals, code, acct.Type, v.ActualMonths)
			}
			switch {
			case v.ActualMonths >= 12:
				l.RestFrom = v.CurrentFrom
			case hasEst:
				l.Rest, l.RestFrom = est.Current.Sub(l.Current).Max(Money{}), FromEstimates
			default:
				l.Rest = MoneyFromDecimal(l.Current.Decimal().Mul(decimal.NewFromInt(int64(12-v.ActualMonths))).DivRound(decimal.NewFromInt(int64(v.ActualMonths)), 2))
				l.RestFrom = FromProjected
			}
		} else {
			l.Current, l.RestFrom = est.Current, FromEstimates
		}
		v.Lines = append(v.Lines, l)
	}
	v.Funds = fundProjections(in.Chart, &b, books.FundBalances)
	v.Summary = summarize(in.Chart, &b, in.InEffect, in.Preceding, books.FundBalances)
	return v
}

// fundProjections computes each fund's anticipated balances under b. A
// balance the books hold (ends: by year, each fund's balance at the end
// of the year) is the books': the beginning is the end of the year
// before, and the ending, once b's year is over, is the year's own; the
// budget's figures stand for what is still to come.
func fundProjections(chart Chart, b *Budget, ends map[int]map[string]Money) []FundProjection {
	var out []FundProjection
	for _, f := range chart.Of(AccountFund) {
		p := FundProjection{Fund: f}
		for _, fb := range b.Balances {
			if fb.Fund == f.Code {
				p.Beginning = fb.Beginning
			}
		}
		if m, ok := ends[b.Year-1][f.Code]; ok {
			p.Beginning = m
		}
		for _, l := range b.Lines {
			a, _ := chart.Account(l.Account)
			if a.Fund != f.Code {
				continue
			}
			if a.Type == AccountRevenue {
				p.Revenue = p.Revenue.Add(l.Amount)
			} else {
				p.Expenditure = p.Expenditure.Add(l.Amount)
			}
		}
		for _, x := range b.Financing {
			if x.Fund != f.Code {
				continue
			}
			if x.Use {
				p.Uses = p.Uses.Add(x.Amount)
			} else {
				p.Sources = p.Sources.Add(x.Amount)
			}
		}
		p.Ending = p.Beginning.Add(p.Revenue).Add(p.Sources).Sub(p.Expenditure).Sub(p.Uses)
		if m, ok := ends[b.Year][f.Code]; ok {
			p.Ending = m
		}
		p.Surplus = p.Ending.Sub(p.Beginning)
		out = append(out, p)
	}
	return out
}

// summarize totals three budgets by the chart's major categories and
// sources (§5.02(5)); the funds' beginning and year-end balances are the
// books' where they hold them (ends, fundProjections).
func summarize(chart Chart, proposed, inEffect, preceding *Budget, ends map[int]map[string]Money) Summary {
	s := Summary{Year: proposed.Year}
	byMajor := func(typ AccountType) []SummaryRow {
		var majors []string
		total := func(b *Budget, major string) Money {
			var m Money
			if b == nil {
				return m
			}
			for _, l := range b.Lines {
				if a, ok := chart.Account(l.Account); ok && a.Type == typ && a.Major == major {
					m = m.Add(l.Amount)
				}
			}
			return m
		}
		for _, b := range []*Budget{proposed, inEffect, preceding} {
			if b == nil {
				continue
			}
			for _, l := range b.Lines {
				if a, ok := chart.Account(l.Account); ok && a.Type == typ && !slices.Contains(majors, a.Major) {
					majors = append(majors, a.Major)
				}
			}
		}
		slices.Sort(majors)
		var rows []SummaryRow
		for _, m := range majors {
			r := SummaryRow{Label: m, Preceding: total(preceding, m), InEffect: total(inEffect, m), Proposed: total(proposed, m)}
			r.Change = PercentChange(r.InEffect, r.Proposed)
			rows = append(rows, r)
		}
		return rows
	}
	s.Expenditures, s.Revenues = byMajor(AccountExpenditure), byMajor(AccountRevenue)
	totalOf := func(rows []SummaryRow, label string) SummaryRow {
		t := SummaryRow{Label: label}
		for _, r := range rows {
			t.Preceding, t.InEffect, t.Proposed = t.Preceding.Add(r.Preceding), t.InEffect.Add(r.InEffect), t.Proposed.Add(r.Proposed)
		}
		t.Change = PercentChange(t.InEffect, t.Proposed)
		return t
	}
	s.TotalExpend, s.TotalRevenue = totalOf(s.Expenditures, "Total expenditures"), totalOf(s.Revenues, "Total revenues")
	financing := func(use bool) []SummaryRow {
		var labels []string
		amount := func(b *Budget, label string) Money {
			var m Money
			if b == nil {
				return m
			}
			for _, x := range b.Financing {
				if x.Use == use && x.Description == label {
					m = m.Add(x.Amount)
				}
			}
			return m
		}
		for _, b := range []*Budget{proposed, inEffect, preceding} {
			if b == nil {
				continue
			}
			for _, x := range b.Financing {
				if x.Use == use && !slices.Contains(labels, x.Description) {
					labels = append(labels, x.Description)
				}
			}
		}
		slices.Sort(labels)
		var rows []SummaryRow
		for _, l := range labels {
			r := SummaryRow{Label: l, Preceding: amount(preceding, l), InEffect: amount(inEffect, l), Proposed: amount(proposed, l)}
			r.Change = PercentChange(r.InEffect, r.Proposed)
			rows = append(rows, r)
		}
		return rows
	}
	s.Sources, s.Uses = financing(false), financing(true)
	projections := func(b *Budget) map[string]FundProjection {
		m := map[string]FundProjection{}
		if b == nil {
			return m
		}
		for _, p := range fundProjections(chart, b, ends) {
			m[p.Fund.Code] = p
		}
		return m
	}
	pp, pe, pr := projections(proposed), projections(inEffect), projections(preceding)
	for _, f := range chart.Of(AccountFund) {
		r := SummaryRow{Label: f.Code + " " + f.Name,
			Preceding: pr[f.Code].Beginning, InEffect: pe[f.Code].Beginning, Proposed: pp[f.Code].Beginning,
			PrecedingEnd: pr[f.Code].Ending, InEffectEnd: pe[f.Code].Ending, ProposedEnd: pp[f.Code].Ending}
		r.Change = PercentChange(r.InEffectEnd, r.ProposedEnd)
		s.Balances = append(s.Balances, r)
	}
	return s
}

// BudgetView returns the view of year's budget as of day asOf.
func (x Reads) BudgetView(year int, asOf Date) (BudgetView, error) {
	b, ok, err := x.Budget(year)
	if err != nil {
		return BudgetView{}, err
	}
	if !ok {
		return BudgetView{}, Errorf(ENOTFOUND, "§5.02", "There is no budget for %d yet.", year)
	}
	in := BudgetInputs{Budget: b, AsOf: asOf}
	adopted := func(y int) (*Budget, error) {
		x, ok, err := x.Budget(y)
		if err != nil || !ok || x.Status != BudgetAdopted {
			return nil, err
		}
		return &x, nil
	}
	if in.InEffect, err = adopted(year - 1); err != nil {
		return BudgetView{}, err
	}
	if in.Preceding, err = adopted(year - 2); err != nil {
		return BudgetView{}, err
	}
	if in.Chart, err = x.Chart(); err != nil {
		return BudgetView{}, err
	}
	if in.Estimates, err = x.Estimates(year); err != nil {
		return BudgetView{}, err
	}
	if in.CurrentActuals, err = x.Actuals(year - 1); err != nil {
		return BudgetView{}, err
	}
	if in.PrecedingActuals, err = x.Actuals(year - 2); err != nil {
		return BudgetView{}, err
	}
	if in.Books, err = x.budgetBooks(in.Chart, year, asOf); err != nil {
		return BudgetView{}, err
	}
	return ViewBudget(in), nil
}

// budgetBooks reads what the view of year's budget as of asOf takes from
// the books; nil when the books are not open (a ledger before format 5,
// or a chart without a general fund), whose view reads as before.
//
// A year's line actuals are the books' when the books hold the whole
// year: they were open on its first day, or they opened during it and the
// old books' trial balance, which carries the year's revenues and
// expenditures so far, was imported ("Going live", docs/books.md).
// Otherwise the year's postings would count only the months since the
// books opened, and the ledger's own actuals, kept all along, are read:
// from ledger format 6 the ledger keeps them for such a year only, to its
// end (actualsRetired), so a year is read whole from one source.
// A fund's balance at the end of a year is the books' once the year is
// over and the books were open on its last day: what the balance sheet
// and the fund statements of that day show.
func (x Reads) budgetBooks(ch Chart, year int, asOf Date) (*BookActuals, error) {
	opened, ok, err := get[booksOpened](x.r, CollectionBookMeta, "opened")
	if err != nil || !ok {
		return nil, err
	}
	_, imported, err := get[OpeningBalances](x.r, CollectionBookMeta, openingBalancesRecord)
	if err != nil {
		return nil, err
	}
	whole := func(y int) bool { return booksHold(opened.On, imported, y) }
	lines := ch.linesAll()
	books := &BookActuals{FundBalances: map[int]map[string]Money{}}
	current, preceding := year-1, year-2
	if months, through := actualMonths(current, asOf); months > 0 && whole(current) {
		if books.Current, err = x.LineActivity(lines, current, through); err != nil {
			return nil, err
		}
		if g := ch.GeneralFund(); g != "" {
			books.Unclassified = books.Current[g+"-"+unclassifiedRevenue]
		}
	}
	// The preceding year is normally over; a view read before its end
	// (a budget prepared two years ahead) counts it to the view's day,
	// as the ledger's own count would have, for from ledger format 6
	// there is no other count of it.
	if through := NewDate(preceding, 12, 31); whole(preceding) && !asOf.Before(NewDate(preceding, 1, 1)) {
		if asOf.Before(through) {
			through = asOf
		}
		if books.Preceding, err = x.LineActivity(lines, preceding, through); err != nil {
			return nil, err
		}
	}
	for y := year - 3; y <= year; y++ {
		end := NewDate(y, 12, 31)
		if !asOf.After(end) || opened.On.After(end) {
			continue
		}
		if books.FundBalances[y], err = x.FundBalancesAt(y); err != nil {
			return nil, err
		}
	}
	return books, nil
}
