package badgerstore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
)

// scannedEdges reads the edges of the log from the database, walking keys
// as FirstIndex and LastIndex did before the store kept them: the answer
// the kept edges must equal.
func scannedEdges(t testing.TB, s *Store) (first, last uint64) {
	t.Helper()
	err := s.db.View(func(txn *badger.Txn) error {
		for _, reverse := range []bool{false, true} {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixLog}, Reverse: reverse})
			if reverse {
				it.Seek(logKey(math.MaxUint64))
			} else {
				it.Rewind()
			}
			if it.Valid() {
				idx, err := logIndex(it.Item().Key())
				if err != nil {
					it.Close()
					return err
				}
				if reverse {
					last = idx
				} else {
					first = idx
				}
			}
			it.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return first, last
}

// checkEdges checks FirstIndex and LastIndex against want and against a
// scan of the database.
func checkEdges(t *testing.T, s *Store, first, last uint64) {
	t.Helper()
	checkIndexes(t, s, first, last)
	if f, l := scannedEdges(t, s); f != first || l != last {
		t.Errorf("the database holds entries %d to %d; want %d to %d", f, l, first, last)
	}
}

func TestEdgesEmptyLog(t *testing.T) {
	s := openStore(t)
	checkEdges(t, s, 0, 0)
	if err := s.DeleteRange(1, 100); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 0, 0)
	storeLogs(t, s, testLogs(1, 10))
	checkEdges(t, s, 1, 10)
	if err := s.DeleteRange(1, 10); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 0, 0)
	// An emptied log starts again where raft puts the next entry.
	storeLogs(t, s, testLogs(11, 12))
	checkEdges(t, s, 11, 12)
}

func TestEdgesDeleteHead(t *testing.T) {
	s := openStore(t)
	storeLogs(t, s, testLogs(1, 3*deleteChunk+10))
	// In 1,000-entry steps, as raft compacts behind its snapshots.
	for hi := uint64(1000); hi < 3*deleteChunk; hi += 1000 {
		first, _ := s.FirstIndex()
		if err := s.DeleteRange(first, hi); err != nil {
			t.Fatal(err)
		}
		checkEdges(t, s, hi+1, 3*deleteChunk+10)
	}
	// More than a chunk at once, from below the first entry.
	if err := s.DeleteRange(0, 3*deleteChunk); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 3*deleteChunk+1, 3*deleteChunk+10)
	checkMissing(t, s, 1, deleteChunk, 3*deleteChunk)
	checkLog(t, s, testLog(3*deleteChunk+1))
}

func TestEdgesDeleteTail(t *testing.T) {
	s := openStore(t)
	storeLogs(t, s, testLogs(5, 2*deleteChunk+100))
	if err := s.DeleteRange(deleteChunk/2, math.MaxUint64); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 5, deleteChunk/2-1)
	checkMissing(t, s, deleteChunk/2, 2*deleteChunk+100)
	// A follower overwrites a conflicting tail: delete, then store again.
	if err := s.DeleteRange(100, deleteChunk/2-1); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 5, 99)
	storeLogs(t, s, testLogs(100, 120))
	checkEdges(t, s, 5, 120)
	// A range in the middle leaves the edges where they are.
	if err := s.DeleteRange(50, 60); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 5, 120)
	checkMissing(t, s, 50, 55, 60)
}

func TestEdgesAfterReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	storeLogs(t, s, testLogs(1, 5000))
	if err := s.DeleteRange(1, 4000); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRange(4900, 5000); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, s, 4001, 4899)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStoreAt(t, dir)
	checkEdges(t, s, 4001, 4899)
	storeLogs(t, s, testLogs(4900, 4901))
	checkEdges(t, s, 4001, 4901)

	// A Store made by New over a database that already holds a log
	// reads its edges from it.
	s2 := mustNew(t, s.db)
	checkEdges(t, s2, 4001, 4901)
}

// TestEdgesRandomOperations runs raft's kinds of writes in random order
// and checks the kept edges against a scan after each.
func TestEdgesRandomOperations(t *testing.T) {
	s := openStore(t)
	r := rand.New(rand.NewPCG(7, 8))
	var first, last uint64 // the model: a contiguous log, as raft keeps it
	next := uint64(1)
	for step := range 300 {
		switch op := r.IntN(3); {
		case op == 0 || last == 0: // append
			n := uint64(1 + r.IntN(300))
			storeLogs(t, s, testLogs(next, next+n-1))
			if first == 0 {
				first = next
			}
			last, next = next+n-1, next+n
		case op == 1: // compact the head
			hi := first + uint64(r.IntN(int(last-first+1)))
			if err := s.DeleteRange(first, hi); err != nil {
				t.Fatal(err)
			}
			first = hi + 1
			if hi == last {
				first, last = 0, 0
			}
		default: // drop a conflicting tail
			lo := first + uint64(r.IntN(int(last-first+1)))
			if err := s.DeleteRange(lo, last); err != nil {
				t.Fatal(err)
			}
			last, next = lo-1, lo
			if lo == first {
				first, last = 0, 0
			}
		}
		t.Run(fmt.Sprint(step), func(t *testing.T) { checkEdges(t, s, first, last) })
		if t.Failed() {
			return
		}
	}
}

