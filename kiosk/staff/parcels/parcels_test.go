package parcels_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestImportParcelRoll: the clerk checks a county roll (every bad line
// named, nothing changed), sees what each line would do, imports it in
// one command, and then bills the new parcel's new account.
func TestImportParcelRoll(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	if p := c.Get("/staff/parcels/import"); p.Status != http.StatusOK || !p.Has("roll-dry-run") {
		t.Fatalf("roll page: %d", p.Status)
	}
	before, err := h.Ledger.Parcels()
	if err != nil {
		t.Fatal(err)
	}
	bad := "Parcel,Address,County,Owner,Floodplain,Account\n" +
		"0601-141-2001,141 W Main St,Dane,Ana Gutierrez,no,100101\n" +
		"0601-141-2901,9 River Rd,Rock,Hal Ives,no,\n" +
		"0601-141-2902,,Dane,Hal Ives,no,\n" +
		"0601-141-2903,3 River Rd,Dane,Hal Ives,maybe,\n" +
		"0601-141-2001,141 W Main St,Dane,Ana Gutierrez,no,\n"
	p := c.Upload("/staff/parcels/import", map[string]string{"mode": "import"}, "roll.csv", bad)
	if p.Status != http.StatusUnprocessableEntity || p.Has("roll-confirm") {
		t.Fatalf("bad roll: %d", p.Status)
	}
	for _, want := range []string{"Line 3: the county \"rock\"", "Line 4: the address is missing.", "Line 5: floodplain \"maybe\"", "Line 6: the parcel 0601-141-2001 is already on line 2."} {
		if !strings.Contains(p.Text("roll-errors"), want) {
			t.Errorf("errors do not say %q: %s", want, p.Text("roll-errors"))
		}
	}
	if after, _ := h.Ledger.Parcels(); len(after) != len(before) {
		t.Fatal("a bad roll changed the ledger")
	}

	owner := before[0]
	good := "parcel,address,county,owner,floodplain,account,account_name\n" +
		owner.ID + "," + owner.Address + "," + string(owner.County) + ",New Owner LLC,no,,\n" +
		"0601-141-2950,50 Pearl St,dane,Ida James,yes,200950,James household\n"
	p = c.Upload("/staff/parcels/import", map[string]string{"mode": "dry-run"}, "dane-2026.csv", good)
	if p.Status != http.StatusOK || !p.Has("roll-confirm") {
		t.Fatalf("dry run: %d %q", p.Status, p.Text("roll-errors"))
	}
	row := p.Doc.Find(`tr[data-parcel="` + owner.ID + `"]`)
	if ch, _ := row.Attr("data-change"); ch != "changed" || !strings.Contains(row.Text(), "was owner "+owner.Owner) {
		t.Fatalf("changed row: %q %q", ch, row.Text())
	}
	row = p.Doc.Find(`tr[data-parcel="0601-141-2950"]`)
	if ch, _ := row.Attr("data-change"); ch != "new" || !strings.Contains(row.Text(), "new account") {
		t.Fatalf("new row: %q %q", ch, row.Text())
	}
	if _, err := h.Ledger.Parcel("0601-141-2950"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a dry run changed the ledger: %v", err)
	}
	form := url.Values{"mode": {"import"}, "name": {"dane-2026.csv"}, "csv": {p.Doc.Find(`textarea[name="csv"][hidden]`).Text()}}
	p = c.Post("/staff/parcels/import", form)
	if p.Status != http.StatusOK || !strings.Contains(p.Text("roll-done"), "1 new, 1 changed") {
		t.Fatalf("import: %d %q %q", p.Status, p.Text("roll-done"), p.Text("roll-errors"))
	}
	if got, err := h.Ledger.Parcel(owner.ID); err != nil || got.Owner != "New Owner LLC" || got.Address != owner.Address {
		t.Fatalf("updated parcel: %+v %v", got, err)
	}
	np, err := h.Ledger.Parcel("0601-141-2950")
	if err != nil || !np.Floodplain || np.County != domain.Dane {
		t.Fatalf("new parcel: %+v %v", np, err)
	}
	a, err := h.Ledger.Account("200950")
	if err != nil || a.Name != "James household" || len(a.Parcels) != 1 || a.Parcels[0] != "0601-141-2950" {
		t.Fatalf("new account: %+v %v", a, err)
	}
	// The new account takes a bill on the new parcel.
	nb := url.Values{"account": {"200950"}, "parcel": {"0601-141-2950"}, "description": {"Sidewalk"}, "billed_on": {"2026-11-02"}, "amount": {"45.00"}}
	if p := c.Post("/staff/bills", nb); p.Status != http.StatusSeeOther {
		t.Fatalf("bill on the imported parcel: %d %q", p.Status, p.Text("bill-error"))
	}
}

// TestParcelRollIsNotForEveryRole: an auditor reads but does not import
// a roll.
func TestParcelRollIsNotForEveryRole(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("audit1", domain.RoleAuditor)
	if p := c.Get("/staff/parcels/import"); p.Status != http.StatusForbidden {
		t.Fatalf("auditor: %d", p.Status)
	}
}
