package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/backup"
	"github.com/villagehall/appliance/sync/pki"
)

// backupOf runs a node with demo data, makes its backup key and writes a
// backup of it into a fresh folder that stands for the USB drive (/proc
// is the "root filesystem" it must not share). It returns the node
// (running) and the backup's path.
func backupOf(t *testing.T) (*Main, string) {
	t.Helper()
	m := startMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	if err := backupKeyCommand([]string{"rotate", "--data", m.Config.DataDir}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	drive := t.TempDir()
	man, path, err := runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: m.Config.DataDir,
		Dir: drive, KeepDaily: 14, KeepMonth: 12, RootFS: "/proc", Now: func() time.Time { return villageNow }})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := m.Node.FSM().StateHash()
	own, _ := clusterOf(m.Config.DataDir)
	if man.StateHash != hash || man.Cluster != own || man.Node != "hall-kiosk" || filepath.Base(path) != "ledger-"+domain.DateOf(villageNow).String()+".vhb" {
		t.Fatalf("backup %s: %+v; node state hash %s, cluster %s", path, man, hash, own)
	}
	return m, path
}

// listing returns every file under dir with its size, to show that a
// refused restore changed nothing.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			info, _ := d.Info()
			out = append(out, fmt.Sprintf("%s %s %d", strings.TrimPrefix(p, dir), info.Mode(), info.Size()))
		}
		return nil
	})
	return out
}

// TestBackupRefusesTheNodesOwnDisk: with the drive not mounted the backup
// folder is on the node's own filesystem, and the backup is refused with a
// clear error, writing nothing.
func TestBackupRefusesTheNodesOwnDisk(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	drive := t.TempDir()
	_, _, err := runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: m.Config.DataDir,
		Dir: drive, KeepDaily: 14, KeepMonth: 12, RootFS: drive, Now: time.Now})
	if err == nil || !strings.Contains(err.Error(), "backup drive is not mounted") {
		t.Fatalf("backup onto the node's own disk: %v", err)
	}
	if entries, _ := os.ReadDir(drive); len(entries) != 0 {
		t.Fatalf("the refused backup wrote %v", entries)
	}
	_, _, err = runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: m.Config.DataDir,
		Dir: filepath.Join(drive, "absent"), KeepDaily: 14, RootFS: "/proc", Now: time.Now})
	if err == nil || !strings.Contains(err.Error(), "plugged in") {
		t.Fatalf("backup into a missing folder: %v", err)
	}
}

// TestRetentionKeeps14DailyAnd12Monthly: two years of nightly backups
// leave the newest 14 and the first of each of the newest 12 months.
func TestRetentionKeeps14DailyAnd12Monthly(t *testing.T) {
	var names []string
	d := domain.MustDate("2025-01-01")
	for range 730 {
		names = append(names, backupName(d))
		d = d.AddDays(1)
	}
	keep := retained(names, 14, 12)
	var kept []string
	for n := range keep {
		kept = append(kept, n)
	}
	slices.Sort(kept)
	want := []string{
		"ledger-2026-01-01.vhb", "ledger-2026-02-01.vhb", "ledger-2026-03-01.vhb", "ledger-2026-04-01.vhb", "ledger-2026-05-01.vhb",
		"ledger-2026-06-01.vhb", "ledger-2026-07-01.vhb", "ledger-2026-08-01.vhb", "ledger-2026-09-01.vhb", "ledger-2026-10-01.vhb",
		"ledger-2026-11-01.vhb", "ledger-2026-12-01.vhb",
		"ledger-2026-12-18.vhb", "ledger-2026-12-19.vhb", "ledger-2026-12-20.vhb", "ledger-2026-12-21.vhb", "ledger-2026-12-22.vhb",
		"ledger-2026-12-23.vhb", "ledger-2026-12-24.vhb", "ledger-2026-12-25.vhb", "ledger-2026-12-26.vhb", "ledger-2026-12-27.vhb",
		"ledger-2026-12-28.vhb", "ledger-2026-12-29.vhb", "ledger-2026-12-30.vhb", "ledger-2026-12-31.vhb",
	}
	if !slices.Equal(kept, want) {
		t.Fatalf("kept %d: %v", len(kept), kept)
	}

	// prune removes what retention does not keep, and partial files.
	dir := t.TempDir()
	for _, n := range names[:40] {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "ledger-2025-02-10.vhb.partial"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600)
	if err := prune(dir, 3, 2); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	var got []string
	for _, e := range left {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, []string{"ledger-2025-01-01.vhb", "ledger-2025-02-01.vhb", "ledger-2025-02-07.vhb", "ledger-2025-02-08.vhb", "ledger-2025-02-09.vhb", "notes.txt"}) {
		t.Fatalf("after prune: %v", got)
	}
}

