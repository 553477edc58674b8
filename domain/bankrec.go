package domain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Cash by depository and the bank reconciliation (§5.06). The books keep
// cash by fund (control cash); the village's money sits in the designated
// depositories. CashByDepository places every posting to a cash account
// in the depository the village's own records of the event name, and sets
// the total beside the trial balance's cash: what no record places (a
// payroll paid out of cash, an investment, a county settlement, an
// adjusting entry: their records name no depository) is shown "not
// placed", never guessed.
//
// Where a posting's depository comes from, kind by kind:
//   - deposit: its deposit slip (by the command that made it);
//   - card_settlement: the settlement of the card day (by its command);
//   - return_check: the deposit the returned check went into (the drawer
//     it was taken in, and that drawer's slip);
//   - check_run, issue_refund, check_void: the check its lines name, which
//     is drawn on one depository's account (CheckRecord.Account);
//   - depository_interest: the depository the interest was credited by,
//     as its entry names it, with the day the bank credited it.
//
// The treasurer records each depository's statement (bank_statement): its
// date, the bank's ending balance, the checks it shows paid and the
// deposits it shows credited. A statement posts nothing: the bank's
// records are not the village's postings. A bank charge or interest the
// books do not have yet is entered with its own kind (depository_interest,
// a claim for a charge), and then posts like any other. Reconciliation
// sets the bank's balance, with the deposits in transit added and the
// outstanding checks taken off, beside the book balance of the same day.

// KindBankStatement records a depository's statement.
const KindBankStatement Kind = "bank_statement"

// Collections of the bank reconciliation.
const (
	// CollectionBankStatements holds the statements, by
	// "<depository>/<statement date>": a depository's sort by date.
	CollectionBankStatements = "bank-statements"
	// CollectionBankCleared holds each check a statement showed paid,
	// by "check/<CheckID>", and each deposit one showed credited by its
	// id, by "deposit/<id>": a check clears once.
	CollectionBankCleared = "bank-cleared"
	// CollectionBankStatementDates holds, by depository, the dates of
	// its statements in order (a transaction cannot list).
	CollectionBankStatementDates = "bank-statement-dates"
)

// StatementCredit is a deposit a bank statement shows credited: by the
// village's deposit id, or by the amount and the day the bank credited it
// when the statement does not carry the slip's number.
type StatementCredit struct {
	DepositID string `json:"deposit_id,omitempty"`
	Amount    Money  `json:"amount,omitzero"`
	On        Date   `json:"on,omitzero"`
}

// BankStatement is a depository's statement as the treasurer records it.
type BankStatement struct {
	Depository string            `json:"depository"`
	On         Date              `json:"on"`      // the statement's date
	Balance    Money             `json:"balance"` // the ending balance per the bank
	Cleared    []int             `json:"cleared,omitempty"`
	Credited   []StatementCredit `json:"credited,omitempty"`
	Reference  string            `json:"reference,omitempty"` // the bank's statement number
}

// Kind names the payload's kind.
func (*BankStatement) Kind() Kind { return KindBankStatement }

func (p *BankStatement) textFields() []textField {
	f := []textField{oneLine("The depository", p.Depository), oneLine("The statement's reference", p.Reference)}
	for _, c := range p.Credited {
		f = append(f, oneLine("A deposit id", c.DepositID))
	}
	return f
}

// BankStatementRecord is a statement recorded.
type BankStatementRecord struct {
	BankStatement
	Recorded  DateTime `json:"recorded"`
	By        string   `json:"by"`
	CommandID string   `json:"command_id"`
	Index     uint64   `json:"index"`
}

// bankCleared is a check or deposit a statement cleared.
type bankCleared struct {
	Depository string `json:"depository"`
	Statement  Date   `json:"statement"`
}

var bankStatementKind = &Descriptor{
	Kind: KindBankStatement, Section: sectionDeposit, Since: ReconciledFormat,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(BankStatement) },
	Apply: applyBankStatement,
	// No Books: the statement is the bank's record, not a posting.
}

func clearedCheckID(n int) string        { return "check/" + CheckID(n) }
func creditedDepositID(id string) string { return "deposit/" + id }

