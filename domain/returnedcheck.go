package domain

import (
	"fmt"
	"slices"
	"strings"
)

// CollectionReturnedChecks holds the returned checks: id → ReturnedCheckRecord.
const CollectionReturnedChecks = "returned-checks"

// ReturnCheck records that a check paid to the village came back unpaid
// (§5.20). The ids of the record and of the fee's bill are made before the
// command enters the log.
type ReturnCheck struct {
	ReturnID  string `json:"return_id"`
	BillID    string `json:"bill_id"`
	Receipt   string `json:"receipt"` // the receipt of the check's payment
	FeeBillID string `json:"fee_bill_id"`
	Referral  string `json:"referral,omitempty"` // an optional note referring the payer (to the district attorney, a collection agency …)
}

// ReturnedCheckRecord is a returned check and what it changed.
type ReturnedCheckRecord struct {
	ID         string      `json:"id"`
	BillID     string      `json:"bill_id"`
	Account    string      `json:"account"`
	Parcel     string      `json:"parcel"`
	Payment    BillPayment `json:"payment"` // the reversed payment, as it was posted
	ReturnedOn Date        `json:"returned_on"`
	Fee        Money       `json:"fee"`
	Owed       Money       `json:"owed"` // check amount + fee
	FeeBillID  string      `json:"fee_bill_id"`
	Referral   string      `json:"referral,omitempty"`
	CommandID  string      `json:"command_id"`
	By         string      `json:"by"`
	At         DateTime    `json:"at"`
}

// applyReturnCheck applies §5.20 to the ledger: the check's payment is
// taken off its bill, so the bill is unpaid again and its interest and
// penalty are computed as if it had never been paid (they are derived from
// the remaining payments); the returned_check fee in force on the day the
// check came back is billed to the same account and parcel as a new bill;
// and the record keeps the reversed payment for the account's history. A
// refund the check's overpayment had made due is cancelled (RefundState).
func applyReturnCheck(tx Tx, c Command, p *Params, res *Result) error {
	in := c.Payload.(*ReturnCheck)
	if err := validRecordID("returned check", in.ReturnID); err != nil {
		return err
	}
	if err := validRecordID("fee bill", in.FeeBillID); err != nil {
		return err
	}
	var old ReturnedCheckRecord
	if ok, err := tx.Get(CollectionReturnedChecks, in.ReturnID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, sectionReturnedCheck, "Returned check %s is already recorded.", in.ReturnID)
	}
	bill, ok, err := loadBill(tx, in.BillID, true)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ENOTFOUND, sectionReturnedCheck, "There is no bill %q.", in.BillID)
	}
	at := -1
	for i, pay := range bill.Payments {
		if pay.Receipt == in.Receipt {
			at = i
		}
	}
	if at < 0 {
		return Errorf(ENOTFOUND, sectionReturnedCheck, "Bill %s has no payment with receipt %s (was it already returned?).", bill.ID, in.Receipt)
	}
	pay := bill.Payments[at]
	if pay.Tender != Check {
		return Errorf(EINVALID, sectionReturnedCheck, "Receipt %s was paid by %s, not by check.", in.Receipt, pay.Tender)
	}
	if c.At.Date.Before(pay.At.Date) {
		return Errorf(EINVALID, sectionReturnedCheck, "A check cannot come back before it was paid (%s).", pay.At.Date)
	}
	rc, err := ComputeReturnedCheck(ReturnedCheckInput{ReturnedOn: c.At.Date, CheckAmount: pay.Amount}, p)
	if err != nil {
		return err
	}
	removeBillPayment(&bill, at)
	if RulesFormat(tx) >= 2 {
		bill.Reversed = append(bill.Reversed, ReversedPayment{BillPayment: pay, ReversedOn: c.At.Date, ReturnID: in.ReturnID})
	}
	if _, err := storeBill(tx, bill, p); err != nil {
		return err
	}
	if RulesFormat(tx) >= 2 {
		if err := markCheckReturned(tx, pay, in.ReturnID, c.At.Date); err != nil {
			return err
		}
		// The check's receipt no longer counts in the actuals.
		if err := postReceipt(tx, &Receipt{BillID: bill.ID, At: c.At}, pay.Amount.Neg()); err != nil {
			return err
		}
	}
	if rc.Fee.IsPositive() {
		if _, exists, err := tx.Bill(in.FeeBillID); err != nil {
			return err
		} else if exists {
			return Errorf(ECONFLICT, "", "There is already a bill %s.", in.FeeBillID)
		}
		ref := strings.TrimSpace(pay.Reference)
		fee := Bill{ID: in.FeeBillID, Account: bill.Account, Parcel: bill.Parcel, Description: fmt.Sprintf("Returned check fee (§5.20), check %s on bill %s", ref, bill.ID), BilledOn: c.At.Date, Principal: rc.Fee}
		if err := numberBill(tx, &fee); err != nil {
			return err
		}
		if err := tx.PutBill(fee); err != nil {
			return err
		}
		if err := tx.Put(CollectionBillOrigins, fee.ID, BillOrigin{BillID: fee.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: "returned check " + in.ReturnID}); err != nil {
			return err
		}
	}
	if pay.Allocation.Overpayment.IsPositive() {
		st := RefundState{CommandID: pay.CommandID, State: RefundCancelled, Note: "the check came back unpaid (§5.20)", At: c.At, By: c.Actor}
		if err := tx.Put(CollectionRefundStates, pay.CommandID, st); err != nil {
			return err
		}
	}
	rec := ReturnedCheckRecord{ID: in.ReturnID, BillID: bill.ID, Account: bill.Account, Parcel: bill.Parcel, Payment: pay, ReturnedOn: c.At.Date, Fee: rc.Fee, Owed: rc.Owed, FeeBillID: in.FeeBillID, Referral: strings.TrimSpace(in.Referral), CommandID: c.ID, By: c.Actor, At: c.At}
	if !rc.Fee.IsPositive() {
		rec.FeeBillID = ""
	}
	res.Note = fmt.Sprintf("check %s returned: %s reversed, fee %s", pay.Reference, pay.Amount, rc.Fee)
	return tx.Put(CollectionReturnedChecks, rec.ID, rec)
}

