package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Appropriation control (§5.05, §5.12(6), §5.16). No money is drawn from
// the treasury, and no obligation incurred, except in pursuance of the
// annual appropriation in the adopted budget or as amended under §5.04.
// The adopted budget makes one appropriation for each expenditure line of
// the year; every purchase order and every employment is drawn against one
// of them (it is encumbered), and every expense is charged to one (it is
// expended). What is available is always
//
//	available = appropriation − expended − open encumbrances,
//
// kept current by the commands that change it, and an order over what is
// available is refused before it is issued. At the close of the year the
// unencumbered balance of each appropriation lapses to the general fund;
// the encumbrances of orders still open, and continuing appropriations for
// works not completed within the year, carry forward to the next year
// until they are accomplished or abandoned.

const sectionAppropriation = "§5.05"

// Kinds of appropriation control.
const (
	KindEmployment           Kind = "employment"        // §5.16: an employment drawn against an appropriation
	KindExpense              Kind = "expense"           // an expense charged to an appropriation
	KindAppropriationEnd     Kind = "appropriation_end" // §5.05: a continuing appropriation accomplished or abandoned
	KindYearEndClose         Kind = "year_end_close"    // §5.05: the close of a fiscal year
	CollectionAppropriations      = "appropriations"    // id "<year>/<line>" → Appropriation
	CollectionFiscalYears         = "fiscal-years"      // id "<year>" → FiscalYear
	CollectionEmployment          = "employment"        // id → Employment
	CollectionExpenses            = "expenses"          // id → Expense
	CollectionActuals             = "actuals"           // id "<year>/<month>/<account>" → Actual
	collectionCounters            = "counters"          // id series → the last number given
	unclassified                  = "-"                 // the account of receipts no account collects
)

// Appropriation is the appropriation of one expenditure line for one
// fiscal year.
type Appropriation struct {
	Year int    `json:"year"`
	Line string `json:"line"`
	Unit string `json:"unit"`
	Fund string `json:"fund"`
	// Adopted is the line in the adopted budget, Amended the net of the
	// amendments since (§5.04), Carried what the close of the previous
	// year carried forward (open encumbrances and continuing balances).
	Adopted Money `json:"adopted"`
	Amended Money `json:"amended"`
	Carried Money `json:"carried"`
	// Encumbered is what open orders and employments hold of it,
	// Expended what was charged to it.
	Encumbered Money `json:"encumbered"`
	Expended   Money `json:"expended"`
	// Continuing marks an appropriation for works not completed within
	// the year (§5.05): it carries forward until Ended.
	Continuing bool   `json:"continuing,omitempty"`
	Purpose    string `json:"purpose,omitempty"`
	Ended      *Ended `json:"ended,omitempty"`
	// Closed is set by the year-end close (or by Ended); Lapsed is what
	// lapsed to the general fund, CarriedForward what went to next year.
	Closed         bool  `json:"closed,omitempty"`
	Lapsed         Money `json:"lapsed"`
	CarriedForward Money `json:"carried_forward"`
	// Charges is the record §5.16 asks of the administrator: every
	// employment and purchase order drawn against the appropriation and
	// every expense charged to it, in the order they were.
	Charges []AppropriationCharge `json:"charges,omitempty"`
}

// Ended is how a continuing appropriation ended.
type Ended struct {
	On     Date   `json:"on"`
	Reason string `json:"reason"` // accomplished | abandoned
	By     string `json:"by"`
}

// AppropriationCharge is one entry of an appropriation's record.
type AppropriationCharge struct {
	Ref         string `json:"ref"`  // the order, employment or expense
	Type        string `json:"type"` // order | employment | expense | carried | lapsed
	On          Date   `json:"on"`
	Amount      Money  `json:"amount"`
	Description string `json:"description,omitempty"`
}

// Amount is what the appropriation allows in all.
func (a Appropriation) Amount() Money { return a.Adopted.Add(a.Amended).Add(a.Carried) }

// Available is what may still be encumbered or spent:
// appropriation − expended − open encumbrances.
func (a Appropriation) Available() Money { return a.Amount().Sub(a.Expended).Sub(a.Encumbered) }

// FiscalYear is the appropriations of a year and whether it is closed.
type FiscalYear struct {
	Year     int          `json:"year"`
	Lines    []string     `json:"lines"` // the lines with an appropriation, sorted
	Closed   bool         `json:"closed,omitempty"`
	ClosedOn Date         `json:"closed_on,omitzero"`
	ClosedBy string       `json:"closed_by,omitempty"`
	Close    *YearEndPlan `json:"close,omitempty"` // what the close did
}

// AppropriationID is the record id of line's appropriation in year.
func AppropriationID(year int, line string) string { return fmt.Sprintf("%04d/%s", year, line) }

func yearID(year int) string { return fmt.Sprintf("%04d", year) }

// nextNumber returns the next number of a series ("orders/2026"): the
// ledger numbers its records itself, so every node gives the same numbers.
func nextNumber(tx Tx, series string) (int, error) {
	var n int
	if _, err := tx.Get(collectionCounters, series, &n); err != nil {
		return 0, err
	}
	n++
	return n, tx.Put(collectionCounters, series, n)
}

