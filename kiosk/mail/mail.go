// Package mail sends e-mail through the SMTP relay in a node's
// configuration (net/smtp): the e-mailed copies of the kiosk's receipts.
// A message is queued first and sent when the relay answers, so a copy
// asked for while the node is offline goes out once it is back. The queue
// is in memory: a copy still waiting when the node restarts is lost (the
// printed receipt and the ledger are the record; the copy is a courtesy).
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"strings"
	"sync"
	"time"
)

// Config is the relay and the sender.
type Config struct {
	Relay string // host:port of the SMTP relay
	From  string // the sender's address
	// Retry is how long to wait after the relay did not answer; zero
	// means a minute.
	Retry  time.Duration
	Logger *slog.Logger
	Now    func() time.Time // for the Date header; nil is time.Now
}

// Message is one e-mail in plain text.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Queue holds messages until the relay takes them.
type Queue struct {
	cfg  Config
	from mail.Address
	mu   sync.Mutex
	wait []Message
	kick chan struct{}
	sent chan struct{} // closed and replaced each time the queue empties
}

// ErrAddress is returned for an address that is not an e-mail address.
var ErrAddress = errors.New("not an e-mail address")

// New returns a queue for the relay in cfg.
func New(cfg Config) (*Queue, error) {
	if _, _, err := net.SplitHostPort(cfg.Relay); err != nil {
		return nil, fmt.Errorf("mail relay %q: %w", cfg.Relay, err)
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail sender %q: %w", cfg.From, err)
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Queue{cfg: cfg, from: *from, kick: make(chan struct{}, 1), sent: make(chan struct{})}, nil
}

// ParseAddress returns the bare address in s ("ana@example.com"), or
// ErrAddress.
func ParseAddress(s string) (string, error) {
	a, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil || a.Name != "" || !strings.Contains(a.Address[strings.LastIndex(a.Address, "@")+1:], ".") {
		return "", ErrAddress
	}
	return a.Address, nil
}

// Enqueue queues m and wakes the sender.
func (q *Queue) Enqueue(m Message) error {
	to, err := ParseAddress(m.To)
	if err != nil {
		return err
	}
	m.To = to
	q.mu.Lock()
	q.wait = append(q.wait, m)
	q.mu.Unlock()
	q.Kick()
	return nil
}

// Kick makes the sender try at once, without waiting for the retry.
func (q *Queue) Kick() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// Pending returns how many messages wait for the relay.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.wait)
}

// Sent returns a channel closed once the queue is next empty.
func (q *Queue) Sent() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.wait) == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return q.sent
}

// Run sends queued messages until ctx ends: at once when one is queued,
// and again every Retry while the relay does not answer.
func (q *Queue) Run(ctx context.Context) {
	t := time.NewTimer(q.cfg.Retry)
	defer t.Stop()
	for {
		q.flush(ctx)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(q.cfg.Retry)
		select {
		case <-ctx.Done():
			return
		case <-q.kick:
		case <-t.C:
		}
	}
}

// flush sends the queued messages in order, stopping at the first the
// relay does not take (it is tried again later, with those after it).
func (q *Queue) flush(ctx context.Context) {
	for ctx.Err() == nil {
		q.mu.Lock()
		if len(q.wait) == 0 {
			q.mu.Unlock()
			return
		}
		m := q.wait[0]
		q.mu.Unlock()
		if err := q.send(ctx, m); err != nil {
			q.cfg.Logger.Warn("e-mail not sent yet: the relay did not take it", "relay", q.cfg.Relay, "err", err)
			return
		}
		q.mu.Lock()
		q.wait = q.wait[1:]
		if len(q.wait) == 0 {
			close(q.sent)
			q.sent = make(chan struct{})
		}
		q.mu.Unlock()
	}
}

// send hands m to the relay, over STARTTLS when the relay offers it.
func (q *Queue) send(ctx context.Context, m Message) error {
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", q.cfg.Relay)
	if err != nil {
		return err
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	host, _, _ := net.SplitHostPort(q.cfg.Relay)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if err := c.Mail(q.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(q.format(m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// format writes m as an RFC 5322 message in UTF-8, quoted-printable.
func (q *Queue) format(m Message) []byte {
	var b bytes.Buffer
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	_, domain, _ := strings.Cut(q.from.Address, "@")
	fmt.Fprintf(&b, "From: %s\r\n", q.from.String())
	fmt.Fprintf(&b, "To: %s\r\n", m.To)
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", m.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", q.cfg.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(m.Body, "\n", "\r\n")))
	_ = qp.Close()
	return b.Bytes()
}
