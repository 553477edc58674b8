package replica

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/badgerstore"
)

// A snapshot is every key and value of the ledger state as of one moment,
// framed so that a truncated or corrupted copy is detected before anything
// is restored:
//
//	magic "VHSNAP2\n" ‖ records ‖ body length (8 bytes BE) ‖ SHA-256 of magic+records
//
// where each record is uvarint(len key) ‖ key ‖ uvarint(len value) ‖ value,
// in key order. The records come from one Badger read transaction, opened
// in FSM.Snapshot on raft's FSM goroutine, between two applies: the
// snapshot holds exactly the state at the index raft records for it.
//
// Why not Badger's own Backup (the format VHSNAP1 of earlier releases,
// still restored): DB.Backup streams the key space in ranges, and in a
// database opened without managed transactions each of its goroutines
// opens its own read transaction when it starts (stream.go produceKVs,
// readTs 0). A backup taken while applies commit therefore reads some
// ranges at one moment and others at a later one. Under load that made a
// snapshot whose applied index ("m/applied") was newer than its bills
// ("b/…"): the node that installed it skipped the entries in between and
// held a different ledger at the same applied index for good
// (TestFollowerCatchesUpFromSnapshot under load).
var (
	snapshotMagic   = []byte("VHSNAP2\n")
	snapshotMagicV1 = []byte("VHSNAP1\n") // a Badger backup stream, written by earlier releases
)

const snapshotTrailer = 8 + sha256.Size

// maxSnapshotKey bounds a key in a snapshot (Badger refuses keys over
// 65,000 bytes); maxSnapshotValue bounds a value (Badger's own limit on a
// value in a transaction is far below it).
const (
	maxSnapshotKey   = 65000
	maxSnapshotValue = 1 << 30
)

// snapshot is the ledger state at one moment: a read transaction that
// Persist walks and Release discards. It does not hold the restoring lock
// from Snapshot to Release: raft holds a snapshot while it asks its main
// goroutine for the configuration, and that goroutine may itself be
// waiting for a Restore, which waits for the lock (a deadlock seen under
// load). A Restore ends the snapshots still open instead (endSnapshots):
// their transactions are discarded before the state is dropped, and a
// later Persist fails, so raft takes a new snapshot after the restore.
type snapshot struct {
	f   *FSM
	mu  sync.Mutex // held while Persist reads txn and while it is ended
	txn *badger.Txn
	end bool // txn is discarded: released, or ended by a restore
}

// errSnapshotEnded is Persist's answer for a snapshot a restore ended.
var errSnapshotEnded = errors.New("the ledger was restored from another snapshot since this one was taken")

// Snapshot returns the ledger state as it is now. Raft calls it on its FSM
// goroutine, so no apply is half done: the read transaction opened here
// sees every entry applied so far and none after. The copying happens in
// Persist, concurrently with later applies.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	if err := f.Halted(); err != nil {
		// A halted ledger is behind raft: a snapshot now would let raft
		// compact entries this node has not applied.
		return nil, fmt.Errorf("snapshot refused: %w", err)
	}
	f.restoring.RLock()
	defer f.restoring.RUnlock()
	s := &snapshot{f: f, txn: f.db.NewTransaction(false)}
	f.snapMu.Lock()
	f.snaps[s] = struct{}{}
	f.snapMu.Unlock()
	return s, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Persist writes the framed snapshot to the sink.
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	s.f.pauseAt("snapshot.persist")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end {
		sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", errSnapshotEnded)
	}
	out := &countingWriter{w: sink}
	if err := writeSnapshot(s.txn, out); err != nil {
		sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", err)
	}
	// Once the sink closes, raft may delete the log up to the snapshot's
	// index (less its trailing entries) and, at the next start, replays
	// only what follows the snapshot (its lastApplied starts there). The
	// state the snapshot holds must be on disk first (Durability, doc.go).
	if err := s.f.syncState(); err != nil {
		sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", err)
	}
	if err := sink.Close(); err != nil {
		return err
	}
	s.f.sized(out.n)
	return nil
}

// sized tells the node the size of the snapshot just written or restored
// (Node.tuneSnapshots).
func (f *FSM) sized(bytes int64) {
	if f.onSized != nil {
		f.onSized(bytes)
	}
}

// Release ends the read transaction.
func (s *snapshot) Release() {
	s.close()
	s.f.snapMu.Lock()
	delete(s.f.snaps, s)
	s.f.snapMu.Unlock()
}

// close discards the snapshot's transaction once, waiting for a Persist
// in progress.
func (s *snapshot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.end {
		s.end = true
		s.txn.Discard()
	}
}

