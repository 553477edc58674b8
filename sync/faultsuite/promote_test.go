package faultsuite

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/sync/faults"
)

// TestVillageHallLosesPowerAndTheBackupIsPromoted follows the documented
// procedure (docs/operating.md, "Promoting the backup node") on real processes:
// the hall's two nodes die with the power (kill -9); the backup keeps
// serving the kiosk pages and takes payments offline with provisional
// receipts; the operator stops it, runs `appliance promote --data DIR`
// and starts it; it leads alone, posts the queued payments exactly once
// and takes new ones.
func TestVillageHallLosesPowerAndTheBackupIsPromoted(t *testing.T) {
	p := NewProcesses(t, 5)
	var hist History
	pay := func(node, id, bill string, cents int64) Op {
		op := p.Pay(context.Background(), node, id, bill, cents)
		hist.Add(op)
		return op
	}
	// Posted, or provisional on a busy machine: either way settle waits
	// until every node holds them.
	pay(HallKiosk, "before-1", "F001", 40)
	pay(HallClerk, "before-2", "F002", 25)
	if _, err := settle(p, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	p.Crash(HallKiosk)
	p.Crash(HallClerk)

	// The backup serves reads: the kiosk page of a bill paid at the hall.
	resp, err := http.Get("http://" + p.HTTPAddr(AnnexBackup) + "/bills/F001")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the backup's kiosk page after the hall went dark: %v, %v", resp, err)
	}
	resp.Body.Close()
	var offline []Op
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			op := pay(AnnexBackup, fmt.Sprintf("offline-%d", i), fmt.Sprintf("F%03d", 3+i), 10)
			mu.Lock()
			offline = append(offline, op)
			mu.Unlock()
		})
	}
	wg.Wait()
	wantStatus(t, offline, Provisional)

	// Promoting a running node is refused: its stores are locked.
	if out, err := exec.Command(p.Bin(), "promote", "--data", p.DataDir(AnnexBackup)).CombinedOutput(); err == nil {
		t.Fatalf("promote ran on a running node:\n%s", out)
	}

	p.Stop(AnnexBackup)
	out, err := exec.Command(p.Bin(), "promote", "--data", p.DataDir(AnnexBackup)).CombinedOutput()
	if err != nil {
		t.Fatalf("appliance promote: %v\n%s", err, out)
	}
	t.Logf("appliance promote:\n%s", out)
	if !strings.Contains(string(out), "cluster now:    annex-backup") || !strings.Contains(string(out), "3 queued commands") {
		t.Fatalf("promote output:\n%s", out)
	}
	p.Restart(AnnexBackup)
	deadline := time.Now().Add(20 * time.Second)
	for p.Leader() != AnnexBackup {
		if time.Now().After(deadline) {
			t.Fatalf("the promoted backup does not lead\n%s", p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	pay(AnnexBackup, "after-1", "F001", 15) // must post: the check below finds it, and the outbox empty

	var st faults.NodeState
	for deadline = time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, err = p.State(AnnexBackup); err == nil && st.Pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queued payments did not post after promotion: %+v, %v", st, err)
		}
	}
	r := Check(hist.Ops(), []faults.NodeState{st}, p.Due())
	for _, pr := range r.Problems {
		t.Error(pr)
	}
	if r.Lost != 0 || r.Duplicated != 0 || !r.Linearizable {
		t.Fatalf("after promotion: %+v", r)
	}
}