// CollectionRefundStates holds what became of each refund due (§5.07(1)),
// by the command id of the payment that overpaid: id → RefundState. A
// refund due with no state is waiting for approval.
const CollectionRefundStates = "refund-states"

// Refund states.
const (
	RefundApproved  = "approved"  // the treasurer approved it; a check is to be written
	RefundPaid      = "paid"      // the check is written and recorded
	RefundCancelled = "cancelled" // the overpayment's check came back unpaid
)

// RefundState is where a refund due stands.
type RefundState struct {
	CommandID   string   `json:"command_id"` // the overpaying payment's command
	BillID      string   `json:"bill_id,omitempty"`
	State       string   `json:"state"`
	Amount      Money    `json:"amount"`
	ApprovedBy  string   `json:"approved_by,omitempty"`
	ApprovedAt  DateTime `json:"approved_at,omitzero"`
	CheckNumber string   `json:"check_number,omitempty"`
	PaidOn      Date     `json:"paid_on,omitzero"`
	PaidBy      string   `json:"paid_by,omitempty"`
	Note        string   `json:"note,omitempty"`
	At          DateTime `json:"at"`
	By          string   `json:"by"`
}

// IssueRefund approves a refund due or records the check that paid it
// (§5.07(1)). From ledger format 5 a refund check is drawn like a claim's
// check: on a bank account (Account, a depository), numbered by the
// ledger from that account's check stock (CheckNumber, if given, must be
// that number: it is the blank the clerk holds), to Payee, with the
// signatures §5.18 requires; it is on the check register. A refund paid
// back to the card records "card " and the processor's reference in
// CheckNumber, and draws no check.
type IssueRefund struct {
	Op          string   `json:"op"` // "approve" | "check"
	BillID      string   `json:"bill_id"`
	CommandID   string   `json:"command_id"` // the overpaying payment's command
	CheckNumber string   `json:"check_number,omitempty"`
	Account     string   `json:"account,omitempty"`    // the depository the check is drawn on (format 5)
	Payee       string   `json:"payee,omitempty"`      // whom the check is made out to (format 5)
	Signatures  []string `json:"signatures,omitempty"` // the signatures affixed (format 5, §5.18)
}

