package faultsuite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/faults"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// InProcess is a Target of three replica nodes inside the test process,
// over real WebSockets with mutual TLS on 127.0.0.1. A crash is a stop of
// the node (raft, transport, peer port and stores closed) while clients
// keep paying at the others.
type InProcess struct {
	C   *synctest.Cluster
	Net *faults.Network

	mu       sync.RWMutex // held for writing while a member stops or starts
	restores int64        // snapshots installed by members since stopped; guarded by mu
	due      map[string]int64
	today    domain.Date
}

// InProcessOptions configures NewInProcess.
type InProcessOptions struct {
	// Bills is how many bills to seed (default 20).
	Bills int
	// SubmitWait is how long a payment waits before its receipt is
	// provisional (default 2 s, as on the appliances).
	SubmitWait time.Duration
	// TrailingLogs is how many entries a snapshot leaves in the log
	// (default the node's); a small number makes a node that falls behind
	// a snapshot catch up by InstallSnapshot.
	TrailingLogs uint64
}

// NewInProcess starts the three nodes (the backup avoiding leadership, as
// configured at the village), each with its fault injector, and seeds
// bills billed on the cluster's (pinned) day.
func NewInProcess(t testing.TB, opts InProcessOptions) *InProcess {
	t.Helper()
	if opts.Bills == 0 {
		opts.Bills = 20
	}
	if opts.SubmitWait == 0 {
		opts.SubmitWait = 2 * time.Second
	}
	p := &InProcess{Net: faults.NewNetwork(), due: map[string]int64{}}
	p.C = synctest.NewWith(t, synctest.Options{
		IDs: IDs,
		Tune: func(cfg *replica.Config) {
			cfg.SubmitWait = opts.SubmitWait
			cfg.TrailingLogs = opts.TrailingLogs
			cfg.AvoidLeadership = cfg.ID == AnnexBackup
			cfg.WrapLogStore = p.Net.Node(cfg.ID, "").WrapLogStore
		},
		Peer: func(m *synctest.Member, pc *replica.PeerConfig) {
			p.Net.Node(m.ID, m.Addr).Hook(pc)
		},
	})
	// Cleanups run last first: this one stops the members before
	// synctest's, and turns a node that will not shut down (raft's
	// Shutdown waiting on a stuck goroutine) into a prompt failure with
	// every goroutine's stack, not a silent wait for the test timeout.
	t.Cleanup(func() {
		done := make(chan struct{})
		go func() {
			p.mu.Lock()
			for _, m := range p.C.Members {
				m.Stop()
			}
			p.mu.Unlock()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			buf := make([]byte, 8<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("faultsuite: a node did not shut down within 90 s\n%s", buf))
		}
	})
	loc, _ := time.LoadLocation("America/Chicago")
	p.today = domain.DateOf(p.C.Now().In(loc))
	leader := p.C.Leader(15 * time.Second)
	// The seed's chart opens the books only at the books' format, and its
	// history loads at all only from format 2: seed once the leader has
	// raised the format to this build's, as the appliance's demo does.
	for deadline := time.Now().Add(30 * time.Second); leader.Node.FSM().Format() < domain.LedgerFormat; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ledger is still at format %d", leader.Node.FSM().Format())
		}
	}
	seed := SeedBills(opts.Bills, p.today)
	for try := 1; ; try++ {
		// Right after the election the first answer may be provisional
		// (the leader may be handing over to the hall): wait for the
		// seed to post. A seed the leader took just as it lost the lead
		// reaches the next leader forwarded, which refuses demo data
		// from another node: take it again on the node leading then.
		res := seedOn(t, leader.Node, seed)
		if res.Error == nil {
			break
		}
		if try == seedTries {
			t.Fatalf("seed bills (try %d): %v", try, res.Error)
		}
		t.Logf("the seed was refused (try %d): %v; the leader lost the lead before it entered the log", try, res.Error)
		leader = p.C.Leader(15 * time.Second)
	}
	for _, b := range seed.Bills {
		p.due[b.ID] = dueCents(b, p.today, p.C.Params)
	}
	p.C.Converge(20 * time.Second)
	return p
}

