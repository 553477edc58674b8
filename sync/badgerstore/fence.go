package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrVoteWithheld is wrapped by the error Set and SetUint64 return for
// raft's vote keys while the store's log is shorter than what it had synced
// (Store.Lost).
var ErrVoteWithheld = errors.New("vote withheld: the raft log lost entries it had synced")

// LostRange is the log entries a store had synced (StoreLogs had returned,
// so raft may have acknowledged them to its leader, which may have counted
// them towards a commit) and no longer held when it was opened.
type LostRange struct {
	Dir      string // the store's folder
	From, To uint64 // the lost entries, both included
}

// String says what was lost, what the node does about it, and what the
// operator can do.
func (r LostRange) String() string {
	return fmt.Sprintf("this node's raft log (%s) lost log entries %d to %d (%d), which it had written and synced: "+
		"a cut or damaged write-ahead log (.mem) after a crash or a failing disk. "+
		"It takes no part in elections until it holds entry %d again, copied from the leader; it catches up by itself while the cluster has a leader. "+
		"If it does not, or no other node holds these entries, rebuild it from its peers (docs/operating.md, Rebuilding a node) "+
		"or restore the newest backup (docs/backups.md, Restoring with the key)",
		r.Dir, r.From, r.To, r.To-r.From+1, r.To)
}

// The keys under which raft keeps its vote (hashicorp/raft v1.8.0, raft.go:
// keyLastVoteTerm, keyLastVoteCand). Raft writes both, in persistVote,
// before it grants a vote to a candidate and before it counts its own vote
// as a candidate, and it grants or counts nothing when the write fails.
var (
	keyLastVoteTerm = []byte("LastVoteTerm")
	keyLastVoteCand = []byte("LastVoteCand")
)

// How a store with a short log is kept out of elections.
//
// A node whose log lost entries it had acknowledged must not vote until it
// has them back: the leader may have counted its acknowledgement towards a
// commit, and with its log short it would grant its vote to a candidate
// that lacks committed entries, or win an election itself without them;
// either way the new leader overwrites committed payments on the others.
// (Raft's safety assumes stable storage; TigerBeetle's storage-fault model
// states the rule: a replica that lost data it acknowledged does not vote
// until repaired.)
//
// hashicorp/raft offers three ways, of which this store takes the last:
//
//   - Demoting the node to a non-voter is a membership change only the
//     leader can make, and it commits a new configuration through the
//     cluster; the node would vote in any election held before the leader
//     acts, or when there is no leader. It also changes the quorum.
//   - Raising the node's election timeouts (Raft.ReloadConfig) stops it
//     from standing but not from granting votes, and a leadership transfer
//     (TimeoutNow) makes it stand at once.
//   - The stable store refuses to record a vote. Raft persists a vote
//     before it grants it (requestVote) and before it counts its own
//     (electSelf), and does neither when that write fails: the node
//     cannot help elect anyone, itself included, from the moment raft
//     starts, whatever the leader does. A candidate needs a majority of
//     votes from nodes other than this one, and any such majority holds a
//     node that kept every committed entry (unless a second node lost
//     entries too, which its own store then reports in the same way).
//
// The last is local, in force before raft reads anything, and costs the
// cluster nothing but this node's vote. Raft logs the refusal as "failed to
// persist vote" with ErrVoteWithheld's text. Everything else goes on: the
// node follows the leader, stores and applies entries, and is counted
// towards commits again once it holds them. A vote it recorded before the
// loss, for the same term and candidate, raft may repeat without writing
// it: repeating a vote already given is safe.
//
// The refusal ends once the log holds the lost range's last index again,
// stored by StoreLogs: raft stores entries only from a leader, whose log
// holds every committed entry, so the node's log then holds all those it
// had acknowledged. Until then the store keeps its record of the synced
// index at least at that index, so that a restart before catching up keeps
// the refusal. A snapshot installed past the index ends it with the next
// entry stored.

// Lost returns the entries the log had synced and lacked when the store
// was opened, while it has not caught up past them; ok is false when
// nothing was lost or the log holds them again.
func (s *Store) Lost() (r LostRange, ok bool) {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return s.lost, s.fenced
}

// CaughtUp returns a channel closed once the store votes: at once if its
// log lost nothing, else when Lost ends.
func (s *Store) CaughtUp() <-chan struct{} { return s.caughtUp }

// withholdVote returns the error Set returns for key, or nil if the write
// may go ahead.
func (s *Store) withholdVote(key []byte) error {
	if !bytes.Equal(key, keyLastVoteTerm) && !bytes.Equal(key, keyLastVoteCand) {
		return nil
	}
	r, fenced := s.Lost()
	if !fenced {
		return nil
	}
	return fmt.Errorf("%w: the raft log (%s) lacks entries %d to %d, which it had synced; it votes again once it holds entry %d",
		ErrVoteWithheld, r.Dir, r.From, r.To, r.To)
}

// AcceptLoss ends the refusal of votes without the lost entries, and
// records the log's last index as synced, so that the next open reports
// nothing. It is for an operator's recovery that makes this node's log the
// cluster's (replica.Recover, when the nodes that held the entries are
// gone for good): the entries are then lost to the cluster, as the
// operator accepted. It returns the range that was lost, if any.
func (s *Store) AcceptLoss() (LostRange, bool, error) {
	e, err := s.edgesNow()
	if err != nil {
		return LostRange{}, false, err
	}
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if !s.fenced {
		return LostRange{}, false, nil
	}
	if s.rec != nil {
		if err := s.rec.write(e.last); err != nil {
			return LostRange{}, false, err
		}
	}
	s.fenced = false
	close(s.caughtUp)
	return s.lost, true, nil
}
