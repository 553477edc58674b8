package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// node is one appliance process of a cluster test.
type node struct {
	id, dir, http, peer string
	proc                *process
}

func runCmd(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("appliance %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (n *node) start(t *testing.T, bin string, demo bool) {
	t.Helper()
	args := []string{"serve", "--data", n.dir, "--http", n.http, "--https", "127.0.0.1:0", "--terminal", "simulator"}
	if demo {
		args = append(args, "--demo")
	}
	n.proc = startArgs(t, bin, n.http, args...)
}

// startArgs runs the binary with args and waits for its /healthz.
func startArgs(t *testing.T, bin, httpAddr string, args ...string) *process {
	t.Helper()
	p := &process{base: "http://" + httpAddr, log: &syncBuffer{}}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("appliance did not come up:\n%s", p.log)
	return nil
}

type health struct {
	Node    string `json:"node"`
	State   string `json:"raft_state"`
	Leader  string `json:"leader"`
	Applied uint64 `json:"applied_index"`
}

func healthOf(base string) (health, error) {
	var h health
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// payInFull pays an open bill of a demo account in full through the kiosk
// pages of base and returns the bill id and receipt number.
func payInFull(t *testing.T, base, account string, skip map[string]bool) (string, string) {
	t.Helper()
	br := newBrowser(t, base)
	doc, _ := br.get("/accounts/" + account)
	var bill string
	doc.Find(`[data-testid="bill-row"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		id := s.AttrOr("data-bill", "")
		if strings.TrimSpace(s.Find(`[data-testid="bill-balance"]`).Text()) != "$0.00" && !skip[id] {
			bill = id
			return false
		}
		return true
	})
	if bill == "" {
		t.Fatalf("no open bill left on account %s", account)
	}
	doc, _ = br.get("/bills/" + bill + "/pay")
	doc, _ = br.submit(doc, `[data-testid="pay-full"]`)
	doc, _ = br.submit(doc, `[data-testid="charge-form"]`)
	if got := doc.Find(`[data-testid="receipt-status"]`).AttrOr("data-status", ""); got != "posted" {
		t.Fatalf("payment through %s: receipt status %q, want posted", base, got)
	}
	return bill, strings.TrimSpace(doc.Find(`[data-testid="receipt-number"]`).Text())
}

// TestClusterOfProcesses builds the three-node cluster the way an operator
// does — init, cert issue, join — as separate processes over real
// WebSockets with mutual TLS; a payment on a follower's kiosk is forwarded
// to the leader and reaches every node; the leader is killed with SIGKILL,
// a new one is elected and takes a payment; the old leader restarts and
// catches up; after a clean stop every node's ledger has the same state
// hash and a journal that verifies.
func TestClusterOfProcesses(t *testing.T) {
	bin := buildAppliance(t)
	base := t.TempDir()
	nodes := []*node{{id: "hall-clerk"}, {id: "hall-kiosk"}, {id: "annex-backup"}}
	for _, n := range nodes {
		n.dir, n.http, n.peer = filepath.Join(base, n.id), freeAddr(t), freeAddr(t)
	}
	runCmd(t, bin, "init", "--data", nodes[0].dir, "--node-id", nodes[0].id, "--peer", nodes[0].peer)
	nodes[0].start(t, bin, true)
	for _, n := range nodes[1:] {
		bundle := filepath.Join(base, n.id+".bundle")
		runCmd(t, bin, "cert", "issue", "--data", nodes[0].dir, "--node-id", n.id, "--role", "clerk", "--out", bundle)
		runCmd(t, bin, "join", "--data", n.dir, "--bundle", bundle, "--leader", nodes[0].peer, "--peer", n.peer,
			"--token-file", filepath.Join(nodes[0].dir, "operator.token"))
		n.start(t, bin, false)
	}
	waitApplied := func(min uint64, live []*node) uint64 {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var idx []uint64
			for _, n := range live {
				h, err := healthOf(n.proc.base)
				if err == nil {
					idx = append(idx, h.Applied)
				}
			}
			same := len(idx) == len(live)
			for _, i := range idx {
				same = same && i == idx[0] && i >= min
			}
			if same {
				return idx[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("nodes did not converge: applied %v", idx)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitApplied(1, nodes)

	// A payment on the kiosk node (a follower) is forwarded to the leader.
	paid := map[string]bool{}
	bill, receipt := payInFull(t, nodes[1].proc.base, "100101", paid)
	paid[bill] = true
	if !strings.HasPrefix(receipt, "hall-kiosk-") {
		t.Fatalf("receipt %s was not numbered by the kiosk node", receipt)
	}
	waitApplied(2, nodes)
	for _, n := range nodes {
		doc, _ := newBrowser(t, n.proc.base).get("/bills/" + bill)
		if got := strings.TrimSpace(doc.Find(`[data-testid="amount-due"]`).Text()); got != "$0.00" {
			t.Fatalf("%s shows %s due on %s after the payment", n.id, got, bill)
		}
	}

	// Kill the leader; the others elect a new one and keep taking payments.
	h, _ := healthOf(nodes[0].proc.base)
	var leader *node
	var rest []*node
	for _, n := range nodes {
		if n.id == h.Leader {
			leader = n
		} else {
			rest = append(rest, n)
		}
	}
	if leader == nil {
		t.Fatalf("no leader named in %+v", h)
	}
	leader.proc.cmd.Process.Signal(syscall.SIGKILL)
	leader.proc.cmd.Wait()
	bill2, _ := payInFull(t, rest[0].proc.base, "100102", paid)
	paid[bill2] = true
	leader.start(t, bin, false)
	final := waitApplied(3, nodes)

	// Stop cleanly and compare the ledgers offline.
	var hashes []string
	for _, n := range nodes {
		n.proc.cmd.Process.Signal(syscall.SIGTERM)
		if err := n.proc.cmd.Wait(); err != nil {
			t.Fatalf("%s did not stop cleanly: %v\n%s", n.id, err, n.proc.log)
		}
		out := runCmd(t, bin, "verify", "--data", n.dir)
		if !strings.Contains(out, "verified") {
			t.Fatalf("%s: %s", n.id, out)
		}
		i := strings.Index(out, "state hash ")
		hashes = append(hashes, strings.TrimSpace(out[i+len("state hash "):]))
	}
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Fatalf("state hashes differ after the run (applied %d): %v", final, hashes)
		}
	}
}
