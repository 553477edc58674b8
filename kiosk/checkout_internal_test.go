package kiosk

import (
	"net/http/httptest"
	"testing"
)

// TestFormSignature: a form's signature covers its checkout's kind and
// each field on its own, so the same values never sign alike for two
// checkouts, and no byte moved from one field to the next signs alike.
func TestFormSignature(t *testing.T) {
	s := &Server{keys: deriveKeys([]byte("0123456789abcdef0123456789abcdef"))}
	r := httptest.NewRequest("GET", "/", nil)
	bill, err := s.newForm(r, billPayments, "B-1", "10.00")
	if err != nil {
		t.Fatal(err)
	}
	bill.session = "session"
	other := bill
	other.checkout = &checkout{kind: "pay_room_tax", fields: billPayments.fields}
	if s.signForm(bill) == s.signForm(other) {
		t.Error("a bill's form signs like another checkout's")
	}
	if s.signForm(bill.with("amount", "10.0")) == s.signForm(bill) {
		t.Error("a re-spelled amount signs alike")
	}
	a, err := s.newForm(r, letterFees, "p", "Dana\x00x", "y", "45.00")
	if err != nil {
		t.Fatal(err)
	}
	b := a.with("name", "Dana").with("contact", "x\x00y")
	if s.signForm(a) == s.signForm(b) {
		t.Error("a byte moved from the name to the contact signs alike")
	}
	if _, err := s.newForm(r, billPayments, "B-1"); err == nil {
		t.Error("a form with a field missing was made")
	}
}
