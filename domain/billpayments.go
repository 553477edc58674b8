package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// How the ledger stores a bill's payments.
//
// Below ledger format 3 a bill keeps every payment inside its own record
// (Bill.Payments), and posting one decodes them all, recomputes §5.10 over
// them and writes them all again: the cost of a payment grows with the
// bill's history, and a bill whose record outgrows one transaction takes
// no more payments. From format 3 the bill's record keeps a summary of its
// §5.10 account instead (Bill.Summary) and each payment is a record of its
// own in CollectionBillPayments, so that a payment dated on or after the
// bill's latest one reads and writes a bounded number of records. A bill
// stored the old way is converted the first time a rule stores it at
// format 3 (storeBill), on every replica at the same index.
//
// Rules read bills through loadBill and write them through storeBill; the
// read side assembles the payments with ReadBillPayments.

// CollectionBillPayments holds the payments of the bills stored at ledger
// format 3: "<bill id>/<slot>" → BillPayment. A bill's slots are numbered
// from 0 (eight digits) in the order it took its payments; a slot is
// written once and never changes.
const CollectionBillPayments = "bill-payments"

// BillSummary is what a bill stored at ledger format 3 keeps in its own
// record instead of its payments: which slots of CollectionBillPayments
// hold them, and its §5.10 account right after its latest payment in date
// order (the state of the account ComputeReceivable walks, there). A
// payment dated on or after that one continues the account from the
// summary with exactly the steps the full computation would take after it
// (computeReceivable), so it is allocated the same, to the cent. An
// earlier-dated payment, or a returned check, recomputes the account from
// every payment.
type BillSummary struct {
	// Slots is the number of slots the bill has used: its payments are
	// in slots 0 to Slots-1, but for those in Removed.
	Slots int `json:"slots"`
	// Removed are the slots whose payment was taken off the bill (a
	// returned check, §5.20; the payment is then in Bill.Reversed), in
	// ascending order.
	Removed []int `json:"removed,omitempty"`
	// Latest is the date of the bill's latest payment (null: none), after
	// which the account below stands.
	Latest Date `json:"latest"`
	// Rates fingerprints the §5.10 parameter rows effective on or before
	// Latest when the account was computed (Params.receivableRates): if
	// they change, the account is recomputed.
	Rates string `json:"rates"`

	UnpaidPrincipal Money `json:"unpaid_principal"`
	UnpaidInterest  Money `json:"unpaid_interest"`
	UnpaidPenalty   Money `json:"unpaid_penalty"`
	Month           int   `json:"month"`       // the next interest month to consider, 1-based
	PenaltyDue      bool  `json:"penalty_due"` // the November 2 test has not been made yet
	Interest        Money `json:"interest"`    // posted so far
	InterestMonths  int   `json:"interest_months"`
	Penalty         Money `json:"penalty"` // posted so far
	Paid            Money `json:"paid"`
	Overpayment     Money `json:"overpayment"`

	// all says the Bill holding this summary has every payment of its
	// slots in its Payments (loadBill with all, ReadBillPayments); else
	// its Payments are only those not stored yet.
	all bool
}

// live returns the slots that hold the bill's payments, in order.
func (s *BillSummary) live() []int {
	out := make([]int, 0, s.Slots-len(s.Removed))
	r := 0
	for i := range s.Slots {
		if r < len(s.Removed) && s.Removed[r] == i {
			r++
			continue
		}
		out = append(out, i)
	}
	return out
}

// clone returns a copy of s that shares nothing with it.
func (s *BillSummary) clone() *BillSummary {
	c := *s
	c.Removed = slices.Clone(s.Removed)
	return &c
}

// paymentSlot is the id in CollectionBillPayments of a bill's slot.
func paymentSlot(bill string, slot int) string { return fmt.Sprintf("%s/%08d", bill, slot) }

// BillPaymentID is the id in CollectionBillPayments of slot of bill.
func BillPaymentID(bill string, slot int) string { return paymentSlot(bill, slot) }

// Summarized returns b's record as ledger format 3 stores a bill that
// holds b.Payments (a bill stored the old way, converted): no payments,
// and the summary of its account, with the payments in slots 0 to
// len(b.Payments)-1 (BillPaymentID). For tools and benchmarks that write
// a ledger directly; the rules store bills with storeBill.
func (b Bill) Summarized(p *Params) (Bill, error) {
	if b.Summary != nil {
		return Bill{}, fmt.Errorf("bill %s is stored at format 3 already", b.ID)
	}
	_, st, err := b.account(b.latestPayment(), p)
	if err != nil {
		return Bill{}, err
	}
	st.Slots = len(b.Payments)
	st.Rates = p.receivableRates(st.Latest)
	b.Summary, b.Payments = &st, nil
	return b, nil
}

// allPayments reports whether b.Payments holds every payment of the bill,
// as Figures and the full computation need.
func (b Bill) allPayments() bool { return b.Summary == nil || b.Summary.all }

