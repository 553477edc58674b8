package domain

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Collections of the November run (§5.10).
const (
	CollectionNovemberRuns = "november-runs" // id: cycle year → NovemberRun
	CollectionTaxRoll      = "tax-roll"      // id: bill id → RunItem as certified
	// CollectionNovemberItems holds each line a step posted, from ledger
	// format 8 (RunPartsFormat): id "<year>/<step>/<bill id>" → RunItem.
	CollectionNovemberItems = "november-items"
)

// RunPartBills is the most bills (and installments) the office puts in
// one part of a November run step (RunPartsFormat): a part certifying
// this many bills writes each bill, its line on the roll, its line of the
// run and its journal lines, well within what one log entry may write.
const RunPartBills = 200

// RunItem is one bill in the November run: its §5.10 figures on the day
// the step is taken as of.
type RunItem struct {
	BillID      string `json:"bill_id"`
	Account     string `json:"account"`
	Parcel      string `json:"parcel"`
	County      County `json:"county"`
	Address     string `json:"address,omitempty"`
	Owner       string `json:"owner,omitempty"`
	Description string `json:"description"`
	BilledOn    Date   `json:"billed_on"`
	Principal   Money  `json:"principal"` // unpaid principal
	Interest    Money  `json:"interest"`  // unpaid interest
	Penalty     Money  `json:"penalty"`   // unpaid penalty (the penalty step: the penalty posted)
	Balance     Money  `json:"balance"`
	Year        int    `json:"year"`
	CommandID   string `json:"command_id,omitempty"`
	// Assessment and Installment name a special assessment's installment
	// extended on the roll as a delinquent tax (§5.14(12)); BillID is then
	// its InstallmentKey and Account is empty.
	Assessment  string `json:"assessment,omitempty"`
	Installment int    `json:"installment,omitempty"`
}

// NovemberRun is one cycle year's November run: the penalties posted on or
// after November 2, then the unpaid balances certified to the tax roll
// after November 15.
//
// Before ledger format 8 a step was one command and the run record held
// its lines (Penalties, Certified). From format 8 (RunPartsFormat) a step
// may post in parts, each a command of at most RunPartBills lines, and
// each line is a record of its own (CollectionNovemberItems): the run
// keeps the counts and totals, and the step is open (PenaltiesOpen,
// CertifyOpen) until its last part posts. So the run's size, and what
// one entry writes, does not grow with the village's bills.
type NovemberRun struct {
	Year             int       `json:"year"`
	Penalties        []RunItem `json:"penalties,omitempty"`
	PenaltyTotal     Money     `json:"penalty_total"`
	PenaltiesCommand string    `json:"penalties_command,omitempty"`
	PenaltiesBy      string    `json:"penalties_by,omitempty"`
	PenaltiesAt      DateTime  `json:"penalties_at,omitzero"`
	Certified        []RunItem `json:"certified,omitempty"`
	CertifiedTotal   Money     `json:"certified_total"`
	CertifyCommand   string    `json:"certify_command,omitempty"`
	CertifiedBy      string    `json:"certified_by,omitempty"`
	CertifiedAt      DateTime  `json:"certified_at,omitzero"`
	// From ledger format 8: the lines each step posted so far, and whether
	// more parts of it are to come.
	PenaltyCount   int  `json:"penalty_count,omitempty"`
	PenaltiesOpen  bool `json:"penalties_open,omitempty"`
	CertifiedCount int  `json:"certified_count,omitempty"`
	CertifyOpen    bool `json:"certify_open,omitempty"`
}

// PenaltiesPosted reports whether the penalty step is complete: posted,
// and no part of it still to come.
func (r NovemberRun) PenaltiesPosted() bool { return r.PenaltiesCommand != "" && !r.PenaltiesOpen }

// RollCertified reports whether the certification is complete.
func (r NovemberRun) RollCertified() bool { return r.CertifyCommand != "" && !r.CertifyOpen }

// Lines returns how many lines a step posted so far ("penalties" or
// "certify").
func (r NovemberRun) Lines(step string) int {
	if step == "penalties" {
		return max(r.PenaltyCount, len(r.Penalties))
	}
	return max(r.CertifiedCount, len(r.Certified))
}

