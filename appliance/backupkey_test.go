package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/backup"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/replica"
)

// The confidential things the backup-key tests put in the ledger: a
// staff account (its argon2id hash), and a room tax return (§5.22(8))
// with figures no other record has.
const (
	secretUser    = "ftreasurer"
	secretGross   = "48213.77"
	secretPermit  = "456-8675309-77"
	secretOperLog = "Sandhill Motor Lodge LLC"
)

// confidentialLedger puts a treasurer's account and a filed room tax
// return into m's ledger.
func confidentialLedger(t *testing.T, m *Main) {
	t.Helper()
	if out, code := userCLI(t, m, "add", "--username", secretUser, "--name", "Fran Treasurer", "--role", "treasurer"); code != 0 {
		t.Fatalf("user add: %s", out)
	}
	q, err := domain.ParseQuarter("2026-Q3")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []domain.Payload{
		&domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: "sandhill", LegalName: secretOperLog, SellersPermit: secretPermit,
			Contact: "Dale Sand, 608-555-0199", Establishments: []domain.Establishment{{Name: "Sandhill Motor Lodge", Address: "400 County Rd X"}}},
		&domain.FileRoomTaxReturn{Operator: "sandhill", Period: q, GrossReceipts: domain.MustMoney(secretGross), Signer: "Dale Sand", Capacity: "owner",
			Year: &domain.RoomTaxYear{Basis: domain.YearCalendar, EndMonth: 12}},
	} {
		c, err := m.Node.NewCommand(p.Kind(), secretUser)
		if err != nil {
			t.Fatal(err)
		}
		c.Payload = p
		if _, err := m.Node.Submit(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", p.Kind(), err)
		}
	}
}

// ledgerOf opens a restored data folder's ledger, checks its journal's
// chain, and summarizes it: its state hash, journal length and records.
func ledgerOf(t *testing.T, data string) replica.SnapshotSummary {
	t.Helper()
	fsm, err := replica.OpenFSM(badgerstore.PiOptions(filepath.Join(data, "state")).WithReadOnly(true).WithLogger(badgerstore.NewLogger(slog.New(slog.DiscardHandler))),
		nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer fsm.Close()
	if n, err := fsm.VerifyJournal(); err != nil {
		t.Fatalf("the restored journal does not verify after %d entries: %v", n, err)
	}
	var buf bytes.Buffer
	if err := fsm.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	sum, err := replica.SummarizeSnapshot(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestBackupFileHoldsNoSecretInTheClear: a backup of a ledger holding a
// staff password hash, a username and a room tax return holds none of
// them in its bytes on the drive, though its snapshot does; restored with
// the backup key it gives the same ledger (state hash) as the node's.
func TestBackupFileHoldsNoSecretInTheClear(t *testing.T) {
	m := startMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	confidentialLedger(t, m)
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
	if man.StateHash != hash {
		t.Fatalf("backup of state hash %s, node %s", man.StateHash, hash)
	}
	// What a restore of the node's ledger gives, straight from the node:
	// a restore starts a new cluster, so its applied index is 0 and its
	// state hash is not the node's; the rest must be the same.
	var direct bytes.Buffer
	if err := m.Node.FSM().WriteSnapshot(&direct); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "direct")
	if err := loadSnapshot(want, io.NopCloser(&direct), true); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"$argon2id$", secretUser, secretGross, "48,213.77", secretPermit, secretOperLog, "Water and sewer", "state_hash", hash}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("the backup file holds %q in the clear", s)
		}
	}
	// The snapshot inside does hold them: the test looks for what is there.
	b, err := backup.Open(path, mustKeys(t, m.Config.DataDir)...)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := io.ReadAll(b.Snapshot())
	b.Close()
	for _, s := range secrets[:6] {
		if s != "48,213.77" && !bytes.Contains(snap, []byte(s)) {
			t.Errorf("the ledger's snapshot does not hold %q: the test looks for the wrong text", s)
		}
	}

	// Restored with the key, into a folder of its own: the same ledger.
	target := filepath.Join(t.TempDir(), "restored")
	var out, errOut bytes.Buffer
	if err := restoreCommand([]string{"--data", target, "--in", path, "--identity", backupKeyPath(m.Config.DataDir)}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Fatalf("restore of an encrypted backup warned: %s", errOut.String())
	}
	got, direct2 := ledgerOf(t, target), ledgerOf(t, want)
	if got.StateHash != direct2.StateHash || got.Journal != man.Journal || got.Records != man.Records || got.Applied != 0 {
		t.Fatalf("restored %+v; the node's ledger restored straight %+v; the backup's manifest %+v", got, direct2, man)
	}
}

