package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The budget cycle (§5.01–§5.04, Wis. Stat. 65.90). The fiscal year is the
// calendar year. By September 15 each unit files its estimates with the
// administrator (§5.01(3)); the administrator prepares the proposed budget
// with every element §5.02(4) names and its summary (§5.02(5)); a class 1
// notice of the hearing is published at least 15 days before it (65.90(3));
// the board holds the hearing (§5.02(7)) and adopts the budget by two
// thirds of the members present (§5.03(1), the rule `5.03/budget-vote`).
// The adopted budget is frozen: only an amendment by two thirds of the
// entire board changes it (§5.04), with its class 1 notice within 15 days
// (65.90(5)(a)). Every change makes a new version of the budget, and the
// history keeps them all. Adoption makes the year's appropriations
// (appropriation.go).

// Kinds of the budget cycle.
const (
	KindBoardMember    Kind = "board_member"    // a member of the Village Board, and their term
	KindBudgetEstimate Kind = "budget_estimate" // §5.01(3): a unit's estimates
	KindBudgetProposal Kind = "budget_proposal" // §5.02(4): the proposed budget
	KindBudgetNotice   Kind = "budget_notice"   // 65.90(3), (5)(a): a class 1 notice published
	KindBudgetHearing  Kind = "budget_hearing"  // §5.02(7): the hearing held
	KindBudgetVote     Kind = "budget_vote"     // §5.03(1), §5.04: a vote to adopt or amend
)

// Collections of the budget cycle.
const (
	CollectionBoard           = "board"            // id: member id → BoardMember
	CollectionEstimates       = "budget-estimates" // id "<year>/<unit>" → Estimate
	CollectionEstimateHistory = "budget-estimate-history"
	CollectionBudgets         = "budgets"         // id "<year>" → Budget
	CollectionBudgetVersions  = "budget-versions" // id "<year>/<version>" → Budget as it was
)

// The notice periods of Wis. Stat. 65.90.
const (
	HearingNoticeDays   = 15 // 65.90(3)(a): the notice at least 15 days before the hearing
	AmendmentNoticeDays = 15 // 65.90(5)(a): the notice within 15 days after the amendment
)

// EstimatesDue is the day a unit's estimates for the budget of year are
// due: September 15 of the year before (§5.01(3)).
func EstimatesDue(year int) Date { return NewDate(year-1, 9, 15) }

// BoardMember is a member of the Village Board: the president or a
// trustee, for a term.
type BoardMember struct {
	ID   string `json:"id"` // "trustee-smith"
	Name string `json:"name"`
	Seat string `json:"seat"` // president | trustee
	From Date   `json:"from"`
	To   Date   `json:"to,omitzero"` // zero: still sitting
}

// Sits reports whether m sits on the board on day d.
func (m BoardMember) Sits(d Date) bool { return !d.Before(m.From) && (m.To.IsZero() || !d.After(m.To)) }

// Kind names the payload's kind.
func (*BoardMember) Kind() Kind { return KindBoardMember }

func (p *BoardMember) textFields() []textField {
	return []textField{oneLine("The member id", p.ID), oneLine("The name", p.Name), oneLine("The seat", p.Seat)}
}

var boardMemberKind = &Descriptor{
	Kind: KindBoardMember, Section: "§5.03", Since: 2,
	Roles: []Role{RoleAdministrator, RoleClerk},
	New:   func() Payload { return new(BoardMember) },
	Apply: applyBoardMember,
}

func applyBoardMember(tx Tx, c Command, env Env, res *Result) error {
	m := *c.Payload.(*BoardMember)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.03", format, args...) }
	switch {
	case !ValidUsername(m.ID):
		return bad("A member's id is 2 to 32 lower-case letters, digits, dots or dashes (like trustee-smith).")
	case strings.TrimSpace(m.Name) == "":
		return bad("A member needs a name.")
	case m.Seat != "president" && m.Seat != "trustee":
		return bad("A member's seat is president or trustee, not %q.", m.Seat)
	case m.From.IsZero():
		return bad("A member's term needs the day it began.")
	case !m.To.IsZero() && m.To.Before(m.From):
		return bad("A term cannot end (%s) before it begins (%s).", m.To, m.From)
	}
	members, err := loadBoard(tx)
	if err != nil {
		return err
	}
	members = slices.DeleteFunc(members, func(x BoardMember) bool { return x.ID == m.ID })
	members = append(members, m)
	size := env.Params.At(m.From).BoardSize
	for _, d := range []Date{m.From, m.To} {
		if d.IsZero() {
			continue
		}
		n := 0
		for _, x := range members {
			if x.Sits(d) {
				n++
			}
		}
		if n > size {
			return Errorf(ECONFLICT, "§5.03", "On %s the board would have %d members sitting; it has %d seats.", d, n, size)
		}
	}
	if m.Seat == "president" && RulesFormat(tx) >= 3 {
		// One Village President at a time: the terms of two members in
		// the President's seat may not overlap (from ledger format 3, so
		// that older logs replay as they applied).
		for _, x := range members {
			if x.ID != m.ID && x.Seat == "president" && termsOverlap(x, m) {
				return Errorf(ECONFLICT, "§5.03", "%s sits in the President's seat from %s%s; end that term before %s begins.", x.Name, x.From, termEnd(x), m.From)
			}
		}
	}
	res.Note = "board member " + m.ID
	return putBoard(tx, members)
}