func loadFiscalYear(tx Tx, year int) (FiscalYear, bool, error) {
	var fy FiscalYear
	ok, err := tx.Get(CollectionFiscalYears, yearID(year), &fy)
	return fy, ok, err
}

// loadAppropriation reads line's appropriation in year for a change: it
// must exist (the year's budget adopted with the line, §5.05) and be open.
func loadAppropriation(tx Tx, year int, line string) (Appropriation, error) {
	var a Appropriation
	ok, err := tx.Get(CollectionAppropriations, AppropriationID(year, line), &a)
	switch {
	case err != nil:
		return a, err
	case !ok:
		return a, Errorf(EINVALID, sectionAppropriation, "There is no appropriation for %s in %d: no money is drawn and no obligation incurred except under the adopted budget (§5.05).", line, year)
	case a.Closed:
		return a, Errorf(ECONFLICT, sectionAppropriation, "The appropriation for %s in %d is closed: %d's books are closed.", line, year, year)
	}
	return a, nil
}

func putAppropriation(tx Tx, a Appropriation) error {
	return tx.Put(CollectionAppropriations, AppropriationID(a.Year, a.Line), a)
}

// encumber draws amount against line's appropriation in year for ref:
// refused when more than is available, unless waived (an emergency
// purchase under the buyer's limit, §5.12(7)).
func encumber(tx Tx, year int, line, ref, typ string, on Date, amount Money, what string, waived bool) error {
	a, err := loadAppropriation(tx, year, line)
	if err != nil {
		return err
	}
	if !waived && a.Available().LessThan(amount) {
		return Errorf(ECONFLICT, "§5.12(6)", "%s: the appropriation for %s has %s available, less than %s (appropriation %s, expended %s, encumbered %s).",
			ref, line, dollarsIn(tx, a.Available()), dollarsIn(tx, amount), dollarsIn(tx, a.Amount()), dollarsIn(tx, a.Expended), dollarsIn(tx, a.Encumbered))
	}
	a.Encumbered = a.Encumbered.Add(amount)
	a.Charges = append(a.Charges, AppropriationCharge{Ref: ref, Type: typ, On: on, Amount: amount, Description: what})
	return putAppropriation(tx, a)
}

// release gives back amount of an encumbrance (an order cancelled, or
// received for less).
func release(tx Tx, year int, line string, amount Money) error {
	if amount.IsZero() {
		return nil
	}
	a, err := loadAppropriation(tx, year, line)
	if err != nil {
		return err
	}
	a.Encumbered = a.Encumbered.Sub(amount)
	return putAppropriation(tx, a)
}

// expend charges amount to line's appropriation in year, of which
// liquidated was encumbered for it before (that much of the encumbrance
// becomes expended); the rest must be available. The month's actuals of
// the line count it.
func expend(tx Tx, year int, line, ref string, on Date, amount, liquidated Money, what string) error {
	a, err := loadAppropriation(tx, year, line)
	if err != nil {
		return err
	}
	extra := amount.Sub(liquidated)
	if extra.IsPositive() && a.Available().LessThan(extra) {
		return Errorf(ECONFLICT, sectionAppropriation, "%s: %s more than was encumbered is charged to %s, which has %s available.", ref, dollarsIn(tx, extra), line, dollarsIn(tx, a.Available()))
	}
	a.Encumbered = a.Encumbered.Sub(liquidated)
	a.Expended = a.Expended.Add(amount)
	a.Charges = append(a.Charges, AppropriationCharge{Ref: ref, Type: "expense", On: on, Amount: amount, Description: what})
	if err := putAppropriation(tx, a); err != nil {
		return err
	}
	return postActual(tx, on, line, Money{}, amount)
}

// Actual is what one account took in and spent in one month, from the
// ledger's own receipts and expenses (§5.02(4)(d)-(f)).
type Actual struct {
	Year     int    `json:"year"`
	Month    int    `json:"month"`
	Account  string `json:"account"` // "-" for receipts no account collects
	Receipts Money  `json:"receipts"`
	Expended Money  `json:"expended"`
}

func actualID(y, m int, account string) string { return fmt.Sprintf("%04d/%02d/%s", y, m, account) }

// postActual counts receipts and expended in account's actuals of on's
// month. From ledger format 6 it counts nothing for a year the books hold
// whole (actualsRetired): the budget's actuals of that year are the
// books'.
func postActual(tx Tx, on Date, account string, receipts, expended Money) error {
	if retired, err := actualsRetired(tx, on); err != nil || retired {
		return err
	}
	id := actualID(on.Year(), int(on.Month()), account)
	var a Actual
	if _, err := tx.Get(CollectionActuals, id, &a); err != nil {
		return err
	}
	a.Year, a.Month, a.Account = on.Year(), int(on.Month()), account
	a.Receipts = a.Receipts.Add(receipts)
	a.Expended = a.Expended.Add(expended)
	return tx.Put(CollectionActuals, id, a)
}

