// Package mail sends e-mail through the SMTP relay in a node's
// configuration (net/smtp): the e-mailed copies of the kiosk's receipts.
// A message is queued first and sent when the relay answers, so a copy
// asked for while the node is offline goes out once it is back.
//
// The queue is a folder under the node's data folder, one file per
// message, so a copy still waiting when the node restarts goes out after
// the restart. Enqueue returns only once the message's file is on disk
// (written, synced and renamed into place, the folder synced); a message's
// file is removed once the relay took it. The files hold residents'
// addresses, personal data: they and the folder are readable by the
// node's user only. A file that cannot be read back (truncated by a power
// cut, damaged) is not sent and not deleted: it is renamed aside with
// ".corrupt" and the error is logged for the operator.
//
// A message is sent at least once: a node that stops between the relay's
// acceptance and the file's removal sends that copy again after the
// restart. Nothing else is sent twice.
package mail

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config is the relay, the sender and the queue's folder.
type Config struct {
	Relay string // host:port of the SMTP relay
	From  string // the sender's address
	// Dir is the folder that holds the queued messages (created, mode
	// 0700, when missing), under the node's data folder.
	Dir string
	// Retry is how long to wait after the relay did not answer; zero
	// means a minute.
	Retry  time.Duration
	Logger *slog.Logger
	Now    func() time.Time // for the Date header; nil is time.Now
}