// NovemberItemKey is the id of a step's line in CollectionNovemberItems.
func NovemberItemKey(year int, step, billID string) string {
	return fmt.Sprintf("%d/%s/%s", year, step, billID)
}

// NovemberStep posts the penalties or certifies the tax roll for a cycle
// year, for the bills the preview listed.
type NovemberStep struct {
	Op    string   `json:"op"` // "penalties" | "certify"
	Year  int      `json:"year"`
	Bills []string `json:"bills"`
	// Assessments are the special assessment installments (by
	// InstallmentKey) certification extends on the roll (§5.14(12),
	// ledger format 2).
	Assessments []string `json:"assessments,omitempty"`
	// More says that more parts of this step follow: the step stays open
	// after this one (ledger format 8; before, the field is not read and
	// every command is the whole step).
	More bool `json:"more,omitempty"`
}

// PenaltyDay and TaxRollDay return November 2 and November 15 of a cycle
// year (§5.10, RULES.md).
func PenaltyDay(year int) Date { return NewDate(year, time.November, 2) }

// TaxRollDay returns November 15 of a cycle year.
func TaxRollDay(year int) Date { return NewDate(year, time.November, 15) }

// MayCertify reports whether the tax roll of a cycle year may be certified
// at t: after November 15 ends, which the village takes as the office's
// closing time that day (no payment is taken at the window after it) or
// any later day. Certifying earlier could miss a payment still dated
// November 15, which §5.10 accepts.
func MayCertify(year int, t DateTime, p *Params) bool {
	day := TaxRollDay(year)
	if t.Date.After(day) {
		return true
	}
	return t.Date == day && t.Clock() >= p.At(day).OfficeCloses
}

// NovemberItem returns a bill's line in the penalty step (step
// "penalties": the bill's principal was unpaid on November 1 of the year,
// so it owes the penalty on November 2) or the certification (step
// "certify": a balance unpaid at the end of November 15), and whether the
// bill belongs in that step at all. Only bills whose cycle year is year
// take part.
func NovemberItem(b Bill, step string, year int, p *Params) (RunItem, bool, error) {
	return NovemberItemOn(b, step, year, TaxRollDay(year), p)
}

// NovemberItemOn is NovemberItem for a certification taken on `on`: since
// a bill stays open until the run certifies it (ledger format 2), the
// line counts what was paid, or taken back by a returned check, through
// that day, not only through November 15. Interest stops on November 15
// and the penalty posts on November 2, so only those change the balance.
// A day before November 15 is taken as November 15; the penalty step
// ignores it. A bill read without its payments (BillQuery.Bare) is
// figured from its summary, to the same cent, when the summary holds
// what the day asks; else the answer is ErrPaymentsNeeded.
func NovemberItemOn(b Bill, step string, year int, on Date, p *Params) (RunItem, bool, error) {
	asOf := CertifyAsOf(year, on)
	if step == "penalties" {
		asOf = PenaltyDay(year)
	}
	if b.BilledOn.After(asOf) || (step == "certify" && b.Certified != nil) {
		return RunItem{}, false, nil
	}
	var fig Receivable
	var err error
	if b.allPayments() {
		var payments []BillPayment
		for _, pay := range b.Payments {
			if !pay.At.Date.After(asOf) {
				payments = append(payments, pay)
			}
		}
		b.Payments = payments
		fig, err = b.Figures(asOf, p)
	} else {
		fig, err = b.summaryFigures(asOf, p)
	}
	if err != nil {
		return RunItem{}, false, err
	}
	if fig.PenaltyOn.Year() != year || fig.PenaltyOn.Month() != time.November {
		return RunItem{}, false, nil
	}
	it := RunItem{BillID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, BilledOn: b.BilledOn,
		Principal: fig.UnpaidPrincipal, Interest: fig.UnpaidInterest, Penalty: fig.UnpaidPenalty, Balance: fig.Balance, Year: year}
	switch step {
	case "penalties":
		it.Penalty = fig.Penalty
		return it, fig.Penalty.IsPositive(), nil
	case "certify":
		return it, fig.Balance.IsPositive(), nil
	}
	return RunItem{}, false, Errorf(EINVALID, sectionReceivable, "Unknown November run step %q.", step)
}