// postReceipt counts a receipt the ledger just posted in the actuals of
// the revenue account that collects it (ledger format 2): a village bill's
// own account, else the account collecting its source; "-" when no
// account does, shown as unclassified. A reversal (a returned check)
// counts negative. From ledger format 6 it counts nothing for a year the
// books hold whole, like postActual.
func postReceipt(tx Tx, r *Receipt, amount Money) error {
	if retired, err := actualsRetired(tx, r.At.Date); err != nil || retired {
		return err
	}
	return countReceipt(tx, r, amount)
}

func countReceipt(tx Tx, r *Receipt, amount Money) error {
	if len(r.Lines) > 0 {
		// A payment of several bills counts each bill's part in that
		// bill's account.
		for _, l := range r.Lines {
			part := *r
			part.BillID, part.Lines = l.BillID, nil
			if err := countReceipt(tx, &part, l.Amount); err != nil {
				return err
			}
		}
		return nil
	}
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	account := ""
	switch r.Kind {
	case KindRequestStatusLetter, KindOfficeStatusLetter:
		account = chart.Collector(SourceStatusLetters)
	case KindPayPropertyTax:
		account = chart.Collector(SourcePropertyTax)
	case KindDepositoryInterest, KindInvestmentInterest:
		// Interest names the revenue account it is credited to
		// (depository.go, investment.go).
		account = r.Account
	default:
		if r.BillID != "" {
			b, ok, err := tx.Bill(r.BillID)
			if err != nil {
				return err
			}
			if ok && b.Revenue != "" {
				account = b.Revenue
			}
		}
		if account == "" {
			account = chart.Collector(SourceBills)
		}
	}
	if account == "" {
		account = unclassified
	}
	return postActual(tx, r.At.Date, account, amount, Money{})
}

// Employment is an employment drawn against an appropriation (§5.16): the
// agent who negotiates it may not bind the village without the board's
// approval, and the money must be available, not subject to prior labor
// claims or orders, when it is negotiated.
type Employment struct {
	ID         string `json:"id"` // numbered by the ledger, "EMP-2026-003"
	Year       int    `json:"year"`
	Line       string `json:"line"`
	Person     string `json:"person"`
	Position   string `json:"position"`
	Amount     Money  `json:"amount"` // the cost drawn against the year's appropriation
	From       Date   `json:"from"`
	To         Date   `json:"to,omitzero"`
	Approval   string `json:"approval"` // the board's approval (motion or resolution)
	ApprovedOn Date   `json:"approved_on"`
	// Charged is what its payroll has charged of it so far: expenses
	// against it, and from ledger format 6 the claims paying it, at
	// their allowance.
	Charged   Money    `json:"charged"`
	Recorded  DateTime `json:"recorded,omitzero"`
	RecordBy  string   `json:"recorded_by,omitempty"`
	Cancelled bool     `json:"cancelled,omitempty"`
}

// Kind names the payload's kind.
func (*Employment) Kind() Kind { return KindEmployment }

func (p *Employment) textFields() []textField {
	return []textField{oneLine("The line", p.Line), oneLine("The person", p.Person), oneLine("The position", p.Position), oneLine("The approval", p.Approval)}
}

var employmentKind = &Descriptor{
	Kind: KindEmployment, Section: "§5.16", Since: 2,
	Roles: []Role{RoleAdministrator},
	New:   func() Payload { return new(Employment) },
	Apply: applyEmployment,
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		commitmentLines(l, tx, res.Ref)
		return "employment " + res.Ref + " encumbered"
	},
}

func applyEmployment(tx Tx, c Command, env Env, res *Result) error {
	e := *c.Payload.(*Employment)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.16", format, args...) }
	switch {
	case strings.TrimSpace(e.Person) == "" || strings.TrimSpace(e.Position) == "":
		return bad("An employment needs the person and the position.")
	case !e.Amount.IsPositive():
		return bad("The cost of an employment must be more than $0.00.")
	case e.From.IsZero():
		return bad("An employment needs the date it begins.")
	case !e.To.IsZero() && e.To.Before(e.From):
		return bad("An employment cannot end (%s) before it begins (%s).", e.To, e.From)
	case strings.TrimSpace(e.Approval) == "" || e.ApprovedOn.IsZero():
		return bad("No agent of the village may bind it to an employment without the board's approval: name the motion or resolution and its date.")
	case e.ApprovedOn.After(c.At.Date):
		return bad("The board's approval is dated %s, after today.", e.ApprovedOn)
	}
	e.Year = e.From.Year()
	n, err := nextNumber(tx, "employment/"+yearID(e.Year))
	if err != nil {
		return err
	}
	e.ID = fmt.Sprintf("EMP-%d-%03d", e.Year, n)
	e.Recorded, e.RecordBy, e.Charged = c.At, c.Actor, Money{}
	if err := encumber(tx, e.Year, e.Line, e.ID, "employment", c.At.Date, e.Amount, e.Position+": "+e.Person, false); err != nil {
		return err
	}
	res.Note = "employment " + e.ID
	res.Ref = e.ID
	return tx.Put(CollectionEmployment, e.ID, e)
}