// continues reports whether a payment dated d can continue b's account
// from its summary: the bill is stored at format 3, d is not before its
// latest payment, and the §5.10 rows it was computed with still hold.
func (b Bill) continues(d Date, p *Params) bool {
	s := b.Summary
	return s != nil && !d.Before(s.Latest) && s.Rates == p.receivableRates(s.Latest)
}

// loadBill reads bill id for a rule. With all, its Payments are every
// payment it holds; without, a bill stored at format 3 comes with none
// (its Summary says what continuing its account needs) and the rule
// appends the payments it adds. A bill stored the old way always comes
// with its payments, which are in its record.
func loadBill(tx Tx, id string, all bool) (Bill, bool, error) {
	b, ok, err := tx.Bill(id)
	if err != nil || !ok || b.Summary == nil {
		return b, ok, err
	}
	b.Summary = b.Summary.clone() // never share the stored record's summary
	b.Payments = nil
	if !all {
		return b, true, nil
	}
	live := b.Summary.live()
	b.Payments = make([]BillPayment, 0, len(live))
	for _, slot := range live {
		var pay BillPayment
		found, err := tx.Get(CollectionBillPayments, paymentSlot(id, slot), &pay)
		if err != nil {
			return Bill{}, false, err
		}
		if !found {
			return Bill{}, false, fmt.Errorf("bill %s: payment slot %d is missing", id, slot)
		}
		b.Payments = append(b.Payments, pay)
	}
	b.Summary.all = true
	return b, true, nil
}

// storeBill writes b as the ledger's format stores it. Below format 3 it
// is one record with its payments inside, exactly as the first releases
// wrote it. From format 3 the payments not stored yet (those b.Payments
// holds beyond its stored ones: every payment of a bill stored the old
// way, which converts it) go to new slots, and the record keeps the
// summary of the account after its latest payment: continued from the
// summary over the new payments, or recomputed over all of them when b
// holds them all (loadBill with all). It returns the bill as stored
// (from format 3 without its payments, as loadBill reads it).
func storeBill(tx Tx, b Bill, p *Params) (Bill, error) {
	if RulesFormat(tx) < 3 {
		return b, tx.PutBill(b)
	}
	var s BillSummary
	stored := 0
	if b.Summary != nil {
		s = *b.Summary.clone()
		if s.all {
			stored = len(s.live())
		}
	}
	if stored > len(b.Payments) {
		return Bill{}, fmt.Errorf("bill %s: %d payments stored, %d held", b.ID, stored, len(b.Payments))
	}
	_, st, err := b.account(b.latestPayment(), p)
	if err != nil {
		return Bill{}, err
	}
	for _, pay := range b.Payments[stored:] {
		if err := tx.Put(CollectionBillPayments, paymentSlot(b.ID, s.Slots), pay); err != nil {
			return Bill{}, err
		}
		s.Slots++
	}
	st.Slots, st.Removed = s.Slots, s.Removed
	st.Rates = p.receivableRates(st.Latest)
	b.Summary, b.Payments = &st, nil
	return b, tx.PutBill(b)
}

// removeBillPayment takes payment i off b (a returned check, §5.20); b
// holds all its payments (loadBill with all). storeBill then writes the
// bill without it: from format 3 its slot is listed in Removed.
func removeBillPayment(b *Bill, i int) {
	if b.Summary != nil {
		s := b.Summary.clone()
		s.Removed = append(s.Removed, s.live()[i])
		slices.Sort(s.Removed)
		b.Summary = s
	}
	b.Payments = append(b.Payments[:i:i], b.Payments[i+1:]...)
}

// PaymentLister is what ReadBillPayments reads: the records of a
// collection whose ids start with a prefix, in id order (Records.List).
type PaymentLister interface {
	List(collection, prefix string, fn func(id string, raw []byte) error) error
}

// ReadBillPayments fills b.Payments, for the pages and exports, when b is
// stored at ledger format 3 (its record holds a summary instead of its
// payments): every payment in its slots, in the order it took them. A
// bill stored the old way is left as it is.
func ReadBillPayments(r PaymentLister, b *Bill) error {
	if b.Summary == nil {
		return nil
	}
	s := b.Summary.clone()
	removed := make(map[int]bool, len(s.Removed))
	for _, i := range s.Removed {
		removed[i] = true
	}
	prefix := b.ID + "/"
	pays := make([]BillPayment, 0, s.Slots-len(s.Removed))
	err := r.List(CollectionBillPayments, prefix, func(id string, raw []byte) error {
		rest := strings.TrimPrefix(id, prefix)
		slot, err := strconv.Atoi(rest)
		if len(rest) != 8 || err != nil || slot >= s.Slots || removed[slot] {
			return nil
		}
		var pay BillPayment
		if err := json.Unmarshal(raw, &pay); err != nil {
			return fmt.Errorf("bill %s payment %s: %w", b.ID, rest, err)
		}
		pays = append(pays, pay)
		return nil
	})
	if err != nil {
		return err
	}
	if len(pays) != s.Slots-len(s.Removed) {
		return fmt.Errorf("bill %s: %d payments found of %d", b.ID, len(pays), s.Slots-len(s.Removed))
	}
	s.all = true
	b.Summary, b.Payments = s, pays
	return nil
}
