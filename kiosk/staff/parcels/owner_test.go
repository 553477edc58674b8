package parcels_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestOwnersMailingAddress: a roll's mail_ columns record the owner's
// mailing address, shown in the dry run and on the parcel's page; the
// clerk corrects it there and records an account's own; a bad ZIP code
// is shown beside the form and changes nothing; an empty form removes it;
// the API answers the address and where mail goes; an auditor reads the
// page but has no form and cannot post one.
func TestOwnersMailingAddress(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	roll := "parcel,address,county,owner,account,mail_name,mail_street,mail_city,mail_state,mail_zip\n" +
		"0601-141-2950,50 Pearl St,dane,Harbor Rentals LLC,200950,Harbor Rentals LLC,PO Box 118,Madison,WI,53701-0118\n"
	p := c.Upload("/staff/parcels/import", map[string]string{"mode": "dry-run"}, "roll.csv", roll)
	if p.Status != http.StatusOK || p.Text("roll-mailing") != "Harbor Rentals LLC, PO Box 118, Madison, WI 53701-0118" {
		t.Fatalf("dry run: %d %q %q", p.Status, p.Text("roll-mailing"), p.Text("roll-errors"))
	}
	p = c.Upload("/staff/parcels/import", map[string]string{"mode": "import"}, "roll.csv", roll)
	if p.Status != http.StatusOK || !p.Has("roll-done") {
		t.Fatalf("import: %d %q", p.Status, p.Text("roll-errors"))
	}
	p = c.Get("/staff/parcels/0601-141-2950")
	if p.Status != http.StatusOK || !strings.Contains(p.Text("mail-to"), "PO Box 118") || p.Doc.Find(`[data-testid="mailing-street"]`).AttrOr("value", "") != "PO Box 118" {
		t.Fatalf("parcel page: %d %q", p.Status, p.Text("mail-to"))
	}
	if a, _ := h.Ledger.Account("200950"); a.Mailing.Street != "PO Box 118" {
		t.Fatalf("the account the roll made has no mailing address: %+v", a)
	}

	form := url.Values{"name": {"Harbor Rentals LLC"}, "street": {"PO Box 120"}, "city": {"Madison"}, "state": {"wi"}, "zip": {"5370"}}
	p = c.Post("/staff/parcels/0601-141-2950/mailing", form)
	if p.Status != http.StatusUnprocessableEntity && p.Status != http.StatusBadRequest || !strings.Contains(p.Text("mailing-error"), "ZIP code") {
		t.Fatalf("bad ZIP: %d %q", p.Status, p.Text("mailing-error"))
	}
	if pc, _ := h.Ledger.Parcel("0601-141-2950"); pc.Mailing.Street != "PO Box 118" {
		t.Fatal("a bad address changed the parcel")
	}
	form.Set("zip", "53701")
	if p = c.Post("/staff/parcels/0601-141-2950/mailing", form); p.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %q", p.Status, p.Text("mailing-error"))
	}
	if pc, _ := h.Ledger.Parcel("0601-141-2950"); pc.Mailing.Street != "PO Box 120" || pc.Mailing.State != "WI" {
		t.Fatalf("saved: %+v", pc.Mailing)
	}

	acct := url.Values{"name": {"Ana Gutierrez"}, "street": {"1 Elm St"}, "street2": {"Apt 2"}, "city": {"Verona"}, "state": {"WI"}, "zip": {"53593"}}
	if p = c.Post("/staff/accounts/100101/mailing", acct); p.Status != http.StatusSeeOther {
		t.Fatalf("account: %d %q", p.Status, p.Text("mailing-error"))
	}
	tok := h.Token("api1", domain.RoleClerk)
	st, body := h.API("GET", "/api/v1/accounts/100101", tok, "")
	var a struct {
		Mailing domain.MailingAddress `json:"mailing"`
		MailTo  []string              `json:"mail_to"`
	}
	if err := json.Unmarshal(body, &a); st != http.StatusOK || err != nil || a.Mailing.Street2 != "Apt 2" || a.MailTo[len(a.MailTo)-1] != "Verona, WI 53593" {
		t.Fatalf("API account: %d %s", st, body)
	}
	st, body = h.API("GET", "/api/v1/parcels/0601-141-2950", tok, "")
	if st != http.StatusOK || !strings.Contains(string(body), `"street":"PO Box 120"`) {
		t.Fatalf("API parcel: %d %s", st, body)
	}

	if p = c.Post("/staff/parcels/0601-141-2950/mailing", url.Values{}); p.Status != http.StatusSeeOther {
		t.Fatalf("remove: %d %q", p.Status, p.Text("mailing-error"))
	}
	if pc, _ := h.Ledger.Parcel("0601-141-2950"); !pc.Mailing.IsZero() {
		t.Fatalf("not removed: %+v", pc.Mailing)
	}
	p = c.Get("/staff/parcels/0601-141-2950")
	if got := p.Text("mail-to"); !strings.Contains(got, "50 Pearl St") || !strings.Contains(got, "Belleville, WI 53508") {
		t.Fatalf("mail goes to the parcel once removed: %q", got)
	}

	aud := h.SignedIn("audit1", domain.RoleAuditor)
	if p := aud.Get("/staff/parcels/0601-141-2950"); p.Status != http.StatusOK || p.Has("mailing-form") {
		t.Fatalf("auditor's parcel page: %d form %v", p.Status, p.Has("mailing-form"))
	}
	if p := aud.Post("/staff/parcels/0601-141-2950/mailing", form); p.Status != http.StatusForbidden {
		t.Fatalf("auditor posts: %d", p.Status)
	}
	if p := aud.Get("/staff/accounts/100101/mailing"); p.Status != http.StatusForbidden {
		t.Fatalf("auditor's account form: %d", p.Status)
	}
}
