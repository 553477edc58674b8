package replica

import (
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// The Node is the domain.Ledger the kiosk and staff pages use. Reads come
// from this node's replica; Consistency says how current it is.
var _ domain.Ledger = (*Node)(nil)

var (
	_ domain.RecordsFrom    = (*Node)(nil)
	_ domain.RecordsDerived = (*Node)(nil)
)

// Bill returns a bill.
func (n *Node) Bill(id string) (domain.Bill, error) { return n.fsm.Bill(id) }

// BillsByAccount returns an account's bills by billing date.
func (n *Node) BillsByAccount(number string) ([]domain.Bill, error) {
	return n.fsm.BillsByAccount(number)
}

// BillsByParcel returns a parcel's bills by billing date.
func (n *Node) BillsByParcel(id string) ([]domain.Bill, error) { return n.fsm.BillsByParcel(id) }

// Parcel returns a parcel.
func (n *Node) Parcel(id string) (domain.Parcel, error) { return n.fsm.Parcel(id) }

// Parcels returns every parcel.
func (n *Node) Parcels() ([]domain.Parcel, error) { return n.fsm.Parcels() }

// FindParcels returns the parcels a lookup names, from this node's
// indexes (parcelindex.go).
func (n *Node) FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error) {
	return n.fsm.FindParcels(q)
}

// BillsOfYear returns a page of a tax-roll year's bills, from this node's
// indexes (parcelindex.go).
func (n *Node) BillsOfYear(q domain.BillQuery) ([]domain.Bill, error) { return n.fsm.BillsOfYear(q) }

// Account returns an account.
func (n *Node) Account(number string) (domain.Account, error) { return n.fsm.Account(number) }

// Get reads a record of a named collection.
func (n *Node) Get(collection, id string, v any) error { return n.fsm.Get(collection, id, v) }

// List lists records of a named collection by id prefix.
func (n *Node) List(collection, prefix string, fn func(id string, raw []byte) error) error {
	return n.fsm.List(collection, prefix, fn)
}

// ListFrom lists records of a named collection by id prefix, from an id
// on (domain.RecordsFrom).
func (n *Node) ListFrom(collection, prefix, from string, fn func(id string, raw []byte) error) error {
	return n.fsm.ListFrom(collection, prefix, from, fn)
}

// Latest returns the latest intake time of any command the ledger
// applied: the node refuses to date a command earlier than it (beyond the
// allowed skew), so whoever drives the node's clock starts it after it.
func (n *Node) Latest() domain.DateTime { return n.fsm.Latest() }

// Derived lists the records of a derived index by key prefix
// (domain.RecordsDerived), from this node's indexes (derivedindex.go).
func (n *Node) Derived(index, prefix string, fn func(id string, raw []byte) error) error {
	return n.fsm.Derived(index, prefix, fn)
}

// Keys lists the keys of a named index by prefix.
func (n *Node) Keys(index, prefix string) ([]string, error) { return n.fsm.Keys(index, prefix) }

// Params returns the parameters the ledger computes with: its
// resolutions' (the node's own until the ledger is seeded).
func (n *Node) Params() *domain.Params { return n.fsm.Params() }

// Receipt returns a receipt: the posted one from the ledger, or, for a
// payment taken on this node and still queued, the provisional one.
func (n *Node) Receipt(number string) (domain.Receipt, error) {
	r, err := n.fsm.Receipt(number)
	if domain.ErrorCode(err) != domain.ENOTFOUND {
		return r, err
	}
	seq, ok := seqOfReceipt(n.cfg.ID, number)
	if !ok {
		return r, err
	}
	e, found, gerr := n.box.get(seq)
	if gerr != nil {
		return r, gerr
	}
	if !found {
		return r, err
	}
	switch e.State {
	case stateRefused:
		return domain.Receipt{}, e.Result.Error
	case stateDone:
		if e.Result != nil && e.Result.Receipt != nil {
			return *e.Result.Receipt, nil
		}
	}
	if p := provisional(e.Command); p.Receipt != nil {
		return *p.Receipt, nil
	}
	return r, err
}

// Consistency says how current this node's reads are: "current" on a
// leader that has applied an entry of its own term (so it holds all that
// its predecessors committed), "replica" on a follower in touch with a leader (with the time of
// last contact), "offline" otherwise, with the count of local commands
// waiting to post.
func (n *Node) Consistency() domain.Consistency {
	c := domain.Consistency{Pending: int(max(n.pending.Load(), 0))}
	switch st := n.raft.State(); {
	case st == raft.Leader && n.readyTerm.Load() == n.raft.CurrentTerm():
		c.Level = domain.Current
		c.LastContact = n.cfg.Now()
	case st == raft.Leader:
		// Elected, but not yet sure its ledger holds everything its
		// predecessor committed: a replica until its first barrier applies.
		c.Level = domain.Replica
		c.LastContact = n.cfg.Now()
	default:
		last := n.raft.LastContact()
		_, leader := n.raft.LeaderWithID()
		if leader != "" && !last.IsZero() && time.Since(last) < 3*time.Second {
			c.Level = domain.Replica
		} else {
			c.Level = domain.Offline
		}
		c.LastContact = last
	}
	return c
}

// Health is what GET /healthz reports.
type Health struct {
	Node        string             `json:"node"`
	State       string             `json:"raft_state"`
	Leader      string             `json:"leader"`
	Applied     uint64             `json:"applied_index"`
	Consistency domain.Consistency `json:"consistency"`
	// Format is the cluster's ledger format as this replica holds it.
	Format int `json:"ledger_format"`
	// Healthy is false while Problems lists anything: a halted or
	// diverged ledger, no leader for longer than an election takes,
	// peers that refuse this node.
	Healthy  bool     `json:"healthy"`
	Problems []string `json:"problems,omitempty"`
	// Divergence, when set, names the nodes whose ledgers differ.
	Divergence *Divergence `json:"divergence,omitempty"`
}

// LedgerFormat returns the format of the ledger as this node applied it
// (it only rises): a client puts a payload field that only a newer format
// records into a command only once the ledger is at that format, since a
// node of an earlier release refuses the field.
func (n *Node) LedgerFormat() int { return n.fsm.Format() }

// Health reports the node's raft state, applied index, anything wrong
// with its ledger, and whether it can take part in its cluster (a quorum
// it can reach, peers that accept it: clusterProblems).
func (n *Node) Health() Health {
	_, leader := n.raft.LeaderWithID()
	h := Health{
		Node:        n.cfg.ID,
		State:       n.raft.State().String(),
		Leader:      string(leader),
		Applied:     n.fsm.Applied(),
		Consistency: n.Consistency(),
		Format:      n.fsm.Format(),
		Problems:    append(n.Problems(), n.clusterProblems()...),
		Divergence:  n.Divergence(),
	}
	h.Healthy = len(h.Problems) == 0
	return h
}

// Exceptions returns the commands the ledger refused, for the clerk: among
// them offline payments replayed after their premise changed.
func (n *Node) Exceptions() ([]domain.Exception, error) { return n.fsm.Exceptions() }

// NovemberBills gives each bill's part in a year's November run, from
// the figures this node keeps (novemberfigures.go).
func (n *Node) NovemberBills(year int, on domain.Date, fn func(domain.NovemberBill) error) error {
	return n.fsm.NovemberBills(year, on, fn)
}

// ParcelCounties returns every parcel's county, from this node's index.
func (n *Node) ParcelCounties() (map[string]domain.County, error) { return n.fsm.ParcelCounties() }
