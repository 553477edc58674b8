package badgerstore

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// cutLog deletes the log entries from lo to hi from the store in dir as a
// cut write-ahead log loses them: straight from Badger, leaving the
// store's record of what it synced as it was.
func cutLog(t testing.TB, dir string, lo, hi uint64) {
	t.Helper()
	db := openDB(t, dir)
	defer closeDB(t, db)
	err := db.Update(func(txn *badger.Txn) error {
		for i := lo; i <= hi; i++ {
			if err := txn.Delete(logKey(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkLost(t *testing.T, s *Store, want LostRange, fenced bool) {
	t.Helper()
	got, ok := s.Lost()
	if ok != fenced || (fenced && got != want) {
		t.Fatalf("Lost() = %+v, %v; want %+v, %v", got, ok, want, fenced)
	}
	err := s.SetUint64(keyLastVoteTerm, 7)
	if fenced != errors.Is(err, ErrVoteWithheld) || (!fenced && err != nil) {
		t.Fatalf("recording a vote: %v; withheld should be %v", err, fenced)
	}
	select {
	case <-s.CaughtUp():
		if fenced {
			t.Fatal("CaughtUp is closed while the log is short")
		}
	default:
		if !fenced {
			t.Fatal("CaughtUp is open with nothing lost")
		}
	}
}

// TestLostEntries checks that a store whose log lost its last synced
// entries reports them, withholds raft's vote (and nothing else) until
// StoreLogs has stored the last of them again, and keeps doing so across
// a restart before then.
func TestLostEntries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "raft")
	s := openStoreAt(t, dir)
	storeLogs(t, s, testLogs(1, 30))
	s.Close()
	cutLog(t, dir, 22, 30)

	s = openStoreAt(t, dir)
	lost := LostRange{Dir: dir, From: 22, To: 30}
	checkLost(t, s, lost, true)
	for _, want := range []string{dir, "lost log entries 22 to 30 (9)", "takes no part in elections until it holds entry 30 again", "Rebuilding a node", "docs/backups.md"} {
		if !strings.Contains(lost.String(), want) {
			t.Errorf("the report %q does not say %q", lost, want)
		}
	}
	if err := s.SetUint64([]byte("CurrentTerm"), 3); err != nil {
		t.Fatalf("the term, unlike the vote, is recorded: %v", err)
	}
	if err := s.Set(keyLastVoteCand, []byte("A")); !errors.Is(err, ErrVoteWithheld) {
		t.Fatalf("recording the vote's candidate: %v; want ErrVoteWithheld", err)
	}
	storeLogs(t, s, testLogs(22, 25))
	checkLost(t, s, lost, true)
	s.Close()

	// Restarted part way: still short of entry 30.
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{Dir: dir, From: 26, To: 30}, true)
	storeLogs(t, s, testLogs(26, 31))
	checkLost(t, s, LostRange{}, false)
	s.Close()

	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{}, false)
}

// TestLostEntriesTailDeleted checks that entries raft deletes itself (the
// tail that conflicts with a new leader's log) are not reported lost.
func TestLostEntriesTailDeleted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "raft")
	s := openStoreAt(t, dir)
	storeLogs(t, s, testLogs(1, 30))
	if err := s.DeleteRange(25, 30); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRange(1, 10); err != nil { // a compaction of the head
		t.Fatal(err)
	}
	s.Close()
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{}, false)
	storeLogs(t, s, testLogs(25, 27))
	s.Close()
	cutLog(t, dir, 27, 27)
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{Dir: dir, From: 27, To: 27}, true)
}

