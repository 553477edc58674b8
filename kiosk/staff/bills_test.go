package staff_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
)

func TestCreateBill(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	c.get("/staff/bills/new")
	bad := url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"Weed cutting"}, "billed_on": {"2026-11-02"}, "amount": {"-5"}}
	if p := c.post("/staff/bills", bad); p.status != http.StatusUnprocessableEntity || !p.has("bill-error") {
		t.Fatalf("negative amount: %d", p.status)
	}
	bad.Set("amount", "90.00")
	bad.Set("account", "999999")
	if p := c.post("/staff/bills", bad); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.text("bill-error"), "no account 999999") {
		t.Fatalf("unknown account: %d %q", p.status, p.text("bill-error"))
	}
	bad.Set("account", "100101")
	p := c.post("/staff/bills", bad)
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/staff/bills/B-2026-hall-clerk-") {
		t.Fatalf("create: %d → %q", p.status, p.location)
	}
	p = c.get(p.location)
	if !p.has("bill-created") || p.text("bill-balance") != "90.00" || p.text("bill-status") != "current" {
		t.Fatalf("new bill page: balance %q status %q", p.text("bill-balance"), p.text("bill-status"))
	}
}

func (c *client) upload(path string, fields map[string]string, file, content string) page {
	c.h.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", c.csrf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if file != "" {
		fw, _ := mw.CreateFormFile("file", file)
		fw.Write([]byte(content))
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.h.srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.do(req)
}

func TestImportBills(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	c.get("/staff/bills/import")
	before, _ := h.ledger.BillsByAccount("100101")
	badCSV := "account,parcel,description,billed_on,amount\n" +
		"100101,0601-141-2001,Sidewalk repair,2026-11-01,120.00\n" +
		"100101,0601-141-2001,Weeds,11/01/2026,40.00\n" +
		"999999,0601-141-2001,Snow,2026-11-01,30.00\n" +
		"100102,0601-141-2002,Snow,2026-11-01,zero\n"
	p := c.upload("/staff/bills/import", map[string]string{"mode": "import"}, "november.csv", badCSV)
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("bad file: %d", p.status)
	}
	errs := p.doc.Find(`[data-testid="import-errors"] li`)
	if errs.Length() != 3 {
		t.Fatalf("errors = %d: %s", errs.Length(), p.text("import-errors"))
	}
	for _, want := range []string{"Line 3:", "Line 4:", "Line 5:"} {
		if !strings.Contains(p.text("import-errors"), want) {
			t.Errorf("errors do not name %s: %s", want, p.text("import-errors"))
		}
	}
	if p.has("import-confirm") {
		t.Fatal("a file with errors offers to import")
	}
	if after, _ := h.ledger.BillsByAccount("100101"); len(after) != len(before) {
		t.Fatal("a bad file changed the ledger")
	}
	good := "account,parcel,description,billed_on,amount,bill_id\n" +
		"100101,0601-141-2001,Sidewalk repair,2026-11-01,120.00,\n" +
		"100102,0601-141-2002,Snow removal,2026-11-01,$30.50,SNOW-1\n"
	p = c.upload("/staff/bills/import", map[string]string{"mode": "dry-run"}, "november.csv", good)
	if p.status != http.StatusOK || p.text("import-total") != "150.50" || !p.has("import-confirm") {
		t.Fatalf("dry run: %d total %q errors %q", p.status, p.text("import-total"), p.text("import-errors"))
	}
	if after, _ := h.ledger.BillsByAccount("100101"); len(after) != len(before) {
		t.Fatal("a dry run changed the ledger")
	}
	// Confirm: the form carries the checked file back.
	form := url.Values{}
	form.Set("mode", "import")
	form.Set("name", "november.csv")
	form.Set("csv", p.doc.Find(`textarea[name="csv"][hidden]`).Text())
	p = c.post("/staff/bills/import", form)
	if p.status != http.StatusOK || !p.has("import-done") {
		t.Fatalf("import: %d %q", p.status, p.text("import-errors"))
	}
	if _, err := h.ledger.Bill("SNOW-1"); err != nil {
		t.Fatal(err)
	}
	// The account's history names the command that created each bill.
	p = c.get("/staff/accounts/100101")
	hist := p.text("postings-B-2026-0101")
	if !strings.Contains(hist, "Billed") {
		t.Fatalf("history: %q", hist)
	}
	if !strings.Contains(p.body, "november.csv") && !strings.Contains(p.body, "cmd-") {
		t.Fatal("the history shows no command ids")
	}
	var imported string
	p.doc.Find(`[data-bill]`).Each(func(_ int, s *goquery.Selection) {
		if id, _ := s.Attr("data-bill"); strings.HasPrefix(id, "B-2026-hall-clerk-") {
			imported = s.Find(".cmd").First().Text()
		}
	})
	if !strings.Contains(imported, "cmd-") || !strings.Contains(imported, "jdoe") {
		t.Fatalf("imported bill's creation posting shows %q, want its command id and actor", imported)
	}
}

func TestFindAccount(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	if p := c.get("/staff/accounts?number=100101"); p.status != http.StatusSeeOther || p.location != "/staff/accounts/100101" {
		t.Fatalf("by account: %d %q", p.status, p.location)
	}
	if p := c.get("/staff/accounts?number=B-2026-0102"); p.location != "/staff/bills/B-2026-0102" {
		t.Fatalf("by bill: %q", p.location)
	}
	p := c.get("/staff/accounts?number=11+Main+Street")
	if p.status != http.StatusOK || p.doc.Find(`tr[data-parcel="0601-141-2002"]`).Length() != 1 || !strings.Contains(p.text("account-results"), "100102") {
		t.Fatalf("by address: %q", p.text("account-results"))
	}
	if p := c.get("/staff/accounts?number=ramirez"); p.doc.Find(`tr[data-parcel]`).Length() != 1 {
		t.Fatalf("by owner: %q", p.text("account-results"))
	}
	if p := c.get("/staff/accounts?number=nobody+here"); !p.has("account-none") {
		t.Fatal("no 'nothing matches'")
	}
}
