package replica

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// The node's watch over the ledger's integrity: it compares its clock and
// its checkpoint hashes with its peers' (every ClockCheckEvery), and, while
// it leads, raises the ledger format once every member can apply it and
// appends the checkpoints that the replicas hash (every CheckpointEvery).

// Divergence is what a node learned by comparing checkpoint hashes: at
// Index, the nodes in Diverged hold a ledger that differs from the others'
// (all of them when no majority agrees).
type Divergence struct {
	Index    uint64            `json:"index"`
	Diverged []string          `json:"diverged"`
	Hashes   map[string]string `json:"hashes"` // node id → hash at Index
	Seen     time.Time         `json:"seen"`
}

// String names the nodes in a sentence an engineer on call can act on.
func (d Divergence) String() string {
	return fmt.Sprintf("the ledger of %s differs from its peers' at log index %d: stop that node and rebuild it from its peers (docs/operating.md, Rebuilding a node)",
		strings.Join(d.Diverged, " and "), d.Index)
}

// peerStatuses asks every other server of the configuration for its
// status, concurrently, at most about two seconds. Servers that do not
// answer are left out.
func (n *Node) peerStatuses() []NodeStatus {
	if n.cfg.Status == nil {
		return nil
	}
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	type answer struct {
		st  NodeStatus
		err error
	}
	var servers []raft.Server
	for _, s := range f.Configuration().Servers {
		if string(s.ID) != n.cfg.ID {
			servers = append(servers, s)
		}
	}
	ch := make(chan answer, len(servers))
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	for _, s := range servers {
		go func(s raft.Server) {
			t0 := n.cfg.Now()
			st, err := n.cfg.Status(ctx, s.Address)
			t1 := n.cfg.Now()
			// Clocks are compared against the middle of the round trip.
			st.rtMid = t0.Add(t1.Sub(t0) / 2)
			if err == nil && st.ID != string(s.ID) {
				err = fmt.Errorf("%s answered as %q", s.ID, st.ID)
			}
			ch <- answer{st, err}
		}(s)
	}
	var out []NodeStatus
	for range servers {
		if a := <-ch; a.err == nil {
			out = append(out, a.st)
			if a.st.serial != "" {
				n.serialMu.Lock()
				if n.serials == nil {
					n.serials = map[string]string{}
				}
				n.serials[a.st.ID] = a.st.serial
				n.serialMu.Unlock()
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// watchPeers compares this node with its peers every ClockCheckEvery.
func (n *Node) watchPeers() {
	defer n.wg.Done()
	tick := time.NewTicker(n.cfg.ClockCheckEvery)
	defer tick.Stop()
	for {
		peers := n.peerStatuses()
		n.compareClocks(peers)
		n.compareDigests(peers)
		if n.raft.State() == raft.Leader {
			n.raiseFormat(peers)
			n.seedParams()
			if n.appends(domain.KindNodeMark) {
				n.markPeers(peers)
			}
		}
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
	}
}

// compareClocks distrusts this node's clock while most peers heard from
// lately read a time more than MaxClockSkew away (checkClock refuses
// then). A peer's last reading counts for clockMemory: one status request
// that timed out on a busy machine must not leave a single skewed peer
// outvoting the good clock of this node and its other peer.
func (n *Node) compareClocks(peers []NodeStatus) {
	now := time.Now()
	if n.clockVotes == nil {
		n.clockVotes = map[string]clockVote{}
	}
	for _, st := range peers {
		if st.Clock.IsZero() || st.rtMid.IsZero() {
			continue
		}
		skew := st.Clock.Sub(st.rtMid)
		if skew < 0 {
			skew = -skew
		}
		n.clockVotes[st.ID] = clockVote{skew: skew, at: now}
	}
	msg := clockVerdict(n.clockVotes, now, 3*n.cfg.ClockCheckEvery+statusTimeout, n.cfg.MaxClockSkew)
	if msg != "" {
		n.log.Error("clock disagrees with peers", "why", msg)
	}
	n.clockErr.Store(msg)
}

// statusTimeout bounds one round of status requests to the peers.
const statusTimeout = 2 * time.Second

// A clockVote is how far a peer's clock read from this node's, and when.
type clockVote struct {
	skew time.Duration
	at   time.Time
}

// clockVerdict says why this node's clock is distrusted ("" when it is
// not): most of the peers' readings younger than memory are more than
// maxSkew away. Older readings are forgotten.
func clockVerdict(votes map[string]clockVote, now time.Time, memory, maxSkew time.Duration) string {
	answered, off := 0, 0
	var worst time.Duration
	for id, v := range votes {
		if now.Sub(v.at) > memory {
			delete(votes, id)
			continue
		}
		answered++
		if v.skew > maxSkew {
			off++
			worst = max(worst, v.skew)
		}
	}
	if answered > 0 && off*2 > answered {
		return fmt.Sprintf("This node's clock differs from its peers' by %s.", worst.Round(time.Second))
	}
	return ""
}

// compareDigests compares this node's checkpoint hashes with its peers'
// at the newest index that at least two nodes hashed. A mismatch is kept
// (Divergence) until a later common checkpoint agrees again.
func (n *Node) compareDigests(peers []NodeStatus) {
	byIndex := map[uint64]map[string]string{}
	add := func(id string, ds []Digest) {
		for _, d := range ds {
			if byIndex[d.Index] == nil {
				byIndex[d.Index] = map[string]string{}
			}
			byIndex[d.Index][id] = d.Hash
		}
	}
	add(n.cfg.ID, n.fsm.Digests())
	for _, st := range peers {
		add(st.ID, st.Digests)
	}
	var newest uint64
	for i, hs := range byIndex {
		if len(hs) >= 2 && i > newest {
			newest = i
		}
	}
	if newest == 0 {
		return
	}
	hashes := byIndex[newest]
	count := map[string]int{}
	for _, h := range hashes {
		count[h]++
	}
	if len(count) == 1 {
		if old, _ := n.divergence.Load().(*Divergence); old != nil && old.Index < newest {
			n.log.Info("checkpoint hashes agree again", "index", newest)
			n.divergence.Store((*Divergence)(nil))
		}
		return
	}
	best := 0
	for _, c := range count {
		best = max(best, c)
	}
	winners := 0
	for _, c := range count {
		if c == best {
			winners++
		}
	}
	var diverged []string
	for id, h := range hashes {
		if winners > 1 || count[h] < best {
			diverged = append(diverged, id)
		}
	}
	slices.Sort(diverged)
	d := &Divergence{Index: newest, Diverged: diverged, Hashes: hashes, Seen: n.cfg.Now()}
	if old, _ := n.divergence.Load().(*Divergence); old == nil || old.Index != newest {
		n.log.Error("ledger divergence", "index", newest, "diverged", diverged, "hashes", hashes)
	}
	n.divergence.Store(d)
}

// Divergence returns the latest divergence this node found, or nil.
func (n *Node) Divergence() *Divergence {
	d, _ := n.divergence.Load().(*Divergence)
	return d
}

// raiseFormat proposes a higher ledger format once every server of the
// configuration has said it applies it: this node's build, and each peer's
// status (a peer that does not answer, or a release without formats,
// holds the format where it is).
func (n *Node) raiseFormat(peers []NodeStatus) {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return
	}
	reported := map[string]int{n.cfg.ID: n.cfg.LedgerFormat}
	for _, st := range peers {
		reported[st.ID] = st.Format
	}
	to := domain.LedgerFormat
	for _, s := range f.Configuration().Servers {
		v, ok := reported[string(s.ID)]
		if !ok {
			return
		}
		to = min(to, v)
	}
	if to <= n.fsm.Format() {
		return
	}
	cmd, err := n.internalCommand(domain.KindLedgerFormat)
	if err != nil {
		return
	}
	cmd.Payload = &domain.LedgerFormatChange{To: to}
	if err := n.applyInternal(cmd); err != nil {
		n.log.Warn("raise ledger format", "to", to, "err", err)
		return
	}
	n.log.Info("ledger format raised", "to", to)
}

// markPeers appends, at most every MarkEvery, the marks of the peers that
// answered: each one's receipt sequences and clock (sequence.go). A peer
// that did not answer is not marked: a node cut off keeps its last mark,
// and the commands it takes meanwhile are dated after it.
func (n *Node) markPeers(peers []NodeStatus) {
	if n.fsm.Format() < domain.KindNodeMark.Since() || len(peers) == 0 || time.Since(n.marked) < n.cfg.MarkEvery {
		return
	}
	marks := &domain.NodeMarks{}
	for _, st := range peers {
		if st.ID == n.cfg.ID || st.Clock.IsZero() || st.Answered > st.Issued {
			continue
		}
		marks.Marks = append(marks.Marks, domain.NodeMark{Node: st.ID, Issued: st.Issued, Answered: st.Answered,
			At: domain.DateTimeOf(st.Clock.In(n.cfg.Location))})
	}
	if len(marks.Marks) == 0 {
		return
	}
	cmd, err := n.internalCommand(domain.KindNodeMark)
	if err != nil {
		return
	}
	cmd.Payload = marks
	if err := n.applyInternal(cmd); err != nil {
		n.log.Warn("mark peers", "err", err)
		return
	}
	n.marked = time.Now()
}

// watchCheckpoints appends a checkpoint every CheckpointEvery while this
// node leads and the ledger moved since the last one.
func (n *Node) watchCheckpoints() {
	defer n.wg.Done()
	tick := time.NewTicker(n.cfg.CheckpointEvery)
	defer tick.Stop()
	var last uint64
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		if n.raft.State() != raft.Leader || n.fsm.Format() < domain.KindCheckpoint.Since() || n.fsm.Applied() == last {
			continue
		}
		cmd, err := n.internalCommand(domain.KindCheckpoint)
		if err != nil {
			continue
		}
		cmd.Payload = &domain.Checkpoint{}
		if err := n.applyInternal(cmd); err != nil {
			n.log.Warn("checkpoint", "err", err)
			continue
		}
		last = n.fsm.Applied()
	}
}

// internalCommand makes a command the leader appends on its own: no
// receipt sequence, dated by its clock.
//
// A kind of the clerk's office (the parameters' first resolution) takes a
// receipt sequence like any command the node takes: the ledger holds
// every node to its numbers (sequence.go).
func (n *Node) internalCommand(k domain.Kind) (domain.Command, error) {
	at := domainNow(n)
	if err := n.checkClock(at); err != nil {
		return domain.Command{}, err
	}
	cmd := domain.Command{ID: n.cfg.NewID(), Kind: k, At: at, Node: n.cfg.ID, Actor: "replica"}
	if !n.kinds.Cluster(k) {
		seq, err := n.box.nextSeq(max(n.fsm.MaxSeq(n.cfg.ID), n.fsm.Answered(n.cfg.ID)))
		if err != nil {
			return domain.Command{}, err
		}
		cmd.Seq = seq
	}
	return cmd, nil
}

// appends reports whether the ledger takes the cluster's entries of kind
// k from this node (clusterKindOf): not marks or revocations from the
// kiosk, even while it leads.
func (n *Node) appends(k domain.Kind) bool { return clusterKindOf(n.cfg.Role, k) }

// applyInternal appends cmd to the log on this (leading) node and waits
// for the ledger's answer.
func (n *Node) applyInternal(cmd domain.Command) error {
	data, err := n.encodeEntry(cmd)
	if err != nil {
		return err
	}
	fut := n.raft.Apply(data, 5*time.Second)
	if err := fut.Error(); err != nil {
		return err
	}
	if res, ok := fut.Response().(domain.Result); ok && res.Error != nil {
		return res.Error
	}
	return nil
}

// Problems lists what is wrong with this node's ledger or what it knows
// is wrong with a peer's, in sentences: a halted apply, a divergence, an
// untrusted clock, log entries lost from its raft log and not yet caught
// up. Empty means healthy.
func (n *Node) Problems() []string {
	var out []string
	if lost, ok := n.logs.Lost(); ok {
		out = append(out, lost.String())
	}
	if err := n.fsm.Halted(); err != nil {
		out = append(out, err.Error())
	}
	if d := n.Divergence(); d != nil {
		out = append(out, d.String())
	}
	return out
}
