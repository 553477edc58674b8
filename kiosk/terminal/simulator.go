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
		return Declined{Reason: "The card was declined by the simulator."}
	case Timeout:
		return ErrTimeout
	case Cancel:
		return ErrCancelled
	}
	return nil
}

// Simulator is a Terminal for development, demos and tests. It approves
// every charge unless told otherwise with SetOutcome, remembers approvals
// by key (the same key gives the same approval and no second charge), and
// is safe for concurrent use. It declares store-and-forward, as a terminal
// that approves offline would, so the node's offline card limit applies to
// it. A zero Simulator is not usable; call NewSimulator.
type Simulator struct {
	mu       sync.Mutex
	outcomes map[string]Outcome // by charge key: the outcome of its next attempt
	delay    time.Duration
	seq      int
	approved map[string]Approval
	inflight map[string]*attempt
	log      []Approval
	refunds  map[string]Refund       // by refund key
	refunded map[string]domain.Money // by charge key
	refLog   []Refund
	txns     []Transaction
	now      func() time.Time
	offline  error
	card     *domain.CardShown // the test card every approval reports
}

// attempt is a charge waiting at the simulated terminal.
type attempt struct {
	done      chan struct{} // closed when the attempt ends
	cancelled chan struct{} // closed by Cancel
	once      sync.Once
}

// OutcomeSetter is implemented by terminals whose outcome can be chosen,
// such as the Simulator. The kiosk's demo panel uses it, and only on a kiosk
// started as a demo (kiosk.Config.Simulator): anywhere else the kiosk never
// reads the panel's field, so a posted outcome reaches no terminal.
type OutcomeSetter interface {
	// SetOutcome sets what the next attempt of the charge keyed key does.
	// It belongs to that charge alone (one shared queue once let a double
	// tap's unused "approve" approve a later charge the resident had told
	// to decline).
	SetOutcome(key string, o Outcome)
}

var (
	_ Terminal      = (*Simulator)(nil)
	_ OutcomeSetter = (*Simulator)(nil)
	_ Checker       = (*Simulator)(nil)
	_ Statement     = (*Simulator)(nil)
)

// NewSimulator returns a simulator that approves every charge at once.
func NewSimulator() *Simulator {
	return &Simulator{
		outcomes: make(map[string]Outcome),
		approved: make(map[string]Approval),
		inflight: make(map[string]*attempt),
		refunds:  make(map[string]Refund),
		refunded: make(map[string]domain.Money),
		now:      time.Now,
		card:     &domain.CardShown{Brand: TestCardBrand, Last4: TestCardLast4},
	}
}

// The test card the simulator reports on its approvals unless told
// otherwise (SetCard): Stripe's test Visa.
const (
	TestCardBrand = "visa"
	TestCardLast4 = "4242"
)

// SetCard sets the card later approvals report: nil is a terminal that
// gives no card details. An approval already made keeps its card.
func (s *Simulator) SetCard(c *domain.CardShown) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c != nil {
		cp := *c
		c = &cp
	}
	s.card = c
}

// SetClock sets the clock the simulator dates its transactions with.
func (s *Simulator) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// SetOutcome implements OutcomeSetter. A charge whose key was already
// approved stays approved: its outcome is never read again.
func (s *Simulator) SetOutcome(key string, o Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcomes[key] = o
}

// SetDelay makes every new charge take d, as a resident at a real terminal
// does; the wait ends early when the charge's context ends or Cancel is
// called.
func (s *Simulator) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetOffline makes the simulated processor unreachable (err non-nil) or
// reachable again (nil): Check and Charge answer ErrUnavailable.
func (s *Simulator) SetOffline(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offline = err
}

// Capabilities implements Terminal: the simulator stands in for a terminal
// that can approve offline.
func (s *Simulator) Capabilities() Capabilities { return Capabilities{StoreAndForward: true} }

// Check implements Checker.
func (s *Simulator) Check(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.offline != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, s.offline)
	}
	return nil
}

// Approved returns the approvals given so far, one per charged key, in the
// order they were charged: the charges a card statement would show.
func (s *Simulator) Approved() []Approval {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Approval(nil), s.log...)
}

