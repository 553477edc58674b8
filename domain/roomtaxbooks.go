package domain

import "fmt"

// The books of room tax (§5.22). A return's figures are never stored: the
// rule computes them as of a day (QuarterlyReturn.Figures), and interest
// grows month by month. The books therefore follow a return by its events:
// each command that changes a return (a filing, an amendment, an annual
// return's correction, a determination, an extension, a payment) posts the
// difference between the rule's figures as of its date and what the books
// hold for that return (roomTaxBooked), so that after every event the
// room tax receivable of the return is the rule's balance, refunds payable
// its overpayment, and room tax revenue its tax, late filing fee and
// interest. Interest that grows between two events is revenue at the next
// one. A finding that an overpayment bears no interest (§5.22(6)) changes
// no figure the rule computes (it pays no interest on overpayments), so it
// posts nothing; nor does a forfeiture (§5.22(9)), which is sought under
// §1.08 and owed only once a court imposes it; nor a transfer to tourism
// promotion (Wis. Stat. 66.0615), whose money leaves by a claim and its check.

// CollectionBookRoomTax holds, by return id, what the books hold of each
// room tax return (roomTaxBooked).
const CollectionBookRoomTax = "book-room-tax"

// roomTaxBooked is what the books posted for one return: the figures of
// the rule as of AsOf, the day of its latest event.
type roomTaxBooked struct {
	AsOf        Date  `json:"as_of"`
	Tax         Money `json:"tax"`
	Fee         Money `json:"fee"`
	Interest    Money `json:"interest"`
	Paid        Money `json:"paid"`
	Balance     Money `json:"balance"`
	Overpayment Money `json:"overpayment"`
}

// roomTaxLines brings the books of return id to the rule's figures as of
// the command's date (or the latest day the books followed it to, when an
// offline payment comes in dated earlier). paid is the money this command
// took (a payment; zero for any other event): it goes into receipts not yet
// deposited, receipt names it. The revenue line is the one collecting
// SourceRoomTax, else the general fund's unclassified revenue; the
// receivable and refunds payable are of its fund.
func roomTaxLines(l *Lines, tx Tx, id string, on Date, paid Money, receipt string) {
	r, found, err := getReturn(tx, id)
	if err != nil || !found {
		if err == nil {
			err = fmt.Errorf("books: room tax return %s is missing", id)
		}
		l.err = err
		return
	}
	var was roomTaxBooked
	if _, err := tx.Get(CollectionBookRoomTax, id, &was); err != nil {
		l.err = err
		return
	}
	asOf := on
	if was.AsOf.After(asOf) {
		asOf = was.AsOf
	}
	now := roomTaxBooked{AsOf: asOf}
	if _, ok := r.Input(asOf); ok {
		fig, err := r.Figures(asOf, l.params)
		if err != nil {
			l.err = confidential(err)
			return
		}
		now.Tax, now.Fee, now.Interest, now.Paid, now.Balance, now.Overpayment = fig.Tax, fig.LateFilingFee, fig.Interest, fig.Paid, fig.Balance, fig.Overpayment
	} else {
		// Nothing filed or determined yet (an extension, a payment ahead
		// of the return): what is paid is owed back until a return says
		// otherwise.
		for _, p := range r.Payments {
			if !p.At.Date.After(asOf) {
				now.Paid = now.Paid.Add(p.Amount)
			}
		}
		now.Overpayment = now.Paid
	}
	rev := l.RevenueOf("", SourceRoomTax)
	fund := l.FundOf(rev)
	memo := "room tax return " + id
	l.Debit(l.Control(fund, ControlUndeposited), paid, sectionRoomTax, "received "+receipt)
	l.Debit(l.Control(fund, ControlTaxReceivable), now.Balance.Sub(was.Balance), sectionRoomTax, memo)
	l.Credit(rev, now.Tax.Sub(was.Tax), "§5.22(1)", "tax of "+memo)
	l.Credit(rev, now.Fee.Sub(was.Fee), "§5.22(6)", "late filing fee of "+memo)
	l.Credit(rev, now.Interest.Sub(was.Interest), "§5.22(5)", "interest of "+memo)
	l.Credit(l.Control(fund, ControlRefunds), now.Overpayment.Sub(was.Overpayment), "§5.07(1)", "overpayment of "+memo)
	if l.err != nil {
		return
	}
	if err := tx.Put(CollectionBookRoomTax, id, now); err != nil {
		l.err = err
	}
}

// roomTaxEventLines are the lines of a command that changes one return
// and takes no money: a filing, an amendment, a determination, an
// extension.
func roomTaxEventLines(l *Lines, tx Tx, c Command, _ Result) string {
	var id string
	switch p := c.Payload.(type) {
	case *FileRoomTaxReturn:
		id = QuarterlyReturnID(p.Operator, p.Period)
	case *AmendRoomTaxReturn:
		id = QuarterlyReturnID(p.Operator, p.Period)
	case *RoomTaxDetermine:
		id = QuarterlyReturnID(p.Operator, p.Period)
	case *RoomTaxExtend:
		id = QuarterlyReturnID(p.Operator, p.Period)
	default:
		l.err = fmt.Errorf("books: %s is no room tax event", c.Kind)
		return ""
	}
	roomTaxLines(l, tx, id, c.At.Date, Money{}, "")
	return "room tax return " + id + ": " + string(c.Kind)
}

// roomTaxAnnualLines are the lines of an annual return: each quarter it
// corrected is brought to its new figures.
func roomTaxAnnualLines(l *Lines, tx Tx, c Command, _ Result) string {
	in := c.Payload.(*AnnualRoomTaxReturn)
	id := AnnualReturnID(in.Operator, in.Year)
	var a AnnualReturn
	if _, err := tx.Get(CollectionRoomTaxAnnual, id, &a); err != nil {
		l.err = err
		return ""
	}
	for _, q := range a.Quarters {
		if q.Corrected {
			roomTaxLines(l, tx, QuarterlyReturnID(a.Operator, q.Period), c.At.Date, Money{}, "")
		}
	}
	return "room tax annual return " + id
}

// roomTaxPaymentLines are the lines of a payment toward a return, at the
// kiosk or the window: the money into receipts not yet deposited, and the
// return brought to its figures with the payment.
func roomTaxPaymentLines(l *Lines, tx Tx, c Command, _ Result) string {
	var ref string
	var amount Money
	switch p := c.Payload.(type) {
	case *PayRoomTax:
		ref, amount = p.Return, p.Amount
	case *RoomTaxWindowPayment:
		ref, amount = p.Return, p.Amount
	}
	op, q, err := ParseQuarterlyReturnID(ref)
	if err != nil {
		l.err = err
		return ""
	}
	id := QuarterlyReturnID(op, q)
	roomTaxLines(l, tx, id, c.At.Date, amount, c.ReceiptNumber())
	return "room tax payment " + c.ReceiptNumber() + " on " + id
}
