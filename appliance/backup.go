package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/backup"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// Backups that are proven to restore:
//
//   - `appliance backup` (nightly, appliance-backup.timer) asks the running
//     node for a snapshot of its ledger (one read transaction: online and
//     consistent), writes it as a backup file (sync/backup: manifest and
//     checksum, encrypted to the village's backup key, backupkey.go) named
//     by the village's date onto the USB drive, and keeps 14 daily and 12
//     monthly ones. It refuses to write when the drive is not mounted: the
//     folder would be on the node's own SD card, which is what the backup
//     is for losing.
//   - `appliance restore` loads a backup into an empty data folder, after
//     decrypting it with the backup key (--identity, or the folder's own)
//     and checking the whole file and that it is this cluster's; anything
//     wrong and the folder is left as it was. A plain backup of the release
//     before encryption still restores, with a warning.
//   - `appliance drill` (weekly, appliance-drill.timer) restores the newest
//     backup into a scratch folder on the node's own disk (never on the
//     drive: the restored ledger is not encrypted), checks its journal and
//     state hash against the manifest, and records the result and the
//     backup's age in drill.json on the drive, which the node shows on the
//     staff start page and in /metrics.
//   - `appliance verify` checks a stopped node's journal chain, and its
//     state against a fresh replay of its raft log; it reads no backup.

// backupName is the name of a backup taken on the village date d.
func backupName(d domain.Date) string { return "ledger-" + d.String() + ".vhb" }

// backupDate reads the date of a backup's name.
func backupDate(name string) (domain.Date, bool) {
	s, ok := strings.CutPrefix(name, "ledger-")
	if !ok {
		return domain.Date{}, false
	}
	s, ok = strings.CutSuffix(s, ".vhb")
	if !ok {
		return domain.Date{}, false
	}
	d, err := domain.ParseDate(s)
	return d, err == nil
}

