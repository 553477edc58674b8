package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// Group entries. A leading node that takes many payments at once (the card
// processor's API, several windows) signs them together: one log entry
// holds up to groupMax of its own commands under one signature, where each
// would otherwise be an entry of its own, signed and verified on every
// replica. The ECDSA signature and its verification on each follower were
// the largest part of applying a payment that was not the payment itself,
// and raft's own cost per entry is paid once for the group.
//
// A group is what a signed entry is, for several commands: the signer's
// certificate, the cluster's CA and id and every command with the staff
// role it was taken under are in what is signed (groupDigest). Every
// replica checks, from ledger format domain.GroupFormat on:
//
//   - the signature, once, as for a signed entry (signed.go);
//   - for each command, what it checks of a signed entry's command: it
//     names the signer's node, the node's role may take its kind, the
//     staff role may issue it, its receipt sequence keeps the node's
//     rules; and its kind is one a group may hold (groupable): the kinds
//     that take money, which are where a village's volume is. A command
//     that fails is journaled as refused alone; the others apply.
//
// The commands apply in their order in the entry, each with its own
// journal link, command record and result; they share the entry's log
// index. When the state store's transaction fills part-way through a
// group, what was applied commits with a node-local mark of the next
// command (keyGroupNext), and a node that restarts there goes on from the
// mark, so that no command of a group is applied or journaled twice.
//
// The envelope, after its magic:
//
//	uvarint count of commands (1 to groupMax)
//	for each: uvarint length, command (domain.EncodeCommand);
//	          uvarint length, the staff role it was taken under
//	uvarint length, SHA-256 of the signer's certificate
//	uvarint length, the certificate (empty once the ledger holds it)
//	uvarint length, ECDSA signature of groupDigest

// groupMagic begins a group entry; like entryMagic its first byte is no
// command version.
var groupMagic = []byte{0xA5, 'V', 'H', 2}

// groupMax is the most commands one group holds; groupCommandMax the
// largest command the leader puts in a group (a larger one goes alone).
// A group's entry stays far under what raft sends in one message.
const (
	groupMax        = 32
	groupCommandMax = 8 << 10
)

// groupsInFlight is how many groups the leader has in raft at once: a
// command that arrives while they are waits for one to be applied and
// goes with those that arrived with it.
const groupsInFlight = 2

// keyGroupNext is the node-local mark of a group applied in part: the
// group's log index (8 bytes) and the position of its next command (4).
var keyGroupNext = []byte("\x00gn")

// isGroup reports whether data is a group entry.
func isGroup(data []byte) bool { return bytes.HasPrefix(data, groupMagic) }

// groupEnvelope is a group entry, parsed.
type groupEnvelope struct {
	commands [][]byte
	roles    []string
	keySum   [32]byte
	cert     []byte
	sig      []byte
}

// parseGroup reads a group entry. It never panics, whatever data holds
// (FuzzParseGroup).
func parseGroup(data []byte) (groupEnvelope, error) {
	var g groupEnvelope
	if !isGroup(data) {
		return g, errors.New("not a group entry")
	}
	rest := data[len(groupMagic):]
	field := func(what string) ([]byte, error) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, fmt.Errorf("the group's %s is cut short", what)
		}
		f := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return f, nil
	}
	count, k := binary.Uvarint(rest)
	if k <= 0 || count == 0 || count > groupMax {
		return g, errors.New("the group's count of commands is not one it may hold")
	}
	rest = rest[k:]
	for i := range int(count) {
		cmd, err := field(fmt.Sprintf("command %d", i+1))
		if err != nil {
			return g, err
		}
		role, err := field(fmt.Sprintf("role of command %d", i+1))
		if err != nil {
			return g, err
		}
		if len(cmd) == 0 || len(role) > 64 {
			return g, fmt.Errorf("command %d of the group is malformed", i+1)
		}
		g.commands = append(g.commands, cmd)
		g.roles = append(g.roles, string(role))
	}
	sum, err := field("certificate's hash")
	if err != nil {
		return g, err
	}
	if g.cert, err = field("certificate"); err != nil {
		return g, err
	}
	if g.sig, err = field("signature"); err != nil {
		return g, err
	}
	if len(rest) != 0 {
		return g, errors.New("trailing bytes after the group's signature")
	}
	if len(sum) != sha256.Size || len(g.sig) == 0 {
		return g, errors.New("malformed group entry")
	}
	copy(g.keySum[:], sum)
	return g, nil
}