// StepAmount is what a step of the run posts for the line: the penalty
// ("penalties"), or the balance certified ("certify").
func (it RunItem) StepAmount(step string) Money {
	if step == "penalties" {
		return it.Penalty
	}
	return it.Balance
}

// NovemberBill is a bill's part in its roll year's November run as a
// preview counts it: whether each step takes the bill on a day and for
// what amount (NovemberItemOn, RunItem.StepAmount), with the bill's
// parcel and standing, which the preview's county totals and the
// certification's choice of open bills need. A page reads the bill itself
// only for the lines it shows.
type NovemberBill struct {
	ID        string
	Parcel    string
	Standing  BillStanding
	Penalties NovemberAmount
	Certify   NovemberAmount
}

// NovemberAmount is a bill's line in one step of the run, if it has one.
type NovemberAmount struct {
	Takes  bool
	Amount Money
}

// Step returns the bill's line in step ("penalties" or "certify").
func (nb NovemberBill) Step(step string) NovemberAmount {
	if step == "penalties" {
		return nb.Penalties
	}
	return nb.Certify
}

// NovemberBillOf figures b's part in both steps of the year's run on day
// on (NovemberItemOn), b standing as standing. Like NovemberItemOn it
// answers ErrPaymentsNeeded for a bill read without its payments whose
// summary cannot say.
func NovemberBillOf(b Bill, standing BillStanding, year int, on Date, p *Params) (NovemberBill, error) {
	nb := NovemberBill{ID: b.ID, Parcel: b.Parcel, Standing: standing}
	for _, step := range []string{"penalties", "certify"} {
		it, ok, err := NovemberItemOn(b, step, year, on, p)
		if err != nil {
			return NovemberBill{}, err
		}
		a := NovemberAmount{Takes: ok}
		if ok {
			a.Amount = it.StepAmount(step)
		}
		if step == "penalties" {
			nb.Penalties = a
		} else {
			nb.Certify = a
		}
	}
	return nb, nil
}

// CertifyAsOf is the day the certification of a cycle year is figured to
// when asked on day on (NovemberItemOn): November 15, or on once it has
// passed.
func CertifyAsOf(year int, on Date) Date {
	if d := TaxRollDay(year); !on.After(d) {
		return d
	}
	return on
}

// ErrPaymentsNeeded is NovemberItemOn's answer for a bill read without
// its payments (its record alone, BillQuery.Bare) whose summary cannot
// say what the step asks: read the bill with its payments and ask again.
var ErrPaymentsNeeded = errors.New("the bill's payments are needed for its figures on that day")

// summaryFigures returns what Figures(asOf) returns, for a bill read
// without its payments (a record stored at ledger format 3): its account
// continued from its summary to asOf, which takes exactly the steps the
// full computation takes after the latest payment (computeReceivable).
// That holds when every payment is dated on or before asOf, the §5.10
// rows the summary was computed with still hold, and no payment taken
// back by a returned check still counted on asOf (reversed after it);
// otherwise it returns ErrPaymentsNeeded.
func (b Bill) summaryFigures(asOf Date, p *Params) (Receivable, error) {
	s := b.Summary
	if s == nil || len(b.Payments) > 0 || s.Latest.After(asOf) || s.Rates != p.receivableRates(s.Latest) {
		return Receivable{}, ErrPaymentsNeeded
	}
	for _, r := range b.Reversed {
		if !r.At.Date.After(asOf) && r.ReversedOn.After(asOf) {
			return Receivable{}, ErrPaymentsNeeded
		}
	}
	r, _, err := b.account(asOf, p)
	return r, err
}

