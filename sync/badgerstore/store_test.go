package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
)

// openStore opens a Store in a fresh directory and closes it when the test
// ends.
func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// mustNew returns New(db), failing the test on an error. The Store is
// closed when the test ends.
func mustNew(t testing.TB, db *badger.DB) *Store {
	t.Helper()
	s, err := New(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// testLog returns a command entry at index with some data.
func testLog(index uint64) *raft.Log {
	return &raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: fmt.Appendf(nil, "log%d", index)}
}

// testLogs returns command entries from lo to hi.
func testLogs(lo, hi uint64) []*raft.Log {
	var logs []*raft.Log
	for i := lo; i <= hi; i++ {
		logs = append(logs, testLog(i))
	}
	return logs
}

func storeLogs(t *testing.T, s *Store, logs []*raft.Log) {
	t.Helper()
	if err := s.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
}

func checkIndexes(t *testing.T, s *Store, first, last uint64) {
	t.Helper()
	if got, err := s.FirstIndex(); err != nil || got != first {
		t.Errorf("FirstIndex() = %d, %v; want %d", got, err, first)
	}
	if got, err := s.LastIndex(); err != nil || got != last {
		t.Errorf("LastIndex() = %d, %v; want %d", got, err, last)
	}
}

// checkLog fails the test unless the entry at want.Index equals want.
func checkLog(t *testing.T, s *Store, want *raft.Log) {
	t.Helper()
	var got raft.Log
	if err := s.GetLog(want.Index, &got); err != nil {
		t.Fatalf("GetLog(%d): %v", want.Index, err)
	}
	if !sameLog(&got, want) {
		t.Errorf("GetLog(%d) = %+v; want %+v", want.Index, got, *want)
	}
}

// sameLog reports whether two entries are equal. AppendedAt is compared as
// an instant: its location and monotonic reading are not stored.
func sameLog(a, b *raft.Log) bool {
	return a.Index == b.Index && a.Term == b.Term && a.Type == b.Type &&
		bytes.Equal(a.Data, b.Data) && bytes.Equal(a.Extensions, b.Extensions) &&
		a.AppendedAt.Equal(b.AppendedAt)
}

func checkMissing(t *testing.T, s *Store, indexes ...uint64) {
	t.Helper()
	for _, i := range indexes {
		if err := s.GetLog(i, new(raft.Log)); err != raft.ErrLogNotFound {
			t.Errorf("GetLog(%d) = %v; want raft.ErrLogNotFound", i, err)
		}
	}
}

func TestEmptyStore(t *testing.T) {
	s := openStore(t)
	checkIndexes(t, s, 0, 0)
	checkMissing(t, s, 0, 1, 1<<63)
}

func TestStoreAndGetLogs(t *testing.T) {
	s := openStore(t)
	appended := time.Date(2026, 3, 14, 9, 26, 53, 589793238, time.UTC)
	logs := []*raft.Log{
		{Index: 1, Term: 1, Type: raft.LogConfiguration, Data: []byte{1, 2, 3}},
		{Index: 2, Term: 1, Type: raft.LogNoop, AppendedAt: appended},
		{Index: 3, Term: 2, Type: raft.LogCommand, Data: []byte("pay invoice 17"),
			Extensions: []byte("ext"), AppendedAt: time.Now()},
	}
	storeLogs(t, s, logs)
	if err := s.StoreLog(testLog(5)); err != nil { // leaves a gap at 4
		t.Fatal(err)
	}
	checkIndexes(t, s, 1, 5)
	for _, l := range append(logs, testLog(5)) {
		checkLog(t, s, l)
	}
	checkMissing(t, s, 0, 4, 6)

	// Storing an index again replaces the entry.
	replaced := &raft.Log{Index: 2, Term: 3, Data: []byte("new")}
	storeLogs(t, s, []*raft.Log{replaced})
	checkLog(t, s, replaced)
	checkIndexes(t, s, 1, 5)
}

// TestStoreLogsLargeBatch stores more entries than fit in one Badger
// transaction with PiOptions (about 13,000 small entries, or 1.2 MiB).
func TestStoreLogsLargeBatch(t *testing.T) {
	s := openStore(t)
	const n = 30_000
	logs := testLogs(1, n)
	for _, l := range logs {
		l.Data = bytes.Repeat([]byte{byte(l.Index)}, 100)
	}
	storeLogs(t, s, logs)
	checkIndexes(t, s, 1, n)
	for _, i := range []uint64{1, 13_000, 13_001, n} {
		checkLog(t, s, logs[i-1])
	}

	// Delete a head and a tail, each bigger than a transaction and than
	// DeleteRange's chunk.
	if err := s.DeleteRange(1, 20_000); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, s, 20_001, n)
	if err := s.DeleteRange(20_100, n); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, s, 20_001, 20_099)
	checkMissing(t, s, 1, 20_000, 20_100, n)
	checkLog(t, s, logs[20_001-1])
	checkLog(t, s, logs[20_099-1])
}

