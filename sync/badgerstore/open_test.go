package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

const testWhat = "test store"

// testOptions returns PiOptions for dir with Badger's warnings and errors
// in the test's output.
func testOptions(t testing.TB, dir string) badger.Options {
	return PiOptions(dir).WithLogger(NewLogger(slog.New(slog.NewTextHandler(t.Output(), nil))))
}

func openDB(t testing.TB, dir string) *badger.DB {
	t.Helper()
	db, err := OpenDB(testOptions(t, dir), testWhat)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func closeDB(t testing.TB, db *badger.DB) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// history is what a test wrote: history[i] holds the keys and values of
// its i-th transaction.
type history [][][2]string

// write commits n more transactions of 100 keys each to db, each with
// values of varied length.
func (h *history) write(t testing.TB, db *badger.DB, n int) {
	t.Helper()
	for range n {
		i := len(*h)
		var txn [][2]string
		for j := range 100 {
			txn = append(txn, [2]string{
				fmt.Sprintf("k/%05d/%03d", i, j),
				fmt.Sprintf("value %d of transaction %d %s", j, i, strings.Repeat("v", (i*7+j*13)%300)),
			})
		}
		err := db.Update(func(tx *badger.Txn) error {
			for _, kv := range txn {
				if err := tx.Set([]byte(kv[0]), []byte(kv[1])); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		*h = append(*h, txn)
	}
}

// check fails the test unless every key of h reads back from db with its
// value, except that each of the last unacked transactions (written but
// not acknowledged when the test's crash came) may be missing as a whole.
func (h history) check(t testing.TB, db *badger.DB, unacked int) {
	t.Helper()
	err := db.View(func(tx *badger.Txn) error {
		for i, txn := range h {
			var found, missing int
			for _, kv := range txn {
				item, err := tx.Get([]byte(kv[0]))
				if errors.Is(err, badger.ErrKeyNotFound) {
					missing++
					continue
				}
				if err != nil {
					return fmt.Errorf("get %s: %w", kv[0], err)
				}
				v, err := item.ValueCopy(nil)
				if err != nil {
					return fmt.Errorf("read %s: %w", kv[0], err)
				}
				if string(v) != kv[1] {
					return fmt.Errorf("%s = %q; want %q", kv[0], v, kv[1])
				}
				found++
			}
			switch {
			case missing == 0:
			case i >= len(h)-unacked && found == 0:
			case i >= len(h)-unacked:
				return fmt.Errorf("transaction %d came back in part: %d keys of %d", i, found, len(txn))
			default:
				return fmt.Errorf("transaction %d lost %d of its %d keys", i, missing, len(txn))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the files of src into a new dst, keeping files sparse:
// Badger preallocates its logs, and a value log maps 128 MiB. Copying a
// folder while its database is open gives what a kill -9 at that moment
// would leave, since Badger writes its logs through shared memory maps
// (visible to read) and, with SyncWrites, has finished each acknowledged
// write.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := copySparse(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	buf, zeros := make([]byte, 64<<10), make([]byte, 64<<10)
	var off int64
	for {
		n, err := io.ReadFull(in, buf)
		if n > 0 && !bytes.Equal(buf[:n], zeros[:n]) {
			if _, werr := out.WriteAt(buf[:n], off); werr != nil {
				out.Close()
				return werr
			}
		}
		off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			out.Close()
			return err
		}
	}
	if err := out.Truncate(off); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// listing returns the names and sizes of the files in dir.
func listing(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, fmt.Sprintf("%s:%d", e.Name(), info.Size()))
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flip inverts n bytes of the file at path from offset off.
func flip(t testing.TB, path string, off, n int) {
	t.Helper()
	b := readFile(t, path)
	for i := off; i < off+n; i++ {
		b[i] ^= 0xff
	}
	writeFile(t, path, b)
}

// walTxn is where one committed transaction lies in a write-ahead log.
type walTxn struct{ start, end int }

// walTxns returns the committed transactions of a write-ahead log, in
// order, as Badger replays them.
func walTxns(t testing.TB, b []byte) []walTxn {
	t.Helper()
	var txns []walTxn
	start := walFileHeader
	for off := walFileHeader; ; {
		e, ok := decodeWALEntry(b, off)
		if !ok || len(e.key) == 0 {
			break
		}
		off = e.end
		if e.meta&walBitFinTxn != 0 {
			txns = append(txns, walTxn{start, off})
			start = off
		}
	}
	return txns
}

// fixture builds, once per test binary, the two folders the damage cases
// start from, each a copy away.
type fixture struct {
	once sync.Once
	err  error
	// closed holds 40 transactions written in two sessions, each closed
	// cleanly, so that the data is in two table files and the marker in
	// the first.
	closed     string
	closedHist history
	// crashed holds 30 transactions in a store never closed: a copy taken
	// after the last write was acknowledged, as a kill -9 would leave it,
	// with everything in the write-ahead log 00001.mem.
	crashed     string
	crashedHist history
}

var fixtures fixture

func (f *fixture) build(t *testing.T) {
	t.Helper()
	f.once.Do(func() {
		// Set until the fixtures are built, in case t.Fatal cuts this short.
		f.err = errors.New("building the fixtures failed")
		base, err := os.MkdirTemp("", "badgerstore-fixture-")
		if err != nil {
			f.err = err
			return
		}
		f.closed = filepath.Join(base, "closed")
		for range 2 {
			db := openDB(t, f.closed)
			f.closedHist.write(t, db, 20)
			closeDB(t, db)
		}
		live := filepath.Join(base, "live")
		db := openDB(t, live)
		f.crashedHist.write(t, db, 30)
		f.crashed = filepath.Join(base, "crashed")
		copyDir(t, live, f.crashed)
		closeDB(t, db)
		f.err = nil
	})
	if f.err != nil {
		t.Fatal(f.err)
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		os.Exit(runKillChild(dir))
	}
	code := m.Run()
	if fixtures.closed != "" {
		os.RemoveAll(filepath.Dir(fixtures.closed))
	}
	os.Exit(code)
}

// TestOpenDBDamage damages a real store with real data in each of the ways
// a power cut, a failing SD card or a careless hand can, and checks that
// OpenDB then either refuses it with a clear error, leaving the folder as
// it was where it can tell before Badger opens, or opens it with every
// acknowledged write intact. It never opens it with a hole, and never
// panics.
func TestOpenDBDamage(t *testing.T) {
	fixtures.build(t)
	// The closed fixture's first table: which one depends on whether
	// Badger compacted level 0 as the fixture closed (it may, on a busy
	// machine, once the second flush leaves two tables there).
	tables, err := filepath.Glob(filepath.Join(fixtures.closed, "*.sst"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("the closed fixture has no table file (%v)", err)
	}
	sort.Strings(tables)
	sst := filepath.Base(tables[0])
	cases := []struct {
		name    string
		crashed bool // start from the crashed fixture, else the closed one
		damage  func(t *testing.T, dir string)
		// refuse is part of the reason OpenDB must give; "" means the store
		// must open intact.
		refuse string
		// untouched: OpenDB must refuse before Badger changes the folder.
		untouched bool
		// unacked: the last transactions that the damage simulates as not
		// acknowledged when the crash came, which may be missing whole.
		unacked int
	}{
		{name: "intact", damage: func(*testing.T, string) {}},
		{name: "intact after a crash", crashed: true, damage: func(*testing.T, string) {}},
		{
			name: "MANIFEST cut to its 8-byte header",
			damage: func(t *testing.T, dir string) {
				if err := os.Truncate(filepath.Join(dir, "MANIFEST"), 8); err != nil {
					t.Fatal(err)
				}
			},
			refuse: "its MANIFEST holds no record", untouched: true,
		},
		{
			name: "MANIFEST deleted",
			damage: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
					t.Fatal(err)
				}
			},
			refuse: "its MANIFEST is missing: Badger would open it without its 2 table files", untouched: true,
		},
		{
			name: "MANIFEST cut back to its first record",
			damage: func(t *testing.T, dir string) {
				// Badger's first record is the empty change set written
				// when the store was created: 8 bytes of header, 8 of
				// length and checksum.
				if err := os.Truncate(filepath.Join(dir, "MANIFEST"), 16); err != nil {
					t.Fatal(err)
				}
			},
			// Badger then deletes the table files as unreferenced, and
			// only the marker, which was in them, tells.
			refuse: "its marker key is missing",
		},
		{
			name: "everything deleted but the sidecar file",
			damage: func(t *testing.T, dir string) {
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if e.Name() != SidecarFile {
						os.Remove(filepath.Join(dir, e.Name()))
					}
				}
			},
			refuse: "its MANIFEST is missing", untouched: true,
		},
		{
			name: "a table file deleted",
			damage: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, sst)); err != nil {
					t.Fatal(err)
				}
			},
			refuse: "its MANIFEST lists the table file " + sst + ", which is missing", untouched: true,
		},
		{
			name: "a table file cut in half",
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, sst)
				info, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(path, info.Size()/2); err != nil {
					t.Fatal(err)
				}
			},
			refuse: "table file " + sst + " is damaged: it crashed Badger's table reader", untouched: true,
		},
		{
			name: "64 bytes flipped in the middle of a table file",
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "000002.sst")
				flip(t, path, len(readFile(t, path))/2, 64)
			},
			refuse: "table file 000002.sst is damaged", untouched: true,
		},
		{
			name: "one byte flipped near the start of a table file",
			damage: func(t *testing.T, dir string) {
				flip(t, filepath.Join(dir, sst), 100, 1)
			},
			refuse: "table file " + sst + " is damaged", untouched: true,
		},
		{
			name: "marker key deleted",
			damage: func(t *testing.T, dir string) {
				db := openDB(t, dir)
				if err := db.Update(func(txn *badger.Txn) error { return txn.Delete([]byte(MarkerKey)) }); err != nil {
					t.Fatal(err)
				}
				closeDB(t, db)
			},
			refuse: "its marker key is missing, so the data it held has been lost",
		},
		{
			name: "0-byte .mem with the next file number",
			damage: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "00001.mem"), nil)
			},
		},
		{
			name: "0-byte .mem beside a full one", crashed: true,
			damage: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "00002.mem"), nil)
			},
		},
		{
			name: "0-byte .vlog with the next file number",
			damage: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "000099.vlog"), nil)
			},
		},
		{
			name: "write-ahead log: 64 bytes flipped in an early transaction", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				txn := walTxns(t, readFile(t, path))[2]
				flip(t, path, (txn.start+txn.end)/2, 64)
			},
			refuse: "write-ahead log 00001.mem is damaged: 29 committed transactions follow byte", untouched: true,
		},
		{
			name: "write-ahead log: a finish entry damaged", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				txn := walTxns(t, readFile(t, path))[10]
				flip(t, path, txn.end-3, 1)
			},
			refuse: "write-ahead log 00001.mem is damaged: 20 committed transactions follow", untouched: true,
		},
		{
			name: "write-ahead log: one byte flipped in the second-last transaction", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				txns := walTxns(t, readFile(t, path))
				txn := txns[len(txns)-2]
				flip(t, path, txn.start+40, 1)
			},
			refuse: "write-ahead log 00001.mem is damaged: 2 committed transactions follow", untouched: true,
		},
		{
			name: "write-ahead log: header names an encryption key", crashed: true,
			damage: func(t *testing.T, dir string) {
				flip(t, filepath.Join(dir, "00001.mem"), 7, 1)
			},
			refuse: "write-ahead log 00001.mem is damaged: its header names an encryption key", untouched: true,
		},
		{
			name: "write-ahead log: torn tail, the last transaction cut short", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				b := readFile(t, path)
				txns := walTxns(t, b)
				last := txns[len(txns)-1]
				clear(b[(last.start+last.end)/2:])
				writeFile(t, path, b)
			},
			unacked: 1,
		},
		{
			name: "write-ahead log: power cut, sectors of the last transaction missing", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				b := readFile(t, path)
				txns := walTxns(t, b)
				last := txns[len(txns)-1]
				// Every other 512-byte sector never reached the disk, but
				// the one holding the finish entry did.
				for s := last.start &^ 511; s < last.end-512; s += 1024 {
					clear(b[max(s, last.start):min(s+512, last.end)])
				}
				writeFile(t, path, b)
			},
			unacked: 1,
		},
		{
			name: "write-ahead log: garbage in the last transaction", crashed: true,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "00001.mem")
				b := readFile(t, path)
				txns := walTxns(t, b)
				last := txns[len(txns)-1]
				r := rand.New(rand.NewPCG(1, 2))
				for i := last.start + 100; i < last.start+3000; i++ {
					b[i] = byte(r.Uint32())
				}
				writeFile(t, path, b)
			},
			unacked: 1,
		},
		{
			name: "write-ahead log deleted before it was flushed", crashed: true,
			damage: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "00001.mem")); err != nil {
					t.Fatal(err)
				}
			},
			refuse: "its marker key is missing",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, hist := fixtures.closed, fixtures.closedHist
			if c.crashed {
				src, hist = fixtures.crashed, fixtures.crashedHist
			}
			dir := filepath.Join(t.TempDir(), "store")
			copyDir(t, src, dir)
			c.damage(t, dir)
			before := listing(t, dir)

			db, err := OpenDB(testOptions(t, dir), testWhat)
			if c.refuse == "" {
				if err != nil {
					t.Fatalf("OpenDB: %v; want the store intact", err)
				}
				defer closeDB(t, db)
				hist.check(t, db, c.unacked)
				return
			}
			if err == nil {
				db.Close()
				t.Fatalf("OpenDB opened the damaged store; want an error saying %q", c.refuse)
			}
			t.Logf("refused: %v", err)
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("error %v does not wrap ErrDamaged", err)
			}
			for _, want := range []string{"this node's test store is damaged (", c.refuse, "): stop the node and move the folder " + dir + " aside, then rebuild the node from its peers (see docs/operating.md, Rebuilding a node), or, if no other node holds the ledger, restore the newest backup (docs/backups.md, Restoring with the key)"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if after := listing(t, dir); c.untouched && after != before {
				t.Errorf("OpenDB changed the folder it refused:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestEmptyWALBadgerBug checks that the 0-byte .mem a crash can leave (between
// creating a memtable's log and sizing it) makes plain badger.Open fail,
// dgraph-io/badger#2207 in v4.9.6, and that OpenDB removes it, logs that it
// did, and opens the store the first time. If a Badger upgrade fixes the bug,
// the first check fails: OpenDB's workaround can then go.
func TestEmptyWALBadgerBug(t *testing.T) {
	fixtures.build(t)
	plain := filepath.Join(t.TempDir(), "plain")
	copyDir(t, fixtures.crashed, plain)
	writeFile(t, filepath.Join(plain, "00002.mem"), nil)
	db, err := badger.Open(testOptions(t, plain))
	if err == nil {
		db.Close()
		t.Fatal("badger.Open opened a store with a 0-byte .mem; has dgraph-io/badger#2207 been fixed?")
	}
	if !strings.Contains(err.Error(), "Create a new file") {
		t.Errorf("badger.Open: %v; want dgraph-io/badger#2207's \"Create a new file\"", err)
	}

	dir := filepath.Join(t.TempDir(), "store")
	copyDir(t, fixtures.crashed, dir)
	writeFile(t, filepath.Join(dir, "00002.mem"), nil)
	var logged bytes.Buffer
	opts := PiOptions(dir).WithLogger(NewLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	db, err = OpenDB(opts, testWhat)
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	defer closeDB(t, db)
	fixtures.crashedHist.check(t, db, 0)
	if want := "level=WARN msg=\"badgerstore: removed 00002.mem from " + dir + ": a crash left it empty"; !strings.Contains(logged.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, logged.String())
	}
}

// TestOpenDBNewStore checks that OpenDB initialises a new store (marker
// key, then sidecar file), that the marker is the only key it writes, and
// that the store then reopens.
func TestOpenDBNewStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db := openDB(t, dir)
	var keys []string
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			keys = append(keys, fmt.Sprintf("%q=%q", it.Item().Key(), v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%q=%q", MarkerKey, markerValue); len(keys) != 1 || keys[0] != want {
		t.Errorf("a new store holds %v; want just %s", keys, want)
	}
	closeDB(t, db)
	if text := string(readFile(t, filepath.Join(dir, SidecarFile))); !strings.Contains(text, "the appliance's test store") {
		t.Errorf("%s says %q", SidecarFile, text)
	}
	if _, err := os.Stat(filepath.Join(dir, SidecarFile+".tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sidecar's temporary file is left: %v", err)
	}
	closeDB(t, openDB(t, dir))
}

// TestOpenDBAdoptsStore checks that a store made before OpenDB existed
// opens, keeps its data, and is then initialised like a new one, so that
// it is guarded from then on.
func TestOpenDBAdoptsStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db, err := badger.Open(testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	var h history
	h.write(t, db, 3)
	closeDB(t, db)

	db = openDB(t, dir)
	h.check(t, db, 0)
	closeDB(t, db)
	if _, err := os.Stat(filepath.Join(dir, SidecarFile)); err != nil {
		t.Fatalf("the adopted store has no sidecar file: %v", err)
	}
	db = openDB(t, dir)
	if err := db.Update(func(txn *badger.Txn) error { return txn.Delete([]byte(MarkerKey)) }); err != nil {
		t.Fatal(err)
	}
	closeDB(t, db)
	if _, err := OpenDB(testOptions(t, dir), testWhat); !errors.Is(err, ErrDamaged) {
		t.Errorf("OpenDB of the adopted store without its marker: %v; want ErrDamaged", err)
	}
}

// TestOpenDBReadOnly checks that a read-only OpenDB reads a store without
// writing to the folder, and still refuses a damaged one.
func TestOpenDBReadOnly(t *testing.T) {
	fixtures.build(t)
	readOnly := func(dir string) (*badger.DB, error) {
		return OpenDB(testOptions(t, dir).WithReadOnly(true), testWhat)
	}

	dir := filepath.Join(t.TempDir(), "store")
	copyDir(t, fixtures.closed, dir)
	before := listing(t, dir)
	db, err := readOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	fixtures.closedHist.check(t, db, 0)
	closeDB(t, db)
	if after := listing(t, dir); after != before {
		t.Errorf("a read-only OpenDB changed the folder:\nbefore %s\nafter  %s", before, after)
	}

	// A store made before OpenDB existed gets no marker or sidecar file.
	legacy := filepath.Join(t.TempDir(), "legacy")
	bdb, err := badger.Open(testOptions(t, legacy))
	if err != nil {
		t.Fatal(err)
	}
	closeDB(t, bdb)
	db, err = readOnly(legacy)
	if err != nil {
		t.Fatal(err)
	}
	closeDB(t, db)
	if _, err := os.Stat(filepath.Join(legacy, SidecarFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only OpenDB wrote %s: %v", SidecarFile, err)
	}

	// An empty log is reported, not removed.
	empty := filepath.Join(t.TempDir(), "empty")
	copyDir(t, fixtures.closed, empty)
	writeFile(t, filepath.Join(empty, "00001.mem"), nil)
	if _, err := readOnly(empty); err == nil || !strings.Contains(err.Error(), "the empty file 00001.mem, left by a crash") {
		t.Errorf("read-only OpenDB with an empty .mem: %v; want it named", err)
	}

	damaged := filepath.Join(t.TempDir(), "damaged")
	copyDir(t, fixtures.closed, damaged)
	if err := os.Truncate(filepath.Join(damaged, "MANIFEST"), 8); err != nil {
		t.Fatal(err)
	}
	if _, err := readOnly(damaged); !errors.Is(err, ErrDamaged) {
		t.Errorf("read-only OpenDB of a damaged store: %v; want ErrDamaged", err)
	}
}

// TestMarkAfterDropAll checks that the sidecar file survives what Badger
// does to a folder, and that emptying a store with DropAll, as a snapshot
// restore does, needs Mark for the store to open again.
func TestMarkAfterDropAll(t *testing.T) {
	for _, mark := range []bool{true, false} {
		t.Run(fmt.Sprintf("mark=%v", mark), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			db := openDB(t, dir)
			var h history
			h.write(t, db, 3)
			if err := db.Flatten(1); err != nil {
				t.Fatal(err)
			}
			if err := db.DropAll(); err != nil {
				t.Fatal(err)
			}
			if mark {
				if err := Mark(db); err != nil {
					t.Fatal(err)
				}
			}
			closeDB(t, db)
			if _, err := os.Stat(filepath.Join(dir, SidecarFile)); err != nil {
				t.Fatalf("the sidecar file did not survive Flatten and DropAll: %v", err)
			}
			db, err := OpenDB(testOptions(t, dir), testWhat)
			if mark {
				if err != nil {
					t.Fatalf("OpenDB after DropAll and Mark: %v", err)
				}
				closeDB(t, db)
				return
			}
			if !errors.Is(err, ErrDamaged) {
				if err == nil {
					db.Close()
				}
				t.Fatalf("OpenDB after DropAll without Mark: %v; want ErrDamaged", err)
			}
		})
	}
}

// TestOpenBadgerRecoversPanic checks that a panic inside badger.Open comes
// back as an error naming the folder.
func TestOpenBadgerRecoversPanic(t *testing.T) {
	dir := t.TempDir()
	crash := func(badger.Options) (*badger.DB, error) {
		panic("runtime error: slice bounds out of range\n== Recovering from initIndex crash ==\n")
	}
	db, err := openBadger(crash, testOptions(t, dir), testWhat)
	if db != nil || !errors.Is(err, ErrDamaged) {
		t.Fatalf("openBadger = %v, %v; want ErrDamaged", db, err)
	}
	want := "this node's test store is damaged (Badger crashed opening it: runtime error: slice bounds out of range == Recovering from initIndex crash ==): stop the node and move the folder " + dir + " aside"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q\nwant  %q…", err, want)
	}
}

// TestOpenDBInUse checks that OpenDB neither reads nor repairs a folder
// whose database is open, here in the same process.
func TestOpenDBInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	db := openDB(t, dir)
	defer closeDB(t, db)
	// A file that OpenDB would remove, were it not locked out.
	empty := filepath.Join(dir, "99999.mem")
	writeFile(t, empty, nil)
	defer os.Remove(empty)
	if other, err := OpenDB(testOptions(t, dir), testWhat); err == nil || errors.Is(err, ErrDamaged) {
		if other != nil {
			other.Close()
		}
		t.Fatalf("second OpenDB of an open store: %v; want a lock error", err)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("OpenDB touched a folder it could not lock: %v", err)
	}
}
