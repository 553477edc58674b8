package replica_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/wsstream"
)

// rawRaft is a raft client speaking raft's wire format by hand over a
// wsstream connection, with whatever headers a test puts in its requests.
type rawRaft struct {
	t   *testing.T
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	enc *codec.Encoder
	dec *codec.Decoder
}

// dialRaft dials the raft port at addr with ident's certificate.
func dialRaft(t *testing.T, ident *pki.Identity, addr string) *rawRaft {
	t.Helper()
	layer, err := wsstream.New(wsstream.Config{Advertise: "127.0.0.1:1", Identity: ident, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { layer.Close() })
	c, err := layer.Dial(raft.ServerAddress(addr), 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	rr := &rawRaft{t: t, c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}
	// As raft's NetworkTransport encodes and decodes (net_transport.go).
	mp := &codec.MsgpackHandle{}
	mp.TimeNotBuiltin = true
	rr.enc = codec.NewEncoder(rr.w, mp)
	rr.dec = codec.NewDecoder(rr.r, &codec.MsgpackHandle{})
	return rr
}

// call sends one request of type rpcType and reads the answer into resp. It
// returns the error raft (or the transport) answered, or the error reading
// the answer.
func (rr *rawRaft) call(rpcType byte, req, resp any) (answered string, err error) {
	rr.t.Helper()
	return rr.callWithData(rpcType, req, nil, resp)
}

// callWithData is call with data written after the request, as an
// InstallSnapshot's snapshot is.
func (rr *rawRaft) callWithData(rpcType byte, req any, data []byte, resp any) (answered string, err error) {
	rr.t.Helper()
	_ = rr.c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := rr.w.WriteByte(rpcType); err != nil {
		return "", err
	}
	if err := rr.enc.Encode(req); err != nil {
		return "", err
	}
	if _, err := rr.w.Write(data); err != nil {
		return "", err
	}
	if err := rr.w.Flush(); err != nil {
		return "", err
	}
	if err := rr.dec.Decode(&answered); err != nil {
		return "", err
	}
	return answered, rr.dec.Decode(resp)
}

// closed reports whether the other end closed the connection.
func (rr *rawRaft) closed() bool {
	_ = rr.c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := rr.r.ReadByte()
	return err != nil && !isTimeout(err)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// raftState returns a node's current term and last log index and term.
func raftState(t *testing.T, n *replica.Node) (term, lastIndex, lastTerm uint64) {
	t.Helper()
	st := n.Raft().Stats()
	for k, p := range map[string]*uint64{"term": &term, "last_log_index": &lastIndex, "last_log_term": &lastTerm} {
		if _, err := fmt.Sscan(st[k], p); err != nil {
			t.Fatalf("raft stats %s = %q: %v", k, st[k], err)
		}
	}
	return term, lastIndex, lastTerm
}

// TestRaftRequestsAreBoundToTheCertificate replays the probe: holding only
// the kiosk's certificate and key, it speaks raft itself to a follower's
// peer port. AppendEntries and RequestVote claiming to come from the
// hall's clerk node are refused (an error answered, the connection
// closed) and never reach raft: the follower's term and log stay as they
// were. The same requests in the kiosk's own name are taken as raft takes
// any voter's.
func TestRaftRequestsAreBoundToTheCertificate(t *testing.T) {
	c := trustCluster(t)
	leader := c.Leader(10 * time.Second)
	kiosk := member(c, "hall-kiosk")
	var target = member(c, "annex-backup")
	if target.ID == leader.ID {
		target = member(c, "hall-clerk")
	}
	impersonated := leader.ID // the node the forged requests claim to be
	term, lastIndex, lastTerm := raftState(t, target.Node)
	forged := term + 1000

	// AppendEntries as the leader, at a far higher term, with an entry.
	rr := dialRaft(t, kiosk.Identity, target.Addr)
	ae := raft.AppendEntriesRequest{
		RPCHeader:    raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(impersonated), Addr: []byte(member(c, impersonated).Addr)},
		Term:         forged,
		PrevLogEntry: lastIndex, PrevLogTerm: lastTerm,
		Entries:           []*raft.Log{{Index: lastIndex + 1, Term: forged, Type: raft.LogNoop}},
		LeaderCommitIndex: lastIndex + 1,
	}
	var aeResp raft.AppendEntriesResponse
	answered, err := rr.call(0, &ae, &aeResp)
	if err != nil || !strings.Contains(answered, wsstream.ErrImpersonation.Error()) {
		t.Fatalf("AppendEntries from the kiosk as %s: answered %q, %v; want refused as impersonation", impersonated, answered, err)
	}
	if !rr.closed() {
		t.Error("the connection that carried a forged AppendEntries stayed open")
	}

	// RequestVote as the leader, at a far higher term, as a leadership
	// transfer (which raft lets past a follower's known leader).
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	rv := raft.RequestVoteRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(impersonated), Addr: []byte(member(c, impersonated).Addr)},
		Term:      forged, LastLogIndex: lastIndex + 100, LastLogTerm: forged, LeadershipTransfer: true,
	}
	var rvResp raft.RequestVoteResponse
	answered, err = rr.call(1, &rv, &rvResp)
	if err != nil || !strings.Contains(answered, wsstream.ErrImpersonation.Error()) || rvResp.Granted {
		t.Fatalf("RequestVote from the kiosk as %s: answered %q, granted %v, %v; want refused as impersonation", impersonated, answered, rvResp.Granted, err)
	}
	// A request naming no one is refused too: raft skips its membership
	// checks for one.
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	rv.ID = nil
	answered, err = rr.call(1, &rv, &rvResp)
	if err != nil || !strings.Contains(answered, wsstream.ErrImpersonation.Error()) {
		t.Fatalf("RequestVote from the kiosk naming no one: answered %q, %v; want refused", answered, err)
	}

	time.Sleep(200 * time.Millisecond)
	if nowTerm, _, nowLastTerm := raftState(t, target.Node); nowTerm >= forged || nowLastTerm >= forged {
		t.Fatalf("the forged requests reached raft: term %d, last log term %d (forged term %d)", nowTerm, nowLastTerm, forged)
	}

	// The same in the kiosk's own name, not as a leadership transfer:
	// raft answers it (the kiosk is a voter), and grants nothing while it
	// hears from its leader. What a kiosk may not ask even as itself is
	// the guard's (raftguard.go, TestKioskCannotChangeMembershipNorReplaceALedger).
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	rv.ID, rv.Addr, rv.LeadershipTransfer = []byte(kiosk.ID), []byte(kiosk.Addr), false
	answered, err = rr.call(1, &rv, &rvResp)
	if err != nil || answered != "" || rvResp.Granted {
		t.Fatalf("RequestVote from the kiosk as itself: answered %q, granted %v, %v; want raft's refusal", answered, rvResp.Granted, err)
	}
	if nowTerm, _, _ := raftState(t, target.Node); nowTerm >= forged {
		t.Fatalf("the kiosk's own RequestVote moved the follower's term to %d", nowTerm)
	}
}
