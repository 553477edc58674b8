package staff_test

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestLedgerProblemsAlertEveryone: when the node reports a problem with
// the ledger (a replica whose ledger differs, a node that stopped
// applying), every role's start page says so and names the node; with no
// problem there is no such alert.
func TestLedgerProblemsAlertEveryone(t *testing.T) {
	why := "the ledger of hall-clerk differs from its peers' at log index 812"
	h := stafftest.NewWith(t, stafftest.Options{Cluster: stafftest.Cluster{Trouble: []string{why}}})
	for _, role := range []domain.Role{domain.RoleClerk, domain.RoleTreasurer, domain.RoleAdministrator, domain.RoleAuditor} {
		p := h.SignedIn("u-"+string(role), role).Get("/staff/")
		if !p.Has("alert-ledger") || !strings.Contains(p.Body, "hall-clerk") {
			t.Errorf("%s's start page does not show the ledger problem", role)
		}
	}
	quiet := stafftest.New(t)
	if p := quiet.SignedIn("clerk", domain.RoleClerk).Get("/staff/"); p.Has("alert-ledger") {
		t.Error("a ledger alert with no problem reported")
	}
}
