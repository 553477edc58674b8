package wsstream_test

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// testVillage is a test CA that issues node identities.
type testVillage struct {
	tb testing.TB
	ca *pki.CA
}

func newVillage(tb testing.TB) *testVillage {
	tb.Helper()
	ca, err := pki.NewCA("Testville", time.Now())
	if err != nil {
		tb.Fatalf("NewCA: %v", err)
	}
	return &testVillage{tb: tb, ca: ca}
}

func (v *testVillage) issue(nodeID string) *pki.Identity {
	v.tb.Helper()
	return v.issueAs(nodeID, pki.RoleClerk)
}

// issueAs issues nodeID a certificate carrying role.
func (v *testVillage) issueAs(nodeID, role string) *pki.Identity {
	v.tb.Helper()
	id, err := v.ca.Issue(nodeID, role, nil, time.Now())
	if err != nil {
		v.tb.Fatalf("Issue(%q): %v", nodeID, err)
	}
	return id
}

// node is one peer port: an HTTPS server on 127.0.0.1 with a Layer's
// handler mounted at /raft.
type node struct {
	id    *pki.Identity
	layer *wsstream.Layer
	addr  string

	srv      *http.Server
	stopOnce sync.Once
}

// nodeOptions adjust startNode.
type nodeOptions struct {
	// tls replaces id.ServerTLS() as the server's TLS configuration.
	tls *tls.Config
	// readLimit is the layer's read limit; zero means the default.
	readLimit int64
}

// startNode starts a peer port for id, serving its Layer's handler at /raft
// over HTTPS on 127.0.0.1, and stops it when the test ends.
func startNode(tb testing.TB, id *pki.Identity, opts nodeOptions) *node {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	layer, err := wsstream.New(wsstream.Config{
		Advertise: ln.Addr().String(),
		Identity:  id,
		ReadLimit: opts.readLimit,
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tlsConfig := opts.tls
	if tlsConfig == nil {
		tlsConfig = id.ServerTLS()
	}
	mux := http.NewServeMux()
	mux.Handle(wsstream.Path, layer.Handler())
	srv := &http.Server{
		Handler:           mux,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 5 * time.Second,
		// Refused handshakes are expected in these tests.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			tb.Errorf("serve: %v", err)
		}
	}()
	n := &node{id: id, layer: layer, addr: ln.Addr().String(), srv: srv}
	tb.Cleanup(n.stop)
	return n
}

// stop closes the layer (and with it every raft connection) and the server.
func (n *node) stop() {
	n.stopOnce.Do(func() {
		_ = n.layer.Close()
		_ = n.srv.Close()
	})
}

// dial dials n from layer and fails the test on error.
func dial(tb testing.TB, from *wsstream.Layer, to *node) net.Conn {
	tb.Helper()
	c, err := from.Dial(raft.ServerAddress(to.addr), 5*time.Second)
	if err != nil {
		tb.Fatalf("Dial(%s): %v", to.addr, err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// accept returns the next connection n accepts, failing after a timeout.
func accept(tb testing.TB, n *node) net.Conn {
	tb.Helper()
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := n.layer.Accept()
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			tb.Fatalf("Accept: %v", r.err)
		}
		tb.Cleanup(func() { _ = r.c.Close() })
		return r.c
	case <-time.After(5 * time.Second):
		tb.Fatal("Accept: timed out")
		return nil
	}
}

// pair returns both ends of a connection from a client node to a server
// node of the same village, each layer with the given read limit.
func pair(tb testing.TB, readLimit int64) (client, server net.Conn) {
	tb.Helper()
	v := newVillage(tb)
	srv := startNode(tb, v.issue("server"), nodeOptions{readLimit: readLimit})
	cli := startNode(tb, v.issue("client"), nodeOptions{readLimit: readLimit})
	client = dial(tb, cli.layer, srv)
	server = accept(tb, srv)
	return client, server
}

// rawDialer returns a plain WebSocket dialer presenting tlsConfig, for
// playing a misbehaving peer.
func rawDialer(tlsConfig *tls.Config) *websocket.Dialer {
	tlsConfig = tlsConfig.Clone()
	tlsConfig.NextProtos = []string{"http/1.1"}
	return &websocket.Dialer{TLSClientConfig: tlsConfig, HandshakeTimeout: 5 * time.Second}
}

// wsURL is the raft URL of n.
func wsURL(n *node) string { return "wss://" + n.addr + wsstream.Path }
