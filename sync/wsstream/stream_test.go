package wsstream_test

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/wsstream"
)

func TestReadAcrossMessageBoundaries(t *testing.T) {
	const limit = 1 << 20
	client, server := pair(t, limit)
	rng := mrand.New(mrand.NewPCG(1, 2))

	// Big writes, each split into several messages of at most the limit,
	// followed by tiny ones, in both directions at once.
	var want bytes.Buffer
	var writes [][]byte
	for _, size := range []int{5*limit + 123, limit, limit + 1, 3} {
		b := make([]byte, size)
		_, _ = rand.Read(b)
		writes = append(writes, b)
		want.Write(b)
	}
	for range 2000 {
		b := make([]byte, 1+rng.IntN(7))
		_, _ = rand.Read(b)
		writes = append(writes, b)
		want.Write(b)
	}

	var wg sync.WaitGroup
	for _, dir := range []struct {
		name string
		w, r net.Conn
	}{{"client to server", client, server}, {"server to client", server, client}} {
		wg.Go(func() {
			for _, b := range writes {
				if n, err := dir.w.Write(b); err != nil || n != len(b) {
					t.Errorf("%s: Write(%d bytes) = %d, %v", dir.name, len(b), n, err)
					return
				}
			}
		})
		wg.Go(func() {
			// Reads of odd sizes, so that they straddle messages.
			rng := mrand.New(mrand.NewPCG(3, uint64(len(dir.name))))
			got := make([]byte, 0, want.Len())
			buf := make([]byte, 64<<10)
			for len(got) < want.Len() {
				n, err := dir.r.Read(buf[:1+rng.IntN(len(buf)-1)])
				got = append(got, buf[:n]...)
				if err != nil {
					t.Errorf("%s: Read after %d bytes: %v", dir.name, len(got), err)
					return
				}
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s: read bytes differ from written bytes", dir.name)
			}
		})
	}
	wg.Wait()
}

func TestCloseReadsEOF(t *testing.T) {
	for _, closer := range []string{"client", "server"} {
		t.Run(closer+" closes", func(t *testing.T) {
			client, server := pair(t, 0)
			closing, other := client, server
			if closer == "server" {
				closing, other = server, client
			}
			if _, err := closing.Write([]byte("last words")); err != nil {
				t.Fatal(err)
			}
			if err := closing.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			got, err := io.ReadAll(other)
			if err != nil || string(got) != "last words" {
				t.Fatalf("ReadAll = %q, %v; want the last words and a clean EOF", got, err)
			}
			if n, err := other.Read(make([]byte, 8)); n != 0 || err != io.EOF {
				t.Errorf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
			}
			if _, err := closing.Write([]byte("x")); err == nil {
				t.Error("Write after Close succeeded")
			}
			if err := closing.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
}

func TestDeadlines(t *testing.T) {
	client, server := pair(t, 0)
	if err := server.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := server.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past the deadline = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Read timed out after %v", d)
	}

	if err := client.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = client.Write([]byte("late"))
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Write past the deadline = %v, want a timeout", err)
	}
}

func TestConcurrentClose(t *testing.T) {
	for i := range 5 {
		client, server := pair(t, 0)
		var wg sync.WaitGroup
		for _, c := range []net.Conn{client, server} {
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
			wg.Go(func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			})
			for range 4 {
				wg.Go(func() {
					_ = c.SetDeadline(time.Now().Add(time.Minute))
					time.Sleep(time.Duration(i) * time.Millisecond)
					_ = c.Close()
				})
			}
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("readers and writers did not stop after Close")
		}
	}
}

func TestPeerID(t *testing.T) {
	client, server := pair(t, 0)
	if id, ok := wsstream.PeerID(server); !ok || id != "client" {
		t.Errorf("PeerID(accepted) = %q, %v; want client", id, ok)
	}
	if id, ok := wsstream.PeerID(client); !ok || id != "server" {
		t.Errorf("PeerID(dialed) = %q, %v; want server", id, ok)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if id, ok := wsstream.PeerID(a); ok {
		t.Errorf("PeerID(pipe) = %q, true", id)
	}
	if got := client.RemoteAddr().String(); got == "" {
		t.Error("RemoteAddr is empty")
	}
}

// assertServes checks that n still accepts a well-behaved peer and carries
// bytes both ways.
func assertServes(t *testing.T, n *node, peer *node) {
	t.Helper()
	c := dial(t, peer.layer, n)
	s := accept(t, n)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q, %v", buf, err)
	}
	if _, err := s.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("client read %q, %v", buf, err)
	}
}

