// Package backups is the clerk's office's view of the node's backups: a
// page for the people who look after the appliance (the administrator and
// the auditor, who see the cluster page) with the newest backup on the USB
// drive and the last restore drill, and start-page alerts when the backups
// need attention: no drive, no recent backup, a drill that failed or has
// not run for a week. The alerts are internal to the appliance's
// operations: only the roles that run it (staff.CapOperations, the
// administrator) see them.
//
// The node reads the drive (the appliance's ops.go); this package only
// says what it means, in the office's words.
package backups

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// Status is what the node knows of its backups.
type Status struct {
	Dir     string    // where the backup drive is mounted
	Problem string    // why the drive cannot be used ("" when it can)
	Newest  string    // the newest backup's file name, "" when none
	Taken   time.Time // when the newest backup was taken
	Drill   *Drill    // the last restore drill, nil when none ran
}

// Drill is the result of a restore drill.
type Drill struct {
	At      time.Time // when it ran
	OK      bool
	Error   string // why it failed
	Backup  string // the backup it restored
	TakenAt time.Time
	Journal uint64 // journal entries verified
}

// The limits after which the start page says the backups need attention:
// a nightly backup missed twice, a weekly drill missed once.
const (
	MaxBackupAge = 48 * time.Hour
	MaxDrillAge  = 8 * 24 * time.Hour
)

// Module is the backups' page and alerts.
type Module struct {
	status func() Status
	o      *staff.Office
}

// New returns the module; status reads the node's backups.
func New(status func() Status) *Module { return &Module{status: status} }

// Mount adds the page, its link and the start-page alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/backups", staff.CapCluster, m.showBackupsPage)
	o.Nav(staff.CapCluster, "Backups", "/staff/backups")
	o.Alert(m.alerts)
	return nil
}

// problems says, in sentences, what is wrong with the backups now.
func (m *Module) problems(st Status, now time.Time) []view.Alert {
	var out []view.Alert
	add := func(id, format string, args ...any) {
		out = append(out, view.Alert{TestID: id, Text: fmt.Sprintf(format, args...), URL: "/staff/backups"})
	}
	switch {
	case st.Problem != "":
		add("alert-backup-drive", "The ledger cannot be backed up: %s", st.Problem)
	case st.Newest == "":
		add("alert-backup-none", "There is no backup of the ledger on the backup drive (%s).", st.Dir)
	case now.Sub(st.Taken) > MaxBackupAge:
		add("alert-backup-old", "The newest backup of the ledger is %s old (%s).", days(now.Sub(st.Taken)), st.Newest)
	}
	switch d := st.Drill; {
	case st.Problem != "":
	case d == nil:
		add("alert-drill-none", "No restore drill has checked the backups yet (it runs every Sunday; systemctl start appliance-drill runs one now).")
	case !d.OK:
		add("alert-drill-failed", "The restore drill of %s failed: %s", m.when(d.At), d.Error)
	case now.Sub(d.At) > MaxDrillAge:
		add("alert-drill-old", "The last restore drill ran %s ago (%s); it should run every week.", days(now.Sub(d.At)), m.when(d.At))
	}
	return out
}

// alerts raises the backups' problems on the start page of the roles that
// run the appliance, and of no one else.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]view.Alert, error) {
	if !staff.Allowed(who.Role, staff.CapOperations) {
		return nil, nil
	}
	return m.problems(m.status(), m.o.Now()), nil
}

func (m *Module) when(t time.Time) string {
	return t.In(m.o.Location()).Format("Mon Jan 2, 2006 15:04")
}

// days says a duration in days, or hours under two days.
func days(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// showBackupsPage shows the newest backup and the last drill.
func (m *Module) showBackupsPage(w http.ResponseWriter, r *http.Request) {
	st := m.status()
	now := m.o.Now()
	v := pageView{Dir: st.Dir, Problem: st.Problem, Newest: st.Newest, Alerts: m.problems(st, now)}
	if st.Newest != "" {
		v.Taken, v.Age = m.when(st.Taken), days(now.Sub(st.Taken))
	}
	if d := st.Drill; d != nil {
		v.Drill = &drillView{At: m.when(d.At), OK: d.OK, Error: d.Error, Backup: d.Backup, Journal: d.Journal}
		if !d.TakenAt.IsZero() {
			v.Drill.BackupAge = days(d.At.Sub(d.TakenAt))
		}
	}
	m.o.Render(w, r, http.StatusOK, backupsPage(m.o.Frame(r, "Backups"), v))
}

type pageView struct {
	Dir, Problem, Newest, Taken, Age string
	Drill                            *drillView
	Alerts                           []view.Alert
}

type drillView struct {
	At, Error, Backup, BackupAge string
	OK                           bool
	Journal                      uint64
}