// termsOverlap reports whether two members' terms share a day.
func termsOverlap(a, b BoardMember) bool {
	return (b.To.IsZero() || !a.From.After(b.To)) && (a.To.IsZero() || !b.From.After(a.To))
}

// termEnd says when a member's term ends, for a message.
func termEnd(m BoardMember) string {
	if m.To.IsZero() {
		return ""
	}
	return " to " + m.To.String()
}

const boardRecord = "members"

func loadBoard(tx Tx) ([]BoardMember, error) {
	var ms []BoardMember
	_, err := tx.Get(CollectionBoard, boardRecord, &ms)
	return ms, err
}

func putBoard(tx Tx, ms []BoardMember) error {
	slices.SortFunc(ms, func(a, b BoardMember) int { return strings.Compare(a.ID, b.ID) })
	return tx.Put(CollectionBoard, boardRecord, ms)
}

// Board returns the members of the Village Board, past and present.
func (x Reads) Board() ([]BoardMember, error) {
	ms, _, err := get[[]BoardMember](x.r, CollectionBoard, boardRecord)
	return ms, err
}

// Estimate is a unit's estimates for the budget of Year (§5.01(3)): for
// each of its line accounts, the prior year's actual receipts or
// expenditures, the current year's, and the estimate for next year.
type Estimate struct {
	Year  int            `json:"year"`
	Unit  string         `json:"unit"`
	Lines []EstimateLine `json:"lines"`
	Notes string         `json:"notes,omitempty"`
	// Set by the ledger.
	Version int      `json:"version,omitempty"`
	Filed   DateTime `json:"filed,omitzero"`
	FiledBy string   `json:"filed_by,omitempty"`
	Late    bool     `json:"late,omitempty"`
}

// EstimateLine is the estimate of one line account. Prior is the year
// before the current one, Current the current year (actual and
// expected), Next the year the budget is for.
type EstimateLine struct {
	Account string `json:"account"`
	Prior   Money  `json:"prior"`
	Current Money  `json:"current"`
	Next    Money  `json:"next"`
}

// Kind names the payload's kind.
func (*Estimate) Kind() Kind { return KindBudgetEstimate }

func (p *Estimate) textFields() []textField {
	f := []textField{oneLine("The unit", p.Unit), manyLines("The notes", p.Notes)}
	for _, l := range p.Lines {
		f = append(f, oneLine("An account", l.Account))
	}
	return f
}

var budgetEstimateKind = &Descriptor{
	Kind: KindBudgetEstimate, Section: "§5.01(3)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleDepartmentHead},
	New:   func() Payload { return new(Estimate) },
	Apply: applyEstimate,
}

// applyEstimate files a unit's estimates: the unit's head (or the
// administrator) files them, for an open unit of the chart and its own
// line accounts; a later filing replaces an earlier one and the history
// keeps both. Filed after September 15 it is marked late. After the
// budget is adopted the estimates for it are closed.
func applyEstimate(tx Tx, c Command, env Env, res *Result) error {
	e := *c.Payload.(*Estimate)
	const sec = "§5.01(3)"
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	unit, ok := chart.Account(e.Unit)
	if !ok || !unit.Type.Unit() || unit.Closed {
		return Errorf(EINVALID, sec, "There is no department, committee, commission or board %q in the chart of accounts.", e.Unit)
	}
	if err := mayActFor(tx, c, e.Unit, "file the estimates of"); err != nil {
		return err
	}
	b, _, err := loadBudget(tx, e.Year)
	if err != nil {
		return err
	}
	if b.Status == BudgetAdopted {
		return Errorf(ECONFLICT, sec, "The budget for %d was adopted on %s: its estimates are closed.", e.Year, b.AdoptedOn)
	}
	if e.Year < c.At.Date.Year() || e.Year > c.At.Date.Year()+1 {
		return Errorf(EINVALID, sec, "Estimates are filed for next year's budget (or this year's, before it is adopted), not %d.", e.Year)
	}
	if len(e.Lines) == 0 {
		return Errorf(EINVALID, sec, "The estimates of %s need at least one line.", e.Unit)
	}
	seen := map[string]bool{}
	for _, l := range e.Lines {
		a, ok := chart.Account(l.Account)
		switch {
		case !ok || !a.Type.Line() || a.Closed:
			return Errorf(EINVALID, sec, "%q is not an open revenue or expenditure account of the chart.", l.Account)
		case a.Unit != "" && a.Unit != e.Unit:
			return Errorf(EINVALID, sec, "Account %s belongs to %s, not %s: each unit files its own accounts.", l.Account, a.Unit, e.Unit)
		case a.Unit == "" && a.Type == AccountExpenditure:
			return Errorf(EINVALID, sec, "Account %s names no unit.", l.Account)
		case seen[l.Account]:
			return Errorf(EINVALID, sec, "Account %s is listed twice.", l.Account)
		case l.Prior.IsNegative() || l.Current.IsNegative() || l.Next.IsNegative():
			return Errorf(EINVALID, sec, "Account %s: the amounts are $0.00 or more.", l.Account)
		}
		seen[l.Account] = true
	}
	id := fmt.Sprintf("%04d/%s", e.Year, e.Unit)
	var prev Estimate
	if _, err := tx.Get(CollectionEstimates, id, &prev); err != nil {
		return err
	}
	e.Version, e.Filed, e.FiledBy = prev.Version+1, c.At, c.Actor
	e.Late = c.At.Date.After(EstimatesDue(e.Year))
	if err := tx.Put(CollectionEstimateHistory, fmt.Sprintf("%s/%03d", id, e.Version), e); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("estimates of %s for %d, version %d", e.Unit, e.Year, e.Version)
	return tx.Put(CollectionEstimates, id, e)
}

