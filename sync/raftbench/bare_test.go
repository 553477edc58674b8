package raftbench_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
	"github.com/villagehall/appliance/sync/wsstream"
)

// wsBare is the engine under the appliance: three voters on the same
// WebSocket transport (wsstream, mutual TLS, the NetworkTransport settings
// of replica.OpenPeer), the same Badger log and stable store
// (badgerstore.Open, PiOptions) and the same raft configuration
// (replica.RaftConfig), with an FSM that does nothing. The ratios of the
// appliance's paths to it say what the FSM, the outbox and the forwarder
// cost on top of raft.
var wsBare = setup{name: "ws-bare", websocket: true}

// bareCluster is three bare raft voters.
type bareCluster struct {
	tb      testing.TB
	members []*bareMember
	now     time.Time
}

// bareMember is one bare voter and what it holds open.
type bareMember struct {
	id    string
	raft  *raft.Raft
	trans *raft.NetworkTransport
	logs  *badgerstore.Store
	srv   *http.Server
}

// nopFSM applies nothing. It is a BatchingFSM, as the replica's FSM is,
// so raft hands it committed entries the same way.
type nopFSM struct{}

func (nopFSM) Apply(*raft.Log) any { return nil }

func (nopFSM) ApplyBatch(logs []*raft.Log) []any { return make([]any, len(logs)) }

func (nopFSM) Snapshot() (raft.FSMSnapshot, error) { return nopSnapshot{}, nil }

func (nopFSM) Restore(rc io.ReadCloser) error { return rc.Close() }

type nopSnapshot struct{}

func (nopSnapshot) Persist(sink raft.SnapshotSink) error { return sink.Close() }

func (nopSnapshot) Release() {}

var _ raft.BatchingFSM = nopFSM{}

// newBareCluster starts three bare voters in folders of owner and waits
// for a leader.
func newBareCluster(owner, tb testing.TB) *bareCluster {
	tb.Helper()
	ca, err := pki.NewCA("Village of Belleville (bench)", time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	base := owner.TempDir()
	type planned struct {
		id, addr string
		ident    *pki.Identity
	}
	var plan []planned
	var servers []raft.Server
	for i := range 3 {
		id := fmt.Sprintf("bare-%d", i+1)
		ident, err := ca.Issue(id, pki.RoleClerk, nil, time.Now())
		if err != nil {
			tb.Fatal(err)
		}
		p := planned{id: id, addr: synctest.FreeAddr(tb), ident: ident}
		plan = append(plan, p)
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(id), Address: raft.ServerAddress(p.addr)})
	}
	c := &bareCluster{tb: tb, now: time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)}
	owner.Cleanup(c.stop)
	for i, p := range plan {
		m, err := startBare(filepath.Join(base, p.id), p.id, p.addr, p.ident, servers, i == 0)
		if err != nil {
			tb.Fatalf("start %s: %v", p.id, err)
		}
		c.members = append(c.members, m)
	}
	c.leader(15 * time.Second)
	return c
}

// startBare opens one bare voter.
func startBare(dir, id, addr string, ident *pki.Identity, servers []raft.Server, bootstrap bool) (*bareMember, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	layer, err := wsstream.New(wsstream.Config{Advertise: addr, Identity: ident, Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		layer.Close()
		return nil, err
	}
	m := &bareMember{id: id}
	m.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: layer, MaxPool: 3, Timeout: 10 * time.Second, Logger: hclog.NewNullLogger(), MaxRPCsInFlight: 1,
	})
	mux := http.NewServeMux()
	mux.Handle(wsstream.Path, layer.Handler())
	m.srv = &http.Server{Handler: mux, TLSConfig: ident.ServerTLS(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go m.srv.ServeTLS(ln, "", "")
	if m.logs, err = badgerstore.Open(filepath.Join(dir, "raft")); err != nil {
		m.stop()
		return nil, err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(dir, "snapshots"), 2, hclog.NewNullLogger())
	if err != nil {
		m.stop()
		return nil, err
	}
	rc := replica.RaftConfig(id, 8192)
	rc.Logger = hclog.NewNullLogger()
	if bootstrap {
		if err := raft.BootstrapCluster(rc, m.logs, m.logs, snaps, m.trans, raft.Configuration{Servers: servers}); err != nil {
			m.stop()
			return nil, err
		}
	}
	if m.raft, err = raft.NewRaft(rc, nopFSM{}, m.logs, m.logs, snaps, m.trans); err != nil {
		m.stop()
		return nil, err
	}
	return m, nil
}

func (m *bareMember) stop() {
	if m.raft != nil {
		m.raft.Shutdown().Error()
	}
	if m.trans != nil {
		m.trans.Close()
	}
	if m.srv != nil {
		m.srv.Close()
	}
	if m.logs != nil {
		m.logs.Close()
	}
}

func (c *bareCluster) stop() {
	for _, m := range c.members {
		m.stop()
	}
}

// leader waits for a member to lead and returns it.
func (c *bareCluster) leader(timeout time.Duration) *bareMember {
	c.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range c.members {
			if m.raft.State() == raft.Leader {
				return m
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.tb.Fatalf("ws-bare: no leader within %s", timeout)
	return nil
}

// converge waits until every member has applied the leader's last index.
func (c *bareCluster) converge(timeout time.Duration) {
	c.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		want := c.leader(timeout).raft.LastIndex()
		caught := true
		for _, m := range c.members {
			if m.raft.AppliedIndex() < want {
				caught = false
			}
		}
		if caught {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.tb.Fatalf("ws-bare: members did not catch up within %s", timeout)
}

// applyOp commits the same bytes the appliance's apply path proposes (an
// encoded pay_bill), so the entries on the wire and in the log are the
// same size.
func (c *bareCluster) applyOp(m *bareMember, base int) func(int) error {
	return func(i int) error {
		cmd := domain.Command{
			ID: uuid.NewString(), Kind: domain.KindPayBill, At: domain.DateTimeOf(c.now),
			Node: "bench", Seq: uint64(base+i) + 1, Actor: "bench", Payload: payment(base + i),
		}
		data, err := domain.EncodeCommand(cmd)
		if err != nil {
			return err
		}
		return m.raft.Apply(data, 10*time.Second).Error()
	}
}

// warm commits n entries from four clients.
func (c *bareCluster) warm(n int) {
	c.tb.Helper()
	op := c.applyOp(c.leader(10*time.Second), 0)
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := w; i < n; i += 4 {
				if err := op(i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			c.tb.Fatalf("ws-bare: warm up: %v", err)
		}
	}
}

// measureOnLeader measures committed entries on the leader with conc
// clients, measuring again (up to three times) a run during which
// leadership moved.
func (c *bareCluster) measureOnLeader(b *testing.B, conc int) result {
	for attempt := 1; ; attempt++ {
		c.converge(60 * time.Second)
		l := c.leader(10 * time.Second)
		r, err := measure(b, conc, c.applyOp(l, 0))
		now := c.leader(10 * time.Second)
		moved := now != l || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrNotLeader)
		switch {
		case err == nil && !moved:
			return r
		case !moved:
			b.Fatalf("ws-bare: %v", err)
		case attempt == 3:
			b.Fatalf("ws-bare: leadership moved during three runs in a row; last: %v", err)
		}
		b.Logf("ws-bare: leadership moved (%s, then %s) during the run (%v); measuring again", l.id, now.id, err)
	}
}
