package domain

import (
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// The proposed budget as §5.02(4) asks it to be read, and its summary
// (§5.02(5)): computed from the budget, the budgets of the two years
// before it, the units' estimates and the ledger's own actuals. Nothing
// here reads a clock: the day the figures are as of comes in.

// Figure sources: where a figure of the preceding or current year comes
// from.
const (
	FromLedger    = "ledger"    // the ledger's own receipts and expenses
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
	// AsOf is the day the view is read: the current year's actuals count
	// the whole months before it.
	AsOf Date
}

// ViewBudget computes the view of a budget (§5.02(4)) and its summary
// (§5.02(5)).
func ViewBudget(in BudgetInputs) BudgetView {
	b := in.Budget
	v := BudgetView{Budget: b, PrecedingYear: b.Year - 2, CurrentYear: b.Year - 1}
	// Whole months of the current year before AsOf.
	switch {
	case in.AsOf.Year() > v.CurrentYear:
		v.ActualMonths = 12
	case in.AsOf.Year() == v.CurrentYear:
		v.ActualMonths = int(in.AsOf.Month()) - 1
	}
	if v.ActualMonths > 0 {
		v.ActualsThrough = NewDate(v.CurrentYear, 1, 1).AddMonths(v.ActualMonths).AddDays(-1)
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
	if len(in.PrecedingActuals) > 0 {
		v.PrecedingFrom = FromLedger
	}
	if len(in.CurrentActuals) > 0 && v.ActualMonths > 0 {
		v.CurrentFrom = FromLedger
	}
	for _, a := range in.CurrentActuals {
		if a.Account == unclassified && a.Month <= v.ActualMonths {
			v.Unclassified = v.Unclassified.Add(a.Receipts)
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
		if v.PrecedingFrom == FromLedger {
			l.Preceding = sum(in.PrecedingActuals, code, acct.Type, 12)
		} else {
			l.Preceding = est.Prior
		}
		if v.CurrentFrom == FromLedger {
			l.Current = sum(in.CurrentActuals, code, acct.Type, v.ActualMonths)
			switch {
			case v.ActualMonths >= 12:
				l.RestFrom = FromLedger
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
	v.Funds = fundProjections(in.Chart, &b)
	v.Summary = summarize(in.Chart, &b, in.InEffect, in.Preceding)
	return v
}

// fundProjections computes each fund's anticipated balances under b.
func fundProjections(chart Chart, b *Budget) []FundProjection {
	var out []FundProjection
	for _, f := range chart.Of(AccountFund) {
		p := FundProjection{Fund: f}
		for _, fb := range b.Balances {
			if fb.Fund == f.Code {
				p.Beginning = fb.Beginning
			}
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
		p.Surplus = p.Ending.Sub(p.Beginning)
		out = append(out, p)
	}
	return out
}

// summarize totals three budgets by the chart's major categories and
// sources (§5.02(5)).
func summarize(chart Chart, proposed, inEffect, preceding *Budget) Summary {
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
		for _, p := range fundProjections(chart, b) {
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
	return ViewBudget(in), nil
}
