// Package synctest starts real clusters of replica nodes inside one test
// process: each node has its own data folder, its own village certificate
// and its own HTTPS peer port on 127.0.0.1, and raft travels between them
// over WebSockets with mutual TLS, exactly as on the appliances. Members can
// be stopped and started again on the same folder and port.
package synctest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	gosync "sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// Cluster is a set of members sharing a village CA.
type Cluster struct {
	T       testing.TB
	CA      *pki.CA
	Params  *domain.Params
	Members []*Member
	// Tune, if set, adjusts each member's configuration before it opens.
	Tune func(*replica.Config)
	// Now is the clock of every member.
	Now func() time.Time
	// Peer, if set, adjusts each member's peer configuration before it
	// opens (fault injection: the stream, handler and dialer hooks).
	Peer func(m *Member, pc *replica.PeerConfig)
}

// Options configures NewWith.
type Options struct {
	// IDs names the members ("hall-kiosk", …), the first bootstrapping.
	IDs []string
	// Tune adjusts each member's configuration before it opens.
	Tune func(*replica.Config)
	// Peer adjusts each member's peer configuration before it opens.
	Peer func(m *Member, pc *replica.PeerConfig)
	// Roles gives members a node role other than clerk (by id).
	Roles map[string]string
}

// OperatorToken is the operator's authority for membership changes in a
// test cluster: every member accepts it (PeerConfig.Authorize).
const OperatorToken = "synctest-operator-token"

// Authorize accepts OperatorToken as the bearer token of a request.
func Authorize(r *http.Request) (string, error) {
	if r.Header.Get("Authorization") != "Bearer "+OperatorToken {
		return "", errors.New("not the operator")
	}
	return "operator", nil
}

// Member is one node of a Cluster.
type Member struct {
	c        *Cluster
	ID       string
	Dir      string
	Addr     string // peer address, stable across restarts
	Identity *pki.Identity
	Node     *replica.Node // nil while stopped
}

// New starts a cluster of n members; the first bootstraps a configuration
// naming all of them. Every member is stopped when the test ends.
func New(t testing.TB, n int, tune func(*replica.Config)) *Cluster {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("node-%d", i+1)
	}
	return NewWith(t, Options{IDs: ids, Tune: tune})
}

// NewWith starts a cluster of members named opts.IDs; the first
// bootstraps a configuration naming all of them. Every member is stopped
// when the test ends.
func NewWith(t testing.TB, opts Options) *Cluster {
	t.Helper()
	loc, _ := time.LoadLocation("America/Chicago")
	fixed := time.Date(2026, 4, 10, 10, 0, 0, 0, loc)
	c := &Cluster{T: t, Params: domain.DefaultParams(), Tune: opts.Tune, Peer: opts.Peer, Now: func() time.Time { return fixed }}
	var err error
	if c.CA, err = pki.NewCA("Village of Belleville (test)", time.Now()); err != nil {
		t.Fatal(err)
	}
	// Every member is of one cluster, as `appliance init` and the bundles
	// it issues make them: the stores and the raft handshake check it.
	clusterID, err := pki.NewClusterID()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	for _, id := range opts.IDs {
		role := opts.Roles[id]
		if role == "" {
			role = pki.RoleClerk
		}
		ident, err := c.CA.Issue(id, role, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if ident, err = ident.WithClusterID(clusterID); err != nil {
			t.Fatal(err)
		}
		c.Members = append(c.Members, &Member{c: c, ID: id, Dir: filepath.Join(base, id), Addr: FreeAddr(t), Identity: ident})
	}
	var servers []raft.Server
	for _, m := range c.Members {
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.Addr)})
	}
	for i, m := range c.Members {
		m.start(i == 0, servers)
	}
	t.Cleanup(func() {
		for _, m := range c.Members {
			m.Stop()
		}
	})
	return c
}

// Issue returns a new identity for node id with role, of the cluster's CA
// and cluster id, as the bundle of `appliance cert issue` carries: a node
// that joins the cluster with it passes the raft handshake.
func (c *Cluster) Issue(id, role string) (*pki.Identity, error) {
	ident, err := c.CA.Issue(id, role, nil, time.Now())
	if err != nil {
		return nil, err
	}
	return ident.WithClusterID(c.Members[0].Identity.Cluster().ID)
}

