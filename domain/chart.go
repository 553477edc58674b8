package domain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// The chart of accounts. Every appropriation, purchase order, expense and
// receipt of the village belongs to one account of the chart, which the
// administrator keeps as records of the ledger: the funds (the general
// fund first, where unencumbered balances lapse at the close of a year,
// §5.05), the units that spend (departments, committees, commissions and
// boards, §5.01(3), §5.02(4)(c)), and the line accounts of the budget
// (revenue sources and expenditure categories). A line account names its
// fund, an expenditure line its unit, and each line its major category or
// source, by which the budget summary of §5.02(5) is totalled.

const sectionChart = "§5.02"

// KindChart adds or changes accounts of the chart.
const KindChart Kind = "chart"

// CollectionChart holds the accounts of the chart by code.
const CollectionChart = "chart"

// AccountType is what an account of the chart is.
type AccountType string

// Account types.
const (
	AccountFund        AccountType = "fund"
	AccountDepartment  AccountType = "department"
	AccountCommittee   AccountType = "committee"
	AccountCommission  AccountType = "commission"
	AccountBoard       AccountType = "board"
	AccountRevenue     AccountType = "revenue"
	AccountExpenditure AccountType = "expenditure"
	// The balance-sheet accounts of a fund (books.go): what it owns, what
	// it owes, revenue billed but not yet available, and its fund balance.
	AccountAsset          AccountType = "asset"
	AccountLiability      AccountType = "liability"
	AccountDeferredInflow AccountType = "deferred_inflow"
	AccountFundBalance    AccountType = "fund_balance"
)

// AccountTypes returns the account types, in the order forms list them.
func AccountTypes() []AccountType {
	return []AccountType{AccountFund, AccountDepartment, AccountCommittee, AccountCommission, AccountBoard, AccountRevenue, AccountExpenditure,
		AccountAsset, AccountLiability, AccountDeferredInflow, AccountFundBalance}
}

// BalanceSheet reports whether t is a balance-sheet account of a fund.
func (t AccountType) BalanceSheet() bool {
	return t == AccountAsset || t == AccountLiability || t == AccountDeferredInflow || t == AccountFundBalance
}

// Valid reports whether t is a known account type.
func (t AccountType) Valid() bool { return slices.Contains(AccountTypes(), t) }

// Unit reports whether t is a unit that spends and files estimates
// (§5.01(3)): a department, committee, commission or board.
func (t AccountType) Unit() bool {
	return t == AccountDepartment || t == AccountCommittee || t == AccountCommission || t == AccountBoard
}

// Line reports whether t is a line account of the budget.
func (t AccountType) Line() bool { return t == AccountRevenue || t == AccountExpenditure }

// Receipt sources: what a revenue account collects of the receipts the
// appliance takes, so the budget's actuals come from the ledger's own
// receipts (§5.02(4)(d)-(e)). A village bill may name its own revenue
// account; one that does not is counted under the account that collects
// SourceBills.
const (
	SourceBills         = "bills"               // payments on village bills that name no revenue account
	SourceStatusLetters = "status_letters"      // statement of real property status fees (§5.11)
	SourcePropertyTax   = "property_tax"        // property tax installments collected by the village (Ch. 74)
	SourceRoomTax       = "room_tax"            // room tax, its late filing fees and interest (§5.22)
	SourceAssessments   = "special_assessments" // special assessments levied and the interest on their installments (§5.14)
)

// ReceiptSources returns the receipt sources.
func ReceiptSources() []string {
	return []string{SourceBills, SourceStatusLetters, SourcePropertyTax, SourceRoomTax, SourceAssessments}
}