// Expense charges an amount to an appropriation: paid against an order or
// an employment (its encumbrance becomes expended), or on its own.
type Expense struct {
	ID          string `json:"id,omitempty"` // numbered by the ledger, "EXP-2026-00012"
	Line        string `json:"line"`
	On          Date   `json:"on"`
	Amount      Money  `json:"amount"`
	Payee       string `json:"payee"`
	Description string `json:"description"`
	// Against is the order or employment it pays, if any.
	Against string `json:"against,omitempty"`
	// Year is the appropriation's year: the year of On, or the year the
	// order it pays was carried to. Set by the ledger.
	Year     int      `json:"year,omitempty"`
	Recorded DateTime `json:"recorded,omitzero"`
	By       string   `json:"by,omitempty"`
}

// Kind names the payload's kind.
func (*Expense) Kind() Kind { return KindExpense }

func (p *Expense) textFields() []textField {
	return []textField{oneLine("The line", p.Line), oneLine("The payee", p.Payee), oneLine("The description", p.Description), oneLine("The order or employment", p.Against)}
}

var expenseKind = &Descriptor{
	Kind: KindExpense, Section: sectionAppropriation, Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(Expense) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		e := *c.Payload.(*Expense)
		if err := expenseWithoutClaim(tx, e); err != nil {
			return err
		}
		id, err := chargeExpense(tx, c, e)
		res.Ref, res.Note = id, "expense "+id
		return err
	},
	Books: expenseLines,
}

// expenseWithoutClaim refuses, from ledger format 5, an expense that pays
// money out of the treasury on its own: §5.07(3) has every payment made
// only after the treasurer audits and endorses a claim, and a claim paid
// by check is charged to its appropriation by the check run. The one use
// of the kind left is the payroll of an employment the board approved
// (§5.12: "the Village Administrator shall keep a record of such
// employment ... and shall charge them against the proper
// appropriation"), which charges the wages against the employment's
// encumbrance; it is paid on the payroll, not by a claim of the
// employee. An expense against an order or a claim is refused too: an
// order's delivery is charged when it is received and its vendor paid by
// a claim, and a claim is paid by a check run, which charges it.
//
// From ledger format 6 the kind is refused whatever it is against: no
// money leaves the treasury without a claim audited and endorsed under
// §5.07(3) and a check on the register (§5.07(4)), and the payroll is a
// claim naming its employment (ClaimChange.Employment), which charges the
// employment at its allowance. The kind stays decodable so that older
// logs replay.
func expenseWithoutClaim(tx Tx, e Expense) error {
	if RulesFormat(tx) >= ReconciledFormat {
		return Errorf(EINVALID, "§5.07(3)", "An expense is no longer charged on its own: enter the payroll as a claim naming the employment (EMP-…), which the treasurer endorses and a check run pays; every other payment is a claim too (§5.07(3), §5.07(4)).")
	}
	if RulesFormat(tx) < BooksFormat || strings.HasPrefix(e.Against, "EMP-") {
		return nil
	}
	return Errorf(EINVALID, "§5.07(3)", "Enter it as a claim: every payment goes through the claim audit of §5.07(3). An expense is charged here only as the payroll of an employment (EMP-…).")
}

// expenseLines post an expense the treasurer charged directly (§5.05):
// its line's expenditure debited and the cash of the line's fund
// credited, for the expense records money paid, with no claim, no check
// and nothing left owing; and what it liquidated of the order, employment
// or claim it is against, released from the encumbrances. It is money
// out of the treasury without a claim audited under §5.07(3).
func expenseLines(l *Lines, tx Tx, c Command, res Result) string {
	var e Expense
	if _, err := tx.Get(CollectionExpenses, res.Ref, &e); err != nil {
		l.err = err
		return ""
	}
	memo := "expense " + e.ID + ": " + e.Payee + ", " + e.Description
	l.Debit(e.Line, e.Amount, sectionAppropriation, memo)
	l.Credit(l.Control(l.FundOf(e.Line), ControlCash), e.Amount, sectionAppropriation, memo)
	if e.Against != "" {
		commitmentLines(l, tx, e.Against)
	}
	return memo
}

