// Package wsstream carries hashicorp/raft's NetworkTransport over WebSocket
// connections secured with mutual TLS from the village CA.
//
// A Layer is a raft.StreamLayer: raft dials peers through Layer.Dial and
// receives their connections through Layer.Accept. On the wire each raft
// byte stream is a sequence of binary WebSocket messages on a wss://
// connection to the peer's HTTPS port, path /raft, so raft shares one port
// (and one firewall rule) with the node's other peer services.
//
//	layer, err := wsstream.New(wsstream.Config{Advertise: "10.0.0.2:7443", Identity: id})
//	mux.Handle(wsstream.Path, layer.Handler())
//	srv := &http.Server{Handler: mux, TLSConfig: id.ServerTLS()}
//	go srv.ServeTLS(ln, "", "")
//	transport := raft.NewNetworkTransport(layer, 3, 10*time.Second, logOutput)
//
// Both ends authenticate: the handler refuses, with 403 before upgrading, a
// peer whose client certificate does not chain to the village CA or names no
// node; Dial refuses a server whose certificate does the same. Both ends
// also check that the other is of their cluster (ClusterHeader): the
// handler refuses a peer of another cluster with 409 before upgrading, and
// Dial fails with an error wrapping pki.ErrForeignCluster. PeerID tells
// which node is on the other end of a connection.
//
// The layer sends no WebSocket pings of its own (it answers the peer's):
// raft's heartbeats keep its connections busy and its timeouts detect a
// dead peer, and TCP keep-alives, on by default for dialed connections,
// keep idle pooled connections known to firewalls between the buildings.
package wsstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
)

// Path is where Handler must be mounted on the peer port; Dial connects to
// it.
const Path = "/raft"

// DefaultReadLimit is the default Config.ReadLimit: 64 MiB.
const DefaultReadLimit = 64 << 20

const (
	// defaultDialTimeout bounds a Dial whose caller passed no timeout, so
	// that a peer that accepts TCP but never finishes the TLS or WebSocket
	// handshake cannot hang raft forever.
	defaultDialTimeout = 10 * time.Second
	// handshakeTimeout bounds the server side of the WebSocket handshake.
	handshakeTimeout = 10 * time.Second
	// readBufferSize matches the largest TLS record (16 KiB).
	readBufferSize = 16 << 10
	// writeBufferSize lets a typical AppendEntries batch go out in one frame.
	writeBufferSize = 32 << 10
)

// Sentinel errors, compared with errors.Is.
var (
	// ErrRefused reports that a peer answered a Dial with 403 Forbidden:
	// it does not trust this node's certificate.
	ErrRefused = errors.New("peer refused this node's certificate")
	// ErrNotBinary reports a text WebSocket message on a raft stream, which
	// only ever carries binary messages. The connection is closed.
	ErrNotBinary = errors.New("text message on a binary raft stream")
)

// Config configures a Layer.
type Config struct {
	// Advertise is the host:port where other nodes reach this node's peer
	// port. Addr returns it, so it is the address raft records for this
	// server in the cluster configuration. It must not be an unspecified
	// address such as 0.0.0.0.
	Advertise string

	// Identity is this node's certificate and key and the village CA. It
	// authenticates this node when dialing and checks peers both ways.
	Identity *pki.Identity

	// ReadLimit is the largest single WebSocket message accepted from a
	// peer, in bytes; a larger one closes the connection (close code 1009)
	// and the read fails with websocket.ErrReadLimit. Zero means
	// DefaultReadLimit (64 MiB).
	//
	// Raft's largest messages are AppendEntries batches (up to
	// MaxAppendEntries log entries, 64 by default, each as large as the
	// command it carries) and InstallSnapshot chunks (raft's 256 KiB send
	// buffer; more if a single Write is larger). The appliance's commands are
	// a few hundred bytes, so 64 MiB is far above anything honest and still
	// bounds what a broken peer can make this node parse as one message.
	// Write also splits anything larger than ReadLimit into several
	// messages, so nodes with the same ReadLimit never trip it; give every
	// node the same value.
	ReadLimit int64

	// Logger receives one line for each refused peer. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Layer is a raft.StreamLayer over WebSockets with mutual TLS. Its Handler
// accepts connections from peers, which Accept then returns; Dial connects
// to peers. It is safe for concurrent use.
type Layer struct {
	advertise addr
	identity  *pki.Identity
	readLimit int64
	logger    *slog.Logger
	upgrader  websocket.Upgrader
	dialer    websocket.Dialer

	accept    chan *conn    // accepted connections on their way to Accept
	closed    chan struct{} // closed by Close
	closeOnce sync.Once

	mu    sync.Mutex
	conns map[*conn]struct{} // open connections; nil once closed
}

var _ raft.StreamLayer = (*Layer)(nil)

// New returns a Layer for the node described by cfg.
func New(cfg Config) (*Layer, error) {
	if cfg.Identity == nil {
		return nil, errors.New("new raft stream layer: no identity")
	}
	if err := checkAdvertise(cfg.Advertise); err != nil {
		return nil, fmt.Errorf("new raft stream layer: %w", err)
	}
	if cfg.ReadLimit < 0 {
		return nil, fmt.Errorf("new raft stream layer: negative read limit %d", cfg.ReadLimit)
	}
	if cfg.ReadLimit == 0 {
		cfg.ReadLimit = DefaultReadLimit
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}

	clientTLS := cfg.Identity.ClientTLS()
	// WebSocket needs HTTP/1.1; never let ALPN pick h2.
	clientTLS.NextProtos = []string{"http/1.1"}

	l := &Layer{
		advertise: addr(cfg.Advertise),
		identity:  cfg.Identity,
		readLimit: cfg.ReadLimit,
		logger:    cfg.Logger.With("component", "raft-ws", "node", cfg.Identity.NodeID()),
		upgrader: websocket.Upgrader{
			HandshakeTimeout: handshakeTimeout,
			ReadBufferSize:   readBufferSize,
			WriteBufferSize:  writeBufferSize,
			// Raft peers are never browsers, so a request carrying an
			// Origin header did not come from one.
			CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") == "" },
		},
		dialer: websocket.Dialer{
			TLSClientConfig: clientTLS,
			ReadBufferSize:  readBufferSize,
			WriteBufferSize: writeBufferSize,
			// Proxy stays nil: peers are on the LAN, and a proxy from
			// the environment must never see raft traffic.
		},
		accept: make(chan *conn),
		closed: make(chan struct{}),
		conns:  make(map[*conn]struct{}),
	}
	return l, nil
}

// checkAdvertise checks that a is a host:port other nodes can dial.
func checkAdvertise(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("advertise address %q: %w", a, err)
	}
	if host == "" {
		return fmt.Errorf("advertise address %q has no host", a)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("advertise address %q is not reachable by peers", a)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return fmt.Errorf("advertise address %q has no valid port", a)
	}
	return nil
}