// groupDigest is what a node signs for a group: as entryDigest, with every
// command and its role, and the count, so that no command can be added,
// dropped, reordered or moved to another role.
func groupDigest(caSum [32]byte, cluster string, commands [][]byte, roles []string, keySum [32]byte) []byte {
	h := sha256.New()
	h.Write([]byte("village ledger group v1\x00"))
	h.Write(caSum[:])
	var n [8]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	put([]byte(cluster))
	binary.BigEndian.PutUint64(n[:], uint64(len(commands)))
	h.Write(n[:])
	for i := range commands {
		put(commands[i])
		put([]byte(roles[i]))
	}
	h.Write(keySum[:])
	return h.Sum(nil)
}

// sealGroup signs commands (encoded), each taken under roles[i], as id,
// carrying the certificate when withCert is set.
func sealGroup(id *pki.Identity, commands [][]byte, roles []string, withCert bool) ([]byte, error) {
	if len(commands) == 0 || len(commands) > groupMax || len(roles) != len(commands) {
		return nil, fmt.Errorf("a group holds 1 to %d commands, each with its role", groupMax)
	}
	cert := id.Certificate()
	keySum := sha256.Sum256(cert.Raw)
	sig, err := id.Sign(groupDigest(sha256.Sum256(id.CACertificate().Raw), id.Cluster().ID, commands, roles, keySum))
	if err != nil {
		return nil, err
	}
	var certField []byte
	if withCert {
		certField = cert.Raw
	}
	return encodeGroup(commands, roles, keySum, certField, sig), nil
}

