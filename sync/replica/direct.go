package replica

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// The leader's own commands go straight into the log. A command taken on
// the leading node needs no outbox write before raft: the leader appends
// it to its own raft log, synced, before it sends it to anyone, so that
// append is the durable record the outbox put was. What an outbox gives
// beyond that is kept otherwise:
//
//   - Nothing acknowledged is lost: Submit answers "posted" only once the
//     entry committed (on a quorum's disks) and the ledger applied it.
//   - A command the log did not take at once (leadership lost, raft's
//     queue full, the signature format just raised), or that is not
//     applied within SubmitWait (the quorum went away under it), goes to
//     the outbox under the same id, as every command on a follower does:
//     a provisional receipt is only ever given for a command the outbox
//     holds, and the forwarder sends it on until the ledger answers; the
//     ledger's dedupe applies it at most once if the first proposal
//     committed after all.
//   - A command the leader appended and then crashed before it was
//     committed (its caller got no answer; a card may have been charged
//     for it) is found in the node's own raft log at the next start and
//     put in the outbox (recoverProposals), so it is recorded as an outbox
//     command is; if it did commit, the ledger answers it from its dedupe.
//     The same scan keeps receipt numbers unique: the highest sequence a
//     command of this node holds in the log raises the outbox's counter,
//     which the outbox put used to write.

// submitDirect takes cmd into the log on a leading node and waits for the
// ledger's answer. It reports false, having changed nothing the outbox
// path cannot take over, when cmd must go through the outbox: the node
// does not lead, the log did not take the entry, or the ledger did not
// answer within SubmitWait (then cmd is in the outbox already, and res is
// its provisional answer).
func (n *Node) submitDirect(ctx context.Context, cmd domain.Command) (res domain.Result, done bool, err error) {
	if n.raft.State() != raft.Leader {
		return res, false, nil
	}
	if refused := n.admit(cmd, n.cfg.Role, false); refused != nil {
		n.box.answered(cmd.Seq)
		n.log.Info("command refused; set aside for the clerk", "id", cmd.ID, "kind", cmd.Kind, "reason", refused.Error())
		return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Error: refused}, true, nil
	}
	n.pause("submit.direct")
	var answer <-chan proposed
	if n.groupsOn(cmd.Kind) {
		answer = n.propose(cmd) // nil: it goes alone (group.go)
	}
	if answer == nil {
		data, err := n.encodeEntry(cmd)
		if err != nil {
			return res, false, nil
		}
		answer = n.proposeAlone(cmd, data)
	}
	n.noteIntake(cmd)
	wait, cancel := context.WithTimeout(ctx, n.cfg.SubmitWait)
	defer cancel()
	var got proposed
	select {
	case got = <-answer:
	case <-wait.Done():
		// The quorum went away under it, or the disk is slow: the outbox
		// takes it over and a provisional receipt is given.
		return n.queue(cmd)
	}
	if got.err != nil {
		if !errors.Is(got.err, errSignAgain) {
			n.log.Info("the log did not take a command at once; queued", "id", cmd.ID, "err", got.err)
		}
		return res, false, nil
	}
	res = got.res
	if res.Error != nil && n.fsm.Halted() != nil {
		// Committed but not applied here (the ledger halted until an
		// upgrade; a closing one answers through answers' error): it
		// applies later from the log, so it is no refusal. The outbox
		// answers for it meanwhile.
		return n.queue(cmd)
	}
	n.box.answered(cmd.Seq)
	if res.Error != nil {
		n.log.Info("command refused; set aside for the clerk", "id", cmd.ID, "kind", cmd.Kind, "reason", res.Error.Error())
	}
	n.deliver(res) // a second Submit of the same id may wait in the outbox path
	return res, true, nil
}