// Message is one e-mail: a plain text body and, optionally, files
// attached to it (a status letter's PDF).
type Message struct {
	To          string       `json:"to"`
	Subject     string       `json:"subject"`
	Body        string       `json:"body"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is a file sent with a message.
type Attachment struct {
	Name        string `json:"name"`         // the file's name, "SL-2026-0001.pdf"
	ContentType string `json:"content_type"` // "application/pdf"
	Data        []byte `json:"data"`
}

// queued is a message and the file that holds it.
type queued struct {
	Message
	file string // its file's name in the queue's folder
}

// Queue holds messages until the relay takes them.
type Queue struct {
	cfg  Config
	from mail.Address
	mu   sync.Mutex
	wait []queued
	next uint64 // the sequence number of the next message's file
	kick chan struct{}
	sent chan struct{} // closed and replaced each time the queue empties
}

// ErrAddress is returned for an address that is not an e-mail address.
var ErrAddress = errors.New("not an e-mail address")

// Check says whether cfg names a relay and a sender that can be used.
func (cfg Config) Check() error {
	_, err := cfg.check()
	return err
}

func (cfg Config) check() (*mail.Address, error) {
	if _, _, err := net.SplitHostPort(cfg.Relay); err != nil {
		return nil, fmt.Errorf("mail relay %q: %w", cfg.Relay, err)
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail sender %q: %w", cfg.From, err)
	}
	return from, nil
}

// New returns a queue for the relay in cfg, holding the messages that
// were waiting in cfg.Dir.
func New(cfg Config) (*Queue, error) {
	from, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		return nil, errors.New("mail queue: no folder for the queued messages")
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
	q := &Queue{cfg: cfg, from: *from, kick: make(chan struct{}, 1), sent: make(chan struct{})}
	if err := q.load(); err != nil {
		return nil, err
	}
	return q, nil
}

// The queue's files: "<sequence>.msg", holding a header line with the
// SHA-256 of the rest, then the message as JSON. A file being written is
// "<sequence>.tmp" until it is complete.
const (
	fileExt    = ".msg"
	tmpExt     = ".tmp"
	corruptExt = ".corrupt"
	header     = "villagehall-mail 1 "
)

// load reads the folder's messages in the order they were queued. A file
// that cannot be read back is renamed aside and logged; a half-written
// one (".tmp", never acknowledged) is removed.
func (q *Queue) load() error {
	if err := os.MkdirAll(q.cfg.Dir, 0o700); err != nil {
		return fmt.Errorf("mail queue: %w", err)
	}
	if err := os.Chmod(q.cfg.Dir, 0o700); err != nil {
		return fmt.Errorf("mail queue: %w", err)
	}
	entries, err := os.ReadDir(q.cfg.Dir)
	if err != nil {
		return fmt.Errorf("mail queue: %w", err)
	}
	type file struct {
		seq  uint64
		name string
	}
	var files []file
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, tmpExt) {
			if err := os.Remove(filepath.Join(q.cfg.Dir, name)); err != nil {
				return fmt.Errorf("mail queue: %w", err)
			}
			continue
		}
		if aside, ok := strings.CutSuffix(name, fileExt+corruptExt); ok {
			// A file set aside earlier keeps its number: a new message
			// never takes it, so setting that one aside too cannot
			// overwrite it.
			if seq, err := strconv.ParseUint(aside, 10, 64); err == nil {
				q.next = max(q.next, seq+1)
			}
			continue
		}
		base, ok := strings.CutSuffix(name, fileExt)
		if !ok {
			continue // not ours
		}
		seq, err := strconv.ParseUint(base, 10, 64)
		if err != nil {
			q.setAside(name, fmt.Errorf("%q is not a queued message's name", name))
			continue
		}
		files = append(files, file{seq, name})
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.seq, b.seq) })
	for _, f := range files {
		q.next = max(q.next, f.seq+1)
		m, err := readMessage(filepath.Join(q.cfg.Dir, f.name))
		if err != nil {
			q.setAside(f.name, err)
			continue
		}
		q.wait = append(q.wait, queued{m, f.name})
	}
	return nil
}

// setAside renames a queued file that cannot be sent to name.corrupt, so
// that it is neither sent nor lost, and logs why.
func (q *Queue) setAside(name string, why error) {
	from := filepath.Join(q.cfg.Dir, name)
	to := from + corruptExt
	err := os.Rename(from, to)
	if err == nil {
		err = syncDir(q.cfg.Dir)
	}
	q.cfg.Logger.Error("a queued e-mail cannot be read back: it is not sent, and its file is set aside for the operator",
		"file", from, "set_aside_as", to, "why", why, "rename_err", err)
}

// readMessage reads back a message's file, refusing one whose checksum
// or content is wrong.
func readMessage(path string) (Message, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Message{}, err
	}
	line, body, ok := strings.Cut(string(b), "\n")
	sum, found := strings.CutPrefix(line, header)
	if !ok || !found {
		return Message{}, errors.New("no header line: the file is truncated or not a queued message")
	}
	if got := sha256.Sum256([]byte(body)); hex.EncodeToString(got[:]) != sum {
		return Message{}, errors.New("checksum mismatch: the file is truncated or damaged")
	}
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, fmt.Errorf("unreadable message: %w", err)
	}
	if _, err := ParseAddress(m.To); err != nil {
		return Message{}, fmt.Errorf("recipient %q: %w", m.To, err)
	}
	return m, nil
}

// write stores m as the file name, durably: a temporary file, synced,
// renamed into place, then the folder synced.
func (q *Queue) write(name string, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	final := filepath.Join(q.cfg.Dir, name)
	tmp := strings.TrimSuffix(final, fileExt) + tmpExt
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(header + hex.EncodeToString(sum[:]) + "\n" + string(body))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil {
		return syncDir(q.cfg.Dir)
	}
	_ = os.Remove(tmp)
	return err
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
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

// Enqueue queues m, on disk before it returns, and wakes the sender.
func (q *Queue) Enqueue(m Message) error {
	to, err := ParseAddress(m.To)
	if err != nil {
		return err
	}
	m.To = to
	q.mu.Lock()
	name := fmt.Sprintf("%020d%s", q.next, fileExt)
	if err := q.write(name, m); err != nil {
		q.mu.Unlock()
		return fmt.Errorf("mail queue: %w", err)
	}
	q.next++
	q.wait = append(q.wait, queued{m, name})
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
		if err := q.send(ctx, m.Message); err != nil {
			q.cfg.Logger.Warn("e-mail not sent yet: the relay did not take it", "relay", q.cfg.Relay, "err", err)
			return
		}
		// The relay has it: its file goes, so a restart does not send it
		// again.
		err := os.Remove(filepath.Join(q.cfg.Dir, m.file))
		if err == nil {
			err = syncDir(q.cfg.Dir)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			q.cfg.Logger.Error("a sent e-mail's file was not removed: it may be sent again after a restart", "file", m.file, "err", err)
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
	b.WriteString("MIME-Version: 1.0\r\n")
	if len(m.Attachments) == 0 {
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		writeText(&b, m.Body)
		return b.Bytes()
	}
	// A body with files: multipart/mixed, the text first, each file in
	// base64 under its own name.
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%q\r\n\r\n", mw.Boundary())
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}, "Content-Transfer-Encoding": {"quoted-printable"}})
	var text bytes.Buffer
	writeText(&text, m.Body)
	_, _ = part.Write(text.Bytes())
	for _, a := range m.Attachments {
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		name := mime.QEncoding.Encode("utf-8", a.Name)
		part, _ := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(ct, map[string]string{"name": name})},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": name})},
			"Content-Transfer-Encoding": {"base64"},
		})
		enc := base64.StdEncoding.EncodeToString(a.Data)
		for len(enc) > 76 {
			_, _ = part.Write([]byte(enc[:76] + "\r\n"))
			enc = enc[76:]
		}
		_, _ = part.Write([]byte(enc + "\r\n"))
	}
	_ = mw.Close()
	return b.Bytes()
}

// writeText writes a plain text body, quoted-printable, with CRLF lines.
func writeText(b *bytes.Buffer, body string) {
	qp := quotedprintable.NewWriter(b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n")))
	_ = qp.Close()
}
