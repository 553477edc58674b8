package main

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestFaultsFlagIsHidden(t *testing.T) {
	args, on := takeFaultsFlag([]string{"--data", "d", "--faults", "--http", "127.0.0.1:0"})
	if !on || !slices.Equal(args, []string{"--data", "d", "--http", "127.0.0.1:0"}) {
		t.Fatalf("takeFaultsFlag: %v, %v", args, on)
	}
	if _, on := takeFaultsFlag([]string{"--data", "d"}); on {
		t.Fatal("fault injection on without --faults")
	}
	var stderr bytes.Buffer
	run(t.Context(), []string{"serve", "-h"}, nil, io.Discard, &stderr)
	if strings.Contains(stderr.String(), "-faults") {
		t.Fatalf("serve's usage shows the hidden flag:\n%s", stderr.String())
	}
}

// A node served without --faults has no fault endpoints (the fault suite
// exercises them with the flag, on three processes).
func TestFaultEndpointsOnlyWithTheFlag(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	resp, err := http.Get("http://" + m.Addr() + "/admin/faults/state")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatal("/admin/faults/state answered on a node served without --faults")
	}
}
