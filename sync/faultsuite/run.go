package faultsuite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/sync/faults"
)

// The three voters, as at the village.
const (
	HallKiosk   = "hall-kiosk"
	HallClerk   = "hall-clerk"
	AnnexBackup = "annex-backup"
)

// IDs are the node ids of every Target, the bootstrapping node first.
var IDs = []string{HallClerk, HallKiosk, AnnexBackup}

// Target is a three-node cluster the suite can hurt.
type Target interface {
	// Pay submits a payment of cents on bill at node, through the path a
	// kiosk uses, under the client-made command id.
	Pay(ctx context.Context, node, commandID, bill string, cents int64) Op
	// Read reads bill at node as a page would, and reports whether the
	// node said, before and after, that its records were current.
	Read(node, bill string) (Op, bool)
	// Partition cuts every node of a off from every node of b.
	Partition(a, b []string)
	// Heal removes every partition.
	Heal()
	// SlowDisk delays every write to node's raft log by d (0: full speed).
	SlowDisk(node string, d time.Duration)
	// Crash stops node abruptly; Restart starts it again on its data.
	Crash(node string)
	Restart(node string)
	// Running reports whether node is up.
	Running(node string) bool
	// Leader returns the node that leads now, or "".
	Leader() string
	// State reads node's ledger for the checker.
	State(node string) (faults.NodeState, error)
	// Due returns the seeded bills and their amounts due, in cents.
	Due() map[string]int64
	// Kind names the target in reports ("in-process", "processes").
	Kind() string
}

// Plan is one randomized run.
type Plan struct {
	Seed     uint64
	Duration time.Duration // of clients and faults, before the cluster heals
	Clients  int
	Faults   []Fault // the faults the run may pick from; empty: all
	// Reads makes clients also read bills, and checks the reads made at
	// a node that said it was current as part of the history.
	Reads bool
}

// Fault is a kind of fault a run injects.
type Fault string

// The faults.
const (
	FaultPartition   Fault = "partition"    // cut one node off from another
	FaultIsolate     Fault = "isolate"      // cut one node off from both others
	FaultCrash       Fault = "crash"        // crash a random node (kill -9 for processes)
	FaultLeaderCrash Fault = "leader-crash" // crash the leader while clients write
	FaultSlowDisk    Fault = "slow-disk"    // slow one node's raft log writes
	FaultHeal        Fault = "heal"         // heal partitions, restart crashed nodes, fast disks
	// FaultSnapshot compacts a node's log: a node behind it then catches
	// up by InstallSnapshot. Only targets that are Snapshotters take it.
	FaultSnapshot Fault = "snapshot"
)

// Snapshotter is a Target that can make a node snapshot and compact its
// log on demand.
type Snapshotter interface {
	Snapshot(node string) error
}

// AllFaults is every fault a run may pick.
var AllFaults = []Fault{FaultPartition, FaultIsolate, FaultCrash, FaultLeaderCrash, FaultSlowDisk, FaultHeal, FaultSnapshot}

// Result is a run's outcome.
type Result struct {
	Plan   Plan
	Target string
	Faults []string // the faults injected, in order
	Report Report
	// Snapshots is how many snapshots lagging nodes installed, where the
	// target can tell (-1: it cannot).
	Snapshots int64
}

// Summary is one line for the suite's summary.
func (r Result) Summary() string {
	rep := r.Report
	snaps := ""
	if r.Snapshots >= 0 {
		snaps = fmt.Sprintf(", %d snapshots installed", r.Snapshots)
	}
	return fmt.Sprintf("%s seed %d: %d faults, %d commands (%d posted, %d provisional, %d unknown), %d current reads, lost %d, duplicated %d, linearizable %t, hashes match %t, books balanced and tied %t, books match %t%s",
		r.Target, r.Plan.Seed, len(r.Faults), rep.Commands, rep.Posted, rep.Provisional, rep.Unknown, rep.Reads, rep.Lost, rep.Duplicated, rep.Linearizable, rep.HashesMatch, rep.BooksBalanced, rep.BooksMatch, snaps)
}

