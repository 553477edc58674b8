package badgerstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// bigEntry is the size of the entries that go to Badger's value log.
const bigEntry = 2 << 20

// storeFixture writes a raft log store the way a node does: 300 entries,
// every 100th too big for the LSM tree (so that it lives in a .vlog file),
// in two sessions closed cleanly (so that there are table files); and a
// store of 40 entries copied while open, as kill -9 leaves it (so that
// they are in the write-ahead log, a .mem file). It returns the
// closed copy, the crashed copy, and the crashed copy's last index.
func storeFixture(t *testing.T) (closed, crashed string, last uint64) {
	t.Helper()
	base := t.TempDir()
	live := filepath.Join(base, "live")
	entry := func(i uint64) *raft.Log {
		l := testLog(i)
		if i%100 == 0 {
			l.Data = bytes.Repeat([]byte{byte(i)}, bigEntry)
		}
		return l
	}
	for session := range uint64(2) {
		s := openStoreAt(t, live)
		for i := session*150 + 1; i <= session*150+150; i++ {
			storeLogs(t, s, []*raft.Log{entry(i)})
		}
		s.Close()
	}
	closed = filepath.Join(base, "closed")
	copyDir(t, live, closed)
	// A store of its own, which compacts nothing while it is copied.
	live = filepath.Join(base, "live2")
	s := openStoreAt(t, live)
	for i := uint64(1); i <= 40; i++ {
		storeLogs(t, s, []*raft.Log{entry(i)})
	}
	crashed = filepath.Join(base, "crashed")
	copyDir(t, live, crashed)
	s.Close()
	return closed, crashed, 40
}

// oneFile returns the path of the first file in dir matching pattern.
func oneFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s in %s (%v)", pattern, dir, err)
	}
	sort.Strings(paths)
	return paths[0]
}

func cutFile(t *testing.T, path string, keep func(size int) int) {
	t.Helper()
	b := readFile(t, path)
	writeFile(t, path, b[:keep(len(b))])
}

// TestStoreDamage damages a copy of a raft log store in each of Badger's
// files and checks that Open refuses it with the product's message (the
// store, the file, the folder and both ways back: rebuilding from the
// peers, restoring a backup), and that a cut write-ahead log, which
// Badger cannot tell from a crash, is reported as lost entries.
func TestStoreDamage(t *testing.T) {
	closed, crashed, last := storeFixture(t)
	cases := []struct {
		name    string
		crashed bool
		damage  func(t *testing.T, dir string)
		says    string // in the refusal, besides the folder and the ways back (any reason if "")
	}{
		{"KEYREGISTRY cut", false, func(t *testing.T, dir string) {
			cutFile(t, filepath.Join(dir, "KEYREGISTRY"), func(n int) int { return 8 })
		}, "its key registry file KEYREGISTRY cannot be read"},
		{"vlog bytes changed", false, func(t *testing.T, dir string) {
			path := oneFile(t, dir, "*.vlog")
			b := readFile(t, path)
			i := bytes.Index(b, bytes.Repeat([]byte{100}, 1024)) // entry 100's data
			if i < 0 {
				t.Fatal("entry 100 is not in the first value-log file")
			}
			flip(t, path, i+4096, 1)
		}, "entry 100 cannot be read: corrupt raft log entry: Badger could not read its value from the value log"},
		{"vlog cut", false, func(t *testing.T, dir string) {
			path := oneFile(t, dir, "*.vlog")
			b := readFile(t, path)
			i := bytes.Index(b, bytes.Repeat([]byte{100}, 1024))
			if i < 0 {
				t.Fatal("entry 100 is not in the first value-log file")
			}
			cutFile(t, path, func(int) int { return i + 4096 })
		}, "entry 100 cannot be read: corrupt raft log entry: Badger could not read its value from the value log"},
		{"MANIFEST cut", false, func(t *testing.T, dir string) {
			cutFile(t, filepath.Join(dir, "MANIFEST"), func(n int) int { return n / 2 })
		}, ""}, // which check sees it first depends on the compactions the fixture ran
		{"sst bytes changed", false, func(t *testing.T, dir string) {
			path := oneFile(t, dir, "*.sst")
			flip(t, path, 100, 16)
		}, "table file " + "0"},
		{"mem damaged before committed writes", true, func(t *testing.T, dir string) {
			path := oneFile(t, dir, "*.mem")
			txns := walTxns(t, readFile(t, path))
			if len(txns) < 10 {
				t.Fatalf("the write-ahead log holds %d transactions", len(txns))
			}
			flip(t, path, txns[5].start+30, 1)
		}, "write-ahead log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := closed
			if c.crashed {
				src = crashed
			}
			dir := filepath.Join(t.TempDir(), "raft")
			copyDir(t, src, dir)
			c.damage(t, dir)
			s, err := Open(dir)
			if err == nil {
				s.Close()
				t.Fatalf("Open opened the damaged store; want a refusal saying %q", c.says)
			}
			t.Logf("refused: %v", err)
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("the error does not wrap ErrDamaged")
			}
			for _, want := range []string{"this node's raft log is damaged (", c.says, dir, "docs/operating.md, Rebuilding a node", "docs/backups.md, Restoring with the key"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q", want)
				}
			}
		})
	}

	t.Run("mem cut", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "raft")
		copyDir(t, crashed, dir)
		path := oneFile(t, dir, "*.mem")
		txns := walTxns(t, readFile(t, path))
		cutFile(t, path, func(int) int { return txns[len(txns)/2].end })
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("Open: %v; want the store open, reporting what it lost", err)
		}
		defer s.Close()
		lost, ok := s.Lost()
		if !ok || lost.To != last || lost.Dir != dir {
			t.Fatalf("Lost() = %+v, %v; want entries up to %d in %s", lost, ok, last, dir)
		}
		for _, want := range []string{dir, "lost log entries", "write-ahead log (.mem)", "Rebuilding a node", "docs/backups.md"} {
			if !strings.Contains(lost.String(), want) {
				t.Errorf("the report %q does not say %q", lost, want)
			}
		}
	})
	if _, err := os.Stat(closed); err != nil {
		t.Fatal(err)
	}
}
