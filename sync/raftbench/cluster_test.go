package raftbench_test

import (
	"context"
	"fmt"
	"github.com/google/uuid"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/faultsuite"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// setup is one configuration under test: how raft's RPCs travel and where
// raft keeps its log.
type setup struct {
	name      string
	websocket bool // wsstream with mutual TLS; else raft's stock TCP transport
	bolt      bool // raft-boltdb as raft's log and stable store; else Badger
}

var (
	wsBadger  = setup{name: "ws-badger", websocket: true}
	tcpBadger = setup{name: "tcp-badger"}
	tcpBolt   = setup{name: "tcp-bolt", bolt: true}
)

// bills is how many bills a cluster is seeded with. The load pays them in
// turn, so that no bill collects more than a few dozen payments (a bill
// keeps its payments in its record, and each payment recomputes them all).
// 2,000 bills fit in the seed command's single Badger transaction.
const bills = 2000

// cluster is three voters of one setup, each in its own data folder on its
// own 127.0.0.1 port.
type cluster struct {
	tb      testing.TB // where failures go
	setup   setup
	ca      *pki.CA
	params  *domain.Params
	loc     *time.Location
	now     func() time.Time
	members []*member
	issued  atomic.Int64 // command numbers handed out by reserve
}

// member is one voter; node is nil while it is stopped.
type member struct {
	c     *cluster
	id    string
	dir   string
	addr  string
	ident *pki.Identity
	node  *replica.Node
	bolt  *raftboltdb.BoltStore
}

// newCluster starts three voters of s and waits for a leader. Their
// folders belong to owner, which stops them when it ends; failures are
// reported to tb (c.tb), which a sub-benchmark using the cluster replaces.
func newCluster(owner, tb testing.TB, s setup) *cluster {
	tb.Helper()
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		tb.Fatal(err)
	}
	// Payments are taken on a pinned day after the bills were issued and
	// before they go on the tax roll, so every one posts.
	fixed := time.Date(2026, 4, 10, 10, 0, 0, 0, loc)
	c := &cluster{tb: tb, setup: s, params: domain.DefaultParams(), loc: loc, now: func() time.Time { return fixed }}
	if c.ca, err = pki.NewCA("Village of Belleville (bench)", time.Now()); err != nil {
		tb.Fatal(err)
	}
	base := owner.TempDir()
	var servers []raft.Server
	for i := range 3 {
		id := fmt.Sprintf("node-%d", i+1)
		m := &member{c: c, id: id, dir: filepath.Join(base, id), addr: synctest.FreeAddr(tb)}
		if m.ident, err = c.ca.Issue(id, pki.RoleClerk, nil, time.Now()); err != nil {
			tb.Fatal(err)
		}
		c.members = append(c.members, m)
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(id), Address: raft.ServerAddress(m.addr)})
	}
	owner.Cleanup(func() {
		for _, m := range c.members {
			m.stop()
		}
	})
	for i, m := range c.members {
		m.start(i == 0, servers)
	}
	c.leader(15 * time.Second)
	return c
}