func applyBankStatement(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BankStatement)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionDeposit, format, args...) }
	d, ok, err := loadDepository(tx, strings.TrimSpace(p.Depository))
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, sectionDeposit, "There is no depository %q: record the statement of a depository the board designated.", p.Depository)
	case p.On.IsZero():
		return bad("Give the statement's date.")
	case p.On.After(c.At.Date):
		return bad("The statement is dated %s, after today (%s): record a statement the bank has issued.", p.On, c.At.Date)
	}
	var dates []Date
	if _, err := tx.Get(CollectionBankStatementDates, d.ID, &dates); err != nil {
		return err
	}
	if n := len(dates); n > 0 && !p.On.After(dates[n-1]) {
		if p.On == dates[n-1] {
			return Errorf(ECONFLICT, sectionDeposit, "The statement of %s dated %s is recorded already.", d.ID, p.On)
		}
		return Errorf(ECONFLICT, sectionDeposit, "The last statement of %s recorded is dated %s: a statement dated %s comes before it. Record the statements in order.", d.ID, dates[n-1], p.On)
	}
	rec := BankStatementRecord{BankStatement: BankStatement{Depository: d.ID, On: p.On, Balance: p.Balance, Reference: strings.TrimSpace(p.Reference)},
		Recorded: c.At, By: c.Actor, CommandID: c.ID, Index: env.Index}
	mark := bankCleared{Depository: d.ID, Statement: p.On}
	seen := map[int]bool{}
	for _, n := range p.Cleared {
		if seen[n] {
			return bad("Check %d is listed twice on the statement.", n)
		}
		seen[n] = true
		var ck CheckRecord
		found, err := tx.Get(CollectionChecks, CheckID(n), &ck)
		switch {
		case err != nil:
			return err
		case !found || ck.Account != d.ID:
			return bad("No check %d was written on %s's account: list only the village's checks on this account.", n, d.ID)
		case ck.On.After(p.On):
			return bad("Check %d is dated %s, after the statement's date %s.", n, ck.On, p.On)
		case ck.Void != nil:
			return Errorf(ECONFLICT, sectionDeposit, "Check %d was voided on %s: ask the bank why it paid it, and record the statement without it (the difference will show it).", n, ck.Void.At.Date)
		}
		var was bankCleared
		if found, err := tx.Get(CollectionBankCleared, clearedCheckID(n), &was); err != nil {
			return err
		} else if found {
			return Errorf(ECONFLICT, sectionDeposit, "Check %d cleared on the statement of %s dated %s already: a check clears once.", n, was.Depository, was.Statement)
		}
		if err := tx.Put(CollectionBankCleared, clearedCheckID(n), mark); err != nil {
			return err
		}
		rec.Cleared = append(rec.Cleared, n)
	}
	for _, cr := range p.Credited {
		id := strings.TrimSpace(cr.DepositID)
		if id == "" {
			// By amount and day: matched to a deposit when the
			// reconciliation reads it (a transaction cannot list the
			// slips).
			if !cr.Amount.IsPositive() || cr.On.IsZero() || cr.On.After(p.On) {
				return bad("Name each deposit credited by its deposit id, or by its amount (more than $0.00) and the day the bank credited it, on or before the statement's date.")
			}
			rec.Credited = append(rec.Credited, StatementCredit{Amount: cr.Amount, On: cr.On})
			continue
		}
		var slip DepositSlip
		found, err := tx.Get(CollectionDeposits, id, &slip)
		switch {
		case err != nil:
			return err
		case !found:
			return Errorf(ENOTFOUND, sectionDeposit, "There is no deposit %q.", id)
		case slip.Depository != d.ID:
			return bad("Deposit %s went to %s, not to %s.", id, slip.Depository, d.ID)
		case slip.At.Date.After(p.On):
			return bad("Deposit %s was made on %s, after the statement's date %s.", id, slip.At.Date, p.On)
		}
		var was bankCleared
		if found, err := tx.Get(CollectionBankCleared, creditedDepositID(id), &was); err != nil {
			return err
		} else if found {
			return Errorf(ECONFLICT, sectionDeposit, "Deposit %s was credited on the statement dated %s already.", id, was.Statement)
		}
		if err := tx.Put(CollectionBankCleared, creditedDepositID(id), mark); err != nil {
			return err
		}
		rec.Credited = append(rec.Credited, StatementCredit{DepositID: id})
	}
	if err := tx.Put(CollectionBankStatementDates, d.ID, append(dates, p.On)); err != nil {
		return err
	}
	res.Ref = d.ID + "/" + p.On.String()
	res.Note = fmt.Sprintf("statement of %s dated %s: bank balance %s, %d checks paid, %d deposits credited", d.ID, p.On, p.Balance, len(rec.Cleared), len(rec.Credited))
	return tx.Put(CollectionBankStatements, res.Ref, rec)
}

