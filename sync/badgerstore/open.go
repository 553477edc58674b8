package badgerstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
)

// ErrDamaged is wrapped by the error OpenDB returns when it refuses a store
// whose files are damaged or whose data has been lost.
var ErrDamaged = errors.New("badger store damaged")

// ErrLocked is wrapped by the error OpenDB (and so Open and OpenReadOnly)
// returns when another process, or another open database in this one,
// holds the store's folder: Badger lets one opener at a time use a folder.
// It is raft-boltdb's bolt "timeout" for a locked file, except that the
// store does not wait: it fails at once.
var ErrLocked = errors.New("badger store in use by another process")

// ErrReadOnly is wrapped by the error a write (StoreLogs, DeleteRange, Set)
// returns on a Store opened with OpenReadOnly. It wraps Badger's own
// badger.ErrReadOnlyTxn, so errors.Is finds either; it is raft-boltdb's
// bolt.ErrDatabaseReadOnly.
var ErrReadOnly = fmt.Errorf("badger store opened read-only: %w", badger.ErrReadOnlyTxn)

// MarkerKey is the key OpenDB writes into every database it initialises,
// and whose absence from an initialised database it takes as lost data.
// Keys beginning with the byte 0x00 are reserved for badgerstore: none of
// the appliance's key spaces ('l' and 's' for the raft log, "o/" for the
// outbox, "m/", "b/", "x/"… for the ledger state) begin with it.
//
// The marker is node-local, not replicated state: code that hashes or
// copies every key of a database (a state hash, a snapshot) should skip
// it. Code that empties a database (DropAll, as a snapshot restore does)
// must call Mark once it has filled it again, or the next OpenDB refuses
// the database as damaged; a crash before then is refused too, rather than
// opened half restored.
const MarkerKey = "\x00badgerstore"

// markerValue is MarkerKey's value. It is the same in every database, so a
// marker copied from one node to another by a backup does no harm.
const markerValue = "initialised by badgerstore.OpenDB"

// SidecarFile is the file OpenDB writes into a database's folder once the
// database is initialised and its marker key is on disk. Badger leaves
// files it does not know alone (it lists only *.sst, *.vlog and *.mem, and
// DropAll deletes only those), and the file moves with the folder when an
// operator moves a damaged store aside, so a fresh folder starts afresh.
//
// It lets OpenDB know, before Badger touches anything, that the folder
// held a database: Badger itself opens a folder whose MANIFEST is missing
// or empty as a new database and deletes every table file in it.
const SidecarFile = "badgerstore.initialised"