// Run drives clients paying bills through random nodes while it injects
// random faults for plan.Duration, then heals everything, waits for every
// outbox to drain and every node to converge, and checks the history.
func Run(t testing.TB, target Target, plan Plan) Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(plan.Seed, plan.Seed^0x9e3779b97f4a7c15))
	if len(plan.Faults) == 0 {
		plan.Faults = AllFaults
	}
	if plan.Clients == 0 {
		plan.Clients = 4
	}
	res := Result{Plan: plan, Target: target.Kind(), Snapshots: -1}
	due := target.Due()
	bills := make([]string, 0, len(due))
	for b := range due {
		bills = append(bills, b)
	}
	slices.Sort(bills)

	var hist History
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for c := range plan.Clients {
		crng := rand.New(rand.NewPCG(plan.Seed+uint64(c)+1, 7))
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				node := IDs[crng.IntN(len(IDs))]
				if !target.Running(node) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				bill := bills[crng.IntN(len(bills))]
				if plan.Reads && crng.IntN(3) == 0 {
					// Reads count only where the node claims to be current:
					// those must be linearizable too.
					if op, ok := target.Read(node, bill); ok {
						op.Client = c
						hist.Add(op)
					}
				} else {
					id := fmt.Sprintf("fs-%d-%d-%d", plan.Seed, c, n)
					op := target.Pay(context.Background(), node, id, bill, 1+crng.Int64N(40))
					op.Client = c
					hist.Add(op)
				}
				time.Sleep(time.Duration(5+crng.IntN(40)) * time.Millisecond)
			}
		})
	}

	crashed := map[string]bool{}
	deadline := time.Now().Add(plan.Duration)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(700+rng.IntN(1300)) * time.Millisecond)
		f := plan.Faults[rng.IntN(len(plan.Faults))]
		desc := string(f)
		switch f {
		case FaultPartition:
			a, b := pickTwo(rng)
			target.Partition([]string{a}, []string{b})
			desc += " " + a + "↮" + b
		case FaultIsolate:
			a := IDs[rng.IntN(len(IDs))]
			target.Partition([]string{a}, others(a))
			desc += " " + a
		case FaultCrash, FaultLeaderCrash:
			node := IDs[rng.IntN(len(IDs))]
			if f == FaultLeaderCrash {
				node = target.Leader()
			}
			if node == "" || crashed[node] || len(crashed) >= 2 {
				continue
			}
			target.Crash(node)
			crashed[node] = true
			desc += " " + node
			// A crashed node comes back after a while, as systemd restarts it.
			if rng.IntN(3) > 0 {
				time.Sleep(time.Duration(300+rng.IntN(1500)) * time.Millisecond)
				target.Restart(node)
				delete(crashed, node)
				desc += " (restarted)"
			}
		case FaultSlowDisk:
			node := IDs[rng.IntN(len(IDs))]
			d := time.Duration(10+rng.IntN(150)) * time.Millisecond
			if rng.IntN(4) == 0 {
				d = time.Duration(300+rng.IntN(600)) * time.Millisecond // a stalled card: longer than an election
			}
			target.SlowDisk(node, d)
			desc += fmt.Sprintf(" %s %s", node, d)
		case FaultHeal:
			heal(target, crashed)
		case FaultSnapshot:
			// Every running node compacts its log, so a node that is down
			// or cut off and falls further behind catches up only by
			// InstallSnapshot.
			sn, ok := target.(Snapshotter)
			if !ok {
				continue
			}
			for _, node := range IDs {
				if target.Running(node) {
					desc += " " + node
					if err := sn.Snapshot(node); err != nil {
						desc += " (" + err.Error() + ")"
					}
				}
			}
		}
		res.Faults = append(res.Faults, desc)
	}
	stop()
	wg.Wait()
	heal(target, crashed)

	states, err := settle(target, 60*time.Second)
	if err != nil {
		res.Report = Check(hist.Ops(), states, due)
		res.Report.problem("%v", err)
		return res
	}
	res.Report = Check(hist.Ops(), states, due)
	if rs, ok := target.(interface{ Restores() int64 }); ok {
		res.Snapshots = rs.Restores()
	}
	return res
}

func heal(target Target, crashed map[string]bool) {
	target.Heal()
	for _, id := range IDs {
		target.SlowDisk(id, 0)
	}
	for id := range crashed {
		target.Restart(id)
		delete(crashed, id)
	}
}

func pickTwo(rng *rand.Rand) (string, string) {
	i := rng.IntN(len(IDs))
	j := (i + 1 + rng.IntN(len(IDs)-1)) % len(IDs)
	return IDs[i], IDs[j]
}

func others(id string) []string {
	var out []string
	for _, o := range IDs {
		if o != id {
			out = append(out, o)
		}
	}
	return out
}

// settle waits until every node is running, has an empty outbox and holds
// the same state as the others, and returns their states. On timeout it
// returns the last states read and an error.
//
// Each round reads every node's outbox first and the ledgers after: a
// node's outbox empties only once the leader has applied what it held, so
// ledgers read after every outbox was seen empty hold all of it. Read the
// other way round, node by node, the nodes read first could be seen before
// an entry applied and a later node's outbox after it was answered: equal
// ledgers, empty outboxes, and the entry missing from what was checked.
func settle(target Target, timeout time.Duration) ([]faults.NodeState, error) {
	deadline := time.Now().Add(timeout)
	var states []faults.NodeState
	var why string
	for {
		var queued bool
		if states, why = readStates(target); why == "" {
			for _, s := range states {
				queued = queued || s.Pending > 0
			}
			if !queued {
				states, why = readStates(target)
			}
		}
		if why == "" {
			why = settledWhy(states)
			if why == "" {
				return states, nil
			}
		}
		if time.Now().After(deadline) {
			if len(states) < len(IDs) {
				return nil, fmt.Errorf("cluster did not settle within %s: %s", timeout, why)
			}
			return states, fmt.Errorf("cluster did not settle within %s: %s", timeout, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readStates reads every node's state, in IDs order, or says which node
// could not be read.
func readStates(target Target) ([]faults.NodeState, string) {
	var states []faults.NodeState
	for _, id := range IDs {
		s, err := target.State(id)
		if err != nil {
			return states, fmt.Sprintf("%s: %v", id, err)
		}
		states = append(states, s)
	}
	return states, ""
}

func settledWhy(states []faults.NodeState) string {
	var why []string
	for _, s := range states {
		if s.Pending > 0 {
			why = append(why, fmt.Sprintf("%s has %d queued", s.ID, s.Pending))
		}
		if s.Hash != states[0].Hash || s.Applied != states[0].Applied {
			why = append(why, fmt.Sprintf("%s at %.12s@%d, %s at %.12s@%d", s.ID, s.Hash, s.Applied, states[0].ID, states[0].Hash, states[0].Applied))
		}
	}
	return strings.Join(why, "; ")
}