// mayActFor refuses a department head acting for a unit they do not head.
func mayActFor(tx Tx, c Command, unit, what string) error {
	u, ok, err := actor(tx, c)
	if err != nil || !ok || u.Role != RoleDepartmentHead {
		return err
	}
	if u.Unit != unit {
		return Errorf(EFORBIDDEN, "", "%s heads %s: they may not %s %s.", u.Name, u.Unit, what, unit)
	}
	return nil
}

// EstimateStatus is where one unit stands with its estimates.
type EstimateStatus struct {
	Unit     ChartAccount `json:"unit"`
	Estimate *Estimate    `json:"estimate,omitempty"`
	Late     bool         `json:"late"` // filed late, or not filed and past due
}

// EstimateTracker lists every open unit, whether it filed its estimates
// for year and whether it is late, as of today: late is flagged from
// September 16.
func (x Reads) EstimateTracker(year int, today Date) ([]EstimateStatus, error) {
	chart, err := x.Chart()
	if err != nil {
		return nil, err
	}
	filed, err := all[Estimate](x.r, CollectionEstimates, yearID(year)+"/")
	if err != nil {
		return nil, err
	}
	var out []EstimateStatus
	for _, u := range chart.Units() {
		st := EstimateStatus{Unit: u}
		if i := slices.IndexFunc(filed, func(e Estimate) bool { return e.Unit == u.Code }); i >= 0 {
			st.Estimate = &filed[i]
			st.Late = filed[i].Late
		} else {
			st.Late = today.After(EstimatesDue(year))
		}
		out = append(out, st)
	}
	return out, nil
}

// Estimates returns the estimates filed for year.
func (x Reads) Estimates(year int) ([]Estimate, error) {
	return all[Estimate](x.r, CollectionEstimates, yearID(year)+"/")
}

// EstimateHistory returns every filing of unit's estimates for year.
func (x Reads) EstimateHistory(year int, unit string) ([]Estimate, error) {
	return all[Estimate](x.r, CollectionEstimateHistory, fmt.Sprintf("%04d/%s/", year, unit))
}

// BudgetStatus is where a year's budget stands.
type BudgetStatus string

// Budget statuses.
const (
	BudgetProposed BudgetStatus = "proposed"
	BudgetAdopted  BudgetStatus = "adopted"
)

// Budget is the budget of a fiscal year with every element of §5.02(4).
// Its lines are the anticipated revenue of each revenue account and the
// proposed (then adopted) appropriation of each expenditure account; the
// actuals of the preceding and current years come from the ledger and
// the units' estimates when it is read (BudgetView).
type Budget struct {
	Year   int          `json:"year"`
	Status BudgetStatus `json:"status"`
	// Version counts the budget's changes: each proposal, the adoption
	// and each amendment.
	Version int          `json:"version"`
	Lines   []BudgetLine `json:"lines"`
	// Debts is all existing indebtedness (§5.02(4)(a)).
	Debts []Debt `json:"debts,omitempty"`
	// Financing is the other financing sources and uses (§5.02(5)(c)).
	Financing []Financing `json:"financing,omitempty"`
	// Balances is each fund's balance at the beginning of the year.
	Balances []FundBalance `json:"balances,omitempty"`
	// Sections is the other information the board asks for (§5.02(4)(h)).
	Sections []BudgetSection `json:"sections,omitempty"`

	Notices    []BudgetNotice     `json:"notices,omitempty"`
	Hearing    *BudgetHearing     `json:"hearing,omitempty"`
	Votes      []BudgetVoteRecord `json:"votes,omitempty"`
	AdoptedOn  Date               `json:"adopted_on,omitzero"`
	Amendments int                `json:"amendments,omitempty"`
	Changed    DateTime           `json:"changed,omitzero"`
	ChangedBy  string             `json:"changed_by,omitempty"`
}

// BudgetLine is one line account of the budget.
type BudgetLine struct {
	Account string `json:"account"`
	Amount  Money  `json:"amount"`
	// Continuing marks an appropriation for works that will not be
	// completed within the year (§5.05).
	Continuing bool   `json:"continuing,omitempty"`
	Purpose    string `json:"purpose,omitempty"`
}

// Debt is one existing indebtedness.
type Debt struct {
	Description string `json:"description"`
	Outstanding Money  `json:"outstanding"`
	DueInYear   Money  `json:"due_in_year"`
}

// Financing is another financing source (Use false) or use.
type Financing struct {
	Description string `json:"description"`
	Fund        string `json:"fund"`
	Use         bool   `json:"use,omitempty"`
	Amount      Money  `json:"amount"`
}