// Handler returns the HTTP handler that accepts raft connections from peers.
// Mount it at Path on the node's HTTPS peer port, served with
// Identity.ServerTLS. The handler checks the client certificate itself as
// well, so that a server configured more loosely still lets no raft byte
// through from a stranger: a request without a client certificate that
// chains to the village CA and names a node gets 403 Forbidden before any
// upgrade. Accepted connections are handed to Accept; the handler waits
// until Accept takes each one or the layer is closed.
func (l *Layer) Handler() http.Handler {
	return http.HandlerFunc(l.serveRaft)
}

// serveRaft implements Handler.
func (l *Layer) serveRaft(w http.ResponseWriter, r *http.Request) {
	var chain []*x509.Certificate
	if r.TLS != nil {
		chain = r.TLS.PeerCertificates
	}
	peer, err := l.identity.VerifyPeer(chain, x509.ExtKeyUsageClientAuth)
	var role string
	if err == nil {
		role, err = pki.StatedRole(chain[0])
	}
	if err != nil {
		l.logger.Warn("refused raft peer", "remote", r.RemoteAddr, "tls", r.TLS != nil, "error", err)
		http.Error(w, "Forbidden: a certificate from the village CA is required.", http.StatusForbidden)
		return
	}
	if l.isClosed() {
		http.Error(w, "Raft transport is shut down.", http.StatusServiceUnavailable)
		return
	}
	own := l.identity.Cluster()
	if err := checkCluster(own, peer, r.Header.Get(ClusterHeader)); err != nil {
		l.logger.Warn("refused raft peer of another cluster", "peer", peer, "remote", r.RemoteAddr, "error", err)
		for k, v := range clusterHeader(own) {
			w.Header()[k] = v
		}
		http.Error(w, "Conflict: "+err.Error(), http.StatusConflict)
		return
	}
	ws, err := l.upgrader.Upgrade(w, r, clusterHeader(own))
	if err != nil {
		// Upgrade has already answered the client.
		l.logger.Debug("raft websocket upgrade failed", "peer", peer, "remote", r.RemoteAddr, "error", err)
		return
	}
	c, err := l.newConn(ws, Peer{ID: peer, Role: role})
	if err != nil {
		return
	}
	select {
	case l.accept <- c:
	case <-l.closed:
		_ = c.Close()
	}
}

// Accept waits for and returns the next connection a peer made to Handler.
// After Close it returns an error wrapping net.ErrClosed.
func (l *Layer) Accept() (net.Conn, error) {
	// Once closed, never hand out a connection, even one that is ready.
	if l.isClosed() {
		return nil, fmt.Errorf("accept raft connection: %w", net.ErrClosed)
	}
	select {
	case c := <-l.accept:
		return c, nil
	case <-l.closed:
		return nil, fmt.Errorf("accept raft connection: %w", net.ErrClosed)
	}
}

// Addr returns the advertise address.
func (l *Layer) Addr() net.Addr { return l.advertise }

