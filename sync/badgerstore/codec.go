package badgerstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/hashicorp/raft"
)

// ErrCorruptLog is wrapped by the error GetLog returns when a stored log
// entry cannot be decoded.
var ErrCorruptLog = errors.New("corrupt raft log entry")

// logVersion is the first byte of every encoded log entry. A change to the
// layout gets a new version; decodeLog rejects versions it does not know.
const logVersion byte = 1

// encodeLog encodes l as
//
//	version     1 byte, logVersion
//	type        1 byte
//	index       uvarint
//	term        uvarint
//	appendedAt  varint seconds since the Unix epoch, then uvarint nanoseconds
//	data        uvarint length, then the bytes
//	extensions  uvarint length, then the bytes
//
// The encoding is deterministic: equal logs give equal bytes. AppendedAt is
// kept to the nanosecond without its location or monotonic reading.
func encodeLog(l *raft.Log) []byte {
	b := make([]byte, 0, 2+5*binary.MaxVarintLen64+len(l.Data)+len(l.Extensions))
	b = append(b, logVersion, byte(l.Type))
	b = binary.AppendUvarint(b, l.Index)
	b = binary.AppendUvarint(b, l.Term)
	b = binary.AppendVarint(b, l.AppendedAt.Unix())
	b = binary.AppendUvarint(b, uint64(l.AppendedAt.Nanosecond()))
	b = binary.AppendUvarint(b, uint64(len(l.Data)))
	b = append(b, l.Data...)
	b = binary.AppendUvarint(b, uint64(len(l.Extensions)))
	b = append(b, l.Extensions...)
	return b
}

// decodeLog decodes an entry written by encodeLog into l. It accepts only the
// exact bytes encodeLog would write, so that a damaged entry is more likely
// to be noticed, and returns an error wrapping ErrCorruptLog otherwise; l is
// left unchanged then. Data and Extensions are copied out of b, and are nil
// when empty. AppendedAt is in UTC, or the zero time.
func decodeLog(b []byte, l *raft.Log) error {
	d := decoder{b: b}
	if v := d.byte("version"); d.err == nil && v != logVersion {
		return fmt.Errorf("%w: unknown version %d", ErrCorruptLog, v)
	}
	var out raft.Log
	out.Type = raft.LogType(d.byte("type"))
	out.Index = d.uvarint("index")
	out.Term = d.uvarint("term")
	sec := d.varint("appended-at seconds")
	nsec := d.uvarint("appended-at nanoseconds")
	if d.err == nil && nsec >= 1e9 {
		return fmt.Errorf("%w: appended-at nanoseconds %d out of range", ErrCorruptLog, nsec)
	}
	out.Data = d.bytes("data")
	out.Extensions = d.bytes("extensions")
	if d.err != nil {
		return d.err
	}
	if len(d.b) > 0 {
		return fmt.Errorf("%w: %d bytes after the entry", ErrCorruptLog, len(d.b))
	}
	if t := time.Unix(sec, int64(nsec)); !t.IsZero() {
		out.AppendedAt = t.UTC()
	}
	*l = out
	return nil
}

// decoder reads the fields of an encoded log entry in order. After the first
// failure it keeps its error and every later read returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(field, problem string) {
	d.err = fmt.Errorf("%w: %s %s", ErrCorruptLog, field, problem)
}

func (d *decoder) byte(field string) byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail(field, "missing")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	switch {
	case n == 0:
		d.fail(field, "truncated")
		return 0
	case n < 0:
		d.fail(field, "overflows 64 bits")
		return 0
	case n != (bits.Len64(v|1)+6)/7:
		// binary.Uvarint accepts padded forms such as 0x80 0x00 for 0;
		// encodeLog never writes them.
		d.fail(field, "not minimally encoded")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// varint reads a zig-zag encoded signed integer, as binary.AppendVarint
// writes it.
func (d *decoder) varint(field string) int64 {
	u := d.uvarint(field)
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *decoder) bytes(field string) []byte {
	n := d.uvarint(field + " length")
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(field, fmt.Sprintf("length %d exceeds the %d bytes left", n, len(d.b)))
		return nil
	}
	if n == 0 {
		return nil
	}
	v := make([]byte, n)
	copy(v, d.b)
	d.b = d.b[n:]
	return v
}
