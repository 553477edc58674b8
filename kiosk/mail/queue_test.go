package mail_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk/mail"
)

// downAddr returns a loopback address with nothing listening: the relay
// is down (the node is offline).
func downAddr(t *testing.T) string {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	return addr
}

// records keeps the messages of every log record at level Error.
type records struct {
	mu   sync.Mutex
	errs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelError {
		var b strings.Builder
		b.WriteString(rec.Message)
		rec.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
		r.mu.Lock()
		r.errs = append(r.errs, b.String())
		r.mu.Unlock()
	}
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

func (r *records) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

const sender = "Village of Belleville <kiosk@belleville.example>"

// run starts q's sender and returns a function that stops it and waits.
func run(q *mail.Queue) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); q.Run(ctx) }()
	return func() { cancel(); <-done }
}

// queueFiles lists the queue folder's file names.
func queueFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestQueueSurvivesRestart queues a copy while the relay is down, stops
// the node, starts it again, and sees the copy delivered exactly once
// when the relay answers; the file holding the resident's address is
// readable by the node's user only.
func TestQueueSurvivesRestart(t *testing.T) {
	addr := downAddr(t)
	dir := filepath.Join(t.TempDir(), "mailqueue")

	failed := make(failures, 1)
	q, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour, Logger: slog.New(failed)})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(q)
	if err := q.Enqueue(mail.Message{To: "ana@example.com", Subject: "Receipt hall-kiosk-000007", Body: "Receipt hall-kiosk-000007\nAmount: $42.00\n"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-failed:
	case <-time.After(10 * time.Second):
		t.Fatal("the queue never tried the relay")
	}
	stop() // the node stops while offline

	files := queueFiles(t, dir)
	if len(files) != 1 || !strings.HasSuffix(files[0], ".msg") {
		t.Fatalf("queue folder holds %q, want one message file", files)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, files[0]): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", path, got, want)
		}
	}

	// The node starts again; the relay is back.
	logs := new(records)
	q2, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if n := q2.Pending(); n != 1 {
		t.Fatalf("%d messages waiting after the restart, want 1", n)
	}
	r := listenRelay(t, addr)
	stop2 := run(q2)
	defer stop2()
	select {
	case msg := <-r.got:
		if !strings.Contains(msg, "To: ana@example.com") || !strings.Contains(msg, "Amount: $42.00") {
			t.Errorf("delivered message:\n%s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy queued before the restart was not delivered")
	}
	select {
	case <-q2.Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("the queue did not empty")
	}
	if files := queueFiles(t, dir); len(files) != 0 {
		t.Errorf("the delivered message's file is still there: %q", files)
	}

	// Exactly once: a kick sends nothing more, and a third start finds
	// nothing to send.
	q2.Kick()
	select {
	case m := <-r.got:
		t.Errorf("sent twice: %q", m)
	case <-q2.Sent():
	}
	q3, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if n := q3.Pending(); n != 0 {
		t.Errorf("%d messages waiting after delivery and a restart, want 0", n)
	}
	if errs := logs.errors(); len(errs) != 0 {
		t.Errorf("errors logged: %q", errs)
	}
}

// TestQueueTruncatedFile cuts a queued message's file short (a power cut
// mid-write of the disk's blocks) and damages another: on start both are
// refused with a logged error and renamed aside, not sent and not
// deleted, and the intact message still goes out.
func TestQueueTruncatedFile(t *testing.T) {
	addr := downAddr(t)
	dir := t.TempDir()
	q, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"ana@example.com", "ben@example.com", "cruz@example.com"} {
		if err := q.Enqueue(mail.Message{To: to, Subject: "Receipt", Body: "Receipt for " + to + "\n"}); err != nil {
			t.Fatal(err)
		}
	}
	files := queueFiles(t, dir)
	if len(files) != 3 {
		t.Fatalf("queue folder holds %q, want three files", files)
	}
	first := filepath.Join(dir, files[0])
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, b[:len(b)-9], 0o600); err != nil { // truncated
		t.Fatal(err)
	}
	third := filepath.Join(dir, files[2])
	b, err = os.ReadFile(third)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-5] ^= 0x20 // one bit flipped inside the body: still JSON
	if err := os.WriteFile(third, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// A write the node never acknowledged (it stopped before the rename).
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000099.tmp"), []byte("villagehall-mail 1 "), 0o600); err != nil {
		t.Fatal(err)
	}

	logs := new(records)
	q2, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if n := q2.Pending(); n != 1 {
		t.Fatalf("%d messages waiting, want 1 (the intact one)", n)
	}
	errs := logs.errors()
	if len(errs) != 2 {
		t.Fatalf("logged errors %q, want one for each damaged file", errs)
	}
	for i, path := range []string{first, third} {
		if !strings.Contains(errs[i], "cannot be read back") || !strings.Contains(errs[i], path) {
			t.Errorf("error %q does not say which file cannot be read", errs[i])
		}
		if _, err := os.Stat(path + ".corrupt"); err != nil {
			t.Errorf("the damaged file was not set aside: %v", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("the damaged file %s is still in the queue (%v)", path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "00000000000000000099.tmp")); !os.IsNotExist(err) {
		t.Errorf("an unacknowledged half-written file was kept (%v)", err)
	}

	r := listenRelay(t, addr)
	stop := run(q2)
	defer stop()
	select {
	case msg := <-r.got:
		if !strings.Contains(msg, "To: ben@example.com") {
			t.Errorf("delivered:\n%s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the intact message was not delivered")
	}
	select {
	case <-q2.Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("the queue did not empty")
	}
	// A new message after the restart does not reuse a set-aside name.
	if err := q2.Enqueue(mail.Message{To: "dora@example.com", Subject: "Receipt", Body: "x\n"}); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-r.got:
		if !strings.Contains(msg, "To: dora@example.com") {
			t.Errorf("delivered:\n%s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a message queued after the restart was not delivered")
	}
	<-q2.Sent()
	if got := queueFiles(t, dir); len(got) != 2 || !strings.HasSuffix(got[0], ".corrupt") || !strings.HasSuffix(got[1], ".corrupt") {
		t.Errorf("queue folder holds %q, want the two set-aside files only", got)
	}

	// Started again with only the set-aside files left: a new message
	// takes a number after theirs, so they are never overwritten.
	q3, err := mail.New(mail.Config{Relay: addr, From: sender, Dir: dir, Retry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := q3.Enqueue(mail.Message{To: "eva@example.com", Subject: "Receipt", Body: "x\n"}); err != nil {
		t.Fatal(err)
	}
	got := queueFiles(t, dir)
	if len(got) != 3 || !strings.HasSuffix(got[2], ".msg") || got[2] <= strings.TrimSuffix(got[1], ".msg.corrupt") {
		t.Errorf("queue folder holds %q: the new message must come after the set-aside ones", got)
	}
}
