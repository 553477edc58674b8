package terminal

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/villagehall/appliance/domain"
)

// Outcome is what the simulator does with a charge.
type Outcome string

// Outcomes the simulator can be told to produce.
const (
	Approve Outcome = "approve"
	Decline Outcome = "decline"
	Timeout Outcome = "timeout"
	Cancel  Outcome = "cancel"
)

// Outcomes lists every outcome, in the order a demo panel shows them.
func Outcomes() []Outcome { return []Outcome{Approve, Decline, Timeout, Cancel} }

// ParseOutcome returns the outcome named s.
func ParseOutcome(s string) (Outcome, bool) {
	for _, o := range Outcomes() {
		if string(o) == s {
			return o, true
		}
	}
	return "", false
}

// err returns the error a charge with outcome o fails with, or nil.
func (o Outcome) err() error {
	switch o {
	case Decline:
		return ErrDeclined
	case Timeout:
		return ErrTimeout
	case Cancel:
		return ErrCancelled
	}
	return nil
}

// Simulator is a Terminal for development, demos and tests. It approves
// every charge unless told otherwise with SetNext, remembers approvals by
// key (the same key gives the same approval and no second charge), and is
// safe for concurrent use. A zero Simulator is not usable; call
// NewSimulator.
type Simulator struct {
	mu       sync.Mutex
	next     []Outcome
	delay    time.Duration
	seq      int
	approved map[string]Approval
	inflight map[string]chan struct{}
	log      []Approval
}

// OutcomeSetter is implemented by terminals whose next outcome can be chosen,
// such as the Simulator. The kiosk's demo panel uses it, and only on a kiosk
// started as a demo (kiosk.Config.Simulator): anywhere else the kiosk never
// reads the panel's field, so a posted outcome reaches no terminal.
type OutcomeSetter interface {
	SetNext(o Outcome)
}

var (
	_ Terminal      = (*Simulator)(nil)
	_ OutcomeSetter = (*Simulator)(nil)
)

// NewSimulator returns a simulator that approves every charge at once.
func NewSimulator() *Simulator {
	return &Simulator{
		approved: make(map[string]Approval),
		inflight: make(map[string]chan struct{}),
	}
}

// SetNext queues the outcome of the next new charge. Outcomes queue in
// order, one per charge; when the queue is empty charges are approved. A
// charge whose key was already approved takes nothing from the queue.
func (s *Simulator) SetNext(o Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = append(s.next, o)
}

// SetDelay makes every new charge take d, as a resident at a real terminal
// does; the wait ends early when the charge's context ends.
func (s *Simulator) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Approved returns the approvals given so far, one per charged key, in the
// order they were charged: the charges a card statement would show.
func (s *Simulator) Approved() []Approval {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Approval(nil), s.log...)
}

// Charge implements Terminal. Concurrent charges with one key are served
// one at a time, so the second sees the first one's approval.
func (s *Simulator) Charge(ctx context.Context, key string, amount domain.Money) (Approval, error) {
	if key == "" {
		return Approval{}, fmt.Errorf("terminal: charge without a key")
	}
	if !amount.IsPositive() {
		return Approval{}, fmt.Errorf("terminal: charge of %s is not positive", amount)
	}
	for {
		s.mu.Lock()
		if a, ok := s.approved[key]; ok {
			s.mu.Unlock()
			if !a.Amount.Equal(amount) {
				return Approval{}, fmt.Errorf("terminal: key %s was approved for %s, not %s", key, a.Amount, amount)
			}
			return a, nil
		}
		wait, busy := s.inflight[key]
		if !busy {
			break // s.mu is held
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return Approval{}, fmt.Errorf("terminal: %w", ctx.Err())
		}
	}
	done := make(chan struct{})
	s.inflight[key] = done
	outcome := Approve
	if len(s.next) > 0 {
		outcome, s.next = s.next[0], s.next[1:]
	}
	delay := s.delay
	s.mu.Unlock()

	defer func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		close(done)
	}()

	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Approval{}, fmt.Errorf("terminal: %w", ctx.Err())
		}
	}
	if err := ctx.Err(); err != nil {
		return Approval{}, fmt.Errorf("terminal: %w", err)
	}
	if err := outcome.err(); err != nil {
		return Approval{}, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	a := Approval{Key: key, Reference: fmt.Sprintf("SIM%06d", s.seq), Amount: amount}
	s.approved[key] = a
	s.log = append(s.log, a)
	return a, nil
}
