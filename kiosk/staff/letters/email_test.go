package letters_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// pressedTwice is a mail queue for the double press: its first message is
// refused (the relay's disk is full, say), so the letter is written and
// not e-mailed; the next is held until another arrives or a while has
// passed, so that a second press made meanwhile reaches the queue too
// unless the office keeps it out.
type pressedTwice struct {
	mu      sync.Mutex
	calls   int
	queued  []mail.Message
	another chan struct{}
}

func (q *pressedTwice) Enqueue(m mail.Message) error {
	q.mu.Lock()
	q.calls++
	n := q.calls
	q.mu.Unlock()
	switch n {
	case 1:
		return errors.New("mail queue: no space left on device")
	case 2:
		select {
		case <-q.another:
		case <-time.After(500 * time.Millisecond):
		}
	default:
		close(q.another)
	}
	q.mu.Lock()
	q.queued = append(q.queued, m)
	q.mu.Unlock()
	return nil
}

// writtenNotEmailed is an office whose mail queue is q, with a title
// company's letter asked for by e-mail and written by a clerk (c), its
// e-mail refused by q at completion: claim waits to be sent again.
func writtenNotEmailed(t *testing.T, q staff.Mailer) (*stafftest.Harness, *stafftest.Client, string) {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Mail: q})
	titleCompany(h)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/window")
	c.Post("/staff/window/open", url.Values{"float": {"50.00"}})
	p := c.Post("/staff/letters/new", requestForm(c))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("request: %d %s", p.Status, p.Text("request-error"))
	}
	claim := strings.TrimPrefix(p.Location, "/staff/letters/")
	form := url.Values{"assessment_changes": {"none"}, "deferred": {"none"}, "improvements": {"none"}, "floodplain": {"none"}, "violations": {"none known"}}
	if p := c.Post("/staff/letters/"+claim+"/complete", form); p.Status != http.StatusOK || !strings.Contains(p.Text("letter-error"), "not e-mailed") {
		t.Fatalf("complete with the queue refusing: %d %q", p.Status, p.Text("letter-error"))
	}
	return h, c, claim
}

// TestLetterEmailedOnceForTwoPresses (§5.11): a letter whose e-mail did
// not go out at completion is sent again by two presses at once (a
// double click, or two clerks): one e-mail is queued, the letter is
// delivered by e-mail, and both presses show the letter.
func TestLetterEmailedOnceForTwoPresses(t *testing.T) {
	q := &pressedTwice{another: make(chan struct{})}
	h, c, claim := writtenNotEmailed(t, q)
	other := h.SignedIn("kclerk", domain.RoleClerk)
	var wg sync.WaitGroup
	pages := make([]stafftest.Page, 2)
	for i, cl := range []*stafftest.Client{c, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pages[i] = cl.Post("/staff/letters/"+claim+"/email", url.Values{})
		}()
	}
	wg.Wait()
	for i, p := range pages {
		if p.Status != http.StatusSeeOther || p.Location != "/staff/letters/"+claim {
			t.Errorf("press %d: %d %q %q", i+1, p.Status, p.Location, p.Text("letter-error"))
		}
	}
	q.mu.Lock()
	n := len(q.queued)
	q.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d e-mails queued for one letter pressed twice", n)
	}
	if p := c.Get("/staff/letters/" + claim); p.Text("letter-state") != "delivered" || !strings.Contains(p.Text("letter-delivered"), "email") {
		t.Fatalf("after the presses: %q %q", p.Text("letter-state"), p.Text("letter-delivered"))
	}
}

// failsFirst is a mail queue that refuses its first message and keeps the
// rest.
type failsFirst struct {
	mu     sync.Mutex
	calls  int
	queued []mail.Message
}

func (q *failsFirst) Enqueue(m mail.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	if q.calls == 1 {
		return errors.New("mail queue: no space left on device")
	}
	q.queued = append(q.queued, m)
	return nil
}

// TestLetterEmailQueuedOnceWhenItsRecordFails (§5.11): the letter's
// e-mail is queued but the cluster does not confirm its delivery; sent
// again once the cluster answers, the delivery is recorded and no second
// e-mail is queued.
func TestLetterEmailQueuedOnceWhenItsRecordFails(t *testing.T) {
	q := &failsFirst{}
	h, c, claim := writtenNotEmailed(t, q)
	h.Ledger.SetProvisional(true)
	if p := c.Post("/staff/letters/"+claim+"/email", url.Values{}); p.Status == http.StatusSeeOther {
		t.Fatalf("the delivery was recorded without the cluster: %d", p.Status)
	}
	if p := c.Get("/staff/letters/" + claim); p.Text("letter-state") == "delivered" {
		t.Fatal("the letter reads delivered without the cluster's confirmation")
	}
	h.Ledger.SetProvisional(false)
	if p := c.Post("/staff/letters/"+claim+"/email", url.Values{}); p.Status != http.StatusSeeOther {
		t.Fatalf("send again: %d %q", p.Status, p.Text("letter-error"))
	}
	if p := c.Get("/staff/letters/" + claim); p.Text("letter-state") != "delivered" || !strings.Contains(p.Text("letter-delivered"), "email") {
		t.Fatalf("after sending again: %q %q", p.Text("letter-state"), p.Text("letter-delivered"))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queued) != 1 {
		t.Fatalf("%d e-mails queued for one letter", len(q.queued))
	}
}
