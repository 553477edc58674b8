package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/villagehall/appliance/sync/backup"
	"github.com/villagehall/appliance/sync/pki"
)

// The village's backup key is an age X25519 key pair. Backups are
// encrypted to its public half (the recipient) and open only with its
// secret half (the identity), which is never on the backup drive: whoever
// finds or takes a drive holds nothing readable. docs/backups.md is the
// operator's guide.
//
// Where it lives, in the data folder of each node that takes or restores
// backups (the clerk's node and the backup node; never the kiosk, which
// stands in a public hallway and takes no backups):
//
//	pki/backup.key                  the identity, mode 0600 (age's key file format)
//	pki/backup.pub                  the recipient, mode 0644
//	pki/backup.key.retired-<time>   keys replaced by `backup-key rotate`, kept
//	                                so the backups made with them still open
//
// `appliance init` makes it on the first node; `appliance cert issue`
// for a clerk or backup node writes a copy beside the bundle
// (BUNDLE.backup-key), which `appliance join` installs; `appliance
// backup-key` shows, rotates and installs it.

const (
	backupKeyFile       = "backup.key"
	backupRecipientFile = "backup.pub"
	retiredKeyInfix     = ".retired-"
	// bundleKeySuffix names the copy of the backup key that `cert issue`
	// writes beside a clerk's or backup node's bundle.
	bundleKeySuffix = ".backup-key"
)

// backupKeyPath is where a data folder's backup key (identity) is.
func backupKeyPath(data string) string { return filepath.Join(pkiDir(data), backupKeyFile) }

// backupRecipientPath is where a data folder's backup recipient is.
func backupRecipientPath(data string) string {
	return filepath.Join(pkiDir(data), backupRecipientFile)
}

// holdsBackupKey says whether a node of the role takes and restores
// backups, and so holds the backup key.
func holdsBackupKey(role string) bool { return role == pki.RoleClerk || role == pki.RoleBackup }

// errKioskKey is why a kiosk never holds the backup key.
var errKioskKey = errors.New("the kiosk stands in a public hallway and takes no backups: it must not hold the backup key, which opens every backup")

// encodeBackupKey is the key file's text: comments for whoever finds it,
// then the identity; age's own tool reads it too.
func encodeBackupKey(id *age.X25519Identity, made time.Time) []byte {
	return fmt.Appendf(nil, "# The village's backup key: it opens the ledger backups (appliance backup).\n"+
		"# Keep a copy apart from the nodes and the backup drives; without it the backups cannot be read.\n"+
		"# See docs/backups.md.\n# created: %s\n# public key: %s\n%s\n",
		made.UTC().Format(time.RFC3339), id.Recipient(), id)
}

