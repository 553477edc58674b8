package badgerstore

import (
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// TestReleaseTablePagesAdvisesOnlyTheTables: after a table is written and
// read back through its mapping, ReleaseTablePages advises its mapping
// and nothing outside the folder, and the data reads the same after.
func TestReleaseTablePagesAdvisesOnlyTheTables(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenDB(PiOptions(dir), "test store")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	value := make([]byte, 512)
	wb := db.NewWriteBatch()
	for i := range 20_000 {
		if err := wb.Set(fmt.Appendf(nil, "key-%06d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	// Closing flushes the memtables to tables: opened again, the store
	// reads the keys through the tables' mappings.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = OpenDB(PiOptions(dir), "test store"); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		db.View(func(txn *badger.Txn) error {
			opts := badger.DefaultIteratorOptions
			opts.Prefix = []byte("key-") // not the store's marker
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if err := it.Item().Value(func([]byte) error { return nil }); err != nil {
					t.Fatal(err)
				}
				n++
			}
			return nil
		})
		return n
	}
	if n := count(); n != 20_000 {
		t.Fatalf("read %d keys before, want 20000", n)
	}
	if got := ReleaseTablePages(t.TempDir()); got != 0 {
		t.Fatalf("another folder: advised %d bytes, want none", got)
	}
	if len(db.Tables()) == 0 {
		t.Fatal("no table after the store was closed and opened again")
	}
	if got := ReleaseTablePages(dir); got <= 0 {
		t.Fatalf("advised %d bytes of the store's tables, want some", got)
	}
	if n := count(); n != 20_000 {
		t.Fatalf("read %d keys after, want 20000", n)
	}
}
