package replica

import (
	"context"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// Taking commands: a node stamps them (NewCommand), checks them once at
// intake against the domain's rules (Submit: well formed, the node's role,
// the ledger format, a clock it trusts, what it takes offline), writes them
// to its outbox and waits a little for the ledger's answer.

// NewCommand returns a command of kind k stamped with a fresh id, this
// node's id, the next receipt sequence and the intake time on the village
// clock. The sequence is allocated durably, so no receipt number repeats.
//
// A node whose clock is clearly wrong refuses: one that reads earlier than
// a command it took before or than the ledger's latest command (less the
// allowed skew), or that its peers say is off by more than MaxClockSkew. A
// Pi without its RTC boots in the past; dating a payment then would date
// it wrong, which is worse than asking the resident to use the window.
func (n *Node) NewCommand(k domain.Kind, actor string) (domain.Command, error) {
	at := domainNow(n)
	if err := n.checkClock(at); err != nil {
		return domain.Command{}, err
	}
	if err := n.checkKind(k); err != nil {
		return domain.Command{}, err
	}
	// The ledger knows the highest sequence this node id ever used: a node
	// rebuilt on an empty folder must not hand out those numbers again.
	seq, err := n.box.nextSeq(max(n.fsm.MaxSeq(n.cfg.ID), n.fsm.Answered(n.cfg.ID)))
	if err != nil {
		return domain.Command{}, err
	}
	return domain.Command{
		ID:    n.cfg.NewID(),
		Kind:  k,
		At:    at,
		Node:  n.cfg.ID,
		Seq:   seq,
		Actor: actor,
	}, nil
}

// CheckStamp says why NewCommand would refuse a command of kind k now,
// without taking a receipt number: the kiosk asks before it charges a card
// and stamps the command once the card is approved, so a declined charge
// leaves no gap in the receipt sequence.
func (n *Node) CheckStamp(k domain.Kind) error {
	if err := n.checkClock(domainNow(n)); err != nil {
		return err
	}
	return n.checkKind(k)
}

// checkKind says why this node cannot take a command of kind k now: the
// node halted (its ledger is behind and it needs an upgrade), or the kind
// needs a ledger format the cluster has not reached (a member still runs
// an older release).
func (n *Node) checkKind(k domain.Kind) error {
	if err := n.fsm.Halted(); err != nil {
		return domain.Errorf(domain.EUNAVAILABLE, "", "This node cannot take payments or changes until it is upgraded; please use another station or the clerk's window. (%v)", err)
	}
	if need := n.kinds.Since(k); need > n.fsm.Format() {
		return domain.Errorf(domain.EUNAVAILABLE, "", "This needs every node of the cluster to run a release with ledger format %d; the cluster runs format %d. Finish upgrading the nodes first.", need, n.fsm.Format())
	}
	return nil
}

// admit is the leader's check of a command before it enters the log
// (domain.CheckAdmission): the node's role may take its kind, and it is
// not dated after the leader's clock by more than the allowed skew.
//
// Demo data is never taken from another node: only the operator of the
// node that runs the demo loads it, into its own empty ledger.
func (n *Node) admit(cmd domain.Command, role domain.NodeRole, forwarded bool) *domain.Error {
	if forwarded && cmd.Kind == domain.KindSeedDemo && n.fsm.Format() >= signedFormat {
		return domain.Errorf(domain.EFORBIDDEN, "", "Demo data loads only on the node that runs the demo, never from another node.")
	}
	return domain.CheckAdmission(n.kinds, cmd, role, domainNow(n), n.cfg.MaxClockSkew)
}

// domainNow reads the node's clock as a village date and time.
func domainNow(n *Node) domain.DateTime { return domain.DateTimeOf(n.cfg.Now().In(n.cfg.Location)) }

// checkClock says why the node's clock cannot date a command now, if it
// cannot (domain.CheckClock).
func (n *Node) checkClock(now domain.DateTime) error {
	last, _ := n.lastAt.Load().(domain.DateTime)
	peers, _ := n.clockErr.Load().(string)
	return domain.CheckClock(domain.ClockFacts{Now: now, LastTaken: last, Latest: n.fsm.Latest(), MaxSkew: n.cfg.MaxClockSkew, PeersDiffer: peers})
}

// connected reports whether this node can reach the leader now.
func (n *Node) connected() bool {
	if n.raft.State() == raft.Leader {
		return true
	}
	_, leader := n.raft.LeaderWithID()
	last := n.raft.LastContact()
	return leader != "" && !last.IsZero() && time.Since(last) < 2*time.Second
}

// Submit records cmd in the outbox (synced) and waits, at most SubmitWait
// or until ctx ends, for the ledger to apply it; on the leading node it
// goes straight into the log instead (submitDirect, direct.go). It returns the ledger's
// result; a command the rules refuse returns its *domain.Error. When the
// ledger does not answer in time the command stays queued and Submit
// returns a provisional result: the receipt is numbered and the payment
// posts when the cluster is reachable again. Submitting the same command
// id again returns the first outcome and never applies it twice.
func (n *Node) Submit(ctx context.Context, cmd domain.Command) (domain.Result, error) {
	if err := n.kinds.Validate(cmd); err != nil {
		return domain.Result{}, err
	}
	if cmd.Node != n.cfg.ID {
		return domain.Result{}, domain.Errorf(domain.EINVALID, "", "command %s was made on node %s, not %s", cmd.ID, cmd.Node, n.cfg.ID)
	}
	if n.kinds.Cluster(cmd.Kind) {
		return domain.Result{}, domain.Errorf(domain.EINVALID, "", "%s commands are the cluster's own", cmd.Kind)
	}
	if !n.kinds.MayTake(n.cfg.Role, cmd.Kind) {
		return domain.Result{}, domain.Errorf(domain.EFORBIDDEN, "", "This %s node cannot take %s; use the clerk's office.", n.cfg.Role, cmd.Kind)
	}
	if err := n.checkKind(cmd.Kind); err != nil {
		return domain.Result{}, err
	}
	// A command the ledger here has already applied (a client retrying
	// at another node what it first sent to one that went down) is
	// answered from the ledger: the same receipt everywhere it is asked.
	if kept, res, ok, err := n.fsm.appliedCommand(cmd.ID); err == nil && ok {
		if !sameRequest(kept, cmd) {
			return domain.Result{}, errReused(cmd.ID)
		}
		return resultErr(res)
	}
	if !n.connected() {
		if err := (domain.OfflinePolicy{Kinds: n.kinds, CardLimit: n.cfg.OfflineCardLimit}).Check(cmd); err != nil {
			return domain.Result{}, err
		}
	}
	if res, done, err := n.submitDirect(ctx, cmd); done {
		if err != nil {
			return res, err
		}
		return resultErr(res)
	}
	ch := n.addWaiter(cmd.ID)
	defer n.removeWaiter(cmd.ID, ch)
	e, created, err := n.box.put(cmd)
	if err != nil {
		return domain.Result{}, err
	}
	if !created && !e.Command.SameRequest(cmd) {
		return domain.Result{}, errReused(cmd.ID)
	}
	n.pause("submit.queued")
	if created {
		n.pending.Add(1)
		if last, _ := n.lastAt.Load().(domain.DateTime); cmd.At.After(last) {
			n.lastAt.Store(cmd.At)
		}
	}
	if e.State != statePending && e.Result != nil {
		return resultErr(*e.Result)
	}
	n.kick()
	ctx, cancel := context.WithTimeout(ctx, n.cfg.SubmitWait)
	defer cancel()
	select {
	case res := <-ch:
		return resultErr(res)
	case <-ctx.Done():
		return provisional(e.Command), nil
	}
}

func resultErr(res domain.Result) (domain.Result, error) {
	if res.Error != nil {
		return res, res.Error
	}
	return res, nil
}

// provisional is the answer for a command queued but not yet applied.
func provisional(cmd domain.Command) domain.Result {
	return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Receipt: cmd.ProvisionalReceipt()}
}

func (n *Node) addWaiter(id string) chan domain.Result {
	ch := make(chan domain.Result, 1)
	n.waitMu.Lock()
	n.waiters[id] = append(n.waiters[id], ch)
	n.waitMu.Unlock()
	return ch
}

func (n *Node) removeWaiter(id string, ch chan domain.Result) {
	n.waitMu.Lock()
	defer n.waitMu.Unlock()
	list := n.waiters[id]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(n.waiters, id)
	} else {
		n.waiters[id] = list
	}
}

func (n *Node) deliver(res domain.Result) {
	n.waitMu.Lock()
	defer n.waitMu.Unlock()
	for _, ch := range n.waiters[res.CommandID] {
		select {
		case ch <- res:
		default:
		}
	}
}

func (n *Node) kick() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}
