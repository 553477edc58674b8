// Package badgerstore keeps hashicorp/raft's log and stable state in Badger,
// and holds what every Badger database of the appliance is opened with: the
// options preset for a Raspberry Pi (PiOptions) and OpenDB, which refuses
// damaged stores instead of opening them with holes or empty.
package badgerstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
)

// ErrKeyNotFound is returned by Get and GetUint64 for a key that was never
// set. Raft recognises a missing key only by the text "not found"
// (err.Error() == "not found", in NewRaft, HasExistingState and when it
// restores its last vote), so the text must not change and the error is
// returned unwrapped.
var ErrKeyNotFound = errors.New("not found")

// Every key starts with one of these bytes, so log entries and stable keys
// live in disjoint key spaces whatever bytes raft uses for a stable key. A log
// key is prefixLog followed by the index as a big-endian uint64, so that
// Badger's key order is index order.
const (
	prefixLog    byte = 'l'
	prefixStable byte = 's'
)

// deleteChunk is how many log keys DeleteRange reads before deleting them,
// which bounds its memory whatever the size of the range.
const deleteChunk = 4096

var (
	_ raft.LogStore    = (*Store)(nil)
	_ raft.StableStore = (*Store)(nil)
)

// Store is a raft.LogStore and raft.StableStore kept in a Badger database.
// It is safe for concurrent use.
type Store struct {
	db *badger.DB
	// ownsDB is set by Open: Close then closes db.
	ownsDB bool
	// syncAfterWrite is set when db does not sync its commits (SyncWrites
	// off), so that the store syncs after each write itself.
	syncAfterWrite bool

	// mu guards the edges of the log, kept so that FirstIndex and
	// LastIndex answer without a read: a Badger iterator from the start of
	// the log walks every tombstone its compactions left (26 ms a call
	// after 99,000 entries deleted from the head), and raft asks at every
	// append, replication round and compaction.
	mu sync.Mutex
	edges

	// recMu guards the record of the synced index and the lost range
	// (synced.go, fence.go). rec is nil for an in-memory or read-only
	// database.
	recMu    sync.Mutex
	rec      *record
	lost     LostRange
	fenced   bool
	caughtUp chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// edges are the lowest and highest index in the log (0 and 0 when it is
// empty), valid when known. StoreLogs and DeleteRange keep them current;
// a write that fails forgets them, and the next call reads them again.
type edges struct {
	known       bool
	first, last uint64
}

// Open opens (creating if needed) a Badger database in dir with PiOptions,
// through OpenDB, and returns a Store over it, which Close closes. Badger
// locks dir, so one process at a time can open it. Open refuses a damaged
// store with an error wrapping ErrDamaged, and refuses to run on a 32-bit
// platform, where Badger v4 loses data once compaction runs.
func Open(dir string) (*Store, error) {
	return openWith(PiOptions(dir))
}

// OpenReadOnly opens the store in dir read-only, for tools that examine a
// stopped node's log: several may open it at once, but not while a node
// has it open (the error wraps ErrLocked). Every write returns an error
// wrapping ErrReadOnly. OpenReadOnly refuses a damaged store as Open does.
func OpenReadOnly(dir string) (*Store, error) {
	return openWith(PiOptions(dir).WithReadOnly(true))
}

func openWith(opts badger.Options) (*Store, error) {
	db, err := OpenDB(opts, "raft log")
	if err != nil {
		return nil, err
	}
	s, err := New(db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.ownsDB = true
	return s, nil
}

// New returns a Store over db, which stays the caller's: Close does not
// close it. Nothing else may write keys that begin with the bytes 'l' or 's'
// to db (nor 0x00, which OpenDB reserves for MarkerKey). If db was opened
// without SyncWrites, the store syncs it after every write, because raft
// needs its writes durable when they return.
//
// New reads the whole log back (check) and refuses, wrapping ErrDamaged,
// a log with an entry that cannot be read: a damaged value-log (.vlog) or
// table file shows here rather than when raft reads the entry. For a
// database on disk it opens the store's record of the last index it synced
// (SyncedFile), and if the log ends below it, keeps the node out of
// elections until it has caught up (Lost, and fence.go for how). New does
// not log: the caller reports Lost.
func New(db *badger.DB) (*Store, error) {
	s := &Store{db: db, syncAfterWrite: !db.Opts().SyncWrites, caughtUp: make(chan struct{})}
	if err := s.check(); err != nil {
		return nil, err
	}
	opts := db.Opts()
	if opts.InMemory {
		close(s.caughtUp)
		return s, nil
	}
	rec, ok, err := openRecord(opts.Dir, opts.ReadOnly)
	if err != nil {
		return nil, fmt.Errorf("open raft log %s: %w", opts.Dir, err)
	}
	if !opts.ReadOnly {
		s.rec = rec
	} else if err := rec.close(); err != nil {
		return nil, fmt.Errorf("open raft log %s: %w", opts.Dir, err)
	}
	if ok && rec.idx > s.last {
		s.lost, s.fenced = LostRange{Dir: opts.Dir, From: s.last + 1, To: rec.idx}, true
	} else {
		close(s.caughtUp)
	}
	return s, nil
}

// check reads every entry of the log, from the first to the last, and
// returns an error wrapping ErrDamaged if one cannot be read or decoded,
// holds another index than its key's, or is missing between the two. It
// sets the edges. Raft reads any of these entries (the tail after a
// restart, the rest to bring a follower up to date), and an entry Badger
// cannot read would otherwise fail much later, on a follower's request.
// It costs one pass over the log's keys and values at open: the log holds
// the entries since the last snapshot but one (some 18,000 with the
// appliance's settings), almost all of them small.
func (s *Store) check() error {
	var first, last uint64
	err := s.db.View(func(txn *badger.Txn) error {
		// Without prefetching, Item.Value returns Badger's own error for
		// a value it cannot read from a .vlog file (a prefetch logs it and
		// yields an empty value); values in the LSM tree are read with
		// their keys either way.
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixLog}})
		defer it.Close()
		var l raft.Log
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			idx, err := logIndex(item.Key())
			if err != nil {
				return err
			}
			if first != 0 && idx != last+1 {
				return fmt.Errorf("entries %d to %d are missing from the middle of the log", last+1, idx-1)
			}
			err = item.Value(func(v []byte) error {
				if len(v) == 0 {
					// Badger logs a value it cannot read from a value-log
					// file ("Unable to read") and yields nothing.
					return fmt.Errorf("%w: Badger could not read its value from the value log", ErrCorruptLog)
				}
				return decodeLog(v, &l)
			})
			if err != nil {
				return fmt.Errorf("entry %d cannot be read: %w", idx, err)
			}
			if l.Index != idx {
				return fmt.Errorf("entry %d cannot be read: %w: it holds index %d", idx, ErrCorruptLog, l.Index)
			}
			if first == 0 {
				first = idx
			}
			last = idx
		}
		return nil
	})
	if err != nil {
		opts := s.db.Opts()
		return damaged(opts, "raft log", "%v; its value-log (.vlog) or table (.sst) files are damaged, or were lost", err)
	}
	s.edges = edges{known: true, first: first, last: last}
	return nil
}