// CashMovement is what one journal entry did to the cash of one
// depository, or to cash no record places in a depository.
type CashMovement struct {
	Date      Date   // the entry's date
	Kind      Kind   // the kind that posted it
	CommandID string // the command that posted it
	// Depository is the depository's code; empty when not placed.
	Depository string
	Amount     Money  // into the depository positive, out negative
	Check      int    // the check written (Amount < 0) or voided (> 0)
	DepositID  string // the deposit slip (kind deposit)
	// BankDate is the day the bank credited it, when the record says so
	// and it may differ from the entry's date (interest entered later).
	BankDate Date
	Memo     string // what it is, from the entry
}

// checkInMemo finds the check a line of a check, a refund check or a
// void names ("check 5001 to …", "refund check 5001 on …", "check 5001
// voided …"): the lines of those kinds name their check by number.
var checkInMemo = regexp.MustCompile(`^(?:refund )?check (\d+)\b`)

// cashMovements returns, in date and log order, what every journal entry
// dated on or before asOf did to cash, placed in a depository where the
// village's records of the event name one.
func (x Reads) cashMovements(asOf Date) ([]CashMovement, error) {
	ch, err := x.Chart()
	if err != nil {
		return nil, err
	}
	isCash := func(code string) bool {
		a, ok := ch.Account(code)
		return ok && a.Control == ControlCash
	}
	entries, err := x.BookEntries(Date{}, asOf, "")
	if err != nil {
		return nil, err
	}
	// The records that name a depository, by the command that made them.
	slips, err := all[DepositSlip](x.r, CollectionDeposits, "")
	if err != nil {
		return nil, err
	}
	slipByCmd, slipByID := map[string]DepositSlip{}, map[string]DepositSlip{}
	for _, s := range slips {
		slipByCmd[s.CommandID], slipByID[s.ID] = s, s
	}
	cardByCmd := map[string]string{}
	if err := x.r.List(CollectionBookCardDays, "", func(_ string, raw []byte) error {
		var d CardDay
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		if d.Settled != nil {
			cardByCmd[d.Settled.CommandID] = d.Settled.Depository
		}
		return nil
	}); err != nil {
		return nil, err
	}
	returned, err := x.ReturnedChecks()
	if err != nil {
		return nil, err
	}
	returnedByCmd := map[string]ReturnedCheckRecord{}
	for _, r := range returned {
		returnedByCmd[r.CommandID] = r
	}
	checks := map[int]CheckRecord{}
	checkOf := func(n int) (CheckRecord, bool, error) {
		if ck, ok := checks[n]; ok {
			return ck, true, nil
		}
		ck, ok, err := get[CheckRecord](x.r, CollectionChecks, CheckID(n))
		if ok {
			checks[n] = ck
		}
		return ck, ok, err
	}

	var out []CashMovement
	for _, e := range entries {
		var net Money
		var cash []BookLine
		for _, p := range e.Lines {
			if isCash(p.Account) {
				cash = append(cash, p)
				net = net.Add(p.Debit).Sub(p.Credit)
			}
		}
		if len(cash) == 0 {
			continue
		}
		m := CashMovement{Date: e.Date, Kind: e.Kind, CommandID: e.CommandID, Amount: net, Memo: e.Memo}
		switch e.Kind {
		case KindDeposit:
			if s, ok := slipByCmd[e.CommandID]; ok {
				m.Depository, m.DepositID = s.Depository, s.ID
			}
		case KindCardSettlement:
			m.Depository = cardByCmd[e.CommandID]
		case KindReturnCheck:
			if r, ok := returnedByCmd[e.CommandID]; ok && r.Payment.Drawer != "" {
				d, found, err := get[Drawer](x.r, CollectionDrawers, r.Payment.Drawer)
				if err != nil {
					return nil, err
				}
				if found {
					m.Depository = slipByID[d.DepositID].Depository
				}
			}
		case KindDepositoryInterest:
			var dep, day string
			if _, err := fmt.Sscanf(e.Memo, "interest credited by %s on %s", &dep, &day); err == nil {
				m.Depository = dep
				m.BankDate, _ = ParseDate(day)
			}
		case KindCheckRun, KindIssueRefund, KindCheckVoid:
			// One movement a check, on the check's account.
			byCheck := map[int]Money{}
			var order []int
			var rest Money
			for _, p := range cash {
				sm := checkInMemo.FindStringSubmatch(p.Memo)
				if sm == nil {
					rest = rest.Add(p.Debit).Sub(p.Credit)
					continue
				}
				n, _ := strconv.Atoi(sm[1])
				if _, ok := byCheck[n]; !ok {
					order = append(order, n)
				}
				byCheck[n] = byCheck[n].Add(p.Debit).Sub(p.Credit)
			}
			for _, n := range order {
				ck, ok, err := checkOf(n)
				if err != nil {
					return nil, err
				}
				one := m
				one.Amount, one.Check = byCheck[n], n
				if ok {
					one.Depository = ck.Account
				}
				out = append(out, one)
			}
			if rest.IsZero() {
				continue
			}
			m.Amount = rest
		}
		if m.Amount.IsZero() && m.Depository == "" {
			// A transfer between funds moves no money between
			// depositories.
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// DepositoryCash is the book balance of one depository.
type DepositoryCash struct {
	Depository Depository
	In         Money // what went in, to the date
	Out        Money // what went out, to the date (a positive figure)
	Balance    Money
}

// CashByDepository is the books' cash as of a date, by depository, beside
// the trial balance's cash.
type CashByDepository struct {
	AsOf Date
	Rows []DepositoryCash // every depository, by code
	// Placed is the total of the depositories.
	Placed Money
	// NotPlaced are the postings to cash no record places in a
	// depository, and NotPlacedTotal their sum.
	NotPlaced      []CashMovement
	NotPlacedTotal Money
	// Books is the trial balance's cash: every fund's cash accounts.
	Books Money
}

// Difference is the books' cash less the total by depository: the cash
// the records cannot place.
func (c CashByDepository) Difference() Money { return c.Books.Sub(c.Placed) }

// Ties reports whether the books' cash is the depositories' and the cash
// not placed: it always should, as both read the same postings.
func (c CashByDepository) Ties() bool { return c.Difference().Equal(c.NotPlacedTotal) }

// CashByDepository returns the book balance of each depository as of the
// end of asOf (§5.06), read from the postings to cash and the records
// that name their depository, with the trial balance's cash beside it.
func (x Reads) CashByDepository(asOf Date) (CashByDepository, error) {
	out := CashByDepository{AsOf: asOf, Placed: Cents(0), NotPlacedTotal: Cents(0), Books: Cents(0)}
	deps, err := x.Depositories()
	if err != nil {
		return out, err
	}
	moves, err := x.cashMovements(asOf)
	if err != nil {
		return out, err
	}
	rows := map[string]*DepositoryCash{}
	for _, d := range deps {
		rows[d.ID] = &DepositoryCash{Depository: d, In: Cents(0), Out: Cents(0), Balance: Cents(0)}
	}
	for _, m := range moves {
		if m.Depository == "" {
			out.NotPlaced = append(out.NotPlaced, m)
			out.NotPlacedTotal = out.NotPlacedTotal.Add(m.Amount)
			continue
		}
		r, ok := rows[m.Depository]
		if !ok {
			r = &DepositoryCash{Depository: Depository{ID: m.Depository, Name: "(not a designated depository)"}, In: Cents(0), Out: Cents(0), Balance: Cents(0)}
			rows[m.Depository] = r
		}
		if m.Amount.IsNegative() {
			r.Out = r.Out.Sub(m.Amount)
		} else {
			r.In = r.In.Add(m.Amount)
		}
		r.Balance = r.Balance.Add(m.Amount)
		out.Placed = out.Placed.Add(m.Amount)
	}
	for _, r := range rows {
		out.Rows = append(out.Rows, *r)
	}
	slices.SortFunc(out.Rows, func(a, b DepositoryCash) int { return strings.Compare(a.Depository.ID, b.Depository.ID) })
	tb, err := x.TrialBalance(asOf)
	if err != nil {
		return out, err
	}
	for _, r := range tb.Rows {
		if r.Account.Control == ControlCash {
			out.Books = out.Books.Add(r.Balance())
		}
	}
	return out, nil
}

// BankStatements returns the statements of a depository, oldest first.
func (x Reads) BankStatements(depository string) ([]BankStatementRecord, error) {
	return all[BankStatementRecord](x.r, CollectionBankStatements, depository+"/")
}

// Reconciliation is a depository's bank statement set beside its book
// balance of the statement's date.
type Reconciliation struct {
	Depository Depository
	Statement  BankStatementRecord
	// Book is the depository's book balance as of the statement date.
	Book Money
	// PostedLater are items the bank dated on or before the statement
	// date that the books posted after it (interest entered once the
	// statement came), which belong to the book balance of that day.
	PostedLater      []CashMovement
	PostedLaterTotal Money
	// Bank is the ending balance per the bank.
	Bank Money
	// Outstanding are the checks written on the account to the
	// statement date, not voided by then, that no statement to that
	// date shows paid; InTransit the deposits made to the date that no
	// statement to that date shows credited.
	Outstanding      []CashMovement
	OutstandingTotal Money // a positive figure
	InTransit        []CashMovement
	InTransitTotal   Money
	// Unmatched are the credits this statement or an earlier one gave
	// by amount and day that match no deposit of the village's.
	Unmatched []StatementCredit
}

// AdjustedBank is the bank's balance with the deposits in transit added
// and the outstanding checks taken off.
func (r Reconciliation) AdjustedBank() Money {
	return r.Bank.Add(r.InTransitTotal).Sub(r.OutstandingTotal)
}

// AdjustedBook is the book balance with the items the bank dated by the
// statement and the books posted later.
func (r Reconciliation) AdjustedBook() Money { return r.Book.Add(r.PostedLaterTotal) }

// Difference is the adjusted bank balance less the adjusted book
// balance: zero when the account is reconciled.
func (r Reconciliation) Difference() Money { return r.AdjustedBank().Sub(r.AdjustedBook()) }

// Reconciled reports whether the difference is zero.
func (r Reconciliation) Reconciled() bool { return r.Difference().IsZero() }

// farFuture bounds the postings read for the items posted after a
// statement.
var farFuture = NewDate(9999, time.December, 31)

// Reconciliation reconciles the statement of depository dated on with
// the books (§5.06).
func (x Reads) Reconciliation(depository string, on Date) (Reconciliation, error) {
	r := Reconciliation{Book: Cents(0), PostedLaterTotal: Cents(0), OutstandingTotal: Cents(0), InTransitTotal: Cents(0)}
	d, err := must[Depository](x.r, CollectionDepositories, depository, "depository")
	if err != nil {
		return r, err
	}
	r.Depository = d
	st, err := must[BankStatementRecord](x.r, CollectionBankStatements, depository+"/"+on.String(), "bank statement of "+depository+" dated")
	if err != nil {
		return r, err
	}
	r.Statement, r.Bank = st, st.Balance
	stmts, err := x.BankStatements(depository)
	if err != nil {
		return r, err
	}
	moves, err := x.cashMovements(farFuture)
	if err != nil {
		return r, err
	}
	cleared := map[int]bool{}
	credited := map[string]bool{}
	var deposits []CashMovement
	for _, m := range moves {
		if m.Depository == depository && m.Kind == KindDeposit && !m.Date.After(on) {
			deposits = append(deposits, m)
		}
	}
	for _, s := range stmts {
		if s.On.After(on) {
			break
		}
		for _, n := range s.Cleared {
			cleared[n] = true
		}
		for _, c := range s.Credited {
			if c.DepositID != "" {
				credited[c.DepositID] = true
			}
		}
		// Credits by amount take the earliest deposit of that amount
		// not yet credited, made on or before the day credited.
		for _, c := range s.Credited {
			if c.DepositID != "" {
				continue
			}
			i := slices.IndexFunc(deposits, func(m CashMovement) bool {
				return !credited[m.DepositID] && m.Amount.Equal(c.Amount) && !m.Date.After(c.On)
			})
			if i < 0 {
				r.Unmatched = append(r.Unmatched, c)
				continue
			}
			credited[deposits[i].DepositID] = true
		}
	}
	voided := map[int]bool{}
	for _, m := range moves {
		if m.Depository == depository && m.Check != 0 && m.Amount.IsPositive() && !m.Date.After(on) {
			voided[m.Check] = true
		}
	}
	for _, m := range moves {
		if m.Depository != depository {
			continue
		}
		if m.Date.After(on) {
			if !m.BankDate.IsZero() && !m.BankDate.After(on) {
				r.PostedLater = append(r.PostedLater, m)
				r.PostedLaterTotal = r.PostedLaterTotal.Add(m.Amount)
			}
			continue
		}
		r.Book = r.Book.Add(m.Amount)
		switch {
		case m.Check != 0 && m.Amount.IsNegative() && !voided[m.Check] && !cleared[m.Check]:
			r.Outstanding = append(r.Outstanding, m)
			r.OutstandingTotal = r.OutstandingTotal.Sub(m.Amount)
		case m.Kind == KindDeposit && !credited[m.DepositID]:
			r.InTransit = append(r.InTransit, m)
			r.InTransitTotal = r.InTransitTotal.Add(m.Amount)
		}
	}
	slices.SortFunc(r.Outstanding, func(a, b CashMovement) int { return a.Check - b.Check })
	return r, nil
}