// listBackups returns the names of the backups in dir, newest first.
func listBackups(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if _, ok := backupDate(e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// retained returns which of the backups (names, any order) retention
// keeps: the newest keepDaily, and the first backup of each of the newest
// keepMonthly months.
func retained(names []string, keepDaily, keepMonthly int) map[string]bool {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	keep := map[string]bool{}
	for i, n := range sorted {
		if i < keepDaily {
			keep[n] = true
		}
	}
	first := map[string]string{} // YYYY-MM → its earliest backup
	var months []string
	for _, n := range sorted {
		d, _ := backupDate(n)
		m := fmt.Sprintf("%04d-%02d", d.Year(), d.Month())
		if _, ok := first[m]; !ok {
			months = append(months, m)
		}
		first[m] = n // sorted newest first: the last one seen is the earliest
	}
	for i, m := range months {
		if i < keepMonthly {
			keep[first[m]] = true
		}
	}
	return keep
}

// checkDrive refuses a backup folder that is not on a drive of its own:
// one on the same filesystem as rootFS ("/") is a folder on the node's own
// disk, where the mount point of an unplugged drive is left empty.
func checkDrive(dir, rootFS string) error {
	var ds, rs syscall.Stat_t
	if err := syscall.Stat(dir, &ds); err != nil {
		return fmt.Errorf("the backup folder %s is not there (%v): is the USB backup drive plugged in and mounted?", dir, err)
	}
	if err := syscall.Stat(rootFS, &rs); err != nil {
		return err
	}
	if ds.Dev == rs.Dev {
		return fmt.Errorf("the backup drive is not mounted at %s: the folder is on this node's own disk, and a backup there would be lost with it; "+
			"plug the USB backup drive in (it mounts at %s) and run the backup again", dir, dir)
	}
	return nil
}

// clusterOf returns the cluster a data folder belongs to: the fingerprint
// of the village CA certificate in its pki/ folder, or "" when it has none.
func clusterOf(data string) (string, error) {
	b, err := os.ReadFile(filepath.Join(pkiDir(data), pki.CACertFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return "", fmt.Errorf("%s is not a certificate", filepath.Join(pkiDir(data), pki.CACertFile))
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return "", err
	}
	return pki.Fingerprint(cert), nil
}

// backupOptions are what `appliance backup` does.
type backupOptions struct {
	Node, Data string
	Out        string // one file (no retention)
	Dir        string // the backup drive: a dated file, retention
	KeepDaily  int
	KeepMonth  int
	RootFS     string // the node's own filesystem ("/"), which Dir must not be on
	Now        func() time.Time
}

// backupCommand runs `appliance backup`.
func backupCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := commandConfig(args, stderr)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", "", "the node's configuration file (data folder, [backup] section)")
	o := backupOptions{RootFS: "/", Now: time.Now}
	fs.StringVar(&o.Node, "node", "https://127.0.0.1:8443", "the running node's staff address (HTTPS, loopback)")
	fs.StringVar(&o.Data, "data", cfg.DataDir, "the node's data folder (for its operator token and certificate)")
	fs.StringVar(&o.Dir, "dir", cfg.Backup.Dir, "the backup drive's folder: a backup named by today's date, older ones pruned")
	fs.StringVar(&o.Out, "out", "", "write one backup to this file instead (no retention)")
	fs.IntVar(&o.KeepDaily, "keep-daily", cfg.Backup.KeepDaily, "daily backups kept in --dir")
	fs.IntVar(&o.KeepMonth, "keep-monthly", cfg.Backup.KeepMonthly, "monthly backups kept in --dir (the first of each month)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	m, path, err := runBackup(ctx, o)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "backup: %s: node %s, applied index %d, %d journal entries, state hash %s\n", path, m.Node, m.Applied, m.Journal, m.StateHash)
	return nil
}

// runBackup takes one backup.
func runBackup(ctx context.Context, o backupOptions) (backup.Manifest, string, error) {
	path := o.Out
	loc, _ := time.LoadLocation(Village)
	if path == "" {
		if o.KeepDaily < 1 {
			return backup.Manifest{}, "", errors.New("keep at least one daily backup")
		}
		if err := checkDrive(o.Dir, o.RootFS); err != nil {
			return backup.Manifest{}, "", err
		}
		path = filepath.Join(o.Dir, backupName(domain.DateOf(o.Now().In(loc))))
	}
	to, err := readBackupRecipient(o.Data)
	if err != nil {
		return backup.Manifest{}, "", err
	}
	client, tok, err := operatorClient(o.Data)
	if err != nil {
		return backup.Manifest{}, "", err
	}
	ident, err := pki.LoadIdentity(pkiDir(o.Data))
	if err != nil {
		return backup.Manifest{}, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(o.Node, "/")+"/admin/backup", nil)
	if err != nil {
		return backup.Manifest{}, "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	taken := o.Now().UTC()
	resp, err := client.Do(req)
	if err != nil {
		return backup.Manifest{}, "", fmt.Errorf("the node at %s does not answer: %w", o.Node, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return backup.Manifest{}, "", fmt.Errorf("the node answered %s", resp.Status)
	}
	m, err := backup.Write(path, resp.Body, backup.Manifest{Cluster: pki.Fingerprint(ident.CACertificate()), Node: ident.NodeID(), TakenAt: taken, Release: release}, to)
	if err != nil {
		return m, "", err
	}
	if o.Out == "" {
		if err := prune(o.Dir, o.KeepDaily, o.KeepMonth); err != nil {
			return m, path, fmt.Errorf("the backup %s is written, but older ones could not be pruned: %w", path, err)
		}
	}
	return m, path, nil
}

// prune deletes the backups in dir that retention does not keep, and the
// partial files an interrupted backup left.
func prune(dir string, keepDaily, keepMonthly int) error {
	names, err := listBackups(dir)
	if err != nil {
		return err
	}
	keep := retained(names, keepDaily, keepMonthly)
	var errs []error
	for _, n := range names {
		if !keep[n] {
			errs = append(errs, os.Remove(filepath.Join(dir, n)))
		}
	}
	partial, _ := filepath.Glob(filepath.Join(dir, "ledger-*.vhb.partial"))
	for _, p := range partial {
		errs = append(errs, os.Remove(p))
	}
	return errors.Join(errs...)
}

// restoreCommand runs `appliance restore --data DIR --in FILE`: it loads a
// backup into an empty data folder, from which a new cluster starts.
func restoreCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "", "an empty data folder (after `appliance init`, or with no pki/ yet)")
	in := fs.String("in", "", "the backup file")
	from := fs.String("from-cluster", "", "the cluster (CA fingerprint) of a backup that is not the data folder's own, to restore it anyway")
	identity := fs.String("identity", "", "the village's backup key, which opens the backup (default: the data folder's own, pki/"+backupKeyFile+")")
	if err := fs.Parse(args); err != nil || *dir == "" || *in == "" {
		fs.Usage()
		return errUsage
	}
	m, err := restoreBackup(*dir, *in, *from, *identity, stderr)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s into %s: node %s's ledger of %s, %d journal entries, state hash %s; start the node to begin a cluster from it\n",
		*in, *dir, m.Node, m.TakenAt.Format(time.RFC3339), m.Journal, m.StateHash)
	return nil
}

// restoreBackup opens the backup at in with the backup key at identity
// (or dir's own), checks it and loads it into the data folder dir, which
// must hold no ledger. The backup must be of dir's cluster (its CA), or of
// the cluster named by from. Nothing in dir changes unless the whole
// restore succeeds. A plain backup of an earlier release restores with a
// warning on warn.
func restoreBackup(dir, in, from, identity string, warn io.Writer) (backup.Manifest, error) {
	b, err := openBackup(in, identity, dir)
	if err != nil {
		return backup.Manifest{}, err
	}
	defer b.Close()
	m := b.Manifest
	for _, sub := range []string{"raft", "state"} {
		if entries, err := os.ReadDir(filepath.Join(dir, sub)); err == nil && len(entries) > 0 {
			return m, fmt.Errorf("%s already holds a ledger; restore into an empty data folder (stop the node, move the old folder aside)", dir)
		}
	}
	own, err := clusterOf(dir)
	if err != nil {
		return m, err
	}
	switch {
	case from != "" && from != m.Cluster:
		return m, fmt.Errorf("%s is a backup of cluster %s, not of %s as --from-cluster says", in, m.Cluster, from)
	case own != "" && own != m.Cluster && from == "":
		return m, fmt.Errorf("%s is a backup of another cluster (CA %s) than %s's (CA %s): refusing to mix two villages' ledgers. "+
			"If this is your village's backup and its CA was made anew, restore it with --from-cluster %s", in, m.Cluster, dir, own, m.Cluster)
	}
	if err := loadSnapshot(dir, b.Snapshot(), true); err != nil {
		return m, err
	}
	if !b.Header.Encrypted() {
		fmt.Fprintf(warn, "warning: %s is a backup of an earlier release, not encrypted: whoever holds the drive can read it. "+
			"Once the node runs, take a new backup (it is encrypted) and delete the plain ones from the drive (docs/backups.md)\n", in)
	}
	note, _ := json.MarshalIndent(m, "", "  ")
	return m, os.WriteFile(filepath.Join(dir, restoredFile), append(note, '\n'), 0o640)
}

// restoredFile records, in a data folder, the backup it was restored from.
const restoredFile = "restored-from.json"

// loadSnapshot restores a snapshot into dir/state by way of a scratch
// folder beside it, renamed into place only when the restore is whole;
// reset sets the applied index to 0 (a new cluster's log starts at 1).
func loadSnapshot(dir string, snap io.ReadCloser, reset bool) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(dir, "state.restoring-")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(scratch)
			os.Remove(filepath.Clean(scratch) + ".restoring")
		}
	}()
	fsm, err := replica.OpenFSM(badgerstore.PiOptions(scratch).WithLogger(badgerstore.NewLogger(slog.New(slog.DiscardHandler))), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	err = fsm.Restore(snap)
	if err == nil && reset {
		err = fsm.ResetApplied()
	}
	if err == nil && reset {
		err = bindRestored(dir, fsm)
	}
	if err = errors.Join(err, fsm.Close()); err != nil {
		return err
	}
	if err := os.Rename(scratch, filepath.Join(dir, "state")); err != nil {
		return err
	}
	done = true
	return nil
}

