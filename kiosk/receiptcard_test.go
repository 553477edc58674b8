package kiosk_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// payBillByCard pays amount on bill through the confirmation page and
// returns the receipt page the kiosk led to, and its address.
func (h *harness) payBillByCard(bill, amount string) (page, string) {
	h.t.Helper()
	c := h.confirmPage(bill, amount)
	done := h.post(chargeAction(c), chargeForm(c))
	h.expect(done, http.StatusSeeOther)
	rc := h.get(done.location)
	h.expect(rc, http.StatusOK)
	return rc, done.location
}

// onlyReceipt returns the one receipt the fake ledger holds.
func (h *harness) onlyReceipt() domain.Receipt {
	h.t.Helper()
	h.ledger.mu.Lock()
	defer h.ledger.mu.Unlock()
	if len(h.ledger.receipts) != 1 {
		h.t.Fatalf("%d receipts in the ledger, want 1", len(h.ledger.receipts))
	}
	for _, rc := range h.ledger.receipts {
		return rc
	}
	return domain.Receipt{}
}

// TestReceiptCardFromTheTerminal: the terminal's card
// brand and last four digits go into the payment's command, the ledger's
// receipt and the receipt page, in English and Spanish; the kiosk's log
// of the payment never names them.
func TestReceiptCardFromTheTerminal(t *testing.T) {
	h := newHarness(t)
	rc, loc := h.payBillByCard(pastDueBill, "50.00")
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q", got)
	}
	if got := squash(rc.text("receipt-tender")); !strings.HasPrefix(got, "Card Visa •••• 4242 · approval SIM") {
		t.Errorf("paid by %q", got)
	}
	stored := h.onlyReceipt()
	if stored.Card == nil || *stored.Card != (domain.CardShown{Brand: "visa", Last4: "4242"}) {
		t.Errorf("the ledger's receipt has card %+v", stored.Card)
	}
	if pay := h.ledger.submitted[0].Payload.(*domain.PayBill); pay.Card == nil || pay.Card.Last4 != "4242" {
		t.Errorf("the command carries card %+v", pay.Card)
	}
	sep := "?"
	if strings.Contains(loc, "?") {
		sep = "&"
	}
	es := h.get(loc + sep + "lang=es")
	h.expect(es, http.StatusOK)
	if got := squash(es.text("receipt-tender")); es.lang() != "es" || !strings.HasPrefix(got, "Tarjeta Visa •••• 4242 · aprobación SIM") {
		t.Errorf("Spanish receipt (%s): paid by %q", es.lang(), got)
	}
	if logs := h.logs.String(); strings.Contains(logs, "4242") || strings.Contains(strings.ToLower(logs), "visa") {
		t.Errorf("the log names the card:\n%s", logs)
	}
}

// TestReceiptWithoutCardDetails: a terminal that gives no card details
// makes a receipt that names none, and a command without the field.
func TestReceiptWithoutCardDetails(t *testing.T) {
	h := newHarness(t)
	h.sim.SetCard(nil)
	rc, _ := h.payBillByCard(pastDueBill, "50.00")
	if n := rc.count("receipt-card"); n != 0 || strings.Contains(rc.body, "••••") {
		t.Errorf("a card shown that the terminal did not give (%d)", n)
	}
	if c := h.onlyReceipt().Card; c != nil {
		t.Errorf("the ledger's receipt has card %+v", c)
	}
}

// TestReceiptCardWaitsForLedgerFormat3: while the cluster's ledger is at
// format 2 (a node still runs the previous release, which refuses a
// payload field it does not know), the kiosk leaves the card out of the
// command, and the receipt is as before.
func TestReceiptCardWaitsForLedgerFormat3(t *testing.T) {
	h := newHarness(t)
	h.ledger.format = 2
	rc, _ := h.payBillByCard(pastDueBill, "50.00")
	if pay := h.ledger.submitted[0].Payload.(*domain.PayBill); pay.Card != nil {
		t.Errorf("at format 2 the command carries card %+v", pay.Card)
	}
	if b, err := domain.EncodeCommand(h.ledger.submitted[0]); err != nil || strings.Contains(string(b), `"card":`) {
		t.Errorf("at format 2 the command encodes %s (%v)", b, err)
	}
	if c := h.onlyReceipt().Card; c != nil || rc.count("receipt-card") != 0 {
		t.Errorf("at format 2 the receipt has card %+v", c)
	}
}