// writeBackupKey writes id into the data folder as its backup key (mode
// 0600) and recipient (0644). An existing key that is not id is retired
// first (renamed beside it), never overwritten: the backups made with it
// need it.
func writeBackupKey(data string, id *age.X25519Identity, now time.Time) error {
	dir := pkiDir(data)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	path := backupKeyPath(data)
	if old, err := readBackupKey(path); err == nil {
		if old.String() == id.String() {
			return writeRecipient(data, id.Recipient())
		}
		retired := path + retiredKeyInfix + now.UTC().Format("20060102T150405Z")
		if err := os.Rename(path, retired); err != nil {
			return fmt.Errorf("retire the old backup key: %w", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the backup key already at %s does not read (%w); move it aside yourself if it is no longer needed", path, err)
	}
	if err := writeAtomic(path, encodeBackupKey(id, now), 0o600); err != nil {
		return fmt.Errorf("write the backup key: %w", err)
	}
	return writeRecipient(data, id.Recipient())
}

func writeRecipient(data string, r *age.X25519Recipient) error {
	body := fmt.Appendf(nil, "# The public half of the village's backup key: backups are encrypted to it.\n%s\n", r)
	if err := writeAtomic(backupRecipientPath(data), body, 0o644); err != nil {
		return fmt.Errorf("write the backup key's public half: %w", err)
	}
	return nil
}

// writeAtomic writes data to path with mode perm from the start: a
// temporary file beside it, synced, renamed over it.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// readBackupKey reads one backup key file: exactly one X25519 identity.
// The error of a missing file wraps fs.ErrNotExist.
func readBackupKey(path string) (*age.X25519Identity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids, err := age.ParseIdentities(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s is not a backup key: %w", path, err)
	}
	id, ok := ids[0].(*age.X25519Identity)
	if len(ids) != 1 || !ok {
		return nil, fmt.Errorf("%s is not a backup key: it should hold one age X25519 key (AGE-SECRET-KEY-1…)", path)
	}
	return id, nil
}

// readBackupKeys reads the backup key at path and the keys retired beside
// it, newest first: a backup made before a rotation opens too.
func readBackupKeys(path string) ([]*age.X25519Identity, error) {
	id, err := readBackupKey(path)
	if err != nil {
		return nil, err
	}
	keys := []*age.X25519Identity{id}
	retired, _ := filepath.Glob(path + retiredKeyInfix + "*")
	slices.Sort(retired)
	slices.Reverse(retired)
	for _, p := range retired {
		if k, err := readBackupKey(p); err == nil {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// readBackupRecipient reads the recipient that a data folder's backups
// are encrypted to: pki/backup.pub, or the public half of pki/backup.key.
func readBackupRecipient(data string) (*age.X25519Recipient, error) {
	b, err := os.ReadFile(backupRecipientPath(data))
	if errors.Is(err, fs.ErrNotExist) {
		id, kerr := readBackupKey(backupKeyPath(data))
		if errors.Is(kerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("this node has no backup key (%s is not there), and backups are encrypted to it: "+
				"make the village's key with `appliance backup-key rotate --data %s` on the clerk's node, or install the clerk's with "+
				"`appliance backup-key install --data %s --in FILE` on the backup node (docs/backups.md)", backupRecipientPath(data), data, data)
		}
		if kerr != nil {
			return nil, kerr
		}
		return id.Recipient(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the backup key's public half: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := age.ParseX25519Recipient(line)
		if err != nil {
			return nil, fmt.Errorf("%s is not a backup key's public half (age1…): %w", backupRecipientPath(data), err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("%s holds no public key (age1…)", backupRecipientPath(data))
}

// keysForOpening reads the backup keys a restore or a drill opens backups
// with: the file given, or else the data folder's own key (none, when it
// has none: a plain backup of an earlier release needs none). It returns
// the path it read, for the messages.
func keysForOpening(identity, data string) ([]*age.X25519Identity, string, error) {
	if identity != "" {
		keys, err := readBackupKeys(identity)
		if err != nil {
			return nil, identity, fmt.Errorf("read the backup key given with --identity: %w", err)
		}
		return keys, identity, nil
	}
	path := backupKeyPath(data)
	keys, err := readBackupKeys(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("read this node's backup key: %w", err)
	}
	return keys, path, nil
}

// openBackup opens the backup at in with the keys of keysForOpening and
// turns a missing or wrong key into one sentence that says which flag to
// give.
func openBackup(in, identity, data string) (*backup.File, error) {
	keys, path, err := keysForOpening(identity, data)
	if err != nil {
		return nil, err
	}
	b, err := backup.Open(in, keys...)
	switch {
	case errors.Is(err, backup.ErrNoKey):
		return nil, fmt.Errorf("%s is an encrypted backup; it needs the village's backup key, which is not at %s: "+
			"give the key's file with --identity FILE (the copy kept apart from the nodes; docs/backups.md)", in, path)
	case errors.Is(err, backup.ErrWrongKey):
		h, _ := backup.ReadHeader(in)
		return nil, fmt.Errorf("the backup key %s (public half %s) does not open %s, which was encrypted to the key whose public half is %s: "+
			"give the key that was in use when the backup was taken with --identity FILE (docs/backups.md)", path, keys[0].Recipient(), in, h.Recipient)
	}
	return b, err
}

// initBackupKey makes the village's backup key in the data folder of the
// first node (`appliance init`), before the CA: the first node is the one
// that issues the other nodes' bundles, which carry the key to the backup
// node, so a kiosk cannot be it. A key already there (an init that
// stopped half-way) is kept.
func initBackupKey(data, role string, stdout io.Writer) error {
	if !holdsBackupKey(role) {
		return fmt.Errorf("init makes the village CA and the backup key on the first node, which must be the clerk's node or the backup node (--role clerk or backup); %w. "+
			"Give the kiosk a bundle with `appliance cert issue --role kiosk` instead", errKioskKey)
	}
	if _, err := readBackupKey(backupKeyPath(data)); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return fmt.Errorf("make the backup key: %w", err)
	}
	if err := writeBackupKey(data, id, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "made the village's backup key %s (public half %s): backups are encrypted to it and cannot be read without it; "+
		"keep a copy apart from the nodes and the drives now (docs/backups.md)\n", backupKeyPath(data), id.Recipient())
	return nil
}

// issueBackupKey writes, beside the bundle of a clerk's or backup node
// (`appliance cert issue`), a copy of the backup key for `appliance join`
// to install. A kiosk's bundle gets none.
func issueBackupKey(data, role, bundle string, stdout io.Writer) error {
	if !holdsBackupKey(role) {
		return nil
	}
	id, err := readBackupKey(backupKeyPath(data))
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "this node has no backup key to give the new node (%s); make one with `appliance backup-key rotate`, then install it there with `appliance backup-key install`\n", backupKeyPath(data))
		return nil
	}
	if err != nil {
		return err
	}
	out := bundle + bundleKeySuffix
	if err := writeAtomic(out, encodeBackupKey(id, time.Now()), 0o600); err != nil {
		return fmt.Errorf("write the backup key beside the bundle: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s, the village's backup key, for the node's backups; carry it with the bundle and delete both after joining\n", out)
	return nil
}

// joinBackupKey adds --backup-key to join's flags and returns the step
// that installs the key into the joining node's data folder: the file
// given, or the one `cert issue` wrote beside the bundle. A kiosk refuses
// it; a clerk's or backup node without one is told how to get it.
func joinBackupKey(fs *flag.FlagSet) func(data, role, bundle string, stdout io.Writer) error {
	file := fs.String("backup-key", "", "the village's backup key for a clerk or backup node (default: BUNDLE"+bundleKeySuffix+" if there)")
	return func(data, role, bundle string, stdout io.Writer) error {
		path := *file
		if path == "" {
			if _, err := os.Stat(bundle + bundleKeySuffix); err == nil {
				path = bundle + bundleKeySuffix
			}
		}
		switch {
		case !holdsBackupKey(role) && path != "":
			return fmt.Errorf("this is a %s node and %s is a backup key: %w; delete the file", role, path, errKioskKey)
		case !holdsBackupKey(role):
			return nil
		case path == "":
			fmt.Fprintf(stdout, "no backup key came with the bundle: this %s node's backups fail until it has one (`appliance backup-key install --data %s --in FILE`)\n", role, data)
			return nil
		}
		id, err := readBackupKey(path)
		if err != nil {
			return err
		}
		if err := writeBackupKey(data, id, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "installed the village's backup key (public half %s) in %s\n", id.Recipient(), backupKeyPath(data))
		return nil
	}
}

// backupKeyCommand runs `appliance backup-key show|rotate|install`.
func backupKeyCommand(args []string, stdout, stderr io.Writer) error {
	usage := "usage: appliance backup-key show|rotate|install [--config FILE] [--data DIR] [--in FILE (install)]"
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errUsage
	}
	cfg, err := commandConfig(args[1:], stderr)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("backup-key "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", "", "the node's configuration file (its data folder)")
	data := fs.String("data", cfg.DataDir, "the node's data folder")
	in := fs.String("in", "", "install: the backup key file to install (from the clerk's node, or the copy kept apart)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	switch args[0] {
	case "show":
		return showBackupKey(*data, stdout)
	case "rotate":
		if err := refuseKiosk(*data); err != nil {
			return err
		}
		id, err := age.GenerateX25519Identity()
		if err != nil {
			return fmt.Errorf("make the backup key: %w", err)
		}
		if err := writeBackupKey(*data, id, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "made a new backup key %s (public half %s); the next backup is encrypted to it.\n"+
			"Older backups still open with the old key, kept beside it as %s%s…\n"+
			"Now: keep a copy of the new key apart (docs/backups.md), and install it on the other node that takes backups "+
			"(`appliance backup-key install --in FILE`).\n", backupKeyPath(*data), id.Recipient(), backupKeyFile, retiredKeyInfix)
		return nil
	case "install":
		if *in == "" {
			fmt.Fprintln(stderr, "backup-key install needs --in FILE")
			return errUsage
		}
		if err := refuseKiosk(*data); err != nil {
			return err
		}
		id, err := readBackupKey(*in)
		if err != nil {
			return err
		}
		if err := writeBackupKey(*data, id, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "installed the backup key (public half %s) as %s; the next backup is encrypted to it\n", id.Recipient(), backupKeyPath(*data))
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return errUsage
}

// refuseKiosk refuses the backup key on a data folder whose certificate
// is a kiosk's.
func refuseKiosk(data string) error {
	if id, err := pki.LoadIdentity(pkiDir(data)); err == nil && !holdsBackupKey(id.Role()) {
		return fmt.Errorf("%s is a %s node's data folder: %w", data, id.Role(), errKioskKey)
	}
	return nil
}

// showBackupKey says where the data folder's backup key is and its
// public half, never the key itself.
func showBackupKey(data string, stdout io.Writer) error {
	path := backupKeyPath(data)
	keys, err := readBackupKeys(path)
	if errors.Is(err, fs.ErrNotExist) {
		if r, rerr := readBackupRecipient(data); rerr == nil {
			fmt.Fprintf(stdout, "backup key: none here (%s); backups are encrypted to %s, and this node cannot open them\n", path, r)
			return nil
		}
		return fmt.Errorf("this node has no backup key (%s): make one with `appliance backup-key rotate --data %s`, or install the village's with `appliance backup-key install`", path, data)
	}
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup key: %s (mode %04o), public half %s\n", path, st.Mode().Perm(), keys[0].Recipient())
	if st.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(stdout, "warning: others than its owner may read it: chmod 600 %s\n", path)
	}
	for _, k := range keys[1:] {
		fmt.Fprintf(stdout, "retired key (opens older backups): public half %s\n", k.Recipient())
	}
	return nil
}
