package wsstream_test

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// boundTransport is a Transport over a Layer, behind its own HTTPS peer
// port on 127.0.0.1, with raft's default pipelining.
func boundTransport(tb testing.TB, v *testVillage, nodeID string) (raft.Transport, func()) {
	n := startNode(tb, v.issue(nodeID), nodeOptions{})
	trans := wsstream.NewTransport(&raft.NetworkTransportConfig{
		Stream: n.layer, MaxPool: 3, Timeout: 10 * time.Second,
	}, slog.New(slog.DiscardHandler))
	return trans, func() {
		_ = trans.Close() // closes the layer
		n.stop()
	}
}

// TestBoundTransportRunsRaft runs a three-node cluster over Transports,
// with AppendEntries pipelined and heartbeats on raft's fast path, through
// the loss of its leader.
func TestBoundTransportRunsRaft(t *testing.T) {
	c := newCluster(t, 3, boundTransport)
	want := commands("first", 300)
	retried := c.applyAll(want)
	c.waitReplicated(want, retried)

	old := c.leader()
	old.stop()
	more := commands("second", 100)
	retried += c.applyAll(more)
	c.waitReplicated(append(want, more...), retried)
}

// rawPeer writes raft requests by hand on a connection dialed with a
// node's certificate.
type rawPeer struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	enc *codec.Encoder
	dec *codec.Decoder
}

func newRawPeer(c net.Conn) *rawPeer {
	p := &rawPeer{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}
	mp := &codec.MsgpackHandle{}
	mp.TimeNotBuiltin = true // as raft's NetworkTransport encodes
	p.enc = codec.NewEncoder(p.w, mp)
	p.dec = codec.NewDecoder(p.r, &codec.MsgpackHandle{})
	return p
}

// send writes one request, and data after it (InstallSnapshot's).
func (p *rawPeer) send(rpcType byte, req any, data []byte) error {
	_ = p.c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := p.w.WriteByte(rpcType); err != nil {
		return err
	}
	if err := p.enc.Encode(req); err != nil {
		return err
	}
	if _, err := p.w.Write(data); err != nil {
		return err
	}
	return p.w.Flush()
}

// answer reads the error text and the response of one request.
func (p *rawPeer) answer(resp any) (string, error) {
	var answered string
	if err := p.dec.Decode(&answered); err != nil {
		return "", err
	}
	return answered, p.dec.Decode(resp)
}

// standInRaft returns a Transport over target's layer, with raft standing
// in: every request that reaches it is answered (at term 7, a snapshot's
// bytes read) and then handed to the channel.
func standInRaft(t *testing.T, target *node) (*wsstream.Transport, <-chan raft.RPC) {
	trans := wsstream.NewTransport(&raft.NetworkTransportConfig{Stream: target.layer, MaxPool: 3, Timeout: 5 * time.Second},
		slog.New(slog.DiscardHandler))
	t.Cleanup(func() { trans.Close() })
	got := make(chan raft.RPC, 1)
	go func() {
		for rpc := range trans.Consumer() {
			if rpc.Reader != nil {
				_, _ = io.Copy(io.Discard, rpc.Reader)
			}
			var resp any
			switch rpc.Command.(type) {
			case *raft.AppendEntriesRequest:
				resp = &raft.AppendEntriesResponse{Term: 7}
			case *raft.RequestVoteRequest:
				resp = &raft.RequestVoteResponse{Term: 7}
			case *raft.RequestPreVoteRequest:
				resp = &raft.RequestPreVoteResponse{Term: 7}
			case *raft.InstallSnapshotRequest:
				resp = &raft.InstallSnapshotResponse{Term: 7}
			case *raft.TimeoutNowRequest:
				resp = &raft.TimeoutNowResponse{}
			}
			rpc.Respond(resp, nil)
			got <- rpc
		}
	}()
	return trans, got
}

