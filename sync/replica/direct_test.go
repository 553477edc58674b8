package replica_test

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// TestLeaderTakesCommandsStraightIntoTheLog: payments taken on the
// leading node post without passing through its outbox, each once on
// every node; payments taken on a follower still go through the
// follower's outbox to the leader.
func TestLeaderTakesCommandsStraightIntoTheLog(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(4)
	c.Converge(10 * time.Second)
	var leaderSeqs []uint64
	for i := range 10 {
		res, err := leader.Pay(synctest.BillID(i%4), "1.00")
		if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Posted {
			t.Fatalf("payment %d on the leader: %+v, %v; want posted", i, res, err)
		}
		leaderSeqs = append(leaderSeqs, seqOf(t, res.Receipt.Number))
	}
	for _, seq := range leaderSeqs {
		if state, ok := leader.Node.Queued(seq); ok {
			t.Fatalf("the leader's outbox holds its own posted payment %d (%s): it should have gone straight into the log", seq, state)
		}
	}
	follower := c.Follower(10 * time.Second)
	res, err := follower.Pay(synctest.BillID(0), "1.00")
	if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Posted {
		t.Fatalf("payment on a follower: %+v, %v; want posted", res, err)
	}
	if state, ok := follower.Node.Queued(seqOf(t, res.Receipt.Number)); !ok || state != "done" {
		t.Fatalf("the follower's outbox entry for its payment: %q, %v; want done", state, ok)
	}
	c.Converge(10 * time.Second)
	for _, m := range c.Members {
		for b := range 4 {
			bill, err := m.Node.Bill(synctest.BillID(b))
			if err != nil {
				t.Fatal(err)
			}
			want := 10/4 + map[bool]int{true: 1}[b < 10%4] + map[bool]int{true: 1}[b == 0]
			if len(bill.Payments) != want {
				t.Fatalf("%s: bill %d has %d payments, want %d", m.ID, b, len(bill.Payments), want)
			}
		}
	}
}

// TestLeaderCutOffQueuesItsCommand: a command the leader put straight
// into its log while its followers could not store it is not committed;
// after SubmitWait it is handed to the outbox and a provisional receipt
// is given, and when the followers store again it posts once on every
// node (the first proposal and the outbox's both reach the ledger, which
// applies it once).
func TestLeaderCutOffQueuesItsCommand(t *testing.T) {
	var direct atomic.Int64
	var mu sync.Mutex
	stalled := map[string]*stallGate{}
	gate := func(id string) *stallGate {
		mu.Lock()
		defer mu.Unlock()
		if stalled[id] == nil {
			stalled[id] = newStallGate()
		}
		return stalled[id]
	}
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.SubmitWait = 300 * time.Millisecond
		cfg.Pause = func(point string) {
			if point == "submit.direct" {
				direct.Add(1)
			}
		}
		g := gate(cfg.ID)
		cfg.WrapLogStore = func(s raft.LogStore) raft.LogStore { return stallLog{s, g} }
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(2)
	c.Converge(10 * time.Second)
	for _, m := range c.Members {
		if m != leader {
			gate(m.ID).stall()
		}
	}
	res, err := leader.Pay(synctest.BillID(1), "7.00")
	if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Provisional {
		t.Fatalf("payment on a leader whose followers cannot store: %+v, %v; want provisional", res, err)
	}
	if direct.Load() == 0 {
		t.Fatal("the leader did not take its payment straight into its log")
	}
	if state, ok := leader.Node.Queued(seqOf(t, res.Receipt.Number)); !ok || state != "pending" {
		t.Fatalf("the leader's outbox entry for the payment it could not commit: %q, %v; want pending", state, ok)
	}
	for _, m := range c.Members {
		gate(m.ID).release()
	}
	posted := waitPosted(t, leader, res.Receipt.Number)
	if posted.Index == 0 || posted.At != res.Receipt.At {
		t.Fatalf("posted receipt %+v lost its intake time or index", posted)
	}
	c.Converge(20 * time.Second)
	for _, m := range c.Members {
		bill, err := m.Node.Bill(synctest.BillID(1))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range bill.Payments {
			if p.CommandID == res.CommandID {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%s: the payment is on bill 1 %d times, want once", m.ID, n)
		}
	}
	waitFor(t, 20*time.Second, "the leader's outbox entry to be answered", func() bool {
		state, ok := leader.Node.Queued(seqOf(t, res.Receipt.Number))
		return ok && state == "done"
	})
}

// stallGate holds a node's raft log writes while stalled.
type stallGate struct {
	mu   sync.Mutex
	open chan struct{} // closed while writes may go through
}

func newStallGate() *stallGate {
	g := &stallGate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *stallGate) stall() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *stallGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *stallGate) wait() {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
}

// stallLog is a raft log store whose writes wait at its gate.
type stallLog struct {
	raft.LogStore
	g *stallGate
}

func (s stallLog) StoreLogs(logs []*raft.Log) error {
	s.g.wait()
	return s.LogStore.StoreLogs(logs)
}

func (s stallLog) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// IsMonotonic says what the wrapped store says (raft.MonotonicLogStore).
func (s stallLog) IsMonotonic() bool {
	m, ok := s.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// seqOf is the receipt sequence in one of a node's receipt numbers
// ("<node>-<sequence>").
func seqOf(t *testing.T, number string) uint64 {
	t.Helper()
	seq, err := strconv.ParseUint(number[strings.LastIndexByte(number, '-')+1:], 10, 64)
	if err != nil {
		t.Fatalf("receipt number %q: %v", number, err)
	}
	return seq
}
