package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/kiosk"
)

// TestBillDescriptionInSpanish: a bill the village gave a Spanish
// description shows it on every Spanish page that names the bill (its
// page, the account's and the parcel's lists, the pay form, the cart, the
// confirmation, the receipt and its e-mailed copy) and the English one on
// the English pages; a bill given none shows the English on both.
func TestBillDescriptionInSpanish(t *testing.T) {
	const en, es = "Water and sewer, first quarter", "Agua y alcantarillado, primer trimestre"
	const other = "Sidewalk snow removal" // currentBill: no Spanish description
	box := &mailbox{}
	h := newHarness(t, withVillage(belleville), func(c *kiosk.Config) { c.Mail = box })

	if got := h.get("/bills/" + pastDueBill).text("bill-description"); got != en {
		t.Errorf("English bill page: %q", got)
	}
	if got := h.get("/bills/" + pastDueBill + "?lang=es").text("bill-description"); got != es {
		t.Errorf("Spanish bill page: %q, want %q", got, es)
	}
	// The language sticks (a cookie): the pages below are Spanish.
	if got := h.get("/bills/" + currentBill).text("bill-description"); got != other {
		t.Errorf("Spanish page of a bill without a Spanish description: %q", got)
	}
	for _, path := range []string{"/accounts/100101", "/parcels/0601-141-2001"} {
		p := h.get(path)
		h.expect(p, http.StatusOK)
		if got := squash(all(p, "bill-description")); !strings.Contains(got, es) || strings.Contains(got, en) || !strings.Contains(got, other) {
			t.Errorf("%s in Spanish lists %q", path, got)
		}
	}
	if got := h.get("/bills/" + pastDueBill + "/pay").text("summary-description"); got != es {
		t.Errorf("Spanish pay form: %q", got)
	}
	if got := all(h.get("/accounts/100101/pay"), "cart-bill-description"); !strings.Contains(got, es) || !strings.Contains(got, other) {
		t.Errorf("Spanish cart: %q", got)
	}
	c := h.cartConfirm("100101", pastDueBill, currentBill)
	if c.lang() != "es" || !strings.Contains(all(c, "cart-line-description"), es) {
		t.Errorf("confirmation in %q: %q", c.lang(), all(c, "cart-line-description"))
	}
	done := h.post(chargeAction(c), chargeForm(c))
	h.expect(done, http.StatusSeeOther)
	rcp := h.get(done.location)
	if got := rcp.text("receipt-description"); got != "" {
		t.Errorf("a cart receipt has a single description %q", got)
	}
	if got := all(rcp, "cart-line-description"); !strings.Contains(got, es) || !strings.Contains(got, other) {
		t.Errorf("Spanish receipt: %q", got)
	}
	action, _ := rcp.doc.Find(`[data-testid="receipt-email"] form`).Attr("action")
	h.expect(h.post(action, url.Values{"csrf": {rcp.csrf()}, "email": {"ana@example.com"}}), http.StatusOK)
	if len(box.got) != 1 || !strings.Contains(box.got[0].Body, es) || strings.Contains(box.got[0].Body, en) {
		t.Errorf("the Spanish e-mail: %+v", box.got)
	}

	// A single bill's receipt, in English this time.
	h.get("/bills/" + partBill + "?lang=en")
	one := h.confirmPage(partBill, "10.00")
	paid := h.post(chargeAction(one), chargeForm(one))
	h.expect(paid, http.StatusSeeOther)
	if got := h.get(paid.location).text("receipt-description"); got != "False alarm response" {
		t.Errorf("English receipt: %q", got)
	}
}

// all is the text of every element of p with the test id, one after another.
func all(p page, testid string) string {
	return squash(p.doc.Find(`[data-testid="` + testid + `"]`).Text())
}