func TestDeleteRange(t *testing.T) {
	cases := []struct {
		name        string
		lo, hi      uint64
		first, last uint64 // indexes left, 0 if none
	}{
		{"head", 1, 4, 5, 10},
		{"tail", 7, 10, 1, 6},
		{"one entry", 10, 10, 1, 9},
		{"everything", 1, 10, 0, 0},
		{"beyond both ends", 0, 1 << 40, 0, 0},
		{"below the log", 0, 0, 1, 10},
		{"above the log", 11, 20, 1, 10},
		{"lo above hi", 5, 4, 1, 10},
		{"max index", 1 << 63, 1<<64 - 1, 1, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			storeLogs(t, s, testLogs(1, 10))
			if err := s.DeleteRange(c.lo, c.hi); err != nil {
				t.Fatal(err)
			}
			checkIndexes(t, s, c.first, c.last)
			for i := uint64(1); i <= 10; i++ {
				if i >= c.lo && i <= c.hi {
					checkMissing(t, s, i)
				} else {
					checkLog(t, s, testLog(i))
				}
			}
		})
	}
}

func TestStable(t *testing.T) {
	s := openStore(t)

	// Raft recognises a missing key by its text alone.
	if _, err := s.Get([]byte("CurrentTerm")); err != ErrKeyNotFound || err.Error() != "not found" {
		t.Errorf("Get(missing) error = %v; want ErrKeyNotFound", err)
	}
	if _, err := s.GetUint64([]byte("CurrentTerm")); err != ErrKeyNotFound || err.Error() != "not found" {
		t.Errorf("GetUint64(missing) error = %v; want ErrKeyNotFound", err)
	}

	if err := s.Set([]byte("LastVoteCand"), []byte("node-2")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get([]byte("LastVoteCand")); err != nil || string(got) != "node-2" {
		t.Errorf("Get = %q, %v; want node-2", got, err)
	}
	if err := s.Set([]byte("LastVoteCand"), []byte("node-3")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get([]byte("LastVoteCand")); err != nil || string(got) != "node-3" {
		t.Errorf("Get after overwrite = %q, %v; want node-3", got, err)
	}

	for _, v := range []uint64{0, 1, 1<<64 - 1} {
		if err := s.SetUint64([]byte("CurrentTerm"), v); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetUint64([]byte("CurrentTerm")); err != nil || got != v {
			t.Errorf("GetUint64 = %d, %v; want %d", got, err, v)
		}
	}

	// A value that is not 8 bytes is an error, not a panic or a guess.
	if err := s.Set([]byte("short"), []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetUint64([]byte("short")); err == nil {
		t.Errorf("GetUint64 of a 3-byte value = %d, nil; want an error", got)
	}
}

// TestKeySpacesDisjoint writes stable keys that look like log keys and checks
// that the log does not see them, and the other way round.
func TestKeySpacesDisjoint(t *testing.T) {
	s := openStore(t)
	if err := s.Set(logKey(5), []byte("stable")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetUint64(binaryIndex(6), 6); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, s, 0, 0)
	checkMissing(t, s, 5, 6)

	storeLogs(t, s, testLogs(5, 6))
	if got, err := s.Get(logKey(5)); err != nil || string(got) != "stable" {
		t.Errorf("Get(log key 5) = %q, %v; want the stable value", got, err)
	}
	if _, err := s.Get(logKey(6)); err != ErrKeyNotFound {
		t.Errorf("Get(log key 6) error = %v; want ErrKeyNotFound", err)
	}
	if _, err := s.Get(binaryIndex(5)); err != ErrKeyNotFound {
		t.Errorf("Get(big-endian 5) error = %v; want ErrKeyNotFound", err)
	}

	if err := s.DeleteRange(0, 1<<64-1); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetUint64(binaryIndex(6)); err != nil || got != 6 {
		t.Errorf("GetUint64 after deleting every log = %d, %v; want 6", got, err)
	}
}

func binaryIndex(i uint64) []byte { return logKey(i)[1:] }

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := testLogs(1, 100)
	storeLogs(t, s, logs)
	if err := s.DeleteRange(1, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.SetUint64([]byte("CurrentTerm"), 7); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	s = openStoreAt(t, dir)
	checkIndexes(t, s, 11, 100)
	checkMissing(t, s, 10)
	for _, l := range logs[10:] {
		checkLog(t, s, l)
	}
	if got, err := s.GetUint64([]byte("CurrentTerm")); err != nil || got != 7 {
		t.Errorf("GetUint64(CurrentTerm) after reopening = %d, %v; want 7", got, err)
	}
}

func openStoreAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestNewLeavesDBOpen checks that a Store made by New leaves its database to
// the caller, and that it syncs itself over a database without SyncWrites.
func TestNewLeavesDBOpen(t *testing.T) {
	db, err := badger.Open(PiOptions(t.TempDir()).WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustNew(t, db)
	if !s.syncAfterWrite {
		t.Error("New over a database without SyncWrites: syncAfterWrite is off")
	}
	storeLogs(t, s, testLogs(1, 3))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if db.IsClosed() {
		t.Fatal("Close closed a database the Store does not own")
	}
	checkLog(t, mustNew(t, db), testLog(2))
}

// TestLargeEntriesAndGC stores entries too big for the LSM tree, which go to
// Badger's value log, reads them back, deletes them and runs value-log GC.
func TestLargeEntriesAndGC(t *testing.T) {
	s := openStore(t)
	logs := testLogs(1, 3)
	for _, l := range logs {
		l.Data = bytes.Repeat([]byte{byte(l.Index)}, 3<<20/2) // 1.5 MiB
	}
	storeLogs(t, s, logs)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		checkLog(t, s, l)
	}
	if err := s.DeleteRange(1, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.RunGC(0.5); err != nil {
		t.Errorf("RunGC(0.5) = %v; want nil", err)
	}
	if err := s.RunGC(1.5); err == nil {
		t.Error("RunGC(1.5) = nil; want an error for a ratio outside (0, 1)")
	}
}

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Errorf("disk %s\n", "full")
	l.Warningf("slow %d", 3)
	l.Infof("chatter")
	l.Debugf("chatter")
	out := buf.String()
	for _, want := range []string{`level=ERROR msg="disk full" component=badger`, `level=WARN msg="slow 3" component=badger`} {
		if !strings.Contains(out, want) {
			t.Errorf("log output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "chatter") {
		t.Errorf("info or debug message logged:\n%s", out)
	}
}

func TestCorruptEntry(t *testing.T) {
	s := openStore(t)
	put := func(key, val []byte) {
		t.Helper()
		if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(key, val) }); err != nil {
			t.Fatal(err)
		}
	}
	good := encodeLog(testLog(2))
	put(logKey(1), good[:len(good)-1])
	put(logKey(2), []byte{9})
	put(logKey(3), good) // holds index 2
	for i := uint64(1); i <= 3; i++ {
		if err := s.GetLog(i, new(raft.Log)); !errors.Is(err, ErrCorruptLog) {
			t.Errorf("GetLog(%d) of a corrupt entry: error = %v; want ErrCorruptLog", i, err)
		}
	}
}

func TestDecodeLog(t *testing.T) {
	full := encodeLog(&raft.Log{
		Index: 300, Term: 2, Type: raft.LogCommand, Data: []byte("data"),
		Extensions: []byte("ext"), AppendedAt: time.Unix(1_700_000_000, 5),
	})
	// Every proper prefix of a valid entry is an error.
	for n := range len(full) {
		if err := decodeLog(full[:n], new(raft.Log)); !errors.Is(err, ErrCorruptLog) {
			t.Errorf("decodeLog of the first %d of %d bytes: error = %v; want ErrCorruptLog", n, len(full), err)
		}
	}
	cases := []struct {
		name string
		b    []byte
	}{
		{"unknown version", append([]byte{2}, full[1:]...)},
		{"trailing byte", append(full[:len(full):len(full)], 0)},
		{"padded varint", []byte{1, 0, 0x80, 0x00, 0, 0, 0, 0, 0}},
		{"varint overflow", append([]byte{1, 0}, bytes.Repeat([]byte{0xff}, 11)...)},
		{"nanoseconds out of range", []byte{1, 0, 1, 1, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0, 0}},
		{"data longer than entry", []byte{1, 0, 1, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 'x'}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := raft.Log{Index: 42}
			if err := decodeLog(c.b, &l); !errors.Is(err, ErrCorruptLog) {
				t.Errorf("error = %v; want ErrCorruptLog", err)
			}
			if l.Index != 42 {
				t.Errorf("a failed decode changed the log: %+v", l)
			}
		})
	}
}

func TestEncodeLogRoundTrip(t *testing.T) {
	logs := []*raft.Log{
		{},
		{Index: 1<<64 - 1, Term: 1<<64 - 1, Type: raft.LogType(255)},
		{Index: 1, Data: []byte{}, Extensions: []byte{}}, // empty comes back nil
		{Index: 2, AppendedAt: time.Unix(0, 0)},
		{Index: 3, AppendedAt: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		{Index: 4, AppendedAt: time.Date(1900, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))},
		{Index: 5, AppendedAt: time.Now(), Data: bytes.Repeat([]byte("x"), 1000)},
	}
	for _, want := range logs {
		var got raft.Log
		if err := decodeLog(encodeLog(want), &got); err != nil {
			t.Fatalf("decode(encode(%+v)): %v", want, err)
		}
		if !sameLog(&got, want) {
			t.Errorf("decode(encode(%+v)) = %+v", want, got)
		}
		if want.AppendedAt.IsZero() != (got.AppendedAt == time.Time{}) {
			t.Errorf("AppendedAt %v came back as %v", want.AppendedAt, got.AppendedAt)
		}
		if !bytes.Equal(encodeLog(want), encodeLog(&got)) {
			t.Errorf("encoding of %+v is not deterministic", want)
		}
	}
}

// FuzzDecodeLog checks that decodeLog never panics, that what it rejects is
// reported as ErrCorruptLog, and that what it accepts is exactly the
// encoding of the log it returns.
func FuzzDecodeLog(f *testing.F) {
	seeds := []*raft.Log{
		{},
		testLog(1),
		{Index: 1 << 40, Term: 9, Type: raft.LogConfiguration, Data: []byte{0, 1, 2},
			Extensions: []byte("e"), AppendedAt: time.Unix(1_700_000_000, 999_999_999)},
	}
	for _, l := range seeds {
		b := encodeLog(l)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var l raft.Log
		if err := decodeLog(b, &l); err != nil {
			if !errors.Is(err, ErrCorruptLog) {
				t.Fatalf("error %v does not wrap ErrCorruptLog", err)
			}
			return
		}
		if again := encodeLog(&l); !bytes.Equal(again, b) {
			t.Fatalf("decoded %x to %+v, which encodes to %x", b, l, again)
		}
	})
}