// Close stops the layer: Accept returns an error, Handler refuses new
// connections with 503, Dial fails, and every connection the layer accepted
// or dialed is closed, so a node that closes its transport really leaves the
// network rather than lingering on half-open connections. Close is
// idempotent and always returns nil.
func (l *Layer) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.mu.Lock()
		conns := l.conns
		l.conns = nil
		l.mu.Unlock()
		var wg sync.WaitGroup
		for c := range conns {
			wg.Go(func() { _ = c.Close() })
		}
		wg.Wait()
	})
	return nil
}

// isClosed reports whether Close has been called.
func (l *Layer) isClosed() bool {
	select {
	case <-l.closed:
		return true
	default:
		return false
	}
}

// Dial connects to the peer at address (host:port of its peer port) over
// wss://address/raft with this node's client certificate, and checks that
// the server presents a certificate from the village CA naming a node. The
// timeout covers the TCP, TLS and WebSocket handshakes; zero or less means
// ten seconds. A peer that refuses this node's certificate yields an error
// wrapping ErrRefused.
func (l *Layer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if l.isClosed() {
		return nil, fmt.Errorf("dial raft peer %s: %w", address, net.ErrClosed)
	}
	if timeout <= 0 {
		timeout = defaultDialTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	u := url.URL{Scheme: "wss", Host: string(address), Path: Path}
	own := l.identity.Cluster()
	ws, resp, err := l.dialer.DialContext(ctx, u.String(), clusterHeader(own))
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusForbidden {
			return nil, fmt.Errorf("dial raft peer %s: %w", address, ErrRefused)
		}
		if resp != nil && resp.StatusCode == http.StatusConflict {
			return nil, fmt.Errorf("dial raft peer %s: refused: %w", address, checkCluster(own, string(address), resp.Header.Get(ClusterHeader)))
		}
		if resp != nil {
			return nil, fmt.Errorf("dial raft peer %s: %w (HTTP %s)", address, err, resp.Status)
		}
		return nil, fmt.Errorf("dial raft peer %s: %w", address, err)
	}
	peer, err := dialedPeer(ws)
	if err != nil {
		_ = ws.Close()
		return nil, fmt.Errorf("dial raft peer %s: %w", address, err)
	}
	if err := checkCluster(own, peer.ID, resp.Header.Get(ClusterHeader)); err != nil {
		_ = ws.Close()
		l.logger.Warn("refused raft peer of another cluster", "peer", peer.ID, "address", string(address), "error", err)
		return nil, fmt.Errorf("dial raft peer %s: %w", address, err)
	}
	c, err := l.newConn(ws, peer)
	if err != nil {
		return nil, fmt.Errorf("dial raft peer %s: %w", address, err)
	}
	return c, nil
}

// dialedPeer returns the node id and role of the server at the other end
// of ws, whose certificate ClientTLS has verified during the handshake.
func dialedPeer(ws *websocket.Conn) (Peer, error) {
	tc, ok := ws.NetConn().(*tls.Conn)
	if !ok {
		return Peer{}, errors.New("connection is not over TLS")
	}
	certs := tc.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return Peer{}, fmt.Errorf("server presented no certificate: %w", pki.ErrUntrusted)
	}
	id, err := pki.NodeIDOf(certs[0])
	if err != nil {
		return Peer{}, err
	}
	role, err := pki.StatedRole(certs[0])
	if err != nil {
		return Peer{}, err
	}
	return Peer{ID: id, Role: role}, nil
}

// newConn wraps ws, applies the read limit and registers the connection so
// that Close can close it. It fails, closing ws, if the layer is closed.
func (l *Layer) newConn(ws *websocket.Conn, peer Peer) (*conn, error) {
	ws.SetReadLimit(l.readLimit)
	c := &conn{ws: ws, peer: peer, maxMessage: l.readLimit, layer: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conns == nil {
		_ = ws.Close()
		return nil, net.ErrClosed
	}
	l.conns[c] = struct{}{}
	return c, nil
}

// forget removes c from the open connections.
func (l *Layer) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// Peer is the node at the other end of a connection, as its certificate
// from the village CA says.
type Peer struct {
	ID   string // its node id
	Role string // the node role its certificate states (pki.StatedRole: "" for one from before roles)
}

// PeerOf returns the node at the other end of conn, as proved by its
// certificate, and true; or a zero Peer, false if conn did not come from a
// Layer's Accept or Dial. A connection wrapping one from a Layer (fault
// injection does) is looked through if it returns the one it wraps from a
// NetConn method, as tls.Conn does.
func PeerOf(c net.Conn) (Peer, bool) {
	for c != nil {
		if wc, ok := c.(*conn); ok {
			return wc.peer, true
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return Peer{}, false
		}
		c = u.NetConn()
	}
	return Peer{}, false
}

// PeerID returns the node id of the peer at the other end of conn (PeerOf).
func PeerID(c net.Conn) (string, bool) {
	p, ok := PeerOf(c)
	return p.ID, ok
}

// addr is the advertise address as a net.Addr.
type addr string

// Network returns "tcp": peers reach the address over TCP.
func (a addr) Network() string { return "tcp" }

// String returns the host:port.
func (a addr) String() string { return string(a) }