// Close closes the Badger database if the Store was made by Open, and does
// nothing if it was made by New. Calling Close again returns the first
// result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if !s.ownsDB {
			return
		}
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("close raft store: %w", err)
		}
	})
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if err := s.rec.close(); err != nil && s.closeErr == nil {
		s.closeErr = fmt.Errorf("close raft store: %w", err)
	}
	s.rec = nil
	return s.closeErr
}

// Sync flushes Badger's write-ahead and value logs to disk. With SyncWrites
// on (as in PiOptions) every commit is already durable and Sync is not needed.
func (s *Store) Sync() error {
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("sync raft store: %w", err)
	}
	return nil
}

// RunGC reclaims disk space from Badger's value log, which holds values too
// large to keep in the LSM tree (over 1 MiB with PiOptions). It rewrites
// value-log files in which at least discardRatio of the data is stale
// (Badger suggests 0.5) until none is left, so the appliance can call it
// periodically, say every few minutes. Finding nothing to reclaim is not an
// error; Badger rejecting the run because another GC is in progress is.
func (s *Store) RunGC(discardRatio float64) error {
	for {
		err := s.db.RunValueLogGC(discardRatio)
		if errors.Is(err, badger.ErrNoRewrite) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("raft store value-log GC: %w", err)
		}
	}
}

