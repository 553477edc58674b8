package faultsuite

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// TestNewLeaderSaysCurrentOnlyWhenItIs: right after an election the new
// leader's ledger may lack entries the old leader committed (a follower
// learns that an entry committed only with the next heartbeat, and a new
// leader commits them only with its first entry of its term). Pages it
// serves meanwhile must not claim to be current.
// (Found by this probe: Node.Consistency said "current" as soon as raft
// said Leader, 5–65 ms before the new leader had applied its predecessor's
// commits. A leader is now current only once a barrier of its own term has
// applied.)
func TestNewLeaderSaysCurrentOnlyWhenItIs(t *testing.T) {
	p := NewInProcess(t, InProcessOptions{Bills: 1})
	stale := 0
	for round := range 5 {
		old := p.WaitLeader(20 * time.Second)
		op := p.Pay(context.Background(), old, fmt.Sprintf("probe-%d", round), "F001", 1)
		if op.Status != Posted {
			t.Fatalf("round %d: %+v", round, op)
		}
		paid := p.due["F001"] - op.Balance
		p.Net.Isolate(old)
		// Watch the two others closely until one leads and its ledger holds
		// the payment.
		deadline := time.Now().Add(10 * time.Second)
		var firstStale time.Time
		cut := time.Now()
	watch:
		for time.Now().Before(deadline) {
			for _, id := range others(old) {
				n := p.Node(id)
				if n.Raft().State() != raft.Leader || n.Consistency().Level != domain.Current {
					continue
				}
				b, _ := n.Bill("F001")
				var got int64
				for _, pm := range b.Payments {
					got += pm.Amount.Cents()
				}
				if got < paid {
					if stale++; firstStale.IsZero() {
						firstStale = time.Now()
						t.Logf("round %d: new leader %s says current %s after the cut, but shows %d paid of %d acknowledged", round, id, firstStale.Sub(cut).Round(time.Millisecond), got, paid)
					}
					continue
				}
				if !firstStale.IsZero() {
					t.Logf("round %d: %s's ledger caught up %s later", round, id, time.Since(firstStale).Round(time.Millisecond))
				}
				break watch
			}
		}
		p.Heal()
		p.C.Converge(20 * time.Second)
	}
	if stale > 0 {
		t.Errorf("a new leader claimed to be current while its ledger lacked acknowledged payments (%d reads)", stale)
	}
}

// TestRebuiltNodeNeverReusesReceiptNumbers: a node whose data folder is
// rebuilt (a replaced SD card, a hall node rejoining after the backup was
// promoted) starts its receipt sequence again, and the ledger must not let
// its new receipts take the numbers of receipts already posted.
// (Found by this probe: the sequence restarted at 1 on an empty folder and
// the FSM wrote the new receipt over the posted one. The ledger now keeps
// each node's highest sequence, and a node never hands out one below it.)
func TestRebuiltNodeNeverReusesReceiptNumbers(t *testing.T) {
	p := NewInProcess(t, InProcessOptions{Bills: 3})
	first := p.Pay(context.Background(), HallKiosk, "before-rebuild", "F001", 100)
	if first.Status != Posted {
		t.Fatalf("first payment: %+v", first)
	}
	p.C.Converge(10 * time.Second)
	dir := p.member(HallKiosk).Dir
	p.Crash(HallKiosk)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	p.Restart(HallKiosk) // an empty folder: it catches up from the leader
	p.C.Converge(20 * time.Second)
	second := p.Pay(context.Background(), HallKiosk, "after-rebuild", "F002", 200)
	if second.Status != Posted {
		t.Fatalf("second payment: %+v", second)
	}
	if second.Receipt == first.Receipt {
		r, _ := p.Node(HallClerk).Receipt(first.Receipt)
		t.Errorf("the rebuilt node gave receipt %s again; the ledger's receipt %s now names payment %s of %s on %s, not the resident's first payment",
			second.Receipt, first.Receipt, r.CommandID, r.Amount, r.BillID)
	}
}

// TestReadsDuringInstallSnapshotSeeWholeLedger: a node catching up by
// InstallSnapshot replaces its ledger (FSM.Restore: DropAll, then Badger's
// Load) while its pages keep reading it. A read must see the old ledger or
// the new one, never an empty or half-loaded one, and must not race
// Badger's Load (which documents that no transaction may run beside it).
// (Found by this probe: ledger reads took no lock against Restore; under
// -race FSM.MaxSeq raced DB.Load, and a bill read as missing mid-restore.
// Reads now wait while a snapshot is restored.)
func TestReadsDuringInstallSnapshotSeeWholeLedger(t *testing.T) {
	p := NewInProcess(t, InProcessOptions{Bills: 50, TrailingLogs: 4})
	for round := range 3 {
		p.Partition([]string{AnnexBackup}, []string{HallClerk, HallKiosk})
		for i := range 60 {
			p.Pay(context.Background(), HallClerk, fmt.Sprintf("snap-%d-%d", round, i), fmt.Sprintf("F%03d", 1+i%50), 1)
		}
		for _, id := range []string{HallClerk, HallKiosk} {
			if err := p.Snapshot(id); err != nil {
				t.Fatal(err)
			}
		}
		before := p.Restores()
		backup := p.Node(AnnexBackup)
		stop := make(chan struct{})
		missing := make(chan string, 1)
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := backup.Bill("F001"); err != nil {
					select {
					case missing <- err.Error():
					default:
					}
				}
				backup.FSM().MaxSeq(HallKiosk)
			}
		}()
		p.Heal()
		deadline := time.Now().Add(20 * time.Second)
		for p.Restores() == before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		close(stop)
		select {
		case err := <-missing:
			t.Errorf("round %d: a read during InstallSnapshot found no bill F001: %s", round, err)
		default:
		}
		p.C.Converge(20 * time.Second)
	}
}
