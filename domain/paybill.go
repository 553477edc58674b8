package domain

// KindPayBill is a payment on a village bill at the kiosk (§5.10).
const KindPayBill Kind = "pay_bill"

// PayBill pays an amount on a village bill.
type PayBill struct {
	BillID    string `json:"bill_id"`
	Amount    Money  `json:"amount"`
	Tender    Tender `json:"tender"`
	Reference string `json:"reference,omitempty"` // card terminal approval or check number
	Payer     string `json:"payer,omitempty"`
	// Card is what the terminal showed of the card (card.go); the kiosk
	// sends it from ledger format 3.
	Card *CardShown `json:"card,omitempty"`
}

// Kind names the payload's kind.
func (*PayBill) Kind() Kind { return KindPayBill }

var payBillKind = &Descriptor{
	Kind:     KindPayBill,
	Section:  sectionReceivable,
	Offline:  true,
	Resident: true,
	New:      func() Payload { return new(PayBill) },
	Apply: func(tx Tx, c Command, e Env, res *Result) error {
		return applyPayBill(tx, c, e.Index, e.Params, res)
	},
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		receiptLines(l, tx, res.Receipt, SourceBills)
		return "bill payment " + res.Receipt.Number
	},
	Receipt: func(c Command) *Receipt {
		p := c.Payload.(*PayBill)
		rc := provisional(c)
		rc.Kind = "" // a bill payment's receipt has always been unmarked
		rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.BillID, p.Payer, p.Amount, p.Tender, p.Reference, p.Card.shown()
		return rc
	},
}

// applyPayBill posts a payment to a bill under §5.10: it is allocated to the
// penalty, then interest, then principal, as of the payment's intake date;
// money beyond the balance is an overpayment, recorded as a refund due under
// §5.07(1). A payment taken after the bill was certified to the tax roll
// is refused (checkTaxRollOpen).
func applyPayBill(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	if c.Payload.(*PayBill).Tender != Card && RulesFormat(tx) >= 2 {
		// Cash and checks are taken at the clerk's window into an open
		// drawer (window_payment), so every dollar is counted at close
		// (ledger format 2; the API once posted cash with no drawer).
		return Errorf(EINVALID, "", "A %s payment is taken at the clerk's window, into an open drawer.", c.Payload.(*PayBill).Tender)
	}
	return postBillPayment(tx, c, index, p, res, "")
}

// postBillPayment posts c.Payload.(*PayBill) on its bill: the §5.10 allocation as of
// its intake date, its receipt, and any overpayment as a refund due. The
// kiosk's card payments and the window's cash and checks both end here;
// drawer names the window drawer the money went into ("" for a card).
func postBillPayment(tx Tx, c Command, index uint64, p *Params, res *Result, drawer string) error {
	pay := c.Payload.(*PayBill)
	if err := checkPaymentAmount(tx, pay.Amount, c.At.Date, p); err != nil {
		return err
	}
	if !pay.Tender.Valid() {
		return Errorf(EINVALID, "", "Unknown tender %q.", pay.Tender)
	}
	card, err := receiptCard(tx, pay.Card, pay.Tender)
	if err != nil {
		return err
	}
	bill, err := payableBill(tx, pay.BillID, c.At, p, "")
	if err != nil {
		return err
	}
	line, err := postOnBill(tx, &bill, BillPayment{
		CommandID: c.ID,
		Receipt:   c.ReceiptNumber(),
		At:        c.At,
		Amount:    pay.Amount,
		Tender:    pay.Tender,
		Reference: pay.Reference,
		Drawer:    drawer,
	}, p)
	if err != nil {
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
		Card:       card,
		Allocation: line.Allocation,
		Balance:    line.Balance,
		Node:       c.Node,
		Index:      index,
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	return recordOverpayment(tx, c, rc, bill.Account, p, res)
}

// payableBill reads the bill a payment names, refusing a payment it cannot
// take: there is no such bill, the bill is not on the account a payment of
// several bills names (account; "" for a payment of one bill), the
// payment is dated before the bill, or the bill was certified to the tax
// roll (checkTaxRollOpen). A payment of several bills names the bill in
// its refusal; the sentences are those the ledger has always recorded for
// each kind, so a refused command replays with its words.
func payableBill(tx Tx, id string, at DateTime, p *Params, account string) (Bill, error) {
	bill, ok, err := loadBill(tx, id, false)
	switch {
	case err != nil:
		return Bill{}, err
	case !ok:
		return Bill{}, Errorf(ENOTFOUND, "", "There is no bill %q.", id)
	case account != "" && bill.Account != account:
		return Bill{}, Errorf(EINVALID, sectionReceivable, "Bill %s is not on account %s.", bill.ID, account)
	case account != "" && at.Date.Before(bill.BilledOn):
		return Bill{}, Errorf(EINVALID, sectionReceivable, "A payment cannot be dated before bill %s (billed %s).", bill.ID, bill.BilledOn)
	case at.Date.Before(bill.BilledOn):
		return Bill{}, Errorf(EINVALID, "§5.10", "A payment cannot be dated before the bill (billed %s).", bill.BilledOn)
	}
	return bill, checkTaxRollOpen(tx, bill, at, p)
}

// postOnBill posts payment pay on bill and writes the bill: its §5.10
// allocation as of its intake date (postingFigures over every payment the
// bill holds, the new one last) and the bill's balance right after it.
// From ledger format 3 a bill read without its payments (tx.Bill,
// loadBill) continues its account from its summary when pay is dated on
// or after its latest payment, reading none of its other payments; an
// earlier one reads them all and recomputes (billpayments.go). bill is
// left as stored.
func postOnBill(tx Tx, bill *Bill, pay BillPayment, p *Params) (ReceiptLine, error) {
	if !bill.allPayments() && !bill.continues(pay.At.Date, p) {
		full, _, err := loadBill(tx, bill.ID, true)
		if err != nil {
			return ReceiptLine{}, err
		}
		*bill = full
	}
	bill.Payments = append(bill.Payments, pay)
	fig, err := bill.postingFigures(pay.At.Date, p)
	if err != nil {
		return ReceiptLine{}, err
	}
	last := len(bill.Payments) - 1
	bill.Payments[last].Allocation = fig.Allocations[last]
	stored, err := storeBill(tx, *bill, p)
	if err != nil {
		return ReceiptLine{}, err
	}
	*bill = stored
	return ReceiptLine{BillID: bill.ID, Parcel: bill.Parcel, Amount: pay.Amount, Allocation: fig.Allocations[last], Balance: fig.Balance}, nil
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
