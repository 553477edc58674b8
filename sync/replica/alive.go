package replica

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
)

// Alive reports whether the node's moving parts still answer: raft's main
// loop (a configuration read is served by it, so a wedged raft does not
// answer), the raft log store and the ledger store (a read transaction
// each). It says nothing of the cluster: a node cut off from its peers, or
// one whose ledger halted, is alive, because restarting it would not help.
// The appliance feeds systemd's watchdog only while Alive returns nil, so
// a node whose raft or stores hang is restarted.
func (n *Node) Alive(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- n.alive() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("the node did not answer its liveness check in time: %w", ctx.Err())
	}
}

func (n *Node) alive() error {
	if n.raft.State() == raft.Shutdown {
		return errors.New("raft is shut down")
	}
	if err := n.raft.GetConfiguration().Error(); err != nil {
		return fmt.Errorf("raft does not answer: %w", err)
	}
	read := func(db *badger.DB, what string) error {
		if db.IsClosed() {
			return fmt.Errorf("the %s store is closed", what)
		}
		if err := db.View(func(txn *badger.Txn) error {
			_, err := txn.Get(keyApplied)
			if errors.Is(err, badger.ErrKeyNotFound) {
				return nil
			}
			return err
		}); err != nil {
			return fmt.Errorf("the %s store does not answer: %w", what, err)
		}
		return nil
	}
	if err := read(n.logDB, "raft log"); err != nil {
		return err
	}
	return read(n.fsm.db, "ledger")
}

// Readiness says whether the node is ready to take payments now, and if
// not, why (sentences): its ledger is healthy (not halted, not diverged),
// its peers do not refuse it and a quorum answers (as /healthz says), its
// clock can date commands, it is in touch with a leader, and its
// ledger has worked through its log (after a restart raft hands the FSM
// every entry since the newest snapshot again, and after an outage a
// follower catches up), so that a payment posts at once instead of
// waiting behind them or in the outbox. /readyz serves it.
func (n *Node) Readiness() (bool, []string) {
	reasons := append(n.Problems(), n.clusterProblems()...)
	if err := n.checkClock(domainNow(n)); err != nil {
		reasons = append(reasons, err.Error())
	}
	if !n.connected() {
		reasons = append(reasons, "this node is not in touch with a leader: payments would be provisional until the cluster is reachable")
	}
	if behind := n.applyLag(); behind > 0 {
		reasons = append(reasons, fmt.Sprintf("this node's ledger is %d log entries behind (working through its log after a restart or an outage): a payment would wait behind them", behind))
	}
	return len(reasons) == 0, reasons
}

// readyLag is how far the ledger may trail the commit index and the node
// still count as caught up: entries in flight between raft and the FSM
// under steady load (one batch of MaxAppendEntries).
const readyLag = 256

// applyLag returns how many log entries the ledger has yet to work through
// before a new command would apply without waiting: those raft replays
// after a restart up to what the ledger had applied before it, and beyond
// readyLag, those committed and not yet handed to the FSM.
func (n *Node) applyLag() uint64 { return applyLag(n.fsm.Seen(), n.replayTo, n.raft.CommitIndex()) }

// applyLag is Node.applyLag of the highest index handed to the FSM, the
// ledger's applied index at start (0 when raft replays nothing), and the
// commit index.
func applyLag(seen, replayTo, commit uint64) uint64 {
	if seen < replayTo {
		return replayTo - seen
	}
	if commit > seen+readyLag {
		return commit - seen
	}
	return 0
}

// outboxOldest returns the intake time of the oldest command waiting in
// the outbox, and false when none waits.
func (n *Node) outboxOldest() (time.Time, bool) {
	if n.pending.Load() <= 0 {
		return time.Time{}, false
	}
	pend, err := n.box.pending(1)
	if err != nil || len(pend) == 0 {
		return time.Time{}, false
	}
	return pend[0].Command.At.Time(n.cfg.Location), true
}

// lastSnapshot returns when the newest snapshot on disk was taken, and
// false when there is none. raft's file snapshot store names each
// snapshot term-index-milliseconds.
func (n *Node) lastSnapshot() (time.Time, bool) {
	if n.snaps == nil {
		return time.Time{}, false
	}
	list, err := n.snaps.List()
	if err != nil || len(list) == 0 {
		return time.Time{}, false
	}
	id := list[0].ID
	ms, err := strconv.ParseInt(id[strings.LastIndexByte(id, '-')+1:], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// checkJoinerFormat refuses a node whose release cannot apply the ledger
// format the cluster has reached: it would halt at the first entry it
// cannot decode (or, a release from before formats, apply it wrongly).
// The joining node answers on its peer port (it joins once it listens);
// a release from before formats reports none, which is format 1.
func (n *Node) checkJoinerFormat(id, addr string) error {
	if n.cfg.Status == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := n.cfg.Status(ctx, raft.ServerAddress(addr))
	if err != nil {
		return fmt.Errorf("node %s does not say which release it runs (its peer port at %s: %v); it joins once it answers", id, addr, err)
	}
	if f := max(st.Format, 1); f < n.fsm.Format() {
		return fmt.Errorf("node %s runs a release that applies ledger format %d, and this cluster's ledger is at format %d: install the release the other nodes run on %s, then start it again to join", id, f, n.fsm.Format(), id)
	}
	return nil
}

// clusterProblems says, in sentences, why this node cannot take part in
// its cluster, for /healthz: most of the other voters refuse it (their
// cluster is not the one of its certificate and data, or they do not
// trust its certificate), or it has known no leader for longer than an
// election takes, so it cannot reach a quorum. Such a node still serves
// reads and takes payments into its outbox, as a candidate for ever:
// without this, /healthz would call it healthy. A refusal by one peer
// among three is not this node's problem alone (the refusing peer may be
// the one that is wrong) and is not listed while the rest make a quorum.
func (n *Node) clusterProblems() []string {
	if n.raft.State() == raft.Leader {
		return nil
	}
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	var voters int
	var refused, unreachable []string
	for _, s := range f.Configuration().Servers {
		if s.Suffrage != raft.Voter {
			continue
		}
		voters++
		if string(s.ID) == n.cfg.ID {
			continue
		}
		fail, ok := n.dials.failure(s.Address)
		switch {
		case !ok:
		case fail.refused:
			refused = append(refused, fmt.Sprintf("%s: %v", s.ID, fail.err))
		default:
			unreachable = append(unreachable, fmt.Sprintf("%s: %v", s.ID, fail.err))
		}
	}
	var out []string
	if len(refused) > 0 && voters-len(refused) < voters/2+1 {
		out = append(out, fmt.Sprintf("the other nodes refuse this node, so it cannot take part in the cluster (%s): a node started on another cluster's data folder or certificate is refused by design; give it this cluster's (docs/operating.md, Rebuilding a node)",
			strings.Join(refused, "; ")))
	}
	if d := n.leaderlessFor(); d > n.timing.leaderless() {
		msg := fmt.Sprintf("this node has known no leader for %s, longer than an election takes: it cannot reach a quorum of the cluster's %d voters, and payments taken here stay provisional until it can",
			d.Round(100*time.Millisecond), voters)
		if why := append(refused, unreachable...); len(why) > 0 {
			msg += " (" + strings.Join(why, "; ") + ")"
		}
		out = append(out, msg)
	}
	return out
}