// endSnapshots discards the transactions of the snapshots still open,
// before a restore drops the state they read.
func (f *FSM) endSnapshots() {
	f.snapMu.Lock()
	open := make([]*snapshot, 0, len(f.snaps))
	for s := range f.snaps {
		open = append(open, s)
	}
	f.snapMu.Unlock()
	for _, s := range open {
		s.close()
	}
}

// WriteSnapshot writes a framed snapshot of the ledger state as it is now
// to w. It is what `appliance backup` writes.
func (f *FSM) WriteSnapshot(w io.Writer) error {
	f.restoring.RLock()
	defer f.restoring.RUnlock()
	txn := f.db.NewTransaction(false)
	defer txn.Discard()
	return writeSnapshot(txn, w)
}

// writeSnapshot writes every replicated key and value that txn sees.
func writeSnapshot(txn *badger.Txn, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	h := sha256.New()
	body := &countingWriter{w: io.MultiWriter(bw, h)}
	if _, err := body.Write(snapshotMagic); err != nil {
		return err
	}
	it := replicatedKeys(txn)
	defer it.Close()
	var n [binary.MaxVarintLen64]byte
	for it.Seek(firstReplicated); it.Valid(); it.Next() {
		item := it.Item()
		if _, err := body.Write(n[:binary.PutUvarint(n[:], uint64(len(item.Key())))]); err != nil {
			return err
		}
		if _, err := body.Write(item.Key()); err != nil {
			return err
		}
		err := item.Value(func(v []byte) error {
			if _, err := body.Write(n[:binary.PutUvarint(n[:], uint64(len(v)))]); err != nil {
				return err
			}
			_, err := body.Write(v)
			return err
		})
		if err != nil {
			return err
		}
	}
	var trailer [8]byte
	binary.BigEndian.PutUint64(trailer[:], uint64(body.n-int64(len(snapshotMagic))))
	if _, err := bw.Write(trailer[:]); err != nil {
		return err
	}
	if _, err := bw.Write(h.Sum(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// replicatedKeys returns an iterator for a walk of the whole ledger from
// firstReplicated (the node-local indexes, a few keys for every journal
// entry, are never read). It does not prefetch values: a prefetch reads
// the next 64 values ahead, each in a goroutine of its own, into buffers
// of their own; read in Item.Value's callback, a value is copied once,
// into a buffer the iterator reuses.
func replicatedKeys(txn *badger.Txn) *badger.Iterator {
	return txn.NewIterator(badger.IteratorOptions{})
}

// snapshotRecords reads the records of a version 2 snapshot body, calling
// fn (when set) with each. It checks the structure: every length within
// bounds and the body, keys non-empty and strictly ascending.
func snapshotRecords(r io.Reader, size int64, fn func(k, v []byte) error) (int, error) {
	lr := &io.LimitedReader{R: r, N: size}
	br := bufio.NewReaderSize(lr, 256<<10)
	var prev []byte
	count := 0
	read := func(limit uint64, what string) ([]byte, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, fmt.Errorf("record %d: %s length: %w", count+1, what, noEOF(err))
		}
		if left := uint64(lr.N) + uint64(br.Buffered()); n > limit || n > left {
			return nil, fmt.Errorf("record %d: %s of %d bytes is too long", count+1, what, n)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("record %d: %s: %w", count+1, what, noEOF(err))
		}
		return b, nil
	}
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return count, nil
		}
		k, err := read(maxSnapshotKey, "key")
		if err != nil {
			return count, err
		}
		if len(k) == 0 || bytes.Compare(k, prev) <= 0 {
			return count, fmt.Errorf("record %d: keys out of order", count+1)
		}
		v, err := read(maxSnapshotValue, "value")
		if err != nil {
			return count, err
		}
		if fn != nil {
			if err := fn(k, v); err != nil {
				return count, err
			}
		}
		prev = k
		count++
	}
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// restoreMarker names the file that says a restore was under way. It is
// written (and synced) before the old state is dropped and removed once
// the new state is whole, so a node that stops in between finds it at
// start and restores again instead of running on half a ledger.
func restoreMarker(dir string) string { return filepath.Clean(dir) + ".restoring" }

// Restore replaces the ledger state with a snapshot. The snapshot is first
// copied to disk and verified (frame, checksum and, for this release's
// format, every record); only a whole, intact snapshot discards the old
// state and is loaded.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	if err := f.Halted(); err != nil {
		return fmt.Errorf("restore snapshot refused: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.dir), "restore-*.snap")
	if err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	size, err := io.Copy(tmp, rc)
	if err != nil {
		return fmt.Errorf("restore snapshot: read: %w", err)
	}
	v, bodyLen, err := verifySnapshot(tmp, size)
	if err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	body := io.NewSectionReader(tmp, int64(len(snapshotMagic)), bodyLen)
	if v == 2 {
		if _, err := snapshotRecords(body, bodyLen, nil); err != nil {
			return fmt.Errorf("restore snapshot: %w", err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("restore snapshot: %w", errClosing)
	}
	f.endSnapshots()
	f.restoring.Lock()
	defer f.restoring.Unlock()
	if err := writeMarker(restoreMarker(f.dir)); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	// The cluster the store records is node-local: DropAll takes it and
	// the snapshot does not carry it (identity.go).
	cluster, recorded, err := keepCluster(f.db)
	if err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.kept = nil // read from the state about to go
	if err := f.db.DropAll(); err != nil {
		return fmt.Errorf("restore snapshot: drop old state: %w", err)
	}
	// DropAll took the store's marker too; without it the next start
	// would refuse the store as damaged rather than finish the restore.
	if err := badgerstore.Mark(f.db); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	if err := restoreCluster(f.db, cluster, recorded); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.pauseAt("restore.load")
	if v == 1 {
		err = f.db.Load(bufio.NewReaderSize(io.NewSectionReader(tmp, int64(len(snapshotMagic)), bodyLen), 256<<10), 64)
	} else {
		err = f.load(io.NewSectionReader(tmp, int64(len(snapshotMagic)), bodyLen), bodyLen)
	}
	if err != nil {
		return fmt.Errorf("restore snapshot: load: %w", err)
	}
	if err := f.db.Sync(); err != nil {
		return fmt.Errorf("restore snapshot: sync: %w", err)
	}
	if err := f.loadMeta(); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	// The snapshot holds no node-local keys: index what it brought.
	if err := f.checkJournalIndex(); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	if err := f.checkJournalTally(); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	if err := f.reindexIfStale(); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	if err := removeMarker(restoreMarker(f.dir)); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.incomplete = false
	f.restores.Add(1)
	f.written.setAll() // every bill has another version in the store now
	if a := f.applied.Load(); a > f.seen.Load() {
		f.seen.Store(a)
	}
	f.log.Info("restored snapshot", "applied", f.applied.Load(), "bytes", size)
	f.sized(size)
	return nil
}

// load writes the records of a version 2 snapshot body into the (empty)
// state store.
func (f *FSM) load(r io.Reader, size int64) error {
	wb := f.db.NewWriteBatch()
	defer wb.Cancel()
	if _, err := snapshotRecords(r, size, func(k, v []byte) error { return wb.Set(k, v) }); err != nil {
		return err
	}
	return wb.Flush()
}

// verifySnapshot checks the frame of a snapshot of size bytes in r and
// returns its format version and the length of the body inside it.
func verifySnapshot(r io.ReaderAt, size int64) (int, int64, error) {
	min := int64(len(snapshotMagic) + snapshotTrailer)
	if size < min {
		return 0, 0, fmt.Errorf("snapshot is truncated (%d bytes)", size)
	}
	head := make([]byte, len(snapshotMagic))
	if _, err := r.ReadAt(head, 0); err != nil {
		return 0, 0, err
	}
	var v int
	switch {
	case bytes.Equal(head, snapshotMagic):
		v = 2
	case bytes.Equal(head, snapshotMagicV1):
		v = 1
	default:
		return 0, 0, fmt.Errorf("not a ledger snapshot")
	}
	trailer := make([]byte, snapshotTrailer)
	if _, err := r.ReadAt(trailer, size-snapshotTrailer); err != nil {
		return 0, 0, err
	}
	bodyLen := int64(binary.BigEndian.Uint64(trailer[:8]))
	if bodyLen != size-min {
		return 0, 0, fmt.Errorf("snapshot is truncated or padded: header says %d bytes of data, file has %d", bodyLen, size-min)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size-snapshotTrailer)); err != nil {
		return 0, 0, err
	}
	if !bytes.Equal(h.Sum(nil), trailer[8:]) {
		return 0, 0, fmt.Errorf("snapshot checksum does not match: the file is damaged")
	}
	return v, bodyLen, nil
}

// CheckSnapshotFile verifies a snapshot file as Restore does before it
// touches any state: its frame, its checksum and its records.
func CheckSnapshotFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	v, bodyLen, err := verifySnapshot(f, st.Size())
	if err != nil || v == 1 {
		return err
	}
	_, err = snapshotRecords(io.NewSectionReader(f, int64(len(snapshotMagic)), bodyLen), bodyLen, nil)
	return err
}

// writeMarker creates path and makes it durable: the file, then its folder.
func writeMarker(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// removeMarker removes path, durably.
func removeMarker(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