// TestWholeLogDeletedAfterASnapshot: once a follower installs its
// leader's snapshot, raft deletes its whole log (the store says it keeps
// no gaps) and appends the entries after the snapshot, far above the old
// ones. Nothing counts as lost, and the log opens again.
func TestWholeLogDeletedAfterASnapshot(t *testing.T) {
	var _ raft.MonotonicLogStore = (*Store)(nil)
	dir := filepath.Join(t.TempDir(), "raft")
	s := openStoreAt(t, dir)
	if !s.IsMonotonic() {
		t.Fatal("the store must tell raft it keeps no gaps")
	}
	storeLogs(t, s, testLogs(1, 30))
	if err := s.DeleteRange(1, 10); err != nil { // a compaction of the head
		t.Fatal(err)
	}
	if err := s.DeleteRange(11, 30); err != nil { // raft's removeOldLogs
		t.Fatal(err)
	}
	s.Close()
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{}, false)
	storeLogs(t, s, testLogs(101, 110)) // after a snapshot at 100
	s.Close()
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{}, false)
	if first, err := s.FirstIndex(); err != nil || first != 101 {
		t.Fatalf("first index %d, %v; want 101", first, err)
	}
}

// TestLostEntriesTornRecord checks that a record whose newer slot a power
// cut spoilt falls back to the one before.
func TestLostEntriesTornRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "raft")
	s := openStoreAt(t, dir)
	storeLogs(t, s, testLogs(1, 10))
	storeLogs(t, s, testLogs(11, 20))
	seq := s.rec.seq
	s.Close()
	flip(t, filepath.Join(dir, SyncedFile), int(seq%2)*slotStride+9, 1)
	cutLog(t, dir, 11, 20)
	s = openStoreAt(t, dir)
	checkLost(t, s, LostRange{}, false) // the older slot says 10
}

// peer is one raft member of an in-process cluster over a Store on disk.
type peer struct {
	id    raft.ServerID
	dir   string
	raft  *raft.Raft
	store *Store
	trans *raft.InmemTransport
}

var fenceServers = []raft.Server{
	{Suffrage: raft.Voter, ID: "A", Address: "A"},
	{Suffrage: raft.Voter, ID: "B", Address: "B"},
	{Suffrage: raft.Voter, ID: "C", Address: "C"},
}

func startPeer(t *testing.T, dir string, id raft.ServerID, bootstrap bool) *peer {
	t.Helper()
	conf := raft.DefaultConfig()
	conf.LocalID = id
	conf.HeartbeatTimeout = 100 * time.Millisecond
	conf.ElectionTimeout = 100 * time.Millisecond
	conf.LeaderLeaseTimeout = 100 * time.Millisecond
	conf.CommitTimeout = 5 * time.Millisecond
	conf.SnapshotThreshold = 1 << 30
	conf.Logger = hclog.New(&hclog.LoggerOptions{Name: string(id), Level: hclog.Error, Output: t.Output()})
	p := &peer{id: id, dir: filepath.Join(dir, string(id))}
	var err error
	if p.store, err = Open(filepath.Join(p.dir, "raft")); err != nil {
		t.Fatal(err)
	}
	snaps := raft.NewInmemSnapshotStore()
	_, p.trans = raft.NewInmemTransport(raft.ServerAddress(id))
	if bootstrap {
		if err := raft.BootstrapCluster(conf, p.store, p.store, snaps, p.trans, raft.Configuration{Servers: fenceServers}); err != nil {
			t.Fatal(err)
		}
	}
	if p.raft, err = raft.NewRaft(conf, &counter{}, p.store, p.store, snaps, p.trans); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *peer) stop(t *testing.T) {
	t.Helper()
	if err := p.raft.Shutdown().Error(); err != nil {
		t.Fatal(err)
	}
	p.trans.Close()
	if err := p.store.Close(); err != nil {
		t.Fatal(err)
	}
}

