package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// CommandVersion is the version of the command encoding written by this
// build. Decoding accepts every version up to it; kinds and fields only grow.
const CommandVersion = 1

// Kind names what a command does.
type Kind string

// Command kinds. New kinds are appended; none is ever renamed or removed,
// because old log entries must still decode.
const (
	KindSeedDemo Kind = "seed_demo" // load demo data into an empty ledger
	KindPayBill  Kind = "pay_bill"  // a payment on a village bill (§5.10)

	KindRequestStatusLetter Kind = "request_status_letter" // a status letter request and its fee (§5.11)
	KindPayPropertyTax      Kind = "pay_property_tax"      // a property tax payment (Ch. 74)
)

// offlineSafe lists the kinds a node may take while it cannot reach the
// leader: they are recorded in the node's outbox with a provisional receipt
// and applied when the network returns, re-validated then against the
// ledger as it stands. Every other kind needs the current ledger (a refund,
// a void, a returned-check reversal, the November run, year-end close,
// membership) and is refused while offline. A kind missing here is not
// offline-safe: the safe default for kinds added later.
var offlineSafe = map[Kind]bool{
	KindSeedDemo:            true,
	KindPayBill:             true,
	KindRequestStatusLetter: true,
	KindPayPropertyTax:      true,
	KindWindowPayment:       true, // cash and check at the clerk's window
	KindDrawerOpen:          true,
	KindDrawerClose:         true,
	KindDeposit:             true,
}

// OfflineSafe reports whether commands of kind k may be taken without
// quorum (DESIGN.md "How a payment flows", issue 5).
func (k Kind) OfflineSafe() bool { return offlineSafe[k] }

// Command is one change to the ledger. Everything that is not deterministic
// (its id, the intake time, the node, the receipt sequence) is decided before
// it enters the log, where it was taken, so that every node applying it
// reaches the same state.
type Command struct {
	V     int      `json:"v"`
	ID    string   `json:"id"`   // client-made, unique (UUIDv7); a second delivery is a no-op
	Kind  Kind     `json:"kind"` //
	At    DateTime `json:"at"`   // intake time on the village clock: the command's legal date
	Node  string   `json:"node"` // the node that took it
	Seq   uint64   `json:"seq"`  // that node's receipt sequence
	Actor string   `json:"actor"`

	PayBill  *PayBill  `json:"pay_bill,omitempty"`
	SeedDemo *SeedDemo `json:"seed_demo,omitempty"`

	// Resident kiosk payloads (statusrequest.go, taxbill.go).
	RequestStatusLetter *RequestStatusLetter `json:"request_status_letter,omitempty"`
	PayPropertyTax      *PayPropertyTax      `json:"pay_property_tax,omitempty"`

	// Clerk's office payloads (staffcommand.go).
	StaffUser     *StaffUserChange  `json:"staff_user,omitempty"`
	APIToken      *APITokenChange   `json:"api_token,omitempty"`
	CreateBills   *CreateBills      `json:"create_bills,omitempty"`
	DrawerOpen    *DrawerOpen       `json:"drawer_open,omitempty"`
	WindowPayment *WindowPayment    `json:"window_payment,omitempty"`
	DrawerClose   *DrawerClose      `json:"drawer_close,omitempty"`
	Deposit       *Deposit          `json:"deposit,omitempty"`
	ReturnCheck   *ReturnCheck      `json:"return_check,omitempty"`
	IssueRefund   *IssueRefund      `json:"issue_refund,omitempty"`
	StatusLetter  *StatusLetterWork `json:"status_letter,omitempty"`
	NovemberStep  *NovemberStep     `json:"november_step,omitempty"`
	Charge        *NewCharge        `json:"charge,omitempty"`

	// Cluster payloads (ledgerformat.go).
	LedgerFormat *LedgerFormatChange `json:"ledger_format,omitempty"`
	Checkpoint   *Checkpoint         `json:"checkpoint,omitempty"`
	RevokeNode   *RevokeNode         `json:"revoke_node,omitempty"`
}

// PayloadKept reports whether c carries its payload (the ledger keeps a
// very large command without it).
func (c Command) PayloadKept() bool {
	x := c
	x.V, x.ID, x.Kind, x.At, x.Node, x.Seq, x.Actor = 0, "", "", DateTime{}, "", 0, ""
	b, _ := json.Marshal(x)
	return string(b) != "{}"
}

