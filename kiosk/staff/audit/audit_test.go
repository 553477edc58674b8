package audit_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/audit"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestEngagementAndExtract: the clerk records the firm the board
// confirmed (refused without the confirmation); the auditor downloads the
// year's extract, whose manifest lists every file with its checksum.
func TestEngagementAndExtract(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{audit.New()}})
	h.Seed()
	h.SetClock(time.Date(2027, 2, 10, 10, 0, 0, 0, h.Loc))
	clerk := h.SignedIn("cleo", domain.RoleClerk)
	clerk.Get("/staff/audit")
	if p := clerk.Post("/staff/audit/engagements", url.Values{"year": {"2026"}, "firm": {"Johnson Block & Co."}, "confirmed_on": {"2027-02-09"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("audit-error"), "board's confirmation") {
		t.Fatalf("an engagement without the board: %d %q", p.Status, p.Text("audit-error"))
	}
	if es, _ := domain.ReadsOf(h.Ledger).AuditEngagements(); len(es) != 0 {
		t.Fatalf("a refused engagement was recorded: %+v", es)
	}
	if p := clerk.Post("/staff/audit/engagements", url.Values{"year": {"2026"}, "firm": {"Johnson Block & Co."}, "confirmation": {"motion 2027-02-09 #6"}, "confirmed_on": {"2027-02-09"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("engagement: %d %q", p.Status, p.Text("audit-error"))
	}
	h.Submit("admin", &domain.ChartChange{Accounts: []domain.ChartAccount{{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true}}})
	h.Submit("treas", &domain.InvestmentChange{Op: domain.InvestmentBuy, ID: "INV-1", Security: "12-month CD", Institution: "Bank of Belleville", Ground: "time-deposit", Fund: "100",
		Amount: domain.MustMoney("250000.00"), PurchasedOn: domain.MustDate("2026-01-05"), MaturesOn: domain.MustDate("2026-12-20"), Rate: "4.10"})
	aud := h.SignedIn("casey", domain.RoleAuditor)
	if p := aud.Get("/staff/audit"); !strings.Contains(p.Text("engagement-2026"), "Johnson Block") || p.Has("engagement-form") {
		t.Fatalf("the auditor's page: %q", p.Text("engagements"))
	}
	p := aud.Get("/staff/audit/2026/extract.zip")
	if p.Status != http.StatusOK {
		t.Fatalf("extract: %d", p.Status)
	}
	zr, err := zip.NewReader(bytes.NewReader([]byte(p.Body)), int64(len(p.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var m audit.Manifest
	var investments []byte
	for _, f := range zr.File {
		rc, _ := f.Open()
		switch f.Name {
		case audit.ManifestName:
			err = json.NewDecoder(rc).Decode(&m)
		case "investments.csv":
			investments, _ = io.ReadAll(rc)
		}
		rc.Close()
	}
	if !strings.Contains(string(investments), "INV-1,12-month CD,Bank of Belleville,time-deposit,100,250000.00,2026-01-05,2026-12-20,4.10") {
		t.Errorf("investments.csv:\n%s", investments)
	}
	if err != nil || m.Year != 2026 || len(m.Files) != len(zr.File)-1 || m.Files[0].Name != audit.JournalLines {
		t.Fatalf("manifest %+v %v", m, err)
	}
	// 2026's journal here is the parameters' seed; the engagement is 2027's.
	if m.Journal.Entries != 1 || m.Journal.FirstSeq != 1 || m.Journal.Prev != "" {
		t.Errorf("journal span %+v", m.Journal)
	}
}

// TestAuditRoutesByRole: the auditors, the treasurer and the
// administrator read the extract; the clerk, the administrator and the
// treasurer record engagements; no one else.
func TestAuditRoutesByRole(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{audit.New()}})
	h.Seed()
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/audit", Cap: staff.CapAudit},
		{Method: "POST", Path: "/staff/audit/engagements", Cap: staff.CapAuditEngagement},
		{Method: "GET", Path: "/staff/audit/2026/extract.zip", Cap: staff.CapAudit},
	})
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/audit/2026/extract.zip", Cap: staff.CapAudit},
		{Method: "GET", Path: "/api/v1/audit/engagements", Cap: staff.CapAudit},
		{Method: "POST", Path: "/api/v1/audit/engagements", Cap: staff.CapAuditEngagement, Body: `{"command_id":"x","command":{}}`},
	})
}