// chargeExpense records an expense and charges it: the one path by which
// money leaves an appropriation, for the treasurer's expenses, an order's
// receipt and (later) the payment of claims.
func chargeExpense(tx Tx, c Command, e Expense) (string, error) {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionAppropriation, format, args...) }
	switch {
	case !e.Amount.IsPositive():
		return "", bad("The amount of an expense must be more than $0.00.")
	case e.On.IsZero():
		return "", bad("An expense needs its date.")
	case e.On.After(c.At.Date):
		return "", bad("An expense cannot be dated %s, after today.", e.On)
	case strings.TrimSpace(e.Payee) == "" || strings.TrimSpace(e.Description) == "":
		return "", bad("An expense needs its payee and what it pays for.")
	}
	e.Year = e.On.Year()
	liquidated := Money{}
	switch {
	case strings.HasPrefix(e.Against, "EMP-"):
		var emp Employment
		ok, err := tx.Get(CollectionEmployment, e.Against, &emp)
		if err != nil {
			return "", err
		}
		if !ok || emp.Cancelled {
			return "", bad("There is no employment %s.", e.Against)
		}
		if emp.Line != e.Line {
			return "", bad("Employment %s is drawn against %s, not %s.", emp.ID, emp.Line, e.Line)
		}
		e.Year = emp.Year
		liquidated = emp.Amount.Sub(emp.Charged).Min(e.Amount).Max(Money{})
		emp.Charged = emp.Charged.Add(e.Amount)
		if err := tx.Put(CollectionEmployment, emp.ID, emp); err != nil {
			return "", err
		}
	case strings.HasPrefix(e.Against, "CL-"):
		// A claim's payment (payable.go): what its funds certification
		// encumbered becomes expended.
		cl, err := loadClaim(tx, e.Against)
		if err != nil {
			return "", err
		}
		if cl.Line != e.Line {
			return "", bad("Claim %s is drawn against %s, not %s.", cl.ID, cl.Line, e.Line)
		}
		e.Year = cl.Year
		liquidated = cl.Held.Min(e.Amount)
		cl.Held = cl.Held.Sub(liquidated)
		if err := tx.Put(CollectionClaims, cl.ID, cl); err != nil {
			return "", err
		}
	case e.Against != "":
		o, err := loadOrder(tx, e.Against)
		if err != nil {
			return "", err
		}
		if o.Line != e.Line {
			return "", bad("Order %s is drawn against %s, not %s.", o.ID, o.Line, e.Line)
		}
		e.Year = o.Year
		liquidated = o.OpenEncumbrance().Min(e.Amount)
		o.Held = o.Held.Sub(liquidated)
		o.Paid = o.Paid.Add(e.Amount)
		if err := putOrder(tx, o); err != nil {
			return "", err
		}
	}
	n, err := nextNumber(tx, "expenses/"+yearID(e.Year))
	if err != nil {
		return "", err
	}
	e.ID = fmt.Sprintf("EXP-%d-%05d", e.Year, n)
	e.Recorded, e.By = c.At, c.Actor
	if err := expend(tx, e.Year, e.Line, e.ID, e.On, e.Amount, liquidated, e.Payee+": "+e.Description); err != nil {
		return "", err
	}
	return e.ID, tx.Put(CollectionExpenses, e.ID, e)
}

// AppropriationEnd ends a continuing appropriation (§5.05): its purpose
// was accomplished or abandoned. What is neither spent nor encumbered
// lapses to the general fund.
type AppropriationEnd struct {
	Year   int    `json:"year"`
	Line   string `json:"line"`
	On     Date   `json:"on"`
	Reason string `json:"reason"` // accomplished | abandoned
}

// Kind names the payload's kind.
func (*AppropriationEnd) Kind() Kind { return KindAppropriationEnd }

func (p *AppropriationEnd) textFields() []textField {
	return []textField{oneLine("The line", p.Line), oneLine("The reason", p.Reason)}
}

var appropriationEndKind = &Descriptor{
	Kind: KindAppropriationEnd, Section: sectionAppropriation, Since: 2,
	Roles: []Role{RoleTreasurer, RoleAdministrator},
	New:   func() Payload { return new(AppropriationEnd) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		p := c.Payload.(*AppropriationEnd)
		if p.Reason != "accomplished" && p.Reason != "abandoned" {
			return Errorf(EINVALID, sectionAppropriation, "A continuing appropriation ends because its purpose was accomplished or abandoned; got %q.", p.Reason)
		}
		if p.On.IsZero() || p.On.After(c.At.Date) {
			return Errorf(EINVALID, sectionAppropriation, "The end of an appropriation needs its date, today or before.")
		}
		a, err := loadAppropriation(tx, p.Year, p.Line)
		if err != nil {
			return err
		}
		if !a.Continuing {
			return Errorf(ECONFLICT, sectionAppropriation, "The appropriation for %s in %d is not a continuing one: it lapses at the close of the year.", p.Line, p.Year)
		}
		if a.Encumbered.IsPositive() {
			return Errorf(ECONFLICT, sectionAppropriation, "The appropriation for %s still holds %s for open orders: close or cancel them first.", p.Line, dollarsIn(tx, a.Encumbered))
		}
		a.Ended = &Ended{On: p.On, Reason: p.Reason, By: c.Actor}
		a.Lapsed = a.Available()
		a.Closed = true
		a.Charges = append(a.Charges, AppropriationCharge{Ref: "end", Type: "lapsed", On: p.On, Amount: a.Lapsed, Description: "lapsed to the general fund: " + p.Reason})
		res.Note = fmt.Sprintf("appropriation %s %d ended (%s): %s lapsed", p.Line, p.Year, p.Reason, dollarsIn(tx, a.Lapsed))
		return putAppropriation(tx, a)
	},
}

