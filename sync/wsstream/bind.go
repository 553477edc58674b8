package wsstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"
)

// ErrImpersonation is wrapped by the error a Transport answers (before it
// closes the connection) when a peer sends a raft request in the name of
// another server than the one its certificate names.
var ErrImpersonation = errors.New("raft request speaks for another node than the peer's certificate")

// The rpcType bytes of raft's NetworkTransport wire format (raft v1.8
// net_transport.go; they are part of its wire protocol and never change).
const (
	rpcAppendEntries uint8 = iota
	rpcRequestVote
	rpcInstallSnapshot
	rpcTimeoutNow
	rpcRequestPreVote
)

// receiveBuffer is raft's own read buffer for a server connection: an
// AppendEntries batch is decoded from memory, not byte by byte off the
// socket.
const receiveBuffer = 256 << 10

// Transport is raft's NetworkTransport whose every incoming request is bound
// to the certificate of the peer that sent it.
//
// A certificate from the village CA proves which node is on the other end
// of a connection; raft, though, believes whatever server id a request
// names in its RPCHeader. Without a check, any node (the kiosk in its
// public hallway, say) could send AppendEntries or ask for votes as
// hall-clerk. A Transport takes a request from a peer only if its header's
// ID is the node id in the peer's certificate (PeerID); a request naming
// anyone else, or no one, is answered with an error wrapping
// ErrImpersonation, logged, and its connection closed, and raft never sees
// it. The check is exactly that binding: a peer speaking as itself is
// served as raft would serve it.
//
// Raft v1.8 takes the sender's server id from RPCHeader.ID alone, for
// every request type: AppendEntries and InstallSnapshot name the leader
// there (their Leader field, like RequestVote's Candidate, is an address,
// deprecated for RPCHeader.Addr), RequestVote and RequestPreVote the
// candidate, TimeoutNow the leader handing over. So the header's ID is the
// one field to bind. The addresses a request carries are not checked: a
// node's address is not in its certificate and may change with DHCP.
//
// Why here: the RPCs raft consumes carry no trace of the connection they
// came on, so a filter between a NetworkTransport and raft cannot tell who
// sent one; and a check inside the byte stream would have to decode each
// request a second time, in step with raft's own decoder. Instead the
// Transport serves the connections it accepts itself: it reads each
// request off the connection with the same codec and types as raft's
// NetworkTransport (one rpcType byte, then the msgpack-encoded request,
// then, for InstallSnapshot, the snapshot's bytes), compares one byte
// slice with the peer id the connection already knows, and hands the
// decoded request to raft. Each request is decoded once, as before; the
// check costs a comparison. Heartbeats keep raft's fast path, and
// pipelined AppendEntries are served in order on their connection as raft
// serves them. Everything a node sends (AppendEntries, pipelines, votes,
// snapshots) goes through the embedded NetworkTransport unchanged.
//
// Past the binding, a Guard (SetGuard) may refuse what a peer asks in its
// own name, by the role its certificate carries; a refusal is answered and
// ends the connection as an impersonation does.
//
// The stream's accepted connections must come from a Layer, possibly
// wrapped by connections that expose the one they wrap with a NetConn
// method (as fault injection does): a connection whose peer id cannot be
// told is closed without reading a byte.
type Transport struct {
	*raft.NetworkTransport

	stream     raft.StreamLayer
	logger     *slog.Logger
	newTimeFmt bool // NetworkTransportConfig.MsgpackUseNewTimeFormat

	consume   chan raft.RPC
	heartbeat atomic.Pointer[func(raft.RPC)]
	guard     atomic.Pointer[Guard]

	shutdown  chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{} // the connections being served; nil once closed
}

var (
	_ raft.Transport   = (*Transport)(nil)
	_ raft.WithPreVote = (*Transport)(nil)
	_ raft.WithClose   = (*Transport)(nil)
)

// NewTransport returns a Transport over cfg.Stream (a Layer, or a wrapper
// of one) configured as raft.NewNetworkTransportWithConfig would be.
// Refused requests are logged to logger (nil means slog.Default()).
func NewTransport(cfg *raft.NetworkTransportConfig, logger *slog.Logger) *Transport {
	if logger == nil {
		logger = slog.Default()
	}
	t := &Transport{
		stream:     cfg.Stream,
		logger:     logger.With("component", "raft-ws"),
		newTimeFmt: cfg.MsgpackUseNewTimeFormat,
		consume:    make(chan raft.RPC),
		shutdown:   make(chan struct{}),
		conns:      make(map[net.Conn]struct{}),
	}
	// The NetworkTransport dials through the stream; the connections it
	// would accept are taken by t.accept instead.
	netCfg := *cfg
	netCfg.Stream = &dialOnly{StreamLayer: cfg.Stream, closed: t.shutdown}
	t.NetworkTransport = raft.NewNetworkTransportWithConfig(&netCfg)
	t.wg.Add(1)
	go t.accept()
	return t
}

// Consumer returns the channel on which raft receives the requests peers
// sent, each one checked.
func (t *Transport) Consumer() <-chan raft.RPC { return t.consume }