// encodeGroup lays out a group entry.
func encodeGroup(commands [][]byte, roles []string, keySum [32]byte, cert, sig []byte) []byte {
	size := len(groupMagic) + len(cert) + len(sig) + 64
	for i := range commands {
		size += len(commands[i]) + len(roles[i]) + 8
	}
	out := make([]byte, 0, size)
	out = append(out, groupMagic...)
	out = binary.AppendUvarint(out, uint64(len(commands)))
	for i := range commands {
		out = binary.AppendUvarint(out, uint64(len(commands[i])))
		out = append(out, commands[i]...)
		out = binary.AppendUvarint(out, uint64(len(roles[i])))
		out = append(out, roles[i]...)
	}
	for _, f := range [][]byte{keySum[:], cert, sig} {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return out
}

// groupable reports whether a group may hold a command of kind k: a kind
// that takes money (it has a provisional receipt), never one of the
// cluster's own.
func groupable(kinds domain.Table, k domain.Kind) bool {
	d, ok := kinds.Lookup(k)
	return ok && !d.Cluster && d.Receipt != nil
}

// groupMember is one command of a group, opened: err, when set, is why
// the ledger refuses it alone (an *unsigned).
type groupMember struct {
	op   opened
	size int
	err  *unsigned
}

// openGroup checks a group entry and decodes its commands. The error is an
// *unsigned (refuse the whole entry) or a *halting (stop applying).
func (f *FSM) openGroup(data []byte) ([]groupMember, error) {
	g, err := parseGroup(data)
	if err != nil {
		return nil, &unsigned{err.Error()}
	}
	if f.ca == nil {
		// A ledger opened without certificates (the rules' tests) reads
		// the commands unchecked, as it reads a signed entry.
		var out []groupMember
		for _, c := range g.commands {
			cmd, err := f.kinds.Decode(c)
			if err != nil {
				return nil, fmt.Errorf("the entry cannot be decoded by this build (ledger format %d): %w", domain.LedgerFormat, err)
			}
			out = append(out, groupMember{op: opened{cmd: cmd}, size: len(c)})
		}
		return out, nil
	}
	if f.Format() < domain.GroupFormat {
		return nil, &unsigned{fmt.Sprintf("group entries are taken from ledger format %d (the ledger is at %d)", domain.GroupFormat, f.Format())}
	}
	k, newKey, why := f.signer(g.keySum, g.cert)
	if why != nil {
		return nil, why
	}
	if !f.checked.take(data) && !pki.CheckSignature(k.cert, groupDigest(f.caSum, f.cluster, g.commands, g.roles, g.keySum), g.sig) {
		return nil, &unsigned{fmt.Sprintf("its signature is not %s's", k.Node)}
	}
	if err := f.CheckCertificate(k.cert); err != nil {
		return nil, &unsigned{err.Error()}
	}
	role := domain.NodeRole(k.Role)
	out := make([]groupMember, len(g.commands))
	for i, c := range g.commands {
		m := &out[i]
		m.size = len(c)
		m.op = opened{role: role, staff: g.roles[i], keySum: g.keySum}
		cmd, err := f.kinds.Decode(c)
		if err != nil {
			if role == domain.NodeKiosk {
				return nil, &unsigned{fmt.Sprintf("the kiosk %s signed an entry this ledger cannot read: %v", k.Node, err)}
			}
			return nil, &halting{fmt.Errorf("the entry cannot be decoded by this build (ledger format %d): %w", domain.LedgerFormat, err)}
		}
		m.op.cmd = cmd
		switch {
		case cmd.Node != k.Node:
			m.err = &unsigned{fmt.Sprintf("it is signed by %s for a command taken on %s", k.Node, cmd.Node)}
		case !groupable(f.kinds, cmd.Kind):
			m.err = &unsigned{fmt.Sprintf("a group entry may not hold %s commands", cmd.Kind)}
		default:
			if err := f.mayTake(m.op, cmd); err != nil {
				m.err = &unsigned{err.Error()}
			}
		}
	}
	// A certificate the ledger does not hold yet is recorded with the
	// first command that applies.
	for i := range out {
		if out[i].err == nil {
			out[i].op.newKey = newKey
			break
		}
	}
	return out, nil
}

// groupResults is the FSM's response to a group entry: each command's
// result, in the group's order.
type groupResults []domain.Result

// applyGroup applies the commands of group entry l in b (ApplyBatch). It
// returns the entry's response (groupResults, or one domain.Result that
// answers for all of them when the ledger halts) and whether the entry
// counts as applied.
func (f *FSM) applyGroup(b *batch, l *raft.Log) (any, bool) {
	members, err := f.openGroup(l.Data)
	var nu *unsigned
	var h *halting
	switch {
	case errors.As(err, &nu):
		res, writes := f.refuseEntry(l.Index, domain.Command{}, nu)
		writes = f.indexJournal(b.txn, res, f.indexJournalTally(b.txn, res, writes))
		b.add(append(writes, kv{keyApplied, uint64Bytes(l.Index)}, kv{keyJournal, append(uint64Bytes(f.jseq), f.head...)}))
		return res, true
	case errors.As(err, &h):
		err = h.err
		fallthrough
	case err != nil:
		halt := &HaltError{Index: l.Index, Reason: err.Error()}
		f.halt.Store(halt)
		f.log.Error("halting: a committed log entry cannot be applied", "index", l.Index, "err", err)
		return domain.Result{Index: l.Index, Error: domain.Errorf(domain.EUNAVAILABLE, "", "%s", halt.Error())}, false
	}
	f.stats.group(len(members))
	out := make(groupResults, len(members))
	from := f.groupResumes(b, l.Index)
	if from >= len(members) {
		from = 0 // no mark of this node's would say so: start over, the dedupe holds
	}
	for i := range from {
		out[i] = f.recordedResult(b, l.Index, members[i].op.cmd)
	}
	for i := from; i < len(members); i++ {
		m := members[i]
		var res domain.Result
		var writes []kv
		if m.err != nil {
			res, writes = f.refuseEntry(l.Index, m.op.cmd, m.err)
			writes = f.indexJournal(b.txn, res, f.indexJournalTally(b.txn, res, writes))
		} else {
			res, writes = f.applyOne(b, l.Index, m.op, m.size)
			writes = f.indexJournal(b.txn, res, f.indexJournalTally(b.txn, res, writes))
			f.stats.command(m.op.cmd, res)
		}
		out[i] = res
		if i == len(members)-1 {
			writes = append(writes, kv{keyApplied, uint64Bytes(l.Index)})
		} else {
			next := binary.BigEndian.AppendUint32(uint64Bytes(l.Index), uint32(i+1))
			writes = append(writes, kv{keyGroupNext, next})
		}
		writes = append(writes, kv{keyJournal, append(uint64Bytes(f.jseq), f.head...)})
		f.addIndexed(b, writes)
	}
	return out, true
}

// groupResumes returns the position of the first command of the group at
// index that this ledger has not applied: 0, unless the node stopped
// part-way through it (keyGroupNext).
func (f *FSM) groupResumes(b *batch, index uint64) int {
	raw, ok, err := txnRead(b.txn)(keyGroupNext)
	if err != nil {
		panic(fmt.Sprintf("replica: read the mark of a group applied in part: %v", err))
	}
	if !ok || len(raw) != 12 || binary.BigEndian.Uint64(raw[:8]) != index {
		return 0
	}
	return int(binary.BigEndian.Uint32(raw[8:]))
}

// recordedResult answers for a command applied before the node stopped:
// its command record's result.
func (f *FSM) recordedResult(b *batch, index uint64, cmd domain.Command) domain.Result {
	if cmd.ID != "" {
		if rec, ok, err := getJSON[commandRecord](b.txn, key(prefixCommand, cmd.ID)); err == nil && ok {
			return rec.Result
		}
	}
	return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index}
}

