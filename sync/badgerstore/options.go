package badgerstore

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// PiOptions returns the Badger options every Badger database of the
// appliance uses, sized for a Raspberry Pi with 1–2 GiB of memory, with its
// files in dir. The raft log store opens its database with them and the FSM
// state store is expected to reuse them, so that the two together stay small.
//
// Badger's defaults are sized for servers: writing 100k small records peaked
// at about 242 MiB RSS and mapped a 2 GiB sparse value log. With this preset
// the same load peaked at about 136 MiB, and at about 95 MiB with
// GOMEMLIMIT=64MiB. (What a whole node measures is in docs/benchmarks.md,
// "Memory and start-up".) While a node writes, most of its heap is Badger's table
// builders: each builds a whole table in memory before writing it out, its
// buffers doubling as it grows, with a worst-case-sized copy of every
// compressed block beside the block, and Badger's allocator pool keeps up to
// 8 finished builders' buffers per database for reuse. Each choice, against
// Badger's default:
//
//   - MemTableSize 8 MiB (64 MiB) matters most. A memtable is an arena
//     allocated whole when it is created, and it also bounds a transaction to
//     15% of it: about 1.2 MiB or some 13,000 entries. Store splits larger
//     writes itself, so raft never sees badger.ErrTxnTooBig. The ledger's
//     state store cannot take less (replica.OpenFSM refuses it). Nor can the
//     raft log store's shrink in place: Badger replays the write-ahead log a
//     larger memtable left into an arena of the new size without checking
//     that it fits, and asserts (crashes) when it does not.
//   - NumMemtables 2 (5): one memtable taking writes while the other is
//     flushed, so at most 16 MiB of arenas.
//   - NumLevelZeroTables 2, NumLevelZeroTablesStall 4 (5, 15): compact level 0
//     early so that few tables are open and a read looks at few of them; past
//     4 tables writes wait instead of memory growing.
//   - BaseTableSize 256 KiB, BaseLevelSize 4 MiB (2 MiB, 10 MiB): small
//     tables and level targets keep each compaction short and its buffers
//     small. A table's size counts its compressed bytes, so its builder
//     holds about three times as much uncompressed beside them, in
//     buffers that double; a compaction keeps up to 8 and more builders in
//     flight, and the deepest level's tables are 2^k times the base (4 MiB
//     at five years of books from a 1 MiB base). On five years of books
//     (bench-scale, GOMEMLIMIT=64MiB) 30,000 API payments peaked at 345
//     MiB with a 1 MiB base (393 MiB of builders' buffers live in the
//     heap profile) and at 196-206 MiB with 256 KiB, in two runs; the
//     ledger holds a few hundred more table files. Compression off
//     (builders without the copy, reads without decompressing) lowered the
//     first start's index rebuild the most (Go heap and Badger's buffers
//     averaging 76-92 MiB against 331), but peaked at 256 MiB in the
//     payments (one run), takes about three times the disk (the state of
//     five years is 376 MiB of Snappy tables, its uncompressed snapshot
//     1.3 GB) and so writes about three times the bytes to the SD card,
//     and in two runs of three (each with
//     another option changed beside it) a bill import waited on Badger's
//     stalled writes past its submit wait: not kept. Tables of one size at
//     every level (TableSizeMultiplier 1, against 2) with compression on
//     peaked at 179-208 MiB in those payments (two runs, against 200-230
//     in four of this preset), and a restart mapped more table pages (the
//     stores open four times as many tables): not kept. Keeping Badger's
//     allocator pool empty (a goroutine releasing each builder's buffers
//     as they come back, which only Badger's unexported fields reach)
//     peaked at 161-180 MiB alone and at 135-155 with one table size, the
//     only settings that met 160 MiB there; but with both the November
//     certification's posting on those books took 21-29 s against 12-19,
//     and in two of five runs under load a part was not confirmed within
//     the submit wait, an answer the treasurer sees as a failure: not kept,
//     nor a dependence on another library's unexported fields.
//   - BlockCacheSize 8 MiB (256 MiB): the cache of decompressed blocks. The
//     working set (the tail of the raft log, the current ledger) is small;
//     a 1 MiB cache for the raft log store, and two compactors instead of
//     Badger's four, made no difference one could tell from the runs'
//     spread in those payments: not kept.
//   - IndexCacheSize 4 MiB (0, which keeps every table's index and bloom
//     filter in memory without bound).
//   - ValueLogFileSize 64 MiB (1 GiB): each value-log file is memory-mapped
//     at twice this size (sparse), and value-log GC reclaims space one whole
//     file at a time, so smaller files map less and free space sooner.
//   - MetricsEnabled false (true): Badger's metrics are process-wide expvar
//     globals, which the appliance does not export, and they cost CPU on
//     every read and write.
//   - SyncWrites true (false): a commit returns only once it is on disk. Raft
//     relies on StoreLogs and SetUint64 being durable when they return, and
//     the appliance will lose power without warning.
//   - ChecksumVerificationMode OnBlockRead (NoVerification): every table
//     block read from disk is checked against its CRC-32C, so a damaged
//     block is an error rather than wrong data, a silent gap in an
//     iteration, or a panic on its garbage. The cost is one checksum per
//     block read past the block cache. Whole tables are checked at open by
//     OpenDB, not by Badger, whose table check (OnTableRead,
//     OnTableAndBlockRead) crashes the process on a damaged table.
//   - VerifyValueChecksum true (false): a value read from a value-log
//     file (.vlog; values over 1 MiB) is checked against its CRC-32C, so
//     that a damaged one is an error rather than wrong bytes. Such values
//     are rare, and each is read whole anyway.
//   - Logger: Badger's warnings and errors go to slog.Default() (as it is
//     when PiOptions is called); its info and debug messages are dropped.
//     Use opts.WithLogger(NewLogger(l)) to send them elsewhere.
//
// Everything else keeps Badger's defaults. Badger v4 loses or corrupts data
// on 32-bit platforms once compaction runs, so these options are only for
// 64-bit builds (linux/arm64 on the Pi); OpenDB refuses to run elsewhere.
// Open the database with OpenDB, not badger.Open.
func PiOptions(dir string) badger.Options {
	return badger.DefaultOptions(dir).
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(4).
		WithBaseTableSize(256 << 10).
		WithBaseLevelSize(4 << 20).
		WithBlockCacheSize(8 << 20).
		WithIndexCacheSize(4 << 20).
		WithValueLogFileSize(64 << 20).
		WithMetricsEnabled(false).
		WithSyncWrites(true).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true).
		WithLogger(NewLogger(slog.Default()))
}

// NewLogger returns a badger.Logger that passes Badger's errors and warnings
// to l, tagged component=badger, and drops its info and debug messages, which
// Badger writes on every open, flush and compaction.
func NewLogger(l *slog.Logger) badger.Logger {
	return slogLogger{l: l.With("component", "badger")}
}

// slogLogger adapts log/slog to badger.Logger.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Errorf(format string, args ...any) {
	s.l.Error(message(format, args))
}

func (s slogLogger) Warningf(format string, args ...any) {
	s.l.Warn(message(format, args))
}

func (slogLogger) Infof(string, ...any)  {}
func (slogLogger) Debugf(string, ...any) {}

// message formats a Badger log line, which usually ends in a newline.
func message(format string, args []any) string {
	return strings.TrimSpace(fmt.Sprintf(format, args...))
}
