package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromoteRefusesTheKiosk: the kiosk's data folder is not promoted to
// be the whole cluster, since the other nodes take neither a snapshot nor a
// change of membership from a kiosk and could never join it; the refusal
// names the nodes to promote instead.
func TestPromoteRefusesTheKiosk(t *testing.T) {
	work := t.TempDir()
	clerk, kiosk := filepath.Join(work, "hall-clerk"), filepath.Join(work, "hall-kiosk")
	cli := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			return out.String() + errb.String(), errUsage
		}
		return out.String(), nil
	}
	if out, err := cli("init", "--data", clerk, "--node-id", "hall-clerk", "--peer", "127.0.0.1:9081"); err != nil {
		t.Fatalf("init: %s", out)
	}
	bundle := filepath.Join(work, "hall-kiosk.bundle")
	if out, err := cli("cert", "issue", "--data", clerk, "--node-id", "hall-kiosk", "--role", "kiosk", "--out", bundle); err != nil {
		t.Fatalf("cert issue: %s", out)
	}
	if out, err := cli("join", "--data", kiosk, "--bundle", bundle, "--leader", "127.0.0.1:9081", "--peer", "127.0.0.1:9082", "--token", "x"); err != nil {
		t.Fatalf("join: %s", out)
	}
	out, err := cli("promote", "--data", kiosk)
	if err == nil || !strings.Contains(out, "kiosk's data folder: promote the backup node or the clerk's node") {
		t.Fatalf("promote of the kiosk: %v, %s; want refused", err, out)
	}
}