// replayedGroup answers for a group entry at or below the applied index:
// each command's stored result.
func (f *FSM) replayedGroup(b *batch, l *raft.Log) any {
	g, err := parseGroup(l.Data)
	if err != nil {
		return domain.Result{Index: l.Index, Error: domain.Errorf(domain.EINVALID, "", "undecodable group entry")}
	}
	out := make(groupResults, len(g.commands))
	for i, c := range g.commands {
		cmd, _ := f.kinds.Decode(c)
		out[i] = f.recordedResult(b, l.Index, cmd)
	}
	return out
}

// groupCommands returns the commands of a group entry whose signature
// checks out, for recoverProposals, which reads the node's own raft log:
// a stolen key may have put entries there, and what the node queues it
// signs again as its own.
func (n *Node) groupCommands(data []byte) []domain.Command {
	members, err := n.fsm.openGroup(data)
	if err != nil {
		return nil
	}
	var out []domain.Command
	for _, m := range members {
		if m.err == nil {
			out = append(out, m.op.cmd)
		}
	}
	return out
}

// A proposal is a command the leader takes into a group, and where its
// answer goes.
type proposal struct {
	cmd  domain.Command
	data []byte // domain.EncodeCommand
	role string
	done chan proposed
}

type proposed struct {
	res domain.Result
	err error
}

// groupsOn reports whether this node proposes its commands in groups now,
// and a command of kind k among them: the ledger is at the group format
// and the node signs.
func (n *Node) groupsOn(k domain.Kind) bool {
	return n.cfg.Identity != nil && n.fsm.Format() >= domain.GroupFormat && groupable(n.kinds, k)
}

// propose hands cmd to the group proposer and returns where its answer
// comes, or nil when cmd goes alone: it is too large for a group, or the
// proposer's queue is full.
func (n *Node) propose(cmd domain.Command) chan proposed {
	data, err := domain.EncodeCommand(cmd)
	if err != nil || len(data) > groupCommandMax {
		return nil
	}
	p := &proposal{cmd: cmd, data: data, role: n.staffRole(cmd), done: make(chan proposed, 1)}
	select {
	case <-n.done:
		return nil
	default:
	}
	select {
	case n.proposals <- p:
		return p.done
	default:
		// As many wait already as the proposer holds: this one goes
		// alone rather than wait for room.
		return nil
	}
}