// FreeAddr returns an address on 127.0.0.1 whose port is free now, for a
// node that binds it a moment later (and again after each restart).
//
// A port the kernel hands out for listen(":0") is drawn from its ephemeral
// range, the range every outgoing connection of every other program (and of
// the test suites running beside this one) also draws from: between our
// close and the node's bind, it can be taken. So the port is drawn at random
// from below that range, where nothing is assigned without asking for it by
// number; the bind check rules out one in use, and a port is never handed
// out twice by one test process.
func FreeAddr(t testing.TB) string {
	t.Helper()
	lo, hi := 10000, ephemeralLow()
	freePorts.Lock()
	defer freePorts.Unlock()
	for range 1000 {
		port := lo + rand.IntN(hi-lo)
		if freePorts.given[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		addr := ln.Addr().String()
		ln.Close()
		freePorts.given[port] = true
		return addr
	}
	t.Fatalf("no free port found in %d-%d", lo, hi)
	return ""
}

var freePorts = struct {
	gosync.Mutex
	given map[int]bool
}{given: map[int]bool{}}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default when it cannot be read).
func ephemeralLow() int {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var l, h int
		if n, _ := fmt.Sscan(string(b), &l, &h); n == 2 && l > 12000 {
			low = l
		}
	}
	return low
}

func (m *Member) config(bootstrap bool, servers []raft.Server) replica.Config {
	cfg := replica.Config{
		ID:         m.ID,
		Dir:        m.Dir,
		Params:     m.c.Params,
		Now:        m.c.Now,
		Logger:     slog.New(slog.NewTextHandler(logOutput(), &slog.HandlerOptions{Level: slog.LevelWarn})).With("test", m.c.T.Name()),
		Bootstrap:  bootstrap,
		Servers:    servers,
		SubmitWait: 10 * time.Second,
	}
	if m.c.Tune != nil {
		m.c.Tune(&cfg)
	}
	if stressed() {
		stress(&cfg)
	}
	return cfg
}

// stressed reports whether the tests run in stress mode (REPLICA_STRESS=1,
// set by `make test-stress`): every member then pauses at random at the
// replica's racing points and its raft log writes are slowed at random,
// as on a busy, slow-disked machine.
func stressed() bool { return os.Getenv("REPLICA_STRESS") != "" }

func stress(cfg *replica.Config) {
	pause := cfg.Pause
	cfg.Pause = func(point string) {
		if pause != nil {
			pause(point)
		}
		if rand.IntN(4) == 0 {
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		}
	}
	wrap := cfg.WrapLogStore
	cfg.WrapLogStore = func(s raft.LogStore) raft.LogStore {
		if wrap != nil {
			s = wrap(s)
		}
		return slowLog{s}
	}
}

// slowLog delays raft log writes by up to 5 ms at random.
type slowLog struct{ raft.LogStore }

func (s slowLog) StoreLogs(logs []*raft.Log) error {
	time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
	return s.LogStore.StoreLogs(logs)
}

