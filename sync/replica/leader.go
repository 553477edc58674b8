package replica

import (
	"time"

	"github.com/hashicorp/raft"
)

// Following the leader. Raft tells every node when the leader it knows
// changes (a LeaderObservation: a new leader, or none while an election
// runs). The forwarder gives up on a forward to the old leader at that
// moment and sends the same commands to the new one (forwardBatch): a
// leader that stopped answering without closing its connections (a
// frozen process, a wedged SD card) otherwise holds every payment taken
// on the other nodes until the forward times out, long after the others
// elected a new leader. Sending a command again is safe: it keeps its id,
// and the ledger applies an id at most once, answering a second delivery
// with the first one's result (FSM).

// raftTiming is the part of the raft configuration the node's own
// timeouts are made from.
type raftTiming struct {
	heartbeat, election time.Duration
}

func timingOf(rc *raft.Config) raftTiming {
	return raftTiming{heartbeat: rc.HeartbeatTimeout, election: rc.ElectionTimeout}
}

// forwardTimeout bounds one forward to the leader: six election timeouts
// (3 s with RaftConfig). It is the backstop for a leader that stops
// answering while this node still counts it the leader; a change of
// leader ends a forward sooner. A forward to a healthy leader takes one
// commit (a few disk syncs), well inside it even on a slow SD card.
func (t raftTiming) forwardTimeout() time.Duration { return 6 * t.election }

// leaderless is how long a node may know no leader before /healthz says
// so: longer than raft takes to find one whenever a quorum answers. A
// node that starts, or whose leader fell silent, waits between one and
// two heartbeat timeouts before it calls an election, and an election
// waits between one and two election timeouts for its votes: two of each
// (2 s with RaftConfig) cover both, so a node that knows no leader for
// longer cannot reach a quorum that would elect one.
func (t raftTiming) leaderless() time.Duration { return 2 * (t.heartbeat + t.election) }

// watchLeader records every change of leader raft reports (observed) and
// wakes those waiting for one: it closes leaderChange and wakes the
// forwarder, which sends what it holds to the new leader at once.
func (n *Node) watchLeader(observed chan raft.Observation, observer *raft.Observer) {
	defer n.wg.Done()
	defer n.raft.DeregisterObserver(observer)
	for {
		select {
		case <-n.done:
			return
		case o := <-observed:
			lo, ok := o.Data.(raft.LeaderObservation)
			if !ok {
				continue
			}
			n.leaderMu.Lock()
			close(n.leaderChange)
			n.leaderChange = make(chan struct{})
			switch {
			case lo.LeaderID == "" && n.leaderLost.IsZero():
				n.leaderLost = time.Now()
			case lo.LeaderID != "":
				n.leaderLost = time.Time{}
			}
			n.leaderMu.Unlock()
			n.kick()
		}
	}
}

// leaderChanged returns a channel closed at the next change of leader.
func (n *Node) leaderChanged() <-chan struct{} {
	n.leaderMu.Lock()
	defer n.leaderMu.Unlock()
	return n.leaderChange
}

// leaderlessFor returns how long this node has known no leader (zero
// while it knows one).
func (n *Node) leaderlessFor() time.Duration {
	if _, id := n.raft.LeaderWithID(); id != "" {
		return 0
	}
	n.leaderMu.Lock()
	lost := n.leaderLost
	n.leaderMu.Unlock()
	if lost.IsZero() {
		// Raft cleared its leader a moment before it reported it.
		return 0
	}
	return time.Since(lost)
}
