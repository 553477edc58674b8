package kiosk

import (
	"container/list"
	"slices"
	"sync"
	"time"
)

// Bounds of the anonymous kiosk sessions kept in memory. The kiosk has one
// screen and its idle timer ends a visit after two minutes, so a session
// idle for a quarter of an hour is no one's any more; a few thousand live
// sessions are far more than one hallway makes, and cap what a probe that
// opens session after session can make the node hold (90,000 sessions
// once slowed a node to a third).
const (
	maxSessions        = 4096
	sessionIdle        = 15 * time.Minute
	maxSessionReceipts = 16
	// maxReceiptEmails is how many addresses a visit may e-mail one
	// receipt to: a copy for the resident and for whoever keeps their
	// papers, not the village's mail relay for whoever pays a cent.
	maxReceiptEmails = 3
)

// sessions holds the kiosk's anonymous sessions: for each, when it was last
// seen and the receipts it may show again. It is bounded twice: a session
// not seen for idle is gone, and beyond max sessions the one seen longest
// ago is dropped first. Both are kept in one list ordered by last seen, so
// each call does constant work however many sessions there are.
//
// A dropped session's browser gets a new session with its next page; a
// form it shows before that is refused as expired, and nothing is charged.
type sessions struct {
	mu   sync.Mutex
	now  func() time.Time
	idle time.Duration
	max  int
	byID map[string]*list.Element // of *session
	lru  *list.List               // front: seen last
}

// session is one resident's visit.
type session struct {
	id       string
	seen     time.Time
	receipts []string            // receipt numbers this visit made, oldest first
	mailed   map[string][]string // by receipt number, the addresses a copy was queued for
}

func newSessions(now func() time.Time, idle time.Duration, max int) *sessions {
	return &sessions{now: now, idle: idle, max: max, byID: make(map[string]*list.Element), lru: list.New()}
}

// start begins a new session and returns its id.
func (ss *sessions) start() string {
	id := newSessionID()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.insert(&session{id: id, seen: ss.now()})
	return id
}

// insert adds s as the session seen last, dropping the expired and, beyond
// max, those seen longest ago. ss.mu is held.
func (ss *sessions) insert(s *session) {
	ss.expire(ss.now())
	ss.byID[s.id] = ss.lru.PushFront(s)
	for ss.lru.Len() > ss.max {
		ss.remove(ss.lru.Back())
	}
}

// touch reports whether id is a live session and, if so, marks it seen now.
func (ss *sessions) touch(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	ss.expire(now)
	e, ok := ss.byID[id]
	if !ok {
		return false
	}
	e.Value.(*session).seen = now
	ss.lru.MoveToFront(e)
	return true
}

// end forgets session id: the next resident's visit starts afresh.
func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if e, ok := ss.byID[id]; ok {
		ss.remove(e)
	}
}

// grant lets session id show receipt number again. A session dropped while
// its card was being charged (a flood of new sessions can push it out
// during the minutes a resident spends at the terminal) comes back with
// the receipt: the request that paid proved the session was live when it
// began.
func (ss *sessions) grant(id, number string) {
	if id == "" {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e, ok := ss.byID[id]
	if !ok {
		ss.insert(&session{id: id, seen: ss.now()})
		e = ss.byID[id]
	}
	s := e.Value.(*session)
	if slices.Contains(s.receipts, number) {
		return
	}
	s.receipts = append(s.receipts, number)
	if len(s.receipts) > maxSessionReceipts {
		s.receipts = slices.Delete(s.receipts, 0, len(s.receipts)-maxSessionReceipts)
	}
}

// mail notes that session id sends a copy of receipt number to addr.
// already says it sent one there before (nothing to send again); ok is
// false, and nothing is noted, when the receipt has gone to
// maxReceiptEmails addresses already, or the session is gone.
func (ss *sessions) mail(id, number, addr string) (already, ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e, live := ss.byID[id]
	if !live {
		return false, false
	}
	s := e.Value.(*session)
	sent := s.mailed[number]
	switch {
	case slices.Contains(sent, addr):
		return true, true
	case len(sent) >= maxReceiptEmails:
		return false, false
	}
	if s.mailed == nil {
		s.mailed = map[string][]string{}
	}
	s.mailed[number] = append(sent, addr)
	return false, true
}

// unmail forgets a copy mail noted that could not be queued.
func (ss *sessions) unmail(id, number, addr string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if e, live := ss.byID[id]; live {
		if s := e.Value.(*session); s.mailed != nil {
			s.mailed[number] = slices.DeleteFunc(s.mailed[number], func(a string) bool { return a == addr })
		}
	}
}

// holds reports whether session id may show receipt number.
func (ss *sessions) holds(id, number string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e, ok := ss.byID[id]
	return ok && slices.Contains(e.Value.(*session).receipts, number)
}

// len returns how many sessions are kept.
func (ss *sessions) len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.lru.Len()
}

// expire drops the sessions not seen for ss.idle, which are at the back of
// the list. ss.mu is held.
func (ss *sessions) expire(now time.Time) {
	for e := ss.lru.Back(); e != nil; e = ss.lru.Back() {
		if now.Sub(e.Value.(*session).seen) <= ss.idle {
			return
		}
		ss.remove(e)
	}
}

func (ss *sessions) remove(e *list.Element) {
	delete(ss.byID, e.Value.(*session).id)
	ss.lru.Remove(e)
}