// applyNovemberStep posts the penalties (on or after November 2) or
// certifies the unpaid balances to the tax roll (MayCertify), for the
// bills the command lists, each re-checked against the ledger as it
// stands. A bill listed that does not belong refuses the whole step.
// Certified bills take no more payments (checkTaxRollOpen). From ledger
// format 2 the certification is recorded on each bill and counts what was
// paid up to the day it is taken.
func applyNovemberStep(tx Tx, c Command, p *Params, res *Result) error {
	in := c.Payload.(*NovemberStep)
	if in.Year < 2000 || in.Year > 9998 {
		return Errorf(EINVALID, sectionReceivable, "%d is not a cycle year.", in.Year)
	}
	id := strconv.Itoa(in.Year)
	var run NovemberRun
	if _, err := tx.Get(CollectionNovemberRuns, id, &run); err != nil {
		return err
	}
	run.Year = in.Year
	if RulesFormat(tx) >= RunPartsFormat {
		return applyNovemberPart(tx, c, in, run, p, res)
	}
	seen := map[string]bool{}
	var items []RunItem
	total := Cents(0)
	for _, bid := range in.Bills {
		if seen[bid] {
			continue
		}
		seen[bid] = true
		b, ok, err := loadBill(tx, bid, true)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(ENOTFOUND, sectionReceivable, "There is no bill %q.", bid)
		}
		on := TaxRollDay(in.Year)
		if RulesFormat(tx) >= 2 {
			on = c.At.Date
		}
		it, in2, err := NovemberItemOn(b, in.Op, in.Year, on, p)
		if err != nil {
			return err
		}
		if !in2 {
			return Errorf(ECONFLICT, sectionReceivable, "Bill %s does not belong in this step any more; preview the run again.", bid)
		}
		if pc, ok, err := tx.Parcel(b.Parcel); err != nil {
			return err
		} else if ok {
			it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
		}
		it.CommandID = c.ID
		items = append(items, it)
		if in.Op == "certify" && RulesFormat(tx) >= 2 {
			// The bill's place on the roll is what the ledger records
			// here, on the day of certification (Bill.Certified).
			b.Certified = &Certification{Year: in.Year, At: c.At, Command: c.ID, Amount: it.Balance}
			if _, err := storeBill(tx, b, p); err != nil {
				return err
			}
		}
		if in.Op == "penalties" {
			total = total.Add(it.Penalty)
		} else {
			total = total.Add(it.Balance)
		}
	}
	if len(in.Assessments) > 0 {
		// Special assessments not paid by their date are extended on the
		// roll as a delinquent tax (§5.14(12)); they take no penalty.
		if RulesFormat(tx) < 2 || in.Op != "certify" {
			return Errorf(EINVALID, "§5.14(12)", "Special assessment installments are extended on the tax roll when it is certified (ledger format 2).")
		}
		more, sum, err := certifyInstallments(tx, c, in.Year, in.Assessments)
		if err != nil {
			return err
		}
		items, total = append(items, more...), total.Add(sum)
	}
	switch in.Op {
	case "penalties":
		if c.At.Date.Before(PenaltyDay(in.Year)) {
			return Errorf(ECONFLICT, sectionReceivable, "Penalties for %d are posted on or after %s.", in.Year, PenaltyDay(in.Year))
		}
		if run.PenaltiesCommand != "" {
			return Errorf(ECONFLICT, sectionReceivable, "The %d penalties were already posted (%s).", in.Year, run.PenaltiesAt)
		}
		run.Penalties, run.PenaltyTotal, run.PenaltiesCommand, run.PenaltiesBy, run.PenaltiesAt = items, total, c.ID, c.Actor, c.At
		res.Note = fmt.Sprintf("%d penalties posted, %s", len(items), total)
	case "certify":
		if !MayCertify(in.Year, c.At, p) {
			return Errorf(ECONFLICT, sectionReceivable, "The %d tax roll is certified after November 15 ends (the office's closing time that day).", in.Year)
		}
		if run.PenaltiesCommand == "" {
			return Errorf(ECONFLICT, sectionReceivable, "Post the %d penalties before certifying the tax roll.", in.Year)
		}
		if run.CertifyCommand != "" {
			return Errorf(ECONFLICT, sectionReceivable, "The %d tax roll was already certified (%s).", in.Year, run.CertifiedAt)
		}
		for _, it := range items {
			if err := tx.Put(CollectionTaxRoll, it.BillID, it); err != nil {
				return err
			}
		}
		run.Certified, run.CertifiedTotal, run.CertifyCommand, run.CertifiedBy, run.CertifiedAt = items, total, c.ID, c.Actor, c.At
		res.Note = fmt.Sprintf("%d bills certified to the tax roll, %s", len(items), total)
	default:
		return Errorf(EINVALID, sectionReceivable, "Unknown November run step %q.", in.Op)
	}
	return tx.Put(CollectionNovemberRuns, id, run)
}

