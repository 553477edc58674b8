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
	return cards.New(st, nodeCardReceipts{m.Node}, m.cardStatus)
}

// nodeCardReceipts reads a day's card receipts from the journal (the
// commands applied, by intake date) and the commands' results.
type nodeCardReceipts struct{ n *replica.Node }

func (c nodeCardReceipts) CardReceipts(day domain.Date) ([]domain.Receipt, error) {
	var out []domain.Receipt
	f := c.n.FSM()
	err := f.Journal(func(e replica.JournalEntry) error {
		if e.Outcome != "applied" || e.At.Date != day {
			return nil
		}
		res, ok, err := f.CommandResult(e.CommandID)
		if err != nil || !ok || res.Receipt == nil || res.Receipt.Tender != domain.Card {
			return err
		}
		out = append(out, *res.Receipt)
		return nil
	})
	return out, err
}