// TestTransportBindsEveryRequestToTheCertificate sends each kind of raft
// request, as the node whose certificate the connection carries and as
// another: only the first reaches raft (the consumer, or the heartbeat
// fast path); the second is answered with ErrImpersonation, its
// connection closed.
func TestTransportBindsEveryRequestToTheCertificate(t *testing.T) {
	v := newVillage(t)
	target := startNode(t, v.issue("annex-backup"), nodeOptions{})
	trans, got := standInRaft(t, target)
	heartbeats := make(chan raft.RPC, 1)
	trans.SetHeartbeatHandler(func(rpc raft.RPC) {
		rpc.Respond(&raft.AppendEntriesResponse{Term: 7}, nil)
		heartbeats <- rpc
	})
	kiosk := startNode(t, v.issue("hall-kiosk"), nodeOptions{})

	header := func(id string) raft.RPCHeader {
		return raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(id), Addr: []byte(kiosk.addr)}
	}
	snapshot := []byte("snapshot bytes")
	requests := []struct {
		name      string
		rpcType   byte
		req       func(id string) any
		data      []byte
		heartbeat bool
	}{
		{"AppendEntries", 0, func(id string) any {
			return &raft.AppendEntriesRequest{RPCHeader: header(id), Term: 9, PrevLogEntry: 4, PrevLogTerm: 3,
				Entries: []*raft.Log{{Index: 5, Term: 9, Type: raft.LogCommand, Data: []byte("x")}}, LeaderCommitIndex: 5}
		}, nil, false},
		{"heartbeat", 0, func(id string) any {
			return &raft.AppendEntriesRequest{RPCHeader: header(id), Term: 9}
		}, nil, true},
		{"RequestVote", 1, func(id string) any {
			return &raft.RequestVoteRequest{RPCHeader: header(id), Term: 9, LastLogIndex: 5, LastLogTerm: 9}
		}, nil, false},
		{"InstallSnapshot", 2, func(id string) any {
			return &raft.InstallSnapshotRequest{RPCHeader: header(id), SnapshotVersion: 1, Term: 9, LastLogIndex: 5, LastLogTerm: 9,
				Size: int64(len(snapshot))}
		}, snapshot, false},
		{"TimeoutNow", 3, func(id string) any { return &raft.TimeoutNowRequest{RPCHeader: header(id)} }, nil, false},
		{"RequestPreVote", 4, func(id string) any {
			return &raft.RequestPreVoteRequest{RPCHeader: header(id), Term: 9, LastLogIndex: 5, LastLogTerm: 9}
		}, nil, false},
	}
	for _, rq := range requests {
		t.Run(rq.name, func(t *testing.T) {
			// As itself: raft gets it and answers, and the connection
			// carries on; the next request claims the hall's clerk node.
			p := newRawPeer(dial(t, kiosk.layer, target))
			for _, claim := range []string{"hall-kiosk", "hall-kiosk", "hall-clerk", ""} {
				if claim == "" && rq.name != "RequestVote" {
					continue
				}
				if err := p.send(rq.rpcType, rq.req(claim), rq.data); err != nil {
					t.Fatalf("send as %q: %v", claim, err)
				}
				var resp map[string]any
				answered, err := p.answer(&resp)
				reached := false
				select {
				case <-got:
					reached = true
				case <-heartbeats:
					reached = true
				case <-time.After(100 * time.Millisecond):
				}
				if claim == "hall-kiosk" {
					if err != nil || answered != "" || !reached {
						t.Fatalf("as itself: answered %q, %v, reached raft %v; want raft's answer", answered, err, reached)
					}
					continue
				}
				if err != nil || !strings.Contains(answered, wsstream.ErrImpersonation.Error()) || reached {
					t.Fatalf("as %q: answered %q, %v, reached raft %v; want refused before raft", claim, answered, err, reached)
				}
				if _, err := p.r.ReadByte(); err == nil {
					t.Fatalf("as %q: the connection stayed open", claim)
				}
				// Each refusal ends its connection; a request naming
				// no one is tried on a new one.
				p = newRawPeer(dial(t, kiosk.layer, target))
			}
		})
	}
}