// applyNovemberPart is applyNovemberStep from ledger format 8
// (RunPartsFormat): the command is one part of a step, at most
// RunPartBills lines, and the step stays open while its parts say More.
// The step's own checks come first (its day, the order of the steps, a
// step complete already), then each line as before; a bill already in
// the open penalty step refuses the part, as one certified already does.
// Each line is a record of its own (CollectionNovemberItems), and the run
// adds the part's count and total.
func applyNovemberPart(tx Tx, c Command, in *NovemberStep, run NovemberRun, p *Params, res *Result) error {
	switch in.Op {
	case "penalties":
		if c.At.Date.Before(PenaltyDay(in.Year)) {
			return Errorf(ECONFLICT, sectionReceivable, "Penalties for %d are posted on or after %s.", in.Year, PenaltyDay(in.Year))
		}
		if run.PenaltiesPosted() {
			return Errorf(ECONFLICT, sectionReceivable, "The %d penalties were already posted (%s).", in.Year, run.PenaltiesAt)
		}
	case "certify":
		if !MayCertify(in.Year, c.At, p) {
			return Errorf(ECONFLICT, sectionReceivable, "The %d tax roll is certified after November 15 ends (the office's closing time that day).", in.Year)
		}
		if run.PenaltiesOpen {
			return Errorf(ECONFLICT, sectionReceivable, "Finish posting the %d penalties (%d lines posted so far) before certifying the tax roll.", in.Year, run.PenaltyCount)
		}
		if !run.PenaltiesPosted() {
			return Errorf(ECONFLICT, sectionReceivable, "Post the %d penalties before certifying the tax roll.", in.Year)
		}
		if run.RollCertified() {
			return Errorf(ECONFLICT, sectionReceivable, "The %d tax roll was already certified (%s).", in.Year, run.CertifiedAt)
		}
	default:
		return Errorf(EINVALID, sectionReceivable, "Unknown November run step %q.", in.Op)
	}
	if n := len(in.Bills) + len(in.Assessments); n > RunPartBills {
		return Errorf(EINVALID, sectionReceivable, "A part of the November run holds at most %d bills; this one lists %d. Post the step in parts.", RunPartBills, n)
	}
	if len(in.Assessments) > 0 && in.Op != "certify" {
		return Errorf(EINVALID, "§5.14(12)", "Special assessment installments are extended on the tax roll when it is certified.")
	}
	seen := map[string]bool{}
	var items []RunItem
	total := Cents(0)
	for _, bid := range in.Bills {
		if seen[bid] {
			continue
		}
		seen[bid] = true
		b, ok, err := loadBill(tx, bid, true)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(ENOTFOUND, sectionReceivable, "There is no bill %q.", bid)
		}
		if in.Op == "penalties" {
			var had RunItem
			if ok, err := tx.Get(CollectionNovemberItems, NovemberItemKey(in.Year, in.Op, bid), &had); err != nil {
				return err
			} else if ok {
				return Errorf(ECONFLICT, sectionReceivable, "Bill %s's %d penalty was posted in an earlier part of this step; preview the run again.", bid, in.Year)
			}
		}
		it, belongs, err := NovemberItemOn(b, in.Op, in.Year, c.At.Date, p)
		if err != nil {
			return err
		}
		if !belongs {
			return Errorf(ECONFLICT, sectionReceivable, "Bill %s does not belong in this step any more; preview the run again.", bid)
		}
		if pc, ok, err := tx.Parcel(b.Parcel); err != nil {
			return err
		} else if ok {
			it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
		}
		it.CommandID = c.ID
		items = append(items, it)
		if in.Op == "certify" {
			b.Certified = &Certification{Year: in.Year, At: c.At, Command: c.ID, Amount: it.Balance}
			if _, err := storeBill(tx, b, p); err != nil {
				return err
			}
			total = total.Add(it.Balance)
		} else {
			total = total.Add(it.Penalty)
		}
	}
	if len(in.Assessments) > 0 {
		more, sum, err := certifyInstallments(tx, c, in.Year, in.Assessments)
		if err != nil {
			return err
		}
		items, total = append(items, more...), total.Add(sum)
	}
	for _, it := range items {
		if in.Op == "certify" {
			if err := tx.Put(CollectionTaxRoll, it.BillID, it); err != nil {
				return err
			}
		}
		if err := tx.Put(CollectionNovemberItems, NovemberItemKey(in.Year, in.Op, it.BillID), it); err != nil {
			return err
		}
	}
	var count int
	var sum Money
	if in.Op == "penalties" {
		if run.PenaltiesCommand == "" {
			run.PenaltiesCommand, run.PenaltiesBy, run.PenaltiesAt = c.ID, c.Actor, c.At
		}
		run.PenaltyCount += len(items)
		run.PenaltyTotal = run.PenaltyTotal.Add(total)
		run.PenaltiesOpen = in.More
		count, sum = run.PenaltyCount, run.PenaltyTotal
		res.Note = fmt.Sprintf("%d penalties posted, %s", len(items), total)
	} else {
		if run.CertifyCommand == "" {
			run.CertifyCommand, run.CertifiedBy, run.CertifiedAt = c.ID, c.Actor, c.At
		}
		run.CertifiedCount += len(items)
		run.CertifiedTotal = run.CertifiedTotal.Add(total)
		run.CertifyOpen = in.More
		count, sum = run.CertifiedCount, run.CertifiedTotal
		res.Note = fmt.Sprintf("%d bills certified to the tax roll, %s", len(items), total)
	}
	switch {
	case in.More:
		res.Note += "; more parts of this step follow"
	case count > len(items):
		res.Note += fmt.Sprintf("; the step is complete: %d lines, %s", count, sum)
	}
	return tx.Put(CollectionNovemberRuns, strconv.Itoa(in.Year), run)
}