// FirstIndex returns the lowest index in the log, or 0 if it is empty.
func (s *Store) FirstIndex() (uint64, error) {
	e, err := s.edgesNow()
	if err != nil {
		return 0, fmt.Errorf("first log index: %w", err)
	}
	return e.first, nil
}

// LastIndex returns the highest index in the log, or 0 if it is empty.
func (s *Store) LastIndex() (uint64, error) {
	e, err := s.edgesNow()
	if err != nil {
		return 0, fmt.Errorf("last log index: %w", err)
	}
	return e.last, nil
}

// edgesNow returns the edges of the log, reading them from the database
// the first time (after opening, or after a write failed).
func (s *Store) edgesNow() (edges, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known {
		return s.edges, nil
	}
	first, err := s.seekIndex(0, false)
	if err != nil {
		return edges{}, err
	}
	last, err := s.seekIndex(math.MaxUint64, true)
	if err != nil {
		return edges{}, err
	}
	s.edges = edges{known: true, first: first, last: last}
	return s.edges, nil
}

// seekIndex returns the lowest index at or above from (or, if down, the
// highest at or below it), or 0 if there is none. It reads keys only. From
// the start of the log it walks every tombstone the head's deletions left,
// so it is used once per open; from a live edge it reads a key or two.
func (s *Store) seekIndex(from uint64, down bool) (uint64, error) {
	var idx uint64
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{
			Prefix:         []byte{prefixLog},
			PrefetchValues: false,
			Reverse:        down,
		})
		defer it.Close()
		it.Seek(logKey(from))
		if !it.Valid() {
			return nil
		}
		var err error
		idx, err = logIndex(it.Item().Key())
		return err
	})
	return idx, err
}

// stored moves the edges over indexes lo to hi, just written.
func (s *Store) stored(lo, hi uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.known {
		return
	}
	if s.first == 0 || lo < s.first {
		s.first = lo
	}
	s.last = max(s.last, hi)
}

// forget drops the edges after a write that failed part way.
func (s *Store) forget() {
	s.mu.Lock()
	s.known = false
	s.mu.Unlock()
}

// GetLog reads the entry at index into log. It returns raft.ErrLogNotFound,
// unwrapped because raft compares it with ==, if there is no such entry, and
// an error wrapping ErrCorruptLog if the entry cannot be decoded.
func (s *Store) GetLog(index uint64, log *raft.Log) error {
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(logKey(index))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return decodeLog(v, log) })
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return raft.ErrLogNotFound
	}
	if err != nil {
		return fmt.Errorf("get log %d: %w", index, err)
	}
	if log.Index != index {
		return fmt.Errorf("get log %d: %w: entry holds index %d", index, ErrCorruptLog, log.Index)
	}
	return nil
}

// StoreLog stores one log entry.
func (s *Store) StoreLog(log *raft.Log) error {
	return s.StoreLogs([]*raft.Log{log})
}

// StoreLogs stores logs, durably when it returns nil. Logs normally go in one
// transaction. A batch too big for one Badger transaction is committed as
// several, in order; raft passes logs in index order, so a crash part way
// leaves a prefix of the batch after what was there before, never a gap, and
// since StoreLogs has not returned, raft has not counted any of it as stored.
func (s *Store) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	if _, err := s.edgesNow(); err != nil {
		return fmt.Errorf("store logs %d to %d: %w", logs[0].Index, logs[len(logs)-1].Index, err)
	}
	lo, hi := logs[0].Index, logs[0].Index
	err := s.write(len(logs), func(txn *badger.Txn, i int) error {
		lo, hi = min(lo, logs[i].Index), max(hi, logs[i].Index)
		return txn.Set(logKey(logs[i].Index), encodeLog(logs[i]))
	})
	if err != nil {
		s.forget()
		return fmt.Errorf("store logs %d to %d: %w", logs[0].Index, logs[len(logs)-1].Index, err)
	}
	s.stored(lo, hi)
	if err := s.recordSynced(); err != nil {
		return fmt.Errorf("store logs %d to %d: %w", logs[0].Index, logs[len(logs)-1].Index, err)
	}
	return nil
}

