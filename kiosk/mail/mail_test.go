package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk/mail"
)

// relay is a real SMTP server on 127.0.0.1 that takes every message and
// hands it, as received, to got.
type relay struct {
	ln  net.Listener
	got chan string
}

func listenRelay(t *testing.T, addr string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	r := &relay{ln: ln, got: make(chan string, 4)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.serve(c)
		}
	}()
	return r
}

func (r *relay) serve(c net.Conn) {
	defer c.Close()
	tp := textproto.NewConn(c)
	_ = tp.PrintfLine("220 relay.test ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		switch verb {
		case "EHLO", "HELO":
			_ = tp.PrintfLine("250-relay.test\r\n250 8BITMIME")
		case "MAIL", "RCPT", "RSET", "NOOP":
			_ = tp.PrintfLine("250 OK")
		case "DATA":
			_ = tp.PrintfLine("354 go ahead")
			b, err := io.ReadAll(tp.DotReader())
			if err != nil {
				return
			}
			r.got <- string(b)
			_ = tp.PrintfLine("250 queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("502 not here")
		}
	}
}

// failures signals each time the queue logs that the relay did not take
// a message.
type failures chan struct{}

func (f failures) Enabled(context.Context, slog.Level) bool { return true }
func (f failures) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "not sent yet") {
		select {
		case f <- struct{}{}:
		default:
		}
	}
	return nil
}
func (f failures) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f failures) WithGroup(string) slog.Handler      { return f }

// TestQueueWhileRelayIsDown queues a receipt's copy while the relay does
// not answer, and sends it, once, when the relay is back.
func TestQueueWhileRelayIsDown(t *testing.T) {
	// A port with nothing listening: the node is offline.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()

	failed := make(failures, 1)
	q, err := mail.New(mail.Config{Relay: addr, From: "Village of Belleville <kiosk@belleville.example>", Dir: t.TempDir(), Retry: time.Hour, Logger: slog.New(failed)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); q.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	if err := q.Enqueue(mail.Message{To: "not an address", Subject: "x", Body: "x"}); err == nil {
		t.Fatal("a bad address was queued")
	}
	if err := q.Enqueue(mail.Message{To: "ana@example.com", Subject: "Recibo hall-kiosk-000001 · Villa de Belleville", Body: "Recibo hall-kiosk-000001\nImporte: $10.00\nAño 2026\n"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-failed:
	case <-time.After(10 * time.Second):
		t.Fatal("the queue never tried the relay")
	}
	if n := q.Pending(); n != 1 {
		t.Fatalf("%d messages waiting while the relay is down, want 1", n)
	}

	r := listenRelay(t, addr)
	q.Kick()
	var msg string
	select {
	case msg = <-r.got:
	case <-time.After(10 * time.Second):
		t.Fatal("the copy was not sent once the relay answered")
	}
	select {
	case <-q.Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("the queue did not empty")
	}
	if n := q.Pending(); n != 0 {
		t.Fatalf("%d messages still waiting", n)
	}
	// The DATA reader gives lines ending in \n.
	head, body, _ := strings.Cut(msg, "\n\n")
	if !strings.Contains(head, "To: ana@example.com") || !strings.Contains(head, "From: \"Village of Belleville\" <kiosk@belleville.example>") {
		t.Errorf("headers:\n%s", head)
	}
	var subject string
	for _, l := range strings.Split(head, "\n") {
		if s, ok := strings.CutPrefix(l, "Subject: "); ok {
			subject, _ = new(mime.WordDecoder).DecodeHeader(s)
		}
	}
	if subject != "Recibo hall-kiosk-000001 · Villa de Belleville" {
		t.Errorf("subject %q", subject)
	}
	text, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
	if err != nil || !strings.Contains(string(text), "Año 2026") || !strings.Contains(string(text), "Importe: $10.00") {
		t.Errorf("body %q (%v)", text, err)
	}
	// Sent once: nothing more arrives on a second kick.
	q.Kick()
	select {
	case m := <-r.got:
		t.Errorf("sent twice: %q", m)
	case <-q.Sent():
	}
}

// TestAttachment sends a message with a PDF attached, through the queue
// to a real relay: the body and the file arrive as the parts of a
// multipart/mixed message, the file under its name and byte for byte.
func TestAttachment(t *testing.T) {
	r := listenRelay(t, "127.0.0.1:0")
	q, err := mail.New(mail.Config{Relay: r.ln.Addr().String(), From: "Village <kiosk@belleville.example>", Dir: t.TempDir(), Retry: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)
	pdf := []byte("%PDF-1.3\n" + strings.Repeat("binary \x00\xff stream ", 40))
	if err := q.Enqueue(mail.Message{To: "closings@title.example", Subject: "Status letter SL-2026-0001", Body: "Attached is the letter.",
		Attachments: []mail.Attachment{{Name: "SL-2026-0001.pdf", ContentType: "application/pdf", Data: pdf}}}); err != nil {
		t.Fatal(err)
	}
	var raw string
	select {
	case raw = <-r.got:
	case <-time.After(5 * time.Second):
		t.Fatal("the relay got nothing")
	}
	msg, err := netmail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("content type %q: %v", msg.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	text, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(quotedprintable.NewReader(text)); string(b) != "Attached is the letter." {
		t.Fatalf("body %q", b)
	}
	file, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if file.FileName() != "SL-2026-0001.pdf" || !strings.HasPrefix(file.Header.Get("Content-Type"), "application/pdf") {
		t.Fatalf("attachment %q, %q", file.FileName(), file.Header.Get("Content-Type"))
	}
	got, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, file))
	if err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("the PDF arrived changed (%d bytes, %v)", len(got), err)
	}
}