func (s slowLog) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// IsMonotonic says what the wrapped store says (raft.MonotonicLogStore).
func (s slowLog) IsMonotonic() bool {
	m, ok := s.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// logOutput is where members log: stderr with SYNCTEST_LOG=1, else nowhere.
func logOutput() io.Writer {
	if os.Getenv("SYNCTEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}

func (m *Member) start(bootstrap bool, servers []raft.Server) {
	m.c.T.Helper()
	var err error
	for try := 0; try < 50; try++ { // the port may linger briefly after a stop
		pc := replica.PeerConfig{Identity: m.Identity, Listen: m.Addr, Authorize: Authorize}
		if m.c.Peer != nil {
			m.c.Peer(m, &pc)
		}
		m.Node, err = replica.OpenPeer(m.config(bootstrap, servers), pc)
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.c.T.Fatalf("start %s: %v", m.ID, err)
}

// Start starts a stopped member again on its folder and port.
func (m *Member) Start() {
	m.c.T.Helper()
	if m.Node == nil {
		m.start(false, nil)
	}
}

// Stop shuts the member down cleanly (raft, transport, peer port, stores).
func (m *Member) Stop() {
	if m.Node != nil {
		m.Node.Close()
		m.Node = nil
	}
}

// Running returns the members that are running.
func (c *Cluster) Running() []*Member {
	var out []*Member
	for _, m := range c.Members {
		if m.Node != nil {
			out = append(out, m)
		}
	}
	return out
}

// Leader waits for a running member to lead and returns it.
func (c *Cluster) Leader(timeout time.Duration) *Member {
	c.T.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range c.Running() {
			if m.Node.Raft().State() == raft.Leader {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.T.Fatalf("no leader within %s", timeout)
	return nil
}

// Follower returns a running member that is not the leader.
func (c *Cluster) Follower(timeout time.Duration) *Member {
	c.T.Helper()
	leader := c.Leader(timeout)
	for _, m := range c.Running() {
		if m != leader {
			return m
		}
	}
	c.T.Fatal("no follower running")
	return nil
}

// Submit makes a command of kind k on m and submits it there.
func (m *Member) Submit(k domain.Kind, fill func(*domain.Command)) (domain.Result, error) {
	cmd, err := m.Node.NewCommand(k, "test")
	if err != nil {
		return domain.Result{}, err
	}
	fill(&cmd)
	return m.Node.Submit(context.Background(), cmd)
}

// Pay pays amount on bill through m.
func (m *Member) Pay(bill, amount string) (domain.Result, error) {
	return m.Submit(domain.KindPayBill, func(c *domain.Command) {
		c.Payload = &domain.PayBill{BillID: bill, Amount: domain.MustMoney(amount), Tender: domain.Card}
	})
}

// Seed loads n bills ("T0001"…) of 100.00 billed 2026-03-02 on one parcel.
func (m *Member) Seed(n int) {
	m.c.T.Helper()
	seed := &domain.SeedDemo{
		Parcels:  []domain.Parcel{{ID: "0601-141-2001", Address: "141 W Main St", County: domain.Dane, Owner: "Test"}},
		Accounts: []domain.Account{{Number: "100101", Name: "Test", Parcels: []string{"0601-141-2001"}}},
	}
	for i := range n {
		seed.Bills = append(seed.Bills, domain.Bill{
			ID: BillID(i), Account: "100101", Parcel: "0601-141-2001", Description: "test",
			BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("100.00"),
		})
	}
	res, err := m.Submit(domain.KindSeedDemo, func(c *domain.Command) { c.Payload = seed })
	if err != nil || res.Receipt != nil && res.Receipt.Status == domain.Provisional {
		m.c.T.Fatalf("seed: %+v, %v", res, err)
	}
}

// BillID names the i-th seeded bill.
func BillID(i int) string { return fmt.Sprintf("T%04d", i) }

// Converge waits until every running member has applied the same index
// and holds the same state, and returns that state's hash. It fails the
// test if they have not converged within timeout.
func (c *Cluster) Converge(timeout time.Duration) string {
	c.T.Helper()
	deadline := time.Now().Add(timeout)
	last := map[string]string{}
	for time.Now().Before(deadline) {
		// Hashing a whole ledger is costly (more so under -race), so wait
		// for the applied indexes to agree first, which is cheap.
		applied := map[uint64]bool{}
		for _, m := range c.Running() {
			a := m.Node.FSM().Applied()
			applied[a] = true
			last[m.ID] = fmt.Sprintf("@%d", a)
		}
		if len(applied) != 1 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		hashes := map[string]bool{}
		for _, m := range c.Running() {
			h, err := m.Node.FSM().StateHash()
			if err != nil {
				c.T.Fatal(err)
			}
			last[m.ID] = fmt.Sprintf("%s@%d", h[:12], m.Node.FSM().Applied())
			hashes[h] = true
		}
		if len(hashes) == 1 {
			for h := range hashes {
				return h
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if same := len(applied(c)) == 1; same {
		// One applied index, different hashes: the replicas diverged
		// (make test-stress counts these lines).
		fmt.Printf("fault-report test=%s diverged=1 lost=0 duplicated=0\n", c.T.Name())
		c.T.Fatalf("members diverged: the same applied index, different states: %v", last)
	}
	c.T.Fatalf("members did not converge within %s: %v", timeout, last)
	return ""
}

func applied(c *Cluster) map[uint64]bool {
	out := map[uint64]bool{}
	for _, m := range c.Running() {
		out[m.Node.FSM().Applied()] = true
	}
	return out
}
