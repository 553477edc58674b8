package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// previousRelease is the last release of ledger format 1, the release
// whose data folder testdata/upgrade/4c16d1e.tar.gz holds: the release a
// village runs before this one.
const previousRelease = "4c16d1e"

// buildRelease builds the appliance of an earlier commit from this
// repository's history (git archive, then go build in that tree).
func buildRelease(t *testing.T, commit string) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("the rolling upgrade test builds release %s from the repository's history, and git does not answer: %v", commit, err)
	}
	if err := exec.Command("git", "-C", strings.TrimSpace(string(top)), "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		t.Fatalf("release %s is not in this clone's history (a shallow clone?): git fetch --unshallow", commit)
	}
	src := filepath.Join(t.TempDir(), "src")
	os.MkdirAll(src, 0o755)
	archive := exec.Command("sh", "-c", `git -C "$0" archive "$1" | tar -x -C "$2"`, strings.TrimSpace(string(top)), commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", commit, err, out)
	}
	bin := filepath.Join(t.TempDir(), "appliance-"+commit)
	build := exec.Command("go", "build", "-o", bin, "./appliance")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build release %s: %v\n%s", commit, err, out)
	}
	return bin
}

type formatHealth struct {
	Node    string `json:"node"`
	State   string `json:"raft_state"`
	Leader  string `json:"leader"`
	Applied uint64 `json:"applied_index"`
	Format  int    `json:"ledger_format"` // 0 from a release before formats
}

func formatOf(base string) (formatHealth, error) {
	var h formatHealth
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// TestRollingUpgradeFromThePreviousRelease upgrades a three-node cluster
// of real processes from the previous release (built from its commit) to
// this one (HEAD), one node at a time, as docs/operating.md says:
// before, between and after each step the cluster keeps its quorum and a
// resident's payment posts; the ledger format stays 1 while any node runs
// the old release and is raised to this build's (domain.LedgerFormat, in
// one step) once all three run the new one; in
// the end every node holds the same ledger, and every payment once.
func TestRollingUpgradeFromThePreviousRelease(t *testing.T) {
	oldBin := buildRelease(t, previousRelease)
	newBin := buildAppliance(t)
	base := t.TempDir()
	nodes := []*node{{id: "hall-clerk"}, {id: "hall-kiosk"}, {id: "annex-backup"}}
	for _, n := range nodes {
		n.dir, n.http, n.peer = filepath.Join(base, n.id), freeAddr(t), freeAddr(t)
	}
	// The previous release's cluster, made as its README says.
	runCmd(t, oldBin, "init", "--data", nodes[0].dir, "--node-id", nodes[0].id, "--peer", nodes[0].peer)
	nodes[0].proc = startArgs(t, oldBin, nodes[0].http, "serve", "--data", nodes[0].dir, "--http", nodes[0].http, "--demo")
	for _, n := range nodes[1:] {
		bundle := filepath.Join(base, n.id+".bundle")
		runCmd(t, oldBin, "cert", "issue", "--data", nodes[0].dir, "--node-id", n.id, "--out", bundle)
		runCmd(t, oldBin, "join", "--data", n.dir, "--bundle", bundle, "--leader", nodes[0].peer, "--peer", n.peer)
		n.proc = startArgs(t, oldBin, n.http, "serve", "--data", n.dir, "--http", n.http)
	}
	converge := func(what string) uint64 {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var idx []uint64
			for _, n := range nodes {
				if h, err := formatOf(n.proc.base); err == nil {
					idx = append(idx, h.Applied)
				}
			}
			same := len(idx) == len(nodes)
			for _, i := range idx {
				same = same && i == idx[0] && i > 0
			}
			if same {
				return idx[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the nodes did not converge: applied %v", what, idx)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	converge("the previous release's cluster")
	paid := map[string]bool{}
	pay := func(at *node, account, what string) {
		t.Helper()
		bill, _ := payInFull(t, at.proc.base, account, paid) // fails unless the receipt is posted
		paid[bill] = true
		t.Logf("%s: paid %s through %s", what, bill, at.id)
	}
	pay(nodes[1], "100101", "before the upgrade")

	// One node at a time: the followers first, the leader's node last.
	h, _ := formatOf(nodes[0].proc.base)
	order := []*node{}
	var leader *node
	for _, n := range nodes {
		if n.id == h.Leader {
			leader = n
		} else {
			order = append(order, n)
		}
	}
	if leader == nil {
		t.Fatalf("no leader: %+v", h)
	}
	order = append(order, leader)
	accounts := []string{"100102", "100103", "100104"}
	for step, n := range order {
		n.proc.cmd.Process.Signal(syscall.SIGTERM)
		if err := n.proc.cmd.Wait(); err != nil {
			t.Fatalf("step %d: %s did not stop cleanly: %v\n%s", step+1, n.id, err, n.proc.log)
		}
		// Quorum is kept with one node down: a payment at a running node posts.
		for _, other := range nodes {
			if other != n {
				pay(other, accounts[step], "step "+n.id+" down")
				break
			}
		}
		n.proc = startArgs(t, newBin, n.http, "serve", "--data", n.dir, "--http", n.http, "--https", "off", "--terminal", "simulator", "--log-format", "text")
		converge("after upgrading " + n.id)
		for _, m := range order[:step+1] {
			if step < len(order)-1 {
				if h, err := formatOf(m.proc.base); err != nil || h.Format != 1 {
					t.Fatalf("step %d: %s (new release) reports ledger format %d (%v) while a node still runs the old release", step+1, m.id, h.Format, err)
				}
			}
		}
	}

	// Every node runs the new release: the leader raises the format to
	// the newest every member applies, this build's.
	deadline := time.Now().Add(60 * time.Second)
	for {
		raised := 0
		for _, n := range nodes {
			if h, err := formatOf(n.proc.base); err == nil && h.Format == domain.LedgerFormat {
				raised++
			}
		}
		if raised == len(nodes) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ledger format was not raised to %d with every node upgraded (%d of 3)\n%s", domain.LedgerFormat, raised, leader.proc.log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	pay(nodes[2], "100105", "after the upgrade")
	final := converge("after the upgrade")

	var hashes []string
	for _, n := range nodes {
		n.proc.cmd.Process.Signal(syscall.SIGTERM)
		if err := n.proc.cmd.Wait(); err != nil {
			t.Fatalf("%s did not stop cleanly: %v\n%s", n.id, err, n.proc.log)
		}
		out := runCmd(t, newBin, "verify", "--data", n.dir)
		if !strings.Contains(out, "give the same state hash") {
			t.Fatalf("%s: %s", n.id, out)
		}
		i := strings.Index(out, "state hash ")
		hashes = append(hashes, strings.Fields(out[i+len("state hash "):])[0])
	}
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Fatalf("state hashes differ after the upgrade (applied %d): %v", final, hashes)
		}
	}
	if len(paid) != 5 {
		t.Fatalf("paid %d bills", len(paid))
	}
}