func TestTextMessageRejected(t *testing.T) {
	v := newVillage(t)
	srv := startNode(t, v.issue("server"), nodeOptions{})
	cli := startNode(t, v.issue("client"), nodeOptions{})

	ws, _, err := rawDialer(cli.id.ClientTLS()).Dial(wsURL(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.BinaryMessage, []byte("ok")); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteMessage(websocket.TextMessage, []byte("not raft")); err != nil {
		t.Fatal(err)
	}
	s := accept(t, srv)
	got, err := io.ReadAll(s)
	if !errors.Is(err, wsstream.ErrNotBinary) || string(got) != "ok" {
		t.Errorf("server read %q, %v; want the binary bytes, then ErrNotBinary", got, err)
	}
	_, _, err = ws.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseUnsupportedData) {
		t.Errorf("peer got %v, want close 1003", err)
	}
	assertServes(t, srv, cli)
}

func TestOversizedMessageRejected(t *testing.T) {
	const limit = 64 << 10
	v := newVillage(t)
	srv := startNode(t, v.issue("server"), nodeOptions{readLimit: limit})
	cli := startNode(t, v.issue("client"), nodeOptions{readLimit: limit})

	ws, _, err := rawDialer(cli.id.ClientTLS()).Dial(wsURL(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s := accept(t, srv)
	go func() { _ = ws.WriteMessage(websocket.BinaryMessage, make([]byte, 2*limit)) }()
	if _, err := io.Copy(io.Discard, s); !errors.Is(err, websocket.ErrReadLimit) {
		t.Errorf("server read error %v, want ErrReadLimit", err)
	}
	_, _, err = ws.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Errorf("peer got %v, want close 1009", err)
	}
	assertServes(t, srv, cli)
}

// acceptNothing starts an Accept on n and returns a function that fails the
// test if Accept yielded a connection, then closes the layer and checks
// that Accept returns net.ErrClosed.
func acceptNothing(t *testing.T, n *node) (check func()) {
	t.Helper()
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := n.layer.Accept()
		ch <- result{c, err}
	}()
	return func() {
		t.Helper()
		select {
		case r := <-ch:
			t.Fatalf("Accept yielded %v, %v before Close", r.c, r.err)
		case <-time.After(100 * time.Millisecond):
		}
		_ = n.layer.Close()
		select {
		case r := <-ch:
			if r.c != nil || !errors.Is(r.err, net.ErrClosed) {
				t.Fatalf("Accept after Close = %v, %v; want net.ErrClosed", r.c, r.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Accept did not return after Close")
		}
	}
}

func TestStrangersRefusedAtHandshake(t *testing.T) {
	v := newVillage(t)
	srv := startNode(t, v.issue("server"), nodeOptions{})
	check := acceptNothing(t, srv)

	stranger := startNode(t, newVillage(t).issue("server"), nodeOptions{})
	if c, err := stranger.layer.Dial(raft.ServerAddress(srv.addr), 5*time.Second); err == nil {
		c.Close()
		t.Error("Dial from another village succeeded")
	}
	// A stranger that trusts any server still cannot get past TLS.
	strangerTLS := newVillage(t).issue("intruder").ClientTLS()
	strangerTLS.VerifyConnection = nil
	noCert := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true}
	for name, cfg := range map[string]*tls.Config{"another CA": strangerTLS, "no certificate": noCert} {
		if ws, _, err := rawDialer(cfg).Dial(wsURL(srv), nil); err == nil {
			ws.Close()
			t.Errorf("peer with %s connected", name)
		}
	}
	check()
}

func TestStrangersRefusedWithForbidden(t *testing.T) {
	// A peer port whose TLS asks for client certificates but lets any
	// through: the handler itself must refuse strangers with 403.
	v := newVillage(t)
	serverID := v.issue("server")
	loose := &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: serverID.ServerTLS().Certificates,
		ClientAuth:   tls.RequestClientCert,
	}
	srv := startNode(t, serverID, nodeOptions{tls: loose})
	member := startNode(t, v.issue("member"), nodeOptions{})
	check := acceptNothing(t, srv)

	strangerTLS := newVillage(t).issue("intruder").ClientTLS()
	strangerTLS.VerifyConnection = nil
	noCert := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true}
	for name, cfg := range map[string]*tls.Config{"another CA": strangerTLS, "no certificate": noCert} {
		ws, resp, err := rawDialer(cfg).Dial(wsURL(srv), nil)
		if err == nil {
			ws.Close()
			t.Errorf("peer with %s connected", name)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("peer with %s: %v, response %v; want 403", name, err, resp)
		}
	}

	// A stranger whose server-side certificate the client trusts: Dial
	// reports ErrRefused.
	other := newVillage(t)
	fake := &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: other.issue("server").ServerTLS().Certificates,
		ClientAuth:   tls.RequestClientCert,
	}
	srv2 := startNode(t, serverID, nodeOptions{tls: fake})
	check2 := acceptNothing(t, srv2)
	dialer := startNode(t, other.issue("intruder"), nodeOptions{})
	if _, err := dialer.layer.Dial(raft.ServerAddress(srv2.addr), 5*time.Second); !errors.Is(err, wsstream.ErrRefused) {
		t.Errorf("Dial refused by the handler = %v, want ErrRefused", err)
	}

	// Without TLS at all.
	plain := httptest.NewServer(srv.layer.Handler())
	defer plain.Close()
	resp, err := http.Get(plain.URL + wsstream.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("plain HTTP: %s, want 403", resp.Status)
	}

	check()
	check2()

	// The member gets through the loose server: the 403s were about the
	// certificates. (A new layer, since the old one is closed now.)
	srv3 := startNode(t, serverID, nodeOptions{tls: loose})
	assertServes(t, srv3, member)
}

