package wsstream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// lanConfig returns the raft configuration of node id with timings for
// nodes on one LAN, as the appliance's are (village hall and a second
// building). raft's defaults (1 s heartbeat and election timeouts) suit
// WANs; at 500 ms a leader crash is followed by the first commit on a new
// leader in about 0.9 s instead of 1.7-2 s, and a LAN's round trips of a
// millisecond or less leave ample margin. LeaderLeaseTimeout must not exceed
// HeartbeatTimeout; at 250 ms a leader cut off from its followers steps down
// well before they can elect another.
func lanConfig(id string) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = raft.ServerID(id)
	c.HeartbeatTimeout = 500 * time.Millisecond
	c.ElectionTimeout = 500 * time.Millisecond
	c.LeaderLeaseTimeout = 250 * time.Millisecond
	c.LogOutput = io.Discard
	c.LogLevel = "ERROR"
	return c
}

// listFSM is a raft.FSM that appends each command to a list.
type listFSM struct {
	mu   sync.Mutex
	cmds []string
}

// Apply appends the command.
func (f *listFSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, string(l.Data))
	return len(f.cmds)
}

// Snapshot copies the list.
func (f *listFSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return listSnapshot(slices.Clone(f.cmds)), nil
}

// Restore replaces the list with a snapshot's.
func (f *listFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var cmds []string
	if err := json.NewDecoder(rc).Decode(&cmds); err != nil {
		return fmt.Errorf("restore list: %w", err)
	}
	f.mu.Lock()
	f.cmds = cmds
	f.mu.Unlock()
	return nil
}

// list returns a copy of the list.
func (f *listFSM) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cmds)
}

// listSnapshot is a listFSM snapshot.
type listSnapshot []string

// Persist writes the list as JSON.
func (s listSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode([]string(s)); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("persist list: %w", err)
	}
	return sink.Close()
}

// Release does nothing.
func (listSnapshot) Release() {}

// transportFunc makes the transport of node nodeID and returns it with a
// function that closes it.
type transportFunc func(tb testing.TB, v *testVillage, nodeID string) (raft.Transport, func())

// wsTransport is raft's NetworkTransport over a Layer, behind its own HTTPS
// peer port on 127.0.0.1.
func wsTransport(tb testing.TB, v *testVillage, nodeID string) (raft.Transport, func()) {
	n := startNode(tb, v.issue(nodeID), nodeOptions{})
	trans := raft.NewNetworkTransport(n.layer, 3, 10*time.Second, io.Discard)
	return trans, func() {
		_ = trans.Close() // closes the layer
		n.stop()
	}
}

// tcpTransport is raft's stock TCP transport on 127.0.0.1, for comparison.
func tcpTransport(tb testing.TB, _ *testVillage, _ string) (raft.Transport, func()) {
	trans, err := raft.NewTCPTransport("127.0.0.1:0", nil, 3, 10*time.Second, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	return trans, func() { _ = trans.Close() }
}

// raftNode is one member of a test cluster.
type raftNode struct {
	id       string
	raft     *raft.Raft
	fsm      *listFSM
	stopped  atomic.Bool
	stopOnce sync.Once
	closeFn  func()
}

// stop shuts raft down and closes the node's transport, as a crash would
// (from the peers' point of view).
func (n *raftNode) stop() {
	n.stopOnce.Do(func() {
		n.stopped.Store(true)
		if n.raft != nil {
			_ = n.raft.Shutdown().Error()
		}
		n.closeFn()
	})
}

// cluster is an in-process raft cluster with in-memory stores.
type cluster struct {
	tb    testing.TB
	nodes []*raftNode
}

// newCluster starts a cluster of size voters over transports made by mk and
// stops it when the test ends.
func newCluster(tb testing.TB, size int, mk transportFunc) *cluster {
	tb.Helper()
	v := newVillage(tb)
	c := &cluster{tb: tb}
	tb.Cleanup(c.stop)
	var (
		servers    []raft.Server
		transports []raft.Transport
	)
	for i := range size {
		id := fmt.Sprintf("node-%d", i)
		trans, closeFn := mk(tb, v, id)
		transports = append(transports, trans)
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(id), Address: trans.LocalAddr()})
		c.nodes = append(c.nodes, &raftNode{id: id, fsm: &listFSM{}, closeFn: closeFn})
	}
	for i, n := range c.nodes {
		store := raft.NewInmemStore()
		r, err := raft.NewRaft(lanConfig(n.id), n.fsm, store, store, raft.NewInmemSnapshotStore(), transports[i])
		if err != nil {
			tb.Fatalf("NewRaft(%s): %v", n.id, err)
		}
		n.raft = r
		if err := r.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil {
			tb.Fatalf("BootstrapCluster(%s): %v", n.id, err)
		}
	}
	return c
}