// KindNovemberRun posts the penalties, or certifies the tax roll (§5.10).
const KindNovemberRun Kind = "november_run"

// Kind names the payload's kind.
func (*NovemberStep) Kind() Kind { return KindNovemberRun }

var novemberRunKind = &Descriptor{
	Kind:    KindNovemberRun,
	Field:   "november_step", // as the first release wrote it
	Section: sectionReceivable,
	Roles:   []Role{RoleTreasurer},
	New:     func() Payload { return new(NovemberStep) },
	Apply:   func(tx Tx, c Command, e Env, res *Result) error { return applyNovemberStep(tx, c, e.Params, res) },
	Books:   novemberRunLines,
}

// novemberRunLines post the certification of the tax roll (§5.10): each
// village bill certified leaves the receivables of its fund, since the
// county collects it with the property tax, and becomes what the county
// owes the village, at the balance the run certified. Its unpaid
// interest and penalty, which the books count as revenue when they are
// paid (receiptLines), are revenue of the bill's line once certified: the
// county owes them as it owes the principal. The penalty step posts
// nothing: it only fixes the penalty a later payment or certification
// counts. From ledger format 6 the special assessment installments the
// run extends on the roll as a delinquent tax (§5.14(12)) move the same
// way: their unpaid principal from special assessments receivable to due
// from the county, their unpaid installment interest to revenue (it was
// revenue when paid; now the county owes it). Before, they posted nothing.
func novemberRunLines(l *Lines, tx Tx, c Command, res Result) string {
	in := c.Payload.(*NovemberStep)
	if in.Op != "certify" {
		return ""
	}
	var run NovemberRun
	if RulesFormat(tx) >= RunPartsFormat {
		// The part's lines, as it recorded them on the roll.
		for _, id := range append(slices.Clone(in.Bills), in.Assessments...) {
			var it RunItem
			if ok, err := tx.Get(CollectionTaxRoll, id, &it); err != nil || !ok {
				if err == nil {
					err = fmt.Errorf("books: the roll's line of %s is missing", id)
				}
				l.err = err
				return ""
			}
			if it.CommandID == c.ID && !slices.ContainsFunc(run.Certified, func(had RunItem) bool { return had.BillID == id }) {
				run.Certified = append(run.Certified, it)
			}
		}
	} else if _, err := tx.Get(CollectionNovemberRuns, strconv.Itoa(in.Year), &run); err != nil {
		l.err = err
		return ""
	}
	n, certified := 0, 0 // bills, installments
	installments := RulesFormat(tx) >= ReconciledFormat
	for _, it := range run.Certified {
		if it.CommandID != c.ID {
			continue
		}
		if it.Assessment != "" {
			if installments {
				rev, fund := assessmentRevenue(l)
				memo := fmt.Sprintf("installment %s certified to the %d tax roll (%s County)", it.BillID, in.Year, it.County.Title())
				l.Debit(l.Control(fund, ControlDueFromCounty), it.Balance, "§5.14(12)", memo)
				l.Credit(l.Control(fund, ControlAssessmentsReceivable), it.Principal, "§5.14(12)", memo)
				l.Credit(rev, it.Balance.Sub(it.Principal), "§5.14(12)", "installment interest of "+memo)
				certified++
			}
			continue
		}
		b, ok, err := tx.Bill(it.BillID)
		if err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("books: bill %s is missing", it.BillID)
			}
			l.err = err
			return ""
		}
		rev := l.RevenueOf(b.Revenue, SourceBills)
		fund := l.FundOf(rev)
		memo := fmt.Sprintf("bill %s certified to the %d tax roll (%s County)", b.ID, in.Year, it.County.Title())
		l.Debit(l.Control(fund, ControlDueFromCounty), it.Balance, sectionReceivable, memo)
		l.Credit(l.Control(fund, ControlReceivable), it.Principal, sectionReceivable, memo)
		l.Credit(rev, it.Interest.Add(it.Penalty), sectionReceivable, "interest and penalty of "+memo)
		n++
	}
	switch {
	case certified > 0:
		return fmt.Sprintf("%d bills and %d assessment installments certified to the %d tax roll", n, certified, in.Year)
	case n == 0:
		return ""
	}
	return fmt.Sprintf("%d bills certified to the %d tax roll", n, in.Year)
}

