package domain

import (
	"slices"
	"strings"
)

// Touched is what a command did to the records the office looks a
// command up by: the bills, the receipt, the account and the amount. The
// journal carries none of them (it is the hash chain of who did what and
// when), so the journal's pages and exports ask for them beside it; the
// replicated store keeps them as the command applies (TouchedBy).
type Touched struct {
	Bills   []string `json:"bills,omitempty"`
	Receipt string   `json:"receipt,omitempty"`
	Account string   `json:"account,omitempty"`
	// Amount is what the command moved, when it moved money: a payment's
	// amount, a new bill's principal, or a payment a returned check took
	// back (negative).
	Amount *Money `json:"amount,omitempty"`
}

// Bill returns the bills touched as one field, "B1 B2".
func (t Touched) Bill() string { return strings.Join(t.Bills, " ") }

// TouchesBill reports whether the command touched bill id, whatever the
// case it is written in.
func (t Touched) TouchesBill(id string) bool {
	return slices.ContainsFunc(t.Bills, func(b string) bool { return strings.EqualFold(b, id) })
}

// TouchedBy returns what a command touched, from its result and the
// records it wrote: made is the bill it made when it made exactly one (a
// BillOrigin names the command), returned the returned check it recorded
// (nil: none). A refused command touched nothing.
//
// The readings taken, the same as the journal's page always showed:
//   - a returned check names the payment it took back, negative (§5.20);
//   - else a command with a receipt names the receipt, its bill (or the
//     bills of a payment of several) and account, and the amount paid;
//   - else a command that made one bill names it, its account and its
//     principal; one that made several (an import) names none of them:
//     each is found by its own origin, and an import of two thousand
//     bills would otherwise be listed under two thousand.
func TouchedBy(res Result, made *Bill, returned *ReturnedCheckRecord) Touched {
	switch {
	case res.Error != nil:
		return Touched{}
	case returned != nil:
		amount := returned.Payment.Amount.Neg()
		return Touched{Bills: []string{returned.BillID}, Receipt: returned.Payment.Receipt, Account: returned.Account, Amount: &amount}
	case res.Receipt != nil:
		r := res.Receipt
		amount := r.Amount
		t := Touched{Receipt: r.Number, Account: r.Account, Amount: &amount}
		if r.BillID != "" {
			t.Bills = []string{r.BillID}
		}
		for _, l := range r.Lines {
			if l.BillID != "" && !slices.Contains(t.Bills, l.BillID) {
				t.Bills = append(t.Bills, l.BillID)
			}
		}
		return t
	case made != nil:
		amount := made.Principal
		return Touched{Bills: []string{made.ID}, Account: made.Account, Amount: &amount}
	}
	return Touched{}
}
