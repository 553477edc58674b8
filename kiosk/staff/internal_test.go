package staff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// TestLimiterMemoryIsBounded: a flood of sign-ins from ever new addresses
// for ever new usernames keeps the limiter at its bound, and the flood
// does not evict the address being held.
func TestLimiterMemoryIsBounded(t *testing.T) {
	clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	l := newLimiter(func() time.Time { return clock })
	l.max = 100
	req := func(addr string) *http.Request {
		r := httptest.NewRequest("POST", "/staff/login", nil)
		r.RemoteAddr = addr
		return r
	}
	guesser := req("10.9.9.9:4000")
	for range addrFree {
		if _, ok := l.take("admin", guesser); !ok {
			t.Fatal("held before its free guesses")
		}
	}
	if _, ok := l.take("admin", guesser); ok {
		t.Fatal("not held after its free guesses")
	}
	for i := range 5000 {
		clock = clock.Add(time.Millisecond)
		l.take(fmt.Sprintf("user%d", i), req(fmt.Sprintf("10.%d.%d.%d:4000", i>>16&255, i>>8&255, i&255)))
		if len(l.m) > l.max {
			t.Fatalf("after %d sign-ins the limiter holds %d keys, more than %d", i+1, len(l.m), l.max)
		}
	}
	if _, ok := l.take("admin", guesser); ok {
		t.Fatal("the flood evicted the held address")
	}
	// An hour after its latest failure an address is forgotten: free again,
	// and first to go when room is made.
	clock = clock.Add(forgetAfter + time.Minute)
	if _, ok := l.take("admin", guesser); !ok {
		t.Fatal("still held after an idle hour")
	}
	for i := range 60 {
		clock = clock.Add(time.Millisecond)
		l.take("late", req(fmt.Sprintf("10.8.8.%d:4000", i)))
	}
	for k, st := range l.m {
		if clock.Sub(st.last) > forgetAfter {
			t.Errorf("%s: forgotten strikes kept while room was made", k)
		}
	}
	for i := range 60 {
		if l.m[addressKey(req(fmt.Sprintf("10.8.8.%d:4000", i)))] == nil {
			t.Errorf("10.8.8.%d evicted although forgotten keys could be swept", i)
		}
	}
}

func TestSafeCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Weed cutting", "Weed cutting"},
		{"=1+1", "'=1+1"},
		{`=HYPERLINK("http://evil.example")`, `'=HYPERLINK("http://evil.example")`},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"-1+2", "'-1+2"},
		{"-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"},
		{"-", "'-"},
		{"-.5", "'-.5"},
		{"-1e3", "'-1e3"},
		{"-12.50", "-12.50"},
		{"-0.37", "-0.37"},
		{"142.37", "142.37"},
		{"12", "12"},
		{"＝1+1", "'＝1+1"},
		{"＋1", "'＋1"},
		{"a=1", "a=1"},
		{" =1", " =1"},
	} {
		if got := safeCell(tc.in); got != tc.want {
			t.Errorf("safeCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// payment is the body of a payment through the API (window.PaymentRequest),
// field for field: the fuzz target's shape.
type payment struct {
	CommandID string        `json:"command_id"`
	BillID    string        `json:"bill_id"`
	Amount    string        `json:"amount"`
	Tender    domain.Tender `json:"tender"`
	Reference string        `json:"reference"`
	Payer     string        `json:"payer,omitempty"`
}

// FuzzDecodeBody: whatever the body, the strict decoder does not panic,
// and a body it takes is one encoding/json reads the same way.
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"command_id":"a","bill_id":"B","amount":"1.00","tender":"card","reference":"x"}`,
		`{"amount":"1","amount":"2"}`,
		`{"amount":"1","AMOUNT":"2"}`,
		`{"payer":"x","nested":{"a":1,"a":2}}`,
		`{"a":[{"b":1},{"b":1}]}`,
		`{} {}`,
		`[]`,
		`null`,
		`{"amount":"1"`,
		"{\"payer\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var strict payment
		r := httptest.NewRequest("POST", "/api/v1/payments", bytes.NewReader(body))
		err := decodeBody(httptest.NewRecorder(), r, &strict, "a payment")
		if err != nil {
			if errorStatus(err) != http.StatusBadRequest {
				t.Fatalf("refusal %v has status %d", err, errorStatus(err))
			}
			return
		}
		var loose payment
		if err := json.Unmarshal(body, &loose); err != nil {
			t.Fatalf("strict took %q, encoding/json refuses it: %v", body, err)
		}
		if !reflect.DeepEqual(strict, loose) {
			t.Fatalf("strict read %+v, encoding/json %+v", strict, loose)
		}
	})
}

func TestCheckJSONObjectNested(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"a":{"b":1,"c":{"d":[1,{"e":2}]}},"f":[[],{}]}`: true,
		`{"a":{"b":1,"b":2}}`:                             false,
		`{"a":[{"b":1},{"b":2}]}`:                         true, // the same name in two objects
		`{"a":[{"b":1,"B":2}]}`:                           false,
		`{"K":1,"\u212a":2}`:                              false, // KELVIN SIGN folds to K, as encoding/json matches it
		`{"s":1,"ſ":2}`:                                   false, // LATIN SMALL LETTER LONG S folds to s
	} {
		if err := checkJSONObject([]byte(body)); (err == nil) != ok {
			t.Errorf("%s: %v, want accepted %v", body, err, ok)
		}
	}
}

// TestAnonymousSessionsAreBounded: a flood of sign-in page visits keeps at
// most maxAnonymous anonymous sessions, drops the least recently seen
// first, and never drops a signed-in session.
func TestAnonymousSessionsAreBounded(t *testing.T) {
	clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	ss := &sessions{now: func() time.Time { return clock }, m: map[string]*session{}}
	staff := ss.start("jdoe", 1)
	for i := range 3 * maxAnonymous {
		clock = clock.Add(time.Millisecond)
		ss.start("", 0)
		if ss.anon > maxAnonymous || len(ss.m) > maxAnonymous+1 {
			t.Fatalf("after %d visits: %d anonymous sessions, %d in all", i+1, ss.anon, len(ss.m))
		}
	}
	if _, ok := ss.get(staff.id); !ok {
		t.Fatal("the flood dropped a signed-in session")
	}
	anon := 0
	for _, s := range ss.m {
		if s.username == "" {
			anon++
		}
	}
	if anon != ss.anon || anon != maxAnonymous {
		t.Fatalf("counted %d anonymous sessions, kept count %d, want %d", anon, ss.anon, maxAnonymous)
	}
}

// TestArgon2RunsTwoAtATime: sign-ins and password changes sent at once
// run their argon2id computations at most two at a time (hashSlots), so
// that a burst of sign-ins from many addresses cannot stack their memory
// cost up; every one still gets its right answer.
func TestArgon2RunsTwoAtATime(t *testing.T) {
	hashSlots.mu.Lock()
	hashSlots.peak = 0
	hashSlots.mu.Unlock()
	h := Hasher{Memory: 4 * 1024, Time: 1, Threads: 1}
	good := h.Hash("correct horse battery")
	var wg sync.WaitGroup
	wrong := make(chan int, 32)
	for i := range 32 {
		wg.Go(func() {
			pw := "correct horse battery"
			if i%2 == 1 {
				pw = "wrong"
			}
			if CheckPassword(good, pw) != (i%2 == 0) {
				wrong <- i
			}
			if i%8 == 0 {
				_ = h.Hash(pw)
			}
		})
	}
	wg.Wait()
	close(wrong)
	for i := range wrong {
		t.Errorf("attempt %d got the wrong answer", i)
	}
	hashSlots.mu.Lock()
	peak := hashSlots.peak
	hashSlots.mu.Unlock()
	if peak < 1 || peak > 2 {
		t.Fatalf("%d argon2 computations ran at once at the most, want at most 2 (and some through the gate)", peak)
	}
}

// TestWorkQueueSortsByWhenDue: the start page's alerts go under overdue,
// today (due today or undated), this week and later, each section in the
// order of its days and counted by what its alerts stand for; an empty
// section is left out.
func TestWorkQueueSortsByWhenDue(t *testing.T) {
	today := domain.MustDate("2026-11-02")
	q := workQueue([]view.Alert{
		{TestID: "later", Due: "2026-11-20"},
		{TestID: "now"},
		{TestID: "week-2", Due: "2026-11-09", Count: 3},
		{TestID: "late", Due: "2026-10-31", Count: 2},
		{TestID: "today", Due: "2026-11-02"},
		{TestID: "week-1", Due: "2026-11-03"},
		{TestID: "later-too", Due: "2026-11-10"},
	}, today)
	var got []string
	for _, s := range q {
		line := fmt.Sprintf("%s(%d):", s.Name, s.Count)
		for _, a := range s.Alerts {
			line += " " + a.TestID
		}
		got = append(got, line)
	}
	want := []string{"Overdue(2): late", "Today(2): now today", "This week(4): week-1 week-2", "Later(2): later-too later"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("queue:\n got %q\nwant %q", got, want)
	}
	if q := workQueue(nil, today); len(q) != 0 {
		t.Fatalf("an empty queue has sections: %+v", q)
	}
}
