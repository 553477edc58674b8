package view

import (
	"slices"

	"github.com/villagehall/appliance/domain"
)

// BillLine is one line of a bill's breakdown: the amount billed, a month
// of interest, the penalty or a payment.
type BillLine struct {
	On      domain.Date
	Kind    string  // "principal", "interest", "penalty" or "payment"
	Charge  *Charge // interest and penalty
	Payment *Payment
}

// lineOrder ranks the kinds of line posted on one day: §5.10 posts a
// day's interest and penalty before that day's payments.
var lineOrder = map[string]int{"principal": 0, "interest": 1, "penalty": 2, "payment": 3}

// Lines returns the bill's breakdown in date order, as it happened: the
// amount billed, then interest, penalty and payments by the day they
// were posted, a day's charges before its payments.
func (b Bill) Lines() []BillLine {
	out := []BillLine{{On: b.BilledOn, Kind: "principal"}}
	for i := range b.Interest {
		out = append(out, BillLine{On: b.Interest[i].On, Kind: "interest", Charge: &b.Interest[i]})
	}
	if b.Penalty != nil {
		out = append(out, BillLine{On: b.Penalty.On, Kind: "penalty", Charge: b.Penalty})
	}
	for i := range b.Payments {
		out = append(out, BillLine{On: b.Payments[i].On, Kind: "payment", Payment: &b.Payments[i]})
	}
	slices.SortStableFunc(out, func(x, y BillLine) int {
		if c := x.On.Compare(y.On); c != 0 {
			return c
		}
		return lineOrder[x.Kind] - lineOrder[y.Kind]
	})
	return out
}
