package badgerstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4/y"
)

// SyncedFile is the file in a raft log store's folder that records the
// highest log index the store has synced: the last index of its log each
// time StoreLogs returned. At open, a log that ends below it has lost
// entries that raft had acknowledged (LostRange).
//
// It is a file of its own, not a key in the Badger database, because the
// damage it is there to see takes Badger's recent writes with it: a cut or
// lost write-ahead log (NNNNN.mem) loses the last transactions whole, and
// a key written in them would go too, leaving a shorter log that agrees
// with its record. Badger cannot tell a cut write-ahead log from the torn
// tail of a crash (scanWAL explains why), so without this record the node
// starts with a shorter log and nothing says so.
//
// The file holds two slots, written in turn, each a sequence number, the
// index and a CRC-32C; a write cut short by a power cut spoils only the
// slot it was writing, and the other holds the record before it. The file
// is written and synced after Badger's commit, so it never runs ahead of
// what Badger holds durably; at worst, after a crash between the two, it
// lags by the batch being stored, which raft had not yet counted as
// stored.
const SyncedFile = "badgerstore.synced"

const (
	slotSize   = 20  // sequence, index, CRC-32C
	slotStride = 512 // one slot per sector, so that a torn write spoils one
)

// record is an open SyncedFile.
type record struct {
	f   *os.File
	seq uint64 // of the newest valid slot
	idx uint64 // its index
}

// openRecord opens (creating, unless readOnly) the SyncedFile in dir and
// reads it; ok says whether it holds a record. With readOnly and no file,
// it returns a nil record.
func openRecord(dir string, readOnly bool) (r *record, ok bool, err error) {
	path := filepath.Join(dir, SyncedFile)
	flag := os.O_RDWR | os.O_CREATE
	if readOnly {
		flag = os.O_RDONLY
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	if created && readOnly {
		return nil, false, nil
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", SyncedFile, err)
	}
	if created {
		err := f.Truncate(2 * slotStride)
		if err == nil {
			err = f.Sync()
		}
		if err == nil {
			err = syncDir(dir)
		}
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("create %s: %w", SyncedFile, err)
		}
	}
	r = &record{f: f}
	buf := make([]byte, slotSize)
	for i := range int64(2) {
		n, err := f.ReadAt(buf, i*slotStride)
		if n < slotSize {
			continue // cut short: that slot holds nothing
		}
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("read %s: %w", SyncedFile, err)
		}
		seq, idx, valid := decodeSlot(buf)
		if valid && seq > r.seq {
			r.seq, r.idx, ok = seq, idx, true
		}
	}
	return r, ok, nil
}

// write records idx durably.
func (r *record) write(idx uint64) error {
	seq := r.seq + 1
	b := binary.BigEndian.AppendUint64(nil, seq)
	b = binary.BigEndian.AppendUint64(b, idx)
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b, y.CastagnoliCrcTable))
	if _, err := r.f.WriteAt(b, int64(seq%2)*slotStride); err != nil {
		return fmt.Errorf("record synced index: %w", err)
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("record synced index: %w", err)
	}
	r.seq, r.idx = seq, idx
	return nil
}

func (r *record) close() error {
	if r == nil {
		return nil
	}
	return r.f.Close()
}

// decodeSlot decodes one slot; valid is false for a slot never written or
// spoilt by a torn write.
func decodeSlot(b []byte) (seq, idx uint64, valid bool) {
	seq = binary.BigEndian.Uint64(b)
	idx = binary.BigEndian.Uint64(b[8:])
	sum := binary.BigEndian.Uint32(b[16:])
	return seq, idx, seq != 0 && sum == crc32.Checksum(b[:16], y.CastagnoliCrcTable)
}