// YearEndClose closes a fiscal year (§5.05), on or after its last day.
type YearEndClose struct {
	Year int `json:"year"`
}

// Kind names the payload's kind.
func (*YearEndClose) Kind() Kind { return KindYearEndClose }

// YearEndPlan is what the close of a year does, line by line: it is the
// preview the treasurer reads before closing, and what closing records.
type YearEndPlan struct {
	Year        int           `json:"year"`
	GeneralFund string        `json:"general_fund"`
	Lines       []YearEndLine `json:"lines"`
	Lapsed      Money         `json:"lapsed"`  // in all, to the general fund
	Carried     Money         `json:"carried"` // in all, to next year
}

// YearEndLine is the close of one appropriation.
type YearEndLine struct {
	Line       string `json:"line"`
	Available  Money  `json:"available"`
	Encumbered Money  `json:"encumbered"`
	Continuing bool   `json:"continuing,omitempty"`
	// Lapsed goes to the general fund; Carried to next year's
	// appropriation of the line (open encumbrances, and a continuing
	// appropriation's balance).
	Lapsed  Money    `json:"lapsed"`
	Carried Money    `json:"carried"`
	Orders  []string `json:"orders,omitempty"` // the open orders and employments carried with it
}

// PlanYearEnd computes the close of year from its open appropriations:
// each unencumbered balance lapses to the general fund, except that of a
// continuing appropriation, which carries forward with it; open
// encumbrances carry forward with their orders.
func PlanYearEnd(year int, general string, apps []Appropriation) YearEndPlan {
	plan := YearEndPlan{Year: year, GeneralFund: general}
	for _, a := range apps {
		if a.Closed {
			continue
		}
		l := YearEndLine{Line: a.Line, Available: a.Available(), Encumbered: a.Encumbered, Continuing: a.Continuing}
		if a.Continuing {
			l.Carried = a.Available().Add(a.Encumbered)
		} else {
			l.Lapsed, l.Carried = a.Available(), a.Encumbered
		}
		for _, ch := range a.Charges {
			if ch.Type == "order" || ch.Type == "employment" {
				l.Orders = append(l.Orders, ch.Ref)
			}
		}
		plan.Lines = append(plan.Lines, l)
		plan.Lapsed = plan.Lapsed.Add(l.Lapsed)
		plan.Carried = plan.Carried.Add(l.Carried)
	}
	return plan
}

var yearEndCloseKind = &Descriptor{
	Kind: KindYearEndClose, Section: sectionAppropriation, Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(YearEndClose) },
	Apply: applyYearEndClose,
	Books: yearEndCloseLines,
}

// yearEndCloseLines close the year's revenues and expenditures into each
// fund's fund balance (§5.05), dated the year's last day: every revenue
// and expenditure account is brought to zero by the reverse of what it
// holds through that day, against its fund's fund balance, which so moves
// by the year's revenues less its expenditures. What an account holds
// through the year includes anything posted to an earlier year after that
// year was closed, so nothing stays unclosed. The encumbrances are not
// touched: §5.05 carries every open one forward with its order.
func yearEndCloseLines(l *Lines, tx Tx, c Command, res Result) string {
	year := c.Payload.(*YearEndClose).Year
	l.DateOn(NewDate(year, 12, 31))
	net := map[string]Money{} // by fund: debits less credits closed
	var funds []string
	for _, a := range slices.Clone(l.chart.Accounts) {
		if !a.Type.Line() {
			continue
		}
		t, err := totalsThrough(tx, a.Code, year)
		if err != nil {
			l.err = err
			return ""
		}
		held := t.Debit.Sub(t.Credit)
		if held.IsZero() {
			continue
		}
		l.Credit(a.Code, held, sectionAppropriation, fmt.Sprintf("%d closed to fund balance", year))
		if _, ok := net[a.Fund]; !ok {
			funds = append(funds, a.Fund)
		}
		net[a.Fund] = net[a.Fund].Add(held)
	}
	for _, f := range funds {
		l.Debit(l.Control(f, ControlFundBalance), net[f], sectionAppropriation, fmt.Sprintf("revenues less expenditures of %d", year))
	}
	return fmt.Sprintf("close of %d", year)
}

