package kiosk

// Whether this kiosk takes cards right now, and the checkouts in flight.
//
// A cloud-driven reader takes no cards while its processor is unreachable:
// the approval is the processor's, not the reader's. The kiosk asks the
// terminal (terminal.Checker) at most once per Config.CardCheck and remembers the answer; a charge that
// fails as unavailable makes it ask again at once. While they are down every
// page that would lead to a card payment says so and sends the resident to
// the clerk's window (cardoff.go), as on a kiosk without a terminal; cash
// and check still work there, offline too.

import (
	"context"
	"sync"
	"time"

	"github.com/villagehall/appliance/kiosk/terminal"
)

// cardState remembers the terminal's last answer.
type cardState struct {
	checker terminal.Checker // nil: the terminal cannot tell; assume up
	every   time.Duration    // how long an answer holds; negative: ask every time
	mono    func() time.Time // the clock the answer's age is measured by

	mu      sync.Mutex
	checked time.Time
	err     error // nil: up
	asked   bool
}

// state returns why cards cannot be taken now (nil: they can), asking the
// terminal when the last answer is older than c.every.
func (c *cardState) state() error {
	if c == nil || c.checker == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked && c.every >= 0 && c.mono().Sub(c.checked) < c.every {
		return c.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.err, c.checked, c.asked = c.checker.Check(ctx), c.mono(), true
	return c.err
}

// recheck asks the terminal again after a charge found cards unavailable:
// a processor that is down marks cards down for every page, while a charge
// refused for its own sake (over the single-payment limit) leaves them up.
func (c *cardState) recheck() {
	if c == nil || c.checker == nil {
		return
	}
	c.mu.Lock()
	c.asked = false
	c.mu.Unlock()
	_ = c.state()
}

// CardStatus says whether this kiosk takes cards now, and if not why
// (for the staff's start page): "no terminal", or the terminal's error.
func (s *Server) CardStatus() (ok bool, why string) {
	if s.terminal == nil {
		return false, "no card terminal is configured"
	}
	if err := s.cards.state(); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// keyLocks serialises the checkouts of one command id (a double tap, a
// browser retry), so the second finds the first one's receipt instead of
// stamping a second command.
type keyLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

// lock waits for key to be free, or for ctx to end (false).
func (k *keyLocks) lock(ctx context.Context, key string) bool {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = make(map[string]chan struct{})
		}
		ch, busy := k.held[key]
		if !busy {
			k.held[key] = make(chan struct{})
			k.mu.Unlock()
			return true
		}
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

func (k *keyLocks) unlock(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	close(k.held[key])
	delete(k.held, key)
}

// voids are the command ids whose charge was refunded because the ledger
// refused the payment: their form is spent (a retry would find the
// terminal's first approval, which was given back). Forms live as long as
// the session, in this process, so memory is enough.
type voids struct {
	mu  sync.Mutex
	ids map[string]terminal.Refund
}

func (v *voids) add(id string, r terminal.Refund) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ids == nil {
		v.ids = make(map[string]terminal.Refund)
	}
	v.ids[id] = r
}

func (v *voids) get(id string) (terminal.Refund, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	r, ok := v.ids[id]
	return r, ok
}