// cardRefund reports whether a refund's "check" is the card's refund
// reference rather than a check.
func cardRefund(number string) bool { return strings.HasPrefix(strings.TrimSpace(number), "card ") }

// applyIssueRefund moves a refund due on: approve, then record the check.
// The amount is the overpayment as the payment was allocated when it
// posted, read from the bill, never from the command.
func applyIssueRefund(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*IssueRefund)
	bill, ok, err := loadBill(tx, in.BillID, true)
	if err != nil {
		return err
	}
	var amount Money
	switch {
	case ok:
		var pay *BillPayment
		for i := range bill.Payments {
			if bill.Payments[i].CommandID == in.CommandID {
				pay = &bill.Payments[i]
			}
		}
		if pay == nil || !pay.Allocation.Overpayment.IsPositive() {
			return Errorf(ENOTFOUND, sectionRefund, "Bill %s has no overpayment by command %s.", in.BillID, in.CommandID)
		}
		amount = pay.Allocation.Overpayment
	case RulesFormat(tx) >= 2:
		// A special assessment's refund (assessmentlevy.go), kept in the
		// same queue (ledger format 2).
		found := false
		if amount, found, err = assessmentRefund(tx, in.BillID, in.CommandID); err != nil {
			return err
		} else if !found {
			return Errorf(ENOTFOUND, sectionRefund, "There is no bill %q.", in.BillID)
		}
		bill.ID = in.BillID
	default:
		return Errorf(ENOTFOUND, sectionRefund, "There is no bill %q.", in.BillID)
	}
	var st RefundState
	if _, err := tx.Get(CollectionRefundStates, in.CommandID, &st); err != nil {
		return err
	}
	switch in.Op {
	case "approve":
		if st.State != "" {
			return Errorf(ECONFLICT, sectionRefund, "This refund is already %s.", st.State)
		}
		st = RefundState{CommandID: in.CommandID, BillID: bill.ID, State: RefundApproved, Amount: amount, ApprovedBy: c.Actor, ApprovedAt: c.At}
	case "check":
		if st.State != RefundApproved {
			return Errorf(ECONFLICT, sectionRefund, "A refund check is recorded only after the refund is approved.")
		}
		if RulesFormat(tx) >= BooksFormat && !cardRefund(in.CheckNumber) {
			num, err := drawRefundCheck(tx, c, in, bill.ID, st.Amount)
			if err != nil {
				return err
			}
			in.CheckNumber = fmt.Sprint(num)
		}
		if strings.TrimSpace(in.CheckNumber) == "" {
			return Errorf(EINVALID, sectionRefund, "The refund check's number is required.")
		}
		st.State, st.CheckNumber, st.PaidOn, st.PaidBy = RefundPaid, strings.TrimSpace(in.CheckNumber), c.At.Date, c.Actor
	default:
		return Errorf(EINVALID, "", "Unknown refund operation %q.", in.Op)
	}
	st.At, st.By = c.At, c.Actor
	res.Note = fmt.Sprintf("refund %s %s", st.Amount, st.State)
	return tx.Put(CollectionRefundStates, in.CommandID, st)
}

