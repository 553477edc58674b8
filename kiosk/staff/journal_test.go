package staff_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

func TestJournalSearchAndCSV(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"10.00"}})
	c.Get("/staff/window")
	c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"5.00"}, "tender": {"cash"}, "tendered": {"5.00"}})
	c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"5.00"}, "tender": {"cash"}, "tendered": {"1.00"}}) // refused by the domain: too little cash
	a := h.SignedIn("audit", domain.RoleAuditor)
	p := a.Get("/staff/journal?actor=jdoe")
	rows := p.Doc.Find("tr[data-command]")
	if rows.Length() < 2 {
		t.Fatalf("jdoe's entries: %q", p.Text("journal"))
	}
	if !strings.Contains(rows.First().Text(), "window_payment") {
		t.Fatalf("newest first: %q", rows.First().Text())
	}
	if p := a.Get("/staff/journal?kind=drawer_open"); p.Doc.Find("tr[data-command]").Length() != 1 {
		t.Fatalf("by kind: %q", p.Text("journal"))
	}
	if p := a.Get("/staff/journal?outcome=refused&actor=jdoe"); p.Doc.Find("tr[data-command]").Length() != 1 {
		t.Fatalf("refused: %q", p.Text("journal"))
	}
	if p := a.Get("/staff/journal?from=2026-11-03"); p.Doc.Find("tr[data-command]").Length() != 0 {
		t.Fatal("a date filter after today matched")
	}
	if p := a.Get("/staff/journal?from=02/11/2026"); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad date: %d", p.Status)
	}
	resp, err := a.HTTP.Get(h.Srv.URL + "/staff/journal.csv?actor=jdoe")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	recs, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatal(err, resp.Header.Get("Content-Type"))
	}
	if recs[0][3] != "actor" || len(recs) < 3 || recs[1][3] != "jdoe" || recs[1][6] == "" {
		t.Fatalf("csv: %v", recs)
	}
}