// ChartAccount is one account of the chart.
type ChartAccount struct {
	Code string      `json:"code"`
	Type AccountType `json:"type"`
	Name string      `json:"name"`
	// General marks the general fund: exactly one fund is.
	General bool `json:"general,omitempty"`
	// Fund is the fund of a unit or line account.
	Fund string `json:"fund,omitempty"`
	// Unit is the unit of an expenditure line (required) or of a revenue
	// line (optional).
	Unit string `json:"unit,omitempty"`
	// Major is a line's major expenditure category or major revenue
	// source, by which the summary of §5.02(5) totals.
	Major string `json:"major,omitempty"`
	// Reserve marks an expenditure line that is a reserve account
	// (§5.02(4)(c)).
	Reserve bool `json:"reserve,omitempty"`
	// Sources are the receipt sources a revenue line collects.
	Sources []string `json:"sources,omitempty"`
	// Control is, for a balance-sheet account, what it controls in the
	// books (books.go: cash, receivables, refunds payable …): the postings
	// of every kind find a fund's account by it.
	Control Control `json:"control,omitempty"`
	// Class is the account's code in the classification the Wisconsin
	// Department of Revenue compiles its municipal financial report (Form
	// CT) by: a revenue source, or an expenditure function and object.
	Class  string `json:"class,omitempty"`
	Closed bool   `json:"closed,omitempty"`
	// Changed and ChangedBy are set by the ledger.
	Changed   DateTime `json:"changed,omitzero"`
	ChangedBy string   `json:"changed_by,omitempty"`
}

// ChartChange adds accounts to the chart or changes them, all or none:
// a form changes one, a CSV import many.
type ChartChange struct {
	Accounts []ChartAccount `json:"accounts"`
	// Source says where the change came from ("form", "import chart.csv").
	Source string `json:"source,omitempty"`
}

// Kind names the payload's kind.
func (*ChartChange) Kind() Kind { return KindChart }

func (p *ChartChange) textFields() []textField {
	fields := []textField{oneLine("The source", p.Source)}
	for _, a := range p.Accounts {
		fields = append(fields, oneLine("An account code", a.Code), oneLine("An account name", a.Name), oneLine("A fund", a.Fund),
			oneLine("A unit", a.Unit), oneLine("A major category", a.Major))
	}
	return fields
}

var chartKind = &Descriptor{
	Kind:    KindChart,
	Section: sectionChart,
	Since:   2,
	Roles:   []Role{RoleAdministrator},
	New:     func() Payload { return new(ChartChange) },
	Check: func(c Command) error {
		p := c.Payload.(*ChartChange)
		if len(p.Accounts) == 0 {
			return Errorf(EINVALID, sectionChart, "A change of the chart needs at least one account.")
		}
		for i, a := range p.Accounts {
			if err := a.check(); err != nil {
				return chartRowError(p, i, err)
			}
		}
		return nil
	},
	Apply: applyChart,
}

// chartRowError names the row of an import, or the account of a form, in
// the error of one account.
func chartRowError(p *ChartChange, i int, err error) error {
	if len(p.Accounts) == 1 {
		return err
	}
	return Errorf(ErrorCode(err), ErrorSection(err), "Row %d (%s): %s", i+1, p.Accounts[i].Code, ErrorMessage(err))
}

