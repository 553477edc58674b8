package replica_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// waitHealth polls n's health until ok says it is the one wanted.
func waitHealth(t *testing.T, n *replica.Node, timeout time.Duration, what string, ok func(replica.Health) bool) replica.Health {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		h := n.Health()
		if ok(h) {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %+v", what, timeout, h)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func hasProblem(h replica.Health, part string) bool {
	for _, p := range h.Problems {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// TestHealthSaysWhenNoQuorumAnswers: a node whose two peers are down is
// a candidate for ever; /healthz says it is not healthy once it has
// known no leader for longer than an election takes, and why, and
// healthy again once a peer is back and a leader elected.
func TestHealthSaysWhenNoQuorumAnswers(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	c.Converge(10 * time.Second)
	for _, m := range c.Members {
		if h := m.Node.Health(); !h.Healthy {
			t.Fatalf("%s unhealthy in a healthy cluster: %+v", m.ID, h)
		}
	}
	survivor := c.Members[0]
	for _, m := range c.Members[1:] {
		m.Stop()
	}
	h := waitHealth(t, survivor.Node, 15*time.Second, "unhealthy without a quorum", func(h replica.Health) bool { return !h.Healthy })
	if !hasProblem(h, "known no leader") || !hasProblem(h, "cannot reach a quorum") {
		t.Fatalf("problems do not say why: %q", h.Problems)
	}
	t.Logf("without a quorum: %q", h.Problems)

	c.Members[1].Start()
	waitHealth(t, survivor.Node, 20*time.Second, "healthy once a quorum answers", func(h replica.Health) bool { return h.Healthy && h.Leader != "" })
}

// TestHealthSaysWhenPeersRefuseTheNode: a node started on another
// cluster's certificate and data, with this cluster's peers in its
// configuration, is refused by them on every dial (the cluster id) and is
// a candidate for ever. /healthz says it is not healthy, and that its
// peers refuse it; the two others keep their quorum and stay healthy.
func TestHealthSaysWhenPeersRefuseTheNode(t *testing.T) {
	c := synctest.New(t, 3, nil)
	c.Leader(10 * time.Second).Seed(1)
	c.Converge(10 * time.Second)
	victim := c.Members[2]
	victim.Stop()

	var servers []raft.Server
	for _, m := range c.Members {
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.Addr)})
	}
	foreign := clusterIdentity(t, c.CA, victim.ID) // the village's CA, another cluster
	var n *replica.Node
	var err error
	for try := 0; try < 50; try++ { // the port may linger briefly after the stop
		n, err = replica.OpenPeer(replica.Config{Dir: t.TempDir(), Params: c.Params, Now: c.Now, Bootstrap: true, Servers: servers,
			Logger: slog.New(slog.DiscardHandler)}, replica.PeerConfig{Identity: foreign, Listen: victim.Addr})
		if err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	h := waitHealth(t, n, 15*time.Second, "the refused node unhealthy", func(h replica.Health) bool {
		return !h.Healthy && hasProblem(h, "refuse this node")
	})
	if !hasProblem(h, "another cluster") {
		t.Errorf("the refusal does not say it is about the cluster: %q", h.Problems)
	}
	t.Logf("refused: %q", h.Problems)
	// /readyz sends no resident to it, and says why the same way.
	if ready, reasons := n.Readiness(); ready || !strings.Contains(strings.Join(reasons, "\n"), "refuse this node") {
		t.Errorf("readiness of the refused node: %v %q", ready, reasons)
	}
	if h.State == raft.Leader.String() || h.Leader != "" {
		t.Fatalf("the refused node leads or knows a leader: %+v", h)
	}
	for _, m := range c.Members[:2] {
		waitHealth(t, m.Node, 10*time.Second, m.ID+" healthy with a leader", func(h replica.Health) bool { return h.Healthy && h.Leader != "" })
	}
}
