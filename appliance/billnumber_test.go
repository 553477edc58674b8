package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
)

// TestBillNumbersOnADemoNode: the demo's bills, made on a real node at
// ledger format 7, each carry a number of their year, none twice; a
// resident who types one at the kiosk is taken to its bill, which shows
// it; the clerk's window and account search find the bill by it too.
func TestBillNumbersOnADemoNode(t *testing.T) {
	m := startMainAt(t, t.TempDir(), villageNow)
	seen := map[string]string{}
	var some domain.Bill
	parcels, err := m.Node.Parcels()
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range parcels {
		bills, err := m.Node.BillsByParcel(pc.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bills {
			if !domain.IsBillNumber(b.Number) || !strings.HasPrefix(b.Number, b.BilledOn.String()[:4]+"-") {
				t.Fatalf("bill %s billed %s has the number %q", b.ID, b.BilledOn, b.Number)
			}
			if other, dup := seen[b.Number]; dup {
				t.Fatalf("bills %s and %s both have the number %s", other, b.ID, b.Number)
			}
			seen[b.Number] = b.ID
			if some.ID == "" && strings.HasPrefix(b.ID, "B-") {
				some = b
			}
		}
	}
	if len(seen) < 10 || some.ID == "" {
		t.Fatalf("%d numbered bills", len(seen))
	}

	// The kiosk: the number finds the bill, whose page shows it.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get("http://" + m.Addr() + "/find?q=" + url.QueryEscape(some.Number))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/bills/"+url.PathEscape(some.ID) {
		t.Fatalf("the kiosk's find of %s: %d → %q, want the bill %s", some.Number, resp.StatusCode, loc, some.ID)
	}
	resp, err = http.Get("http://" + m.Addr() + "/bills/" + url.PathEscape(some.ID) + "?lang=en")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Find(`[data-testid="bill-id"]`).Text(); !strings.Contains(got, some.Number) {
		t.Errorf("the kiosk's bill page shows %q, want %s", got, some.Number)
	}

	// The office: the window and the account search find it by number.
	out, code := userCLI(t, m, "add", "--username", "treas", "--name", "Pat Treasurer", "--role", "treasurer")
	if code != 0 {
		t.Fatalf("user add: %s", out)
	}
	c := newStaffClient(t, m)
	temp := tempPassword(t, out)
	c.login("treas", temp)
	c.get("/staff/password")
	c.post("/staff/password", url.Values{"current": {temp}, "new": {"a long office password"}, "again": {"a long office password"}})
	c.get("/staff/window")
	if p := c.post("/staff/window/open", url.Values{"float": {"100.00"}}); p.status != http.StatusSeeOther {
		t.Fatalf("open the drawer: %d", p.status)
	}
	if p := c.get("/staff/window?bill=" + url.QueryEscape(some.Number)); !strings.HasPrefix(p.text("window-bill-number"), some.Number+" · ") {
		t.Errorf("the window finds %q for %s", p.text("window-bill-number"), some.Number)
	}
	if p := c.get("/staff/accounts?number=" + url.QueryEscape(some.Number)); p.status != http.StatusSeeOther || p.location != "/staff/bills/"+url.PathEscape(some.ID) {
		t.Errorf("the account search of %s: %d → %q", some.Number, p.status, p.location)
	}
	if p := c.get("/staff/bills/" + url.PathEscape(some.ID)); p.text("bill-number") != some.Number {
		t.Errorf("the office's bill page shows the number %q, want %s", p.text("bill-number"), some.Number)
	}
}
