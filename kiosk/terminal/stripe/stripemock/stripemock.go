// Package stripemock starts Stripe's own API mock, stripe-mock, for tests:
// the binary `make tools` installs into bin/, or, on a machine where it is
// missing, built here with `go install` from the module proxy. A test that
// needs it never skips: it builds it or fails with the command to run.
package stripemock

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Module is the stripe-mock release the tests run.
const Module = "github.com/stripe/stripe-mock@v0.203.0"

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// Binary returns the path of stripe-mock: $STRIPE_MOCK, else bin/stripe-mock
// at the module's root, built there when missing.
func Binary() (string, error) {
	buildOnce.Do(func() {
		if p := os.Getenv("STRIPE_MOCK"); p != "" {
			binary = p
			return
		}
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		bin := filepath.Join(root, "bin")
		binary = filepath.Join(bin, "stripe-mock")
		if _, err := os.Stat(binary); err == nil {
			return
		}
		cmd := exec.Command("go", "install", Module)
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("stripe-mock is missing and could not be built; run `make tools` or `GOBIN=%s go install %s`: %v\n%s", bin, Module, err, out)
		}
	})
	return binary, buildErr
}

var listening = regexp.MustCompile(`Listening for HTTP at address: (\S+)`)

// Start runs a stripe-mock on loopback for the test and returns its base
// URL ("http://127.0.0.1:port"); it stops when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("%s ended before it listened", bin)
		}
		return "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not say where it listens within a minute", bin)
	}
	return ""
}