// logger is where nodes log: stderr at warning level with RAFTBENCH_LOG=1,
// else nowhere.
func logger() *slog.Logger {
	if os.Getenv("RAFTBENCH_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// start opens the member's node on its folder and port; the port may
// linger for a moment after a stop, so it retries.
func (m *member) start(bootstrap bool, servers []raft.Server) {
	m.c.tb.Helper()
	var err error
	for range 50 {
		if err = m.open(bootstrap, servers); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.c.tb.Fatalf("start %s (%s): %v", m.id, m.c.setup.name, err)
}

func (m *member) open(bootstrap bool, servers []raft.Server) error {
	c := m.c
	cfg := replica.Config{
		ID:         m.id,
		Dir:        m.dir,
		Params:     c.params,
		Location:   c.loc,
		Now:        c.now,
		Logger:     logger(),
		Bootstrap:  bootstrap,
		Servers:    servers,
		SubmitWait: 10 * time.Second, // a provisional answer is a failed measurement
	}
	if c.setup.bolt {
		if err := os.MkdirAll(m.dir, 0o750); err != nil {
			return err
		}
		bs, err := raftboltdb.NewBoltStore(filepath.Join(m.dir, "raft-bolt.db"))
		if err != nil {
			return fmt.Errorf("open raft-boltdb: %w", err)
		}
		cfg.LogStore, cfg.StableStore = bs, bs
		m.bolt = bs
	}
	var err error
	if c.setup.websocket {
		m.node, err = replica.OpenPeer(cfg, replica.PeerConfig{Identity: m.ident, Listen: m.addr})
	} else {
		// The same pool and timeout as OpenPeer gives the WebSocket transport.
		var trans *raft.NetworkTransport
		trans, err = raft.NewTCPTransportWithLogger(m.addr, nil, 3, 10*time.Second, hclog.NewNullLogger())
		if err == nil {
			cfg.Transport = trans
			if m.node, err = replica.Open(cfg); err != nil {
				trans.Close()
			}
		}
	}
	if err != nil {
		m.node = nil
		m.closeBolt()
	}
	return err
}

// stop closes the member's node (raft, transport, peer port, stores) and,
// after it, the raft-boltdb store, which the node does not own.
func (m *member) stop() {
	if m.node != nil {
		m.node.Close()
		m.node = nil
	}
	m.closeBolt()
}

func (m *member) closeBolt() {
	if m.bolt != nil {
		m.bolt.Close()
		m.bolt = nil
	}
}

// running returns the members that are running.
func (c *cluster) running() []*member {
	var out []*member
	for _, m := range c.members {
		if m.node != nil {
			out = append(out, m)
		}
	}
	return out
}

// leader waits for a running member to lead and returns it.
func (c *cluster) leader(timeout time.Duration) *member {
	c.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if m := c.currentLeader(); m != nil {
			return m
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.tb.Fatalf("%s: no leader within %s", c.setup.name, timeout)
	return nil
}

// currentLeader returns the running member that leads, or nil.
func (c *cluster) currentLeader() *member {
	for _, m := range c.running() {
		if m.node.Raft().State() == raft.Leader {
			return m
		}
	}
	return nil
}

// converge waits until every running member has applied the leader's last
// index, so that a measurement does not start with followers catching up.
func (c *cluster) converge(timeout time.Duration) {
	c.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		l := c.currentLeader()
		if l != nil {
			want := l.node.FSM().Applied()
			caught := true
			for _, m := range c.running() {
				if m.node.FSM().Applied() < want {
					caught = false
				}
			}
			if caught {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.tb.Fatalf("%s: members did not catch up within %s", c.setup.name, timeout)
}

// seed loads the bills through the leader, with the chart of accounts
// that opens the books (faultsuite.SeedBills): one account, one parcel,
// bills "F001"… billed on March 2, half of them the water utility's, and
// a general and a water fund. With the books open every payment posts its
// journal lines by fund in the FSM, as a village's do.
func (c *cluster) seed() {
	c.tb.Helper()
	seed := faultsuite.SeedBills(bills, domain.MustDate("2026-03-02"))
	l := c.leader(10 * time.Second)
	// The leader raises a new cluster's ledger to this release's format
	// once it has heard from its peers; the payments are measured at it.
	// Raft's stock TCP transport carries no peer status, so on it the
	// leader never learns its peers' formats: the bench appends the raise
	// the leader would (Submit takes no format raise).
	if !c.setup.websocket {
		cmd := domain.Command{ID: uuid.NewString(), Kind: domain.KindLedgerFormat, At: domain.DateTimeOf(c.now()), Node: l.node.ID(),
			Actor: "bench", Payload: &domain.LedgerFormatChange{To: domain.LedgerFormat}}
		data, err := l.node.EncodeEntry(cmd)
		if err != nil {
			c.tb.Fatal(err)
		}
		f := l.node.Raft().Apply(data, 10*time.Second)
		if err := f.Error(); err != nil {
			c.tb.Fatalf("%s: raise the ledger format: %v", c.setup.name, err)
		}
		if res, ok := f.Response().(domain.Result); !ok || res.Error != nil {
			c.tb.Fatalf("%s: raise the ledger format: %+v", c.setup.name, f.Response())
		}
	}
	for deadline := time.Now().Add(30 * time.Second); l.node.FSM().Format() < domain.LedgerFormat; {
		if time.Now().After(deadline) {
			c.tb.Fatalf("%s: the ledger stayed at format %d", c.setup.name, l.node.FSM().Format())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd, err := l.node.NewCommand(domain.KindSeedDemo, "bench")
	if err != nil {
		c.tb.Fatal(err)
	}
	cmd.Payload = seed
	res, err := l.node.Submit(context.Background(), cmd)
	if err != nil || res.Error != nil || strings.Contains(res.Note, "not empty") || !strings.Contains(res.Note, "1 history steps") {
		c.tb.Fatalf("%s: seed: %+v, %v", c.setup.name, res, err)
	}
	if _, err := l.node.Bill(billID(bills - 1)); err != nil {
		c.tb.Fatalf("%s: seed did not apply: %v", c.setup.name, err)
	}
	entries := 0
	if err := l.node.List(domain.CollectionBookEntries, "", func(string, []byte) error { entries++; return nil }); err != nil || entries == 0 {
		c.tb.Fatalf("%s: the seed opened no books (%d entries, %v): payments would post no journal lines", c.setup.name, entries, err)
	}
}

// billID names the i-th seeded bill (faultsuite.SeedBills's names).
func billID(i int) string { return fmt.Sprintf("F%03d", i%bills+1) }
