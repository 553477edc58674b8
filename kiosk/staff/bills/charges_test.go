package bills_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestChargesAndHolds: a chargeback for contracted staff's work at actual
// cost; unpaid past its due date it holds the party's permits, on the
// account page and through the API; collection costs and fees on a placed
// bill; a hearing notice fee.
func TestChargesAndHolds(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/charges/new?kind=chargeback&account=100102")
	form := url.Values{"kind": {"chargeback"}, "account": {"100102"}, "parcel": {"0601-141-2002"}, "reference": {"Village engineer invoice 2291"},
		"desc1": {"Plan review, 3 hours"}, "amount1": {"375.00"}, "desc2": {"Administrative cost"}, "amount2": {"25.00"}}
	p := c.Post("/staff/charges", form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("chargeback: %d %s", p.Status, p.Text("charge-error"))
	}
	if p := c.Get(p.Location); p.Text("bill-balance") != "400.00" {
		t.Fatalf("chargeback bill balance %q", p.Text("bill-balance"))
	}
	if p := c.Get("/staff/accounts/100102"); p.Has("permit-hold") || !p.Has("charges") {
		t.Fatal("a hold before the chargeback is due, or no charges listed")
	}
	form.Set("amount1", "-3")
	if p := c.Post("/staff/charges", form); p.Status != http.StatusUnprocessableEntity || !p.Has("charge-error") {
		t.Fatalf("a negative line: %d", p.Status)
	}
	// Forty days later it is past due and unpaid: the permits are held.
	h.SetClock(h.Now().Add(40 * 24 * time.Hour))
	c.Login("jdoe", stafftest.Password)
	if p := c.Get("/staff/accounts/100102"); !p.Has("permit-hold") {
		t.Fatal("no permit hold for a past due chargeback")
	}
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("permits", domain.RoleAuditor, true)
	admin.Get("/staff/users")
	tok := admin.Post("/staff/users/permits/tokens", nil).Text("secret")
	holds := func(account string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/holds?account="+account, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if st, out := holds("100102"); st != http.StatusOK || out["hold"] != true {
		t.Fatalf("holds API: %d %v", st, out)
	}
	if st, out := holds("100101"); st != http.StatusOK || out["hold"] != false {
		t.Fatalf("holds API for a party without chargebacks: %d %v", st, out)
	}
	// Collection costs and attorney's fees on a placed bill.
	c.Get("/staff/charges/new?kind=collection&bill=B-2026-0101")
	p = c.Post("/staff/charges", url.Values{"kind": {"collection"}, "placed_bill": {"B-2026-0101"}, "reference": {"Badger Collections LLC"},
		"desc1": {"Collection costs"}, "amount1": {"40.00"}, "desc2": {"Attorney's fees"}, "amount2": {"150.00"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("collection: %d %s", p.Status, p.Text("charge-error"))
	}
	if p := c.Get(p.Location); p.Text("bill-balance") != "190.00" {
		t.Fatalf("collection costs bill %q", p.Text("bill-balance"))
	}
	// A notice and publication fee for a hearing (§5.19).
	c.Get("/staff/charges/new?kind=notice_fee&account=100101")
	p = c.Post("/staff/charges", url.Values{"kind": {"notice_fee"}, "account": {"100101"}, "parcel": {"0601-141-2001"}, "reference": {"Conditional use permit 2026-04"},
		"desc1": {"Class 2 notice, Great Sugar River Review"}, "amount1": {"86.40"}, "desc2": {"Certified mailings to neighbors"}, "amount2": {"22.10"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("notice fee: %d %s", p.Status, p.Text("charge-error"))
	}
	if p := c.Get(p.Location); p.Text("bill-balance") != "108.50" {
		t.Fatalf("notice fee bill %q", p.Text("bill-balance"))
	}
}
