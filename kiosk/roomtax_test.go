package kiosk_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// putRoomTaxReturn files a return in the fake ledger as the clerk's office
// would have: Belle Inn's 2026-Q3, 10,000.00 of gross receipts. It
// returns the payment reference printed on the return.
func putRoomTaxReturn(h *harness) string {
	r := domain.QuarterlyReturn{ID: "belle-inn_2026-Q3", Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 3},
		Filings: []domain.RoomTaxFiling{{GrossReceipts: domain.MustMoney("10000.00"), Signer: "Ann Belle", Capacity: "owner", FiledAt: domain.NewDateTime(domain.MustDate("2026-10-05"), 9, 0, 0), By: "innkeeper",
			CommandID: "01a1f2c3-0000-7000-8000-5eed0fbe11e0"}}}
	b, _ := json.Marshal(r)
	h.ledger.mu.Lock()
	h.ledger.records[domain.CollectionRoomTaxReturns+"/"+r.ID] = b
	h.ledger.mu.Unlock()
	return r.PaymentReference()
}

// TestRoomTaxByCard: an operator pays part of a return by card with its
// reference, through the one checkout; the kiosk never shows the return's
// figures (tax, balance), and the payment is on the return.
func TestRoomTaxByCard(t *testing.T) {
	h := newHarness(t)
	ref := putRoomTaxReturn(h)
	start := h.get("/")
	if start.count("start-room-tax") != 1 {
		t.Fatal("the start screen has no room tax button")
	}
	form := h.get("/room-tax")
	h.expect(form, http.StatusOK)
	bad := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {"belle inn q3"}, "amount": {"100.00"}})
	h.expect(bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.text("error-message"), "is not a payment reference") {
		t.Errorf("a bad reference: %q", bad.text("error-message"))
	}
	// A quarter not on record, and the return's guessable id with a wrong
	// check code, get the same answer: the kiosk in the hallway never
	// tells who filed which quarter (§5.22(8)).
	code := ref[len(ref)-8:]
	wrong := "AAAAAAAA"
	if code == wrong {
		wrong = "BBBBBBBB"
	}
	none := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {"belle-inn_2026-Q2-" + code}, "amount": {"100.00"}})
	h.expect(none, http.StatusUnprocessableEntity)
	guessed := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {"belle-inn_2026-Q3-" + wrong}, "amount": {"100.00"}})
	h.expect(guessed, http.StatusUnprocessableEntity)
	if none.text("error-message") != strings.Replace(guessed.text("error-message"), "Q3-"+wrong, "Q2-"+code, 1) || !strings.Contains(none.text("error-message"), "No room tax return has") {
		t.Errorf("a quarter not on record %q and a wrong check code %q are told apart", none.text("error-message"), guessed.text("error-message"))
	}
	bare := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {"belle-inn_2026-Q3"}, "amount": {"100.00"}})
	h.expect(bare, http.StatusUnprocessableEntity)
	zero := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {ref}, "amount": {"0"}})
	h.expect(zero, http.StatusUnprocessableEntity)
	huge := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {ref}, "amount": {"60,000.00"}})
	h.expect(huge, http.StatusUnprocessableEntity)
	// Any letter case of the reference.
	r := h.post("/room-tax", url.Values{"csrf": {form.csrf()}, "ref": {strings.ToLower(strings.Replace(ref, "belle", "Belle", 1))}, "amount": {"$300.00"}})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	h.expect(c, http.StatusOK)
	if c.text("confirm-amount") != "$300.00" || !strings.Contains(c.text("room-tax-confirm-ref"), "belle-inn_2026-Q3") {
		t.Fatalf("confirm: %q %q", c.text("confirm-amount"), c.text("room-tax-confirm-ref"))
	}
	for _, figure := range []string{"700.00", "10,000.00", "10000.00", "400.00"} {
		if strings.Contains(c.body, figure) {
			t.Fatalf("the confirmation shows the return's figure %s", figure)
		}
	}
	action, fields := formFields(c, "charge-form")
	done := h.post(action, fields)
	h.expect(done, http.StatusSeeOther)
	rc := h.get(done.location)
	h.expect(rc, http.StatusOK)
	if rc.text("receipt-amount") != "$300.00" || rc.count("receipt-balance") != 0 || !strings.Contains(rc.text("receipt-bill"), "2026-Q3") {
		t.Fatalf("receipt: %q balance shown %d %q", rc.text("receipt-amount"), rc.count("receipt-balance"), rc.text("receipt-bill"))
	}
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
	// Reloading the confirmation leads to the receipt: one charge.
	again := h.get(r.location)
	h.expect(again, http.StatusSeeOther)
	var ret domain.QuarterlyReturn
	if err := h.ledger.Get(domain.CollectionRoomTaxReturns, "belle-inn_2026-Q3", &ret); err != nil || len(ret.Payments) != 1 || ret.Payments[0].Tender != domain.Card || ret.Payments[0].Amount.String() != "300.00" {
		t.Fatalf("the payment on the return: %+v %v", ret.Payments, err)
	}
	fig, err := ret.Figures(domain.MustDate("2026-10-20"), domain.DefaultParams())
	if err != nil || fig.Balance.String() != "400.00" {
		t.Fatalf("applied to the tax first: %+v %v", fig, err)
	}
}

