package kiosk_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk"
)

// TestSessionsAreBounded probes the session cap: request after request
// without a cookie, each making a session. The kiosk keeps at most
// kiosk.MaxSessions of them, whatever the count of requests.
func TestSessionsAreBounded(t *testing.T) {
	h := newHarness(t)
	handler := h.kiosk.Handler()
	for i := range 3 * kiosk.MaxSessions {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/reset", nil))
		if rec.Code != http.StatusSeeOther || len(rec.Result().Cookies()) == 0 {
			t.Fatalf("request %d: status %d, no cookie", i, rec.Code)
		}
		if n := h.kiosk.Sessions(); n > kiosk.MaxSessions {
			t.Fatalf("after %d requests the kiosk keeps %d sessions, more than %d", i+1, n, kiosk.MaxSessions)
		}
	}
	if n := h.kiosk.Sessions(); n != kiosk.MaxSessions {
		t.Errorf("%d sessions after the flood, want the cap %d", n, kiosk.MaxSessions)
	}
	// The assets make none.
	before := h.kiosk.Sessions()
	for range 10 {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/assets/kiosk.css", nil))
		if len(rec.Result().Cookies()) != 0 {
			t.Fatal("an asset set a session cookie")
		}
	}
	if h.kiosk.Sessions() != before {
		t.Error("assets made sessions")
	}
}

// TestFloodDropsTheOldestFirst: a resident who keeps using the kiosk keeps
// the session through a flood; one left alone behind more than the cap of
// new sessions is dropped, and then its form is refused as expired, with
// nothing charged.
func TestFloodDropsTheOldestFirst(t *testing.T) {
	h := newHarness(t)
	flood := func(n int) {
		handler := h.kiosk.Handler()
		for range n {
			handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/reset", nil))
		}
	}
	c := h.confirmPage(pastDueBill, "100.00")
	flood(kiosk.MaxSessions - 10)
	c = h.get(confirmURLOf(c)) // the resident reads the page again
	h.expect(c, http.StatusOK)
	flood(kiosk.MaxSessions - 10)
	r := h.post(chargeAction(c), chargeForm(c))
	h.expect(r, http.StatusSeeOther)
	h.expect(h.get(r.location), http.StatusOK)

	c = h.confirmPage(currentBill, "80.00")
	flood(kiosk.MaxSessions + 1)
	p := h.post(chargeAction(c), chargeForm(c))
	h.expect(p, http.StatusForbidden)
	if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
		t.Errorf("applied %d, charges %d; want only the first payment", a, len(h.sim.Approved()))
	}
}

// confirmURLOf returns the URL of a confirmation page from its form.
func confirmURLOf(c page) string {
	f := chargeForm(c)
	return chargeAction(c)[:len(chargeAction(c))-len("/charge")] + "/confirm?" + url.Values{"amount": {f.Get("amount")}, "cmd": {f.Get("command_id")}, "sig": {f.Get("sig")}}.Encode()
}

// TestIdleSessionExpires: a session not used for kiosk.SessionIdle is
// gone: not kept in memory, its forms refused, its receipts not shown.
// One used within that time stays.
func TestIdleSessionExpires(t *testing.T) {
	clock := &testClock{t: fixedAt}
	h := newHarness(t, withMovingClock(clock))
	link := h.payLetter("Dana Requester")
	c := h.confirmPage(pastDueBill, "100.00")
	if n := h.kiosk.Sessions(); n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}

	clock.Advance(kiosk.SessionIdle - time.Minute)
	h.expect(h.get(link), http.StatusOK) // still in use
	clock.Advance(kiosk.SessionIdle - time.Minute)
	h.expect(h.get(link), http.StatusOK)

	clock.Advance(kiosk.SessionIdle + time.Second)
	other := h.newClient()
	h.do(other, http.MethodGet, "/", nil) // any request sweeps
	if n := h.kiosk.Sessions(); n != 1 {
		t.Errorf("%d sessions after the first went idle, want only the new one", n)
	}
	p := h.post(chargeAction(c), chargeForm(c))
	h.expect(p, http.StatusForbidden)
	if s, _ := h.ledger.counts(); s != 1 {
		t.Errorf("%d submits, want only the letter's", s)
	}
	h.expectNoReceipt(h.get(link), mustURL(link).Path[len("/receipt/"):], "Dana Requester")
}