// drillResult is what the restore drill found, kept in drill.json on the
// backup drive.
type drillResult struct {
	At        time.Time `json:"at"`
	OK        bool      `json:"ok"`
	Error     string    `json:"error,omitempty"`
	Backup    string    `json:"backup,omitempty"`
	TakenAt   time.Time `json:"taken_at,omitzero"`
	Journal   uint64    `json:"journal_entries,omitempty"`
	Applied   uint64    `json:"applied_index,omitempty"`
	StateHash string    `json:"state_hash,omitempty"`
}

// drillFile is the drill's result on the backup drive.
const drillFile = "drill.json"

// drillCommand runs `appliance drill`: the weekly restore drill.
func drillCommand(args []string, stdout, stderr io.Writer) error {
	cfg, err := commandConfig(args, stderr)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("drill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", "", "the node's configuration file (data folder, [backup] section)")
	data := fs.String("data", cfg.DataDir, "the node's data folder (for its cluster's CA)")
	dir := fs.String("dir", cfg.Backup.Dir, "the backup drive's folder")
	scratch := fs.String("scratch", "", "where to restore (default: a temporary folder on this node's own disk, removed afterwards; never the drive)")
	identity := fs.String("identity", "", "the village's backup key (default: the data folder's own, pki/"+backupKeyFile+")")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	r := runDrill(*data, *dir, *scratch, *identity, time.Now())
	if err := writeDrill(*dir, r); err != nil {
		fmt.Fprintf(stderr, "appliance drill: could not record the result in %s: %v\n", *dir, err)
	}
	if !r.OK {
		return fmt.Errorf("restore drill failed: %s", r.Error)
	}
	fmt.Fprintf(stdout, "restore drill: %s (taken %s, %s old) restored and verified: %d journal entries, applied index %d, state hash %s\n",
		r.Backup, r.TakenAt.Format(time.RFC3339), r.At.Sub(r.TakenAt).Round(time.Minute), r.Journal, r.Applied, r.StateHash)
	return nil
}