// seedOn takes the seed on node and waits for the ledger's result of it.
func seedOn(t testing.TB, node *replica.Node, seed *domain.SeedDemo) domain.Result {
	t.Helper()
	cmd, err := node.NewCommand(domain.KindSeedDemo, "faultsuite")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = seed
	// A refusal is the ledger's result, read below; any other error means
	// the node did not take the seed.
	if res, err := node.Submit(context.Background(), cmd); err != nil && res.Error == nil {
		t.Fatalf("seed bills: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, ok, err := node.FSM().CommandResult(cmd.ID)
		if err == nil && ok {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("seed bills did not post: %+v, %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SeedBills returns n bills of 100.00 ("F001"…) billed on day, on one
// parcel: not yet due, so a payment's balance is the principal less what
// was paid. Its history gives the chart, which names a general fund and
// so opens the books: the bills are carried as receivables by the opening
// entry, and every payment of a run posts to the books. The odd bills are
// the water utility's (its own revenue line, in its own fund) and the
// even ones count under the general fund's line collecting village bills,
// so the books balance and tie fund by fund, not only in total.
func SeedBills(n int, day domain.Date) *domain.SeedDemo {
	seed := &domain.SeedDemo{
		Parcels:  []domain.Parcel{{ID: "0601-141-2001", Address: "141 W Main St", County: domain.Dane, Owner: "Fault Suite"}},
		Accounts: []domain.Account{{Number: "100101", Name: "Fault Suite", Parcels: []string{"0601-141-2001"}}},
		History: []domain.Command{{ID: "faultsuite-chart", Kind: domain.KindChart, Node: "faultsuite", Seq: 1, Actor: "faultsuite",
			At: domain.NewDateTime(day, 8, 0, 0), Payload: &domain.ChartChange{Source: "form", Accounts: []domain.ChartAccount{
				{Code: SeedGeneralFund, Type: domain.AccountFund, Name: "General fund", General: true},
				{Code: SeedWaterFund, Type: domain.AccountFund, Name: "Water utility"},
				{Code: "100-46100", Type: domain.AccountRevenue, Name: "Charges for services", Fund: SeedGeneralFund, Major: "Public charges for services",
					Sources: []string{domain.SourceBills}},
				{Code: "610-46410", Type: domain.AccountRevenue, Name: "Water sales", Fund: SeedWaterFund, Major: "Charges for services"},
			}}}},
	}
	for i := range n {
		b := domain.Bill{
			ID: fmt.Sprintf("F%03d", i+1), Account: "100101", Parcel: "0601-141-2001", Description: "fault suite",
			BilledOn: day, Principal: domain.MustMoney("100.00"),
		}
		if i%2 == 0 {
			b.Revenue = "610-46410"
		}
		seed.Bills = append(seed.Bills, b)
	}
	return seed
}

// The funds of SeedBills's chart.
const (
	SeedGeneralFund = "100"
	SeedWaterFund   = "610"
)

func dueCents(b domain.Bill, day domain.Date, p *domain.Params) int64 {
	fig, err := b.Figures(day, p)
	if err != nil {
		return b.Principal.Cents()
	}
	return fig.Balance.Cents()
}

// Kind names the target.
func (p *InProcess) Kind() string { return "in-process" }

// Due returns the seeded bills' amounts due.
func (p *InProcess) Due() map[string]int64 { return p.due }

func (p *InProcess) member(id string) *synctest.Member {
	for _, m := range p.C.Members {
		if m.ID == id {
			return m
		}
	}
	panic("faultsuite: no member " + id)
}

// Node returns node id's replica while it runs, or nil. The caller must
// not use it across a Crash.
func (p *InProcess) Node(id string) *replica.Node {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.member(id).Node
}

// Pay submits a payment at node with Node.Submit, as the kiosk does.
func (p *InProcess) Pay(ctx context.Context, node, commandID, bill string, cents int64) Op {
	op := Op{Node: node, CommandID: commandID, Bill: bill, Cents: cents, Call: time.Now()}
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := p.member(node).Node
	if n == nil {
		op.Status, op.Err, op.Return = Unknown, "node down", time.Now()
		return op
	}
	op.Status, op.Balance, op.Receipt, op.Err = pay(ctx, n, commandID, bill, cents)
	op.Return = time.Now()
	return op
}

// Read reads bill at node; it counts only if the node said it was
// current both before and after the read.
func (p *InProcess) Read(node, bill string) (Op, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := p.member(node).Node
	if n == nil {
		return Op{}, false
	}
	return readCurrent(n, node, bill)
}

func readCurrent(n *replica.Node, node, bill string) (Op, bool) {
	op := Op{Read: true, Node: node, Bill: bill, Call: time.Now()}
	if n.Consistency().Level != domain.Current {
		return op, false
	}
	b, err := n.Bill(bill)
	if err != nil || n.Consistency().Level != domain.Current {
		return op, false
	}
	op.Return = time.Now()
	for _, pm := range b.Payments {
		op.Paid += pm.Amount.Cents()
	}
	return op, true
}

// pay submits one payment on n and classifies the answer.
func pay(ctx context.Context, n *replica.Node, commandID, bill string, cents int64) (Status, int64, string, string) {
	cmd, err := n.NewCommand(domain.KindPayBill, "faultsuite")
	if err != nil {
		return Unknown, 0, "", err.Error()
	}
	cmd.ID = commandID
	cmd.Payload = &domain.PayBill{BillID: bill, Amount: domain.Cents(cents), Tender: domain.Card}
	res, err := n.Submit(ctx, cmd)
	return Classify(res, err)
}

// Classify turns a Submit answer into what the client learned: the
// status, the balance after a posted payment, the receipt number and, for
// an unknown or refused outcome, why.
func Classify(res domain.Result, err error) (Status, int64, string, string) {
	var de *domain.Error
	switch {
	case err != nil && errors.As(err, &de) && res.Error != nil:
		return Refused, 0, "", err.Error()
	case err != nil:
		return Unknown, 0, "", err.Error()
	case res.Receipt == nil:
		return Unknown, 0, "", "no receipt"
	case res.Receipt.Status == domain.Provisional:
		return Provisional, 0, res.Receipt.Number, ""
	default:
		return Posted, res.Receipt.Balance.Cents(), res.Receipt.Number, ""
	}
}

// Partition cuts a off from b.
func (p *InProcess) Partition(a, b []string) { p.Net.Partition(a, b) }

// Heal removes every partition.
func (p *InProcess) Heal() { p.Net.HealAll() }

// SlowDisk slows node's raft log writes.
func (p *InProcess) SlowDisk(node string, d time.Duration) { p.Net.SetDiskDelay(node, d) }

// Crash stops node.
func (p *InProcess) Crash(node string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.member(node)
	if m.Node != nil {
		p.restores += m.Node.FSM().Restores()
	}
	m.Stop()
}

// Restores returns how many snapshots the members installed from their
// leaders (InstallSnapshot) during the run.
func (p *InProcess) Restores() int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := p.restores
	for _, m := range p.C.Members {
		if m.Node != nil {
			n += m.Node.FSM().Restores()
		}
	}
	return n
}

// Restart starts node again on its data folder and port.
func (p *InProcess) Restart(node string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.member(node).Start()
}

// Snapshot makes node snapshot its ledger and compact its log.
func (p *InProcess) Snapshot(node string) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := p.member(node).Node
	if n == nil {
		return errors.New("not running")
	}
	err := n.Raft().Snapshot().Error()
	if errors.Is(err, raft.ErrNothingNewToSnapshot) {
		return nil
	}
	return err
}

// Running reports whether node runs.
func (p *InProcess) Running(node string) bool { return p.Node(node) != nil }

// Leader returns the running node that leads, or "".
func (p *InProcess) Leader() string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, m := range p.C.Members {
		if m.Node != nil && m.Node.Raft().State() == raft.Leader {
			return m.ID
		}
	}
	return ""
}

// WaitLeader returns the node that leads, waiting up to timeout for an
// election to end (after a heal, or on a loaded machine, there may be none
// for a moment); the test fails when none leads by then.
func (p *InProcess) WaitLeader(timeout time.Duration) string {
	p.C.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if l := p.Leader(); l != "" {
			return l
		}
		if time.Now().After(deadline) {
			p.C.T.Fatalf("no leader within %s", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// State reads node's ledger.
func (p *InProcess) State(node string) (faults.NodeState, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := p.member(node).Node
	if n == nil {
		return faults.NodeState{}, errors.New("not running")
	}
	return faults.ReadState(n)
}