// OpenDB opens (creating on first use) the Badger database in opts.Dir.
// Every Badger database of the appliance (the raft log, the ledger state)
// is opened through it, so that a damaged store is refused with a clear
// error instead of opening with a silent hole, opening empty, or crashing
// the process. what names the database in messages ("raft log", "ledger
// state"). Refusals wrap ErrDamaged and tell the operator what to do.
//
// Before it calls badger.Open, holding the folder's lock, OpenDB:
//
//   - refuses a folder that held a database (SidecarFile, or any of
//     Badger's files) but whose MANIFEST is missing or holds no record
//     (cut to its header), which Badger would open empty, deleting its
//     table files, or whose MANIFEST cannot be read. The files are left in
//     place for inspection;
//   - refuses a database whose MANIFEST lists a table file that is missing,
//     or whose table files fail their checksums or cannot be parsed. Badger
//     reads table files in goroutines of its own, where a cut table panics
//     and crashes the process, so OpenDB reads each one first;
//   - with SyncWrites on, refuses a write-ahead log (NNNNN.mem) damaged
//     before committed transactions, which Badger's replay would drop
//     without a word (see scanWAL for how this is told apart from the torn
//     tail of a crash, and what it cannot see);
//   - removes empty (0-byte) .mem and .vlog files, logging a warning. A
//     crash between creating such a file and sizing it leaves one behind;
//     it holds no data, but Badger v4.9.6 fails to open the database
//     ("Create a new file", dgraph-io/badger#2207) until it is retried.
//
// A panic inside badger.Open is recovered and returned as an error. Badger's
// own deferred cleanup releases the folder's lock; what it had opened
// before the panic cannot be reached and stays open, so the caller should
// not retry but stop and let the operator move the folder aside.
//
// After Open, OpenDB checks MarkerKey: an initialised database without it
// has lost its data and is refused. A database OpenDB has not initialised
// (a new one, or one made before OpenDB existed) gets the marker and then
// SidecarFile. With opts.ReadOnly nothing is written or removed.
//
// Table checksums at Open are verified by OpenDB itself, not by Badger;
// PiOptions has Badger verify each block as it reads it (OnBlockRead). With
// OnTableRead or OnTableAndBlockRead Badger v4.9.6 verifies tables at Open
// in goroutines of its own, where a block it cannot read (with
// OnTableAndBlockRead, any block whose checksum fails) crashes the process
// with a nil pointer dereference: Table.VerifyChecksum formats the missing
// block's offset into its error.
//
// OpenDB refuses to run on a 32-bit platform, where Badger v4 loses data
// once compaction runs. It does not check encrypted databases' tables and
// write-ahead logs (the appliance does not encrypt them), nor, on
// platforms without flock, lock the folder while it checks it.
func OpenDB(opts badger.Options, what string) (*badger.DB, error) {
	if strconv.IntSize < 64 {
		return nil, fmt.Errorf("open %s %s: Badger is unsafe on %d-bit platforms", what, opts.Dir, strconv.IntSize)
	}
	if opts.InMemory {
		return openBadger(badger.Open, opts, what)
	}
	initialised, err := checkFolder(opts, what)
	if err != nil {
		return nil, err
	}
	db, err := openBadger(badger.Open, opts, what)
	if err != nil {
		return nil, err
	}
	if err := checkMarker(db, opts, what, initialised); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Mark writes MarkerKey into db unless it is there, durably when it
// returns nil. OpenDB marks the databases it initialises; call Mark after
// emptying a database with DropAll.
func Mark(db *badger.DB) error {
	err := db.Update(func(txn *badger.Txn) error {
		_, err := txn.Get([]byte(MarkerKey))
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		return txn.Set([]byte(MarkerKey), []byte(markerValue))
	})
	if err == nil && !db.Opts().SyncWrites {
		err = db.Sync()
	}
	if err != nil {
		return fmt.Errorf("write store marker: %w", err)
	}
	return nil
}

// damagedError is the error OpenDB returns when it refuses a store.
type damagedError struct {
	what, dir, reason string
}

func damaged(opts badger.Options, what, format string, args ...any) error {
	return &damagedError{what: what, dir: opts.Dir, reason: fmt.Sprintf(format, args...)}
}

// Error names the store, what is wrong, its folder and the two ways back:
// the node's data comes back from its peers, or, when no other node holds
// the ledger, from the newest backup.
func (e *damagedError) Error() string {
	return fmt.Sprintf("this node's %s is damaged (%s): stop the node and move the folder %s aside, then rebuild the node from its peers "+
		"(see docs/operating.md, Rebuilding a node), or, if no other node holds the ledger, restore the newest backup (docs/backups.md, Restoring with the key)",
		e.what, e.reason, e.dir)
}

func (e *damagedError) Unwrap() error { return ErrDamaged }

// openBadger calls open (badger.Open, or a stand-in in tests) and turns a
// panic into an error.
func openBadger(open func(badger.Options) (*badger.DB, error), opts badger.Options, what string) (db *badger.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, damaged(opts, what, "Badger crashed opening it: %s", panicText(r))
		}
	}()
	db, err = open(opts)
	if err != nil {
		return nil, openError(opts, what, err)
	}
	return db, nil
}

// openError turns the error badger.Open returned into one that says what
// to do. Badger's errors are plain text, so they are told apart by it.
// Those that come from a file Badger could not make sense of wrap
// ErrDamaged; the rest (a locked folder, a permission, a full disk) are
// returned as they are, with the store named.
func openError(opts badger.Options, what string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Cannot acquire directory lock"):
		return fmt.Errorf("open %s %s: %w: %v", what, opts.Dir, ErrLocked, err)
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
	case strings.Contains(msg, "key registry") || strings.Contains(msg, "sanity text") || strings.Contains(msg, badger.KeyRegistryFileName):
		return damaged(opts, what, "its key registry file %s cannot be read: %s", badger.KeyRegistryFileName, oneLine(msg))
	case strings.Contains(msg, ".vlog") || strings.Contains(msg, "value log"):
		return damaged(opts, what, "a value-log (.vlog) file cannot be read: %s", oneLine(msg))
	case strings.Contains(msg, ".mem") || strings.Contains(msg, "memtable"):
		return damaged(opts, what, "a write-ahead log (.mem) file cannot be read: %s", oneLine(msg))
	case strings.Contains(msg, "MANIFEST") || strings.Contains(msg, "manifest"):
		return damaged(opts, what, "its MANIFEST cannot be read: %s", oneLine(msg))
	case strings.Contains(msg, ".sst") || strings.Contains(msg, "table"):
		return damaged(opts, what, "a table (.sst) file cannot be read: %s", oneLine(msg))
	}
	return fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
}

