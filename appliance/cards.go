package main

import (
	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/cards"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/sync/replica"
)

// cardsModule is the back office's card reconciliation and card
// availability, over this node's terminal (if it drives one whose
// processor keeps a statement) and its ledger.
func (m *Main) cardsModule() staff.Module {
	st, _ := m.card.(terminal.Statement)
	status := m.cardStatus
	if m.card == nil {
		// A node without a terminal (the clerk's, the backup) takes no
		// cards by design: nothing to alert.
		status = nil
	}
	return cards.New(st, nodeCardReceipts{m.Node}, status)
}

var _ cards.DayReceipts = nodeCardReceipts{}

// nodeCardReceipts reads a day's card receipts from the ledger's index
// of them (the commands applied, by intake date, and their receipts),
// and a page of them with the day's count and total from the journal's
// tallies.
type nodeCardReceipts struct{ n *replica.Node }

func (c nodeCardReceipts) CardReceipts(day domain.Date) ([]domain.Receipt, error) {
	var out []domain.Receipt
	err := c.n.FSM().CardReceipts(day, func(r domain.Receipt) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

func (c nodeCardReceipts) CardReceiptsPage(day domain.Date, from, n int) (cards.ReceiptsPage, error) {
	p, err := c.n.FSM().CardReceiptsPage(day, from, n)
	return cards.ReceiptsPage{Count: p.Count, Total: p.Total, Receipts: p.Receipts}, err
}

func (c nodeCardReceipts) EachCardReceipt(day domain.Date, n int, fn func(domain.Receipt) error) error {
	return c.n.FSM().EachCardReceipt(day, n, fn)
}