// ValidCode reports whether s can be an account code: 1 to 24 letters,
// digits, dots or dashes, starting with a letter or digit.
func ValidCode(s string) bool {
	if len(s) == 0 || len(s) > 24 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '.' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// check checks an account on its own, without the chart.
func (a ChartAccount) check() error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionChart, format, args...) }
	switch {
	case !ValidCode(a.Code):
		return bad("The account code %q is not 1 to 24 letters, digits, dots or dashes.", a.Code)
	case !a.Type.Valid():
		return bad("Account %s: the type %q is not one of fund, department, committee, commission, board, revenue, expenditure, asset, liability, deferred_inflow or fund_balance.", a.Code, a.Type)
	case strings.TrimSpace(a.Name) == "":
		return bad("Account %s needs a name.", a.Code)
	case a.General && a.Type != AccountFund:
		return bad("Account %s: only a fund can be the general fund.", a.Code)
	case a.Type == AccountFund && (a.Fund != "" || a.Unit != "" || a.Major != ""):
		return bad("Account %s is a fund: it names no fund, unit or major category of its own.", a.Code)
	case a.Type != AccountFund && a.Fund == "":
		return bad("Account %s needs the fund it belongs to.", a.Code)
	case a.Type.Unit() && (a.Unit != "" || a.Major != ""):
		return bad("Account %s is a %s: it names no unit or major category.", a.Code, a.Type)
	case a.Type == AccountExpenditure && a.Unit == "":
		return bad("Expenditure account %s needs the department, committee, commission or board that spends it.", a.Code)
	case a.Type.Line() && strings.TrimSpace(a.Major) == "":
		return bad("Account %s needs its major %s for the budget summary.", a.Code, map[AccountType]string{AccountRevenue: "revenue source", AccountExpenditure: "expenditure category"}[a.Type])
	case a.Reserve && a.Type != AccountExpenditure:
		return bad("Account %s: only an expenditure account can be a reserve account.", a.Code)
	case len(a.Sources) > 0 && a.Type != AccountRevenue:
		return bad("Account %s: only a revenue account collects receipts.", a.Code)
	case a.Type.BalanceSheet() && (a.Unit != "" || a.Major != ""):
		return bad("Account %s is a balance-sheet account of its fund: it names no unit or major category.", a.Code)
	case a.Control != "" && !a.Type.BalanceSheet():
		return bad("Account %s: only a balance-sheet account controls %s.", a.Code, a.Control)
	case a.Control != "" && controls[a.Control].typ != a.Type:
		return bad("Account %s: %q is not a control of a %s account (%s).", a.Code, a.Control, a.Type, strings.Join(controlNames(a.Type), ", "))
	case len(a.Class) > 16:
		return bad("Account %s: the classification %q is longer than 16 characters.", a.Code, a.Class)
	}
	for _, s := range a.Sources {
		if !slices.Contains(ReceiptSources(), s) {
			return bad("Account %s: %q is not a receipt source (%s).", a.Code, s, strings.Join(ReceiptSources(), ", "))
		}
	}
	return nil
}

// applyChart writes the accounts of a change, checked against the chart
// as it will stand after the change: every fund and unit named exists and
// is of its kind, exactly one fund is the general fund, a receipt source
// is collected by one open account, an account's type does not change
// once it has an appropriation, and an account with money still
// available or encumbered is not closed.
func applyChart(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*ChartChange)
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, a := range p.Accounts {
		if seen[a.Code] {
			return Errorf(EINVALID, sectionChart, "Account %s is listed twice.", a.Code)
		}
		seen[a.Code] = true
		if old, ok := chart.byCode[a.Code]; ok && old.Type != a.Type {
			used, err := accountUsed(tx, a.Code)
			if err != nil {
				return err
			}
			if used {
				return chartRowError(p, i, Errorf(ECONFLICT, sectionChart, "Account %s has appropriations: its type stays %s.", a.Code, old.Type))
			}
		}
		if a.Closed {
			if old, ok := chart.byCode[a.Code]; !ok || !old.Closed {
				open, err := accountOpen(tx, a.Code)
				if err != nil {
					return err
				}
				if open {
					return chartRowError(p, i, Errorf(ECONFLICT, "§5.05", "Account %s still has money available or encumbered in an open year: it cannot be closed before the year-end close.", a.Code))
				}
			}
		}
		a.Changed, a.ChangedBy = c.At, c.Actor
		chart.put(a)
	}
	for i, a := range p.Accounts {
		if err := chart.checkRefs(a); err != nil {
			return chartRowError(p, i, err)
		}
	}
	if err := chart.checkWhole(); err != nil {
		return err
	}
	if err := tx.Put(CollectionChart, chartRecord, chart.Accounts); err != nil {
		return err
	}
	// The chart that first names a general fund opens the books (from
	// ledger format 5): the bills then open become their receivables.
	if err := OpenBooks(tx, c, env); err != nil {
		return err
	}
	source := p.Source
	if source == "" {
		source = "a form"
	}
	res.Note = fmt.Sprintf("chart: %d account(s) from %s", len(p.Accounts), source)
	return nil
}