func applyYearEndClose(tx Tx, c Command, env Env, res *Result) error {
	year := c.Payload.(*YearEndClose).Year
	if last := NewDate(year, 12, 31); c.At.Date.Before(last) {
		return Errorf(EINVALID, sectionAppropriation, "The year %d closes on or after its last day, %s; today is %s.", year, last, c.At.Date)
	}
	fy, ok, err := loadFiscalYear(tx, year)
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, sectionAppropriation, "There is no adopted budget for %d to close.", year)
	case fy.Closed:
		return Errorf(ECONFLICT, sectionAppropriation, "The year %d was closed on %s.", year, fy.ClosedOn)
	}
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	var apps []Appropriation
	for _, line := range fy.Lines {
		var a Appropriation
		if _, err := tx.Get(CollectionAppropriations, AppropriationID(year, line), &a); err != nil {
			return err
		}
		apps = append(apps, a)
	}
	plan := PlanYearEnd(year, chart.GeneralFund(), apps)
	next, _, err := loadFiscalYear(tx, year+1)
	if err != nil {
		return err
	}
	next.Year = year + 1
	for i, l := range plan.Lines {
		a := apps[slices.IndexFunc(apps, func(a Appropriation) bool { return a.Line == l.Line })]
		a.Closed, a.Lapsed, a.CarriedForward = true, l.Lapsed, l.Carried
		a.Charges = append(a.Charges, AppropriationCharge{Ref: "close", Type: "lapsed", On: c.At.Date, Amount: l.Lapsed, Description: "lapsed to the general fund " + plan.GeneralFund})
		if err := putAppropriation(tx, a); err != nil {
			return err
		}
		if l.Carried.IsZero() {
			continue
		}
		var b Appropriation
		if _, err := tx.Get(CollectionAppropriations, AppropriationID(year+1, l.Line), &b); err != nil {
			return err
		}
		if b.Line == "" {
			b = Appropriation{Year: year + 1, Line: a.Line, Unit: a.Unit, Fund: a.Fund}
		}
		b.Carried = b.Carried.Add(l.Carried)
		b.Encumbered = b.Encumbered.Add(l.Encumbered)
		if a.Continuing {
			b.Continuing, b.Purpose = true, a.Purpose
		}
		b.Charges = append(b.Charges, AppropriationCharge{Ref: fmt.Sprintf("close %d", year), Type: "carried", On: c.At.Date, Amount: l.Carried, Description: "carried forward from " + yearID(year)})
		if err := putAppropriation(tx, b); err != nil {
			return err
		}
		if !slices.Contains(next.Lines, l.Line) {
			next.Lines = append(next.Lines, l.Line)
			slices.Sort(next.Lines)
		}
		if err := carryCommitments(tx, year+1, l.Orders); err != nil {
			return err
		}
		plan.Lines[i] = l
	}
	if len(next.Lines) > 0 {
		if err := putFiscalYear(tx, next); err != nil {
			return err
		}
	}
	fy.Closed, fy.ClosedOn, fy.ClosedBy, fy.Close = true, c.At.Date, c.Actor, &plan
	res.Note = fmt.Sprintf("year %d closed: %s lapsed to the general fund, %s carried forward", year, dollarsIn(tx, plan.Lapsed), dollarsIn(tx, plan.Carried))
	return putFiscalYear(tx, fy)
}

