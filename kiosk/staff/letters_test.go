package staff_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// requestLetter files a status letter request as the kiosk does.
func (h *harness) requestLetter(parcel string) string {
	h.t.Helper()
	c, _ := h.ledger.NewCommand(domain.KindRequestStatusLetter, "kiosk")
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: c.At}, h.ledger.params)
	if err != nil {
		h.t.Fatal(err)
	}
	c.Payload = &domain.RequestStatusLetter{Parcel: parcel, Requester: "Title Company of Dane", Contact: "closings@example.com", Fee: sl.Fee, Tender: domain.Card, Reference: "APPROVED-1"}
	res, err := h.ledger.Submit(context.Background(), c)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Receipt.Number
}

// TestStatusLetterQueue: two requests in the queue by ready-by date, one
// overdue; the clerk completes one with the ledger's facts and the
// answers only the clerk has, opens the numbered PDF, records the pickup.
func TestStatusLetterQueue(t *testing.T) {
	h := newHarness(t)
	first := h.requestLetter("0601-141-2001") // Monday Nov 2, 09:00: ready by Wed Nov 4
	h.setClock(h.now().Add(48 * time.Hour))
	second := h.requestLetter("0601-141-2002")
	h.setClock(h.now().Add(3 * 24 * time.Hour)) // Saturday Nov 7
	c := h.signedIn("jdoe", domain.RoleClerk)
	if p := c.get("/staff/"); !p.has("alert-letters-late") {
		t.Fatal("the start page does not flag the late letters")
	}
	p := c.get("/staff/letters")
	rows := p.doc.Find("tr[data-claim]")
	if rows.Length() != 2 || rows.First().AttrOr("data-claim", "") != first {
		t.Fatalf("queue: %q", p.text("letters"))
	}
	if !p.has("letter-overdue-"+first) || !p.has("letter-overdue-"+second) {
		t.Fatal("letters past their ready-by date are not flagged")
	}
	p = c.get("/staff/letters/" + first)
	facts := p.text("letter-facts")
	if !strings.Contains(facts, "B-2026-0101") || !strings.Contains(facts, "142.37") {
		t.Fatalf("facts: %q", facts)
	}
	form := url.Values{"assessment_changes": {"none"}, "deferred": {"none"}, "improvements": {""}, "floodplain": {"Not in a mapped floodplain."}, "violations": {"none known"}}
	if p := c.post("/staff/letters/"+first+"/complete", form); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.text("letter-error"), "contemplated improvements") {
		t.Fatalf("a letter without improvements: %d %q", p.status, p.text("letter-error"))
	}
	form.Set("improvements", "Main Street resurfacing planned for 2027; no assessment levied yet.")
	if p := c.post("/staff/letters/"+first+"/complete", form); p.status != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", p.status, p.text("letter-error"))
	}
	p = c.get("/staff/letters/" + first)
	if p.text("letter-state") != "completed" || !strings.Contains(p.text("letter-pdf"), "SL-2026-0001") {
		t.Fatalf("after completing: state %q pdf %q", p.text("letter-state"), p.text("letter-pdf"))
	}
	resp, err := c.http.Get(h.srv.URL + "/staff/letters/" + first + "/letter.pdf")
	if err != nil {
		t.Fatal(err)
	}
	pdf, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(pdf), "%PDF-") || !strings.Contains(string(pdf), "SL-2026-0001") {
		t.Fatalf("pdf: %s, %d bytes", resp.Header.Get("Content-Type"), len(pdf))
	}
	// The second letter takes the next number.
	c.get("/staff/letters/" + second)
	c.post("/staff/letters/"+second+"/complete", form)
	if p := c.get("/staff/letters/" + second); !strings.Contains(p.text("letter-pdf"), "SL-2026-0002") {
		t.Fatalf("second letter: %q", p.text("letter-pdf"))
	}
	c.get("/staff/letters/" + first)
	if p := c.post("/staff/letters/"+first+"/deliver", url.Values{"delivery": {"pickup"}}); p.status != http.StatusSeeOther {
		t.Fatalf("deliver: %d", p.status)
	}
	if p := c.get("/staff/letters/" + first); !p.has("letter-delivered") {
		t.Fatal("delivery not shown")
	}
	if p := c.get("/staff/letters"); p.doc.Find("tr[data-claim]").Length() != 1 {
		t.Fatal("a delivered letter stays in the queue")
	}
	// An auditor reads the queue and the letters but cannot write one.
	a := h.signedIn("audit", domain.RoleAuditor)
	if p := a.get("/staff/letters/" + second); p.status != http.StatusOK || p.has("deliver-form") {
		t.Fatalf("auditor: %d", p.status)
	}
}
