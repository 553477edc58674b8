package faults

import "github.com/villagehall/appliance/sync/replica"

// NodeState is what the fault suite's checker reads from a node once the
// cluster has settled: enough to tell whether every payment was applied
// exactly once and whether every node holds the same ledger.
type NodeState struct {
	ID      string `json:"id"`
	Hash    string `json:"hash"` // the ledger's state hash
	Applied uint64 `json:"applied"`
	Pending int    `json:"pending"` // local commands not yet posted
	// Payments counts, per bill, the payments posted under each command id.
	Payments map[string]map[string]int `json:"payments"`
	// Paid is, per bill, the total paid in cents.
	Paid map[string]int64 `json:"paid"`
}

// ReadState reads n's ledger: its state hash, applied index, outbox and
// every bill's payments.
func ReadState(n *replica.Node) (NodeState, error) {
	s := NodeState{ID: n.ID(), Payments: map[string]map[string]int{}, Paid: map[string]int64{}}
	var err error
	if s.Hash, err = n.FSM().StateHash(); err != nil {
		return s, err
	}
	s.Applied = n.FSM().Applied()
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
	return s, nil
}