// CheckChange checks accounts as the chart would stand with them, without
// the ledger's history (whether an account has appropriations): the
// check of an import's dry run. The index is the account at fault, -1
// for the chart as a whole.
func (ch Chart) CheckChange(accounts []ChartAccount) (int, error) {
	next := chartOf(ch.Accounts)
	for i, a := range accounts {
		if err := a.check(); err != nil {
			return i, err
		}
		next.put(a)
	}
	for i, a := range accounts {
		if err := next.checkRefs(a); err != nil {
			return i, err
		}
	}
	return -1, next.checkWhole()
}

// Chart is the chart of accounts as the ledger holds it.
type Chart struct {
	Accounts []ChartAccount // by code
	byCode   map[string]ChartAccount
	// shared says that Accounts and byCode are another chart's too (the
	// memo's): put copies them before it changes either.
	shared bool
}

func (ch *Chart) put(a ChartAccount) {
	if ch.shared {
		ch.Accounts, ch.byCode, ch.shared = slices.Clone(ch.Accounts), maps.Clone(ch.byCode), false
	}
	if _, ok := ch.byCode[a.Code]; !ok {
		ch.Accounts = append(ch.Accounts, a)
	} else {
		for i := range ch.Accounts {
			if ch.Accounts[i].Code == a.Code {
				ch.Accounts[i] = a
			}
		}
	}
	ch.byCode[a.Code] = a
	slices.SortFunc(ch.Accounts, func(x, y ChartAccount) int { return strings.Compare(x.Code, y.Code) })
}

// Account returns the account of code.
func (ch Chart) Account(code string) (ChartAccount, bool) {
	a, ok := ch.byCode[code]
	return a, ok
}

// Of returns the open accounts whose type is one of ts, by code.
func (ch Chart) Of(ts ...AccountType) []ChartAccount {
	var out []ChartAccount
	for _, a := range ch.Accounts {
		if slices.Contains(ts, a.Type) && !a.Closed {
			out = append(out, a)
		}
	}
	return out
}

// Units returns the open units that file estimates.
func (ch Chart) Units() []ChartAccount {
	return ch.Of(AccountDepartment, AccountCommittee, AccountCommission, AccountBoard)
}

// GeneralFund returns the general fund's code, "" when the chart has none
// yet.
func (ch Chart) GeneralFund() string {
	for _, a := range ch.Accounts {
		if a.General {
			return a.Code
		}
	}
	return ""
}

// Collector returns the open revenue account that collects receipt
// source s, "" when none does.
func (ch Chart) Collector(s string) string {
	for _, a := range ch.Accounts {
		if !a.Closed && slices.Contains(a.Sources, s) {
			return a.Code
		}
	}
	return ""
}

// Name returns "code name" of an account, or the code alone when the chart
// does not hold it.
func (ch Chart) Name(code string) string {
	if a, ok := ch.byCode[code]; ok {
		return a.Code + " " + a.Name
	}
	return code
}

func (ch Chart) checkRefs(a ChartAccount) error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionChart, format, args...) }
	if a.Fund != "" {
		f, ok := ch.byCode[a.Fund]
		switch {
		case !ok:
			return bad("Account %s names the fund %s, which the chart does not have.", a.Code, a.Fund)
		case f.Type != AccountFund:
			return bad("Account %s names %s as its fund, but %s is a %s.", a.Code, a.Fund, a.Fund, f.Type)
		}
	}
	if a.Unit != "" {
		u, ok := ch.byCode[a.Unit]
		switch {
		case !ok:
			return bad("Account %s names the unit %s, which the chart does not have.", a.Code, a.Unit)
		case !u.Type.Unit():
			return bad("Account %s names %s as its unit, but %s is a %s, not a department, committee, commission or board.", a.Code, a.Unit, a.Unit, u.Type)
		}
	}
	return nil
}