func connect(peers ...*peer) {
	for _, a := range peers {
		for _, b := range peers {
			if a != b {
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			}
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// apply applies v on whichever of peers leads, trying again while an
// election on a busy machine moves the leadership.
func apply(t *testing.T, v uint64, peers ...*peer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error = raft.ErrNotLeader
		for _, p := range peers {
			if p.raft.State() == raft.Leader {
				err = p.raft.Apply(binary.BigEndian.AppendUint64(nil, v), 5*time.Second).Error()
				break
			}
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("apply %d: %v", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// granter is a stand-in voter on an in-memory transport: it grants every
// vote and pre-vote it is asked for, and fails everything else.
func granter(t *testing.T, id raft.ServerID) *raft.InmemTransport {
	_, trans := raft.NewInmemTransport(raft.ServerAddress(id))
	go func() {
		for rpc := range trans.Consumer() {
			switch req := rpc.Command.(type) {
			case *raft.RequestVoteRequest:
				rpc.Respond(&raft.RequestVoteResponse{Term: req.Term, Granted: true}, nil)
			case *raft.RequestPreVoteRequest:
				rpc.Respond(&raft.RequestPreVoteResponse{Term: req.Term, Granted: true}, nil)
			default:
				rpc.Respond(nil, errors.New("granter only votes"))
			}
		}
	}()
	t.Cleanup(func() { trans.Close() })
	return trans
}

// askVote asks p, from the transport from (as the member A), for its vote
// in a term far ahead of p's, for a candidate whose log ends where p's does.
func askVote(t *testing.T, from *raft.InmemTransport, p *peer) bool {
	t.Helper()
	last, err := p.store.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	var l raft.Log
	if err := p.store.GetLog(last, &l); err != nil {
		t.Fatal(err)
	}
	req := &raft.RequestVoteRequest{
		RPCHeader:    raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("A"), Addr: []byte("A")},
		Term:         p.raft.CurrentTerm() + 1000,
		LastLogIndex: last,
		LastLogTerm:  l.Term,
	}
	var resp raft.RequestVoteResponse
	if err := from.RequestVote(p.id, p.trans.LocalAddr(), req, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Granted
}

// TestLostEntriesNoVote runs raft on three stores, cuts the end of one
// node's log as a lost write-ahead log would, and checks that the node
// neither grants a vote nor becomes leader while behind, though it has the
// votes it needs, and takes part again once it has caught up from the
// leader.
func TestLostEntriesNoVote(t *testing.T) {
	dir := t.TempDir()
	a, b, c := startPeer(t, dir, "A", true), startPeer(t, dir, "B", false), startPeer(t, dir, "C", false)
	connect(a, b, c)
	for i := range uint64(20) {
		apply(t, i, a, b, c)
	}
	waitFor(t, "C to hold the log", func() bool {
		return c.raft.AppliedIndex() == a.raft.LastIndex() && c.raft.AppliedIndex() == b.raft.LastIndex()
	})
	last := c.raft.LastIndex()
	for _, p := range []*peer{a, b, c} {
		p.stop(t)
	}
	cutDir := filepath.Join(c.dir, "raft")
	cutLog(t, cutDir, last-4, last)

	// Behind: C alone with a member that grants every vote. Without the
	// fence its own vote and that one would make it leader.
	c = startPeer(t, dir, "C", false)
	lost, ok := c.store.Lost()
	if want := (LostRange{Dir: cutDir, From: last - 4, To: last}); !ok || lost != want {
		t.Fatalf("Lost() = %+v, %v; want %+v", lost, ok, want)
	}
	fakeB, fakeA := granter(t, "B"), granter(t, "A")
	c.trans.Connect("B", fakeB)
	c.trans.Connect("A", fakeA)
	fakeA.Connect("C", c.trans)
	time.Sleep(2 * time.Second) // twenty election timeouts
	if st := c.raft.State(); st == raft.Leader {
		t.Fatal("C became leader with entries missing")
	}
	if askVote(t, fakeA, c) {
		t.Fatal("C granted a vote with entries missing")
	}
	c.stop(t)

	// Back in the cluster: C catches up from the leader and votes again.
	a, b, c = startPeer(t, dir, "A", false), startPeer(t, dir, "B", false), startPeer(t, dir, "C", false)
	connect(a, b, c)
	defer func() {
		for _, p := range []*peer{a, b, c} {
			p.stop(t)
		}
	}()
	apply(t, 99, a, b) // C cannot lead while behind
	select {
	case <-c.store.CaughtUp():
	case <-time.After(10 * time.Second):
		t.Fatal("C did not catch up")
	}
	if _, ok := c.store.Lost(); ok {
		t.Fatal("C still reports lost entries after catching up")
	}
	waitFor(t, "C to lead", func() bool {
		for _, p := range []*peer{a, b} {
			if p.raft.State() == raft.Leader {
				p.raft.LeadershipTransferToServer("C", "C").Error()
			}
		}
		return c.raft.State() == raft.Leader
	})
}
