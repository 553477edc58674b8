package kiosk

import (
	"fmt"
	"testing"
	"time"
)

// TestSessionStore checks the bounds of the session store directly: the
// count never passes max, the session seen longest ago goes first, an idle
// one expires, a session's receipts are bounded, and a session dropped
// while its card was charged comes back with its receipt.
func TestSessionStore(t *testing.T) {
	now := time.Date(2026, time.October, 20, 10, 15, 0, 0, time.UTC)
	ss := newSessions(func() time.Time { return now }, 15*time.Minute, 3)
	a, b := ss.start(), ss.start()
	ss.touch(a) // b is now the oldest
	c, d := ss.start(), ss.start()
	if ss.len() != 3 || ss.touch(b) || !ss.touch(a) || !ss.touch(c) || !ss.touch(d) {
		t.Fatalf("len %d; b %v a %v c %v d %v", ss.len(), ss.touch(b), ss.touch(a), ss.touch(c), ss.touch(d))
	}
	for i := range 100 {
		ss.start()
		if ss.len() > 3 {
			t.Fatalf("after %d starts %d sessions", i+1, ss.len())
		}
	}

	e := ss.start()
	for i := range maxSessionReceipts + 5 {
		ss.grant(e, fmt.Sprintf("r-%d", i))
	}
	if ss.holds(e, "r-0") || !ss.holds(e, fmt.Sprintf("r-%d", maxSessionReceipts+4)) {
		t.Error("a session's receipts are not bounded, newest kept")
	}
	if ss.holds(e, "r-x") || ss.holds("nobody", "r-1") {
		t.Error("holds a receipt never granted")
	}

	// Dropped during a charge: the grant brings the session back.
	ss.end(e)
	if ss.touch(e) {
		t.Fatal("an ended session is live")
	}
	ss.grant(e, "paid")
	if !ss.touch(e) || !ss.holds(e, "paid") {
		t.Error("the paying session did not come back with its receipt")
	}
	ss.grant("", "paid") // no session: nothing to grant
	if ss.len() > 3 {
		t.Errorf("%d sessions", ss.len())
	}

	now = now.Add(15*time.Minute + time.Second)
	if ss.touch(e) || ss.len() != 0 {
		t.Errorf("after the idle time: live %v, %d sessions", ss.touch(e), ss.len())
	}
}
