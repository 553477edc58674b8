package faults

import (
	"fmt"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/replica"
)

// NodeState is what the fault suite's checker reads from a node once the
// cluster has settled: enough to tell whether every payment was applied
// exactly once, whether every node holds the same ledger, and whether
// each node's books balance and tie to its bills.
type NodeState struct {
	ID      string `json:"id"`
	Hash    string `json:"hash"` // the ledger's state hash
	Applied uint64 `json:"applied"`
	Format  int    `json:"format"`  // the ledger format the node applies
	Pending int    `json:"pending"` // local commands not yet posted
	// Payments counts, per bill, the payments posted under each command id.
	Payments map[string]map[string]int `json:"payments"`
	// Paid is, per bill, the total paid in cents.
	Paid map[string]int64 `json:"paid"`
	// Books is the node's trial balance, every entry posted, with each
	// fund's receivables beside the principal its open bills still owe.
	Books domain.BooksTie `json:"books"`
}

// ReadState reads n's ledger: its state hash, applied index, format,
// outbox, every bill's payments and the books. The reads are separate
// views of the store, so they are taken again while an entry applies
// between the first and the last: the bills and the books set beside them
// must be of the same entry, or a payment between them would show books
// that do not tie.
func ReadState(n *replica.Node) (NodeState, error) {
	for range 20 {
		before := n.FSM().Applied()
		s, err := readState(n)
		if err != nil || n.FSM().Applied() == before {
			return s, err
		}
	}
	return NodeState{}, fmt.Errorf("read %s's state: it kept applying entries while read", n.ID())
}

func readState(n *replica.Node) (NodeState, error) {
	s := NodeState{ID: n.ID(), Payments: map[string]map[string]int{}, Paid: map[string]int64{}}
	var err error
	if s.Hash, err = n.FSM().StateHash(); err != nil {
		return s, err
	}
	s.Applied = n.FSM().Applied()
	s.Format = n.FSM().Format()
	s.Pending = n.Consistency().Pending
	bills, err := n.FSM().Bills()
	if err != nil {
		return s, err
	}
	for _, b := range bills {
		ids := map[string]int{}
		var paid int64
		for _, pm := range b.Payments {
			ids[pm.CommandID]++
			paid += pm.Amount.Cents()
		}
		s.Payments[b.ID], s.Paid[b.ID] = ids, paid
	}
	if s.Books, err = domain.ReadsOf(n).BooksTie(bills); err != nil {
		return s, err
	}
	return s, nil
}