// SetHeartbeatHandler sets raft's fast path for heartbeats, which are
// checked like every other request before they reach it.
func (t *Transport) SetHeartbeatHandler(cb func(rpc raft.RPC)) {
	if cb == nil {
		t.heartbeat.Store(nil)
		return
	}
	t.heartbeat.Store(&cb)
}

// A Guard decides whether raft may see a request that a peer sent in its
// own name: req is the decoded request (*raft.AppendEntriesRequest,
// *raft.RequestVoteRequest, *raft.RequestPreVoteRequest,
// *raft.InstallSnapshotRequest or *raft.TimeoutNowRequest; for
// InstallSnapshot, before a byte of the snapshot is read). A non-nil error
// refuses it: the peer is answered with the error and its connection is
// closed, and raft never sees the request. A Guard is called from the
// goroutine serving each connection, for heartbeats too, so it must be
// safe for concurrent use and quick.
//
// The binding to the certificate is what every request gets; a Guard is
// for what a peer may ask as itself, by its role: raft takes a snapshot
// or a new configuration from whichever node claims a higher term, and
// which nodes are trusted with those is the product's decision, not
// raft's.
type Guard func(peer Peer, req any) error

// SetGuard sets the check every request passes after the binding to the
// peer's certificate (nil: none).
func (t *Transport) SetGuard(g Guard) {
	if g == nil {
		t.guard.Store(nil)
		return
	}
	t.guard.Store(&g)
}

// Close stops the transport: it closes the stream, closes the connections
// it serves and waits for them to end. It is idempotent and returns nil.
func (t *Transport) Close() error {
	t.closeOnce.Do(func() {
		close(t.shutdown)
		_ = t.NetworkTransport.Close()
		t.mu.Lock()
		conns := t.conns
		t.conns = nil
		t.mu.Unlock()
		for c := range conns {
			_ = c.Close()
		}
		t.wg.Wait()
	})
	return nil
}

// track registers c as served, or reports false (closing c) once the
// transport is closed.
func (t *Transport) track(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		_ = c.Close()
		return false
	}
	t.conns[c] = struct{}{}
	return true
}

// forget unregisters c.
func (t *Transport) forget(c net.Conn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

// accept takes the connections peers make and serves each one, backing
// off as raft's NetworkTransport does when Accept fails.
func (t *Transport) accept() {
	defer t.wg.Done()
	const baseDelay, maxDelay = 5 * time.Millisecond, time.Second
	var delay time.Duration
	for {
		c, err := t.stream.Accept()
		if err != nil {
			delay = min(max(2*delay, baseDelay), maxDelay)
			select {
			case <-t.shutdown:
				return
			default:
			}
			t.logger.Error("accept raft connection", "error", err)
			select {
			case <-t.shutdown:
				return
			case <-time.After(delay):
				continue
			}
		}
		delay = 0
		if !t.track(c) {
			return
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer t.forget(c)
			t.serve(c)
		}()
	}
}

// serve reads requests off c until it ends, checking each one against the
// peer's certificate, handing it to raft and writing raft's answer.
func (t *Transport) serve(c net.Conn) {
	defer c.Close()
	peer, ok := PeerOf(c)
	if !ok || peer.ID == "" {
		t.logger.Warn("refused raft connection: its peer's node id is unknown", "remote", c.RemoteAddr().String())
		return
	}
	r := bufio.NewReaderSize(c, receiveBuffer)
	w := bufio.NewWriter(c)
	dec := codec.NewDecoder(r, &codec.MsgpackHandle{})
	mp := &codec.MsgpackHandle{}
	mp.TimeNotBuiltin = !t.newTimeFmt
	enc := codec.NewEncoder(w, mp)
	for {
		err := t.handle(peer, r, dec, enc)
		if err == nil {
			err = w.Flush()
		}
		if err == nil {
			continue
		}
		var (
			imp *impersonation
			ref *refusal
		)
		switch {
		case errors.As(err, &imp):
			t.logger.Warn("refused raft request: it speaks for another node than the peer's certificate",
				"peer", peer.ID, "claimed", imp.claimed, "rpc", imp.rpc, "remote", c.RemoteAddr().String())
			// Tell the peer why, then drop a connection whose sender
			// lies about who it is.
			_ = w.Flush()
		case errors.As(err, &ref):
			t.logger.Warn("refused raft request", "peer", peer.ID, "role", peer.Role, "rpc", ref.rpc,
				"remote", c.RemoteAddr().String(), "error", ref.err)
			// Tell the peer why, then drop the connection: what follows
			// a refused InstallSnapshot is its snapshot's bytes, which
			// are not read.
			_ = w.Flush()
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, raft.ErrTransportShutdown):
		default:
			t.logger.Debug("raft connection ended", "peer", peer.ID, "error", err)
		}
		return
	}
}

// impersonation is a request whose header names another server than the
// peer's certificate.
type impersonation struct {
	rpc, peer, claimed string
}

func (e *impersonation) Error() string {
	return fmt.Sprintf("%s from node %s in the name of %q: %s", e.rpc, e.peer, e.claimed, ErrImpersonation)
}

