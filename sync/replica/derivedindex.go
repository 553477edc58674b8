package replica

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The derived indexes (domain.DerivedIndex): a collection's records found
// by what they hold, such as the checks of a month. Like the parcel and
// bill lookups they are node-local (keys that begin with a zero byte),
// written by the FSM in the transaction that writes the record, and
// built again from the records when a store opens with none or with
// another set of indexes, and after a snapshot is restored.
//
//	\x00dx/v                          → derivedStamp: the version and the indexes' names
//	\x00dx/closed                     → the applied index when the store was last closed (8 bytes BE)
//	\x00dx/k/<index>/<key>\x00<id>    → ""
//	\x00dx/r/<index>/<id>             → the record's keys, a line each (what to remove on a change)
const (
	prefixDerived        = "\x00dx/"
	prefixDerivedKey     = prefixDerived + "k/"
	prefixDerivedRecords = prefixDerived + "r/"
)

var keyDerivedVersion = []byte(prefixDerived + "v")

// keyDerivedClosed is written when the FSM closes, with the index it had
// applied, and removed when it opens: a store opened without it, or with
// another index, was last written by something that may not have kept
// the derived indexes (a crash before they were written out, or a
// release from before them run on the store in between), and they are
// built again.
var keyDerivedClosed = []byte(prefixDerived + "closed")

// derivedVersion is the version of the derived indexes' keys: raise it
// when their form changes. A change of the set of indexes changes
// derivedStamp by itself.
const derivedVersion = 1

// derivedByCollection is the derived indexes of each collection that has
// any, and derivedStamp what keyDerivedVersion holds once they are built.
var derivedByCollection, derivedStamp = func() (map[string][]domain.DerivedIndex, []byte) {
	by := map[string][]domain.DerivedIndex{}
	stamp := fmt.Sprint(derivedVersion)
	for _, ix := range domain.DerivedIndexes() {
		if !validName(ix.Name) || !validName(ix.Collection) {
			panic(fmt.Sprintf("replica: bad derived index %q of %q", ix.Name, ix.Collection))
		}
		by[ix.Collection] = append(by[ix.Collection], ix)
		stamp += " " + ix.Name
	}
	return by, []byte(stamp)
}()

// derivedOf returns the derived indexes of the record with ledger key k
// and its id; none for a key that is not such a record's.
func derivedOf(k []byte) ([]domain.DerivedIndex, string) {
	if !bytes.HasPrefix(k, []byte(prefixRecord)) {
		return nil, ""
	}
	rest := k[len(prefixRecord):]
	i := bytes.IndexByte(rest, '/')
	if i < 0 {
		return nil, ""
	}
	ixs := derivedByCollection[string(rest[:i])]
	if ixs == nil {
		return nil, ""
	}
	return ixs, string(rest[i+1:])
}

func derivedKey(index, k, id string) []byte {
	return key(prefixDerivedKey, index, "/", k, "\x00", id)
}

