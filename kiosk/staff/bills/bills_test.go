package bills_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

func TestCreateBill(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/bills/new")
	bad := url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"Weed cutting"}, "billed_on": {"2026-11-02"}, "amount": {"-5"}}
	if p := c.Post("/staff/bills", bad); p.Status != http.StatusUnprocessableEntity || !p.Has("bill-error") {
		t.Fatalf("negative amount: %d", p.Status)
	}
	bad.Set("amount", "90.00")
	bad.Set("account", "999999")
	if p := c.Post("/staff/bills", bad); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("bill-error"), "no account 999999") {
		t.Fatalf("unknown account: %d %q", p.Status, p.Text("bill-error"))
	}
	bad.Set("account", "100101")
	p := c.Post("/staff/bills", bad)
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/bills/B-2026-hall-clerk-") {
		t.Fatalf("create: %d → %q", p.Status, p.Location)
	}
	p = c.Get(p.Location)
	if !p.Has("bill-created") || p.Text("bill-balance") != "90.00" || p.Text("bill-status") != "current" {
		t.Fatalf("new bill page: balance %q status %q", p.Text("bill-balance"), p.Text("bill-status"))
	}
}

// TestCreateBillSpanish: the new-bill form takes an optional Spanish
// description, which the bill keeps and its page shows beside the English
// one; a bill given none shows only the English.
func TestCreateBillSpanish(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	if f := c.Get("/staff/bills/new"); !f.Has("bill-description-es") {
		t.Fatal("the form has no Spanish description")
	}
	form := url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"Weed cutting, 2 hours"}, "description_es": {"Corte de maleza, 2 horas"}, "billed_on": {"2026-11-02"}, "amount": {"90.00"}}
	p := c.Post("/staff/bills", form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create: %d %q", p.Status, p.Text("bill-error"))
	}
	id := strings.TrimPrefix(strings.TrimSuffix(p.Location, "?created=1"), "/staff/bills/")
	if b, err := h.Ledger.Bill(id); err != nil || b.DescriptionES != "Corte de maleza, 2 horas" {
		t.Fatalf("bill %s: %q %v", id, b.DescriptionES, err)
	}
	p = c.Get(p.Location)
	if p.Text("bill-description") != "Weed cutting, 2 hours" || p.Text("bill-description-es") != "Corte de maleza, 2 horas" {
		t.Errorf("bill page: %q / %q", p.Text("bill-description"), p.Text("bill-description-es"))
	}
	form.Del("description_es")
	p = c.Get(c.Post("/staff/bills", form).Location)
	if p.Text("bill-description") != "Weed cutting, 2 hours" || p.Has("bill-description-es") {
		t.Errorf("a bill without Spanish shows %q", p.Text("bill-description-es"))
	}
}

func TestImportBills(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/bills/import")
	before, _ := h.Ledger.BillsByAccount("100101")
	badCSV := "account,parcel,description,billed_on,amount\n" +
		"100101,0601-141-2001,Sidewalk repair,2026-11-01,120.00\n" +
		"100101,0601-141-2001,Weeds,11/01/2026,40.00\n" +
		"999999,0601-141-2001,Snow,2026-11-01,30.00\n" +
		"100102,0601-141-2002,Snow,2026-11-01,zero\n"
	p := c.Upload("/staff/bills/import", map[string]string{"mode": "import"}, "november.csv", badCSV)
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad file: %d", p.Status)
	}
	errs := p.Doc.Find(`[data-testid="import-errors"] li`)
	if errs.Length() != 3 {
		t.Fatalf("errors = %d: %s", errs.Length(), p.Text("import-errors"))
	}
	for _, want := range []string{"Line 3:", "Line 4:", "Line 5:"} {
		if !strings.Contains(p.Text("import-errors"), want) {
			t.Errorf("errors do not name %s: %s", want, p.Text("import-errors"))
		}
	}
	if p.Has("import-confirm") {
		t.Fatal("a file with errors offers to import")
	}
	if after, _ := h.Ledger.BillsByAccount("100101"); len(after) != len(before) {
		t.Fatal("a bad file changed the ledger")
	}
	good := "account,parcel,description,billed_on,amount,bill_id\n" +
		"100101,0601-141-2001,Sidewalk repair,2026-11-01,120.00,\n" +
		"100102,0601-141-2002,Snow removal,2026-11-01,$30.50,SNOW-1\n"
	p = c.Upload("/staff/bills/import", map[string]string{"mode": "dry-run"}, "november.csv", good)
	if p.Status != http.StatusOK || p.Text("import-total") != "150.50" || !p.Has("import-confirm") {
		t.Fatalf("dry run: %d total %q errors %q", p.Status, p.Text("import-total"), p.Text("import-errors"))
	}
	if after, _ := h.Ledger.BillsByAccount("100101"); len(after) != len(before) {
		t.Fatal("a dry run changed the ledger")
	}
	// Confirm: the form carries the checked file back.
	form := url.Values{}
	form.Set("mode", "import")
	form.Set("name", "november.csv")
	form.Set("csv", p.Doc.Find(`textarea[name="csv"][hidden]`).Text())
	p = c.Post("/staff/bills/import", form)
	if p.Status != http.StatusOK || !p.Has("import-done") {
		t.Fatalf("import: %d %q", p.Status, p.Text("import-errors"))
	}
	if _, err := h.Ledger.Bill("SNOW-1"); err != nil {
		t.Fatal(err)
	}
	// The account's history names the command that created each bill.
	p = c.Get("/staff/accounts/100101")
	hist := p.Text("postings-B-2026-0101")
	if !strings.Contains(hist, "Billed") {
		t.Fatalf("history: %q", hist)
	}
	if !strings.Contains(p.Body, "november.csv") && !strings.Contains(p.Body, "cmd-") {
		t.Fatal("the history shows no command ids")
	}
	var imported string
	p.Doc.Find(`[data-bill]`).Each(func(_ int, s *goquery.Selection) {
		if id, _ := s.Attr("data-bill"); strings.HasPrefix(id, "B-2026-hall-clerk-") {
			imported = s.Find(".cmd").First().Text()
		}
	})
	if !strings.Contains(imported, "cmd-") || !strings.Contains(imported, "jdoe") {
		t.Fatalf("imported bill's creation posting shows %q, want its command id and actor", imported)
	}
}