// TestGuardRefusesBeforeRaft: a Transport's Guard sees each request with
// the node and role its connection's certificate names, before raft does;
// a request it refuses is answered with its reason, never reaches raft,
// and ends its connection (an InstallSnapshot's bytes are left unread);
// what it lets through reaches raft as before.
func TestGuardRefusesBeforeRaft(t *testing.T) {
	v := newVillage(t)
	target := startNode(t, v.issue("annex-backup"), nodeOptions{})
	trans, got := standInRaft(t, target)
	type seen struct {
		peer wsstream.Peer
		req  any
	}
	guarded := make(chan seen, 4)
	trans.SetGuard(func(p wsstream.Peer, req any) error {
		guarded <- seen{p, req}
		if _, ok := req.(*raft.InstallSnapshotRequest); ok && p.Role == pki.RoleKiosk {
			return errors.New("a kiosk's snapshot is not taken")
		}
		return nil
	})
	snapshot := []byte("snapshot bytes")
	install := func(from *node) *raft.InstallSnapshotRequest {
		return &raft.InstallSnapshotRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(from.id.NodeID()), Addr: []byte(from.addr)},
			SnapshotVersion: 1, Term: 9, LastLogIndex: 5, LastLogTerm: 9, Size: int64(len(snapshot))}
	}
	reached := func() bool {
		select {
		case <-got:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	}
	guardSaw := func(t *testing.T, want wsstream.Peer) any {
		t.Helper()
		select {
		case s := <-guarded:
			if s.peer != want {
				t.Fatalf("the guard saw %+v, want %+v", s.peer, want)
			}
			return s.req
		case <-time.After(5 * time.Second):
			t.Fatal("the guard never saw the request")
		}
		return nil
	}

	kiosk := startNode(t, v.issueAs("hall-kiosk", pki.RoleKiosk), nodeOptions{})
	p := newRawPeer(dial(t, kiosk.layer, target))
	// Let through: an AppendEntries from the kiosk, on the same
	// connection as the refusal after it.
	ae := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("hall-kiosk"), Addr: []byte(kiosk.addr)},
		Term: 9, PrevLogEntry: 4, PrevLogTerm: 3, Entries: []*raft.Log{{Index: 5, Term: 9, Type: raft.LogCommand, Data: []byte("x")}}}
	if err := p.send(0, ae, nil); err != nil {
		t.Fatal(err)
	}
	var resp map[string]any
	if answered, err := p.answer(&resp); err != nil || answered != "" || !reached() {
		t.Fatalf("AppendEntries from the kiosk: answered %q, %v; want raft's answer", answered, err)
	}
	if req, ok := guardSaw(t, wsstream.Peer{ID: "hall-kiosk", Role: pki.RoleKiosk}).(*raft.AppendEntriesRequest); !ok || req.Term != 9 || len(req.Entries) != 1 {
		t.Fatalf("the guard saw %#v, want the AppendEntries sent", req)
	}
	// Refused: the kiosk's InstallSnapshot.
	if err := p.send(2, install(kiosk), snapshot); err != nil {
		t.Fatal(err)
	}
	answered, err := p.answer(&resp)
	if err != nil || !strings.Contains(answered, "a kiosk's snapshot is not taken") || !strings.Contains(answered, "InstallSnapshot from node hall-kiosk refused") {
		t.Fatalf("InstallSnapshot from the kiosk: answered %q, %v; want refused with the guard's reason", answered, err)
	}
	guardSaw(t, wsstream.Peer{ID: "hall-kiosk", Role: pki.RoleKiosk})
	if reached() {
		t.Fatal("a refused InstallSnapshot reached raft")
	}
	if _, err := p.r.ReadByte(); err == nil {
		t.Fatal("the connection that carried a refused request stayed open")
	}

	// The same request from the clerk's node reaches raft, snapshot and all.
	clerk := startNode(t, v.issueAs("hall-clerk", pki.RoleClerk), nodeOptions{})
	p = newRawPeer(dial(t, clerk.layer, target))
	if err := p.send(2, install(clerk), snapshot); err != nil {
		t.Fatal(err)
	}
	if answered, err := p.answer(&resp); err != nil || answered != "" || !reached() {
		t.Fatalf("InstallSnapshot from the clerk's node: answered %q, %v; want raft's answer", answered, err)
	}
	guardSaw(t, wsstream.Peer{ID: "hall-clerk", Role: pki.RoleClerk})
}
