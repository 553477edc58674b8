package replica_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
	"github.com/villagehall/appliance/sync/wsstream"
)

// TestClusterReplicatesAndForwards runs three nodes over WebSockets with
// mutual TLS: a payment on the leader reaches every node, and a payment
// taken on a follower is forwarded and gets the same result it would on the
// leader.
func TestClusterReplicatesAndForwards(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(4)

	res, err := leader.Pay(synctest.BillID(0), "40.00")
	if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Posted {
		t.Fatalf("pay on leader: %+v, %v", res, err)
	}
	follower := c.Follower(10 * time.Second)
	fres, err := follower.Pay(synctest.BillID(1), "101.50")
	if err != nil {
		t.Fatalf("pay on follower: %v", err)
	}
	if fres.Receipt == nil || fres.Receipt.Status != domain.Posted || !fres.Receipt.Balance.IsZero() || fres.Index == 0 {
		t.Fatalf("forwarded payment: %+v", fres.Receipt)
	}
	if want := follower.ID + "-"; fres.Receipt.Number[:len(want)] != want {
		t.Fatalf("receipt %s does not carry the follower's node id", fres.Receipt.Number)
	}
	// A rule's refusal comes back through forwarding as the domain error.
	_, err = follower.Pay("no-such-bill", "1.00")
	if domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("forwarded refusal: %v", err)
	}
	c.Converge(10 * time.Second)
	for _, m := range c.Members {
		b, err := m.Node.Bill(synctest.BillID(1))
		if err != nil || len(b.Payments) != 1 {
			t.Fatalf("%s: bill %+v, %v", m.ID, b, err)
		}
	}
	// The view names the leader of the moment (on a busy machine an
	// election may be under way: wait for its end).
	var view replica.ClusterView
	waitFor(t, 20*time.Second, "a cluster view with a leader", func() bool {
		view, err = c.Leader(10 * time.Second).Node.Cluster(context.Background())
		return err == nil && view.Leader != ""
	})
	if len(view.Nodes) != 3 || !slices.ContainsFunc(c.Members, func(m *synctest.Member) bool { return m.ID == view.Leader }) {
		t.Fatalf("cluster view: %+v, %v", view, err)
	}
	for _, n := range view.Nodes {
		if n.State == "unreachable" || n.Lag != 0 {
			t.Fatalf("cluster view member: %+v", n)
		}
	}
}

// TestLeaderCrashWritesContinue stops the leader: the other two elect a
// new one and take payments; the old leader comes back and catches up.
func TestLeaderCrashWritesContinue(t *testing.T) {
	c := synctest.New(t, 3, nil)
	old := c.Leader(10 * time.Second)
	old.Seed(10)
	for i := range 5 {
		if _, err := old.Pay(synctest.BillID(i), "10.00"); err != nil {
			t.Fatal(err)
		}
	}
	old.Stop()
	start := time.Now()
	leader := c.Leader(10 * time.Second)
	if _, err := leader.Pay(synctest.BillID(5), "10.00"); err != nil {
		t.Fatalf("pay on the new leader: %v", err)
	}
	t.Logf("leader crash → first commit on the new leader: %s", time.Since(start).Round(time.Millisecond))
	follower := c.Follower(10 * time.Second)
	if _, err := follower.Pay(synctest.BillID(6), "10.00"); err != nil {
		t.Fatalf("pay on the remaining follower: %v", err)
	}
	old.Start()
	c.Converge(15 * time.Second)
	b, _ := old.Node.Bill(synctest.BillID(6))
	if len(b.Payments) != 1 {
		t.Fatalf("restarted old leader has %d payments on bill 6, want 1", len(b.Payments))
	}
}

