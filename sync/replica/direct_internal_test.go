package replica

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// TestProposalsInTheLogAreRecoveredAtStart: a payment the node appended
// to its own raft log as leader and never saw applied (it stopped first)
// is queued in its outbox at the next start and posts exactly once; its
// receipt sequence is never handed out again. An entry in the log that
// names another node is not this node's to send.
func TestProposalsInTheLogAreRecoveredAtStart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	n := openNode(t, dir, now)
	seedNode(t, n)
	first, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	first.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: "first"}
	submit(t, n, first)
	// The sequence the leader gave the command it appended: handed out
	// here, so that no command of the node's own (its parameters, on a
	// busy machine seeded after the first payment) takes it meanwhile.
	appended, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	// What the leader had appended when it stopped: a payment of its own
	// with the next sequence, and one that names another node.
	own := domain.Command{ID: "recovered-1", Kind: domain.KindPayBill, At: appended.At, Node: "n1", Seq: appended.Seq, Actor: "kiosk",
		Payload: &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("2.00"), Tender: domain.Card, Reference: "appended"}}
	other := domain.Command{ID: "recovered-2", Kind: domain.KindPayBill, At: first.At, Node: "n2", Seq: 1, Actor: "kiosk",
		Payload: &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("3.00"), Tender: domain.Card, Reference: "not ours"}}
	appendToLog(t, dir, own, other)

	n = openNode(t, dir, now)
	defer n.Close()
	next, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	if next.Seq <= own.Seq {
		t.Fatalf("sequence %d handed out again after the start (the log holds %d)", next.Seq, own.Seq)
	}
	eventually(t, "the recovered payment to be answered", func() bool {
		e, ok, err := n.box.get(own.Seq)
		return err == nil && ok && e.State == stateDone
	})
	if _, ok, _ := n.box.get(other.Seq); ok {
		t.Fatal("the outbox took a command another node made")
	}
	bill, err := n.Bill("B1")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range bill.Payments {
		count[p.CommandID]++
	}
	if count[own.ID] != 1 || count[first.ID] != 1 {
		t.Fatalf("payments on B1 by command: %v; want the first and the recovered once each", count)
	}
}

// appendToLog appends cmds as raft entries of the last term to the
// node's raft log in dir, as a leader appends before it replicates.
func appendToLog(t *testing.T, dir string, cmds ...domain.Command) {
	t.Helper()
	db, err := badgerstore.OpenDB(badgerstore.PiOptions(filepath.Join(dir, "raft")), "raft log")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := badgerstore.New(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	last, err := store.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	var tail raft.Log
	if err := store.GetLog(last, &tail); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		data, err := domain.EncodeCommand(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.StoreLog(&raft.Log{Index: last + 1 + uint64(i), Term: tail.Term, Type: raft.LogCommand, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckedEntriesAreBoundedAndTakenOnce: an entry known good is
// skipped once (a second delivery of the same bytes is verified), and the
// memory holds at most two generations of checkedEntriesMax entries.
func TestCheckedEntriesAreBoundedAndTakenOnce(t *testing.T) {
	var c checkedEntries
	entry := func(i int) []byte { return []byte(fmt.Sprintf("entry %d", i)) }
	for i := range 3 * checkedEntriesMax {
		c.add(entry(i))
	}
	if c.take(entry(0)) {
		t.Fatal("the oldest entry is still remembered past the bound")
	}
	last := entry(3*checkedEntriesMax - 1)
	if !c.take(last) {
		t.Fatal("the newest entry is forgotten")
	}
	if c.take(last) {
		t.Fatal("an entry was taken twice")
	}
	if n := len(c.sums) + len(c.old); n > 2*checkedEntriesMax {
		t.Fatalf("%d entries remembered, more than two generations of %d", n, checkedEntriesMax)
	}
	if c.take([]byte("never added")) {
		t.Fatal("an entry never added is taken as checked")
	}
}

// TestCommandCommittedWhileTheLedgerClosesIsNoRefusal: a leader's command
// whose entry committed as its ledger closed is not applied until the
// node starts again; Submit answers it as queued (a provisional receipt),
// never as refused, so that a kiosk does not refund a card for a payment
// that posts at the next start.
func TestCommandCommittedWhileTheLedgerClosesIsNoRefusal(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	hold, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	n, err := Open(Config{
		ID: "n1", Dir: dir, Params: params, Now: func() time.Time { return now },
		Logger: quietLogger(), Bootstrap: true, SubmitWait: 5 * time.Second,
		Pause: func(point string) {
			if point == "submit.direct" {
				held.Store(true)
			}
			if point == "fsm.apply" && held.Load() {
				select {
				case hold <- struct{}{}:
					<-release
				default:
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	for n.Consistency().Level != domain.Current {
		time.Sleep(20 * time.Millisecond)
	}
	held.Store(false)
	seedNode(t, n)
	held.Store(false)
	cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: "closing"}
	type answer struct {
		res domain.Result
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := n.Submit(context.Background(), cmd)
		answered <- answer{res, err}
	}()
	select {
	case <-hold: // the entry committed; the FSM is about to apply it
	case <-time.After(10 * time.Second):
		t.Fatal("the payment never reached the FSM")
	}
	n.fsm.mu.Lock()
	n.fsm.closed = true // as Close does first
	n.fsm.mu.Unlock()
	close(release)
	a := <-answered
	if a.err != nil || a.res.Receipt == nil || a.res.Receipt.Status != domain.Provisional {
		t.Fatalf("Submit while the ledger closed: %+v, %v; want a provisional receipt, not a refusal", a.res, a.err)
	}
	if e, ok, err := n.box.get(cmd.Seq); err != nil || !ok || e.State != statePending {
		t.Fatalf("the outbox entry: %+v, %v, %v; want pending", e, ok, err)
	}
}
