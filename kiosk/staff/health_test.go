package staff_test

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestLedgerProblemsAlertEveryone: when the node reports a problem with
// the ledger (a replica whose ledger differs, a node that stopped
// applying), every role's start page says so and names the node; with no
// problem there is no such alert.
func TestLedgerProblemsAlertEveryone(t *testing.T) {
	why := "the ledger of hall-clerk differs from its peers' at log index 812"
	h := newHarnessWith(t, fakeCluster{problems: []string{why}})
	for _, role := range []domain.Role{domain.RoleClerk, domain.RoleTreasurer, domain.RoleAdministrator, domain.RoleAuditor} {
		p := h.signedIn("u-"+string(role), role).get("/staff/")
		if !p.has("alert-ledger") || !strings.Contains(p.body, "hall-clerk") {
			t.Errorf("%s's start page does not show the ledger problem", role)
		}
	}
	quiet := newHarness(t)
	if p := quiet.signedIn("clerk", domain.RoleClerk).get("/staff/"); p.has("alert-ledger") {
		t.Error("a ledger alert with no problem reported")
	}
}
