package journal_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/journal"
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

// TestJournalByBillReceiptAccount: the journal finds a
// payment by its bill, its receipt and its account, and by a bill number
// typed as text; the CSV carries the bill, receipt, account and amount of
// each entry, and its times are RFC 3339 with the village's offset.
func TestJournalByBillReceiptAccount(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"10.00"}})
	c.Get("/staff/window")
	p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"5.00"}, "tender": {"cash"}, "tendered": {"5.00"}})
	receipt := c.Get(p.Location).Text("receipt-number")
	c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"7.00"}, "tender": {"cash"}, "tendered": {"7.00"}})
	a := h.SignedIn("audit", domain.RoleAuditor)
	for _, q := range []string{"bill=B-2026-0101", "bill=b-2026-0101", "receipt=" + receipt, "q=B-2026-0101", "q=" + receipt} {
		rows := a.Get("/staff/journal?" + q).Doc.Find("tr[data-command]")
		if rows.Length() != 1 || !strings.Contains(rows.Text(), "5.00") || !strings.Contains(rows.Text(), receipt) {
			t.Fatalf("%s: %d rows %q", q, rows.Length(), rows.Text())
		}
	}
	b, _ := h.Ledger.Bill("B-2026-0101")
	if rows := a.Get("/staff/journal?account=" + b.Account).Doc.Find("tr[data-command]"); rows.Length() < 1 || !strings.Contains(rows.Text(), "B-2026-0101") {
		t.Fatalf("by account %s: %q", b.Account, rows.Text())
	}
	if rows := a.Get("/staff/journal?bill=B-1999-0001").Doc.Find("tr[data-command]"); rows.Length() != 0 {
		t.Fatalf("a bill with no entries matched %d", rows.Length())
	}
	resp, err := a.HTTP.Get(h.Srv.URL + "/staff/journal.csv?bill=B-2026-0101")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	recs, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(journal.CSVHeader, ",") || len(recs) != 2 {
		t.Fatalf("csv: %v", recs)
	}
	col := map[string]string{}
	for i, k := range recs[0] {
		col[k] = recs[1][i]
	}
	if col["bill"] != "B-2026-0101" || col["receipt"] != receipt || col["amount"] != "5.00" || col["account"] != b.Account {
		t.Fatalf("csv line: %v", col)
	}
	at, err := time.Parse(time.RFC3339, col["at"])
	if err != nil || !strings.HasSuffix(col["at"], "-06:00") || !at.Equal(h.Now()) {
		t.Fatalf("at %q (%v): want RFC 3339 with the offset, %s", col["at"], err, h.Now().In(h.Loc).Format(time.RFC3339))
	}
}
