package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLetterFeeChangedAtCharge: a status letter confirmation shown a minute
// before midnight on June 30 with the $35.00 fee is charged after
// midnight, when the fee is $45.00. The
// checkout stamps the command, finds the fee of its intake time is not the
// one shown, and shows the confirmation again with the new fee, charging
// nothing; the new page's form then pays the new fee, once.
func TestLetterFeeChangedAtCharge(t *testing.T) {
	clock := &testClock{t: time.Date(2026, time.June, 30, 23, 59, 0, 0, chicago)}
	h := newHarness(t, withMovingClock(clock))
	form := h.get("/letters")
	r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale St"}, "name": {"Luis"}, "contact": {"608-555-0100"}})
	h.expect(r, http.StatusOK)
	if r.text("confirm-amount") != "$35.00" {
		t.Fatalf("fee on June 30 %q, want $35.00", r.text("confirm-amount"))
	}
	action, fields := formFields(r, "charge-form")

	clock.Advance(2 * time.Minute)
	c := h.post(action, fields)
	h.expect(c, http.StatusConflict)
	if !strings.Contains(c.text("error-message"), "$45.00") || !strings.Contains(c.text("error-message"), "not been charged") || c.text("confirm-amount") != "$45.00" {
		t.Errorf("message %q, amount %q", c.text("error-message"), c.text("confirm-amount"))
	}
	if s, _ := h.ledger.counts(); s != 0 || len(h.sim.Approved()) != 0 {
		t.Fatalf("submits %d, charges %d after the fee changed", s, len(h.sim.Approved()))
	}
	action2, fields2 := formFields(c, "charge-form")
	if fields2.Get("fee") != "45.00" || fields2.Get("command_id") != fields.Get("command_id") || fields2.Get("sig") == fields.Get("sig") {
		t.Errorf("new form %v: want the new fee, the same command id, a new signature", fields2)
	}
	// The old form stays refused: its fee is not the one in effect.
	h.expect(h.post(action, fields), http.StatusConflict)
	done := h.post(action2, fields2)
	h.expect(done, http.StatusSeeOther)
	if got := h.sim.Approved(); len(got) != 1 || got[0].Amount.String() != "45.00" {
		t.Errorf("charges %+v, want one of 45.00", got)
	}
}

// TestRefusedFormLeadsBackToItsPayable: a changed form is refused with a
// link back to the page of what it would have paid.
func TestRefusedFormLeadsBackToItsPayable(t *testing.T) {
	h := newHarness(t, withClock(inJanuary))
	h.get("/")
	csrf := h.csrfToken(h.client)
	for path, back := range map[string]string{
		"/bills/" + pastDueBill + "/charge":         "/bills/" + pastDueBill,
		"/tax-bills/" + taxBill2026Dane + "/charge": "/tax-bills/" + taxBill2026Dane,
		"/letters/charge":                           "/letters",
	} {
		p := h.post(path, url.Values{"csrf": {csrf}, "amount": {"1.00"}, "fee": {"1.00"}, "option": {"full"}, "command_id": {"x"}, "sig": {"y"}})
		h.expect(p, http.StatusBadRequest)
		if href, _ := p.doc.Find(`[data-testid="error-back"]`).Attr("href"); href != back {
			t.Errorf("%s: back to %q, want %q", path, href, back)
		}
	}
	h.expectUntouched("changed forms")
}
