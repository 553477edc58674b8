// Package faults injects the failures the fault suite and the scenario
// tests need into a node, through the hooks replica.Config and
// replica.PeerConfig offer: a network partition between this node and
// chosen peers, and a slow disk under raft's log.
//
// A partition cuts everything between the two nodes, as an unplugged cable
// would: raft's WebSocket streams (dials refused, open streams closed,
// incoming upgrades refused), leader forwarding and status calls (this
// node's peer client refuses to dial the peer and drops its pooled
// connections; the peer port answers the peer's requests with 503). Every
// connection between two nodes has one of them as its dialer or its
// acceptor, so cutting on one side is enough; the suite cuts on both, as
// the network would.
//
//	in := faults.New("hall-kiosk")
//	in.Hook(&peerConfig)                 // streams, handler, dialer
//	cfg.WrapLogStore = in.WrapLogStore   // slow disk
//	in.Partition("annex-backup")         // the link to the second building is down
//	in.SetDiskDelay(50 * time.Millisecond)
//	in.Heal()
package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/wsstream"
)

// ErrPartitioned is the error of a dial to a peer this node is cut off
// from.
var ErrPartitioned = errors.New("faults: partitioned from peer")

// Injector holds the faults of one node. It is safe for concurrent use; a
// fault set or cleared takes effect at once, on new and open connections.
type Injector struct {
	self  string
	delay atomic.Int64 // disk delay in nanoseconds

	mu      sync.Mutex
	blocked map[string]bool   // peer ids this node is cut off from
	addrs   map[string]string // peer address → peer id
	conns   map[*tracked]struct{}
}

// New returns an injector for node self, with no fault set.
func New(self string) *Injector {
	return &Injector{self: self, blocked: map[string]bool{}, addrs: map[string]string{}, conns: map[*tracked]struct{}{}}
}

// Self returns the node the injector belongs to.
func (in *Injector) Self() string { return in.self }

// Hook sets the stream, handler and dialer hooks of pc to the injector's.
func (in *Injector) Hook(pc *replica.PeerConfig) {
	pc.WrapStream = in.WrapStream
	pc.WrapHandler = in.WrapHandler
	pc.DialContext = in.DialContext
}

// SetAddr tells the injector that the peer with id listens at addr, so a
// dial to addr can be refused before it leaves this node. Raft dials teach
// it too.
func (in *Injector) SetAddr(id, addr string) {
	in.mu.Lock()
	in.addrs[addr] = id
	in.mu.Unlock()
}

// Partition cuts this node off from peers: new connections between them
// are refused and open ones are closed.
func (in *Injector) Partition(peers ...string) {
	in.mu.Lock()
	var doomed []*tracked
	for _, p := range peers {
		if p != "" && p != in.self {
			in.blocked[p] = true
		}
	}
	for c := range in.conns {
		if in.blocked[c.peer] {
			doomed = append(doomed, c)
		}
	}
	in.mu.Unlock()
	for _, c := range doomed {
		c.Close()
	}
}

// Heal reconnects this node to peers, or to every peer when none is named.
func (in *Injector) Heal(peers ...string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(peers) == 0 {
		clear(in.blocked)
		return
	}
	for _, p := range peers {
		delete(in.blocked, p)
	}
}

// Partitioned returns the peers this node is cut off from, sorted.
func (in *Injector) Partitioned() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]string, 0, len(in.blocked))
	for p := range in.blocked {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// IsPartitioned reports whether this node is cut off from peer.
func (in *Injector) IsPartitioned(peer string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.blocked[peer]
}

// SetDiskDelay makes every write to raft's log (through WrapLogStore) wait
// d first; zero restores full speed.
func (in *Injector) SetDiskDelay(d time.Duration) { in.delay.Store(int64(max(d, 0))) }

// DiskDelay returns the current disk delay.
func (in *Injector) DiskDelay() time.Duration { return time.Duration(in.delay.Load()) }

// peerOf names the peer at a dialed address, if known.
func (in *Injector) peerOf(addr string) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.addrs[addr]
}

// track registers a connection to or from peer so that a partition can
// close it; it refuses (closing c) when the peer is already cut off.
func (in *Injector) track(c net.Conn, peer string) (net.Conn, error) {
	t := &tracked{Conn: c, peer: peer, in: in}
	in.mu.Lock()
	if in.blocked[peer] {
		in.mu.Unlock()
		c.Close()
		return nil, fmt.Errorf("%s ↔ %s: %w", in.self, peer, ErrPartitioned)
	}
	in.conns[t] = struct{}{}
	in.mu.Unlock()
	return t, nil
}

