package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// notifySocket listens where systemd would (NOTIFY_SOCKET) and hands each
// datagram the service sends to the channel.
func notifySocket(t *testing.T) (string, <-chan string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch := make(chan string, 100)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(ch)
				return
			}
			ch <- string(buf[:n])
		}
	}()
	return path, ch
}

// next waits for the next message that contains want.
func next(t *testing.T, ch <-chan string, want string, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case msg, ok := <-ch:
			if !ok {
				t.Fatalf("the notify socket closed before %q", want)
			}
			if strings.Contains(msg, want) {
				return msg
			}
		case <-deadline:
			t.Fatalf("no %q from the node within %s", want, within)
		}
	}
}

// TestSystemdReadyWatchdogStopping runs the real binary as systemd runs it
// (Type=notify, WatchdogSec): it says READY=1 only when its listeners
// answer, pings the watchdog, and says STOPPING=1 on SIGTERM before it
// exits cleanly.
func TestSystemdReadyWatchdogStopping(t *testing.T) {
	bin := buildAppliance(t)
	sock, msgs := notifySocket(t)
	addr := freeAddr(t)
	var logs strings.Builder
	// WATCHDOG_PID must be the service's own pid, which is known only
	// once it runs: start it through a shell that execs it.
	cmd := exec.Command("/bin/sh", "-c", `WATCHDOG_PID=$$ exec "$0" "$@"`, bin, "serve", "--data", t.TempDir(), "--http", addr, "--https", "127.0.0.1:0", "--demo")
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock, "WATCHDOG_USEC=600000")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	next(t, msgs, "READY=1", 60*time.Second)
	// READY=1 came after the listeners answered: the kiosk answers now.
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("READY=1 sent, but the kiosk does not answer: %v\n%s", err, logs.String())
	}
	resp.Body.Close()
	start := time.Now()
	next(t, msgs, "WATCHDOG=1", 2*time.Second)
	next(t, msgs, "WATCHDOG=1", 2*time.Second)
	if time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("two watchdog pings took %s with WatchdogSec=0.6s", time.Since(start))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	next(t, msgs, "STOPPING=1", 10*time.Second)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
	}
	// JSON logs, one object a line.
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !strings.HasPrefix(line, "{") {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
	}
}

// TestWatchdogStopsWhenTheStoresDoNotAnswer: in the node's main loop the
// watchdog is fed only while raft and the stores answer; once the ledger
// store fails, the pings stop (so systemd restarts the node).
func TestWatchdogStopsWhenTheStoresDoNotAnswer(t *testing.T) {
	sock, msgs := notifySocket(t)
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "300000")
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	m := startMain(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Wait(ctx) }()
	next(t, msgs, "READY=1", 10*time.Second)
	next(t, msgs, "WATCHDOG=1", time.Second)

	m.Node.FSM().DB().Close()
	// A ping may be on its way; after that, none.
	time.Sleep(150 * time.Millisecond)
	for len(msgs) > 0 {
		<-msgs
	}
	select {
	case msg := <-msgs:
		if strings.Contains(msg, "WATCHDOG=1") {
			t.Fatalf("the watchdog was fed with the ledger store closed")
		}
	case <-time.After(time.Second):
	}
	cancel()
	next(t, msgs, "STOPPING=1", 5*time.Second)
	<-done
}

// TestStopDuringStartIsClean: SIGTERM that comes while the node is still
// checking its listeners at start (a busy machine, or systemctl stop
// right after start) is a clean stop: Wait returns no error, so the
// process exits 0 and systemd does not mark the unit failed.
func TestStopDuringStartIsClean(t *testing.T) {
	sock, msgs := notifySocket(t)
	t.Setenv("NOTIFY_SOCKET", sock)
	m := startMain(t, t.TempDir())
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("terminated signal received"))
	if err := m.Wait(ctx); err != nil {
		t.Fatalf("a stop asked for before the listeners answered: %v", err)
	}
	// Wait has returned: what it told systemd is in the socket.
	for said := ""; !strings.Contains(said, "STOPPING=1"); {
		select {
		case said = <-msgs:
			if strings.Contains(said, "READY=1") {
				t.Fatalf("the node said READY=1 after it was asked to stop")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no STOPPING=1 from the node")
		}
	}
}
