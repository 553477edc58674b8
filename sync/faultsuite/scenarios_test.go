package faultsuite

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/faults"
	"github.com/villagehall/appliance/sync/replica"
)

// scenario is a test's client: it pays through chosen nodes and keeps the
// history for the checker.
type scenario struct {
	t    *testing.T
	p    *InProcess
	hist History
	n    int
}

// newScenario starts the three nodes. A payment waits 4 s, not the
// appliance's 2 s, before its receipt is provisional: `make test` runs
// other packages beside these tests on a small machine, and a busy CPU
// must not turn a payment the hall can post into a provisional one.
func newScenario(t *testing.T) *scenario {
	return &scenario{t: t, p: NewInProcess(t, InProcessOptions{Bills: 10, SubmitWait: 4 * time.Second})}
}

// pay pays cents on bill at node and returns what the client saw.
func (s *scenario) pay(node, bill string, cents int64) Op {
	s.t.Helper()
	s.n++
	op := s.p.Pay(context.Background(), node, fmt.Sprintf("%s-%s-%d", s.t.Name(), node, s.n), bill, cents)
	s.hist.Add(op)
	return op
}

// payConcurrently pays k payments at node at once (each waits up to
// SubmitWait) and returns them.
func (s *scenario) payConcurrently(node string, k int, cents int64) []Op {
	s.t.Helper()
	ops := make([]Op, k)
	ids := make([]string, k)
	for i := range k {
		s.n++
		ids[i] = fmt.Sprintf("%s-%s-%d", s.t.Name(), node, s.n)
	}
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() {
			ops[i] = s.p.Pay(context.Background(), node, ids[i], fmt.Sprintf("F%03d", 1+i%10), cents)
		})
	}
	wg.Wait()
	for _, op := range ops {
		s.hist.Add(op)
	}
	return ops
}

// check waits for every outbox to drain and every node to converge, then
// runs the fault suite's checks over everything paid.
func (s *scenario) check() Report {
	s.t.Helper()
	states, err := settle(s.p, 60*time.Second)
	if err != nil {
		s.t.Fatal(err)
	}
	r := Check(s.hist.Ops(), states, s.p.Due())
	report(s.t, r)
	for _, p := range r.Problems {
		s.t.Error(p)
	}
	if len(r.Problems) > 0 {
		// For the diagnosis: what each node's ledger refused, and how it
		// sees itself.
		for _, id := range IDs {
			if n := s.p.Node(id); n != nil {
				ex, _ := n.Exceptions()
				for _, e := range ex {
					s.t.Logf("%s refused %s (%s): %v", id, e.Command.ID, e.Command.Kind, e.Error)
				}
				s.t.Logf("%s: %+v, applied %d", id, n.Consistency(), n.FSM().Applied())
			}
		}
		// What each ledger recorded for the commands it misses, and
		// what the node that took each one answered it.
		for _, op := range s.hist.Ops() {
			if op.Read || op.Status != Provisional && op.Status != Posted {
				continue
			}
			for _, id := range IDs {
				n := s.p.Node(id)
				if n == nil {
					continue
				}
				if b, err := n.Bill(op.Bill); err == nil && slices.ContainsFunc(b.Payments, func(p domain.BillPayment) bool { return p.CommandID == op.CommandID }) {
					continue
				}
				res, ok, err := n.FSM().CommandResult(op.CommandID)
				s.t.Logf("%s misses %s (%s at %s): command record %v %+v %v", id, op.CommandID, op.Status, op.Node, ok, res, err)
			}
		}
	}
	if r.Lost != 0 || r.Duplicated != 0 || !r.Linearizable || !r.HashesMatch {
		s.t.Fatalf("report: %+v", r)
	}
	return r
}