// stop stops every node.
func (c *cluster) stop() {
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		wg.Go(n.stop)
	}
	wg.Wait()
}

// leader waits for one of the running nodes to lead.
func (c *cluster) leader() *raftNode {
	c.tb.Helper()
	n := c.awaitLeader(15 * time.Second)
	if n == nil {
		c.tb.Fatal("no leader elected")
	}
	return n
}

// awaitLeader waits up to timeout for one of the running nodes to lead and
// returns it, or nil. It may be called from any goroutine.
func (c *cluster) awaitLeader(timeout time.Duration) *raftNode {
	deadline := time.Now().Add(timeout)
	for {
		for _, n := range c.running() {
			if n.raft.State() == raft.Leader {
				return n
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running returns the nodes that have not been stopped.
func (c *cluster) running() []*raftNode {
	var rs []*raftNode
	for _, n := range c.nodes {
		if !n.stopped.Load() {
			rs = append(rs, n)
		}
	}
	return rs
}

// applyAll applies cmds on the leader, pipelined, and waits for them to
// commit. A command whose outcome is unknown because leadership changed
// under it is applied again on the next leader, as a real client does (the
// appliance's FSM ignores the second delivery by command id); applyAll
// returns how many were.
func (c *cluster) applyAll(cmds []string) (retried int) {
	c.tb.Helper()
	for attempt := 0; len(cmds) > 0; attempt++ {
		if attempt == 5 {
			c.tb.Fatalf("%d commands still not committed after %d leader changes", len(cmds), attempt)
		}
		leader := c.leader()
		futures := make([]raft.ApplyFuture, len(cmds))
		for i, cmd := range cmds {
			futures[i] = leader.raft.Apply([]byte(cmd), 10*time.Second)
		}
		var again []string
		for i, f := range futures {
			switch err := f.Error(); {
			case err == nil:
			case errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrNotLeader):
				again = append(again, cmds[i])
			default:
				c.tb.Fatalf("Apply(%q) on %s: %v", cmds[i], leader.id, err)
			}
		}
		if len(again) > 0 {
			c.tb.Logf("%s lost leadership; applying %d commands again", leader.id, len(again))
		}
		retried += len(again)
		cmds = again
	}
	return retried
}

// waitReplicated waits until every running node has applied the same
// commands in the same order, and checks that they are want: in want's
// order when no command was applied twice, and otherwise each command of
// want at least once with at most retried duplicates.
func (c *cluster) waitReplicated(want []string, retried int) {
	c.tb.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var lists [][]string
		for _, n := range c.running() {
			lists = append(lists, n.fsm.list())
		}
		same := true
		for _, l := range lists[1:] {
			same = same && slices.Equal(l, lists[0])
		}
		got := lists[0]
		if same && len(got) >= len(want) {
			if retried == 0 && !slices.Equal(got, want) {
				c.tb.Fatalf("applied %d commands, not the %d applied in order", len(got), len(want))
			}
			if extra := len(got) - len(want); extra > retried || !containsAll(got, want) {
				c.tb.Fatalf("applied %d commands (%d retried), want each of %d", len(got), retried, len(want))
			}
			return
		}
		if time.Now().After(deadline) {
			for i, l := range lists {
				c.tb.Logf("%s applied %d commands", c.running()[i].id, len(l))
			}
			c.tb.Fatalf("replicas did not converge on %d commands", len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// containsAll reports whether every element of want is in got.
func containsAll(got, want []string) bool {
	seen := make(map[string]bool, len(got))
	for _, g := range got {
		seen[g] = true
	}
	for _, w := range want {
		if !seen[w] {
			return false
		}
	}
	return true
}

func commands(prefix string, n int) []string {
	cmds := make([]string, n)
	for i := range cmds {
		cmds[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return cmds
}

func TestRaftClusterOverWebSockets(t *testing.T) {
	c := newCluster(t, 3, wsTransport)

	want := commands("first", 500)
	retried := c.applyAll(want)
	c.waitReplicated(want, retried)

	// The leader goes away; the other two elect a new one and go on.
	old := c.leader()
	old.stop()
	start := time.Now()
	more := commands("second", 100)
	retried += c.applyAll(more)
	t.Logf("%s took over from %s; 100 more commits in %v", c.leader().id, old.id, time.Since(start))
	c.waitReplicated(append(want, more...), retried)
}

// BenchmarkTransport compares committed applies per second of a three-node
// cluster (in-memory stores, LAN timings from lanConfig, 200-byte commands)
// over this package's Layer (with raft's NetworkTransport, and with the
// Transport that binds requests to certificates) and over raft's stock TCP
// transport, with 1 and
// with 16 goroutines applying at once. Each apply is timed from Apply to
// its commit and application on the leader; p50-µs and p99-µs are those
// times. On a loaded machine a leader can lose its 250 ms lease; the
// interrupted applies are then retried on the new leader (their time
// includes the election) and leader-changes counts how often it happened.
func BenchmarkTransport(b *testing.B) {
	cmd := make([]byte, 200)
	for i := range cmd {
		cmd[i] = byte('a' + i%26)
	}
	for _, tr := range []struct {
		name string
		mk   transportFunc
	}{{"ws", wsTransport}, {"bound", boundTransport}, {"tcp", tcpTransport}} {
		b.Run(tr.name, func(b *testing.B) {
			c := newCluster(b, 3, tr.mk)
			c.leader()
			for _, concurrency := range []int{1, 16} {
				b.Run(fmt.Sprintf("c%d", concurrency), func(b *testing.B) {
					benchApplies(b, c, concurrency, cmd)
				})
			}
		})
	}
}

// benchApplies applies cmd b.N times on c's leader from concurrency
// goroutines.
func benchApplies(b *testing.B, c *cluster, concurrency int, cmd []byte) {
	latencies := make([]time.Duration, b.N)
	var (
		leader  atomic.Pointer[raftNode]
		changes atomic.Int64
		next    atomic.Int64
		wg      sync.WaitGroup
	)
	leader.Store(c.leader())
	// apply applies cmd once, following the leadership if it moves.
	apply := func() error {
		for {
			n := leader.Load()
			err := n.raft.Apply(cmd, 10*time.Second).Error()
			if !errors.Is(err, raft.ErrLeadershipLost) && !errors.Is(err, raft.ErrNotLeader) {
				return err
			}
			now := c.awaitLeader(15 * time.Second)
			if now == nil {
				return fmt.Errorf("no leader after %s lost leadership: %w", n.id, err)
			}
			if now != n && leader.CompareAndSwap(n, now) {
				changes.Add(1)
			}
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range concurrency {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := apply(); err != nil {
					b.Errorf("Apply: %v", err)
					return
				}
				latencies[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "applies/s")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(latencies[min(len(latencies)-1, len(latencies)*99/100)].Microseconds()), "p99-µs")
	b.ReportMetric(float64(changes.Load()), "leader-changes")
}