// runDrill restores the newest backup in dir into a scratch folder and
// checks it: the file (opened with the backup key at identity, or data's
// own), its cluster (data's CA), the restored journal's chain and length,
// and the restored state's hash against the manifest. The default scratch
// folder is on this node's own disk: the restored ledger is in the clear
// and must not be written to the drive.
func runDrill(data, dir, scratch, identity string, now time.Time) drillResult {
	r := drillResult{At: now.UTC()}
	fail := func(format string, args ...any) drillResult {
		r.Error = fmt.Sprintf(format, args...)
		return r
	}
	names, err := listBackups(dir)
	if err != nil {
		return fail("the backup folder cannot be read: %v", err)
	}
	if len(names) == 0 {
		return fail("there is no backup in %s", dir)
	}
	r.Backup = names[0]
	b, err := openBackup(filepath.Join(dir, names[0]), identity, data)
	if err != nil {
		return fail("%v", err)
	}
	defer b.Close()
	m := b.Manifest
	r.TakenAt = m.TakenAt
	own, err := clusterOf(data)
	if err != nil {
		return fail("this node's CA cannot be read: %v", err)
	}
	if own != m.Cluster {
		return fail("%s is a backup of another cluster (CA %s), not this node's (CA %s)", names[0], m.Cluster, own)
	}
	if scratch == "" {
		if scratch, err = os.MkdirTemp("", "appliance-drill-"); err != nil {
			return fail("no scratch folder for the restore: %v", err)
		}
	}
	os.RemoveAll(scratch)
	defer os.RemoveAll(scratch)
	if err := loadSnapshot(scratch, b.Snapshot(), false); err != nil {
		return fail("the backup did not restore: %v", err)
	}
	fsm, err := replica.OpenFSM(badgerstore.PiOptions(filepath.Join(scratch, "state")).WithReadOnly(true).WithLogger(badgerstore.NewLogger(slog.New(slog.DiscardHandler))), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return fail("the restored ledger does not open: %v", err)
	}
	defer fsm.Close()
	n, err := fsm.VerifyJournal()
	if err != nil {
		return fail("the restored journal does not verify after %d entries: %v", n, err)
	}
	hash, err := fsm.StateHash()
	if err != nil {
		return fail("the restored ledger cannot be read: %v", err)
	}
	if hash != m.StateHash || uint64(n) != m.Journal || fsm.Applied() != m.Applied {
		return fail("the restored ledger (state hash %s, %d journal entries, applied index %d) is not the one backed up (%s, %d, %d)",
			hash, n, fsm.Applied(), m.StateHash, m.Journal, m.Applied)
	}
	r.OK, r.Journal, r.Applied, r.StateHash = true, m.Journal, m.Applied, hash
	return r
}