func (ch Chart) checkWhole() error {
	var general []string
	sources := map[string]string{}
	controlled := map[string]string{}
	for _, a := range ch.Accounts {
		if a.Control != "" && !a.Closed {
			k := a.Fund + "/" + string(a.Control)
			if other, ok := controlled[k]; ok {
				return Errorf(EINVALID, sectionChart, "Fund %s's %s would be both %s and %s: one account of a fund controls each.", a.Fund, a.Control, other, a.Code)
			}
			controlled[k] = a.Code
		}
		if a.General && !a.Closed {
			general = append(general, a.Code)
		}
		if a.Closed {
			continue
		}
		for _, s := range a.Sources {
			if other, ok := sources[s]; ok {
				return Errorf(EINVALID, sectionChart, "Receipts of %s would be collected by both %s and %s: one account collects each source.", s, other, a.Code)
			}
			sources[s] = a.Code
		}
	}
	if len(general) > 1 {
		return Errorf(EINVALID, "§5.05", "Only one fund is the general fund; the chart would have %s.", strings.Join(general, " and "))
	}
	if len(general) == 0 && len(ch.Of(AccountFund)) > 0 {
		return Errorf(EINVALID, "§5.05", "The chart needs its general fund (mark one fund general): unencumbered balances lapse to it at the close of the year.")
	}
	return nil
}

// chartRecord is the id of the one record that holds the whole chart (a
// village's chart is a few hundred accounts): a transaction reads and
// writes it whole.
const chartRecord = "accounts"

// loadChart reads the whole chart inside a transaction. The chart is
// the caller's own: the books add the control accounts they need to it.
func loadChart(tx Tx) (*Chart, error) {
	var raw json.RawMessage
	found, err := tx.Get(CollectionChart, chartRecord, &raw)
	if err != nil {
		return nil, err
	}
	if !found {
		return chartOf(nil), nil
	}
	if ch, ok := chartMemo.get(raw); ok {
		return ch, nil
	}
	var accounts []ChartAccount
	if err := json.Unmarshal(raw, &accounts); err != nil {
		return nil, fmt.Errorf("decode %s/%s: %w", CollectionChart, chartRecord, err)
	}
	ch := chartOf(accounts)
	chartMemo.put(raw, ch)
	return ch, nil
}

// chartMemo holds the chart last decoded, by the JSON it was decoded
// from. Every payment reads the chart twice (the lines of its books and
// the actuals of its revenue), and a village's chart of a few hundred
// accounts takes far longer to decode than to copy. It hands out charts
// that share its accounts until one is changed (Chart.shared): most
// readers only look, and the books add their control accounts to theirs.
var chartMemo memoChart

type memoChart struct {
	mu    sync.Mutex
	raw   string
	chart *Chart
}

func (m *memoChart) get(raw []byte) (*Chart, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chart == nil || m.raw != string(raw) {
		return nil, false
	}
	out := *m.chart
	out.shared = true
	return &out, true
}

func (m *memoChart) put(raw []byte, ch *Chart) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.raw, m.chart = string(raw), ch.clone()
}

// clone returns a chart of the same accounts that put may change without
// changing ch.
func (ch *Chart) clone() *Chart {
	return &Chart{Accounts: slices.Clone(ch.Accounts), byCode: maps.Clone(ch.byCode)}
}

// chartOf makes the chart of accounts, as putting each in turn would:
// a later account of a code already put replaces it. It sorts once, not
// once an account: it runs on every payment's path.
func chartOf(accounts []ChartAccount) *Chart {
	ch := &Chart{byCode: make(map[string]ChartAccount, len(accounts))}
	if len(accounts) > 0 {
		ch.Accounts = make([]ChartAccount, 0, len(accounts))
	}
	for _, a := range accounts {
		if _, ok := ch.byCode[a.Code]; ok {
			for i := range ch.Accounts {
				if ch.Accounts[i].Code == a.Code {
					ch.Accounts[i] = a
				}
			}
		} else {
			ch.Accounts = append(ch.Accounts, a)
		}
		ch.byCode[a.Code] = a
	}
	slices.SortFunc(ch.Accounts, func(x, y ChartAccount) int { return strings.Compare(x.Code, y.Code) })
	return ch
}

// Chart returns the chart of accounts (empty before the administrator
// enters it).
func (x Reads) Chart() (Chart, error) {
	accounts, _, err := get[[]ChartAccount](x.r, CollectionChart, chartRecord)
	if err != nil {
		return Chart{}, err
	}
	return *chartOf(accounts), nil
}