// proposeAlone gives raft the entry data of cmd and returns where the
// ledger's answer comes.
func (n *Node) proposeAlone(cmd domain.Command, data []byte) <-chan proposed {
	f := n.raft.Apply(data, 5*time.Second)
	out := make(chan proposed, 1)
	go func() {
		rs, err := answers([]domain.Command{cmd}, [][]byte{data}, []raft.ApplyFuture{f}, []*domain.Error{nil})
		if err == nil && len(rs) != 1 {
			err = errors.New("the ledger gave no answer")
		}
		if err != nil {
			out <- proposed{err: err}
			return
		}
		out <- proposed{res: rs[0]}
	}()
	return out
}

// queue puts cmd in the outbox after the log was given it directly and
// the ledger has not answered in time, and returns its provisional answer
// (or the outcome the outbox holds already).
func (n *Node) queue(cmd domain.Command) (domain.Result, bool, error) {
	e, created, err := n.box.put(cmd)
	if err != nil {
		return domain.Result{}, true, err
	}
	if created {
		n.pending.Add(1)
	}
	n.kick()
	if e.State != statePending && e.Result != nil {
		return *e.Result, true, nil
	}
	return provisional(e.Command), true, nil
}

// noteIntake keeps the latest intake time this node has given a command,
// which its clock must not read earlier than.
func (n *Node) noteIntake(cmd domain.Command) {
	if last, _ := n.lastAt.Load().(domain.DateTime); cmd.At.After(last) {
		n.lastAt.Store(cmd.At)
	}
}

// recoverProposals puts in the outbox every command of this node that its
// raft log holds past what the ledger here has applied: a command the
// node proposed straight to the log as leader and that may never have
// been committed (it crashed first, or another leader's log replaced it).
// The forwarder then sends each on; one that did commit is answered from
// the ledger's dedupe. Run at open, before raft starts. It returns how
// many it queued.
func (n *Node) recoverProposals() (int, error) {
	first, err := n.logs.FirstIndex()
	if err != nil {
		return 0, err
	}
	last, err := n.logs.LastIndex()
	if err != nil {
		return 0, err
	}
	queued := 0
	for i := max(first, n.fsm.Applied()+1); i <= last && i > 0; i++ {
		var l raft.Log
		if err := n.logs.GetLog(i, &l); err != nil {
			if errors.Is(err, raft.ErrLogNotFound) {
				continue
			}
			return queued, fmt.Errorf("read raft log entry %d: %w", i, err)
		}
		for _, cmd := range n.ownProposals(l) {
			if _, _, applied, err := n.fsm.appliedCommand(cmd.ID); err == nil && applied {
				continue
			}
			_, created, err := n.box.put(cmd)
			if err != nil {
				var de *domain.Error
				if errors.As(err, &de) {
					// Another command holds its sequence in the outbox: it
					// cannot be this node's (sequences are its own), so the
					// entry is not what this node proposed.
					n.log.Warn("a command in the raft log reuses a receipt sequence of this node; not queued", "id", cmd.ID, "seq", cmd.Seq, "err", err)
					continue
				}
				return queued, err
			}
			if created {
				queued++
			}
		}
	}
	return queued, nil
}

// ownProposals returns the commands of a raft log entry if this node
// signed it (or, in a ledger older than signed entries, took it): one, or
// a group's (group.go). The cluster's own entries are left out: the node
// appends them again itself when it must.
func (n *Node) ownProposals(l raft.Log) []domain.Command {
	if l.Type != raft.LogCommand || len(l.Data) == 0 {
		return nil
	}
	var cmds []domain.Command
	switch {
	case isGroup(l.Data):
		cmds = n.groupCommands(l.Data)
	case signed(l.Data):
		o, err := n.fsm.openEntry(l.Data)
		if err != nil {
			return nil
		}
		cmds = []domain.Command{o.cmd}
	default:
		if n.cfg.Identity != nil && n.fsm.Format() >= signedFormat {
			return nil
		}
		cmd, err := n.kinds.Decode(l.Data)
		if err != nil {
			return nil
		}
		cmds = []domain.Command{cmd}
	}
	mine := cmds[:0]
	for _, cmd := range cmds {
		if cmd.Node == n.cfg.ID && cmd.ID != "" && !n.kinds.Cluster(cmd.Kind) {
			mine = append(mine, cmd)
		}
	}
	return mine
}