// drawRefundCheck writes a refund check (§5.07(1), ledger format 5): its
// number is the next of the check stock of the account it is drawn on,
// the same sequence as the claims' checks, and it carries the signatures
// §5.18 requires (checkSignatures). It is recorded among the checks, so
// the check register lists it beside the claims' checks and its number is
// never used again. It returns the number.
func drawRefundCheck(tx Tx, c Command, in *IssueRefund, bill string, amount Money) (int, error) {
	d, err := checkingAccount(tx, in.Account)
	if err != nil {
		return 0, err
	}
	if strings.TrimSpace(in.Payee) == "" {
		return 0, Errorf(EINVALID, sectionRefund, "Name whom the refund check is made out to.")
	}
	what := "the refund check of bill " + bill
	sigs, err := checkSignatures(tx, c.At.Date, in.Signatures, what)
	if err != nil {
		return 0, err
	}
	if len(sigs) == 0 {
		return 0, Errorf(EINVALID, "§5.18", "A refund check needs the signatures affixed to it (§5.18).")
	}
	num, err := drawCheckNumber(tx, d.ID)
	if err != nil {
		return 0, err
	}
	if given := strings.TrimSpace(in.CheckNumber); given != "" && given != fmt.Sprint(num) {
		return 0, Errorf(ECONFLICT, "§5.07(4)", "The next check of account %s is number %d, not %s: every check drawn on it, a claim's or a refund's, takes the next number of its check stock.", d.ID, num, given)
	}
	ck := CheckRecord{Number: num, Account: d.ID, Refund: in.CommandID, Bill: bill, On: c.At.Date, Payee: strings.TrimSpace(in.Payee),
		Purpose: "refund of the overpayment on bill " + bill + " (§5.07(1))", Amount: amount, Signatures: slices.Clone(in.Signatures)}
	for _, s := range sigs {
		s.Uses = append(s.Uses, "check "+fmt.Sprint(num))
		if err := tx.Put(CollectionSignatures, s.ID, s); err != nil {
			return 0, err
		}
	}
	return num, tx.Put(CollectionChecks, CheckID(num), ck)
}

// voidRefundCheck voids a refund check (ck, its Void set): the refund is
// approved and owed again, to be paid by a new check.
func voidRefundCheck(tx Tx, ck CheckRecord, res *Result) error {
	var st RefundState
	if _, err := tx.Get(CollectionRefundStates, ck.Refund, &st); err != nil {
		return err
	}
	if st.State != RefundPaid || st.CheckNumber != fmt.Sprint(ck.Number) {
		return Errorf(ECONFLICT, sectionRefund, "Check %d no longer pays its refund.", ck.Number)
	}
	st.State, st.CheckNumber, st.PaidOn, st.PaidBy = RefundApproved, "", Date{}, ""
	st.Note = fmt.Sprintf("check %d voided: %s", ck.Number, ck.Void.Reason)
	st.At, st.By = ck.Void.At, ck.Void.By
	if err := tx.Put(CollectionRefundStates, ck.Refund, st); err != nil {
		return err
	}
	res.Ref, res.Note = CheckID(ck.Number), fmt.Sprintf("refund check %d voided; the refund on bill %s is owed again", ck.Number, ck.Bill)
	return tx.Put(CollectionChecks, CheckID(ck.Number), ck)
}

// Kinds of returned checks and refunds.
const (
	KindReturnCheck Kind = "return_check" // a check came back unpaid (§5.20)
	KindIssueRefund Kind = "issue_refund" // approve a refund due, or record its check (§5.07(1))
)

// Kind names the payload's kind.
func (*ReturnCheck) Kind() Kind { return KindReturnCheck }

// Kind names the payload's kind.
func (*IssueRefund) Kind() Kind { return KindIssueRefund }

var returnCheckKind = &Descriptor{
	Kind: KindReturnCheck, Section: "§5.20", Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(ReturnCheck) },
	Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyReturnCheck(tx, c, e.Params, res) },
	Books: returnCheckLines,
}

