package staff_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestLedgerProblemsAlertTheOperations: when the node reports a problem
// with the ledger (a replica whose ledger differs, a node that stopped
// applying), the start page of the role that looks after the appliance
// (the administrator) says so and names the node; every other role, the
// hotel operators and the board above all, is not shown the appliance's
// internals; with no problem there is no such alert.
func TestLedgerProblemsAlertTheOperations(t *testing.T) {
	why := "the ledger of hall-clerk differs from its peers' at log index 812"
	h := stafftest.NewWith(t, stafftest.Options{Cluster: stafftest.Cluster{Trouble: []string{why}}})
	for _, role := range domain.Roles() {
		p := h.SignedIn("u-"+strings.ReplaceAll(string(role), "_", "-"), role).Get("/staff/")
		if p.Status != http.StatusOK {
			t.Fatalf("%s's start page: %d", role, p.Status)
		}
		shown := p.Has("alert-ledger") && strings.Contains(p.Body, "hall-clerk")
		if want := staff.Allowed(role, staff.CapOperations); shown != want {
			t.Errorf("%s's start page shows the ledger problem: %v, want %v", role, shown, want)
		}
		if role == domain.RoleAdministrator && !shown {
			t.Error("the administrator is not told of the ledger problem")
		}
		if (role == domain.RoleHotelOperator || role == domain.RoleBoard) && strings.Contains(p.Body, "hall-clerk") {
			t.Errorf("%s sees the node's name", role)
		}
	}
	quiet := stafftest.New(t)
	if p := quiet.SignedIn("admin", domain.RoleAdministrator).Get("/staff/"); p.Has("alert-ledger") {
		t.Error("a ledger alert with no problem reported")
	}
}