// TestRestoreChecksTheBackupAndLeavesTheTargetAlone: a backup of this
// cluster restores into an empty folder and the node starts on it with
// the same ledger; a truncated or corrupted backup, another cluster's, or
// a folder that holds a ledger are refused with a clear error and the
// folder is as it was.
func TestRestoreChecksTheBackupAndLeavesTheTargetAlone(t *testing.T) {
	m, path := backupOf(t)
	good, _ := os.ReadFile(path)
	work := t.TempDir()

	// Another village's cluster: a folder made by its own `init`.
	foreign := filepath.Join(work, "foreign")
	ca, err := pki.NewCA("Village of Elsewhere", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := pki.SaveCA(pkiDir(foreign), ca); err != nil {
		t.Fatal(err)
	}
	before := listing(t, foreign)
	key := backupKeyPath(m.Config.DataDir)
	_, err = restoreBackup(foreign, path, "", key, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "another cluster") || !strings.Contains(err.Error(), "--from-cluster") {
		t.Fatalf("restore of another cluster's backup: %v", err)
	}
	if !slices.Equal(listing(t, foreign), before) {
		t.Fatalf("a refused restore changed the folder: %v → %v", before, listing(t, foreign))
	}

	for name, body := range map[string][]byte{"truncated": good[:len(good)*2/3], "corrupted": flipByte(good, len(good)/2)} {
		bad := filepath.Join(work, name+".vhb")
		os.WriteFile(bad, body, 0o600)
		target := filepath.Join(work, "target-"+name)
		os.MkdirAll(target, 0o750)
		_, err := restoreBackup(target, bad, "", key, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("restore of a %s backup: %v", name, err)
		}
		if entries, _ := os.ReadDir(target); len(entries) != 0 {
			t.Fatalf("a refused %s restore left %v", name, entries)
		}
	}

	// The node's own folder holds a ledger.
	if _, err := restoreBackup(m.Config.DataDir, path, "", "", io.Discard); err == nil || !strings.Contains(err.Error(), "already holds a ledger") {
		t.Fatalf("restore over a ledger: %v", err)
	}

	// An empty folder of this cluster: restored; the ledger is the node's.
	target := filepath.Join(work, "restored")
	if err := os.MkdirAll(pkiDir(target), 0o750); err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(filepath.Join(pkiDir(m.Config.DataDir), pki.CACertFile))
	os.WriteFile(filepath.Join(pkiDir(target), pki.CACertFile), caPEM, 0o644)
	var out bytes.Buffer
	if err := restoreCommand([]string{"--data", target, "--in", path, "--identity", key}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "restored") {
		t.Fatalf("restore said %q", out.String())
	}
	bf, err := backup.Open(path, mustKeys(t, m.Config.DataDir)...)
	if err != nil {
		t.Fatal(err)
	}
	b := bf.Manifest
	bf.Close()
	var v bytes.Buffer
	if err := verifyCommand([]string{"--data", target}, &v, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.String(), "journal: "+strconv.FormatUint(b.Journal, 10)+" entries verified; applied index 0") || !strings.Contains(v.String(), "restored from a backup") {
		t.Fatalf("verify of the restored folder: %q", v.String())
	}
	if entries, _ := filepath.Glob(filepath.Join(target, "state.restoring*")); len(entries) != 0 {
		t.Fatalf("the restore left its scratch: %v", entries)
	}
}

func flipByte(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0xff
	return c
}

// TestRestoreDrill: the drill restores the newest backup, verifies it and
// records its age in drill.json; a damaged newest backup or another
// cluster's fails the drill with the reason, recorded too.
func TestRestoreDrill(t *testing.T) {
	m, path := backupOf(t)
	drive := filepath.Dir(path)
	now := villageNow.Add(26 * time.Hour)
	r := runDrill(m.Config.DataDir, drive, "", "", now)
	if !r.OK || r.Backup != filepath.Base(path) || r.Journal == 0 || now.Sub(r.TakenAt) < 26*time.Hour-time.Minute {
		t.Fatalf("drill: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(drive, "drill-scratch")); !os.IsNotExist(err) {
		t.Fatalf("the drill left its scratch folder: %v", err)
	}
	var out bytes.Buffer
	if err := drillCommand([]string{"--data", m.Config.DataDir, "--dir", drive}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	st := readOps(drive, "/proc")
	if st.Drill == nil || !st.Drill.OK || st.Newest != filepath.Base(path) {
		t.Fatalf("after the drill: %+v", st)
	}
	// The restored ledger is in the clear: it was never on the drive.
	if entries, _ := os.ReadDir(drive); len(entries) != 2 {
		t.Fatalf("the drive after the drill holds %v", entries)
	}

	// A node without the backup key: the drill says which flag to give.
	if r := runDrill(t.TempDir(), drive, "", "", now); r.OK || !strings.Contains(r.Error, "needs the village's backup key") || !strings.Contains(r.Error, "--identity") {
		t.Fatalf("drill without the key: %+v", r)
	}

	// Another cluster's data folder.
	other := t.TempDir()
	ca, _ := pki.NewCA("Village of Elsewhere", time.Now())
	pki.SaveCA(pkiDir(other), ca)
	if r := runDrill(other, drive, "", backupKeyPath(m.Config.DataDir), now); r.OK || !strings.Contains(r.Error, "another cluster") {
		t.Fatalf("drill against another cluster: %+v", r)
	}

	// A newer backup that is damaged: the drill fails and says so, even
	// though an older one would restore.
	good, _ := os.ReadFile(path)
	newer := filepath.Join(drive, backupName(domain.DateOf(villageNow).AddDays(1)))
	os.WriteFile(newer, good[:len(good)-100], 0o600)
	err := drillCommand([]string{"--data", m.Config.DataDir, "--dir", drive}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("drill of a damaged backup: %v", err)
	}
	if st := readOps(drive, "/proc"); st.Drill == nil || st.Drill.OK || !strings.Contains(st.Drill.Error, "truncated") {
		t.Fatalf("the failed drill's record: %+v", st.Drill)
	}
}

// TestVerifyReplaysTheLog: a stopped node's verify checks its journal and
// compares its state with a replay of its raft log.
func TestVerifyReplaysTheLog(t *testing.T) {
	m := startMain(t, t.TempDir())
	hash, _ := m.Node.FSM().StateHash()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := verifyCommand([]string{"--data", m.Config.DataDir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "state hash "+hash) || !strings.Contains(out.String(), "from an empty ledger") || !strings.Contains(out.String(), "give the same state hash") {
		t.Fatalf("verify: %q", out.String())
	}
}