// wantPosted fails unless every op posts where a quorum holds: posted at
// once, or, on a machine so loaded that a commit outlasted SubmitWait (a
// follower's fsync behind another process's disk writes), provisional
// with a receipt that posts on its node without any fault being healed.
// Either way the payment never waited for the nodes cut off.
func (s *scenario) wantPosted(ops []Op) {
	s.t.Helper()
	for _, op := range ops {
		if op.Status == Posted {
			continue
		}
		if op.Status != Provisional {
			s.t.Fatalf("payment %s at %s: %s (%s), want posted", op.CommandID, op.Node, op.Status, op.Err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			rc, err := s.p.Node(op.Node).Receipt(op.Receipt)
			if err == nil && rc.Status == domain.Posted {
				s.t.Logf("payment %s at %s outlasted SubmitWait (provisional) and then posted while the fault held", op.CommandID, op.Node)
				break
			}
			if time.Now().After(deadline) {
				s.t.Fatalf("payment %s at %s: provisional, and its receipt %s did not post within 30 s though its node has a quorum (%+v, %v)", op.CommandID, op.Node, op.Receipt, rc, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func wantStatus(t *testing.T, ops []Op, want Status) {
	t.Helper()
	for _, op := range ops {
		if op.Status != want {
			t.Fatalf("payment %s at %s: %s (%s), want %s", op.CommandID, op.Node, op.Status, op.Err, want)
		}
	}
}

// TestInternetDownBetweenBuildingsForAnAfternoon: the link between village
// hall and the second building goes down. The kiosk and the clerk's node
// are two voters of three: they keep a quorum, a hall node leads, and
// every payment at the hall posts at once. The backup, cut off, falls
// behind and says so; a payment taken there meanwhile is provisional. When
// the link returns the backup catches up and its payment posts, once.
func TestInternetDownBetweenBuildingsForAnAfternoon(t *testing.T) {
	s := newScenario(t)
	hall := []string{HallKiosk, HallClerk}
	s.p.Partition(hall, []string{AnnexBackup})

	var afternoon []Op
	for i := range 60 {
		node := hall[i%2]
		afternoon = append(afternoon, s.pay(node, fmt.Sprintf("F%03d", 1+i%10), int64(1+i%25)))
	}
	s.wantPosted(afternoon)
	if l := s.p.WaitLeader(20 * time.Second); l != HallKiosk && l != HallClerk {
		t.Fatalf("leader during the outage is %q, want a hall node", l)
	}
	backup := s.p.Node(AnnexBackup)
	if c := backup.Consistency(); c.Level == domain.Current {
		t.Fatalf("the cut-off backup says its records are current: %+v", c)
	}
	hallState, _ := s.p.State(HallKiosk)
	annexState, _ := s.p.State(AnnexBackup)
	if annexState.Applied >= hallState.Applied {
		t.Fatalf("the backup kept up while cut off (applied %d, hall %d)", annexState.Applied, hallState.Applied)
	}
	annex := s.payConcurrently(AnnexBackup, 2, 5)
	wantStatus(t, annex, Provisional)

	s.p.Heal()
	r := s.check()
	after, _ := s.p.State(AnnexBackup)
	if after.Applied < hallState.Applied+2 {
		t.Fatalf("backup applied %d after the link returned; hall was at %d", after.Applied, hallState.Applied)
	}
	t.Logf("afternoon outage: %d payments at the hall posted, %d at the backup posted on return; lost %d, duplicated %d",
		len(afternoon), len(annex), r.Lost, r.Duplicated)
}

// TestVillageHallLosesPower: both hall nodes go dark. The backup alone
// cannot commit, but it serves reads (saying they are not current) and
// takes offline payments into its outbox with provisional receipts. The
// documented promotion (stop the backup, `appliance promote`, which is
// replica.Recover, start it) makes it the only voter: it elects itself,
// posts its queued payments exactly once, and takes new ones.
func TestVillageHallLosesPower(t *testing.T) {
	s := newScenario(t)
	before := []Op{s.pay(HallKiosk, "F001", 40), s.pay(HallClerk, "F002", 25)}
	s.wantPosted(before)
	// The backup must hold the hall's payments before the power goes.
	s.p.C.Converge(20 * time.Second)

	s.p.Crash(HallKiosk)
	s.p.Crash(HallClerk)

	backup := s.p.Node(AnnexBackup)
	b, err := backup.Bill("F001")
	if err != nil || len(b.Payments) != 1 {
		t.Fatalf("the backup cannot read bill F001 after the hall went dark: %+v, %v", b, err)
	}
	offline := s.payConcurrently(AnnexBackup, 3, 10)
	wantStatus(t, offline, Provisional)
	if c := backup.Consistency(); c.Level == domain.Current || c.Pending != 3 {
		t.Fatalf("backup consistency while alone: %+v; want not current, 3 pending", c)
	}

	// Promotion, as an operator does it: stop the node, recover, start.
	m := s.p.member(AnnexBackup)
	s.p.Crash(AnnexBackup)
	rec, err := replica.Recover(replica.Config{ID: AnnexBackup, Dir: m.Dir, Params: s.p.C.Params}, nil)
	if err != nil {
		t.Fatalf("promote: %v", err)
	}
	if len(rec.Before) != 3 || len(rec.After) != 1 || rec.After[0].ID != AnnexBackup || rec.PendingSent != 3 {
		t.Fatalf("promotion: %+v", rec)
	}
	s.p.Restart(AnnexBackup)

	deadline := time.Now().Add(20 * time.Second)
	for s.p.Leader() != AnnexBackup {
		if time.Now().After(deadline) {
			t.Fatal("the promoted backup did not become leader")
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := s.pay(AnnexBackup, "F003", 15)
	s.wantPosted([]Op{after})

	// The hall nodes are gone for good (they rejoin from empty folders):
	// check the survivor alone.
	deadline = time.Now().Add(20 * time.Second)
	var st faults.NodeState
	for {
		st, err = s.p.State(AnnexBackup)
		if err == nil && st.Pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the promoted backup did not post its queued payments: %+v, %v", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := Check(s.hist.Ops(), []faults.NodeState{st}, s.p.Due())
	for _, p := range r.Problems {
		t.Error(p)
	}
	if r.Lost != 0 || r.Duplicated != 0 || !r.Linearizable {
		t.Fatalf("after promotion: %+v", r)
	}
	f := s.p.Node(AnnexBackup).Raft().GetConfiguration()
	if err := f.Error(); err != nil || len(f.Configuration().Servers) != 1 {
		t.Fatalf("configuration after promotion: %+v, %v", f.Configuration(), err)
	}
	if f.Configuration().Servers[0].Suffrage != raft.Voter {
		t.Fatalf("the promoted node is not a voter: %+v", f.Configuration())
	}
}

// TestKioskNetworkCablePulled: the kiosk node's cable is pulled while
// residents pay. The kiosk keeps taking payments, each with a numbered
// provisional receipt it can show again; the clerk's node and the backup
// keep a quorum and post the clerk's payments. When the cable is back the
// kiosk replays its outbox: every provisional payment posts exactly once,
// and its receipt now shows it posted.
func TestKioskNetworkCablePulled(t *testing.T) {
	s := newScenario(t)
	// The kiosk leads when the cable is pulled: the hardest case, because
	// it believes it leads until its lease runs out.
	if l := s.p.WaitLeader(20 * time.Second); l != HallKiosk {
		leader := s.p.Node(l)
		addr := ""
		for _, m := range s.p.C.Members {
			if m.ID == HallKiosk {
				addr = m.Addr
			}
		}
		if err := leader.Raft().LeadershipTransferToServer(raft.ServerID(HallKiosk), raft.ServerAddress(addr)).Error(); err != nil {
			t.Logf("could not move leadership to the kiosk (%v); pulling its cable as a follower", err)
		}
	}
	s.p.Net.Isolate(HallKiosk)

	kiosk := s.payConcurrently(HallKiosk, 6, 20)
	wantStatus(t, kiosk, Provisional)
	kn := s.p.Node(HallKiosk)
	clerk := []Op{s.pay(HallClerk, "F001", 7), s.pay(HallClerk, "F002", 8)}
	s.wantPosted(clerk)
	if c := kn.Consistency(); c.Level != domain.Offline || c.Pending != len(kiosk) {
		t.Fatalf("kiosk consistency with its cable out: %+v; want offline, %d pending", c, len(kiosk))
	}
	// A receipt is shown again while offline: provisional, with its number.
	for _, op := range kiosk {
		r, err := kn.Receipt(op.Receipt)
		if err != nil || r.Status != domain.Provisional || r.CommandID != op.CommandID {
			t.Fatalf("provisional receipt %s: %+v, %v", op.Receipt, r, err)
		}
	}
	// The resident presses "pay" again: the same command id, no second payment.
	retry, err := kn.Submit(context.Background(), retryOf(t, kn, kiosk[0]))
	if err != nil || retry.Receipt == nil || retry.Receipt.Number != kiosk[0].Receipt {
		t.Fatalf("the kiosk's retry of %s while offline: %+v, %v", kiosk[0].CommandID, retry.Receipt, err)
	}

	s.p.Heal()
	s.check()
	kn = s.p.Node(HallKiosk)
	for _, op := range kiosk {
		r, err := kn.Receipt(op.Receipt)
		if err != nil || r.Status != domain.Posted || r.CommandID != op.CommandID || r.Index == 0 {
			t.Fatalf("receipt %s after the cable is back: %+v, %v", op.Receipt, r, err)
		}
	}
}

// retryOf rebuilds the command of op as the kiosk would resubmit it: the
// same id (a resident pressing "pay" again must not pay twice).
func retryOf(t *testing.T, n *replica.Node, op Op) domain.Command {
	t.Helper()
	cmd, err := n.NewCommand(domain.KindPayBill, "faultsuite")
	if err != nil {
		t.Fatal(err)
	}
	cmd.ID = op.CommandID
	cmd.Payload = &domain.PayBill{BillID: op.Bill, Amount: domain.Cents(op.Cents), Tender: domain.Card}
	return cmd
}

// TestRetryAtAnotherNodeKeepsOneReceipt: a client whose payment reached
// one node retries the same command id at others, as the API's clients do
// when a node goes down before answering. Where the node's ledger already
// holds the payment, the answer is its posted receipt; where it cannot
// know yet (cut off), the provisional number it hands out finds that same
// posted receipt once the link returns, and the payment posts once.
func TestRetryAtAnotherNodeKeepsOneReceipt(t *testing.T) {
	s := newScenario(t)
	s.p.Partition([]string{HallKiosk, HallClerk}, []string{AnnexBackup})
	id := t.Name() + "-x"
	first := s.p.Pay(context.Background(), HallClerk, id, "F001", 500)
	s.hist.Add(first)
	s.wantPosted([]Op{first})

	again := s.p.Pay(context.Background(), HallKiosk, id, "F001", 500)
	if again.Status != Posted || again.Receipt != first.Receipt {
		t.Fatalf("retry at the other hall node: %s %s, want posted %s", again.Status, again.Receipt, first.Receipt)
	}
	offline := s.p.Pay(context.Background(), AnnexBackup, id, "F001", 500)
	if offline.Status != Provisional || offline.Receipt == first.Receipt {
		t.Fatalf("retry at the cut-off backup: %s %s, want a provisional number of its own", offline.Status, offline.Receipt)
	}
	s.hist.Add(offline)

	s.p.Heal()
	s.check() // posted exactly once on every node
	for _, node := range IDs {
		rc, err := s.p.Node(node).Receipt(offline.Receipt)
		if err != nil || rc.Number != first.Receipt || rc.Status != domain.Posted {
			t.Fatalf("%s: receipt %s → %+v, %v; want the posted %s", node, offline.Receipt, rc, err, first.Receipt)
		}
	}
	late := s.p.Pay(context.Background(), AnnexBackup, id, "F001", 500)
	if late.Status != Posted || late.Receipt != first.Receipt {
		t.Fatalf("retry at the backup after the link returned: %s %s, want posted %s", late.Status, late.Receipt, first.Receipt)
	}
}
