package domain

import "strings"

// KindPayBills pays several village bills of one account with one card
// charge at the kiosk (§5.10): one command, so either every bill is paid
// or none is.
const KindPayBills Kind = "pay_bills"

// MaxBillsPerPayment is how many bills one payment may pay: a village
// account holds a handful; the limit keeps a command well inside the
// ledger's size (ledgerMaxCommandWrites).
const MaxBillsPerPayment = 24

// PayBills pays Amount of each of Bills, all on Account, as one payment
// of their sum.
type PayBills struct {
	Account   string       `json:"account"`
	Bills     []BillAmount `json:"bills"`
	Tender    Tender       `json:"tender"`
	Reference string       `json:"reference,omitempty"` // the card terminal's approval
	Payer     string       `json:"payer,omitempty"`
	Card      *CardShown   `json:"card,omitempty"` // the card's brand and last four (card.go)
}

// BillAmount is what one payment puts on one bill.
type BillAmount struct {
	BillID string `json:"bill_id"`
	Amount Money  `json:"amount"`
}

// Kind names the payload's kind.
func (*PayBills) Kind() Kind { return KindPayBills }

// Total is what the payment takes: the sum of its bills' amounts.
func (p *PayBills) Total() Money {
	t := Money{}
	for _, b := range p.Bills {
		t = t.Add(b.Amount)
	}
	return t
}

// ReceiptLine is one bill of a receipt that paid several: what went on
// it, how §5.10 applied it and what the bill owes after.
type ReceiptLine struct {
	BillID     string     `json:"bill_id"`
	Parcel     string     `json:"parcel,omitempty"`
	Amount     Money      `json:"amount"`
	Allocation Allocation `json:"allocation"`
	Balance    Money      `json:"balance"`
}

var payBillsKind = &Descriptor{
	Kind:     KindPayBills,
	Section:  sectionReceivable,
	Since:    2,
	Offline:  true,
	Resident: true,
	New:      func() Payload { return new(PayBills) },
	Check:    func(c Command) error { return c.Payload.(*PayBills).check() },
	Apply: func(tx Tx, c Command, e Env, res *Result) error {
		return applyPayBills(tx, c, e.Index, e.Params, res)
	},
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		receiptLines(l, tx, res.Receipt, SourceBills)
		return "payment of several bills " + res.Receipt.Number
	},
	Receipt: func(c Command) *Receipt {
		p := c.Payload.(*PayBills)
		rc := provisional(c)
		rc.Account, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.Account, p.Payer, p.Total(), p.Tender, p.Reference, p.Card.shown()
		for _, b := range p.Bills {
			rc.Lines = append(rc.Lines, ReceiptLine{BillID: b.BillID, Amount: b.Amount})
		}
		return rc
	},
}

// check refuses what needs no ledger to refuse: no account, no bill or
// too many, a bill named twice, an amount of $0.00 or less. A card is the
// only tender: cash and checks are taken at the clerk's window, a bill at
// a time, into an open drawer.
func (p *PayBills) check() error {
	switch {
	case strings.TrimSpace(p.Account) == "":
		return Errorf(EINVALID, sectionReceivable, "A payment of several bills names their account.")
	case len(p.Bills) == 0:
		return Errorf(EINVALID, sectionReceivable, "A payment of several bills names at least one bill.")
	case len(p.Bills) > MaxBillsPerPayment:
		return Errorf(EINVALID, sectionReceivable, "One payment pays at most %d bills, not %d.", MaxBillsPerPayment, len(p.Bills))
	case p.Tender != Card:
		return Errorf(EINVALID, "", "A payment of several bills is taken by card at the kiosk; %s is taken at the clerk's window, a bill at a time.", p.Tender)
	}
	seen := make(map[string]bool, len(p.Bills))
	for _, b := range p.Bills {
		switch {
		case b.BillID == "":
			return Errorf(EINVALID, sectionReceivable, "A bill of the payment has no number.")
		case seen[b.BillID]:
			return Errorf(EINVALID, sectionReceivable, "Bill %s is named twice in one payment.", b.BillID)
		case !b.Amount.IsPositive():
			return Errorf(EINVALID, sectionReceivable, "The amount on bill %s must be more than $0.00.", b.BillID)
		}
		seen[b.BillID] = true
	}
	return nil
}

// applyPayBills posts one payment over several bills of one account, each
// part allocated on its own bill under §5.10 as a payment of that amount
// would be (penalty, then interest, then principal, as of the intake
// date), under one receipt number. The sum is one payment: it is within
// the payment limit or refused whole, and so is a payment naming a bill
// of another account, dated before a bill, or on a bill certified to the
// tax roll: nothing is posted on any bill. A part more than its bill owes
// (the bill was paid meanwhile, or while the kiosk was offline) posts like
// any payment: the excess is an overpayment, and the payment's excesses
// together are one refund due under §5.07(1), named by the first bill
// overpaid, as a payment of one bill would be.
func applyPayBills(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	pay := c.Payload.(*PayBills)
	total := pay.Total()
	if err := CheckPaymentAmount(total, c.At.Date, p); err != nil {
		return err
	}
	card, err := receiptCard(tx, pay.Card, pay.Tender)
	if err != nil {
		return err
	}
	rc := Receipt{
		Card:      card,
		Number:    c.ReceiptNumber(),
		Kind:      KindPayBills,
		CommandID: c.ID,
		Status:    Posted,
		Account:   pay.Account,
		Payer:     pay.Payer,
		At:        c.At,
		Amount:    total,
		Tender:    pay.Tender,
		Reference: pay.Reference,
		Node:      c.Node,
		Index:     index,
	}
	// Every bill is checked before any is posted, so a refusal leaves
	// every bill as it was even outside the ledger's transaction.
	bills := make([]Bill, len(pay.Bills))
	for i, part := range pay.Bills {
		if bills[i], err = payableBill(tx, part.BillID, c.At, p, pay.Account); err != nil {
			return err
		}
	}
	for i, part := range pay.Bills {
		line, err := postOnBill(tx, &bills[i], BillPayment{
			CommandID: c.ID,
			Receipt:   rc.Number,
			At:        c.At,
			Amount:    part.Amount,
			Tender:    pay.Tender,
			Reference: pay.Reference,
		}, p)
		if err != nil {
			return err
		}
		rc.Lines = append(rc.Lines, line)
		rc.Allocation = rc.Allocation.plus(line.Allocation)
		rc.Balance = rc.Balance.Add(line.Balance)
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	for _, l := range rc.Lines {
		if l.Allocation.Overpayment.IsPositive() {
			named := rc
			named.BillID = l.BillID
			return recordOverpayment(tx, c, named, pay.Account, p, res)
		}
	}
	return nil
}