// SameRequest reports whether d asks for exactly what c asks: the same id,
// kind, actor and payload. The node, its sequence and the intake time may
// differ: a client that retries at another node sends the same request,
// which that node stamps anew. A command id reused for another request
// (another amount, another bill, another account) is a conflict, never
// the first request's answer.
func (c Command) SameRequest(d Command) bool {
	norm := func(x Command) []byte {
		x.V, x.Node, x.Seq, x.At = 0, "", 0, DateTime{}
		b, _ := json.Marshal(x)
		return b
	}
	return bytes.Equal(norm(c), norm(d))
}

// ReceiptNumber returns the number a receipt for this command carries:
// "<node>-<sequence>", unique without coordination.
func (c Command) ReceiptNumber() string { return fmt.Sprintf("%s-%06d", c.Node, c.Seq) }

// PayBill pays an amount on a village bill.
type PayBill struct {
	BillID    string `json:"bill_id"`
	Amount    Money  `json:"amount"`
	Tender    Tender `json:"tender"`
	Reference string `json:"reference,omitempty"` // card terminal approval or check number
	Payer     string `json:"payer,omitempty"`
}

// SeedDemo holds demo records. It applies only to an empty ledger, so
// loading the demo twice, or on a ledger with real data, changes nothing.
type SeedDemo struct {
	Parcels  []Parcel  `json:"parcels"`
	Accounts []Account `json:"accounts"`
	Bills    []Bill    `json:"bills"`

	TaxBills  []TaxBill        `json:"tax_bills,omitempty"`
	Purchases []PublicPurchase `json:"purchases,omitempty"`
}

// Result is what applying a command produced.
type Result struct {
	CommandID string     `json:"command_id"`
	Kind      Kind       `json:"kind"`
	Index     uint64     `json:"index,omitempty"`
	Receipt   *Receipt   `json:"receipt,omitempty"`
	Refund    *RefundDue `json:"refund,omitempty"`
	Error     *Error     `json:"error,omitempty"` // the domain refused the command
	Note      string     `json:"note,omitempty"`
}

// EncodeCommand returns the log encoding of c: a version byte, then JSON.
func EncodeCommand(c Command) ([]byte, error) {
	c.V = CommandVersion
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode command %s: %w", c.ID, err)
	}
	return append([]byte{CommandVersion}, body...), nil
}