// recordSynced records the log's last index as synced, after StoreLogs
// committed. While the log is short of a lost range it records at least
// the range's end, and ends the refusal of votes once the log reaches it.
func (s *Store) recordSynced() error {
	e, err := s.edgesNow()
	if err != nil {
		return err
	}
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.rec == nil {
		return nil
	}
	idx := e.last
	if s.fenced {
		idx = max(idx, s.lost.To)
	}
	if s.rec.seq == 0 || idx != s.rec.idx {
		if err := s.rec.write(idx); err != nil {
			return err
		}
	}
	if s.fenced && e.last >= s.lost.To {
		s.fenced = false
		close(s.caughtUp)
	}
	return nil
}

// lowerSynced lowers the record of the synced index to below, before
// DeleteRange deletes the end of the log from below+1: raft drops entries
// that conflict with its leader's. It never lowers it under a lost range's
// end.
func (s *Store) lowerSynced(below uint64) error {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.rec == nil || s.rec.seq == 0 || below >= s.rec.idx {
		return nil
	}
	if s.fenced {
		below = max(below, s.lost.To)
	}
	if below == s.rec.idx {
		return nil
	}
	return s.rec.write(below)
}

// IsMonotonic tells raft that this log keeps no gaps (raft.MonotonicLogStore).
// Without it, a follower that installs a snapshot from its leader keeps
// the entries it held from before the snapshot and appends the entries
// after it above a gap; the store refuses such a log as damaged at the
// next start (check), since a gap is also what lost table files leave.
// With it, raft deletes the whole log once it has installed a snapshot.
func (s *Store) IsMonotonic() bool { return true }

// DeleteRange deletes the log entries from lo to hi, both included. It
// reads nothing: the range is cut to the log's edges, which the store
// keeps, and its keys are deleted in chunks, each in as few transactions
// as Badger allows, so a range of any size is deleted in bounded memory
// and in time proportional to the entries it holds, whatever the log
// deleted before (Badger keeps a deleted key's tombstone until compaction
// drops it, and an iterator walks them).
//
// Raft deletes either the head of its log (after a snapshot) or the tail
// (dropping entries that conflict with the leader). A crash part way through
// must not leave a gap, which raft cannot recover from, so the tail is
// deleted from the top down and anything else from the bottom up. After
// each chunk the edges move to the entry that is left, found by one seek
// from the chunk's end.
func (s *Store) DeleteRange(lo, hi uint64) error {
	fail := func(err error) error {
		s.forget()
		return fmt.Errorf("delete logs %d to %d: %w", lo, hi, err)
	}
	e, err := s.edgesNow()
	if err != nil {
		return fail(err)
	}
	from, to := max(lo, e.first), min(hi, e.last)
	if e.last == 0 || from > to {
		return nil
	}
	fromTop := hi >= e.last
	if fromTop {
		// The log claims no more than it keeps: what is below the
		// range, or nothing when the whole log goes (after a snapshot
		// is installed, raft empties it: IsMonotonic).
		keep := from - 1
		if from <= e.first {
			keep = 0
		}
		if err := s.lowerSynced(keep); err != nil {
			return fail(err)
		}
	}
	for {
		a, b := from, min(to, from+deleteChunk-1)
		if fromTop {
			a, b = max(from, to-(deleteChunk-1)), to
			if to-from < deleteChunk {
				a = from
			}
		}
		err := s.write(int(b-a+1), func(txn *badger.Txn, i int) error {
			if fromTop {
				return txn.Delete(logKey(b - uint64(i)))
			}
			return txn.Delete(logKey(a + uint64(i)))
		})
		if err != nil {
			return fail(err)
		}
		if err := s.deleted(a, b); err != nil {
			return fail(err)
		}
		if fromTop {
			if a == from {
				return nil
			}
			to = a - 1
		} else {
			if b == to {
				return nil
			}
			from = b + 1
		}
	}
}

