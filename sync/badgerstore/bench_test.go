package badgerstore

import (
	"path/filepath"
	"testing"

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