// payMany submits n payments of 0.01 on the leader, spread over the
// seeded bills, from 16 clients at once.
func payMany(t *testing.T, c *synctest.Cluster, n, bills int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				leader := c.Leader(10 * time.Second)
				if _, err := leader.Pay(synctest.BillID(i%bills), "0.01"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestFollowerCatchesUpFromLog stops a follower, commits 5,000 payments
// without it and starts it again: it catches up from the leader's log.
func TestFollowerCatchesUpFromLog(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(500)
	lagging := c.Follower(10 * time.Second)
	lagging.Stop()
	payMany(t, c, 5000, 500)
	lagging.Start()
	c.Converge(3 * time.Minute)
	if n := lagging.Node.FSM().Restores(); n != 0 {
		t.Fatalf("follower restored %d snapshots; it should have caught up from the log", n)
	}
}

// TestFollowerCatchesUpFromSnapshot compacts the leader's log while a
// follower is away, so it can only catch up by InstallSnapshot.
func TestFollowerCatchesUpFromSnapshot(t *testing.T) {
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.SnapshotThreshold = 1000
		cfg.TrailingLogs = 100
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(500)
	lagging := c.Follower(10 * time.Second)
	lagging.Stop()
	payMany(t, c, 5000, 500)
	for _, m := range c.Running() {
		if err := m.Node.Raft().Snapshot().Error(); err != nil {
			t.Fatalf("snapshot on %s: %v", m.ID, err)
		}
	}
	lagging.Start()
	c.Converge(3 * time.Minute)
	if n := lagging.Node.FSM().Restores(); n == 0 {
		t.Fatalf("follower did not restore a snapshot; the log was compacted past it")
	}
	if _, err := lagging.Node.FSM().VerifyJournal(); err != nil {
		t.Fatalf("journal after InstallSnapshot: %v", err)
	}
	// The follower takes entries after the snapshot, then restarts: its
	// log must open. Raft leaves the entries it held from before the
	// snapshot in the log unless the store says it keeps no gaps, and a
	// log with a gap is refused as damaged at the next start.
	payMany(t, c, 50, 500)
	c.Converge(time.Minute)
	lagging.Stop()
	lagging.Start()
	c.Converge(time.Minute)
	if _, err := lagging.Node.FSM().VerifyJournal(); err != nil {
		t.Fatalf("journal after a restart: %v", err)
	}
}

// TestStrangersAreRefused: a node with a certificate from another CA, or
// with none, cannot forward, join or read on the peer port, and nothing is
// applied.
func TestStrangersAreRefused(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	settled(t, leader.Node)
	c.Converge(10 * time.Second)
	before := leader.Node.FSM().Applied()

	otherCA, err := pki.NewCA("Another village", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := otherCA.Issue("node-1", pki.RoleClerk, nil, time.Now()) // even with a member's name
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]*http.Client{
		"other CA":       {Transport: &http.Transport{TLSClientConfig: stranger.ClientTLS()}, Timeout: 5 * time.Second},
		"no certificate": {Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 5 * time.Second},
	}
	cmd := domain.Command{ID: "evil", Kind: domain.KindPayBill, At: domain.NewDateTime(domain.MustDate("2026-04-10"), 10, 0, 0),
		Node: "node-1", Seq: 999, Payload: &domain.PayBill{BillID: synctest.BillID(0), Amount: domain.MustMoney("100.00"), Tender: domain.Card}}
	data, _ := domain.EncodeCommand(cmd)
	body, _ := json.Marshal(map[string]any{"commands": [][]byte{data}})
	for name, client := range clients {
		for _, path := range []string{replica.ForwardPath, replica.JoinPath, replica.StatusPath} {
			req, _ := http.NewRequest(http.MethodPost, "https://"+leader.Addr+path, bytes.NewReader(body))
			if path == replica.StatusPath {
				req.Method = http.MethodGet
			}
			resp, err := client.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				t.Errorf("%s: %s answered %s; want the TLS handshake refused", name, path, resp.Status)
			}
		}
	}
	// A member may forward only its own commands.
	member := replica.NewPeerClient(c.Members[1].Identity)
	if _, err := member.Forward(context.Background(), raft.ServerAddress(leader.Addr), [][]byte{data}); err == nil {
		t.Errorf("a member forwarded a command taken on another node")
	}
	// Nothing of theirs was applied: after before, the ledger holds only
	// what the leader appends on its own (a checkpoint of the state hash
	// comes whenever the ledger moved since the last).
	time.Sleep(200 * time.Millisecond)
	if applied := appliedSince(t, leader.Node, before); len(applied) > 0 {
		t.Fatalf("applied after the strangers' attempts: %v", applied)
	}
	b, _ := leader.Node.Bill(synctest.BillID(0))
	if len(b.Payments) != 0 {
		t.Fatalf("a stranger's payment was applied: %+v", b.Payments)
	}
	c.Converge(10 * time.Second)
}

// TestMalformedForwardIsRejected sends garbage to the forwarding endpoint
// as a member: a clear 400, no crash, nothing applied.
func TestMalformedForwardIsRejected(t *testing.T) {
	c := synctest.New(t, 3, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	settled(t, leader.Node)
	c.Converge(10 * time.Second)
	before := leader.Node.FSM().Applied()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: c.Members[1].Identity.ClientTLS()}, Timeout: 5 * time.Second}
	bodies := [][]byte{
		[]byte("not json"),
		[]byte(`{"commands": []}`),
		[]byte(`{"commands": ["AXsieCI6IDF9"]}`),         // version 1, unknown field
		[]byte(`{"commands": ["CXsidiI6IDl9"]}`),         // version 9
		bytes.Repeat([]byte("A"), 17<<20),                // oversized
		[]byte(fmt.Sprintf(`{"commands": [%q]}`, "xyz")), // not base64
	}
	for i, b := range bodies {
		req, _ := http.NewRequest(http.MethodPost, "https://"+leader.Addr+replica.ForwardPath, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(wsstream.ClusterHeader, c.Members[1].Identity.Cluster().ID)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("body %d: status %s, want 400", i, resp.Status)
		}
	}
	if applied := appliedSince(t, leader.Node, before); len(applied) > 0 {
		t.Fatalf("malformed requests were applied: %v", applied)
	}
	c.Converge(10 * time.Second)
}