// deleted moves the edges after the entries from a to b were deleted.
func (s *Store) deleted(a, b uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.known {
		return nil
	}
	var err error
	switch {
	case a <= s.first && b >= s.last:
		s.first, s.last = 0, 0
	case a <= s.first && b >= s.first:
		// An entry above b is left: the seek lands on it, past none of
		// the tombstones just written.
		s.first, err = s.seekIndex(b+1, false)
	case b >= s.last && a <= s.last:
		s.last, err = s.seekIndex(a-1, true)
	}
	if err != nil {
		s.known = false
	}
	return err
}

// Set stores val under key in the stable key space.
//
// While the log lacks entries it had synced (Lost), Set refuses to record
// raft's vote, with an error wrapping ErrVoteWithheld: see fence.go.
func (s *Store) Set(key, val []byte) error {
	if err := s.withholdVote(key); err != nil {
		return fmt.Errorf("set stable key %q: %w", key, err)
	}
	err := s.write(1, func(txn *badger.Txn, _ int) error {
		return txn.Set(stableKey(key), val)
	})
	if err != nil {
		return fmt.Errorf("set stable key %q: %w", key, err)
	}
	return nil
}

// Get returns the value stored under key, or ErrKeyNotFound if there is none.
func (s *Store) Get(key []byte) ([]byte, error) {
	var val []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(stableKey(key))
		if err != nil {
			return err
		}
		val, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get stable key %q: %w", key, err)
	}
	return val, nil
}

// SetUint64 stores val under key as 8 big-endian bytes.
func (s *Store) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 returns the value SetUint64 stored under key, or ErrKeyNotFound
// if there is none.
func (s *Store) GetUint64(key []byte) (uint64, error) {
	val, err := s.Get(key)
	if err != nil {
		return 0, err
	}
	if len(val) != 8 {
		return 0, fmt.Errorf("get stable key %q: value has %d bytes, not the 8 of a uint64", key, len(val))
	}
	return binary.BigEndian.Uint64(val), nil
}

// write calls op for i from 0 to n-1 in write transactions. When a
// transaction is full it is committed and op retried in a fresh one, so the
// ops are committed in order in as few transactions as Badger allows. It
// returns once everything is committed and on disk.
func (s *Store) write(n int, op func(txn *badger.Txn, i int) error) error {
	if n == 0 {
		return nil
	}
	if s.db.Opts().ReadOnly {
		// Badger would make the transaction read-only and fail each
		// write with badger.ErrReadOnlyTxn, which ErrReadOnly wraps.
		return ErrReadOnly
	}
	txn := s.db.NewTransaction(true)
	defer func() { txn.Discard() }()
	for i := range n {
		err := op(txn, i)
		if errors.Is(err, badger.ErrTxnTooBig) {
			if err := txn.Commit(); err != nil {
				return err
			}
			txn = s.db.NewTransaction(true)
			err = op(txn, i)
		}
		if err != nil {
			return err
		}
	}
	if err := txn.Commit(); err != nil {
		return err
	}
	if s.syncAfterWrite {
		return s.db.Sync()
	}
	return nil
}

// logKey returns the key of the log entry at index.
func logKey(index uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixLog}, index)
}

// logIndex returns the index in a log key.
func logIndex(key []byte) (uint64, error) {
	if len(key) != 9 || key[0] != prefixLog {
		return 0, fmt.Errorf("malformed log key %x", key)
	}
	return binary.BigEndian.Uint64(key[1:]), nil
}

// stableKey returns the Badger key of the stable key k.
func stableKey(k []byte) []byte {
	return append([]byte{prefixStable}, k...)
}