// TestRoomTaxWithoutATerminal: a kiosk without a card terminal sends the
// operator to the treasurer's window and charges nothing.
func TestRoomTaxWithoutATerminal(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	putRoomTaxReturn(h)
	p := h.get("/room-tax")
	h.expect(p, http.StatusServiceUnavailable)
	if !strings.Contains(p.body, "reference printed on your room tax return") {
		t.Error("the card-off page does not say what to bring")
	}
	if s, _ := h.ledger.counts(); s != 0 {
		t.Errorf("%d commands submitted", s)
	}
}

// TestRoomTaxCollectionsArePublicTotals: the kiosk shows the room tax
// collected by quarter and in the year, never by operator, and nothing of
// another year.
func TestRoomTaxCollectionsArePublicTotals(t *testing.T) {
	h := newHarness(t)
	r := domain.QuarterlyReturn{ID: "belle-inn_2026-Q2", Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 2},
		Filings: []domain.RoomTaxFiling{{GrossReceipts: domain.MustMoney("10000.00"), CommandID: "c1"}},
		Payments: []domain.RoomTaxPayment{
			{Amount: domain.MustMoney("400.00"), At: domain.NewDateTime(domain.MustDate("2026-07-20"), 9, 0, 0)},
			{Amount: domain.MustMoney("300.00"), At: domain.NewDateTime(domain.MustDate("2026-10-02"), 9, 0, 0)},
			{Amount: domain.MustMoney("55.00"), At: domain.NewDateTime(domain.MustDate("2027-01-05"), 9, 0, 0)},
		}}
	b, _ := json.Marshal(r)
	h.ledger.mu.Lock()
	h.ledger.records[domain.CollectionRoomTaxReturns+"/"+r.ID] = b
	h.ledger.mu.Unlock()
	if p := h.get("/room-tax"); p.count("room-tax-collections-link") != 1 {
		t.Error("the room tax page has no link to the collections")
	}
	p := h.get("/room-tax/collections?year=2026")
	h.expect(p, http.StatusOK)
	if p.text("collected-2026-Q3") != "$400.00" || p.text("collected-2026-Q4") != "$300.00" || p.text("collected-2026-Q1") != "$0.00" || p.text("collected-total") != "$700.00" {
		t.Fatalf("collections: Q3 %q Q4 %q total %q", p.text("collected-2026-Q3"), p.text("collected-2026-Q4"), p.text("collected-total"))
	}
	for _, secret := range []string{"belle-inn", "Belle Inn", "10,000.00", "10000.00", "$55.00"} {
		if strings.Contains(p.body, secret) {
			t.Errorf("the public totals show %q", secret)
		}
	}
	h.expect(h.get("/room-tax/collections?year=twenty"), http.StatusUnprocessableEntity)
}
