package kiosk_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk"
)

// payLetter requests and pays a status letter for name and returns the
// receipt link the kiosk led to.
func (h *harness) payLetter(name string) string {
	h.t.Helper()
	form := h.get("/letters")
	r := h.post("/letters", url.Values{"csrf": {form.csrf()}, "q": {"305 Hale St"}, "name": {name}, "contact": {"608-555-0100"}})
	h.expect(r, http.StatusOK)
	action, fields := formFields(r, "charge-form")
	c := h.post(action, fields)
	h.expect(c, http.StatusSeeOther)
	return c.location
}

// expectNoReceipt fails unless p is the plain "no such receipt" page, which
// shows nothing of the receipt.
func (h *harness) expectNoReceipt(p page, number string, secrets ...string) {
	h.t.Helper()
	h.expect(p, http.StatusNotFound)
	if p.count("receipt") != 0 || p.count("receipt-number") != 0 {
		h.t.Error("the receipt shows")
	}
	if want := "We could not find receipt " + number + "."; p.text("error-message") != want {
		h.t.Errorf("message %q, want %q", p.text("error-message"), want)
	}
	for _, s := range secrets {
		if strings.Contains(p.body, s) {
			h.t.Errorf("the page shows %q", s)
		}
	}
}

// TestReceiptNeedsItsVisit probes the receipt links: receipt numbers are
// sequential, and a status letter's receipt names who asked. Only the
// visit that paid, through the link the kiosk gave it, sees the receipt;
// any other way gets the same 404 as a number that does not exist.
func TestReceiptNeedsItsVisit(t *testing.T) {
	h := newHarness(t)
	link := h.payLetter("Dana Requester")
	u := mustURL(link)
	number := strings.TrimPrefix(u.Path, "/receipt/")
	token := u.Query().Get("t")
	if !strings.HasPrefix(number, "hall-kiosk-") || len(token) < 40 {
		t.Fatalf("receipt link %q: want /receipt/<number>?t=<token>", link)
	}

	// The visit that paid sees it, also in the other language.
	rc := h.get(link)
	h.expect(rc, http.StatusOK)
	if rc.text("claim-number") != number || rc.text("receipt-requester") != "Dana Requester" {
		t.Fatalf("receipt %q %q", rc.text("claim-number"), rc.text("receipt-requester"))
	}
	es, _ := rc.doc.Find(`[data-testid="lang-es"]`).Attr("href")
	if p := h.get(es); p.status != http.StatusOK || p.lang() != "es" || p.text("claim-number") != number {
		t.Errorf("Spanish receipt %q: %d %q", es, p.status, p.lang())
	}
	h.get("/find?lang=en")

	// What the probe tried, and more.
	stranger := h.newClient()
	h.do(stranger, http.MethodGet, "/", nil)
	for _, tc := range []struct {
		name   string
		client *http.Client
		path   string
	}{
		{"no token", h.client, "/receipt/" + number},
		{"empty token", h.client, "/receipt/" + number + "?t="},
		{"wrong token", h.client, "/receipt/" + number + "?t=" + flipFirst(token)},
		{"another receipt's token", h.client, "/receipt/hall-kiosk-000002?t=" + token},
		{"no token, another browser", stranger, "/receipt/" + number},
		{"the token, another session", stranger, link},
		{"the token, no session", &http.Client{CheckRedirect: h.client.CheckRedirect}, link},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			n := strings.TrimPrefix(mustURL(path).Path, "/receipt/")
			h.expectNoReceipt(h.do(tc.client, http.MethodGet, path, nil), n, "Dana Requester", "608-555-0100")
		})
	}
	// A number that does not exist looks the same as one that does.
	none := h.do(stranger, http.MethodGet, "/receipt/hall-kiosk-999999", nil)
	h.expectNoReceipt(none, "hall-kiosk-999999")
	other := h.do(stranger, http.MethodGet, "/receipt/"+number, nil)
	mainText := func(p page) string { return squash(p.doc.Find("main").Text()) }
	if strings.ReplaceAll(mainText(none), "hall-kiosk-999999", "N") != strings.ReplaceAll(mainText(other), number, "N") {
		t.Errorf("a receipt that exists answers otherwise than one that does not:\n%q\n%q", mainText(other), mainText(none))
	}

	// Still the first visit's.
	h.expect(h.get(link), http.StatusOK)

	// Done (or the idle timer) ends the visit: the same browser, Back or
	// the address retyped, no longer sees it.
	old := h.session(h.client)
	h.expect(h.get("/reset"), http.StatusSeeOther)
	h.expectNoReceipt(h.get(link), number, "Dana Requester")
	h.expectNoReceipt(h.get("/receipt/"+number), number, "Dana Requester")
	// Nor does a copy of the ended session's cookie: the session is gone
	// on the server, not only from the browser.
	replay := h.newClient()
	replay.Jar.SetCookies(mustURL(h.srv.URL), []*http.Cookie{{Name: "kiosk_session", Value: old, Path: "/"}})
	h.expectNoReceipt(h.do(replay, http.MethodGet, link, nil), number, "Dana Requester")
	if h.session(replay) == old {
		t.Error("the ended session's cookie was taken again")
	}
}