func TestFindAccount(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	if p := c.Get("/staff/accounts?number=100101"); p.Status != http.StatusSeeOther || p.Location != "/staff/accounts/100101" {
		t.Fatalf("by account: %d %q", p.Status, p.Location)
	}
	if p := c.Get("/staff/accounts?number=B-2026-0102"); p.Location != "/staff/bills/B-2026-0102" {
		t.Fatalf("by bill: %q", p.Location)
	}
	p := c.Get("/staff/accounts?number=11+Main+Street")
	if p.Status != http.StatusOK || p.Doc.Find(`tr[data-parcel="0601-141-2002"]`).Length() != 1 || !strings.Contains(p.Text("account-results"), "100102") {
		t.Fatalf("by address: %q", p.Text("account-results"))
	}
	if p := c.Get("/staff/accounts?number=ramirez"); p.Doc.Find(`tr[data-parcel]`).Length() != 1 {
		t.Fatalf("by owner: %q", p.Text("account-results"))
	}
	if p := c.Get("/staff/accounts?number=nobody+here"); !p.Has("account-none") {
		t.Fatal("no 'nothing matches'")
	}
}

// TestFindAccountByWords: the accounts search reads owner names and
// addresses by their words, each whole or its start, in any order and
// without accents, and lists a bounded number of parcels with a note
// when more match.
func TestFindAccountByWords(t *testing.T) {
	h := stafftest.New(t)
	h.Ledger.PutParcel(domain.Parcel{ID: "0601-200-0001", Address: "7 Oak Lane", County: domain.Dane, Owner: "María Gutiérrez-Soto"}, "100901")
	c := h.SignedIn("jdoe", domain.RoleClerk)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"gut", []string{"0601-141-2001", "0601-200-0001"}},
		{"gutierrez ana", []string{"0601-141-2001"}},
		{"Soto María", []string{"0601-200-0001"}},
		{"main", []string{"0601-141-2001", "0601-141-2002"}},
		{"11 main street", []string{"0601-141-2002"}},
		{"oak ln", []string{"0601-200-0001"}},
		{"0601 200 0001", []string{"0601-200-0001"}},
		{"tierrez", nil}, // the middle of a word names nothing
	} {
		p := c.Get("/staff/accounts?number=" + url.QueryEscape(tc.q))
		var got []string
		p.Doc.Find(`tr[data-parcel]`).Each(func(_ int, s *goquery.Selection) { got = append(got, s.AttrOr("data-parcel", "")) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q found %v, want %v", tc.q, got, tc.want)
		}
	}
	for i := range 105 {
		h.Ledger.PutParcel(domain.Parcel{ID: fmt.Sprintf("0601-300-%04d", i), Address: fmt.Sprintf("%d Elm St", i+1), County: domain.Green, Owner: "Elm Holdings"}, fmt.Sprintf("2%05d", i))
	}
	p := c.Get("/staff/accounts?number=elm")
	if n := p.Doc.Find(`tr[data-parcel]`).Length(); n != 100 || !p.Has("account-more") {
		t.Fatalf("a search matching 105 parcels lists %d, note %v", n, p.Has("account-more"))
	}
}
