package badgerstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"

	"github.com/dgraph-io/badger/v4/y"
)

// The layout of a memtable write-ahead log (an NNNNN.mem file), as Badger
// v4.9.6 writes it (memtable.go, structs.go): a 20-byte file header (the
// encryption key id and a base IV), then entries, each
//
//	meta        1 byte
//	user meta   1 byte
//	key length  uvarint
//	value len   uvarint
//	expires at  uvarint
//	key         the user key followed by an 8-byte version (MaxUint64 - ts)
//	value
//	crc         4 bytes big-endian, CRC-32C of everything above
//
// The entries of one transaction carry walBitTxn and are followed by a
// "finish" entry with walBitFinTxn, key "!badger!txn" plus the version and
// the commit timestamp in decimal as its value. The file is preallocated,
// so after the last entry it holds zeros.
const (
	walFileHeader        = 20
	walBitTxn       byte = 1 << 6
	walBitFinTxn    byte = 1 << 7
	walMaxKeyLength      = 1 << 16 // safeRead.Entry stops at a longer key
)

// walFinKey is the user key of a transaction's finish entry.
const walFinKey = "!badger!txn"

// walEntry is one checksummed entry of a write-ahead log.
type walEntry struct {
	off, end int // where the entry starts and ends in the file
	meta     byte
	key      []byte // with its version suffix
	value    []byte
}

// decodeWALEntry decodes the entry at off in b as Badger's replay
// (safeRead.Entry) would, and reports whether it is whole and its checksum
// matches.
func decodeWALEntry(b []byte, off int) (walEntry, bool) {
	p := off
	if p+2 > len(b) {
		return walEntry{}, false
	}
	meta := b[p]
	p += 2
	var lens [3]uint64
	for i := range lens {
		v, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return walEntry{}, false
		}
		lens[i] = v
		p += n
	}
	// Badger keeps both lengths as uint32, wrapping larger values.
	klen, vlen := int(uint32(lens[0])), int(uint32(lens[1]))
	if klen > walMaxKeyLength || klen+vlen+crc32.Size > len(b)-p {
		return walEntry{}, false
	}
	kv := b[p : p+klen+vlen]
	end := p + klen + vlen + crc32.Size
	sum := crc32.Update(0, y.CastagnoliCrcTable, b[off:p+klen+vlen])
	if sum != binary.BigEndian.Uint32(b[end-crc32.Size:end]) {
		return walEntry{}, false
	}
	return walEntry{off: off, end: end, meta: meta, key: kv[:klen], value: kv[klen:]}, true
}

// walReport is what scanWAL found in one write-ahead log.
type walReport struct {
	// replayEnd is where Badger's replay stops: it keeps the entries before
	// it and truncates the file there.
	replayEnd int
	// stop is the offset of the entry at which the replay stopped.
	stop int
	// damaged, if not empty, says why the file cannot be the torn tail of an
	// ordinary crash: committed transactions follow the point where the
	// replay stops, and Badger would drop them.
	damaged string
}

// scanWAL walks a write-ahead log the way Badger replays it at Open
// (logFile.iterate) and then looks at what lies past the point where the
// replay stops, which Badger drops without a word.
//
// Telling damage from an ordinary crash rests on how Badger writes its log
// with SyncWrites on: a write request (one transaction, its entries then its
// finish entry) is copied into the memory-mapped file and the file is synced
// before the next request is written (DB.writeToLSM calls SyncWAL after every
// request, and DB.writeRequests handles requests one at a time). So when the
// process is killed or the power fails, everything up to the last finished
// sync is on disk intact, and past it lie at most the pieces of one request:
// written in any order and with holes after a power cut (pages reach the disk
// in any order), or as much as was copied after kill -9 (the page cache
// survives). This needs the disk to keep what a sync has returned for.
// Past the replay's stopping point, then, an ordinary crash leaves at most
// one finish entry, and only that of the transaction that was being written
// there, with nothing after it. Finish entries are easy to find and cannot
// appear by chance: a fixed 5-byte header, the key "!badger!txn", the
// version repeated in decimal, and a CRC-32C. scanWAL reports damage when
// past the stopping point there are two finish entries, or one for another
// transaction than the one the replay was inside, or one followed by another
// valid entry.
//
// So it sees damage followed by two committed transactions (the damaged
// one's finish entry counts if it survived), or by one when the damage
// spares the first entry of the transaction it hits. It cannot see damage
// in the last committed transaction of the file, which looks exactly like a
// torn unsynced write, nor damage to the second-last that hits both its
// first entry and its finish entry, which looks like a torn last one; nor
// damage among writes made without transactions (DB.Load, value-log GC),
// which carry no finish entries.
func scanWAL(b []byte) walReport {
	r := walReport{replayEnd: walFileHeader, stop: walFileHeader}
	if len(b) < walFileHeader {
		return r
	}
	var open uint64 // commit timestamp of the transaction being read, or 0
	off := walFileHeader
loop:
	for {
		e, ok := decodeWALEntry(b, off)
		if !ok || len(e.key) == 0 {
			break
		}
		switch {
		case e.meta&walBitTxn != 0:
			ts := y.ParseTs(e.key)
			if open == 0 {
				open = ts
			}
			if open != ts {
				break loop
			}
		case e.meta&walBitFinTxn != 0:
			ts, err := strconv.ParseUint(string(e.value), 10, 64)
			if err != nil || ts != open {
				break loop
			}
			open = 0
			r.replayEnd = e.end
		default:
			if open != 0 {
				break loop
			}
			r.replayEnd = e.end
		}
		off = e.end
	}
	r.stop = off

	fins := finishEntries(b, r.replayEnd)
	switch {
	case len(fins) >= 2:
		r.damaged = fmt.Sprintf("%d committed transactions follow byte %d, where Badger's replay would stop and drop them", len(fins), r.stop)
	case len(fins) == 1 && open != 0 && finTs(fins[0]) != open:
		r.damaged = fmt.Sprintf("a committed transaction follows byte %d, where Badger's replay would stop and drop it", r.stop)
	case len(fins) == 1:
		if next, ok := decodeWALEntry(b, fins[0].end); ok && len(next.key) > 0 {
			r.damaged = fmt.Sprintf("committed writes follow byte %d, where Badger's replay would stop and drop them", r.stop)
		}
	}
	return r
}

// finishEntries returns the valid finish entries that start at or after
// from.
func finishEntries(b []byte, from int) []walEntry {
	// A finish entry's header is always 5 bytes: meta, user meta 0, key
	// length 19, value length (at most 20, the digits of a uint64), expiry 0.
	const headerLen = 5
	var fins []walEntry
	for i := from + headerLen; i < len(b); {
		j := bytes.Index(b[i:], []byte(walFinKey))
		if j < 0 {
			break
		}
		at := i + j - headerLen
		i += j + 1
		e, ok := decodeWALEntry(b, at)
		if !ok || e.meta != walBitFinTxn || len(e.key) != len(walFinKey)+8 || !bytes.HasPrefix(e.key, []byte(walFinKey)) {
			continue
		}
		if ts, err := strconv.ParseUint(string(e.value), 10, 64); err != nil || ts != y.ParseTs(e.key) {
			continue
		}
		fins = append(fins, e)
	}
	return fins
}

// finTs returns the commit timestamp of a finish entry.
func finTs(e walEntry) uint64 { return y.ParseTs(e.key) }