// DecodeCommand reads a command written by EncodeCommand of this or an
// earlier version. Unknown fields, an unknown kind, a missing payload or a
// version from the future are errors: a node must never apply what it does
// not fully understand.
func DecodeCommand(b []byte) (Command, error) {
	if len(b) == 0 {
		return Command{}, Errorf(EINVALID, "", "empty command")
	}
	if b[0] == 0 || b[0] > CommandVersion {
		return Command{}, Errorf(EINVALID, "", "command version %d is not known to this build (newest %d)", b[0], CommandVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(b[1:]))
	dec.DisallowUnknownFields()
	var c Command
	if err := dec.Decode(&c); err != nil {
		return Command{}, Errorf(EINVALID, "", "decode command: %v", err)
	}
	if dec.More() {
		return Command{}, Errorf(EINVALID, "", "decode command: trailing data")
	}
	if c.V != int(b[0]) {
		return Command{}, Errorf(EINVALID, "", "command version byte %d does not match body version %d", b[0], c.V)
	}
	if err := c.Validate(); err != nil {
		return Command{}, err
	}
	return c, nil
}

// Validate checks that the command is well formed: an id, a known kind with
// its payload and no other, an intake time and a node.
func (c Command) Validate() error {
	if strings.TrimSpace(c.ID) == "" || len(c.ID) > 64 {
		return Errorf(EINVALID, "", "command id is missing or too long")
	}
	if c.At.IsZero() {
		return Errorf(EINVALID, "", "command %s has no intake time", c.ID)
	}
	if c.Node == "" {
		return Errorf(EINVALID, "", "command %s has no node", c.ID)
	}
	payloads := 0
	if c.PayBill != nil {
		payloads++
	}
	if c.SeedDemo != nil {
		payloads++
	}
	if c.RequestStatusLetter != nil {
		payloads++
	}
	if c.PayPropertyTax != nil {
		payloads++
	}
	staffN, staffKind, staffOK := c.staffPayloads(c.Kind)
	payloads += staffN
	clusterN, clusterKind, clusterOK := c.clusterPayloads(c.Kind)
	payloads += clusterN
	var ok bool
	switch c.Kind {
	case KindPayBill:
		ok = c.PayBill != nil
	case KindSeedDemo:
		ok = c.SeedDemo != nil
	case KindRequestStatusLetter:
		ok = c.RequestStatusLetter != nil
	case KindPayPropertyTax:
		ok = c.PayPropertyTax != nil
	default:
		if staffKind {
			ok = staffOK
			break
		}
		if clusterKind {
			ok = clusterOK
			break
		}
		return Errorf(EINVALID, "", "command %s has unknown kind %q", c.ID, c.Kind)
	}
	if !ok || payloads != 1 {
		return Errorf(EINVALID, "", "command %s of kind %s must carry exactly its own payload", c.ID, c.Kind)
	}
	return nil
}

// Apply runs a command against the ledger inside tx. It is deterministic:
// the same command on the same state gives the same writes and result on
// every node. A refusal by the rules is returned as an *Error and nothing is
// written; the caller records the command as seen either way so that a
// second delivery of it is a no-op. index is the log index applying it.
func Apply(tx Tx, c Command, index uint64, p *Params) (Result, error) {
	res := Result{CommandID: c.ID, Kind: c.Kind, Index: index}
	if RulesFormat(tx) >= 2 {
		// Free text is checked here, for every kind and whichever channel
		// brought it, so that no hidden character (a NUL, a bidi
		// control) is ever stored (ledger format 2).
		if err := c.CheckText(); err != nil {
			return res, err
		}
	}
	var err error
	switch c.Kind {
	case KindPayBill:
		err = applyPayBill(tx, c, index, p, &res)
	case KindSeedDemo:
		err = applySeedDemo(tx, c, &res)
	case KindRequestStatusLetter:
		err = applyRequestStatusLetter(tx, c, index, p, &res)
	case KindPayPropertyTax:
		err = applyPayPropertyTax(tx, c, index, p, &res)
	default:
		var known bool
		if known, err = applyStaff(tx, c, index, p, &res); !known {
			err = Errorf(EINVALID, "", "unknown command kind %q", c.Kind)
		}
	}
	return res, err
}

// applyPayBill posts a payment to a bill under §5.10: it is allocated to the
// penalty, then interest, then principal, as of the payment's intake date;
// money beyond the balance is an overpayment, recorded as a refund due under
// §5.07(1). A payment dated after the bill went on the tax roll is refused.
func applyPayBill(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	if c.PayBill.Tender != Card && RulesFormat(tx) >= 2 {
		// Cash and checks are taken at the clerk's window into an open
		// drawer (window_payment), so every dollar is counted at close
		// (ledger format 2; the API once posted cash with no drawer).
		return Errorf(EINVALID, "", "A %s payment is taken at the clerk's window, into an open drawer.", c.PayBill.Tender)
	}
	return postBillPayment(tx, c, index, p, res)
}

// postBillPayment posts c.PayBill on its bill: the §5.10 allocation as of
// its intake date, its receipt, and any overpayment as a refund due. The
// kiosk's card payments and the window's cash and checks both end here.
func postBillPayment(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	pay := c.PayBill
	if err := checkPaymentAmount(tx, pay.Amount, c.At.Date, p); err != nil {
		return err
	}
	if !pay.Tender.Valid() {
		return Errorf(EINVALID, "", "Unknown tender %q.", pay.Tender)
	}
	bill, ok, err := tx.Bill(pay.BillID)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ENOTFOUND, "", "There is no bill %q.", pay.BillID)
	}
	if c.At.Date.Before(bill.BilledOn) {
		return Errorf(EINVALID, "§5.10", "A payment cannot be dated before the bill (billed %s).", bill.BilledOn)
	}
	bill.Payments = append(bill.Payments, BillPayment{
		CommandID: c.ID,
		Receipt:   c.ReceiptNumber(),
		At:        c.At,
		Amount:    pay.Amount,
		Tender:    pay.Tender,
		Reference: pay.Reference,
	})
	fig, err := bill.Figures(c.At.Date, p)
	if err != nil {
		return err
	}
	last := len(bill.Payments) - 1
	alloc := fig.Allocations[last]
	bill.Payments[last].Allocation = alloc
	if err := tx.PutBill(bill); err != nil {
		return err
	}
	rc := Receipt{
		Number:     c.ReceiptNumber(),
		CommandID:  c.ID,
		Status:     Posted,
		BillID:     bill.ID,
		Account:    bill.Account,
		Parcel:     bill.Parcel,
		Payer:      pay.Payer,
		At:         c.At,
		Amount:     pay.Amount,
		Tender:     pay.Tender,
		Reference:  pay.Reference,
		Allocation: alloc,
		Balance:    fig.Balance,
		Node:       c.Node,
		Index:      index,
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	return recordOverpayment(tx, c, rc, bill.Account, p, res)
}