// Refunds returns the refunds made so far, in order.
func (s *Simulator) Refunds() []Refund {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Refund(nil), s.refLog...)
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
	var at *attempt
	for {
		s.mu.Lock()
		if a, ok := s.approved[key]; ok {
			s.mu.Unlock()
			if !a.Amount.Equal(amount) {
				return Approval{}, fmt.Errorf("terminal: key %s was approved for %s, not %s", key, a.Amount, amount)
			}
			return a, nil
		}
		if s.offline != nil {
			err := s.offline
			s.mu.Unlock()
			return Approval{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		busy, ok := s.inflight[key]
		if !ok {
			break // s.mu is held
		}
		s.mu.Unlock()
		select {
		case <-busy.done:
		case <-ctx.Done():
			return Approval{}, fmt.Errorf("terminal: %w", ctx.Err())
		}
	}
	at = &attempt{done: make(chan struct{}), cancelled: make(chan struct{})}
	s.inflight[key] = at
	outcome, ok := s.outcomes[key]
	if !ok {
		outcome = Approve
	}
	delete(s.outcomes, key) // one attempt's outcome; a retry is approved unless told again
	delay := s.delay
	s.mu.Unlock()

	defer func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		close(at.done)
	}()

	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-at.cancelled:
			t.Stop()
			return Approval{}, ErrCancelled
		case <-ctx.Done():
			t.Stop()
			return Approval{}, fmt.Errorf("terminal: %w", ctx.Err())
		}
	}
	select {
	case <-at.cancelled:
		return Approval{}, ErrCancelled
	default:
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
	if s.card != nil {
		a.Card = CardOf(s.card.Brand, s.card.Last4)
	}
	s.approved[key] = a
	s.log = append(s.log, a)
	s.txns = append(s.txns, Transaction{ID: fmt.Sprintf("txn_sim_%06d", len(s.txns)+1), Type: "charge", Created: s.now(),
		Amount: amount, Net: amount, CommandID: key, Source: a.Reference})
	return a, nil
}

// Waiting reports whether a charge of key is waiting at the simulated
// terminal (tests use it to act while a resident stands at the reader).
func (s *Simulator) Waiting(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.inflight[key]
	return ok
}

// Cancel implements Terminal.
func (s *Simulator) Cancel(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at, ok := s.inflight[key]; ok {
		at.once.Do(func() { close(at.cancelled) })
	}
	return nil
}

// Refund implements Terminal. It refunds only a charge it approved, never
// more than the charge still holds, and a refund key once.
func (s *Simulator) Refund(_ context.Context, r RefundRequest) (Refund, error) {
	if r.Key == "" {
		return Refund{}, fmt.Errorf("terminal: refund without a key")
	}
	if !r.Amount.IsPositive() {
		return Refund{}, fmt.Errorf("terminal: refund of %s is not positive", r.Amount)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if done, ok := s.refunds[r.Key]; ok {
		if !done.Amount.Equal(r.Amount) {
			return Refund{}, fmt.Errorf("terminal: refund %s was made for %s, not %s", r.Key, done.Amount, r.Amount)
		}
		return done, nil
	}
	if s.offline != nil {
		return Refund{}, fmt.Errorf("%w: %v", ErrUnavailable, s.offline)
	}
	a, ok := s.approved[r.ChargeKey]
	if !ok || (r.Reference != "" && a.Reference != r.Reference) {
		return Refund{}, fmt.Errorf("terminal: no approved charge %s (%s) to refund", r.ChargeKey, r.Reference)
	}
	left := a.Amount.Sub(s.refunded[r.ChargeKey])
	if r.Amount.GreaterThan(left) {
		return Refund{}, fmt.Errorf("terminal: refund of %s is more than the %s charge %s still holds", r.Amount, left, r.ChargeKey)
	}
	s.refunded[r.ChargeKey] = s.refunded[r.ChargeKey].Add(r.Amount)
	done := Refund{Key: r.Key, Reference: fmt.Sprintf("SIMR%06d", len(s.refLog)+1), Amount: r.Amount}
	s.refunds[r.Key] = done
	s.refLog = append(s.refLog, done)
	s.txns = append(s.txns, Transaction{ID: fmt.Sprintf("txn_sim_%06d", len(s.txns)+1), Type: "refund", Created: s.now(),
		Amount: r.Amount.Neg(), Net: r.Amount.Neg(), CommandID: r.Key, Source: done.Reference})
	return done, nil
}

// Transactions implements Statement from the simulator's own charges and
// refunds (no fees, no payouts).
func (s *Simulator) Transactions(_ context.Context, from, to time.Time) ([]Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Transaction
	for _, t := range s.txns {
		if !t.Created.Before(from) && t.Created.Before(to) {
			out = append(out, t)
		}
	}
	return out, nil
}
