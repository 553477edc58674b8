package replica

import (
	"errors"
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/wsstream"
)

// What a node takes from a leader it cannot check.
//
// Raft follows whichever voter claims the highest term: a follower takes
// AppendEntries and InstallSnapshot from it as from a leader, with no
// election seen. The FSM checks each command entry's signature and its
// signer's role, so no leader can invent a command. Two things a leader
// sends carry no signature, and raft acts on them before the FSM sees
// anything:
//
//   - a configuration entry (who the voters are), which raft takes as its
//     membership as soon as it is stored; and
//   - a snapshot, which replaces the node's whole ledger.
//
// So a node does not take them from a kiosk, whose public hallway the
// village trusts least: from a node whose certificate states the kiosk's
// role, an AppendEntries carrying a configuration entry and every
// InstallSnapshot are refused at the transport (wsstream.Guard), before
// raft reads them. A certificate from before roles states none: the
// ledger gives it a kiosk's rights over commands, but these checks pass
// it, so that a village that has not reissued its certificates keeps a
// working cluster (docs/security.md says to reissue them).
//
// Nor does a node follow a kiosk it did not elect. Raft takes a higher
// term in an AppendEntries as proof that its sender won an election; from
// a kiosk, a node takes AppendEntries only in a term in which it voted for
// that kiosk (its vote as raft recorded it, for the kiosk's address in the
// configuration), and refuses the kiosk's RequestVote marked as a
// leadership transfer, which raft grants past a live leader. So a stolen
// kiosk cannot take leadership from a cluster whose leader answers; it
// can win an election only when the nodes lost their leader and its log
// is the most complete, which is why it may stand at all: with the
// clerk's node down and the backup lacking entries the kiosk holds, only
// the kiosk can bring the backup up to date. As leader it can order and
// delay the commands it holds (as any leader can), but not change who is
// in the cluster nor replace a node's ledger, and a node that did not
// vote for it waits. A kiosk that leads hands leadership to the clerk's
// node, or the backup, as soon as one is caught up (placeLeader);
// meanwhile a node that needs a snapshot, or a configuration entry the
// kiosk has and it lacks, waits for that hand-over.
//
// And no node replaces an entry it has applied: raft drops the end of a
// follower's log where a leader's entries conflict with it, which a
// leader elected by the rules never asks below its commit index. An
// AppendEntries that would do so is refused whoever sends it; without the
// check the log would no longer hold what the ledger applied.
func (n *Node) guardRaft(peer wsstream.Peer, req any) error {
	switch r := req.(type) {
	case *raft.InstallSnapshotRequest:
		if kioskPeer(peer) {
			return fmt.Errorf("%w: a %s node's snapshot would replace this node's ledger unchecked; it waits for a snapshot from the clerk's node or the backup",
				errUntrustedLeader, peer.Role)
		}
	case *raft.RequestVoteRequest:
		if kioskPeer(peer) && r.LeadershipTransfer {
			return fmt.Errorf("%w: leadership is not handed to a %s node; it stands only when the nodes lost their leader",
				errUntrustedLeader, peer.Role)
		}
	case *raft.AppendEntriesRequest:
		if kioskPeer(peer) {
			if err := n.electedKiosk(peer, r.Term); err != nil {
				return err
			}
			for _, e := range r.Entries {
				if changesMembership(e.Type) {
					return fmt.Errorf("%w: entry %d is a change of the cluster's membership, which a %s node may not send; it waits for the clerk's node or the backup to lead",
						errUntrustedLeader, e.Index, peer.Role)
				}
			}
		}
		return n.checkNoRewrite(r.Entries)
	}
	return nil
}

// The keys under which raft keeps this node's latest vote (hashicorp/raft
// v1.8, raft.go: persistVote): its term, and the candidate's address.
var (
	keyLastVoteTerm = []byte("LastVoteTerm")
	keyLastVoteCand = []byte("LastVoteCand")
)

// electedKiosk refuses AppendEntries from peer, a kiosk, unless this node
// voted for it in term.
func (n *Node) electedKiosk(peer wsstream.Peer, term uint64) error {
	refuse := func(why string) error {
		return fmt.Errorf("%w: this node did not elect %s leader of term %d (%s); it follows a %s node only as the leader it voted for",
			errUntrustedLeader, peer.ID, term, why, peer.Role)
	}
	voted, err := n.raftStable.GetUint64(keyLastVoteTerm)
	if err != nil || voted != term {
		return refuse("its latest vote is in another term")
	}
	cand, err := n.raftStable.Get(keyLastVoteCand)
	if err != nil {
		return refuse("its vote cannot be read")
	}
	addr, err := n.serverAddress(peer.ID)
	if err != nil || string(cand) != string(addr) {
		return refuse("it voted for another node")
	}
	return nil
}

// errUntrustedLeader is wrapped by what guardRaft refuses from a node
// whose role may not send it.
var errUntrustedLeader = errors.New("not taken from this node's role")

// kioskPeer reports whether peer's certificate states the kiosk's role.
func kioskPeer(peer wsstream.Peer) bool { return domain.NodeRole(peer.Role) == domain.NodeKiosk }

// changesMembership reports whether an entry of type t changes raft's
// configuration: a configuration entry, or one of the peer entries of
// raft's older protocol, which raft still acts on.
func changesMembership(t raft.LogType) bool {
	return t == raft.LogConfiguration || t == raft.LogAddPeerDeprecated || t == raft.LogRemovePeerDeprecated
}

// checkNoRewrite refuses entries that would replace one this node has
// applied: an entry at an applied index whose term differs from the one
// the log holds there. Entries the log no longer holds (compacted into a
// snapshot) are raft's to refuse.
func (n *Node) checkNoRewrite(entries []*raft.Log) error {
	if len(entries) == 0 || n.raftLog == nil {
		return nil
	}
	applied := n.fsm.Applied()
	for _, e := range entries {
		if e.Index > applied {
			break
		}
		var held raft.Log
		if err := n.raftLog.GetLog(e.Index, &held); err != nil {
			continue
		}
		if held.Term != e.Term {
			return fmt.Errorf("entry %d of term %d would replace this node's entry of term %d, which its ledger has applied (up to %d): no leader elected by raft's rules sends that",
				e.Index, e.Term, held.Term, applied)
		}
	}
	return nil
}
