package terminal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

var ten = domain.MustMoney("10.00")

func TestSimulatorApprovesByDefault(t *testing.T) {
	s := terminal.NewSimulator()
	a, err := s.Charge(context.Background(), "k1", ten)
	if err != nil || a.Reference == "" || a.Key != "k1" || !a.Amount.Equal(ten) {
		t.Fatalf("approval %+v, err %v", a, err)
	}
}

func TestSimulatorOutcomesQueue(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetNext(terminal.Decline)
	s.SetNext(terminal.Timeout)
	s.SetNext(terminal.Cancel)
	for _, want := range []error{terminal.ErrDeclined, terminal.ErrTimeout, terminal.ErrCancelled, nil} {
		_, err := s.Charge(context.Background(), "k", ten)
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Fatalf("err %v, want %v", err, want)
		}
	}
	if n := len(s.Approved()); n != 1 {
		t.Errorf("%d approvals, want 1", n)
	}
}

func TestSimulatorIsIdempotentPerKey(t *testing.T) {
	s := terminal.NewSimulator()
	a1, err := s.Charge(context.Background(), "k", ten)
	if err != nil {
		t.Fatal(err)
	}
	s.SetNext(terminal.Decline) // a repeated key takes nothing from the queue
	a2, err := s.Charge(context.Background(), "k", ten)
	if err != nil || a2 != a1 {
		t.Fatalf("second charge %+v, %v; want %+v", a2, err, a1)
	}
	if _, err := s.Charge(context.Background(), "k", domain.MustMoney("11.00")); err == nil {
		t.Error("the same key for another amount was accepted")
	}
	if _, err := s.Charge(context.Background(), "other", ten); !errors.Is(err, terminal.ErrDeclined) {
		t.Errorf("queued decline not used by the next new charge: %v", err)
	}
	if n := len(s.Approved()); n != 1 {
		t.Errorf("%d approvals, want 1", n)
	}
}

func TestSimulatorConcurrentSameKey(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetDelay(20 * time.Millisecond)
	var wg sync.WaitGroup
	refs := make([]string, 8)
	for i := range refs {
		wg.Go(func() {
			a, err := s.Charge(context.Background(), "same", ten)
			if err != nil {
				t.Error(err)
			}
			refs[i] = a.Reference
		})
	}
	wg.Wait()
	for _, r := range refs {
		if r != refs[0] {
			t.Fatalf("references %v differ", refs)
		}
	}
	if n := len(s.Approved()); n != 1 {
		t.Errorf("%d charges for one key", n)
	}
}

func TestSimulatorHonoursContext(t *testing.T) {
	s := terminal.NewSimulator()
	s.SetDelay(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Charge(ctx, "k", ten)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if len(s.Approved()) != 0 {
		t.Error("charged after the context ended")
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	s.SetDelay(0)
	if _, err := s.Charge(done, "k2", ten); !errors.Is(err, context.Canceled) {
		t.Errorf("charge on a cancelled context: %v", err)
	}
}

func TestSimulatorRefusesBadInput(t *testing.T) {
	s := terminal.NewSimulator()
	if _, err := s.Charge(context.Background(), "", ten); err == nil {
		t.Error("a charge without a key")
	}
	if _, err := s.Charge(context.Background(), "k", domain.Money{}); err == nil {
		t.Error("a charge of zero")
	}
}

func TestParseOutcome(t *testing.T) {
	for _, o := range terminal.Outcomes() {
		if got, ok := terminal.ParseOutcome(string(o)); !ok || got != o {
			t.Errorf("%s: %s %v", o, got, ok)
		}
	}
	if _, ok := terminal.ParseOutcome("explode"); ok {
		t.Error("unknown outcome parsed")
	}
}
