package letters_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// requestLetter files a status letter request as the kiosk does.
func requestLetter(h *stafftest.Harness, parcel string) string {
	h.T.Helper()
	c, _ := h.Ledger.NewCommand(domain.KindRequestStatusLetter, "kiosk")
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: c.At}, h.Ledger.Params())
	if err != nil {
		h.T.Fatal(err)
	}
	c.Payload = &domain.RequestStatusLetter{Parcel: parcel, Requester: "Title Company of Dane", Contact: "closings@example.com", Fee: sl.Fee, Tender: domain.Card, Reference: "APPROVED-1"}
	res, err := h.Ledger.Submit(context.Background(), c)
	if err != nil {
		h.T.Fatal(err)
	}
	return res.Receipt.Number
}

// TestStatusLetterQueue: two requests in the queue by ready-by date, one
// overdue; the clerk completes one with the ledger's facts and the
// answers only the clerk has, opens the numbered PDF, records the pickup.
func TestStatusLetterQueue(t *testing.T) {
	h := stafftest.New(t)
	first := requestLetter(h, "0601-141-2001") // Monday Nov 2, 09:00: ready by Wed Nov 4
	h.SetClock(h.Now().Add(48 * time.Hour))
	second := requestLetter(h, "0601-141-2002")
	h.SetClock(h.Now().Add(3 * 24 * time.Hour)) // Saturday Nov 7
	c := h.SignedIn("jdoe", domain.RoleClerk)
	if p := c.Get("/staff/"); !p.Has("alert-letters-late") {
		t.Fatal("the start page does not flag the late letters")
	}
	p := c.Get("/staff/letters")
	rows := p.Doc.Find("tr[data-claim]")
	if rows.Length() != 2 || rows.First().AttrOr("data-claim", "") != first {
		t.Fatalf("queue: %q", p.Text("letters"))
	}
	if !p.Has("letter-overdue-"+first) || !p.Has("letter-overdue-"+second) {
		t.Fatal("letters past their ready-by date are not flagged")
	}
	p = c.Get("/staff/letters/" + first)
	facts := p.Text("letter-facts")
	if !strings.Contains(facts, "B-2026-0101") || !strings.Contains(facts, "142.37") {
		t.Fatalf("facts: %q", facts)
	}
	form := url.Values{"assessment_changes": {"none"}, "deferred": {"none"}, "improvements": {""}, "floodplain": {"Not in a mapped floodplain."}, "violations": {"none known"}}
	if p := c.Post("/staff/letters/"+first+"/complete", form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("letter-error"), "contemplated improvements") {
		t.Fatalf("a letter without improvements: %d %q", p.Status, p.Text("letter-error"))
	}
	form.Set("improvements", "Main Street resurfacing planned for 2027; no assessment levied yet.")
	if p := c.Post("/staff/letters/"+first+"/complete", form); p.Status != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", p.Status, p.Text("letter-error"))
	}
	p = c.Get("/staff/letters/" + first)
	if p.Text("letter-state") != "completed" || !strings.Contains(p.Text("letter-pdf"), "SL-2026-0001") {
		t.Fatalf("after completing: state %q pdf %q", p.Text("letter-state"), p.Text("letter-pdf"))
	}
	resp, err := c.HTTP.Get(h.Srv.URL + "/staff/letters/" + first + "/letter.pdf")
	if err != nil {
		t.Fatal(err)
	}
	pdf, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(pdf), "%PDF-") || !strings.Contains(string(pdf), "SL-2026-0001") {
		t.Fatalf("pdf: %s, %d bytes", resp.Header.Get("Content-Type"), len(pdf))
	}
	// The second letter takes the next number.
	c.Get("/staff/letters/" + second)
	c.Post("/staff/letters/"+second+"/complete", form)
	if p := c.Get("/staff/letters/" + second); !strings.Contains(p.Text("letter-pdf"), "SL-2026-0002") {
		t.Fatalf("second letter: %q", p.Text("letter-pdf"))
	}
	c.Get("/staff/letters/" + first)
	if p := c.Post("/staff/letters/"+first+"/deliver", url.Values{"delivery": {"pickup"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("deliver: %d", p.Status)
	}
	if p := c.Get("/staff/letters/" + first); !p.Has("letter-delivered") {
		t.Fatal("delivery not shown")
	}
	if p := c.Get("/staff/letters"); p.Doc.Find("tr[data-claim]").Length() != 1 {
		t.Fatal("a delivered letter stays in the queue")
	}
	// An auditor reads the queue and the letters but cannot write one.
	a := h.SignedIn("audit", domain.RoleAuditor)
	if p := a.Get("/staff/letters/" + second); p.Status != http.StatusOK || p.Has("deliver-form") {
		t.Fatalf("auditor: %d", p.Status)
	}
}