func mustKeys(t *testing.T, data string) []*age.X25519Identity {
	t.Helper()
	keys, err := readBackupKeys(backupKeyPath(data))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestRestoreRefusesWithoutTheRightKeyAndChangesNothing: a restore
// without the backup key, with another village's key, or of a truncated
// or altered backup fails with one clear sentence, and the target folder
// is as it was.
func TestRestoreRefusesWithoutTheRightKeyAndChangesNothing(t *testing.T) {
	m, path := backupOf(t)
	good, _ := os.ReadFile(path)
	work := t.TempDir()
	wrong := filepath.Join(work, "other-village")
	if err := backupKeyCommand([]string{"rotate", "--data", wrong}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(work, "truncated.vhb")
	os.WriteFile(truncated, good[:len(good)*2/3], 0o600)
	altered := filepath.Join(work, "altered.vhb")
	os.WriteFile(altered, flipByte(good, len(good)/2), 0o600)
	key := backupKeyPath(m.Config.DataDir)

	for _, c := range []struct {
		name, in, identity string
		want               []string
	}{
		{"no key", path, "", []string{"is an encrypted backup; it needs the village's backup key", "--identity FILE"}},
		{"another village's key", path, backupKeyPath(wrong), []string{"does not open", "--identity FILE"}},
		{"a missing key file", path, filepath.Join(work, "absent.key"), []string{"--identity", "no such file"}},
		{"truncated", truncated, key, []string{"damaged", "truncated or was altered"}},
		{"altered", altered, key, []string{"damaged", "truncated or was altered"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(work, "target-"+strings.ReplaceAll(c.name, " ", "-"))
			os.MkdirAll(filepath.Join(target, "pki"), 0o700)
			os.WriteFile(filepath.Join(target, "notes.txt"), []byte("kept"), 0o600)
			before := listing(t, target)
			args := []string{"--data", target, "--in", c.in}
			if c.identity != "" {
				args = append(args, "--identity", c.identity)
			}
			var out bytes.Buffer
			err := restoreCommand(args, &out, io.Discard)
			if err == nil {
				t.Fatal("restored")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Count(strings.TrimSuffix(err.Error(), "."), ". ") > 1 {
				t.Errorf("more than a sentence or two: %q", err)
			}
			if after := listing(t, target); !slices.Equal(after, before) {
				t.Fatalf("a refused restore changed the folder: %v → %v", before, after)
			}
		})
	}
}

// TestBackupKeyOnlyOnClerkAndBackupNodes: init makes the backup key in
// the first node's folder (0600, its public half 0644); the backup node's
// bundle carries it and join installs it; the kiosk's bundle carries none,
// join refuses one given to a kiosk, and init refuses to make the kiosk
// the first node; a refused command leaves nothing behind.
func TestBackupKeyOnlyOnClerkAndBackupNodes(t *testing.T) {
	work := t.TempDir()
	clerk, kiosk, annex := filepath.Join(work, "hall-clerk"), filepath.Join(work, "hall-kiosk"), filepath.Join(work, "annex-backup")
	cli := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		if code != 0 {
			return out.String() + errb.String(), errUsage
		}
		return out.String(), nil
	}
	if out, err := cli("init", "--data", kiosk, "--node-id", "hall-kiosk", "--role", "kiosk", "--peer", "127.0.0.1:9082"); err == nil || !strings.Contains(out, "must not hold the backup key") {
		t.Fatalf("init of a kiosk as the first node: %s", out)
	}
	if _, err := os.Stat(kiosk); !os.IsNotExist(err) {
		t.Fatalf("the refused init left %s: %v", kiosk, err)
	}
	if out, err := cli("init", "--data", clerk, "--node-id", "hall-clerk", "--peer", "127.0.0.1:9081"); err != nil || !strings.Contains(out, "backup key") {
		t.Fatalf("init: %s", out)
	}
	modes := map[string]fs.FileMode{backupKeyPath(clerk): 0o600, backupRecipientPath(clerk): 0o644}
	for p, want := range modes {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: %v, %v (want mode %04o)", p, st, err, want)
		}
	}
	village := mustKeys(t, clerk)[0]

	for _, n := range []struct{ dir, id, role string }{{kiosk, "hall-kiosk", "kiosk"}, {annex, "annex-backup", "backup"}} {
		bundle := filepath.Join(work, n.id+".bundle")
		if out, err := cli("cert", "issue", "--data", clerk, "--node-id", n.id, "--role", n.role, "--out", bundle); err != nil {
			t.Fatalf("cert issue %s: %s", n.id, out)
		}
		_, err := os.Stat(bundle + bundleKeySuffix)
		if (n.role == "kiosk") != os.IsNotExist(err) {
			t.Fatalf("%s's bundle: backup key beside it: %v", n.role, err)
		}
		if out, err := cli("join", "--data", n.dir, "--bundle", bundle, "--leader", "127.0.0.1:9081", "--peer", "127.0.0.1:9083", "--token", "x"); err != nil {
			t.Fatalf("join %s: %s", n.id, out)
		}
	}
	if _, err := os.Stat(backupKeyPath(kiosk)); !os.IsNotExist(err) {
		t.Fatalf("the kiosk holds a backup key: %v", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(kiosk, "pki", "backup*")); len(entries) != 0 {
		t.Fatalf("the kiosk's folder: %v", entries)
	}
	if got := mustKeys(t, annex)[0]; got.String() != village.String() {
		t.Fatalf("the backup node's key %s is not the village's %s", got.Recipient(), village.Recipient())
	}
	if st, _ := os.Stat(backupKeyPath(annex)); st.Mode().Perm() != 0o600 {
		t.Fatalf("the backup node's key has mode %04o", st.Mode().Perm())
	}

	// A backup key handed to a kiosk is refused, and the folder is not made.
	other := filepath.Join(work, "hall-kiosk-2")
	bundle := filepath.Join(work, "hall-kiosk-2.bundle")
	cli("cert", "issue", "--data", clerk, "--node-id", "hall-kiosk-2", "--role", "kiosk", "--out", bundle)
	out, err := cli("join", "--data", other, "--bundle", bundle, "--leader", "127.0.0.1:9081", "--peer", "127.0.0.1:9084", "--token", "x",
		"--backup-key", backupKeyPath(clerk))
	if err == nil || !strings.Contains(out, "must not hold the backup key") {
		t.Fatalf("join of a kiosk with the backup key: %s", out)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("the refused join left %s", other)
	}
	if out, err := cli("backup-key", "rotate", "--data", kiosk); err == nil || !strings.Contains(out, "must not hold the backup key") {
		t.Fatalf("backup-key rotate on the kiosk: %s", out)
	}
}

// TestRestoreOfAPlainBackupOfTheEarlierRelease: a backup written by the
// release before encryption (testdata, made by its own `appliance
// backup`) still restores, without a key, with a warning that it is not
// encrypted; the restored ledger is the one its manifest describes.
func TestRestoreOfAPlainBackupOfTheEarlierRelease(t *testing.T) {
	fixture := filepath.Join("testdata", "backup", "ledger-v1-1427947.vhb")
	b, err := backup.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	want := b.Manifest
	b.Close()
	target := filepath.Join(t.TempDir(), "restored")
	var out, warn bytes.Buffer
	if err := restoreCommand([]string{"--data", target, "--in", fixture}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "not encrypted") || !strings.Contains(warn.String(), "take a new backup") {
		t.Fatalf("restore of a plain backup warned %q", warn.String())
	}
	if got := ledgerOf(t, target); got.Journal != want.Journal || got.Records != want.Records || got.Applied != 0 {
		t.Fatalf("restored %+v; the manifest %+v", got, want)
	}
}

// TestBackupKeyRotation: after `backup-key rotate` the next backup is
// encrypted to the new key and the one before still restores with the
// node's keys (the old one is kept, retired); after the key is lost and a
// new one made, backups work again, and the old backups say the key given
// is not theirs.
func TestBackupKeyRotation(t *testing.T) {
	m, first := backupOf(t)
	data := m.Config.DataDir
	old := mustKeys(t, data)[0]
	var out bytes.Buffer
	if err := backupKeyCommand([]string{"rotate", "--data", data}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	rotated := mustKeys(t, data)
	if len(rotated) != 2 || rotated[0].String() == old.String() || rotated[1].String() != old.String() {
		t.Fatalf("after rotate: %d keys", len(rotated))
	}
	out.Reset()
	if err := backupKeyCommand([]string{"show", "--data", data}, &out, io.Discard); err != nil || !strings.Contains(out.String(), rotated[0].Recipient().String()) ||
		!strings.Contains(out.String(), "retired key") || strings.Contains(out.String(), "AGE-SECRET-KEY") {
		t.Fatalf("show: %q, %v", out.String(), err)
	}
	second := filepath.Join(t.TempDir(), "second.vhb")
	if _, _, err := runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: data, Out: second, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	if h, _ := backup.ReadHeader(second); h.Recipient != rotated[0].Recipient().String() {
		t.Fatalf("the backup after rotate is encrypted to %s", h.Recipient)
	}
	if _, err := restoreBackup(filepath.Join(t.TempDir(), "r1"), first, "", backupKeyPath(data), io.Discard); err != nil {
		t.Fatalf("the backup before the rotation: %v", err)
	}

	// The key is lost: a new one is made; the next backup works, the old
	// backups do not open with it.
	for _, p := range append([]string{backupKeyPath(data), backupRecipientPath(data)}, mustGlob(t, backupKeyPath(data)+retiredKeyInfix+"*")...) {
		os.Remove(p)
	}
	if _, _, err := runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: data, Out: filepath.Join(t.TempDir(), "x.vhb"), Now: time.Now}); err == nil ||
		!strings.Contains(err.Error(), "backup-key rotate") {
		t.Fatalf("a backup without a key: %v", err)
	}
	// The staff start page says so at once, not when the newest backup
	// has grown old (the drive is mounted: a folder on another filesystem
	// than "/proc").
	m.rootFS, m.Config.Backup.Dir = "/proc", t.TempDir()
	if st := m.backupStatus(); !strings.Contains(st.Problem, "no backup key") {
		t.Fatalf("the backups' status without a key: %+v", st)
	}
	if err := run(context.Background(), []string{"backup-key", "rotate", "--data", data}, nil, io.Discard, io.Discard); err != 0 {
		t.Fatalf("rotate after the loss: exit %d", err)
	}
	if _, _, err := runBackup(context.Background(), backupOptions{Node: "https://" + m.StaffAddr(), Data: data, Out: filepath.Join(t.TempDir(), "y.vhb"), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	if _, err := restoreBackup(filepath.Join(t.TempDir(), "r2"), second, "", backupKeyPath(data), io.Discard); err == nil || !strings.Contains(err.Error(), "does not open") {
		t.Fatalf("an old backup with the new key: %v", err)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
