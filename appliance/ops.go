package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/villagehall/appliance/kiosk/staff/backups"
	"github.com/villagehall/appliance/sync/backup"
)

// What the node knows of its backups, for /metrics and the staff start
// page: it reads the backup drive ([backup] dir of its configuration),
// where the nightly backup writes its files and the weekly drill its
// result. An unplugged drive shows as no backup at all, which is what it
// means for the village.

// opsStatus is the state of a node's backups.
type opsStatus struct {
	Dir     string
	Mounted bool   // the backup drive is mounted at Dir
	Problem string // why Dir cannot be read, if it cannot
	Newest  string // the newest backup's name, "" when none
	Taken   time.Time
	Drill   *drillResult // the last drill, nil when none ran
}

// readOps reads the backup drive mounted at dir (rootFS is the node's
// own filesystem, "/", which the drive is not).
func readOps(dir, rootFS string) opsStatus {
	st := opsStatus{Dir: dir}
	if err := checkDrive(dir, rootFS); err != nil {
		st.Problem = err.Error()
		return st
	}
	st.Mounted = true
	names, err := listBackups(dir)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	for _, n := range names {
		if h, err := backup.ReadHeader(filepath.Join(dir, n)); err == nil {
			st.Newest, st.Taken = n, h.TakenAt
			break
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, drillFile)); err == nil {
		var r drillResult
		if json.Unmarshal(b, &r) == nil {
			st.Drill = &r
		}
	}
	return st
}

// opsCollector exports the backups' state.
type opsCollector struct {
	m                               *Main
	age, mounted, drillOK, drillAge *prometheus.Desc
}

func newOpsCollector(m *Main) *opsCollector {
	l := prometheus.Labels{"node": m.Config.NodeID}
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc("appliance_"+name, help, nil, l) }
	return &opsCollector{m: m,
		age:      d("backup_age_seconds", "Age of the newest backup on the backup drive (-1 when there is none, or the drive is not mounted)."),
		mounted:  d("backup_drive_mounted", "1 when the backup drive is mounted at the configured folder."),
		drillOK:  d("backup_drill_ok", "1 when the last restore drill restored and verified the newest backup."),
		drillAge: d("backup_drill_age_seconds", "Seconds since the last restore drill (-1 when none ran)."),
	}
}

func (c *opsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.age, c.mounted, c.drillOK, c.drillAge} {
		ch <- d
	}
}

func (c *opsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.m.ops()
	now := c.m.Config.Now()
	age, drillAge, ok := -1.0, -1.0, 0.0
	if st.Newest != "" {
		age = max(now.Sub(st.Taken).Seconds(), 0)
	}
	if st.Drill != nil {
		drillAge = max(now.Sub(st.Drill.At).Seconds(), 0)
		if st.Drill.OK {
			ok = 1
		}
	}
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
	ch <- prometheus.MustNewConstMetric(c.mounted, prometheus.GaugeValue, flagValue(st.Mounted))
	ch <- prometheus.MustNewConstMetric(c.drillOK, prometheus.GaugeValue, ok)
	ch <- prometheus.MustNewConstMetric(c.drillAge, prometheus.GaugeValue, drillAge)
}

func flagValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ops reads the state of the node's backups.
func (m *Main) ops() opsStatus {
	root := m.rootFS
	if root == "" {
		root = "/"
	}
	st := readOps(m.Config.Backup.Dir, root)
	if st.Problem == "" {
		// Without the key's public half the nightly backup fails; say so
		// now rather than when the newest backup grows old.
		if _, err := readBackupRecipient(m.Config.DataDir); err != nil {
			st.Problem = err.Error()
		}
	}
	return st
}

// backupStatus is the backups' state for the staff pages.
func (m *Main) backupStatus() backups.Status {
	st := m.ops()
	out := backups.Status{Dir: st.Dir, Problem: st.Problem, Newest: st.Newest, Taken: st.Taken}
	if d := st.Drill; d != nil {
		out.Drill = &backups.Drill{At: d.At, OK: d.OK, Error: d.Error, Backup: d.Backup, TakenAt: d.TakenAt, Journal: d.Journal}
	}
	return out
}
