package replica

import (
	"context"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// The forwarder drains the node's outbox into the log: through the local
// raft when the node leads, else through the leader's peer port. The
// leader admits each command (applyAsLeader) the same way whichever node
// took it.

// outboxRetentionDays is how long answered outbox entries are kept, for
// the node's own look-ups of recent receipts; the ledger keeps them all.
const outboxRetentionDays = 30

// forward drains the outbox into the log, oldest first, in batches. An
// entry stays pending until the ledger answers for it; failures whose
// outcome is unknown (no leader, leadership lost, timeouts) are retried
// with the same command id after a growing pause.
func (n *Node) forward() {
	defer n.wg.Done()
	const minPause, maxPause = 50 * time.Millisecond, 5 * time.Second
	pause := minPause
	var pruned time.Time
	for {
		if time.Since(pruned) > time.Hour {
			pruned = time.Now()
			cutoff := domain.DateTimeOf(n.cfg.Now().In(n.cfg.Location).AddDate(0, 0, -outboxRetentionDays))
			if k, err := n.box.prune(cutoff); err != nil {
				n.log.Error("prune outbox", "err", err)
			} else if k > 0 {
				n.log.Info("pruned outbox", "entries", k)
			}
		}
		entries, err := n.box.pending(256)
		if err != nil {
			n.log.Error("read outbox", "err", err)
		}
		var wait time.Duration
		switch {
		case err != nil:
			wait = maxPause
		case len(entries) == 0:
			wait = time.Minute
			pause = minPause
		default:
			if n.submitBatch(entries) {
				pause = minPause
				continue
			}
			wait = pause
			pause = min(pause*2, maxPause)
		}
		select {
		case <-n.done:
			return
		case <-n.wake:
		case <-time.After(wait):
		}
	}
}

// submitBatch applies entries through the leader: the local raft when this
// node leads, else the leader's peer port. It reports whether every entry
// got an answer.
func (n *Node) submitBatch(entries []outboxEntry) bool {
	data := make([][]byte, len(entries))
	for i, e := range entries {
		var err error
		if data[i], err = domain.EncodeCommand(e.Command); err != nil {
			n.log.Error("encode queued command", "id", e.Command.ID, "err", err)
			return false
		}
	}
	if n.raft.State() != raft.Leader {
		return n.forwardBatch(entries, data)
	}
	cmds := make([]domain.Command, len(entries))
	for i, e := range entries {
		cmds[i] = e.Command
	}
	results, err := n.applyAsLeader(cmds, data, n.cfg.Role)
	if err != nil {
		n.log.Warn("submit to log", "id", entries[len(results)].Command.ID, "err", err)
	}
	n.pause("forward.answered")
	n.settle(entries[:len(results)], results)
	return err == nil
}

// applyAsLeader appends commands (data their encodings) to the log on this
// leading node, taken on a node of role, and returns the ledger's answers
// in order: a command the leader does not admit (domain.CheckAdmission) is
// answered as refused and never enters the log. It answers the longest
// prefix it can: at the first command whose outcome is unknown (leadership
// lost, a timeout) it stops and returns why; the caller retries the rest
// under the same ids, which the ledger applies at most once.
func (n *Node) applyAsLeader(cmds []domain.Command, data [][]byte, role domain.NodeRole) ([]domain.Result, error) {
	futures := make([]raft.ApplyFuture, len(cmds))
	refused := make([]*domain.Error, len(cmds))
	for i := range cmds {
		if refused[i] = n.admit(cmds[i], role); refused[i] == nil {
			futures[i] = n.raft.Apply(data[i], 5*time.Second)
		}
	}
	results := make([]domain.Result, 0, len(cmds))
	for i, f := range futures {
		if refused[i] != nil {
			results = append(results, domain.Result{CommandID: cmds[i].ID, Kind: cmds[i].Kind, Error: refused[i]})
			continue
		}
		if err := f.Error(); err != nil {
			return results, err
		}
		res, _ := f.Response().(domain.Result)
		results = append(results, res)
	}
	return results, nil
}

// forwardBatch sends entries to the leader's peer port.
func (n *Node) forwardBatch(entries []outboxEntry, data [][]byte) bool {
	addr, id := n.raft.LeaderWithID()
	if id == "" || n.cfg.Forward == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results, err := n.cfg.Forward(ctx, addr, data)
	n.pause("forward.answered")
	n.settle(entries[:len(results)], results)
	if err != nil {
		n.log.Warn("forward to leader", "leader", id, "err", err)
		return false
	}
	return len(results) == len(entries)
}

// settle records the ledger's answers for outbox entries (in one
// transaction) and wakes anyone waiting for them.
func (n *Node) settle(entries []outboxEntry, results []domain.Result) {
	if len(entries) == 0 {
		return
	}
	seqs := make([]uint64, len(entries))
	for i, e := range entries {
		seqs[i] = e.Seq
	}
	done, err := n.box.finishAll(seqs, results)
	if err != nil {
		n.log.Error("record outbox outcomes", "first", entries[0].Command.ID, "err", err)
		return
	}
	n.pending.Add(-int64(done))
	for i, res := range results {
		if res.Error != nil {
			n.log.Info("command refused; set aside for the clerk", "id", entries[i].Command.ID, "kind", entries[i].Command.Kind, "reason", res.Error.Error())
		}
		n.deliver(res)
	}
}
