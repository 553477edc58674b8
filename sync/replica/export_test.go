package replica

import (
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// SignEntry makes the log entry of cmd as node id would sign it, for the
// tests that play a forger holding one node's key.
func SignEntry(id *pki.Identity, cmd domain.Command, staffRole string, withCert bool) ([]byte, error) {
	data, err := domain.EncodeCommand(cmd)
	if err != nil {
		return nil, err
	}
	return sealEntry(id, data, staffRole, withCert)
}

// SealRaw signs raw bytes as if they were a command.
func SealRaw(id *pki.Identity, raw []byte) ([]byte, error) { return sealEntry(id, raw, "", true) }

// Queued reports whether the node's outbox holds the command with
// receipt sequence seq, and in which state.
func (n *Node) Queued(seq uint64) (state string, ok bool) {
	e, ok, err := n.box.get(seq)
	if err != nil || !ok {
		return "", false
	}
	return e.State, true
}

// SignGroup makes a group entry of cmds, each taken under roles[i], as
// node id would sign it.
func SignGroup(id *pki.Identity, cmds []domain.Command, roles []string, withCert bool) ([]byte, error) {
	var data [][]byte
	for _, cmd := range cmds {
		d, err := domain.EncodeCommand(cmd)
		if err != nil {
			return nil, err
		}
		data = append(data, d)
	}
	return sealGroup(id, data, roles, withCert)
}

// GroupEntries counts the group entries in the node's raft log and the
// commands they hold.
func (n *Node) GroupEntries() (entries, commands int, err error) {
	first, err := n.logs.FirstIndex()
	if err != nil {
		return 0, 0, err
	}
	last, err := n.logs.LastIndex()
	if err != nil {
		return 0, 0, err
	}
	for i := first; i <= last && i > 0; i++ {
		var l raft.Log
		if err := n.logs.GetLog(i, &l); err != nil {
			return 0, 0, err
		}
		if g, err := parseGroup(l.Data); err == nil {
			entries++
			commands += len(g.commands)
		}
	}
	return entries, commands, nil
}

// GroupCounts returns the group entries the FSM applied since it opened
// and the commands they held, as its metrics count them.
func (f *FSM) GroupCounts() (groups, commands uint64) {
	c := f.stats.read()
	return c.groups, c.grouped
}

// RaftLog returns the log raft keeps on n.
func (n *Node) RaftLog() raft.LogStore { return n.raftLog }

// MembershipAllowed reports why n would refuse a change of membership.
func MembershipAllowed(n *Node) error { return n.mayChangeMembership() }
