package domain

import "slices"

// What a payment would do, asked before it is taken: the kiosk's
// confirmation page shows it before the card is charged, so it must be the
// answer posting gives, never a second implementation of the rules. Each
// preview runs the posting's own computation on a copy, with the payment
// appended, and writes nothing; none reads a clock, the moment comes in.

// TakesPayment reports whether a bill with figures r takes a payment on
// their as-of date (§5.10): it owes something and is not on the tax roll.
// A bill past tax_roll_on that the November run has not certified yet
// (BillRollPending) still takes one: it is on the roll only once the
// ledger records it there.
// A paid bill takes none: every cent of it would be an overpayment for the
// clerk to refund under §5.07(1).
func (r Receivable) TakesPayment() bool {
	return r.Balance.IsPositive() && (r.Status == BillCurrent || r.Status == BillPastDue || r.Status == BillRollPending)
}

// PaymentPreview is what a payment on a village bill would do if it were
// posted now.
type PaymentPreview struct {
	// Allocation is how §5.10 would apply it: penalty, then interest,
	// then principal, the rest an overpayment.
	Allocation Allocation `json:"allocation"`
	// Balance is what the bill would owe right after it: the receipt's
	// balance.
	Balance Money `json:"balance"`
}

// PreviewPayment answers "if amount were paid on b at `at`, how would it
// be allocated and what would be left?" (§5.10). It is what posting the
// payment computes (postBillPayment): the payment appended to the bill's
// payments, postingFigures as of its intake date, the new payment's
// allocation and the balance after. So the confirmation shows what the
// receipt will show, unless the bill changes in between (another payment
// posts first; the ledger allocates at the command's own intake time).
//
// It refuses what posting refuses on the bill itself: an amount of $0.00 or
// less or over the payment limit (the rules of the current ledger format),
// a payment dated before the bill, or after the November run certified it
// to the tax roll (ECONFLICT). It does not ask whether amount is more than the balance:
// the excess is an overpayment, shown in the allocation.
func (b Bill) PreviewPayment(at DateTime, amount Money, p *Params) (PaymentPreview, error) {
	if err := CheckPaymentAmount(amount, at.Date, p); err != nil {
		return PaymentPreview{}, err
	}
	if at.Date.Before(b.BilledOn) {
		return PaymentPreview{}, Errorf(EINVALID, sectionReceivable, "A payment cannot be dated before the bill (billed %s).", b.BilledOn)
	}
	if b.Certified != nil && !at.Before(b.Certified.At) {
		return PaymentPreview{}, taxRollClosed(b, b.Certified)
	}
	pay := BillPayment{At: at, Amount: amount, Tender: Card}
	if b.continues(at.Date, p) {
		// Stored at ledger format 3 and dated on or after its latest
		// payment: posting continues the bill's account from its summary,
		// and so does the preview, whatever the bill's history.
		s := b.Summary.clone()
		s.all = false
		b.Summary, b.Payments = s, []BillPayment{pay}
		fig, err := b.postingFigures(at.Date, p)
		if err != nil {
			return PaymentPreview{}, err
		}
		return PaymentPreview{Allocation: fig.Allocations[0], Balance: fig.Balance}, nil
	}
	// Clip: appending must never write into the caller's slice.
	b.Payments = append(slices.Clip(b.Payments), pay)
	fig, err := b.postingFigures(at.Date, p)
	if err != nil {
		return PaymentPreview{}, err
	}
	return PaymentPreview{Allocation: fig.Allocations[len(b.Payments)-1], Balance: fig.Balance}, nil
}

// PreviewPayment returns the figures of tax bill t as they would be right
// after amount is paid on it (Ch. 74): what posting the payment computes
// for the receipt (applyPayPropertyTax), whose balance is the figures'
// Balance. Whether the village takes the payment that day, and which
// amounts it takes, are VillageCollects and TaxFigures.Amount.
func (t TaxBill) PreviewPayment(amount Money, p *Params) (TaxFigures, error) {
	t.Payments = append(slices.Clip(t.Payments), TaxPayment{Amount: amount})
	return t.Figures(p)
}