// carryCommitments moves the open orders, employments and certified
// claims of a closed year to the year they were carried to, where they
// are paid from.
func carryCommitments(tx Tx, year int, refs []string) error {
	for _, ref := range refs {
		if strings.HasPrefix(ref, "EMP-") {
			var e Employment
			if ok, err := tx.Get(CollectionEmployment, ref, &e); err != nil || !ok {
				return err
			}
			e.Year = year
			if err := tx.Put(CollectionEmployment, ref, e); err != nil {
				return err
			}
			continue
		}
		if strings.HasPrefix(ref, "CL-") {
			var cl Claim
			if ok, err := tx.Get(CollectionClaims, ref, &cl); err != nil {
				return err
			} else if ok && cl.Held.IsPositive() {
				cl.Year = year
				if err := tx.Put(CollectionClaims, ref, cl); err != nil {
					return err
				}
			}
			continue
		}
		var o Order
		ok, err := tx.Get(CollectionOrders, ref, &o)
		if err != nil {
			return err
		}
		if ok && o.OpenEncumbrance().IsPositive() {
			o.Year = year
			if err := putOrder(tx, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// yearsRecord lists the years that have a fiscal year record, so that a
// transaction, which cannot list a collection, finds them all.
const yearsRecord = "~years"

// putFiscalYear writes a fiscal year and keeps the list of years.
func putFiscalYear(tx Tx, fy FiscalYear) error {
	var years []int
	if _, err := tx.Get(CollectionFiscalYears, yearsRecord, &years); err != nil {
		return err
	}
	if !slices.Contains(years, fy.Year) {
		years = append(years, fy.Year)
		slices.Sort(years)
		if err := tx.Put(CollectionFiscalYears, yearsRecord, years); err != nil {
			return err
		}
	}
	return tx.Put(CollectionFiscalYears, yearID(fy.Year), fy)
}

// appropriationsOf calls fn with every appropriation of line, in any year.
func appropriationsOf(tx Tx, line string, fn func(Appropriation) bool) error {
	var years []int
	if _, err := tx.Get(CollectionFiscalYears, yearsRecord, &years); err != nil {
		return err
	}
	for _, y := range years {
		var a Appropriation
		ok, err := tx.Get(CollectionAppropriations, AppropriationID(y, line), &a)
		if err != nil {
			return err
		}
		if ok && fn(a) {
			return nil
		}
	}
	return nil
}

// accountUsed reports whether any year has an appropriation of code.
func accountUsed(tx Tx, code string) (bool, error) {
	used := false
	err := appropriationsOf(tx, code, func(Appropriation) bool { used = true; return true })
	return used, err
}

// accountOpen reports whether an open year's appropriation of code has
// money available or encumbered.
func accountOpen(tx Tx, code string) (bool, error) {
	open := false
	err := appropriationsOf(tx, code, func(a Appropriation) bool {
		open = !a.Closed && (!a.Available().IsZero() || !a.Encumbered.IsZero())
		return open
	})
	return open, err
}

// Appropriations returns the appropriations of year, by line.
func (x Reads) Appropriations(year int) ([]Appropriation, error) {
	return all[Appropriation](x.r, CollectionAppropriations, yearID(year)+"/")
}

// AppropriationBalances returns the appropriations of year, by line,
// without their charges: what a page that shows what is available needs.
// An appropriation keeps every charge to it, so a year of many claims
// makes records of hundreds of kilobytes that such a page need not parse.
func (x Reads) AppropriationBalances(year int) ([]Appropriation, error) {
	var out []Appropriation
	err := x.r.List(CollectionAppropriations, yearID(year)+"/", func(_ string, raw []byte) error {
		var a struct {
			Appropriation
			Charges json.RawMessage `json:"charges,omitempty"` // passed over
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		out = append(out, a.Appropriation)
		return nil
	})
	return out, err
}

// Appropriation returns line's appropriation in year.
func (x Reads) Appropriation(year int, line string) (Appropriation, error) {
	return must[Appropriation](x.r, CollectionAppropriations, AppropriationID(year, line), "appropriation")
}

// FiscalYear returns the record of year; ok is false before its budget is
// adopted.
func (x Reads) FiscalYear(year int) (FiscalYear, bool, error) {
	return get[FiscalYear](x.r, CollectionFiscalYears, yearID(year))
}

// YearEndPreview is the close of year as it would be done now.
func (x Reads) YearEndPreview(year int) (YearEndPlan, error) {
	apps, err := x.Appropriations(year)
	if err != nil {
		return YearEndPlan{}, err
	}
	chart, err := x.Chart()
	if err != nil {
		return YearEndPlan{}, err
	}
	return PlanYearEnd(year, chart.GeneralFund(), apps), nil
}

// Actuals returns the actuals of year, by month and account.
func (x Reads) Actuals(year int) ([]Actual, error) {
	return all[Actual](x.r, CollectionActuals, yearID(year)+"/")
}

// Employments returns the employments of year.
func (x Reads) Employments(year int) ([]Employment, error) {
	return all[Employment](x.r, CollectionEmployment, fmt.Sprintf("EMP-%d-", year))
}

// Expenses returns the expenses charged to year's appropriations.
func (x Reads) Expenses(year int) ([]Expense, error) {
	return all[Expense](x.r, CollectionExpenses, fmt.Sprintf("EXP-%d-", year))
}

// commitmentLines bring the encumbrance the books hold for commitment ref
// (an order, an employment or a claim) to what the rules hold for it now,
// with budgetary lines in its line's fund: encumbrances debited and the
// reserve for encumbrances credited as it is certified (§5.12(6),
// §5.16, §5.07(3)(a)), the reverse as it is released or becomes
// expenditure. What the rules hold is the order's and the claim's Held
// and the employment's cost not yet charged; a claim's is the books' only
// until it is allowed, when it becomes expenditure in the books (its
// appropriation still holds it until its check, when it is charged).
// Kept per commitment, a commitment made before the books opened is
// counted from the first command that touches it, and never released
// twice.
func commitmentLines(l *Lines, tx Tx, ref string) {
	if l.err != nil || ref == "" {
		return
	}
	var line, section string
	var open Money
	switch {
	case strings.HasPrefix(ref, "EMP-"):
		var e Employment
		if ok, err := tx.Get(CollectionEmployment, ref, &e); err != nil || !ok {
			l.err = err
			return
		}
		line, section = e.Line, "§5.16"
		if !e.Cancelled {
			open = e.Amount.Sub(e.Charged).Max(Money{})
		}
	case strings.HasPrefix(ref, "CL-"):
		cl, err := loadClaim(tx, ref)
		if err != nil {
			l.err = err
			return
		}
		line, section = cl.Line, "§5.07(3)(a)"
		if cl.Status == ClaimEntered || cl.Status == ClaimCertified {
			open = cl.Held
		}
	default:
		var o Order
		if ok, err := tx.Get(CollectionOrders, ref, &o); err != nil || !ok {
			l.err = err
			return
		}
		line, section, open = o.Line, "§5.12(6)", o.Held
	}
	var held Money
	if _, err := tx.Get(CollectionBookCommitments, ref, &held); err != nil {
		l.err = err
		return
	}
	change := open.Sub(held)
	if change.IsZero() {
		return
	}
	fund := l.FundOf(line)
	memo := ref + " encumbers $" + open.String()
	l.Debit(l.Control(fund, ControlEncumbrances), change, section, memo)
	l.Credit(l.Control(fund, ControlReserveEncumbrances), change, section, memo)
	if l.err == nil {
		l.err = tx.Put(CollectionBookCommitments, ref, open)
	}
}
