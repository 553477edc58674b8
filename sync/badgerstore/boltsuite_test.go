package badgerstore

// The store tests of github.com/hashicorp/raft-boltdb/v2 (v2.3.0,
// bolt_store_test.go), run against Store: raft's expectations of a log and
// stable store as the reference implementation states them. They keep
// raft-boltdb's names and checks; where bolt has an error value of its own
// (a locked file, a read-only database) the test checks the store's
// sentinel with errors.Is instead. Migration from raft-boltdb v1 has no
// counterpart here.

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
)

func testBoltStore(t testing.TB) *Store { return openStore(t) }

func testRaftLog(idx uint64, data string) *raft.Log {
	return &raft.Log{Data: []byte(data), Index: idx}
}

func TestBoltStore_Implements(t *testing.T) {
	var store any = &Store{}
	if _, ok := store.(raft.StableStore); !ok {
		t.Fatalf("Store does not implement raft.StableStore")
	}
	if _, ok := store.(raft.LogStore); !ok {
		t.Fatalf("Store does not implement raft.LogStore")
	}
}

// TestBoltOptionsTimeout is raft-boltdb's check that a second opener of a
// store in use fails (bolt says "timeout" once its wait runs out; Badger
// does not wait). Read-write and read-only openers are both refused.
func TestBoltOptionsTimeout(t *testing.T) {
	dir := t.TempDir()
	store, err := Open(dir)
	if err != nil {
		t.Fatalf("err: %v", err)
	}
	defer store.Close()
	for name, open := range map[string]func(string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		t.Run(name, func(t *testing.T) {
			other, err := open(dir)
			if err == nil {
				other.Close()
			}
			if !errors.Is(err, ErrLocked) || errors.Is(err, ErrDamaged) {
				t.Errorf("%s of a store in use: %v; want an error wrapping ErrLocked", name, err)
			}
		})
	}
}

// TestBoltOptionsReadOnly is raft-boltdb's check that a store opened
// read-only reads what was written and refuses writes (bolt returns
// bolt.ErrDatabaseReadOnly), here for every kind of write.
func TestBoltOptionsReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "raft")
	store, err := Open(dir)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	log := &raft.Log{Data: []byte("log1"), Index: 1}
	if err := store.StoreLog(log); err != nil {
		t.Fatalf("err: %s", err)
	}
	store.Close()

	roStore, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	defer roStore.Close()
	result := new(raft.Log)
	if err := roStore.GetLog(1, result); err != nil {
		t.Fatalf("err: %s", err)
	}
	if !reflect.DeepEqual(log, result) {
		t.Errorf("bad: %v", result)
	}
	writes := []struct {
		name  string
		write func() error
	}{
		{"StoreLog", func() error { return roStore.StoreLog(log) }},
		{"SetUint64", func() error { return roStore.SetUint64([]byte("CurrentTerm"), 2) }},
		{"DeleteRange", func() error { return roStore.DeleteRange(1, 1) }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.write()
			if !errors.Is(err, ErrReadOnly) || !errors.Is(err, badger.ErrReadOnlyTxn) {
				t.Errorf("%s on a read-only store: %v; want an error wrapping ErrReadOnly", w.name, err)
			}
		})
	}
	if err := roStore.GetLog(1, result); err != nil {
		t.Errorf("the log after refused writes: %v", err)
	}
}

func TestNewBoltStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "raft")
	store, err := Open(dir)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if got := store.db.Opts().Dir; got != dir {
		t.Fatalf("unexpected folder %q", got)
	}
	if err := store.Close(); err != nil {
		t.Fatalf("err: %s", err)
	}
	// Badger has no buckets to check: the store opens again, empty.
	store, err = Open(dir)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	defer store.Close()
	if last, err := store.LastIndex(); err != nil || last != 0 {
		t.Fatalf("LastIndex = %d, %v; want 0", last, err)
	}
}

func TestBoltStore_FirstIndex(t *testing.T) {
	store := testBoltStore(t)
	idx, err := store.FirstIndex()
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if idx != 0 {
		t.Fatalf("bad: %v", idx)
	}
	logs := []*raft.Log{testRaftLog(1, "log1"), testRaftLog(2, "log2"), testRaftLog(3, "log3")}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatalf("bad: %s", err)
	}
	idx, err = store.FirstIndex()
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if idx != 1 {
		t.Fatalf("bad: %d", idx)
	}
}