// proposeGroups runs on every node: it takes the proposals submitDirect
// hands it and appends them to the log, together those that wait while
// groupsInFlight groups are in raft, alone one that finds raft idle.
func (n *Node) proposeGroups() {
	defer n.wg.Done()
	slots := make(chan struct{}, groupsInFlight)
	for {
		var first *proposal
		select {
		case first = <-n.proposals:
		case <-n.done:
			n.refuseProposals(nil)
			return
		}
		select {
		case slots <- struct{}{}:
		case <-n.done:
			n.refuseProposals(first)
			return
		}
		group := []*proposal{first}
	more:
		for len(group) < groupMax {
			select {
			case p := <-n.proposals:
				group = append(group, p)
			default:
				break more
			}
		}
		f, err := n.appendGroup(group)
		if err != nil {
			<-slots
			for _, p := range group {
				p.done <- proposed{err: err}
			}
			continue
		}
		go func() {
			defer func() { <-slots }()
			n.answerGroup(group, f)
		}()
	}
}

// refuseProposals answers first (if set) and every proposal still queued
// when the node closes: the caller's command goes to the outbox.
func (n *Node) refuseProposals(first *proposal) {
	if first != nil {
		first.done <- proposed{err: raft.ErrRaftShutdown}
	}
	for {
		select {
		case p := <-n.proposals:
			p.done <- proposed{err: raft.ErrRaftShutdown}
		default:
			return
		}
	}
}

// appendGroup signs the commands of group (one alone as a signed entry,
// several as a group entry) and gives the entry to raft.
func (n *Node) appendGroup(group []*proposal) (raft.ApplyFuture, error) {
	withCert := !n.fsm.knowsKey(sha256.Sum256(n.cfg.Identity.Certificate().Raw))
	var data []byte
	var err error
	if len(group) == 1 {
		data, err = sealEntry(n.cfg.Identity, group[0].data, group[0].role, withCert)
	} else {
		commands, roles := make([][]byte, len(group)), make([]string, len(group))
		for i, p := range group {
			commands[i], roles[i] = p.data, p.role
		}
		data, err = sealGroup(n.cfg.Identity, commands, roles, withCert)
	}
	if err != nil {
		return nil, err
	}
	n.fsm.checked.add(data)
	return n.raft.Apply(data, 5*time.Second), nil
}

// answerGroup waits for the ledger's answer to a group's entry and gives
// each command its result.
func (n *Node) answerGroup(group []*proposal, f raft.ApplyFuture) {
	if err := f.Error(); err != nil {
		for _, p := range group {
			p.done <- proposed{err: err}
		}
		return
	}
	switch resp := f.Response().(type) {
	case groupResults:
		for i, p := range group {
			if i >= len(resp) {
				p.done <- proposed{err: errors.New("the ledger answered fewer commands than the group held")}
				continue
			}
			p.done <- answerOf(resp[i])
		}
	case domain.Result:
		// One answer for the entry: a single command's, or the whole
		// group's (the ledger halted, or is closing).
		for _, p := range group {
			res := resp
			if len(group) > 1 || res.CommandID == "" {
				res.CommandID, res.Kind = p.cmd.ID, p.cmd.Kind
			}
			p.done <- answerOf(res)
		}
	default:
		for _, p := range group {
			p.done <- proposed{err: fmt.Errorf("the ledger answered %T", resp)}
		}
	}
}

// answerOf is a command's answer from the ledger's result, as answers
// reads one: a closing ledger applies it after the restart.
func answerOf(res domain.Result) proposed {
	if res.Error == errClosing {
		return proposed{err: errClosing}
	}
	return proposed{res: res}
}
