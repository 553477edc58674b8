package badgerstore

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	raftbench "github.com/hashicorp/raft/bench"
)

// benchStore is what raft needs of a log and stable store, plus Close.
type benchStore interface {
	raft.LogStore
	raft.StableStore
	Close() error
}

// BenchmarkStores runs raft's shared log-store benchmarks over this store
// and, as the baseline, raft-boltdb, both syncing every commit:
//
//	go test -run x -bench Stores ./sync/badgerstore
func BenchmarkStores(b *testing.B) {
	stores := []struct {
		name string
		open func(dir string) (benchStore, error)
	}{
		{"badger", func(dir string) (benchStore, error) { return Open(dir) }},
		{"bolt", func(dir string) (benchStore, error) {
			return raftboltdb.NewBoltStore(filepath.Join(dir, "raft.db"))
		}},
	}
	logBenches := []struct {
		name string
		run  func(*testing.B, raft.LogStore)
	}{
		{"FirstIndex", raftbench.FirstIndex},
		{"LastIndex", raftbench.LastIndex},
		{"GetLog", raftbench.GetLog},
		{"StoreLog", raftbench.StoreLog},
		{"StoreLogs", raftbench.StoreLogs},
		{"DeleteRange", raftbench.DeleteRange},
	}
	stableBenches := []struct {
		name string
		run  func(*testing.B, raft.StableStore)
	}{
		{"Set", raftbench.Set},
		{"Get", raftbench.Get},
		{"SetUint64", raftbench.SetUint64},
		{"GetUint64", raftbench.GetUint64},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			open := func(b *testing.B) benchStore {
				s, err := st.open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { s.Close() })
				return s
			}
			for _, bench := range logBenches {
				b.Run(bench.name, func(b *testing.B) { bench.run(b, open(b)) })
			}
			for _, bench := range stableBenches {
				b.Run(bench.name, func(b *testing.B) { bench.run(b, open(b)) })
			}
		})
	}
}

// benchStoreDir builds, once per benchmark, a closed store of about 20 MiB
// of incompressible values in 200,000 keys, more than the block cache holds,
// so that random reads go to table blocks.
func benchStoreDir(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	db, err := OpenDB(PiOptions(dir), "benchmark store")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 100)
	wb := db.NewWriteBatch()
	for i := range benchKeys {
		for j := range val {
			val[j] = byte(r.Uint32())
		}
		if err := wb.Set(benchKey(i), val); err != nil {
			b.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

const benchKeys = 200_000

func benchKey(i int) []byte { return fmt.Appendf(nil, "key%07d", i) }

// BenchmarkChecksumVerification reads random keys of a store bigger than
// the block cache with and without verifying each block read (PiOptions
// verifies):
//
//	go test -run x -bench ChecksumVerification ./sync/badgerstore
func BenchmarkChecksumVerification(b *testing.B) {
	dir := benchStoreDir(b)
	for _, mode := range []struct {
		name string
		mode options.ChecksumVerificationMode
	}{
		{"none", options.NoVerification},
		{"block", options.OnBlockRead},
	} {
		b.Run(mode.name, func(b *testing.B) {
			db, err := badger.Open(PiOptions(dir).WithChecksumVerificationMode(mode.mode))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := rand.New(rand.NewPCG(3, 4))
			for b.Loop() {
				err := db.View(func(txn *badger.Txn) error {
					item, err := txn.Get(benchKey(r.IntN(benchKeys)))
					if err != nil {
						return err
					}
					return item.Value(func([]byte) error { return nil })
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen opens and closes a 20 MiB store through OpenDB, which
// checks every table first, and through badger.Open:
//
//	go test -run x -bench Open ./sync/badgerstore
func BenchmarkOpen(b *testing.B) {
	dir := benchStoreDir(b)
	for _, open := range []struct {
		name string
		open func(badger.Options) (*badger.DB, error)
	}{
		{"OpenDB", func(o badger.Options) (*badger.DB, error) { return OpenDB(o, "benchmark store") }},
		{"badger.Open", badger.Open},
	} {
		b.Run(open.name, func(b *testing.B) {
			for b.Loop() {
				db, err := open.open(PiOptions(dir))
				if err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