// FundBalance is a fund's balance on the first day of the year.
type FundBalance struct {
	Fund      string `json:"fund"`
	Beginning Money  `json:"beginning"`
}

// BudgetSection is a free section of the budget.
type BudgetSection struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// BudgetNotice is a class 1 notice published: of the hearing, or of an
// amendment.
type BudgetNotice struct {
	Purpose   string `json:"purpose"`             // hearing | amendment
	Amendment int    `json:"amendment,omitempty"` // which amendment
	Published Date   `json:"published"`
	Newspaper string `json:"newspaper"`
	// HearingOn is the day the notice of the hearing names (ledger format
	// 7, DocumentsFormat): the kiosk shows the proposed budget as proposed
	// for a hearing on that day. A node sends it only once the ledger is
	// at format 7; below it the notice is recorded without it.
	HearingOn Date     `json:"hearing_on,omitzero"`
	Recorded  DateTime `json:"recorded,omitzero"`
	By        string   `json:"by,omitempty"`
}

// BudgetHearing is the hearing held.
type BudgetHearing struct {
	On       Date     `json:"on"`
	Notes    string   `json:"notes,omitempty"`
	Recorded DateTime `json:"recorded,omitzero"`
	By       string   `json:"by,omitempty"`
}

// MemberVote is one member's vote.
type MemberVote struct {
	Member string `json:"member"`
	Vote   string `json:"vote"` // aye | nay | abstain | absent
}

// BudgetVoteRecord is a vote of the board on the budget, as recorded,
// with its outcome by `5.03/budget-vote`.
type BudgetVoteRecord struct {
	Action    string       `json:"action"` // adopt | amend
	On        Date         `json:"on"`
	Amendment int          `json:"amendment,omitempty"`
	Votes     []MemberVote `json:"votes"`
	Present   int          `json:"present"`
	Ayes      int          `json:"ayes"`
	Nays      int          `json:"nays"`
	Board     int          `json:"board"`
	Required  int          `json:"required"`
	Passed    bool         `json:"passed"`
	Changes   []AmendLine  `json:"changes,omitempty"`
	Purpose   string       `json:"purpose,omitempty"`
	Recorded  DateTime     `json:"recorded,omitzero"`
	By        string       `json:"by,omitempty"`
}

// AmendLine is one change an amendment makes: Change (signed) added to a
// line's amount; a line the budget lacks is added.
type AmendLine struct {
	Account    string `json:"account"`
	Change     Money  `json:"change"`
	Continuing bool   `json:"continuing,omitempty"`
	Purpose    string `json:"purpose,omitempty"`
}

func loadBudget(tx Tx, year int) (Budget, bool, error) {
	var b Budget
	ok, err := tx.Get(CollectionBudgets, yearID(year), &b)
	return b, ok, err
}

// putBudget writes a new version of the budget and keeps the old one.
func putBudget(tx Tx, c Command, b Budget) error {
	b.Version++
	b.Changed, b.ChangedBy = c.At, c.Actor
	if err := tx.Put(CollectionBudgetVersions, fmt.Sprintf("%04d/%03d", b.Year, b.Version), b); err != nil {
		return err
	}
	return tx.Put(CollectionBudgets, yearID(b.Year), b)
}

// BudgetProposal is the proposed budget of a year as the administrator
// prepares it (§5.02(4)); it replaces an earlier proposal until the
// budget is adopted.
type BudgetProposal struct {
	Year      int             `json:"year"`
	Lines     []BudgetLine    `json:"lines"`
	Debts     []Debt          `json:"debts,omitempty"`
	Financing []Financing     `json:"financing,omitempty"`
	Balances  []FundBalance   `json:"balances,omitempty"`
	Sections  []BudgetSection `json:"sections,omitempty"`
}

// Kind names the payload's kind.
func (*BudgetProposal) Kind() Kind { return KindBudgetProposal }

func (p *BudgetProposal) textFields() []textField {
	var f []textField
	for _, l := range p.Lines {
		f = append(f, oneLine("An account", l.Account), oneLine("A purpose", l.Purpose))
	}
	for _, d := range p.Debts {
		f = append(f, oneLine("A debt", d.Description))
	}
	for _, x := range p.Financing {
		f = append(f, oneLine("A financing source or use", x.Description), oneLine("A fund", x.Fund))
	}
	for _, s := range p.Sections {
		f = append(f, oneLine("A section's title", s.Title), manyLines("A section", s.Body))
	}
	return f
}

var budgetProposalKind = &Descriptor{
	Kind: KindBudgetProposal, Section: "§5.02(4)", Since: 2,
	Roles: []Role{RoleAdministrator},
	New:   func() Payload { return new(BudgetProposal) },
	Apply: applyBudgetProposal,
}

