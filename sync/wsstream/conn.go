package wsstream

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// closeGrace bounds how long Close waits to send a close message before it
// drops the connection anyway. A close message is a few bytes; it only
// waits when a Write is stuck on a peer that stopped reading, and then
// there is no point in waiting long.
const closeGrace = 100 * time.Millisecond

// conn is a net.Conn over a WebSocket connection: a byte stream carried in
// binary messages.
//
// A WebSocket connection supports one reader and one writer at a time;
// conn serializes Reads with each other and Writes with each other, so it
// is as safe for concurrent use as any net.Conn, and Close and the deadline
// setters may be called from any goroutine at any time. Raft's pipeline
// reads responses on one goroutine while another writes requests.
//
// Unlike a TCP connection, a conn whose deadline has passed is broken for
// good: the WebSocket framing may have been cut mid-frame, so every later
// read or write fails too. Raft discards a connection after any error, so
// this does not matter to it.
type conn struct {
	ws         *websocket.Conn
	peer       Peer
	maxMessage int64
	layer      *Layer

	rmu  sync.Mutex
	r    io.Reader // the message being read, or nil between messages
	rerr error     // the first read error; every later Read returns it

	wmu       sync.Mutex
	wdeadline atomic.Pointer[time.Time]

	closeOnce sync.Once
	closeErr  error
}

// Read reads the byte stream, continuing from one message into the next.
// After the peer closes normally it returns io.EOF. A text message, an
// oversized message or a malformed frame is a protocol violation: the
// connection is closed and Read returns an error (wrapping ErrNotBinary for
// a text message, websocket.ErrReadLimit for an oversized one).
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		if c.rerr != nil {
			return 0, c.rerr
		}
		if c.r == nil {
			typ, r, err := c.ws.NextReader()
			if err != nil {
				// NextReader errors are permanent, and calling it again
				// after one eventually panics; keep the error instead.
				return 0, c.fail(err)
			}
			if typ != websocket.BinaryMessage {
				c.rerr = fmt.Errorf("read raft stream from %s: %w", c.peer.ID, ErrNotBinary)
				_ = c.closeWith(websocket.CloseUnsupportedData, "binary messages only")
				return 0, c.rerr
			}
			c.r = r
		}
		n, err := c.r.Read(p)
		if err == io.EOF {
			// The end of one message, not of the stream.
			c.r, err = nil, nil
		}
		if err != nil {
			c.r = nil
			return n, c.fail(err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// fail records the read error err, translated into what a net.Conn reader
// expects, and returns it: io.EOF for a normal close, io.ErrUnexpectedEOF
// for a connection that ended without a close message, net errors (such as
// timeouts) as they are, and anything else wrapped with the peer's name.
// Anything else is a protocol violation by the peer (a malformed frame, an
// oversized message) and closes the connection.
func (c *conn) fail(err error) error {
	var (
		ce *websocket.CloseError
		ne net.Error
	)
	switch {
	case errors.As(err, &ce):
		switch ce.Code {
		case websocket.CloseNormalClosure, websocket.CloseGoingAway, websocket.CloseNoStatusReceived:
			c.rerr = io.EOF
		case websocket.CloseAbnormalClosure:
			c.rerr = io.ErrUnexpectedEOF
		default:
			c.rerr = fmt.Errorf("read raft stream from %s: peer closed the connection: %w", c.peer.ID, err)
		}
	case errors.As(err, &ne), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrUnexpectedEOF):
		c.rerr = err
	default:
		c.rerr = fmt.Errorf("read raft stream from %s: %w", c.peer.ID, err)
		// The WebSocket connection has already told the peer why (close
		// code 1002 or 1009); this close only drops the connection.
		_ = c.closeWith(websocket.CloseProtocolError, "")
	}
	return c.rerr
}

// Write sends p as one binary message, or as several if p is larger than
// the read limit, so that a peer with the same limit accepts every message.
// raft writes through a bufio.Writer, so messages are mostly one buffer
// flush each.
func (c *conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var deadline time.Time
	if d := c.wdeadline.Load(); d != nil {
		deadline = *d
	}
	// Only this method (under wmu) sets the WebSocket write deadline, which
	// the WebSocket connection applies at the start of each frame.
	_ = c.ws.SetWriteDeadline(deadline)
	n := 0
	for len(p) > 0 {
		chunk := p[:min(int64(len(p)), c.maxMessage)]
		if err := c.ws.WriteMessage(websocket.BinaryMessage, chunk); err != nil {
			return n, c.writeError(err)
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

// writeError wraps an error from the WebSocket connection, keeping net
// errors (such as timeouts) as they are.
func (c *conn) writeError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) {
		return err
	}
	return fmt.Errorf("write raft stream to %s: %w", c.peer.ID, err)
}

// Close sends a normal close message (briefly, without waiting for the
// answer) and closes the connection. It is safe to call concurrently and
// more than once; later calls return the first call's result.
func (c *conn) Close() error {
	return c.closeWith(websocket.CloseNormalClosure, "")
}

// closeWith closes the connection, telling the peer why with code and text.
func (c *conn) closeWith(code int, text string) error {
	c.closeOnce.Do(func() {
		msg := websocket.FormatCloseMessage(code, text)
		// Fails harmlessly if a close message was already sent (for
		// example by the read limit) or the connection is already broken.
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeGrace))
		c.closeErr = c.ws.Close()
		c.layer.forget(c)
	})
	return c.closeErr
}

// LocalAddr returns the local TCP address.
func (c *conn) LocalAddr() net.Addr { return c.ws.LocalAddr() }

// RemoteAddr returns the peer's TCP address.
func (c *conn) RemoteAddr() net.Addr { return c.ws.RemoteAddr() }

// SetDeadline sets both the read and the write deadline.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the deadline for Read, including one in progress.
func (c *conn) SetReadDeadline(t time.Time) error {
	return c.ws.SetReadDeadline(t)
}

// SetWriteDeadline sets the deadline for Write, including one in progress.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.wdeadline.Store(&t)
	// Reach a Write already blocked on the socket; the next Write applies
	// the deadline through the WebSocket connection.
	return c.ws.NetConn().SetWriteDeadline(t)
}