// TestJoinAndRemove grows a one-node cluster to three through the join
// endpoint and shrinks it again.
func TestJoinAndRemove(t *testing.T) {
	c := synctest.New(t, 1, nil)
	leader := c.Leader(10 * time.Second)
	leader.Seed(2)
	var joined []*replica.Node
	for i := 2; i <= 3; i++ {
		id := fmt.Sprintf("node-%d", i)
		ident, err := c.Issue(id, pki.RoleClerk)
		if err != nil {
			t.Fatal(err)
		}
		addr := synctest.FreeAddr(t)
		n, err := replica.OpenPeer(replica.Config{ID: id, Dir: t.TempDir(), Params: c.Params, Now: c.Now}, replica.PeerConfig{Identity: ident, Listen: addr, Authorize: synctest.Authorize})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		if err := n.Peers().Member(context.Background(), leader.Addr, replica.JoinPath, id, addr, synctest.OperatorToken); err != nil {
			t.Fatalf("join %s: %v", id, err)
		}
		joined = append(joined, n)
	}
	paid, err := leader.Pay(synctest.BillID(0), "5.00")
	if err != nil {
		t.Fatal(err)
	}
	// Every node has applied the payment and holds the same ledger. (Not
	// node-1's hash read at once: on a busy machine a joined node may
	// have been elected meanwhile, node-1 then applies the payment after
	// its leader, and a hash read before that is one nobody keeps.)
	nodes := append([]*replica.Node{leader.Node}, joined...)
	waitFor(t, 15*time.Second, "the joined nodes to hold node-1's ledger with the payment", func() bool {
		var first string
		for i, n := range nodes {
			if n.FSM().Applied() < paid.Index {
				return false
			}
			h, err := n.FSM().StateHash()
			if err != nil || i > 0 && h != first {
				return false
			}
			first = h
		}
		return true
	})
	// A node of an older release (ledger format 1) may not join a
	// cluster whose ledger is at format 2: it could not apply it.
	if leader.Node.FSM().Format() < 2 {
		t.Fatalf("the cluster's ledger format is %d", leader.Node.FSM().Format())
	}
	oldIdent, err := c.Issue("node-old", pki.RoleClerk)
	if err != nil {
		t.Fatal(err)
	}
	oldAddr := synctest.FreeAddr(t)
	old, err := replica.OpenPeer(replica.Config{ID: "node-old", Dir: t.TempDir(), Params: c.Params, Now: c.Now, LedgerFormat: 1},
		replica.PeerConfig{Identity: oldIdent, Listen: oldAddr, Authorize: synctest.Authorize})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	err = old.Peers().Member(context.Background(), leader.Addr, replica.JoinPath, "node-old", oldAddr, synctest.OperatorToken)
	if err == nil || !strings.Contains(err.Error(), "ledger format 1") {
		t.Fatalf("a node of an older release joined: %v", err)
	}
	if f := leader.Node.Raft().GetConfiguration(); len(f.Configuration().Servers) != 3 {
		t.Fatalf("configuration after the refused join: %+v", f.Configuration())
	}

	// Another node may not join in someone else's name.
	err = joined[0].Peers().Member(context.Background(), leader.Addr, replica.JoinPath, "node-9", "127.0.0.1:1", synctest.OperatorToken)
	if err == nil {
		t.Fatal("a node joined another node into the cluster")
	}
	// Remove a joined node that does not lead (a leader refuses to remove
	// itself; on a busy machine either may have been elected meanwhile).
	waitFor(t, 20*time.Second, "a joined node removed", func() bool {
		target := "node-3"
		if c.Leader(10*time.Second).ID == target {
			target = "node-2"
		}
		err := joined[0].Peers().Member(context.Background(), leader.Addr, replica.RemovePath, target, "", synctest.OperatorToken)
		if err != nil && !strings.Contains(err.Error(), "does not remove itself") {
			t.Fatalf("remove %s: %v", target, err)
		}
		return err == nil
	})
	waitFor(t, 10*time.Second, "the configuration of two servers on node-1", func() bool {
		f := leader.Node.Raft().GetConfiguration()
		return f.Error() == nil && len(f.Configuration().Servers) == 2
	})
}

