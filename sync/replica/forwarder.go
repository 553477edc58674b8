package replica

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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

// maxInFlight is how many batches a leading node's forwarder has in the
// log at once: while the ledger applies one and its outcomes are written
// down, the next is already on its way through raft.
const maxInFlight = 4

// forward drains the outbox into the log, oldest first, in batches. An
// entry stays pending until the ledger answers for it; failures whose
// outcome is unknown (no leader, leadership lost, timeouts) are retried
// with the same command id after a growing pause.
//
// On the leader, batches are pipelined: the forwarder proposes a batch
// (raft.Apply, which only queues it) and goes on to the next while a
// goroutine of its own waits for the batch's outcomes. Proposals come
// from this one goroutine, so the log holds the commands in the order
// they were read. One settling goroutine writes down the outcomes of
// every batch answered by the time it looks in one outbox transaction
// (group commit: one fsync for all of them) and wakes the callers. After any
// failure the forwarder waits for every batch in flight before reading
// the outbox again, so a retried command is never proposed while its
// first proposal is still out.
func (n *Node) forward() {
	defer n.wg.Done()
	const minPause, maxPause = 50 * time.Millisecond, 5 * time.Second
	pause := minPause
	var pruned time.Time
	p := &pipeline{n: n, slots: make(chan struct{}, maxInFlight), out: map[uint64]bool{}, settled: map[uint64]uint64{},
		answered: make(chan answeredBatch, maxInFlight)}
	settled := make(chan struct{})
	go p.settle(settled)
	defer func() {
		p.wg.Wait()
		close(p.answered)
		<-settled
	}()
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
		if p.failed.Load() {
			// Let every batch in flight end before anything is read
			// again: their entries that got no answer are read again
			// then, in order.
			p.wg.Wait()
			p.failed.Store(false)
			// A new leader is worth trying at once: the pause is for a
			// cluster that is not answering, not for one that just
			// elected (a node starting up fails its first batch before
			// it leads, and waited out the pause with a leader there).
			wait := pause
			pause = min(pause*2, maxPause)
			select {
			case <-n.done:
				return
			case <-n.leaderChanged():
			case <-time.After(wait):
			}
			continue
		}
		scan := p.scanning()
		entries, err := n.box.pendingExcept(256, p.isOut)
		p.scanned(scan)
		if err != nil {
			n.log.Error("read outbox", "err", err)
		}
		var wait time.Duration
		switch {
		case err != nil:
			wait = maxPause
		case len(entries) == 0:
			wait = time.Minute
			if p.inFlight() == 0 {
				pause = minPause
			}
		default:
			if p.submit(entries) {
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

// pipeline is the forwarder's batches in flight on a leading node.
type pipeline struct {
	n      *Node
	slots  chan struct{} // one token per batch in flight
	wg     sync.WaitGroup
	failed atomic.Bool // a batch in flight got no answer for some entry
	mu     sync.Mutex
	out    map[uint64]bool // outbox sequences in flight
	// settled holds the sequences whose outcomes were written since the
	// outbox scan numbered scans began: a scan whose view opened before
	// the write still sees them pending, and must not propose them again.
	settled map[uint64]uint64
	scans   uint64
	// answered carries each batch's answers to the one goroutine that
	// writes them down (settle).
	answered chan answeredBatch
}

// answeredBatch is a batch in flight and what the ledger answered.
type answeredBatch struct {
	entries []outboxEntry
	results []domain.Result // for a prefix of entries
	err     error           // why the rest got no answer
}

// settle writes down the answers of the batches in flight as they come:
// all the batches answered by then in one outbox transaction (one fsync
// however many batches and callers it covers), then wakes their callers.
func (p *pipeline) settle(done chan<- struct{}) {
	defer close(done)
	n := p.n
	for first := range p.answered {
		group := []answeredBatch{first}
	more:
		for {
			select {
			case b, ok := <-p.answered:
				if !ok {
					break more
				}
				group = append(group, b)
			default:
				break more
			}
		}
		n.pause("forward.answered")
		var entries []outboxEntry
		var results []domain.Result
		for _, b := range group {
			if b.err != nil {
				n.log.Warn("submit to log", "id", b.entries[len(b.results)].Command.ID, "err", b.err)
				p.failed.Store(true)
			}
			entries = append(entries, b.entries[:len(b.results)]...)
			results = append(results, b.results...)
		}
		ok := n.settle(entries, results)
		if !ok {
			p.failed.Store(true)
		}
		for _, b := range group {
			answered := len(b.results)
			if !ok {
				answered = 0
			}
			p.landed(b.entries, answered)
			<-p.slots
			p.wg.Done()
		}
		n.kick() // a slot is free, or the forwarder must retry
	}
}

// isOut reports whether the entry seq is in flight or was just settled.
func (p *pipeline) isOut(seq uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, settled := p.settled[seq]
	return p.out[seq] || settled
}

// scanning numbers an outbox scan about to open its view.
func (p *pipeline) scanning() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.scans++
	return p.scans
}

// scanned forgets the entries settled before scan opened its view, which
// that view, and every later one, sees settled.
func (p *pipeline) scanned(scan uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for seq, at := range p.settled {
		if at < scan {
			delete(p.settled, seq)
		}
	}
}

// landed records that a batch is no longer in flight: its first answered
// entries settled (their outcomes written), the rest to be read again.
func (p *pipeline) landed(entries []outboxEntry, answered int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, e := range entries {
		delete(p.out, e.Seq)
		if i < answered {
			p.settled[e.Seq] = p.scans
		}
	}
}

func (p *pipeline) inFlight() int { return len(p.slots) }

// submit sends entries through the leader: proposed to the local raft,
// answered by a goroutine of their own, when this node leads; else to
// the leader's peer port, once every batch in flight has ended. It
// reports whether the batch went on its way (a follower's: was answered
// in full).
func (p *pipeline) submit(entries []outboxEntry) bool {
	n := p.n
	data := make([][]byte, len(entries))
	for i, e := range entries {
		var err error
		if data[i], err = n.encodeEntry(e.Command); err != nil {
			n.log.Error("encode queued command", "id", e.Command.ID, "err", err)
			return false
		}
	}
	if n.raft.State() != raft.Leader {
		p.wg.Wait()
		return n.forwardBatch(entries, data)
	}
	select {
	case p.slots <- struct{}{}:
	case <-n.done:
		return false
	}
	cmds := make([]domain.Command, len(entries))
	p.mu.Lock()
	for i, e := range entries {
		cmds[i] = e.Command
		p.out[e.Seq] = true
	}
	p.mu.Unlock()
	wait := n.proposeAsLeader(cmds, data, n.cfg.Role, false)
	p.wg.Add(1) // done by settle
	go func() {
		results, err := wait()
		p.answered <- answeredBatch{entries: entries, results: results, err: err}
	}()
	return true
}

// applyAsLeader appends commands (data their encodings) to the log on this
// leading node, taken on a node of role, and returns the ledger's answers
// in order: a command the leader does not admit (domain.CheckAdmission) is
// answered as refused and never enters the log. It answers the longest
// prefix it can: at the first command whose outcome is unknown (leadership
// lost, a timeout) it stops and returns why; the caller retries the rest
// under the same ids, which the ledger applies at most once.
func (n *Node) applyAsLeader(cmds []domain.Command, data [][]byte, role domain.NodeRole, forwarded bool) ([]domain.Result, error) {
	return n.proposeAsLeader(cmds, data, role, forwarded)()
}

// proposeAsLeader admits and proposes commands as applyAsLeader does and
// returns at once, with a function that waits for their answers.
func (n *Node) proposeAsLeader(cmds []domain.Command, data [][]byte, role domain.NodeRole, forwarded bool) func() ([]domain.Result, error) {
	futures := make([]raft.ApplyFuture, len(cmds))
	refused := make([]*domain.Error, len(cmds))
	for i := range cmds {
		if refused[i] = n.admit(cmds[i], role, forwarded); refused[i] == nil {
			futures[i] = n.raft.Apply(data[i], 5*time.Second)
		}
	}
	return func() ([]domain.Result, error) { return answers(cmds, data, futures, refused) }
}

// errSignAgain is why an answer is withheld: the command was encoded
// unsigned just before the ledger's format came to ask for signatures,
// and the ledger refused it unread (it took nothing of it, not even its
// id); the node sends it again, signed.
var errSignAgain = errors.New("the ledger now takes signed entries only: sending again, signed")

// answers waits for the futures of proposed commands (data their
// entries), in order, and returns the longest prefix of answers it has
// (see applyAsLeader).
func answers(cmds []domain.Command, data [][]byte, futures []raft.ApplyFuture, refused []*domain.Error) ([]domain.Result, error) {
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
		if res.Error != nil && res.Error.Code == domain.EUNAUTHENTICATED && !signed(data[i]) {
			return results, errSignAgain
		}
		if res.Error == errClosing {
			// Committed, and applied when the node starts again: no
			// refusal to record; the command stays queued.
			return results, errClosing
		}
		results = append(results, res)
	}
	return results, nil
}

// forwardBatch sends entries to the leader's peer port, and gives up on
// the leader when another takes its place (leader.go) or when it has not
// answered within the forward timeout: the entries stay pending, and the
// forwarder, woken by the change, sends them to the new leader under the
// same ids. The call to the old leader is left behind, not waited for: a
// peer that stopped reading holds the HTTP/2 connection's writes, and with
// them even the cancellation of a request on it. Whatever it answers
// late is dropped; the entries are answered by their next delivery.
func (n *Node) forwardBatch(entries []outboxEntry, data [][]byte) bool {
	changed := n.leaderChanged() // before the leader is read: a change after it ends the call
	addr, id := n.raft.LeaderWithID()
	if id == "" || n.cfg.Forward == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.timing.forwardTimeout())
	defer cancel()
	type answer struct {
		results []domain.Result
		err     error
	}
	answered := make(chan answer, 1)
	go func() {
		results, err := n.cfg.Forward(ctx, addr, data)
		answered <- answer{results, err}
	}()
	var a answer
	select {
	case a = <-answered:
	case <-changed:
		n.log.Info("leader changed during a forward; sending it to the new leader", "old", id, "first", entries[0].Command.ID)
		return false
	case <-ctx.Done():
		n.log.Warn("forward to leader", "leader", id, "err", fmt.Errorf("no answer within %s: %w", n.timing.forwardTimeout(), ctx.Err()))
		return false
	case <-n.done:
		return false
	}
	n.pause("forward.answered")
	n.settle(entries[:len(a.results)], a.results)
	if a.err != nil {
		n.log.Warn("forward to leader", "leader", id, "err", a.err)
		return false
	}
	return len(a.results) == len(entries)
}

// settle records the ledger's answers for outbox entries (in one
// transaction) and wakes anyone waiting for them. It reports whether the
// answers were written.
func (n *Node) settle(entries []outboxEntry, results []domain.Result) bool {
	if len(entries) == 0 {
		return true
	}
	seqs := make([]uint64, len(entries))
	for i, e := range entries {
		seqs[i] = e.Seq
	}
	done, err := n.box.finishAll(seqs, results)
	if err != nil {
		n.log.Error("record outbox outcomes", "first", entries[0].Command.ID, "err", err)
		return false
	}
	n.pending.Add(-int64(done))
	for i, res := range results {
		if res.Error != nil {
			n.log.Info("command refused; set aside for the clerk", "id", entries[i].Command.ID, "kind", entries[i].Command.Kind, "reason", res.Error.Error())
		}
		n.deliver(res)
	}
	return true
}