func TestBoltStore_LastIndex(t *testing.T) {
	store := testBoltStore(t)
	idx, err := store.LastIndex()
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if idx != 0 {
		t.Fatalf("bad: %v", idx)
	}
	logs := []*raft.Log{testRaftLog(1, "log1"), testRaftLog(2, "log2"), testRaftLog(3, "log3")}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatalf("bad: %s", err)
	}
	idx, err = store.LastIndex()
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if idx != 3 {
		t.Fatalf("bad: %d", idx)
	}
}

func TestBoltStore_GetLog(t *testing.T) {
	store := testBoltStore(t)
	log := new(raft.Log)
	if err := store.GetLog(1, log); err != raft.ErrLogNotFound {
		t.Fatalf("expected raft log not found error, got: %v", err)
	}
	logs := []*raft.Log{testRaftLog(1, "log1"), testRaftLog(2, "log2"), testRaftLog(3, "log3")}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatalf("bad: %s", err)
	}
	if err := store.GetLog(2, log); err != nil {
		t.Fatalf("err: %s", err)
	}
	if !reflect.DeepEqual(log, logs[1]) {
		t.Fatalf("bad: %#v", log)
	}
}

func TestBoltStore_SetLog(t *testing.T) {
	store := testBoltStore(t)
	log := &raft.Log{Data: []byte("log1"), Index: 1}
	if err := store.StoreLog(log); err != nil {
		t.Fatalf("err: %s", err)
	}
	result := new(raft.Log)
	if err := store.GetLog(1, result); err != nil {
		t.Fatalf("err: %s", err)
	}
	if !reflect.DeepEqual(log, result) {
		t.Fatalf("bad: %v", result)
	}
}

func TestBoltStore_SetLogs(t *testing.T) {
	store := testBoltStore(t)
	logs := []*raft.Log{testRaftLog(1, "log1"), testRaftLog(2, "log2")}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatalf("err: %s", err)
	}
	result1, result2 := new(raft.Log), new(raft.Log)
	if err := store.GetLog(1, result1); err != nil {
		t.Fatalf("err: %s", err)
	}
	if !reflect.DeepEqual(logs[0], result1) {
		t.Fatalf("bad: %#v", result1)
	}
	if err := store.GetLog(2, result2); err != nil {
		t.Fatalf("err: %s", err)
	}
	if !reflect.DeepEqual(logs[1], result2) {
		t.Fatalf("bad: %#v", result2)
	}
}

func TestBoltStore_DeleteRange(t *testing.T) {
	store := testBoltStore(t)
	logs := []*raft.Log{testRaftLog(1, "log1"), testRaftLog(2, "log2"), testRaftLog(3, "log3")}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatalf("err: %s", err)
	}
	if err := store.DeleteRange(1, 2); err != nil {
		t.Fatalf("err: %s", err)
	}
	if err := store.GetLog(1, new(raft.Log)); err != raft.ErrLogNotFound {
		t.Fatalf("should have deleted log1")
	}
	if err := store.GetLog(2, new(raft.Log)); err != raft.ErrLogNotFound {
		t.Fatalf("should have deleted log2")
	}
}

func TestBoltStore_Set_Get(t *testing.T) {
	store := testBoltStore(t)
	if _, err := store.Get([]byte("bad")); err != ErrKeyNotFound {
		t.Fatalf("expected not found error, got: %q", err)
	}
	k, v := []byte("hello"), []byte("world")
	if err := store.Set(k, v); err != nil {
		t.Fatalf("err: %s", err)
	}
	val, err := store.Get(k)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if !bytes.Equal(val, v) {
		t.Fatalf("bad: %v", val)
	}
}

func TestBoltStore_SetUint64_GetUint64(t *testing.T) {
	store := testBoltStore(t)
	if _, err := store.GetUint64([]byte("bad")); err != ErrKeyNotFound {
		t.Fatalf("expected not found error, got: %q", err)
	}
	k, v := []byte("abc"), uint64(123)
	if err := store.SetUint64(k, v); err != nil {
		t.Fatalf("err: %s", err)
	}
	val, err := store.GetUint64(k)
	if err != nil {
		t.Fatalf("err: %s", err)
	}
	if val != v {
		t.Fatalf("bad: %v", val)
	}
}