func applyBudgetProposal(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BudgetProposal)
	const sec = "§5.02(4)"
	b, _, err := loadBudget(tx, p.Year)
	if err != nil {
		return err
	}
	if b.Status == BudgetAdopted {
		return Errorf(ECONFLICT, "§5.04", "The budget for %d was adopted on %s: only an amendment by two thirds of the entire board changes it.", p.Year, b.AdoptedOn)
	}
	if p.Year < c.At.Date.Year() || p.Year > c.At.Date.Year()+1 {
		return Errorf(EINVALID, sec, "A budget is proposed for next year (or this year, before it is adopted), not %d.", p.Year)
	}
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	if err := checkBudgetLines(chart, p.Lines); err != nil {
		return err
	}
	for _, d := range p.Debts {
		if strings.TrimSpace(d.Description) == "" || d.Outstanding.IsNegative() || d.DueInYear.IsNegative() {
			return Errorf(EINVALID, sec, "Each debt needs a description and amounts of $0.00 or more.")
		}
	}
	for _, x := range p.Financing {
		if f, ok := chart.Account(x.Fund); !ok || f.Type != AccountFund {
			return Errorf(EINVALID, "§5.02(5)(c)", "The financing %q names the fund %q, which is not a fund of the chart.", x.Description, x.Fund)
		}
		if strings.TrimSpace(x.Description) == "" || !x.Amount.IsPositive() {
			return Errorf(EINVALID, "§5.02(5)(c)", "Each other financing source or use needs a description and an amount over $0.00.")
		}
	}
	seenFund := map[string]bool{}
	for _, fb := range p.Balances {
		if f, ok := chart.Account(fb.Fund); !ok || f.Type != AccountFund || seenFund[fb.Fund] {
			return Errorf(EINVALID, "§5.02(5)(d)", "The balance of %q: not a fund of the chart, or listed twice.", fb.Fund)
		}
		seenFund[fb.Fund] = true
	}
	for _, s := range p.Sections {
		if strings.TrimSpace(s.Title) == "" || strings.TrimSpace(s.Body) == "" {
			return Errorf(EINVALID, "§5.02(4)(h)", "Each section of other information needs a title and its text.")
		}
	}
	b.Year, b.Status = p.Year, BudgetProposed
	b.Lines, b.Debts, b.Financing, b.Balances, b.Sections = p.Lines, p.Debts, p.Financing, p.Balances, p.Sections
	res.Note = fmt.Sprintf("proposed budget %d, version %d", p.Year, b.Version+1)
	return putBudget(tx, c, b)
}

func checkBudgetLines(chart *Chart, lines []BudgetLine) error {
	seen := map[string]bool{}
	for _, l := range lines {
		a, ok := chart.Account(l.Account)
		switch {
		case !ok || !a.Type.Line() || a.Closed:
			return Errorf(EINVALID, "§5.02(4)", "%q is not an open revenue or expenditure account of the chart.", l.Account)
		case seen[l.Account]:
			return Errorf(EINVALID, "§5.02(4)", "Account %s is listed twice.", l.Account)
		case l.Amount.IsNegative():
			return Errorf(EINVALID, "§5.02(4)", "Account %s: the amount is $0.00 or more.", l.Account)
		case l.Continuing && (a.Type != AccountExpenditure || strings.TrimSpace(l.Purpose) == ""):
			return Errorf(EINVALID, "§5.05", "Account %s: a continuing appropriation is an expenditure line with the works it is for.", l.Account)
		}
		seen[l.Account] = true
	}
	return nil
}

// BudgetNoticeChange records a class 1 notice published.
type BudgetNoticeChange struct {
	Year int `json:"year"`
	BudgetNotice
}

// Kind names the payload's kind.
func (*BudgetNoticeChange) Kind() Kind { return KindBudgetNotice }

func (p *BudgetNoticeChange) textFields() []textField {
	return []textField{oneLine("The purpose", p.Purpose), oneLine("The newspaper", p.Newspaper)}
}

var budgetNoticeKind = &Descriptor{
	Kind: KindBudgetNotice, Section: "§5.02(7)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleClerk},
	New:   func() Payload { return new(BudgetNoticeChange) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		p := c.Payload.(*BudgetNoticeChange)
		const sec = "Wis. Stat. 65.90"
		b, ok, err := loadBudget(tx, p.Year)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(ENOTFOUND, sec, "There is no budget for %d yet: propose it first.", p.Year)
		}
		switch {
		case p.Published.IsZero() || p.Published.After(c.At.Date):
			return Errorf(EINVALID, sec, "A notice is recorded once published: its date, today or before.")
		case strings.TrimSpace(p.Newspaper) == "":
			return Errorf(EINVALID, sec, "A class 1 notice names the newspaper (or the posting) that published it.")
		}
		switch p.Purpose {
		case "hearing":
			if b.Hearing != nil {
				return Errorf(ECONFLICT, sec, "The hearing on the %d budget was held on %s.", p.Year, b.Hearing.On)
			}
			p.Amendment = 0
		case "amendment":
			if p.Amendment < 1 || p.Amendment > b.Amendments {
				return Errorf(EINVALID, sec, "There is no amendment %d of the %d budget.", p.Amendment, p.Year)
			}
			v := b.amendmentVote(p.Amendment)
			if p.Published.Before(v.On) {
				return Errorf(EINVALID, sec, "The notice of amendment %d is dated %s, before the amendment (%s).", p.Amendment, p.Published, v.On)
			}
		default:
			return Errorf(EINVALID, sec, "A budget notice is of the hearing or of an amendment, not %q.", p.Purpose)
		}
		n := p.BudgetNotice
		if RulesFormat(tx) < DocumentsFormat {
			n.HearingOn = Date{}
		} else if !n.HearingOn.IsZero() {
			switch {
			case p.Purpose != "hearing":
				return Errorf(EINVALID, sec, "Only the notice of the hearing names the hearing's day.")
			case n.HearingOn.Before(p.Published):
				return Errorf(EINVALID, sec, "The hearing (%s) cannot be before the notice of it was published (%s).", n.HearingOn, p.Published)
			}
		}
		n.Recorded, n.By = c.At, c.Actor
		b.Notices = append(b.Notices, n)
		res.Note = fmt.Sprintf("notice of the %s published %s", p.Purpose, p.Published)
		return putBudget(tx, c, b)
	},
}

