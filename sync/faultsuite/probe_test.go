package faultsuite

import (
	"context"
	"fmt"
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
//
// Known bug (reported): Node.Consistency says "current" as soon as raft
// says Leader, before the new leader has applied what its predecessor
// committed; measured 5–65 ms of stale "current" reads after each
// election. Runs with FAULTS_STRICT_READS=1 (make test-faults).
func TestNewLeaderSaysCurrentOnlyWhenItIs(t *testing.T) {
	if !strictReads() {
		t.Skip("known bug: a new leader says current before it has applied its predecessor's commits; FAULTS_STRICT_READS=1 runs it")
	}
	p := NewInProcess(t, InProcessOptions{Bills: 1})
	stale := 0
	for round := range 5 {
		old := p.Leader()
		if old == "" {
			t.Fatal("no leader")
		}
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