// checkTaxRollOpen refuses a payment taken at `at` on a bill the tax roll
// has closed (§5.10). From ledger format 2 that is what the ledger
// recorded: the November run certified the bill before the payment was
// taken. A bill past November 15 that the run has not certified yet is
// still open, and a payment taken before the certification (an offline
// node's, posting after it) is not lost. Before format 2 the calendar
// decided, as RULES.md's pure rule does: any payment dated after November
// 15 of the cycle year was refused, certified or not.
func checkTaxRollOpen(tx Tx, b Bill, at DateTime, p *Params) error {
	if RulesFormat(tx) < 2 {
		fig, err := b.Figures(b.BilledOn, p)
		if err != nil {
			return err
		}
		if at.Date.After(fig.TaxRollOn) {
			return Errorf(ECONFLICT, sectionReceivable,
				"The bill is on the tax roll since %s; a payment dated %s cannot be taken on it.", fig.TaxRollOn, at.Date)
		}
		return nil
	}
	cert := b.Certified
	if cert == nil {
		// A bill certified before format 2 has its line on the roll
		// but no Certified of its own.
		var it RunItem
		ok, err := tx.Get(CollectionTaxRoll, b.ID, &it)
		if err != nil {
			return err
		}
		if ok {
			var run NovemberRun
			if _, err := tx.Get(CollectionNovemberRuns, strconv.Itoa(it.Year), &run); err != nil {
				return err
			}
			cert = &Certification{Year: it.Year, At: run.CertifiedAt, Command: it.CommandID, Amount: it.Balance}
		}
	}
	if cert != nil && !at.Before(cert.At) {
		return taxRollClosed(b, cert)
	}
	return nil
}

func taxRollClosed(b Bill, cert *Certification) error {
	return Errorf(ECONFLICT, sectionReceivable,
		"Bill %s was certified to the %d tax roll on %s (%s); it is collected with the property tax of parcel %s.", b.ID, cert.Year, cert.At.Date, cert.Amount, b.Parcel)
}