// returnCheckLines take a returned check's payment off the books as its
// receipt put it on (§5.20): its principal back into the receivables of
// the bill's fund, its interest and penalty out of revenue, its
// overpayment out of refunds payable (the rule cancels that refund), and
// the money out of the receipts not yet deposited while the check was
// still in its drawer (or had none), out of cash once its drawer was
// deposited (§5.06). The fee is a bill issued (billLines).
//
// Taking the payment off recomputes the bill's §5.10 account from the
// payments left, which may then owe more interest and so pay less
// principal (or overpay less) than when they posted. The receivables
// follow the principal the bill leaves unpaid, before and after, as the
// account computes it with and without the check; the difference from
// the check's own principal is a re-allocation between receivables and
// revenue. A refund the other payments made due stands, as the rule
// leaves it, so refunds payable move only by the check's own.
func returnCheckLines(l *Lines, tx Tx, c Command, res Result) string {
	in := c.Payload.(*ReturnCheck)
	var rec ReturnedCheckRecord
	if ok, err := tx.Get(CollectionReturnedChecks, in.ReturnID, &rec); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("books: returned check %s was not recorded", in.ReturnID)
		}
		l.err = err
		return ""
	}
	bill, ok, err := loadBill(tx, rec.BillID, true)
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("books: bill %s is missing", rec.BillID)
		}
		l.err = err
		return ""
	}
	pay := rec.Payment
	al := pay.Allocation
	rev := l.RevenueOf(bill.Revenue, SourceBills)
	fund := l.FundOf(rev)
	money, where := ControlUndeposited, "not yet deposited"
	if pay.Drawer != "" {
		d, err := getDrawer(tx, pay.Drawer)
		if err != nil {
			l.err = err
			return ""
		}
		if d.DepositID != "" {
			money, where = ControlCash, "deposited in "+d.DepositID
		}
	}
	memo := "check " + pay.Reference + " returned (" + pay.Receipt + ")"
	l.Debit(l.Control(fund, ControlReceivable), al.Principal, sectionReturnedCheck, "principal of "+bill.ID+" unpaid again, "+memo)
	l.Debit(rev, pay.Amount.Sub(al.Principal).Sub(al.Overpayment), sectionReturnedCheck, "interest and penalty on "+bill.ID+" reversed, "+memo)
	l.Debit(l.Control(fund, ControlRefunds), al.Overpayment, sectionRefund, "refund of the overpayment cancelled, "+memo)
	l.Credit(l.Control(fund, money), pay.Amount, sectionReturnedCheck, memo+", "+where)
	if l.params != nil {
		diff, err := reallocated(tx, bill, pay, l.params)
		if err != nil {
			l.err = err
			return ""
		}
		if !diff.IsZero() {
			l.Debit(l.Control(fund, ControlReceivable), diff, sectionReceivable, "the payments left on "+bill.ID+" re-allocated without the returned check")
			l.Credit(rev, diff, sectionReceivable, "the payments left on "+bill.ID+" re-allocated without the returned check")
		}
	}
	if rec.FeeBillID != "" {
		billLines(l, tx, []string{rec.FeeBillID})
	}
	return "returned check " + rec.ID + " on " + bill.ID
}