// TestReceiptsOfALongVisit: a visit keeps the links of its last receipts
// only, so one session never holds an unbounded list.
func TestReceiptsOfALongVisit(t *testing.T) {
	h := newHarness(t)
	var links []string
	for i := range kiosk.MaxSessionReceipts + 1 {
		links = append(links, h.payLetter(fmt.Sprintf("Requester %d", i)))
	}
	first := links[0]
	h.expectNoReceipt(h.get(first), strings.TrimPrefix(mustURL(first).Path, "/receipt/"), "Requester 0")
	for _, l := range links[1:] {
		h.expect(h.get(l), http.StatusOK)
	}
}

// TestBackAfterResetShowsNoReceipt: the next resident presses Back to the
// last one's confirmation page, whose URL led to the receipt; it is
// refused (it was signed for the last visit), charges nothing and shows no
// receipt. Within the visit it still leads to the receipt.
func TestBackAfterResetShowsNoReceipt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pay    func(h *harness) (confirm, receipt string)
		option []option
	}{
		{"village bill", func(h *harness) (string, string) {
			c := h.confirmPage(pastDueBill, "100.00")
			f := chargeForm(c)
			r := h.post(chargeAction(c), f)
			h.expect(r, http.StatusSeeOther)
			return "/bills/" + pastDueBill + "/confirm?" + url.Values{"amount": {f.Get("amount")}, "cmd": {f.Get("command_id")}, "sig": {f.Get("sig")}}.Encode(), r.location
		}, nil},
		{"property tax", func(h *harness) (string, string) {
			bill := h.get("/tax-bills/" + taxBill2026Dane)
			r := h.post("/tax-bills/"+taxBill2026Dane+"/pay", url.Values{"csrf": {bill.csrf()}, "option": {"full"}})
			h.expect(r, http.StatusSeeOther)
			confirm := r.location
			action, fields := formFields(h.get(confirm), "charge-form")
			c := h.post(action, fields)
			h.expect(c, http.StatusSeeOther)
			return confirm, c.location
		}, []option{withClock(inJanuary)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.option...)
			confirm, receipt := tc.pay(h)
			if !strings.Contains(receipt, "?t=") {
				t.Fatalf("receipt link %q has no token", receipt)
			}
			// Within the visit, Back leads to the same receipt.
			back := h.get(confirm)
			h.expect(back, http.StatusSeeOther)
			if back.location != receipt {
				t.Errorf("Back within the visit leads to %q, want %q", back.location, receipt)
			}
			h.expect(h.get(receipt), http.StatusOK)

			h.get("/reset")
			back = h.get(confirm)
			h.expect(back, http.StatusBadRequest)
			if back.location != "" || back.count("receipt") != 0 {
				t.Errorf("Back after the reset leads to %q", back.location)
			}
			h.expect(h.get(receipt), http.StatusNotFound)
			if _, a := h.ledger.counts(); a != 1 || len(h.sim.Approved()) != 1 {
				t.Errorf("applied %d, charges %d; want 1 and 1", a, len(h.sim.Approved()))
			}
		})
	}
}

// TestReceiptAfterRestart: sessions live in the process, so after a
// restart (the same secret, the same ledger, the browser's cookies kept) a
// receipt link of before shows nothing.
func TestReceiptAfterRestart(t *testing.T) {
	h := newHarness(t)
	link := h.payLetter("Dana Requester")
	h.expect(h.get(link), http.StatusOK)
	k, err := kiosk.New(kiosk.Config{Ledger: h.ledger, Terminal: h.sim, Now: func() time.Time { return fixedAt }, Location: chicago, Secret: testSecret, NodeID: "hall-kiosk"})
	if err != nil {
		t.Fatal(err)
	}
	restarted := *h
	restarted.srv = httptest.NewServer(k.Handler()) // cookies are the host's, whatever the port
	defer restarted.srv.Close()
	number := strings.TrimPrefix(mustURL(link).Path, "/receipt/")
	if _, err := h.ledger.Receipt(number); err != nil {
		t.Fatalf("the ledger lost receipt %s: %v", number, err)
	}
	restarted.expectNoReceipt(restarted.get(link), number, "Dana Requester")
}

// TestPrintedReceiptCarriesNoToken: the receipt as printed holds its
// number and not the link's token, and the print style leaves the browser
// no page margin to print the address in.
func TestPrintedReceiptCarriesNoToken(t *testing.T) {
	h := newHarness(t)
	link := h.payLetter("Dana Requester")
	token := mustURL(link).Query().Get("t")
	rc := h.get(link)
	h.expect(rc, http.StatusOK)
	article, err := rc.doc.Find(`[data-testid="receipt"]`).Html()
	if err != nil || !strings.Contains(article, strings.TrimPrefix(mustURL(link).Path, "/receipt/")) {
		t.Fatalf("the receipt lacks its number (%v)", err)
	}
	if strings.Contains(article, token) {
		t.Error("the printed receipt carries the token")
	}
	if title := rc.doc.Find("title").Text(); strings.Contains(title, token) {
		t.Errorf("title %q carries the token", title)
	}
	css := h.get(rc.doc.Find(`link[rel="stylesheet"]`).AttrOr("href", ""))
	if !strings.Contains(css.body, "@page { size: 80mm 297mm; size: 80mm auto; margin: 0; }") {
		t.Error("the print style leaves a page margin, where a browser prints the address")
	}
	if rp := rc.header.Get("Referrer-Policy"); rp != "no-referrer" {
		t.Errorf("Referrer-Policy %q: the link would leak in Referer", rp)
	}
	if cc := rc.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q: Back could show the receipt from the cache", cc)
	}
}
