package wsstream_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/villagehall/appliance/sync/wsstream"
)

// hijackWriter is an http.ResponseWriter whose connection is one end of a
// net.Pipe, so that the real Handler can be driven without a network.
type hijackWriter struct {
	header http.Header
	conn   net.Conn
}

func (w *hijackWriter) Header() http.Header         { return w.header }
func (w *hijackWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *hijackWriter) WriteHeader(int)             {}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.conn, bufio.NewReadWriter(bufio.NewReader(w.conn), bufio.NewWriter(w.conn)), nil
}

// frame encodes one client-to-server WebSocket frame with opcode op and a
// zero masking key (so the payload is sent as is), claiming length claim.
func frame(op byte, fin bool, payload []byte, claim uint64) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	switch {
	case claim < 126:
		out = append(out, 0x80|byte(claim))
	case claim <= 0xffff:
		out = append(out, 0x80|126)
		out = binary.BigEndian.AppendUint16(out, uint16(claim))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, claim)
	}
	out = append(out, 0, 0, 0, 0) // masking key
	return append(out, payload...)
}

func msg(op byte, payload string) []byte {
	return frame(op, true, []byte(payload), uint64(len(payload)))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// FuzzServerFrames feeds arbitrary bytes, as the frames of an upgraded
// connection from an authenticated peer, to the server side of a Layer and
// reads the stream as raft would. Whatever the bytes, nothing may panic and
// the read must end.
func FuzzServerFrames(f *testing.F) {
	const (
		binaryOp = 0x2
		textOp   = 0x1
		contOp   = 0x0
		closeOp  = 0x8
		pingOp   = 0x9
		pongOp   = 0xa
	)
	f.Add([]byte{})
	f.Add(msg(binaryOp, "hello"))
	f.Add(concat(msg(binaryOp, "hel"), msg(binaryOp, ""), msg(binaryOp, "lo")))
	f.Add(concat(frame(binaryOp, false, []byte("frag"), 4), msg(pingOp, "p"), frame(contOp, true, []byte("ment"), 4)))
	f.Add(concat(msg(binaryOp, "a"), msg(textOp, "text is refused")))
	f.Add(concat(msg(pongOp, ""), msg(closeOp, "\x03\xe8bye")))
	f.Add(msg(closeOp, "\x03"))              // close payload of one byte
	f.Add(msg(closeOp, "\x00\x01"))          // invalid close code
	f.Add(frame(binaryOp, true, nil, 2<<20)) // over the read limit
	f.Add(frame(binaryOp, true, nil, 1<<63)) // length with the top bit set
	f.Add(frame(0x3, true, nil, 0))          // reserved opcode
	f.Add(frame(contOp, true, []byte("x"), 1))
	f.Add([]byte{0x82, 0x05, 'h', 'e', 'l', 'l', 'o'}) // unmasked
	f.Add([]byte{0xf2, 0x80, 0, 0, 0, 0})              // RSV bits set
	f.Add(msg(pingOp, string(make([]byte, 126))))      // control frame too long

	w := newWireHarness(f)
	f.Fuzz(func(t *testing.T, wire []byte) {
		if _, err := w.serve(t, wire); err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				t.Fatalf("read did not end: %v", err)
			}
		}
	})
}

// wireHarness drives a Layer's real Handler over a net.Pipe, as if an
// authenticated peer had connected, and feeds it raw bytes.
type wireHarness struct {
	layer    *wsstream.Layer
	handler  http.Handler
	tlsState *tls.ConnectionState
}

// newWireHarness returns a harness around a Layer with a 1 MiB read limit.
func newWireHarness(tb testing.TB) *wireHarness {
	v := newVillage(tb)
	layer, err := wsstream.New(wsstream.Config{
		Advertise: "127.0.0.1:7443",
		Identity:  v.issue("server"),
		ReadLimit: 1 << 20,
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = layer.Close() })
	return &wireHarness{
		layer:   layer,
		handler: layer.Handler(),
		tlsState: &tls.ConnectionState{
			Version:           tls.VersionTLS13,
			HandshakeComplete: true,
			PeerCertificates:  []*x509.Certificate{v.issue("client").Certificate()},
		},
	}
}

// serve upgrades a connection through the handler, sends wire as the
// peer's bytes after the handshake, then closes the peer's end. It reads
// the accepted connection as raft does, in small pieces through a
// bufio.Reader, until the read fails, and returns what it read and the
// error that ended it.
func (w *wireHarness) serve(tb testing.TB, wire []byte) ([]byte, error) {
	tb.Helper()
	peer, srv := net.Pipe()
	defer peer.Close()

	req := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:7443"+wsstream.Path, nil)
	req.TLS = w.tlsState
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	go w.handler.ServeHTTP(&hijackWriter{header: http.Header{}, conn: srv}, req)

	// The peer's side: read everything the server sends (the 101
	// response, close messages, pongs) and send the bytes.
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	go func() {
		_, _ = peer.Write(wire)
		_ = peer.Close()
	}()

	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := w.layer.Accept(); err == nil {
			accepted <- c
		}
	}()
	var c net.Conn
	select {
	case c = <-accepted:
	case <-time.After(5 * time.Second):
		tb.Fatal("Accept timed out")
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReaderSize(c, 4096)
	var got []byte
	buf := make([]byte, 3)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, err
		}
	}
}

func TestWireHarness(t *testing.T) {
	w := newWireHarness(t)
	normalClose := msg(0x8, "\x03\xe8")
	cases := []struct {
		name    string
		wire    []byte
		want    string
		wantErr error
	}{
		{"messages then close", concat(msg(0x2, "hel"), msg(0x2, ""), msg(0x2, "lo"), normalClose), "hello", io.EOF},
		{"fragments around a pong", concat(frame(0x2, false, []byte("frag"), 4), msg(0xa, "p"), frame(0x0, true, []byte("ment"), 4), normalClose), "fragment", io.EOF},
		{"no close message", msg(0x2, "cut"), "cut", io.ErrUnexpectedEOF},
		{"text message", concat(msg(0x2, "ok"), msg(0x1, "text")), "ok", wsstream.ErrNotBinary},
		{"over the read limit", frame(0x2, true, nil, 2<<20), "", websocket.ErrReadLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.serve(t, tc.wire)
			if string(got) != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("read %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