// oneLine returns Badger's error text on one line, shortened as panicText
// does.
func oneLine(s string) string { return panicText(s) }

// panicText returns a recovered panic value on one line, shortened:
// Badger's panics carry multi-line dumps of the file they choked on.
func panicText(r any) string {
	s := strings.Join(strings.Fields(fmt.Sprint(r)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// folder is what checkFolder found in a database's folder.
type folder struct {
	initialised bool     // SidecarFile is there
	manifest    bool     // MANIFEST is there
	badgerFiles int      // files only Badger writes: KEYREGISTRY, DISCARD, *.sst, *.vlog, *.mem
	tables      []uint64 // ids of the *.sst files
	mems        []string // paths of the *.mem files, in order
	emptyLogs   []string // paths of 0-byte *.mem and *.vlog files
}

// checkFolder runs OpenDB's checks before badger.Open, holding the folder's
// lock so that it never reads or repairs files another process has open,
// and reports whether the folder holds SidecarFile.
func checkFolder(opts badger.Options, what string) (bool, error) {
	if !opts.ReadOnly {
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return false, fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
		}
	}
	unlock, err := lockDir(opts.Dir, opts.ReadOnly)
	if err != nil {
		return false, fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
	}
	defer unlock()

	f, err := listFolder(opts)
	if err != nil {
		return false, fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
	}
	if !f.manifest {
		if f.initialised || f.badgerFiles > 0 {
			// Badger writes MANIFEST before any other file of a new
			// database, so the others cannot be there without it.
			if len(f.tables) == 0 {
				return false, damaged(opts, what, "its MANIFEST is missing")
			}
			return false, damaged(opts, what, "its MANIFEST is missing: Badger would open it without its %d table files and delete them", len(f.tables))
		}
		return false, nil // a new database
	}
	if err := checkTables(opts, what, f); err != nil {
		return false, err
	}
	encrypted := len(opts.EncryptionKey) > 0
	if opts.SyncWrites && !encrypted {
		for _, path := range f.mems {
			if err := checkWAL(opts, what, path); err != nil {
				return false, err
			}
		}
	}
	for _, path := range f.emptyLogs {
		name := filepath.Base(path)
		if opts.ReadOnly {
			return false, fmt.Errorf("open %s %s: the empty file %s, left by a crash, keeps Badger from opening it read-only; open it read-write once to remove it", what, opts.Dir, name)
		}
		if err := os.Remove(path); err != nil {
			return false, fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
		}
		opts.Warningf("badgerstore: removed %s from %s: a crash left it empty, and an empty %s keeps Badger from opening (dgraph-io/badger#2207)", name, filepath.Dir(path), filepath.Ext(name))
		if err := syncDir(filepath.Dir(path)); err != nil {
			return false, fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
		}
	}
	return f.initialised, nil
}

// listFolder lists a database's folder, and its value-log folder if that is
// another.
func listFolder(opts badger.Options) (folder, error) {
	var f folder
	dirs := []string{opts.Dir}
	if opts.ValueDir != "" && filepath.Clean(opts.ValueDir) != filepath.Clean(opts.Dir) {
		dirs = append(dirs, opts.ValueDir)
	}
	for i, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return f, err
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() {
				continue
			}
			path := filepath.Join(dir, name)
			isLog := strings.HasSuffix(name, ".vlog") || (i == 0 && strings.HasSuffix(name, ".mem"))
			switch {
			case i == 0 && name == SidecarFile:
				f.initialised = true
			case i == 0 && name == badger.ManifestFilename:
				f.manifest = true
			case name == "KEYREGISTRY" || name == "DISCARD":
				f.badgerFiles++
			case i == 0 && strings.HasSuffix(name, ".sst"):
				if id, ok := table.ParseFileID(name); ok {
					f.tables = append(f.tables, id)
					f.badgerFiles++
				}
			case isLog:
				f.badgerFiles++
				info, err := e.Info()
				if err != nil {
					return f, err
				}
				if info.Size() == 0 {
					f.emptyLogs = append(f.emptyLogs, path)
				} else if strings.HasSuffix(name, ".mem") {
					f.mems = append(f.mems, path)
				}
			}
		}
	}
	sort.Strings(f.mems)
	return f, nil
}

