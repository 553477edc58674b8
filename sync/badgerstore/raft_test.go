package badgerstore

import (
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// counter is a tiny FSM: it counts the commands applied and sums them.
type counter struct {
	mu       sync.Mutex
	n, total uint64
}

func (c *counter) Apply(l *raft.Log) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.total += binary.BigEndian.Uint64(l.Data)
	return c.n
}

func (c *counter) state() (n, total uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.total
}

func (c *counter) Snapshot() (raft.FSMSnapshot, error) {
	n, total := c.state()
	return counterSnapshot(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, n), total)), nil
}

func (c *counter) Restore(r io.ReadCloser) error {
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if len(b) != 16 {
		return fmt.Errorf("counter snapshot has %d bytes, want 16", len(b))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.total = binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])
	return nil
}

type counterSnapshot []byte

func (s counterSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (counterSnapshot) Release() {}

// node is a single-voter raft over a Store in dir.
type node struct {
	raft  *raft.Raft
	store *Store
	trans *raft.InmemTransport
	fsm   *counter
}

func startNode(t *testing.T, dir string, bootstrap bool) *node {
	t.Helper()
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: t.Output()})
	conf := raft.DefaultConfig()
	conf.LocalID = "n1"
	conf.HeartbeatTimeout = 50 * time.Millisecond
	conf.ElectionTimeout = 50 * time.Millisecond
	conf.LeaderLeaseTimeout = 50 * time.Millisecond
	conf.CommitTimeout = 5 * time.Millisecond
	conf.SnapshotThreshold = 1 << 30 // snapshots only when the test asks
	conf.TrailingLogs = 10
	conf.Logger = logger

	store, err := Open(filepath.Join(dir, "raft"))
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(dir, "snapshots"), 2, logger)
	if err != nil {
		t.Fatal(err)
	}
	addr, trans := raft.NewInmemTransport("n1")
	n := &node{store: store, trans: trans, fsm: &counter{}}
	n.raft, err = raft.NewRaft(conf, n.fsm, store, store, snaps, trans)
	if err != nil {
		t.Fatalf("NewRaft: %v", err)
	}
	if bootstrap {
		cfg := raft.Configuration{Servers: []raft.Server{{ID: conf.LocalID, Address: addr}}}
		if err := n.raft.BootstrapCluster(cfg).Error(); err != nil {
			t.Fatalf("BootstrapCluster: %v", err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for n.raft.State() != raft.Leader {
		if time.Now().After(deadline) {
			t.Fatalf("no leader after 10s; state %v", n.raft.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

func (n *node) apply(t *testing.T, v uint64) uint64 {
	t.Helper()
	f := n.raft.Apply(binary.BigEndian.AppendUint64(nil, v), 5*time.Second)
	if err := f.Error(); err != nil {
		t.Fatalf("Apply(%d): %v", v, err)
	}
	return f.Response().(uint64)
}

func (n *node) stop(t *testing.T) {
	t.Helper()
	if err := n.raft.Shutdown().Error(); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := n.trans.Close(); err != nil { // Shutdown leaves the transport open
		t.Fatal(err)
	}
	if err := n.store.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRaftRestart runs a real single-node raft on the store: it applies 100
// commands with a snapshot (and so a log compaction) in the middle, shuts
// down, checks the store on its own, then restarts raft from it and checks
// that the FSM comes back to the same state and raft keeps going.
func TestRaftRestart(t *testing.T) {
	dir := t.TempDir()

	n := startNode(t, dir, true)
	var wantTotal uint64
	for i := uint64(1); i <= 100; i++ {
		wantTotal += i
		if got := n.apply(t, i); got != i {
			t.Fatalf("command %d applied as number %d", i, got)
		}
		if i == 60 {
			if err := n.raft.Snapshot().Error(); err != nil {
				t.Fatalf("Snapshot: %v", err)
			}
		}
	}
	lastBefore := n.raft.LastIndex()
	n.stop(t)

	s, err := Open(filepath.Join(dir, "raft"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.FirstIndex()
	if err != nil {
		t.Fatal(err)
	}
	last, err := s.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	// Bootstrap configuration, leader no-op, 60 commands, then the
	// snapshot compacted all but the last 10 entries.
	if first <= 1 || first > 60 || last != lastBefore || last < 100 {
		t.Errorf("after restart the log holds %d to %d; want a compacted head and last index %d", first, last, lastBefore)
	}
	for i := first; i <= last; i++ {
		if err := s.GetLog(i, new(raft.Log)); err != nil {
			t.Errorf("GetLog(%d): %v", i, err)
		}
	}
	if term, err := s.GetUint64([]byte("CurrentTerm")); err != nil || term == 0 {
		t.Errorf("CurrentTerm = %d, %v; want a term", term, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	n = startNode(t, dir, false)
	defer n.stop(t)
	if err := n.raft.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatalf("Barrier: %v", err)
	}
	if got, total := n.fsm.state(); got != 100 || total != wantTotal {
		t.Errorf("after restart the FSM counted %d commands summing to %d; want 100 and %d", got, total, wantTotal)
	}
	if got := n.apply(t, 101); got != 101 {
		t.Errorf("the first command after restart was applied as number %d; want 101", got)
	}
}