// PublicOn reports whether the budget is a copy for citizens on day
// (§5.02(6); Wis. Stat. 65.90): once adopted, and while proposed from
// the day the notice of its hearing was published. hearing is the day
// that notice names (zero when it names none), or the day the hearing
// was held once it is recorded.
func (b Budget) PublicOn(day Date) (public bool, hearing Date) {
	if b.Hearing != nil {
		hearing = b.Hearing.On
	}
	noticed := false
	for _, n := range b.Notices {
		if n.Purpose == "hearing" && !n.Published.After(day) {
			noticed = true
			if hearing.IsZero() {
				hearing = n.HearingOn
			}
		}
	}
	return b.Status == BudgetAdopted || noticed, hearing
}

// amendmentVote returns the vote that passed amendment n.
func (b Budget) amendmentVote(n int) BudgetVoteRecord {
	for _, v := range b.Votes {
		if v.Action == BudgetAmend && v.Passed && v.Amendment == n {
			return v
		}
	}
	return BudgetVoteRecord{}
}

// LatestHearingNotice is the last day a class 1 notice may be published
// for a hearing on day: 15 days before it (65.90(3)(a)).
func LatestHearingNotice(hearing Date) Date { return hearing.AddDays(-HearingNoticeDays) }

// BudgetHearingChange records the hearing held.
type BudgetHearingChange struct {
	Year int `json:"year"`
	BudgetHearing
}

// Kind names the payload's kind.
func (*BudgetHearingChange) Kind() Kind { return KindBudgetHearing }

func (p *BudgetHearingChange) textFields() []textField {
	return []textField{manyLines("The notes", p.Notes)}
}

var budgetHearingKind = &Descriptor{
	Kind: KindBudgetHearing, Section: "§5.02(7)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleClerk},
	New:   func() Payload { return new(BudgetHearingChange) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		p := c.Payload.(*BudgetHearingChange)
		const sec = "§5.02(7)"
		b, ok, err := loadBudget(tx, p.Year)
		switch {
		case err != nil:
			return err
		case !ok:
			return Errorf(ENOTFOUND, sec, "There is no proposed budget for %d to hear.", p.Year)
		case b.Status == BudgetAdopted:
			return Errorf(ECONFLICT, sec, "The budget for %d is adopted.", p.Year)
		case b.Hearing != nil:
			return Errorf(ECONFLICT, sec, "The hearing on the %d budget was held on %s.", p.Year, b.Hearing.On)
		case p.On.IsZero() || p.On.After(c.At.Date):
			return Errorf(EINVALID, sec, "A hearing is recorded once held: its date, today or before.")
		}
		latest := LatestHearingNotice(p.On)
		noticed := false
		for _, n := range b.Notices {
			if n.Purpose == "hearing" && !n.Published.After(latest) {
				noticed = true
			}
		}
		if !noticed {
			return Errorf(EINVALID, "Wis. Stat. 65.90(3)", "A hearing on %s needs its class 1 notice published on or before %s (15 days before); no such notice is recorded.", p.On, latest)
		}
		h := p.BudgetHearing
		h.Recorded, h.By = c.At, c.Actor
		b.Hearing = &h
		res.Note = fmt.Sprintf("hearing on the %d budget held %s", p.Year, p.On)
		return putBudget(tx, c, b)
	},
}

// BudgetVoteChange records a vote of the board to adopt the budget or
// amend it, with each member's vote.
type BudgetVoteChange struct {
	Year   int          `json:"year"`
	Action string       `json:"action"` // adopt | amend
	On     Date         `json:"on"`
	Votes  []MemberVote `json:"votes"`
	// Present is the number of members present, as the minutes record it.
	Present int         `json:"present"`
	Changes []AmendLine `json:"changes,omitempty"` // amend: what it changes
	Purpose string      `json:"purpose,omitempty"` // amend: why
}

// Kind names the payload's kind.
func (*BudgetVoteChange) Kind() Kind { return KindBudgetVote }

func (p *BudgetVoteChange) textFields() []textField {
	f := []textField{oneLine("The purpose", p.Purpose)}
	for _, l := range p.Changes {
		f = append(f, oneLine("An account", l.Account), oneLine("A purpose", l.Purpose))
	}
	for _, v := range p.Votes {
		f = append(f, oneLine("A member", v.Member))
	}
	return f
}

var budgetVoteKind = &Descriptor{
	Kind: KindBudgetVote, Section: "§5.03(1)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleClerk},
	New:   func() Payload { return new(BudgetVoteChange) },
	Apply: applyBudgetVote,
}