func (e *impersonation) Unwrap() error { return ErrImpersonation }

// refusal is a request its peer sent in its own name and the Guard
// refused.
type refusal struct {
	rpc, peer string
	err       error
}

func (e *refusal) Error() string {
	return fmt.Sprintf("%s from node %s refused: %v", e.rpc, e.peer, e.err)
}

func (e *refusal) Unwrap() error { return e.err }

// handle reads one request, checks it, passes it to raft and writes the
// answer, as raft's NetworkTransport.handleCommand does. A request that
// fails the check is answered with the error, which handle also returns.
func (t *Transport) handle(peer Peer, r *bufio.Reader, dec *codec.Decoder, enc *codec.Encoder) error {
	rpcType, err := r.ReadByte()
	if err != nil {
		return err
	}
	respCh := make(chan raft.RPCResponse, 1)
	rpc := raft.RPC{RespChan: respCh}
	var (
		header      raft.RPCHeader
		name        string
		isHeartbeat bool
	)
	switch rpcType {
	case rpcAppendEntries:
		var req raft.AppendEntriesRequest
		if err := dec.Decode(&req); err != nil {
			return err
		}
		rpc.Command, header, name = &req, req.RPCHeader, "AppendEntries"
		leaderAddr := req.Addr
		if len(leaderAddr) == 0 {
			//lint:ignore SA1019 raft's own heartbeat test reads the field a peer of an older protocol sets instead of RPCHeader.Addr.
			leaderAddr = req.Leader
		}
		// raft's own test for a heartbeat (net_transport.go).
		isHeartbeat = req.Term != 0 && leaderAddr != nil &&
			req.PrevLogEntry == 0 && req.PrevLogTerm == 0 &&
			len(req.Entries) == 0 && req.LeaderCommitIndex == 0
	case rpcRequestVote:
		var req raft.RequestVoteRequest
		if err := dec.Decode(&req); err != nil {
			return err
		}
		rpc.Command, header, name = &req, req.RPCHeader, "RequestVote"
	case rpcRequestPreVote:
		var req raft.RequestPreVoteRequest
		if err := dec.Decode(&req); err != nil {
			return err
		}
		rpc.Command, header, name = &req, req.RPCHeader, "RequestPreVote"
	case rpcInstallSnapshot:
		var req raft.InstallSnapshotRequest
		if err := dec.Decode(&req); err != nil {
			return err
		}
		rpc.Command, header, name = &req, req.RPCHeader, "InstallSnapshot"
		rpc.Reader = io.LimitReader(r, req.Size)
	case rpcTimeoutNow:
		var req raft.TimeoutNowRequest
		if err := dec.Decode(&req); err != nil {
			return err
		}
		rpc.Command, header, name = &req, req.RPCHeader, "TimeoutNow"
	default:
		return fmt.Errorf("unknown raft rpc type %d from %s", rpcType, peer.ID)
	}

	// The binding. An empty ID is refused too: raft skips its membership
	// checks for a request without one (as from raft before v1.0).
	if string(header.ID) != peer.ID {
		imp := &impersonation{rpc: name, peer: peer.ID, claimed: string(header.ID)}
		return answerRefused(enc, imp)
	}
	if g := t.guard.Load(); g != nil {
		if err := (*g)(peer, rpc.Command); err != nil {
			return answerRefused(enc, &refusal{rpc: name, peer: peer.ID, err: err})
		}
	}

	if isHeartbeat {
		if fn := t.heartbeat.Load(); fn != nil {
			(*fn)(rpc)
			return t.respond(respCh, enc)
		}
	}
	select {
	case t.consume <- rpc:
	case <-t.shutdown:
		return raft.ErrTransportShutdown
	}
	return t.respond(respCh, enc)
}

// answerRefused answers a refused request with err's text and no
// response, and returns err.
func answerRefused(enc *codec.Encoder, err error) error {
	if e := enc.Encode(err.Error()); e != nil {
		return e
	}
	if e := enc.Encode(nil); e != nil {
		return e
	}
	return err
}

// respond waits for raft's answer to a request and writes it: the error
// text (empty for none), then the response.
func (t *Transport) respond(respCh <-chan raft.RPCResponse, enc *codec.Encoder) error {
	select {
	case resp := <-respCh:
		respErr := ""
		if resp.Error != nil {
			respErr = resp.Error.Error()
		}
		if err := enc.Encode(respErr); err != nil {
			return err
		}
		return enc.Encode(resp.Response)
	case <-t.shutdown:
		return raft.ErrTransportShutdown
	}
}

// dialOnly is the stream the embedded NetworkTransport sees: it dials
// through the real stream, and its Accept hands out nothing (the
// Transport accepts) until the transport is closed.
type dialOnly struct {
	raft.StreamLayer
	closed <-chan struct{}
}

// Accept waits until the transport is closed, then fails.
func (d *dialOnly) Accept() (net.Conn, error) {
	<-d.closed
	return nil, fmt.Errorf("accept raft connection: %w", net.ErrClosed)
}