// writeDrill records a drill's result in dir, atomically.
func writeDrill(dir string, r drillResult) error {
	b, _ := json.MarshalIndent(r, "", "  ")
	tmp := filepath.Join(dir, drillFile+".partial")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o640); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, drillFile))
}

// verifyCommand runs `appliance verify --data DIR`: it checks the journal's
// hash chain of a stopped node's ledger, then replays the node's raft log
// into a scratch ledger and compares the two states; `appliance verify
// --extract FILE` checks an auditors' extract instead (extract.go).
func verifyCommand(args []string, stdout, stderr io.Writer) error {
	cfg, err := commandConfig(args, stderr)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", "", "the node's configuration file (its data folder and parameter file)")
	dir := fs.String("data", cfg.DataDir, "the node's data folder (the node stopped)")
	paramsFile := fs.String("params", cfg.ParamsFile, "the parameter file the node was started with, if any")
	extract := fs.String("extract", "", "an auditors' extract (zip) to verify instead of a data folder")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *extract != "" {
		return verifyExtract(*extract, stdout)
	}
	params, err := loadParams(*paramsFile)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := badgerstore.PiOptions(filepath.Join(*dir, "state")).WithReadOnly(true).WithLogger(badgerstore.NewLogger(logger))
	fsm, err := replica.OpenFSM(opts, params, logger)
	if err != nil {
		return err
	}
	n, err := fsm.VerifyJournal()
	if err != nil {
		fsm.Close()
		return fmt.Errorf("journal does not verify after %d entries: %w", n, err)
	}
	hash, err := fsm.StateHash()
	applied := fsm.Applied()
	fsm.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "journal: %d entries verified; applied index %d; state hash %s\n", n, applied, hash)

	scratch, err := os.MkdirTemp("", "appliance-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	// The node checks its entries' signatures against its village CA;
	// the replay does the same, or it would not reach the same ledger.
	id, err := pki.LoadIdentity(pkiDir(*dir))
	if err != nil {
		id = nil // a node alone before certificates: its entries are unsigned
	}
	rep, err := replica.Replay(*dir, scratch, applied, params, id, logger)
	switch {
	case errors.Is(err, replica.ErrNoReplay):
		why := err.Error()
		if _, serr := os.Stat(filepath.Join(*dir, restoredFile)); serr == nil {
			why = "the ledger was restored from a backup (" + restoredFile + ") and its log starts after it"
		}
		fmt.Fprintf(stdout, "replay: not possible (%s); the journal and state hash above are what can be checked\n", why)
		return nil
	case err != nil:
		return fmt.Errorf("replay of the raft log: %w", err)
	case rep.StateHash != hash:
		return fmt.Errorf("the ledger on disk (state hash %s) is not what its raft log gives (replayed to index %d from %s: %s): this node's ledger is damaged; rebuild it from the cluster (docs/operating.md, Rebuilding a node)",
			hash, rep.To, replayBase(rep), rep.StateHash)
	}
	fmt.Fprintf(stdout, "replay: %d log entries from %s to index %d give the same state hash\n", rep.Entries, replayBase(rep), rep.To)
	return nil
}

func replayBase(r replica.Replayed) string {
	if r.From == 0 {
		return "an empty ledger"
	}
	return fmt.Sprintf("the snapshot at index %d", r.From)
}

// commandConfig reads the configuration file named by --config in args,
// if any, for the commands that run beside the node (backup, drill,
// verify): their defaults come from the node's own file.
func commandConfig(args []string, stderr io.Writer) (Config, error) {
	c := NewMain().Config
	path := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			path = v
		} else if (a == "--config" || a == "-config") && i+1 < len(args) {
			path = args[i+1]
		}
	}
	if path == "" {
		return c, nil
	}
	fc, err := readConfigFile(path, fileConfigOf(c))
	if err != nil {
		return c, err
	}
	return c, fc.apply(&c)
}