// derivedWrites returns the writes that index the record with ledger key
// k written with value v (nil: deleted) in its derived indexes, after
// removing what its earlier version put there, which read reads. A key
// with a zero byte or a newline, which the index could not hold, is a
// programming error of the index's Keys.
func derivedWrites(read func(k []byte) ([]byte, bool, error), k, v []byte) ([]kv, error) {
	ixs, id := derivedOf(k)
	var out []kv
	for _, ix := range ixs {
		var keys []string
		if v != nil {
			var err error
			if keys, err = ix.Keys(v); err != nil {
				return nil, fmt.Errorf("index %s %s: %w", ix.Collection, id, err)
			}
			slices.Sort(keys)
			keys = slices.Compact(keys)
			for _, x := range keys {
				if strings.ContainsAny(x, "\x00\n") {
					return nil, fmt.Errorf("index %s %s: key %q holds a zero byte or a newline", ix.Collection, id, x)
				}
			}
		}
		more, err := rekey(read, key(prefixDerivedRecords, ix.Name, "/", id), keys, func(x string) []byte { return derivedKey(ix.Name, x, id) })
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// reindexDerivedIfStale builds the derived indexes again when the store
// has none or another set of them, or was not closed by this FSM at the
// index it has applied (keyDerivedClosed); otherwise it removes the mark
// of the close, which the next Close writes again.
func (f *FSM) reindexDerivedIfStale() error {
	var have, closed []byte
	err := f.db.View(func(txn *badger.Txn) error {
		var err error
		if have, _, err = txnRead(txn)(keyDerivedVersion); err != nil {
			return err
		}
		closed, _, err = txnRead(txn)(keyDerivedClosed)
		return err
	})
	if err != nil {
		return fmt.Errorf("read derived indexes' version: %w", err)
	}
	if !bytes.Equal(have, derivedStamp) || !bytes.Equal(closed, uint64Bytes(f.applied.Load())) {
		return f.reindexDerived()
	}
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyDerivedClosed) }); err != nil {
		return fmt.Errorf("derived indexes: %w", err)
	}
	return nil
}

// markDerivedClosed records that the derived indexes hold everything up
// to the applied index, as the FSM closes.
func (f *FSM) markDerivedClosed() error {
	if f.readOnly || f.incomplete {
		return nil
	}
	return f.db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyDerivedClosed, uint64Bytes(f.applied.Load()))
	})
}

// reindexDerived drops the derived indexes and writes them again from a
// walk of their collections, in bounded batches (rebuild.go), then the
// stamp. It runs with nothing else using the store.
func (f *FSM) reindexDerived() error {
	start := time.Now()
	if err := f.db.DropPrefix([]byte(prefixDerived)); err != nil {
		return fmt.Errorf("drop derived indexes: %w", err)
	}
	w := &indexWriter{db: f.db}
	defer w.discard()
	absent := func([]byte) ([]byte, bool, error) { return nil, false, nil }
	records := 0
	for _, c := range slices.Sorted(maps.Keys(derivedByCollection)) {
		err := f.walkBatches(recordKey(c, ""), func(_ *badger.Txn, item *badger.Item) error {
			var writes []kv
			err := item.Value(func(v []byte) error {
				var err error
				writes, err = derivedWrites(absent, item.Key(), v)
				return err
			})
			if err != nil {
				return err
			}
			for _, x := range writes {
				if err := w.set(x.k, x.v); err != nil {
					return err
				}
			}
			records++
			return nil
		}, w.commit)
		if err != nil {
			return fmt.Errorf("build derived indexes: %w", err)
		}
	}
	if err := w.set(keyDerivedVersion, derivedStamp); err != nil {
		return fmt.Errorf("build derived indexes: %w", err)
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("build derived indexes: %w", err)
	}
	if err := f.syncState(); err != nil {
		return err
	}
	f.log.Info("built the derived indexes", "indexes", string(derivedStamp), "records", records, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// Derived calls fn with the id and JSON of each record of the derived
// index named index with a key that starts with prefix, in key then id
// order, all from one read transaction (domain.RecordsDerived). An index
// entry whose record is missing is an error: records of the derived
// indexes' collections are written, never deleted, with their entries.
func (f *FSM) Derived(index, prefix string, fn func(id string, raw []byte) error) error {
	collection := ""
	for c, ixs := range derivedByCollection {
		for _, ix := range ixs {
			if ix.Name == index {
				collection = c
			}
		}
	}
	if collection == "" {
		return domain.Errorf(domain.EINVALID, "", "there is no derived index %q", index)
	}
	return f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: key(prefixDerivedKey, index, "/", prefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			id := string(k[bytes.LastIndexByte(k, 0)+1:])
			item, err := txn.Get(recordKey(collection, id))
			if err != nil {
				return fmt.Errorf("derived index %s lists %s: %w", index, id, err)
			}
			if err := item.Value(func(v []byte) error { return fn(id, v) }); err != nil {
				return err
			}
		}
		return nil
	})
}