// applyBudgetVote records a vote. Its outcome is the rule's
// (ComputeBudgetVote): a vote that fails is recorded in the history and
// changes nothing else; one that passes adopts the budget (and makes the
// year's appropriations) or amends it.
func applyBudgetVote(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BudgetVoteChange)
	b, ok, err := loadBudget(tx, p.Year)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ENOTFOUND, sectionBudget, "There is no proposed budget for %d.", p.Year)
	}
	if p.On.IsZero() || p.On.After(c.At.Date) {
		return Errorf(EINVALID, sectionBudget, "A vote is recorded once taken: its date, today or before.")
	}
	switch p.Action {
	case BudgetAdopt:
		switch {
		case b.Status == BudgetAdopted:
			return Errorf(ECONFLICT, sectionBudget, "The budget for %d was adopted on %s; a change is an amendment.", p.Year, b.AdoptedOn)
		case b.Hearing == nil || b.Hearing.On.After(p.On):
			return Errorf(EINVALID, "§5.02(7)", "The board adopts the budget after its hearing; no hearing is recorded on or before %s.", p.On)
		case len(p.Changes) > 0:
			return Errorf(EINVALID, sectionBudget, "An adoption adopts the proposed budget as it stands; change the proposal first.")
		}
	case BudgetAmend:
		switch {
		case b.Status != BudgetAdopted:
			return Errorf(ECONFLICT, "§5.04", "The budget for %d is not adopted yet: change the proposal instead.", p.Year)
		case p.On.Before(b.AdoptedOn):
			return Errorf(EINVALID, "§5.04", "An amendment dated %s is before the adoption of the budget (%s).", p.On, b.AdoptedOn)
		case len(p.Changes) == 0 || strings.TrimSpace(p.Purpose) == "":
			return Errorf(EINVALID, "§5.04", "An amendment needs what it changes and why.")
		}
	default:
		return Errorf(EINVALID, sectionBudget, "A budget vote is to adopt or to amend, not %q.", p.Action)
	}
	board, err := loadBoard(tx)
	if err != nil {
		return err
	}
	size := env.Params.At(p.On).BoardSize
	ayes, nays, abstain, err := tallyVotes(p, board)
	if err != nil {
		return err
	}
	if ayes+nays+abstain != p.Present {
		return Errorf(EINVALID, sectionBudget, "The votes do not add up: %d ayes, %d nays and %d abstentions, but %d members present.", ayes, nays, abstain, p.Present)
	}
	outcome, err := ComputeBudgetVote(BudgetVoteInput{Action: p.Action, BoardSize: size, Present: p.Present, Ayes: ayes, On: p.On}, env.Params)
	if err != nil {
		return err
	}
	v := BudgetVoteRecord{Action: p.Action, On: p.On, Votes: p.Votes, Present: p.Present, Ayes: ayes, Nays: nays, Board: size,
		Required: outcome.RequiredAyes, Passed: outcome.Passes, Changes: p.Changes, Purpose: p.Purpose, Recorded: c.At, By: c.Actor}
	if outcome.Passes && p.Action == BudgetAmend {
		v.Amendment = b.Amendments + 1
	}
	if outcome.Passes {
		var err error
		if p.Action == BudgetAdopt {
			err = adoptBudget(tx, &b, p.On)
		} else {
			err = amendBudget(tx, &b, p.Changes)
		}
		if err != nil {
			return err
		}
	}
	b.Votes = append(b.Votes, v)
	res.Note = fmt.Sprintf("budget %d: %s %s (%d ayes, %d required)", p.Year, p.Action, map[bool]string{true: "passed", false: "failed"}[outcome.Passes], ayes, outcome.RequiredAyes)
	return putBudget(tx, c, b)
}

// tallyVotes counts the members' votes: each a member sitting on the day,
// at most once.
func tallyVotes(p *BudgetVoteChange, board []BoardMember) (ayes, nays, abstain int, err error) {
	seen := map[string]bool{}
	for _, v := range p.Votes {
		i := slices.IndexFunc(board, func(m BoardMember) bool { return m.ID == v.Member })
		switch {
		case i < 0:
			return 0, 0, 0, Errorf(EINVALID, sectionBudget, "%q is not a member of the board.", v.Member)
		case !board[i].Sits(p.On):
			return 0, 0, 0, Errorf(EINVALID, sectionBudget, "%s did not sit on the board on %s.", board[i].Name, p.On)
		case seen[v.Member]:
			return 0, 0, 0, Errorf(EINVALID, sectionBudget, "%s votes twice.", board[i].Name)
		}
		seen[v.Member] = true
		switch v.Vote {
		case "aye":
			ayes++
		case "nay":
			nays++
		case "abstain":
			abstain++
		case "absent":
		default:
			return 0, 0, 0, Errorf(EINVALID, sectionBudget, "%s's vote is aye, nay, abstain or absent, not %q.", board[i].Name, v.Vote)
		}
	}
	if ayes > p.Present {
		return 0, 0, 0, Errorf(EINVALID, sectionBudget, "%d ayes but only %d members present.", ayes, p.Present)
	}
	return ayes, nays, abstain, nil
}

