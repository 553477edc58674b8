package kiosk_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/mail"
)

// relay is a mail queue that keeps what it is handed, and refuses the
// messages to the addresses in refuse.
type relay struct {
	mu     sync.Mutex
	to     []string
	refuse map[string]bool
}

func (q *relay) Enqueue(m mail.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.refuse[m.To] {
		delete(q.refuse, m.To)
		return errors.New("mail queue: no space left on device")
	}
	q.to = append(q.to, m.To)
	return nil
}

func (q *relay) sent() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.to...)
}

// TestReceiptEmailsAreBounded: a visit that paid may e-mail its receipt
// to a few addresses, each once; sending the form again to the same
// address queues nothing more, and past the limit the kiosk refuses and
// says where to get another copy. A copy the queue could not take may be
// asked for again. The kiosk is not a mail relay for whoever paid a cent.
func TestReceiptEmailsAreBounded(t *testing.T) {
	q := &relay{refuse: map[string]bool{"first@example.com": true}}
	h := newHarness(t, func(c *kiosk.Config) { c.Mail = q })
	link := h.payLetter("Dana Requester")
	rc := h.get(link)
	h.expect(rc, http.StatusOK)
	action, ok := rc.doc.Find(`[data-testid="receipt-email"] form`).Attr("action")
	if !ok {
		t.Fatal("the receipt offers no e-mailed copy")
	}
	send := func(addr string) page {
		t.Helper()
		return h.post(action, url.Values{"csrf": {rc.csrf()}, "email": {addr}})
	}
	// The queue refuses the first: an error, and it may be asked for again.
	if p := send("first@example.com"); p.status < 500 {
		t.Fatalf("a copy the queue refused: %d", p.status)
	}
	for _, addr := range []string{"first@example.com", "second@example.com", "second@example.com", "third@example.com"} {
		if p := send(addr); p.status != http.StatusOK || !strings.Contains(p.text("receipt-email-queued"), addr) {
			t.Fatalf("%s: %d %q", addr, p.status, p.text("error-message"))
		}
	}
	p := send("fourth@example.com")
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.text("error-message"), "3 addresses") || p.count("receipt-email-queued") != 0 {
		t.Fatalf("a fourth address: %d %q", p.status, p.text("error-message"))
	}
	want := []string{"first@example.com", "second@example.com", "third@example.com"}
	if got := q.sent(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("queued for %q, want %q", got, want)
	}
}