// CheckPaymentAmount checks the amount of one payment on any channel: more
// than $0.00, and no more than the payment limit in force on its date (a
// probe paid 999,999,999,999.99 on a $90 bill through the API; the excess
// would have become a refund due).
func CheckPaymentAmount(amount Money, on Date, p *Params) error {
	if !amount.IsPositive() {
		return Errorf(EINVALID, "§5.10", "The payment amount must be more than $0.00.")
	}
	if lim := p.At(on).PaymentLimit; lim.IsPositive() && amount.GreaterThan(lim) {
		return Errorf(EINVALID, "", "A single payment cannot be more than $%s; please check the amount.", lim)
	}
	return nil
}

// checkPaymentAmount is CheckPaymentAmount inside a ledger transaction:
// the limit is a rule of ledger format 2 (RulesFormat).
func checkPaymentAmount(tx Tx, amount Money, on Date, p *Params) error {
	if RulesFormat(tx) < 2 {
		if !amount.IsPositive() {
			return Errorf(EINVALID, "§5.10", "The payment amount must be more than $0.00.")
		}
		return nil
	}
	return CheckPaymentAmount(amount, on, p)
}

// recordOverpayment records the overpayment of a receipt, if any, as a
// refund due by the deadline of §5.07(1) (ComputeRefund).
func recordOverpayment(tx Tx, c Command, rc Receipt, account string, p *Params, res *Result) error {
	over := rc.Allocation.Overpayment
	if !over.IsPositive() {
		return nil
	}
	r, err := ComputeRefund(RefundInput{PaidOn: c.At.Date, AmountPaid: over}, p)
	if err != nil {
		return err
	}
	rd := RefundDue{
		CommandID: c.ID,
		Receipt:   rc.Number,
		BillID:    rc.BillID,
		Account:   account,
		PaidAt:    c.At,
		Amount:    r.Refund,
		RefundBy:  r.RefundBy,
	}
	if err := tx.PutRefundDue(rd); err != nil {
		return err
	}
	res.Refund = &rd
	return nil
}

// applySeedDemo loads demo records into an empty ledger and does nothing to
// a ledger that already holds records.
func applySeedDemo(tx Tx, c Command, res *Result) error {
	empty, err := tx.Empty()
	if err != nil {
		return err
	}
	if !empty {
		res.Note = "ledger not empty; demo data not loaded"
		return nil
	}
	for _, p := range c.SeedDemo.Parcels {
		if err := tx.PutParcel(p); err != nil {
			return err
		}
	}
	for _, a := range c.SeedDemo.Accounts {
		if err := tx.PutAccount(a); err != nil {
			return err
		}
	}
	for _, b := range c.SeedDemo.Bills {
		if err := tx.PutBill(b); err != nil {
			return err
		}
	}
	for _, t := range c.SeedDemo.TaxBills {
		if err := PutTaxBill(tx, t); err != nil {
			return err
		}
	}
	for _, p := range c.SeedDemo.Purchases {
		if err := PutPurchase(tx, p); err != nil {
			return err
		}
	}
	res.Note = fmt.Sprintf("loaded %d parcels, %d accounts, %d bills", len(c.SeedDemo.Parcels), len(c.SeedDemo.Accounts), len(c.SeedDemo.Bills))
	return nil
}
