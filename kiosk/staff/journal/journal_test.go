package journal_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

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

// pages follows the journal's links named by testid from path, and
// returns the command ids of every page's rows in the order shown.
func pages(t *testing.T, c *stafftest.Client, path, testid string) (ids []string, n int) {
	t.Helper()
	for ; path != ""; n++ {
		if n > 50 {
			t.Fatalf("%s: the pages do not end", path)
		}
		p := c.Get(path)
		if p.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.Status)
		}
		rows := p.Doc.Find("tr[data-command]")
		if rows.Length() > 100 {
			t.Fatalf("%s: %d rows on one page", path, rows.Length())
		}
		rows.Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-command", "")) })
		path = p.Doc.Find(`[data-testid="`+testid+`"]`).AttrOr("href", "")
	}
	return ids, n
}

// TestJournalPages: a long search is shown 100 entries a page; the older
// links reach every entry once, newest first, and the newer links from
// the last page come back through them all.
func TestJournalPages(t *testing.T) {
	h := stafftest.New(t)
	var want []string // payments of B-2026-0101, oldest first
	for i := range 230 {
		bill := "B-2026-0101"
		if i%4 == 3 {
			bill = "B-2026-0102"
		}
		res := h.Submit("kiosk", &domain.PayBill{BillID: bill, Amount: domain.MustMoney("0.01"), Tender: domain.Card, Reference: fmt.Sprint("ch-", i)})
		if bill == "B-2026-0101" {
			want = append(want, res.CommandID)
		}
	}
	a := h.SignedIn("audit", domain.RoleAuditor)
	newestFirst := slices.Clone(want)
	slices.Reverse(newestFirst)
	for _, q := range []string{"bill=B-2026-0101", "q=B-2026-0101", "account=100101&kind=pay_bill"} {
		got, n := pages(t, a, "/staff/journal?"+q, "journal-older")
		if n != 2 || !slices.Equal(got, newestFirst) {
			t.Fatalf("%s: %d pages of %d entries; want 2 pages of the bill's %d payments, newest first", q, n, len(got), len(want))
		}
	}
	// From the last page back to the first.
	p := a.Get("/staff/journal?bill=B-2026-0101&before=" + seqOf(t, a, want[72]))
	if rows := p.Doc.Find("tr[data-command]"); rows.Length() != 72 || rows.First().AttrOr("data-command", "") != want[71] {
		t.Fatalf("the page before payment 72: %d rows, first %s", rows.Length(), rows.First().AttrOr("data-command", ""))
	}
	newer := p.Doc.Find(`[data-testid="journal-newer"]`).AttrOr("href", "")
	got, _ := pages(t, a, newer, "journal-newer")
	// Each newer page holds the 100 entries after the one before it,
	// newest first.
	rev := func(s []string) []string { s = slices.Clone(s); slices.Reverse(s); return s }
	if len(want) != 173 || !slices.Equal(got, slices.Concat(rev(want[72:172]), rev(want[172:]))) {
		t.Fatalf("newer pages: %d entries %v", len(got), got)
	}
	// Everything, a page at a time: the seed's drawer and user entries
	// and the 230 payments, each once.
	all, n := pages(t, a, "/staff/journal", "journal-older")
	if n != 3 || len(all) != h.Ledger.JournalLen() || len(all) != len(slices.Compact(slices.Sorted(slices.Values(all)))) {
		t.Fatalf("the whole journal: %d pages of %d entries, %d in the journal", n, len(all), h.Ledger.JournalLen())
	}
}

// seqOf is the journal sequence of command id, read off its page.
func seqOf(t *testing.T, c *stafftest.Client, id string) string {
	t.Helper()
	row := c.Get("/staff/journal?q=" + url.QueryEscape(id)).Doc.Find("tr[data-command]")
	if row.Length() != 1 {
		t.Fatalf("command %s: %d rows", id, row.Length())
	}
	return strings.TrimSpace(row.Find("td").First().Text())
}

// TestJournalTextIsLookedUp: text that is a receipt, a bill, an account or
// a command id lists that one's entries and says what it was found to
// be; other text is searched in the recent entries, and the page says how
// far.
func TestJournalTextIsLookedUp(t *testing.T) {
	h := stafftest.New(t)
	res := h.Submit("kiosk", &domain.PayBill{BillID: "B-2026-0102", Amount: domain.MustMoney("3.00"), Tender: domain.Card, Reference: "ch-1"})
	h.Submit("kiosk", &domain.PayBill{BillID: "B-2026-0101", Amount: domain.MustMoney("4.00"), Tender: domain.Card, Reference: "ch-2"})
	a := h.SignedIn("audit", domain.RoleAuditor)
	for _, c := range []struct{ q, found string }{
		{res.Receipt.Number, "receipt"}, {"b-2026-0102", "bill"}, {"100102", "account"}, {res.CommandID, "command"},
	} {
		p := a.Get("/staff/journal?q=" + url.QueryEscape(c.q))
		rows := p.Doc.Find("tr[data-command]")
		if rows.Length() != 1 || rows.AttrOr("data-command", "") != res.CommandID || !strings.Contains(p.Text("journal-count"), "is a "+c.found) {
			t.Fatalf("q=%s: %d rows %q; %q", c.q, rows.Length(), rows.Text(), p.Text("journal-count"))
		}
	}
	p := a.Get("/staff/journal?q=ch-")
	if !strings.Contains(p.Text("journal-count"), "at most 5000 entries a page") {
		t.Fatalf("free text: %q", p.Text("journal-count"))
	}
	if p := a.Get("/staff/journal?q=pay_bill"); p.Doc.Find("tr[data-command]").Length() != 2 {
		t.Fatalf("free text pay_bill: %q", p.Text("journal"))
	}
	if p := a.Get("/staff/journal?receipt=NOPE-1"); p.Doc.Find("tr[data-command]").Length() != 0 {
		t.Fatalf("an unknown receipt matched: %q", p.Text("journal"))
	}
	if p := a.Get("/staff/journal?before=x"); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad cursor: %d", p.Status)
	}
}

// TestJournalCSVOfAYear: the export takes a year or a range of days.
func TestJournalCSVOfAYear(t *testing.T) {
	h := stafftest.New(t)
	for i := range 30 {
		h.Submit("kiosk", &domain.PayBill{BillID: "B-2026-0101", Amount: domain.MustMoney("0.01"), Tender: domain.Card, Reference: fmt.Sprint("ch-", i)})
	}
	a := h.SignedIn("audit", domain.RoleAuditor)
	n := h.Ledger.JournalLen()
	year := h.Today().Year()
	for q, want := range map[string]int{
		fmt.Sprint("year=", year): n, fmt.Sprint("year=", year-1): 0,
		"from=" + h.Today().String() + "&to=" + h.Today().String(): n, "to=" + h.Today().AddDays(-1).String(): 0,
		fmt.Sprint("year=", year, "&kind=pay_bill"): 30,
	} {
		recs := csvOf(t, a, "/staff/journal.csv?"+q)
		if len(recs)-1 != want {
			t.Fatalf("%s: %d rows, want %d", q, len(recs)-1, want)
		}
	}
	if p := a.Get("/staff/journal.csv?year=twenty"); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad year: %d", p.Status)
	}
}

func csvOf(t *testing.T, c *stafftest.Client, path string) [][]string {
	t.Helper()
	resp, err := c.HTTP.Get(c.H.Srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	recs, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