func TestLayerClose(t *testing.T) {
	v := newVillage(t)
	srv := startNode(t, v.issue("server"), nodeOptions{})
	cli := startNode(t, v.issue("client"), nodeOptions{})
	c := dial(t, cli.layer, srv)
	s := accept(t, srv)

	if err := srv.layer.Close(); err != nil {
		t.Fatal(err)
	}
	// The accepted connection is closed with the layer; the peer sees EOF.
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("peer Read after layer Close = %d, %v; want io.EOF", n, err)
	}
	if _, err := s.Write([]byte("x")); err == nil {
		t.Error("Write on a closed layer's connection succeeded")
	}
	if _, err := srv.layer.Dial(raft.ServerAddress(cli.addr), time.Second); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Dial on closed layer = %v, want net.ErrClosed", err)
	}
	if _, err := cli.layer.Dial(raft.ServerAddress(srv.addr), 5*time.Second); err == nil {
		t.Error("Dial to a closed layer succeeded")
	}
	if _, err := srv.layer.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept on closed layer = %v, want net.ErrClosed", err)
	}
	if err := srv.layer.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if got := srv.layer.Addr().String(); got != srv.addr {
		t.Errorf("Addr = %q, want %q", got, srv.addr)
	}
}

func TestNewValidates(t *testing.T) {
	id := newVillage(t).issue("kiosk")
	for _, adv := range []string{"", "127.0.0.1", "0.0.0.0:7443", "[::]:7443", ":7443", "host:0", "host:http", "host:70000"} {
		if _, err := wsstream.New(wsstream.Config{Advertise: adv, Identity: id}); err == nil {
			t.Errorf("New(advertise %q) succeeded", adv)
		}
	}
	if _, err := wsstream.New(wsstream.Config{Advertise: "127.0.0.1:7443"}); err == nil {
		t.Error("New without identity succeeded")
	}
	if _, err := wsstream.New(wsstream.Config{Advertise: "127.0.0.1:7443", Identity: id, ReadLimit: -1}); err == nil {
		t.Error("New with a negative read limit succeeded")
	}
	l, err := wsstream.New(wsstream.Config{Advertise: "kiosk.village.lan:7443", Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	if a := l.Addr(); a.String() != "kiosk.village.lan:7443" || a.Network() != "tcp" {
		t.Errorf("Addr = %s/%s", a.Network(), a)
	}
	_ = l.Close()
}
