package backups_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/backups"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestBackupsOnTheStartPage: a healthy backup and drill raise nothing; a
// drive that is not mounted, an old backup, a failed or missing drill
// raise an alert on the start page of the role that runs the appliance
// (the administrator), never on a hotel operator's, a board member's or a
// clerk's; the page itself is the administrator's and the auditor's.
func TestBackupsOnTheStartPage(t *testing.T) {
	var st backups.Status
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{backups.New(func() backups.Status { return st })}})
	now := h.Now()
	healthy := backups.Status{Dir: "/media/backup", Newest: "ledger-2026-12-01.vhb", Taken: now.Add(-20 * time.Hour),
		Drill: &backups.Drill{At: now.Add(-3 * 24 * time.Hour), OK: true, Backup: "ledger-2026-11-28.vhb", TakenAt: now.Add(-4 * 24 * time.Hour), Journal: 1234}}
	clerk := h.SignedIn("pat", domain.RoleClerk)
	admin := h.SignedIn("admin", domain.RoleAdministrator)
	hotel := h.SignedIn("hotel", domain.RoleHotelOperator)
	board := h.SignedIn("trustee", domain.RoleBoard)

	st = healthy
	if p := admin.Get("/staff/"); !p.Has("no-alerts") {
		t.Fatalf("healthy backups raise an alert: %s", p.Body)
	}
	p := admin.Get("/staff/backups")
	if p.Status != http.StatusOK || !strings.Contains(p.Text("drill"), "restored and verified, 1234 journal entries") ||
		!strings.Contains(p.Text("backup-newest"), "ledger-2026-12-01.vhb") {
		t.Fatalf("backups page: %d %q %q", p.Status, p.Text("drill"), p.Text("backup-newest"))
	}
	if p := clerk.Get("/staff/backups"); p.Status != http.StatusForbidden {
		t.Fatalf("a clerk opened the backups page: %d", p.Status)
	}

	for _, c := range []struct {
		name, testid, text string
		set                func(s *backups.Status)
	}{
		{"drive not mounted", "alert-backup-drive", "the backup drive is not mounted", func(s *backups.Status) {
			s.Problem, s.Newest, s.Drill = "the backup drive is not mounted at /media/backup", "", nil
		}},
		{"no backup", "alert-backup-none", "no backup of the ledger", func(s *backups.Status) { s.Newest = "" }},
		{"old backup", "alert-backup-old", "3 days old", func(s *backups.Status) { s.Taken = now.Add(-75 * time.Hour) }},
		{"drill failed", "alert-drill-failed", "failed: the backup is damaged", func(s *backups.Status) {
			s.Drill = &backups.Drill{At: now.Add(-time.Hour), Error: "the backup is damaged: its checksum does not match"}
		}},
		{"no drill", "alert-drill-none", "No restore drill", func(s *backups.Status) { s.Drill = nil }},
		{"old drill", "alert-drill-old", "9 days ago", func(s *backups.Status) { d := *s.Drill; d.At = now.Add(-9 * 24 * time.Hour); s.Drill = &d }},
	} {
		t.Run(c.name, func(t *testing.T) {
			st = healthy
			c.set(&st)
			p := admin.Get("/staff/")
			if !p.Has(c.testid) || !strings.Contains(strings.ToLower(p.Text(c.testid)), strings.ToLower(c.text)) {
				t.Fatalf("the administrator's start page: %q lacks %q\n%s", p.Text(c.testid), c.text, p.Body)
			}
			for name, who := range map[string]*stafftest.Client{"a clerk": clerk, "a hotel operator": hotel, "a board member": board} {
				p := who.Get("/staff/")
				if p.Status != http.StatusOK || p.Has(c.testid) || strings.Contains(p.Body, "/staff/backups") || !p.Has("no-alerts") {
					t.Fatalf("%s's start page shows the backups' alert (%d):\n%s", name, p.Status, p.Body)
				}
			}
		})
	}
}