// checkTables reads the MANIFEST and every table file it lists, as Badger
// is about to, and refuses what Badger would open with a hole or not
// survive.
func checkTables(opts badger.Options, what string, f folder) error {
	fp, err := os.Open(filepath.Join(opts.Dir, badger.ManifestFilename))
	if err != nil {
		return fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
	}
	defer fp.Close()
	m, end, err := badger.ReplayManifestFile(fp, opts.ExternalMagicVersion, opts)
	if err != nil {
		return damaged(opts, what, "its MANIFEST cannot be read: %v", err)
	}
	// Badger writes a new MANIFEST with its header and a first record in
	// one file, renamed into place, so a MANIFEST without a whole record
	// was cut.
	if end <= 8 {
		return damaged(opts, what, "its MANIFEST holds no record: Badger would open it empty and delete its %d table files", len(f.tables))
	}
	onDisk := make(map[uint64]bool, len(f.tables))
	for _, id := range f.tables {
		onDisk[id] = true
	}
	ids := make([]uint64, 0, len(m.Tables))
	for id := range m.Tables {
		if !onDisk[id] {
			return damaged(opts, what, "its MANIFEST lists the table file %s, which is missing", table.IDToFilename(id))
		}
		ids = append(ids, id)
	}
	if len(opts.EncryptionKey) > 0 {
		return nil
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if err := verifyTable(opts, id, m.Tables[id]); err != nil {
			return damaged(opts, what, "table file %s is damaged: %v", table.IDToFilename(id), err)
		}
	}
	return nil
}

// verifyTable reads a table file whole and checks its index and the
// checksum of every block, turning a panic of Badger's table code into an
// error. The file is read into memory rather than mapped, so that a panic
// leaves nothing open.
func verifyTable(opts badger.Options, id uint64, tm badger.TableManifest) (err error) {
	data, err := os.ReadFile(table.NewFilename(id, opts.Dir))
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("it crashed Badger's table reader: %s", panicText(r))
		}
	}()
	topts := table.Options{
		// OnTableRead makes VerifyChecksum check each block itself and
		// return an error, where the block modes fail inside the read
		// and VerifyChecksum then dereferences the missing block.
		ChkMode:     options.OnTableRead,
		Compression: tm.Compression,
		BlockSize:   opts.BlockSize,
	}
	t, err := table.OpenInMemoryTable(data, id, &topts)
	if err != nil {
		return err
	}
	return t.VerifyChecksum()
}

// checkWAL refuses a write-ahead log that scanWAL finds damaged, or whose
// header names an encryption key in a database that is not encrypted.
func checkWAL(opts badger.Options, what, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
	}
	name := filepath.Base(path)
	// Badger writes a zero key id into the header of a file it does not
	// encrypt; a crash leaves either that or zeros.
	if len(b) >= walFileHeader && binary.BigEndian.Uint64(b) != 0 {
		return damaged(opts, what, "write-ahead log %s is damaged: its header names an encryption key, but the store is not encrypted", name)
	}
	if r := scanWAL(b); r.damaged != "" {
		return damaged(opts, what, "write-ahead log %s is damaged: %s", name, r.damaged)
	}
	return nil
}

// checkMarker checks MarkerKey after Open. In a database OpenDB has
// initialised (SidecarFile is there) the marker must be present. Otherwise,
// unless read-only, it writes the marker and then SidecarFile, in that
// order, so that SidecarFile never exists without a durable marker.
func checkMarker(db *badger.DB, opts badger.Options, what string, initialised bool) error {
	var present bool
	err := db.View(func(txn *badger.Txn) error {
		_, err := txn.Get([]byte(MarkerKey))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		present = err == nil
		return err
	})
	if err != nil {
		return fmt.Errorf("open %s %s: read store marker: %w", what, opts.Dir, err)
	}
	if initialised && !present {
		return damaged(opts, what, "its marker key is missing, so the data it held has been lost")
	}
	if initialised || opts.ReadOnly {
		return nil
	}
	if !present {
		if err := Mark(db); err != nil {
			return fmt.Errorf("open %s %s: %w", what, opts.Dir, err)
		}
	}
	if err := writeSidecar(opts.Dir, what); err != nil {
		return fmt.Errorf("open %s %s: write %s: %w", what, opts.Dir, SidecarFile, err)
	}
	return nil
}

// writeSidecar writes SidecarFile into dir durably: the file is written
// under a temporary name, synced, renamed into place, and dir synced.
func writeSidecar(dir, what string) error {
	text := fmt.Sprintf("This folder holds the appliance's %s, a Badger database initialised by\n"+
		"badgerstore.OpenDB, which refuses to open it once its data is lost. Do not\n"+
		"delete this file to make a damaged database open: move the whole folder aside\n"+
		"(see docs/operating.md, Rebuilding a node).\n", what)
	tmp := filepath.Join(dir, SidecarFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, SidecarFile))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir syncs a directory, so that files created, renamed or removed in
// it stay so after a power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