// compactedStore returns a store whose log held 100,000 entries and had
// its head deleted in 1,000-entry steps up to 99,000, as raft leaves it
// after many snapshots: Badger keeps the deleted keys' tombstones until
// its compactions drop them.
func compactedStore(b *testing.B) *Store {
	b.Helper()
	s := openStore(b)
	const total, step = 100_000, 1000
	for lo := uint64(1); lo <= total; lo += step {
		appendLogs(b, s, lo, step)
	}
	for hi := uint64(step); hi <= total-step; hi += step {
		first, err := s.FirstIndex()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.DeleteRange(first, hi); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkEdges measures FirstIndex and LastIndex on a compacted log
// (compactedStore), kept by the store ("kept") and read from the database
// as before ("scanned"), in one run:
//
//	go test -run '^$' -bench Edges ./sync/badgerstore
func BenchmarkEdges(b *testing.B) {
	s := compactedStore(b)
	b.Run("FirstIndex/kept", func(b *testing.B) {
		for b.Loop() {
			if i, err := s.FirstIndex(); err != nil || i != 99_001 {
				b.Fatal(i, err)
			}
		}
	})
	b.Run("FirstIndex/scanned", func(b *testing.B) {
		for b.Loop() {
			if i, _ := scannedEdges(b, s); i != 99_001 {
				b.Fatal(i)
			}
		}
	})
	b.Run("LastIndex/kept", func(b *testing.B) {
		for b.Loop() {
			if i, err := s.LastIndex(); err != nil || i != 100_000 {
				b.Fatal(i, err)
			}
		}
	})
}

// BenchmarkDeleteHead compacts the head of a compacted log
// (compactedStore) 100 entries at a time as raft does, FirstIndex then
// DeleteRange: with the store's kept edges ("kept") and as the store did
// before ("scanned": FirstIndex, and DeleteRange's LastIndex, by
// iterating from the log's ends, the range's keys read by iterating), in
// one run:
//
//	go test -run '^$' -bench DeleteHead ./sync/badgerstore
func BenchmarkDeleteHead(b *testing.B) {
	for _, way := range []string{"kept", "scanned"} {
		b.Run(way, func(b *testing.B) {
			s := compactedStore(b)
			last := uint64(100_000)
			for b.Loop() {
				first, _ := scannedEdgesIf(b, s, way == "scanned")
				if last-first < 200 {
					b.StopTimer()
					appendLogs(b, s, last+1, 1000)
					last += 1000
					b.StartTimer()
				}
				if way == "kept" {
					if err := s.DeleteRange(first, first+99); err != nil {
						b.Fatal(err)
					}
					continue
				}
				deleteScanned(b, s, first, first+99)
			}
		})
	}
}

// scannedEdgesIf returns the first index as raft finds it before a
// compaction: read from the database if scanned, else kept by the store.
func scannedEdgesIf(b *testing.B, s *Store, scanned bool) (uint64, error) {
	if scanned {
		f, _ := scannedEdges(b, s)
		return f, nil
	}
	return s.FirstIndex()
}

// appendLogs appends n entries of 200 bytes from index from.
func appendLogs(b *testing.B, s *Store, from, n uint64) {
	logs := make([]*raft.Log, 0, n)
	for i := from; i < from+n; i++ {
		logs = append(logs, &raft.Log{Index: i, Term: 1, Type: raft.LogCommand, Data: make([]byte, 200)})
	}
	if err := s.StoreLogs(logs); err != nil {
		b.Fatal(err)
	}
}

// deleteScanned deletes lo to hi as DeleteRange did before: it read the
// keys of the range with an iterator, then deleted them, keeping nothing.
func deleteScanned(b *testing.B, s *Store, lo, hi uint64) {
	b.Helper()
	scannedEdges(b, s) // it asked LastIndex first
	var keys [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixLog}})
		defer it.Close()
		for it.Seek(logKey(lo)); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if idx, _ := logIndex(k); idx > hi {
				break
			}
			keys = append(keys, k)
		}
		return nil
	})
	if err == nil {
		err = s.write(len(keys), func(txn *badger.Txn, i int) error { return txn.Delete(keys[i]) })
	}
	if err != nil {
		b.Fatal(err)
	}
	s.forget() // the kept edges no longer hold
}