// tracked is a connection the injector may cut.
type tracked struct {
	net.Conn
	peer string
	in   *Injector
	once sync.Once
}

// NetConn returns the connection t wraps, so that wsstream.PeerID (which
// raft's transport asks whom each request comes from) sees through it.
func (t *tracked) NetConn() net.Conn { return t.Conn }

// Close closes the connection and forgets it.
func (t *tracked) Close() error {
	err := t.Conn.Close()
	t.once.Do(func() {
		t.in.mu.Lock()
		delete(t.in.conns, t)
		t.in.mu.Unlock()
	})
	return err
}

// WrapStream wraps raft's stream layer: dials to a cut-off peer fail,
// connections accepted from one are closed at once, and open streams are
// closed when a partition begins.
func (in *Injector) WrapStream(l raft.StreamLayer) raft.StreamLayer {
	return &stream{StreamLayer: l, in: in}
}

type stream struct {
	raft.StreamLayer
	in *Injector
}

func (s *stream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if p := s.in.peerOf(string(address)); p != "" && s.in.IsPartitioned(p) {
		return nil, fmt.Errorf("dial raft peer %s (%s): %w", p, address, ErrPartitioned)
	}
	c, err := s.StreamLayer.Dial(address, timeout)
	if err != nil {
		return nil, err
	}
	peer, _ := wsstream.PeerID(c)
	if peer != "" {
		s.in.SetAddr(peer, string(address))
	}
	return s.in.track(c, peer)
}

func (s *stream) Accept() (net.Conn, error) {
	for {
		c, err := s.StreamLayer.Accept()
		if err != nil {
			return nil, err
		}
		peer, _ := wsstream.PeerID(c)
		if t, err := s.in.track(c, peer); err == nil {
			return t, nil
		}
	}
}

// WrapHandler wraps the peer port's handler: requests from a cut-off peer
// (raft stream upgrades, forwarding, status, membership) get 503 and the
// connection is not kept alive.
func (in *Injector) WrapHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peer, ok := replica.PeerIDOf(r); ok && in.IsPartitioned(peer) {
			w.Header().Set("Connection", "close")
			http.Error(w, "partitioned (fault injection)", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// DialContext dials the TCP connections of the node's peer client; a dial
// to a cut-off peer fails, and open connections to a peer are closed when
// a partition from it begins.
func (in *Injector) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	peer := in.peerOf(addr)
	if peer != "" && in.IsPartitioned(peer) {
		return nil, fmt.Errorf("dial %s (%s): %w", peer, addr, ErrPartitioned)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return in.track(c, peer)
}

// Network is the injectors of every node of a cluster running in one
// process, so that a partition can be set on both sides at once.
type Network struct {
	mu    sync.Mutex
	nodes map[string]*Injector
	addrs map[string]string
}

// NewNetwork returns an empty network.
func NewNetwork() *Network {
	return &Network{nodes: map[string]*Injector{}, addrs: map[string]string{}}
}

// Node returns the injector of node id (made on first use) and records
// its peer address, which every other injector learns.
func (nw *Network) Node(id, addr string) *Injector {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	in := nw.nodes[id]
	if in == nil {
		in = New(id)
		nw.nodes[id] = in
	}
	if addr != "" {
		nw.addrs[id] = addr
	}
	for pid, paddr := range nw.addrs {
		for _, other := range nw.nodes {
			if other.self != pid {
				other.SetAddr(pid, paddr)
			}
		}
	}
	return in
}

func (nw *Network) get(id string) *Injector {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.nodes[id]
}

// Partition cuts every node of side a off from every node of side b, on
// both sides.
func (nw *Network) Partition(a, b []string) {
	for _, x := range a {
		for _, y := range b {
			if in := nw.get(x); in != nil {
				in.Partition(y)
			}
			if in := nw.get(y); in != nil {
				in.Partition(x)
			}
		}
	}
}

// Isolate cuts node id off from every other node.
func (nw *Network) Isolate(id string) {
	nw.Partition([]string{id}, nw.others(id))
}

func (nw *Network) others(id string) []string {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	var out []string
	for p := range nw.nodes {
		if p != id {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// HealAll removes every partition.
func (nw *Network) HealAll() {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	for _, in := range nw.nodes {
		in.Heal()
	}
}

// SetDiskDelay sets node id's disk delay.
func (nw *Network) SetDiskDelay(id string, d time.Duration) {
	if in := nw.get(id); in != nil {
		in.SetDiskDelay(d)
	}
}
