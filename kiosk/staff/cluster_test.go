package staff_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

func TestClusterPage(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("auditor", domain.RoleAuditor)
	p := c.Get("/staff/cluster")
	if p.Status != http.StatusOK || p.Text("cluster-leader") != "hall-kiosk" {
		t.Fatalf("cluster: %d leader %q", p.Status, p.Text("cluster-leader"))
	}
	if !strings.Contains(p.Text("state-backup"), "unreachable") || p.Text("lag-hall-clerk") != "2" || !strings.Contains(p.Text("state-hall-kiosk"), "Leader") {
		t.Fatalf("members: %q", p.Text("cluster-members"))
	}
}