// adoptBudget adopts b on day on and makes the appropriations of its year:
// one for each expenditure line (added to what the close of the previous
// year carried, if anything).
func adoptBudget(tx Tx, b *Budget, on Date) error {
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	if err := checkBudgetLines(chart, b.Lines); err != nil {
		return err
	}
	fy, _, err := loadFiscalYear(tx, b.Year)
	if err != nil {
		return err
	}
	fy.Year = b.Year
	for _, l := range b.Lines {
		acct, _ := chart.Account(l.Account)
		if acct.Type != AccountExpenditure {
			continue
		}
		var a Appropriation
		if _, err := tx.Get(CollectionAppropriations, AppropriationID(b.Year, l.Account), &a); err != nil {
			return err
		}
		a.Year, a.Line, a.Unit, a.Fund = b.Year, l.Account, acct.Unit, acct.Fund
		a.Adopted = l.Amount
		if l.Continuing {
			a.Continuing, a.Purpose = true, l.Purpose
		}
		if err := putAppropriation(tx, a); err != nil {
			return err
		}
		if !slices.Contains(fy.Lines, l.Account) {
			fy.Lines = append(fy.Lines, l.Account)
		}
	}
	slices.Sort(fy.Lines)
	b.Status, b.AdoptedOn = BudgetAdopted, on
	return putFiscalYear(tx, fy)
}

// amendBudget applies the changes of an amendment that passed: a line's
// amount may not fall below zero, nor an appropriation below what is
// already expended and encumbered of it.
func amendBudget(tx Tx, b *Budget, changes []AmendLine) error {
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	fy, _, err := loadFiscalYear(tx, b.Year)
	if err != nil {
		return err
	}
	if fy.Closed {
		return Errorf(ECONFLICT, "§5.04", "The year %d is closed.", b.Year)
	}
	seen := map[string]bool{}
	for _, ch := range changes {
		if seen[ch.Account] {
			return Errorf(EINVALID, "§5.04", "Account %s is changed twice.", ch.Account)
		}
		seen[ch.Account] = true
		i := slices.IndexFunc(b.Lines, func(l BudgetLine) bool { return l.Account == ch.Account })
		if i < 0 {
			b.Lines = append(b.Lines, BudgetLine{Account: ch.Account})
			i = len(b.Lines) - 1
		}
		l := &b.Lines[i]
		l.Amount = l.Amount.Add(ch.Change)
		if ch.Continuing {
			l.Continuing, l.Purpose = true, ch.Purpose
		}
		if l.Amount.IsNegative() {
			return Errorf(EINVALID, "§5.04", "The amendment would make account %s negative (%s).", ch.Account, dollarsIn(tx, l.Amount))
		}
		acct, ok := chart.Account(ch.Account)
		if !ok {
			return Errorf(EINVALID, "§5.04", "%q is not an account of the chart.", ch.Account)
		}
		if acct.Type != AccountExpenditure {
			continue
		}
		var a Appropriation
		if _, err := tx.Get(CollectionAppropriations, AppropriationID(b.Year, ch.Account), &a); err != nil {
			return err
		}
		if a.Closed {
			return Errorf(ECONFLICT, "§5.04", "The appropriation for %s in %d is closed.", ch.Account, b.Year)
		}
		a.Year, a.Line, a.Unit, a.Fund = b.Year, ch.Account, acct.Unit, acct.Fund
		a.Amended = a.Amended.Add(ch.Change)
		if ch.Continuing {
			a.Continuing, a.Purpose = true, ch.Purpose
		}
		if a.Available().IsNegative() {
			return Errorf(ECONFLICT, "§5.04", "The amendment would leave the appropriation for %s below what is already spent and encumbered (%s).", ch.Account, dollarsIn(tx, a.Expended.Add(a.Encumbered)))
		}
		if err := putAppropriation(tx, a); err != nil {
			return err
		}
		if !slices.Contains(fy.Lines, ch.Account) {
			fy.Lines = append(fy.Lines, ch.Account)
			slices.Sort(fy.Lines)
		}
	}
	if err := checkBudgetLines(chart, b.Lines); err != nil {
		return err
	}
	b.Amendments++
	return putFiscalYear(tx, fy)
}

// Budget returns the budget of year as it stands; ok is false when none
// was proposed.
func (x Reads) Budget(year int) (Budget, bool, error) {
	return get[Budget](x.r, CollectionBudgets, yearID(year))
}

// AdoptedBudgets returns the adopted budgets, newest year first: the
// copies for citizens of §5.02(6).
func (x Reads) AdoptedBudgets() ([]Budget, error) {
	bs, err := all[Budget](x.r, CollectionBudgets, "")
	bs = slices.DeleteFunc(bs, func(b Budget) bool { return b.Status != BudgetAdopted })
	slices.SortFunc(bs, func(a, b Budget) int { return b.Year - a.Year })
	return bs, err
}

// BudgetVersions returns every version of year's budget, oldest first.
func (x Reads) BudgetVersions(year int) ([]Budget, error) {
	return all[Budget](x.r, CollectionBudgetVersions, yearID(year)+"/")
}

// BudgetVersion returns one version of year's budget.
func (x Reads) BudgetVersion(year, version int) (Budget, error) {
	return must[Budget](x.r, CollectionBudgetVersions, fmt.Sprintf("%04d/%03d", year, version), "budget version")
}
