package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/replica"
)

// showBackup streams a snapshot of the ledger, which holds every staff
// password hash and token hash: only on the HTTPS staff listener, with the
// operator token, and only to a client on the same machine (the nightly
// backup job runs there).
func (m *Main) showBackup(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		http.Error(w, "backups are served over loopback only", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if err := m.Node.FSM().WriteSnapshot(w); err != nil {
		m.Config.Logger.Error("backup", "err", err)
	}
}

// backupCommand runs `appliance backup --node URL --out FILE`.
func backupCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	node := fs.String("node", "https://127.0.0.1:8443", "the running node's staff address (HTTPS, loopback)")
	data := fs.String("data", "data", "the node's data folder (for its operator token and certificate)")
	out := fs.String("out", "", "file to write")
	if err := fs.Parse(args); err != nil || *out == "" {
		fs.Usage()
		return errUsage
	}
	client, tok, err := operatorClient(*data)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*node, "/")+"/admin/backup", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("backup: node answered %s", resp.Status)
	}
	tmp := *out + ".partial"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	_, err = io.Copy(f, resp.Body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = replica.CheckSnapshotFile(tmp)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return os.Rename(tmp, *out)
}

// restoreCommand runs `appliance restore --data DIR --in FILE`: it loads a
// backup into an empty data folder, from which a new cluster starts.
func restoreCommand(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "", "an empty data folder")
	in := fs.String("in", "", "the backup file")
	if err := fs.Parse(args); err != nil || *dir == "" || *in == "" {
		fs.Usage()
		return errUsage
	}
	for _, sub := range []string{"raft", "state"} {
		if entries, err := os.ReadDir(filepath.Join(*dir, sub)); err == nil && len(entries) > 0 {
			return fmt.Errorf("restore: %s already holds a ledger; restore into an empty data folder (stop the node, move the old folder aside)", *dir)
		}
	}
	if err := replica.CheckSnapshotFile(*in); err != nil {
		return fmt.Errorf("restore: %s: %w", *in, err)
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	fsm, err := replica.OpenFSM(badgerstore.PiOptions(filepath.Join(*dir, "state")), nil, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	err = fsm.Restore(f)
	if err == nil {
		err = fsm.ResetApplied()
	}
	return errors.Join(err, fsm.Close())
}

// verifyCommand runs `appliance verify --data DIR`: it checks the journal's
// hash chain of a stopped node's ledger; `appliance verify --extract FILE`
// checks an auditors' extract (extract.go).
func verifyCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "data", "the node's data folder (the node stopped)")
	extract := fs.String("extract", "", "an auditors' extract (zip) to verify instead of a data folder")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *extract != "" {
		return verifyExtract(*extract, stdout)
	}
	opts := badgerstore.PiOptions(filepath.Join(*dir, "state"))
	opts.ReadOnly = true
	fsm, err := replica.OpenFSM(opts, nil, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	defer fsm.Close()
	n, err := fsm.VerifyJournal()
	if err != nil {
		return fmt.Errorf("journal does not verify after %d entries: %w", n, err)
	}
	hash, err := fsm.StateHash()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "journal: %d entries verified; applied index %d; state hash %s\n", n, fsm.Applied(), hash)
	return nil
}