// reallocated returns how much more principal bill (read with all its
// payments, after the return) leaves unpaid without the returned payment
// pay than the payment's own principal: the principal the payments left
// now pay less of (negative: more) once the account is recomputed
// without it (§5.10).
func reallocated(tx Tx, bill Bill, pay BillPayment, p *Params) (Money, error) {
	after, _, err := bill.account(bill.latestPayment(), p)
	if err != nil {
		return Money{}, err
	}
	// The bill as it stood: pay back in its place among the payments,
	// which a bill stored by slots keeps in the order it took them.
	at := len(bill.Payments)
	if s := bill.Summary; s != nil {
		slot := -1
		for _, k := range s.Removed {
			var old BillPayment
			if _, err := tx.Get(CollectionBillPayments, paymentSlot(bill.ID, k), &old); err != nil {
				return Money{}, err
			}
			if old.CommandID == pay.CommandID {
				slot = k
			}
		}
		if slot >= 0 {
			at = 0
			for _, k := range s.live() {
				if k < slot {
					at++
				}
			}
		}
	}
	before := bill
	before.Payments = slices.Insert(slices.Clone(bill.Payments), at, pay)
	was, _, err := before.account(before.latestPayment(), p)
	if err != nil {
		return Money{}, err
	}
	return after.UnpaidPrincipal.Sub(was.UnpaidPrincipal).Sub(pay.Allocation.Principal), nil
}

var issueRefundKind = &Descriptor{
	Kind: KindIssueRefund, Section: "§5.07(1)", Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(IssueRefund) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyIssueRefund(tx, c, res) },
	Books: issueRefundLines,
}

// issueRefundLines post a refund check (§5.07(1)): the overpayment comes
// off the refunds payable of the bill's fund, where its receipt put it,
// and out of that fund's cash. Approving a refund moves no money and
// posts nothing; the kind records every refund as a check, whatever
// tender overpaid. A special assessment's refund posts nothing either:
// the assessments' payments do not post to the books yet, so their
// overpayments were never counted in refunds payable.
func issueRefundLines(l *Lines, tx Tx, c Command, res Result) string {
	in := c.Payload.(*IssueRefund)
	if in.Op != "check" {
		return ""
	}
	bill, ok, err := tx.Bill(in.BillID)
	if err != nil || !ok {
		l.err = err
		return ""
	}
	var st RefundState
	if _, err := tx.Get(CollectionRefundStates, in.CommandID, &st); err != nil {
		l.err = err
		return ""
	}
	return refundCheckLines(l, tx, bill.ID, st.Amount, "refund check "+st.CheckNumber+" on "+bill.ID)
}

// refundCheckLines move amount of a refund (§5.07(1)) off the refunds
// payable of bill's fund and out of its cash; a void posts the negative
// amount. A bill the books do not know (a special assessment's refund)
// posts nothing.
func refundCheckLines(l *Lines, tx Tx, billID string, amount Money, memo string) string {
	bill, ok, err := tx.Bill(billID)
	if err != nil || !ok {
		l.err = err
		return ""
	}
	fund := l.FundOf(l.RevenueOf(bill.Revenue, SourceBills))
	l.Debit(l.Control(fund, ControlRefunds), amount, sectionRefund, memo)
	l.Credit(l.Control(fund, ControlCash), amount, sectionRefund, memo)
	return memo
}

// ReturnedCheckOwed is what the payer of a returned check owes on asOf
// (§5.20): the bill the check paid, unpaid again with its interest as
// though the check had never been paid, and the fee bill, each at its
// balance that day (fee: the fee bill, or nil when no fee was charged).
// The record's Owed (check amount + fee) is not that figure: the check
// may have paid interest already, or an overpayment whose refund is now
// cancelled, so a notice that added "the interest" to it counted the
// interest twice.
func ReturnedCheckOwed(bill Bill, fee *Bill, asOf Date, p *Params) (billBalance, total Money, err error) {
	fig, err := bill.Figures(asOf, p)
	if err != nil {
		return Money{}, Money{}, err
	}
	total = fig.Balance
	if fee != nil {
		f, err := fee.Figures(asOf, p)
		if err != nil {
			return Money{}, Money{}, err
		}
		total = total.Add(f.Balance)
	}
	return fig.Balance, total, nil
}

// ReturnedChecks returns every returned check recorded (§5.20), by id.
func (x Reads) ReturnedChecks() ([]ReturnedCheckRecord, error) {
	return all[ReturnedCheckRecord](x.r, CollectionReturnedChecks, "")
}