// TestBackupHandsLeadershipToTheHall: the backup node (AvoidLeadership)
// that finds itself leading while a hall node is caught up transfers
// leadership back to village hall.
func TestBackupHandsLeadershipToTheHall(t *testing.T) {
	c := synctest.New(t, 3, func(cfg *replica.Config) {
		cfg.AvoidLeadership = cfg.ID == "node-3"
	})
	leader := c.Leader(10 * time.Second)
	leader.Seed(1)
	c.Converge(10 * time.Second)
	backup := c.Members[2]
	if leader != backup {
		f := leader.Node.Raft().LeadershipTransferToServer(raft.ServerID(backup.ID), raft.ServerAddress(backup.Addr))
		if err := f.Error(); err != nil {
			t.Fatalf("move leadership to the backup: %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for backup.Node.Raft().State() != raft.Leader {
		if time.Now().After(deadline) {
			t.Fatal("the backup never led; the test could not set up its premise")
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		l := c.Leader(10 * time.Second)
		if l != backup {
			t.Logf("leadership went back to %s", l.ID)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the backup kept leadership while the hall nodes were healthy")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := c.Leader(time.Second).Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatalf("pay after the transfer: %v", err)
	}
}

// settled waits until the leader n has done what it appends on its own
// once it leads: the ledger's format raised to this build's and its
// parameters seeded. A test that counts what was applied after a moment
// takes that moment after these (on a loaded machine the seeding can come
// after a test's first commands).
func settled(t *testing.T, n *replica.Node) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); n.FSM().Format() < domain.LedgerFormat || !n.FSM().Seeded(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the leader did not raise the format (%d) and seed its parameters (%v) within 20 s", n.FSM().Format(), n.FSM().Seeded())
		}
	}
}

// appliedSince lists what n's ledger applied after index, besides what a
// leader appends on its own (the periodic checkpoint of the state hash,
// a ledger format raise): a test that checks nothing of a client's got in
// must not count those.
func appliedSince(t *testing.T, n *replica.Node, index uint64) []string {
	t.Helper()
	var applied []string
	if err := n.FSM().Journal(func(e replica.JournalEntry) error {
		if e.Index > index && e.Kind != domain.KindCheckpoint && e.Kind != domain.KindLedgerFormat {
			applied = append(applied, fmt.Sprintf("%d %s %s %s", e.Index, e.Kind, e.CommandID, e.Outcome))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return applied
}
