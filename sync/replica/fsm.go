package replica

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// FSM applies committed log entries to the ledger state in Badger. It is
// deterministic: it reads no clock and no randomness (every command carries
// its own intake time), and it never depends on map order, so every node
// that applies the same log holds byte-identical state.
//
// The last applied index is written in the same transaction as the state it
// produced. After a restart raft replays entries the FSM already holds; they
// are skipped. A command id already applied is not applied again: its first
// result is returned, so a client may retry a command whose outcome it did
// not learn (raft.ErrLeadershipLost, a timeout) without paying twice.
type FSM struct {
	db     *badger.DB
	dir    string
	params *domain.Params
	log    *slog.Logger

	mu sync.Mutex // excludes Restore from Apply, and both from Close
	// closed is set by Close, under mu: raft may still hand the FSM a
	// batch after the node closes (a node raft shut down by itself, when
	// the cluster removed it, is not waited for by a second Shutdown).
	closed bool
	// restoring excludes reads from a snapshot restore: Badger's DropAll
	// and Load must run with no other transaction, and a read between them
	// would see an emptied ledger.
	restoring sync.RWMutex
	snapMu    sync.Mutex             // guards snaps
	snaps     map[*snapshot]struct{} // snapshots raft has not released (snapshot.go)
	applied   atomic.Uint64
	// seen is the highest log index raft has handed to ApplyBatch since
	// this process opened the ledger (entries replayed after a restart
	// included, which are skipped): a node whose seen lags its log is
	// still working through it (Node.Readiness).
	seen   atomic.Uint64
	head   []byte       // journal head hash; guarded by mu
	jseq   uint64       // journal entries so far; guarded by mu
	latest atomic.Value // domain.DateTime: the latest intake time applied
	// journaled is the journal entry last made (journal), which the
	// journal's indexes read rather than decode it again; guarded by mu.
	journaled journalEntry
	// kept holds the books' records the last batch read (keptRead), as
	// they stand committed, for the next batch; guarded by mu. Restore
	// drops them with the state they were read from.
	kept map[string][]byte

	restores atomic.Int64 // snapshots restored since open

	format     atomic.Int64                 // the ledger format ("m/format"; 1 when unset)
	halt       atomic.Pointer[HaltError]    // set when this node met an entry it cannot apply
	incomplete bool                         // a restore did not finish; see restoreMarker
	digests    digestRing                   // state hashes at recent checkpoints
	onDigest   func(index uint64, h string) // test hook: a checkpoint's hash is ready
	onSized    func(bytes int64)            // a snapshot of this size was written or restored (Node.tuneSnapshots)
	rebuildN   int                          // records an index rebuild reads a transaction; 0: rebuildBatch (tests set fewer)
	bg         sync.WaitGroup               // checkpoint hashes in progress
	// beforeCommit, if set, runs before each commit of ApplyBatch (tests
	// inject a crash between two commits of one batch).
	beforeCommit func()
	// batchBytes, if set, is what ApplyBatch commits at in place of the
	// store's transaction size (tests split a batch with small entries).
	batchBytes   int64
	pause        func(point string)            // Config.Pause
	revoked      revocations                   // the revoked node certificates (revoke.go)
	kinds        domain.Table                  // the command kinds this build applies (Config.Kinds)
	ledgerParams atomic.Pointer[domain.Params] // the ledger's parameters, once seeded (params.go)
	stats        applyStats                    // counters for the node's metrics (stats.go)
	// lazy is set when the state store does not sync its commits
	// (SyncWrites off, as a node opens it): the FSM then syncs it where
	// the package doc's Durability says, before raft may drop log entries
	// the state holds. bigValue is the size from which Badger keeps a
	// value in its value log instead of the LSM tree.
	lazy     bool
	bigValue int

	// ca is the village CA whose nodes sign the entries (Trust); nil
	// reads entries unchecked. keys are the certificates the ledger
	// holds (signed.go), by SHA-256.
	ca      *x509.Certificate
	caSum   [32]byte
	cluster string
	checked checkedEntries // entries whose signature is known good here (signed.go)
	keysMu  sync.RWMutex
	keys    map[[32]byte]*nodeKey

	// november are the tax-roll years whose November figures were asked
	// lately, and written the bills written since: Node.warmNovember
	// figures those bills again (novemberfigures.go).
	november askedYears
	readOnly bool // opened to be read: nothing node-local is written
	written  writtenBills
}

func (f *FSM) pauseAt(point string) {
	if f.pause != nil {
		f.pause(point)
	}
}

// HaltError says why a node stopped applying the log: a committed entry it
// cannot decode or apply. Skipping it would leave this node with a ledger
// that differs from its peers' from that entry on; stopping keeps what it
// has right, says so loudly (log, metric, /healthz) and lets an upgraded
// build apply the entry on the next start.
type HaltError struct {
	Index  uint64
	Reason string
}

func (e *HaltError) Error() string {
	return fmt.Sprintf("this node stopped applying the ledger at log index %d: %s; upgrade it to the release its peers run and restart it", e.Index, e.Reason)
}

// commandRecord is what the FSM keeps of every command it has seen.
// It keeps the command itself (id, kind, actor, node, intake time and
// payload) beside its log index and result.
type commandRecord struct {
	Index   uint64          `json:"index"`
	Command *domain.Command `json:"command,omitempty"`
	Result  domain.Result   `json:"result"`
}

// journalEntry is one link of the hash chain over every command applied or
// refused. Hash = SHA-256(Prev ‖ the entry's JSON with Hash empty). Entries
// are numbered by their own sequence, not the raft index, so a ledger
// restored into a new cluster keeps its journal.
type journalEntry struct {
	Seq       uint64          `json:"seq"`
	Index     uint64          `json:"index"`
	CommandID string          `json:"command_id"`
	Kind      domain.Kind     `json:"kind"`
	Actor     string          `json:"actor"`
	Node      string          `json:"node"`
	At        domain.DateTime `json:"at"`
	Outcome   string          `json:"outcome"` // "applied" or "refused"
	Error     string          `json:"error,omitempty"`
	Prev      string          `json:"prev"`
	Hash      string          `json:"hash"`
}

// OpenFSM opens the FSM's state in a Badger store at opts.Dir.
func OpenFSM(opts badger.Options, params *domain.Params, logger *slog.Logger) (*FSM, error) {
	db, err := badgerstore.OpenDB(opts, "ledger state")
	if err != nil {
		return nil, err
	}
	if db.MaxBatchSize() < ledgerMaxCommandBytes || db.MaxBatchCount() < ledgerMaxCommandWrites {
		db.Close()
		return nil, fmt.Errorf("replica: the ledger state store's transactions hold %d bytes and %d entries, less than one command may write (%d, %d): open it with a larger memtable (badgerstore.PiOptions)",
			db.MaxBatchSize(), db.MaxBatchCount(), ledgerMaxCommandBytes, ledgerMaxCommandWrites)
	}
	f := &FSM{db: db, dir: opts.Dir, params: params, log: logger, kinds: domain.Kinds, snaps: map[*snapshot]struct{}{},
		lazy: !opts.SyncWrites, bigValue: int(opts.ValueThreshold), readOnly: opts.ReadOnly}
	if err := f.loadMeta(); err != nil {
		db.Close()
		return nil, err
	}
	if err := f.loadAsked(); err != nil {
		db.Close()
		return nil, fmt.Errorf("replica: %w", err)
	}
	if _, err := os.Stat(restoreMarker(opts.Dir)); err == nil {
		f.incomplete = true
	} else if opts.ReadOnly {
		// A store opened to be read (verify, a backup's check) is not
		// changed; its node-local indexes are rebuilt when a node opens
		// it to serve.
	} else if err := f.reindexIfStale(); err != nil {
		db.Close()
		return nil, err
	} else if err := f.checkJournalIndex(); err != nil {
		// A restore under way indexes what it brings when it ends.
		db.Close()
		return nil, err
	} else if err := f.checkJournalTally(); err != nil {
		db.Close()
		return nil, err
	}
	return f, nil
}

// Incomplete reports whether a snapshot restore was under way when this
// node last stopped: the state is partial until a snapshot is restored
// again (Node.open has raft restore its latest one at start).
func (f *FSM) Incomplete() bool { return f.incomplete }

// Halted returns the *HaltError that stopped this node applying the log,
// or nil.
func (f *FSM) Halted() error {
	if h := f.halt.Load(); h != nil {
		return h
	}
	return nil
}

// Format returns the ledger format of this replica.
func (f *FSM) Format() int { return int(f.format.Load()) }

func (f *FSM) loadMeta() error {
	return f.db.View(func(txn *badger.Txn) error {
		f.applied.Store(0)
		f.head, f.jseq = nil, 0
		f.latest.Store(domain.DateTime{})
		f.format.Store(1)
		if item, err := txn.Get(keyFormat); err == nil {
			v, err := item.ValueCopy(nil)
			if err != nil || len(v) != 8 {
				return fmt.Errorf("read ledger format: %v", err)
			}
			f.format.Store(int64(binary.BigEndian.Uint64(v)))
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("read ledger format: %w", err)
		}
		if item, err := txn.Get(keyLatest); err == nil {
			var at domain.DateTime
			if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &at) }); err != nil {
				return fmt.Errorf("read latest intake time: %w", err)
			}
			f.latest.Store(at)
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("read latest intake time: %w", err)
		}
		if item, err := txn.Get(keyApplied); err == nil {
			v, err := item.ValueCopy(nil)
			if err != nil || len(v) != 8 {
				return fmt.Errorf("read applied index: %v", err)
			}
			f.applied.Store(binary.BigEndian.Uint64(v))
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("read applied index: %w", err)
		}
		if err := f.loadRevocations(txn); err != nil {
			return err
		}
		if err := f.loadNodeKeys(txn); err != nil {
			return err
		}
		if err := f.loadParams(txn); err != nil {
			return err
		}
		if item, err := txn.Get(keyJournal); err == nil {
			v, err := item.ValueCopy(nil)
			if err != nil || len(v) < 8 {
				return fmt.Errorf("read journal head: %v", err)
			}
			f.jseq, f.head = binary.BigEndian.Uint64(v[:8]), v[8:]
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("read journal head: %w", err)
		}
		return nil
	})
}

// Latest returns the latest intake time of any command applied, the
// village clock's floor: a node whose clock reads earlier is wrong.
func (f *FSM) Latest() domain.DateTime {
	at, _ := f.latest.Load().(domain.DateTime)
	return at
}

// MaxSeq returns the highest receipt sequence of node in any command the
// ledger has seen.
func (f *FSM) MaxSeq(node string) uint64 {
	var seq uint64
	f.view(func(txn *badger.Txn) error {
		item, err := txn.Get(key(prefixMeta, "seq/", node))
		if err != nil {
			return nil
		}
		return item.Value(func(v []byte) error {
			if len(v) == 8 {
				seq = binary.BigEndian.Uint64(v)
			}
			return nil
		})
	})
	return seq
}

// Exceptions returns the refused commands, by command id.
func (f *FSM) Exceptions() ([]domain.Exception, error) {
	var out []domain.Exception
	err := f.List(domain.CollectionExceptions, "", func(_ string, raw []byte) error {
		var e domain.Exception
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// Restores returns how many snapshots were restored since the FSM opened.
func (f *FSM) Restores() int64 { return f.restores.Load() }

// view runs a read transaction, never during a restore.
func (f *FSM) view(fn func(txn *badger.Txn) error) error {
	f.restoring.RLock()
	defer f.restoring.RUnlock()
	return f.db.View(fn)
}

// syncState makes every commit so far durable, if the store does not
// sync its commits itself.
func (f *FSM) syncState() error {
	if !f.lazy {
		return nil
	}
	if err := f.db.Sync(); err != nil {
		return fmt.Errorf("sync ledger state: %w", err)
	}
	return nil
}

// Close waits for checkpoint hashes in progress and closes the state store.
func (f *FSM) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.bg.Wait()
	if err := f.markDerivedClosed(); err != nil {
		f.log.Warn("derived indexes not marked as closed: they are built again at the next start", "err", err)
	}
	return f.db.Close()
}

// errClosing answers an entry handed to the FSM after Close: nothing is
// applied, so the entry applies after the node's restart, from the log.
var errClosing = domain.Errorf(domain.EUNAVAILABLE, "", "This node's ledger is closing; the entry applies when the node starts again.")

// DB returns the state store, for reads and backups.
func (f *FSM) DB() *badger.DB { return f.db }

// Applied returns the index of the last command applied.
func (f *FSM) Applied() uint64 { return f.applied.Load() }

// Apply applies one committed entry.
func (f *FSM) Apply(l *raft.Log) any { return f.ApplyBatch([]*raft.Log{l})[0] }

// ApplyBatch applies committed entries in one Badger transaction, or in
// several when they do not fit in one. An entry's writes, its applied
// index and its journal link always commit together: the batch is split
// only between entries, before an entry whose writes would overflow the
// transaction, so a crash at any moment leaves whole entries only. Each
// response is a domain.Result; a command the rules refuse has Result.Error
// set and changes nothing but the record that it was seen.
//
// An entry this build cannot decode halts the FSM (see HaltError): it and
// every later entry are left unapplied, answered with the halt error.
//
// A storage failure while applying panics: a replica that cannot write its
// state must stop rather than acknowledge and diverge.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	f.pauseAt("fsm.apply")
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]any, len(logs))
	if f.closed {
		for i, l := range logs {
			out[i] = domain.Result{Index: l.Index, Error: errClosing}
		}
		return out
	}
	start := time.Now()
	b := f.newBatch()
	defer b.discard()
	applied := f.applied.Load()
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		if h := f.halt.Load(); h != nil {
			out[i] = domain.Result{Index: l.Index, Error: domain.Errorf(domain.EUNAVAILABLE, "", "%s", h.Error())}
			continue
		}
		if l.Index <= applied {
			if isGroup(l.Data) {
				out[i] = f.replayedGroup(b, l)
			} else {
				out[i] = f.replayed(b.txn, l)
			}
			continue
		}
		if isGroup(l.Data) {
			var ok bool
			if out[i], ok = f.applyGroup(b, l); ok { // group.go
				applied = l.Index
			}
			continue
		}
		op, err := f.open(l.Data)
		var nu *unsigned
		if errors.As(err, &nu) {
			res, writes := f.refuseEntry(l.Index, op.cmd, nu)
			writes = f.indexJournal(b.txn, res, f.indexJournalTally(b.txn, res, writes))
			out[i] = res
			b.add(append(writes, kv{keyApplied, uint64Bytes(l.Index)}, kv{keyJournal, append(uint64Bytes(f.jseq), f.head...)}))
			applied = l.Index
			continue
		}
		if err != nil {
			h := &HaltError{Index: l.Index, Reason: err.Error()}
			f.halt.Store(h)
			f.log.Error("halting: a committed log entry cannot be applied", "index", l.Index, "err", err)
			out[i] = domain.Result{Index: l.Index, Error: domain.Errorf(domain.EUNAVAILABLE, "", "%s", h.Error())}
			continue
		}
		cmd := op.cmd
		res, writes := f.applyOne(b, l.Index, op, len(l.Data))
		writes = f.indexJournal(b.txn, res, f.indexJournalTally(b.txn, res, writes)) // journalindex.go, journaltally.go
		out[i] = res
		f.stats.command(cmd, res)
		writes = append(writes, kv{keyApplied, uint64Bytes(l.Index)}, kv{keyJournal, append(uint64Bytes(f.jseq), f.head...)})
		f.addIndexed(b, writes) // with the parcels' and bills' index writes (parcelindex.go)
		applied = l.Index
		if cmd.Kind == domain.KindResolution && res.Error == nil {
			// Later entries compute with the new parameters, on every
			// replica alike.
			if err := f.loadParams(b.txn); err != nil {
				panic(fmt.Sprintf("replica: %v", err))
			}
		}
		if cmd.Kind == domain.KindCheckpoint && res.Error == nil {
			// The hash must see exactly the state at this index: commit
			// what the batch holds, then read before the next entry.
			b.commit()
			f.applied.Store(applied)
			f.hashCheckpoint(l.Index)
		}
	}
	b.commit()
	f.kept = b.reads
	f.applied.Store(applied)
	if n := len(logs); n > 0 && logs[n-1].Index > f.seen.Load() {
		f.seen.Store(logs[n-1].Index)
	}
	f.stats.batch(time.Since(start))
	return out
}

// Seen returns the highest log index handed to the FSM since it opened.
func (f *FSM) Seen() uint64 { return f.seen.Load() }

// batch is the write transaction of ApplyBatch with a running estimate
// of its size, so that it is committed before an entry that would not fit
// rather than failing half way through one.
type batch struct {
	f            *FSM
	txn          *badger.Txn
	size, count  int64
	hasWrites    bool
	bigValue     bool // a value goes to Badger's value log (see commit)
	maxSize, max int64
	bills        []string // the bills the transaction writes (FSM.billWritten once it commits)
	// reads holds what the commands of this transaction read from it, as
	// overlay.read, kept current by add: the payments of a batch read the
	// same chart, books' meta records and totals one after another. At a
	// commit the books' records stay (keptRead) and the rest go; the next
	// batch starts from what the last one kept (FSM.kept).
	reads map[string][]byte
	// decoded holds the bill records decoded in this batch, by id, for
	// overlay.Bill and the indexes of a bill written (addIndexed).
	decoded map[string]decodedBill
}

// maxBatchReads is how many records a batch keeps read (batch.reads,
// batch.decoded) from one entry to the next, and the FSM from one batch
// to the next (FSM.kept). A payment reads about twenty, most of them the
// same as the payment before it; a replay after a restart takes batches
// of hundreds of entries, and a larger cache raised the node's memory
// there by tens of MiB.
const maxBatchReads = 512

// A Badger transaction starts out holding one entry of its own, the
// marker that ends it on disk, counted as len("!badger!txn") + 10 bytes
// (txn.go newTransaction).
const (
	txnBaseSize  = int64(len("!badger!txn") + 10)
	txnBaseCount = 1
)

func (f *FSM) newBatch() *batch {
	reads := f.kept
	if reads == nil {
		reads = map[string][]byte{}
	}
	f.kept = nil
	b := &batch{f: f, txn: f.db.NewTransaction(true), size: txnBaseSize, count: txnBaseCount,
		maxSize: f.db.MaxBatchSize(), max: f.db.MaxBatchCount(), reads: reads, decoded: map[string]decodedBill{}}
	if f.batchBytes > 0 {
		b.maxSize = f.batchBytes
	}
	return b
}

// add writes one entry's writes, first committing the entries before it
// if this one would overflow the transaction. The estimate is Badger's own
// (txn.go checkSize: key + value + 12 bytes an entry, exact for values kept
// in the LSM tree and an upper bound for larger ones), so Set never fails
// with ErrTxnTooBig: FSM.tooBig has already refused any single entry that
// could not fit in an empty transaction.
func (b *batch) add(writes []kv) {
	var size int64
	for _, w := range writes {
		size += int64(len(w.k) + len(w.v) + 12)
		if len(w.v) >= b.f.bigValue {
			b.bigValue = true
		}
	}
	if b.hasWrites && (b.size+size >= b.maxSize || b.count+int64(len(writes)) >= b.max) {
		b.commit()
	}
	if err := setAll(b.txn, writes); err != nil {
		// Nothing of this transaction has been committed: the entries in
		// it are lost with the process and raft applies them again.
		panic(fmt.Sprintf("replica: write ledger state: %v (batch %d bytes in %d writes, this entry %d bytes in %d, limits %d/%d)", err, b.size, b.count, size, len(writes), b.maxSize, b.max))
	}
	for _, w := range writes {
		if _, ok := b.reads[string(w.k)]; ok {
			b.reads[string(w.k)] = w.v // nil: deleted
		}
	}
	// Between entries, a transaction that has read a great deal (a run
	// over every bill of a year, a long replay) starts its next entry's
	// reads afresh rather than hold them all until it commits.
	if len(b.reads) > maxBatchReads {
		clear(b.reads)
	}
	if len(b.decoded) > maxBatchReads {
		clear(b.decoded)
	}
	b.size += size
	b.count += int64(len(writes))
	b.hasWrites = true
}

// commit commits the writes so far and starts a new transaction.
func (b *batch) commit() {
	if b.hasWrites {
		if b.f.beforeCommit != nil {
			b.f.beforeCommit()
		}
		b.f.pauseAt("fsm.commit")
		if err := b.txn.Commit(); err != nil {
			panic(fmt.Sprintf("replica: commit ledger state: %v", err))
		}
		if b.bigValue {
			// Unsynced, the write-ahead entry pointing into the value
			// log could reach the disk before the value it points to.
			if err := b.f.syncState(); err != nil {
				panic(fmt.Sprintf("replica: %v", err))
			}
		}
		for _, id := range b.bills {
			b.f.billWritten(id)
		}
	} else {
		b.txn.Discard()
	}
	b.txn = b.f.db.NewTransaction(true)
	b.size, b.count, b.hasWrites, b.bigValue, b.bills = txnBaseSize, txnBaseCount, false, false, b.bills[:0]
	for k := range b.reads {
		if !keptRead(k) {
			delete(b.reads, k)
		}
	}
}

// keptRead reports whether a record read by one transaction of the FSM
// is kept for the next (FSM.kept): the chart, the books' meta records and
// their totals by year, day and month, which nearly every payment reads
// and writes. They are kept current as every write of the state goes in
// (batch.add), the FSM being the only writer of them but for a restore.
func keptRead(k string) bool {
	for _, p := range keptPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

var keptPrefixes = []string{
	string(recordKey(domain.CollectionChart, "")),
	string(recordKey(domain.CollectionBookMeta, "")),
	string(recordKey(domain.CollectionBookYears, "")),
	string(recordKey(domain.CollectionBookDays, "")),
	string(recordKey(domain.CollectionBookCardDays, "")),
	string(recordKey(domain.CollectionActuals, "")),
}

func (b *batch) discard() { b.txn.Discard() }

// open reads a committed entry: a signed one is checked (signed.go) where
// the ledger's format asks for signatures; an FSM that checks none (no
// village CA) reads either form unchecked. The error is an *unsigned
// (refuse the entry) or another (halt).
func (f *FSM) open(data []byte) (opened, error) {
	switch {
	case f.checksSignatures() && !signed(data):
		// Read, untrusted, only to name it in the journal and answer
		// its sender: a node that encoded it before the ledger's format
		// asked for signatures sends it again, signed (answers).
		cmd, _ := f.kinds.Decode(data)
		return opened{cmd: cmd}, &unsigned{"it is not signed"}
	case f.checksSignatures():
		op, err := f.openEntry(data)
		var h *halting
		if errors.As(err, &h) {
			return op, h.err
		}
		return op, err
	case signed(data) && f.ca != nil:
		return opened{}, &unsigned{fmt.Sprintf("signed entries are taken from ledger format %d (the ledger is at %d)", signedFormat, f.Format())}
	case signed(data):
		env, err := parseEnvelope(data)
		if err != nil {
			return opened{}, &unsigned{err.Error()}
		}
		data = env.command
	}
	cmd, err := f.kinds.Decode(data)
	if err != nil {
		return opened{}, fmt.Errorf("the entry cannot be decoded by this build (ledger format %d): %w", domain.LedgerFormat, err)
	}
	return opened{cmd: cmd}, nil
}

// refuseEntry journals an entry that is not what a node of this cluster
// signed, and changes nothing else: its command id stays free, no
// sequence is used, the latest date does not move.
func (f *FSM) refuseEntry(index uint64, cmd domain.Command, why *unsigned) (domain.Result, []kv) {
	if cmd.ID == "" {
		cmd.ID = fmt.Sprintf("entry-%d", index)
	}
	res := domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index, Error: domain.Errorf(domain.EUNAUTHENTICATED, "", "%s", why.Error())}
	f.stats.refusedEntry()
	f.log.Warn("refused a log entry no node of this cluster signed", "index", index, "reason", why.reason)
	return res, []kv{f.journal(index, cmd, res)}
}

// replayed answers for an entry at or below the applied index (replayed
// after a restart): its stored result, if it decodes.
func (f *FSM) replayed(txn *badger.Txn, l *raft.Log) any {
	data := l.Data
	if env, err := parseEnvelope(data); err == nil {
		data = env.command
	}
	cmd, err := f.kinds.Decode(data)
	if err != nil {
		return domain.Result{Error: domain.Errorf(domain.EINVALID, "", "undecodable command")}
	}
	if rec, ok, err := getJSON[commandRecord](txn, key(prefixCommand, cmd.ID)); err == nil && ok {
		return rec.Result
	}
	return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind}
}

type kv struct{ k, v []byte }

func setAll(txn *badger.Txn, writes []kv) error {
	for _, w := range writes {
		var err error
		if w.v == nil {
			err = txn.Delete(w.k)
		} else {
			err = txn.Set(w.k, w.v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// applyOne runs one command and returns its result and every write it
// makes: the records, the dedupe record and the journal link.
func (f *FSM) applyOne(b *batch, index uint64, op opened, size int) (domain.Result, []kv) {
	txn, cmd := b.txn, op.cmd
	var keyWrites []kv
	if op.newKey != nil {
		keyWrites = append(keyWrites, f.keyWrite(op.newKey, op.keySum))
	}
	if cmd.Kind == domain.KindCheckpoint && f.kinds.Since(cmd.Kind) <= f.Format() {
		// Nothing to record: its index is the point the replicas hash.
		return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index}, keyWrites
	}
	rec, seen, err := getJSON[commandRecord](txn, key(prefixCommand, cmd.ID))
	if err != nil {
		panic(fmt.Sprintf("replica: read command record: %v", err))
	}
	if seen {
		if !sameRequest(rec.Command, cmd) && f.Format() >= 2 {
			// The id was used for another request: this one is refused,
			// the first keeps its record (ledger format 2).
			return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index, Error: errReused(cmd.ID)}, keyWrites
		}
		return rec.Result, append(keyWrites, f.aliasWrites(txn, cmd, rec)...)
	}
	ov := &overlay{txn: txn, writes: map[string][]byte{}, format: f.Format(), read: b.reads, bills: b.decoded}
	var res domain.Result
	seqErr, err := f.checkSequence(txn, cmd)
	if err != nil {
		panic(fmt.Sprintf("replica: read receipt sequences: %v", err))
	}
	if seqErr == nil {
		seqErr = f.checkAuthority(ov, op, cmd)
	}
	switch {
	case seqErr != nil:
		err = seqErr
	case cmd.Kind != domain.KindLedgerFormat && f.kinds.Since(cmd.Kind) > f.Format():
		// The leader checks this before proposing; a forged or racing
		// proposal is refused the same way on every replica.
		err = domain.Errorf(domain.EUNAVAILABLE, "", "The ledger cannot take %s records until every node runs a release with ledger format %d (the cluster runs format %d).", cmd.Kind, f.kinds.Since(cmd.Kind), f.Format())
	case cmd.Kind == domain.KindLedgerFormat:
		res, err = f.applyLedgerFormat(ov, cmd, index)
	case cmd.Kind == domain.KindRevokeNode:
		res, err = f.applyRevokeNode(ov, cmd, index)
	case cmd.Kind == domain.KindNodeMark:
		res, err = f.applyNodeMark(ov, cmd, index)
	default:
		res, err = f.kinds.Apply(ov, cmd, domain.Env{Index: index, Params: f.Params()})
	}
	if err == nil && f.tooBig(ov, size) {
		// The limit is the ledger's, not the local store's, so every
		// replica refuses the same command here; applying it would fail
		// the transaction and crash-loop the node on this entry.
		err = errTooBig(ov, size, f.Format())
	}
	var writes []kv
	if err != nil {
		var de *domain.Error
		if !errors.As(err, &de) {
			panic(fmt.Sprintf("replica: apply command %s at %d: %v", cmd.ID, index, err))
		}
		res = domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index, Error: de}
		// A refused command is an exception for the clerk to resolve, on
		// every node: a replayed offline payment whose premise changed ends
		// here rather than disappearing.
		ex, _ := json.Marshal(domain.Exception{Index: index, Command: keepable(cmd, size), Error: de})
		writes = append(writes, kv{recordKey(domain.CollectionExceptions, cmd.ID), ex})
	} else {
		writes = ov.sorted()
	}
	writes = append(writes, keyWrites...)
	writes = append(writes, f.seqWrites(txn, cmd)...)
	if seqErr == nil && cmd.Seq != 0 && f.Format() >= signedFormat {
		writes = append(writes, seqUsedWrite(cmd))
	}
	// The village clock's floor moves with what the cluster's own nodes
	// date; from the signed format a kiosk's date does not move it, so
	// that no command a stolen kiosk signs, dated ahead, can make every
	// node refuse to date payments.
	if cmd.At.After(f.Latest()) && (!f.checksSignatures() || op.role == domain.NodeClerk || op.role == domain.NodeBackup) {
		f.latest.Store(cmd.At)
		at, _ := json.Marshal(cmd.At)
		writes = append(writes, kv{keyLatest, at})
	}
	kept := keepable(cmd, size)
	body, _ := json.Marshal(commandRecord{Index: index, Command: &kept, Result: res})
	writes = append(writes, kv{key(prefixCommand, cmd.ID), body}, f.journal(index, cmd, res))
	return res, writes
}

// seqWrites keeps the highest receipt sequence each node has used.
func (f *FSM) seqWrites(txn *badger.Txn, cmd domain.Command) []kv {
	if cmd.Seq == 0 {
		return nil
	}
	seqKey := key(prefixMeta, "seq/", cmd.Node)
	var cur uint64
	if item, err := txn.Get(seqKey); err == nil {
		item.Value(func(v []byte) error {
			if len(v) == 8 {
				cur = binary.BigEndian.Uint64(v)
			}
			return nil
		})
	}
	if cmd.Seq > cur {
		return []kv{{seqKey, uint64Bytes(cmd.Seq)}}
	}
	return nil
}

// aliasWrites answers a second delivery of a command under another
// receipt number: a client that retried a payment at another node (its
// first try's answer lost with the node it went to) holds that node's
// provisional number. The ledger applies the command once, under the
// first number, and records the second as an alias of it, so either
// number finds the one posted receipt (FSM.Receipt).
func (f *FSM) aliasWrites(txn *badger.Txn, cmd domain.Command, rec commandRecord) []kv {
	if cmd.Seq == 0 || rec.Command == nil || rec.Result.Receipt == nil {
		return nil
	}
	first := rec.Command.ReceiptNumber()
	again := cmd.ReceiptNumber()
	if again == first {
		return nil
	}
	if f.Format() >= signedFormat {
		if _, err := txn.Get(seqRecordKey(prefixSeqUsed, cmd.Node, cmd.Seq)); err == nil {
			return nil // that number is another command's: it is no alias
		}
	}
	writes := append(f.seqWrites(txn, cmd), kv{key(prefixAlias, again), []byte(rec.Result.Receipt.Number)})
	if f.Format() >= signedFormat {
		writes = append(writes, seqUsedWrite(cmd))
	}
	return writes
}

// applyLedgerFormat raises the ledger format. It never lowers it, and it
// refuses a format this build does not know (a node that does not know
// the format would not have decoded the command).
func (f *FSM) applyLedgerFormat(ov *overlay, cmd domain.Command, index uint64) (domain.Result, error) {
	to := cmd.Payload.(*domain.LedgerFormatChange).To
	res := domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index}
	switch {
	case to > domain.LedgerFormat:
		return res, domain.Errorf(domain.EINVALID, "", "ledger format %d is newer than this build's (%d)", to, domain.LedgerFormat)
	case to <= f.Format():
		res.Note = fmt.Sprintf("ledger format is already %d", f.Format())
		return res, nil
	}
	ov.writes[string(keyFormat)] = uint64Bytes(uint64(to))
	ov.format = to
	// A ledger that reaches the format of the books with a chart opens
	// them here, at this index on every replica.
	if err := domain.OpenBooks(ov, cmd, domain.Env{Index: index, Params: f.Params()}); err != nil {
		return res, err
	}
	// Only a raise that applies moves the format the next entries apply
	// at: a refused one writes nothing.
	f.format.Store(int64(to))
	res.Note = fmt.Sprintf("ledger format raised to %d", to)
	return res, nil
}

// maxKeptPayload is the largest command whose payload the ledger keeps
// beside its result; a bigger one (a bulk import) keeps its header only:
// its effects are in the records it wrote.
const maxKeptPayload = 64 << 10

// keepable returns cmd as the ledger keeps it: whole, or without payload
// when it is larger than maxKeptPayload.
func keepable(cmd domain.Command, size int) domain.Command {
	if size <= maxKeptPayload {
		return cmd
	}
	return domain.Command{V: cmd.V, ID: cmd.ID, Kind: cmd.Kind, At: cmd.At, Node: cmd.Node, Seq: cmd.Seq, Actor: cmd.Actor}
}

// The most one command may write, with its own record and the batch's
// bookkeeping: a rule of the ledger, the same on every replica and in every
// release whatever Badger options a node runs with, so that no two nodes can
// disagree on whether a command is refused. (These are what a fresh
// transaction holds with badgerstore.PiOptions' 8 MiB memtable; OpenFSM
// refuses a store whose transactions hold less. Changing them changes what
// the ledger refuses: that needs a ledger format of its own.)
const (
	ledgerMaxCommandBytes  = 1258291
	ledgerMaxCommandWrites = 13107
)

// tooBig reports whether a command's writes, with its own record (which
// keeps the command, at most maxKeptPayload of it) and the batch's
// bookkeeping, exceed what the ledger lets one command write. The estimate
// follows Badger's own (key + value + 12 bytes an entry), which is exact
// for values kept in the LSM tree, as all ledger values are, so a command
// under the limit always fits in one fresh transaction.
func (f *FSM) tooBig(ov *overlay, cmdSize int) bool {
	const perEntry, bookkeeping = 12, 16 << 10
	size, count := int64(min(cmdSize, maxKeptPayload)+bookkeeping), int64(16)
	for k, v := range ov.writes {
		size += int64(len(k) + len(v) + perEntry)
		count++
	}
	return size >= ledgerMaxCommandBytes || count >= ledgerMaxCommandWrites
}

// errTooBig is the refusal of a command tooBig: from ledger format 8 it
// names the size, which is what a single large record (a list of every
// bill) exceeds; before, the count of records, as earlier releases
// recorded it.
func errTooBig(ov *overlay, cmdSize, format int) error {
	if format < domain.RunPartsFormat {
		return domain.Errorf(domain.EINVALID, "", "This change writes %d records, too many to apply at once; split it into smaller ones.", len(ov.writes))
	}
	size := min(cmdSize, maxKeptPayload)
	for k, v := range ov.writes {
		size += len(k) + len(v)
	}
	return domain.Errorf(domain.EINVALID, "", "This change writes %d records (%d KiB), more than one entry of the ledger may write (%d records, %d KiB); split it into smaller ones.",
		len(ov.writes), size>>10, ledgerMaxCommandWrites, ledgerMaxCommandBytes>>10)
}

// journal returns the journal write for a command's outcome and moves the
// chain's head.
func (f *FSM) journal(index uint64, cmd domain.Command, res domain.Result) kv {
	f.jseq++
	e := journalEntry{
		Seq: f.jseq, Index: index, CommandID: cmd.ID, Kind: cmd.Kind, Actor: cmd.Actor, Node: cmd.Node, At: cmd.At,
		Outcome: "applied", Prev: hex.EncodeToString(f.head),
	}
	if res.Error != nil {
		e.Outcome, e.Error = "refused", res.Error.Error()
	}
	e.Hash = hex.EncodeToString(journalHash(e))
	f.head, _ = hex.DecodeString(e.Hash)
	f.journaled = e
	body, _ := json.Marshal(e)
	return kv{journalKey(f.jseq), body}
}

// journalWrite returns the journal entry among a command's writes, the
// last one when there are several; ok is false when there is none.
func (f *FSM) journalWrite(writes []kv) (journalEntry, bool) {
	for i := len(writes) - 1; i >= 0; i-- {
		k := writes[i].k
		if len(k) != len(prefixJournal)+8 || !bytes.HasPrefix(k, []byte(prefixJournal)) {
			continue
		}
		if binary.BigEndian.Uint64(k[len(prefixJournal):]) == f.journaled.Seq && f.journaled.Seq != 0 {
			return f.journaled, true
		}
		var e journalEntry
		if err := json.Unmarshal(writes[i].v, &e); err != nil {
			panic(fmt.Sprintf("replica: read back journal entry: %v", err))
		}
		return e, true
	}
	return journalEntry{}, false
}

func journalHash(e journalEntry) []byte {
	e.Hash = ""
	body, _ := json.Marshal(e)
	prev, _ := hex.DecodeString(e.Prev)
	h := sha256.New()
	h.Write(prev)
	h.Write(body)
	return h.Sum(nil)
}

// StateHash returns a SHA-256 over every replicated key and value of the
// ledger state in key order. Replicas that applied the same log have the
// same hash.
func (f *FSM) StateHash() (string, error) {
	var sum string
	err := f.view(func(txn *badger.Txn) error {
		var err error
		sum, err = hashState(txn)
		return err
	})
	return sum, err
}

// hashState hashes every replicated key and value txn sees.
func hashState(txn *badger.Txn) (string, error) {
	h := sha256.New()
	it := replicatedKeys(txn)
	defer it.Close()
	var n [8]byte
	for it.Seek(firstReplicated); it.Valid(); it.Next() {
		item := it.Item()
		binary.BigEndian.PutUint64(n[:], uint64(len(item.Key())))
		h.Write(n[:])
		h.Write(item.Key())
		err := item.Value(func(v []byte) error {
			binary.BigEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write(v)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// JournalEntry is one link of the journal as readers see it.
type JournalEntry = journalEntry

// Journal calls fn with every journal entry in order, until fn returns an
// error.
func (f *FSM) Journal(fn func(JournalEntry) error) error {
	return f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJournal), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var e journalEntry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("journal entry %x: %w", it.Item().Key(), err)
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// VerifyJournal walks the journal and checks every link of the hash chain.
// It returns the number of entries checked.
func (f *FSM) VerifyJournal() (int, error) {
	n := 0
	err := f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJournal), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		prev := ""
		for it.Rewind(); it.Valid(); it.Next() {
			var e journalEntry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("journal entry %x: %w", it.Item().Key(), err)
			}
			if e.Prev != prev {
				return fmt.Errorf("journal entry %d (index %d): previous hash %s does not match %s", e.Seq, e.Index, e.Prev, prev)
			}
			if got := hex.EncodeToString(journalHash(e)); got != e.Hash {
				return fmt.Errorf("journal entry %d (index %d): hash %s does not match its content (%s)", e.Seq, e.Index, e.Hash, got)
			}
			if e.Seq != uint64(n+1) {
				return fmt.Errorf("journal entry %d found where %d was expected: an entry is missing", e.Seq, n+1)
			}
			prev = e.Hash
			n++
		}
		return nil
	})
	return n, err
}

// overlay is the domain.Tx of one command: reads see the transaction and
// the command's own writes; writes are held back until the command
// succeeds, so a refused command changes nothing.
type overlay struct {
	txn    *badger.Txn
	writes map[string][]byte
	format int // the ledger format in force for this command
	// read holds what was read from txn (nil: not there): a payment
	// reads the chart of accounts, the books' year and the actuals more
	// than once, and the payments of one transaction read the same
	// records (batch.reads).
	read map[string][]byte
	// bills holds the bill records decoded (overlay.Bill; batch.decoded).
	bills map[string]decodedBill
}

func (o *overlay) sorted() []kv {
	out := make([]kv, 0, len(o.writes))
	for k, v := range o.writes {
		out = append(out, kv{[]byte(k), v})
	}
	// Order does not change the committed state, but a fixed order keeps
	// transaction splitting and any error identical on every replica.
	slices.SortFunc(out, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	return out
}

// get returns the value of k as the command sees it. The bytes are
// shared with later reads of k: a caller decodes them, never changes them.
func (o *overlay) get(k []byte) ([]byte, bool, error) {
	if v, ok := o.writes[string(k)]; ok {
		return v, v != nil, nil
	}
	if v, ok := o.read[string(k)]; ok {
		return v, v != nil, nil
	}
	var v []byte
	item, err := o.txn.Get(k)
	switch {
	case errors.Is(err, badger.ErrKeyNotFound):
	case err != nil:
		return nil, false, err
	default:
		if v, err = item.ValueCopy(nil); err != nil {
			return nil, false, err
		}
		if v == nil {
			v = []byte{}
		}
	}
	if o.read == nil {
		o.read = map[string][]byte{}
	}
	o.read[string(k)] = v
	return v, v != nil, nil
}

func (o *overlay) put(k []byte, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.writes[string(k)] = body
	return nil
}

func overlayGet[T any](o *overlay, k []byte) (T, bool, error) {
	var v T
	body, ok, err := o.get(k)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return v, false, fmt.Errorf("decode %s: %w", k, err)
	}
	return v, true, nil
}

// LedgerFormat is the ledger's format when the command applies: the
// rules of domain.RulesFormat.
func (o *overlay) LedgerFormat() int { return o.format }

func (o *overlay) Bill(id string) (domain.Bill, bool, error) {
	body, ok, err := o.get(key(prefixBill, id))
	if err != nil || !ok {
		return domain.Bill{}, false, err
	}
	// A payment reads its bill three times (the §5.10 check, the
	// posting, the actuals of its revenue account) and the indexes read
	// the bill it wrote; a record is decoded once for as long as its
	// bytes stay the same.
	if d, hit := o.bills[id]; hit && bytes.Equal(d.body, body) {
		return d.bill.Clone(), true, nil
	}
	var b domain.Bill
	if err := json.Unmarshal(body, &b); err != nil {
		return domain.Bill{}, false, fmt.Errorf("decode %s%s: %w", prefixBill, id, err)
	}
	if o.bills == nil {
		o.bills = map[string]decodedBill{}
	}
	o.bills[id] = decodedBill{body: body, bill: b.Clone()}
	return b, true, nil
}

// decodedBill is a bill record and what decoding its bytes gave. It
// stands for the record only while the bytes read are body: a bill
// written since has other bytes and is decoded again. (A bill is never
// taken from what a command wrote without decoding it: the value a
// command holds may differ from what its bytes decode to, and every
// replica must compute from the bytes.)
type decodedBill struct {
	body []byte
	bill domain.Bill
}

func (o *overlay) PutBill(b domain.Bill) error {
	if b.ID == "" {
		return domain.Errorf(domain.EINVALID, "", "bill id required")
	}
	held, err := o.billLookupsHeld(b)
	if err != nil {
		return err
	}
	if !held {
		o.writes[string(key(prefixBillByAcc, b.Account, "/", b.BilledOn.String(), "/", b.ID))] = []byte{}
		o.writes[string(key(prefixBillByPar, b.Parcel, "/", b.ID))] = []byte{}
	}
	return o.put(key(prefixBill, b.ID), b)
}

// billLookupsHeld reports whether the ledger already holds b's lookup
// keys (by account and billing date, by parcel), so that a payment does
// not write them again unchanged: the bill's record as the transaction
// holds it now was decoded (overlay.Bill, bytes unchanged since) and has
// the same account, billing date and parcel. Every bill record is written
// with its lookup keys, and they are never deleted.
func (o *overlay) billLookupsHeld(b domain.Bill) (bool, error) {
	d, hit := o.bills[b.ID]
	if !hit {
		return false, nil
	}
	body, ok, err := o.get(key(prefixBill, b.ID))
	if err != nil || !ok || !bytes.Equal(d.body, body) {
		return false, err
	}
	return d.bill.Account == b.Account && d.bill.BilledOn == b.BilledOn && d.bill.Parcel == b.Parcel, nil
}

func (o *overlay) Parcel(id string) (domain.Parcel, bool, error) {
	return overlayGet[domain.Parcel](o, key(prefixParcel, id))
}

func (o *overlay) PutParcel(p domain.Parcel) error { return o.put(key(prefixParcel, p.ID), p) }

func (o *overlay) Account(n string) (domain.Account, bool, error) {
	return overlayGet[domain.Account](o, key(prefixAccount, n))
}

func (o *overlay) PutAccount(a domain.Account) error { return o.put(key(prefixAccount, a.Number), a) }

// PutReceipt posts a receipt. From the signed format a receipt is written
// once: a second one under its number is refused, whatever command asks
// (the receipt sequences make that a forgery or a bug).
func (o *overlay) PutReceipt(r domain.Receipt) error {
	if o.format >= signedFormat {
		if _, ok, err := o.get(key(prefixReceipt, r.Number)); err != nil {
			return err
		} else if ok {
			return domain.Errorf(domain.ECONFLICT, "", "Receipt %s is already posted; a receipt is never replaced.", r.Number)
		}
	}
	return o.put(key(prefixReceipt, r.Number), r)
}

func (o *overlay) PutRefundDue(r domain.RefundDue) error {
	return o.put(key(prefixRefund, r.RefundBy.String(), "/", r.CommandID), r)
}

func (o *overlay) Empty() (bool, error) {
	for k := range o.writes {
		if hasRecordPrefix([]byte(k)) {
			return false, nil
		}
	}
	prefixes := []string{prefixParcel, prefixAccount, prefixBill}
	if o.format >= signedFormat {
		// A ledger with staff accounts is a village's, even before its
		// parcel roll is loaded: demo data must not reach it.
		prefixes = append(prefixes, string(recordKey(domain.CollectionStaffUsers, "")))
	}
	for _, p := range prefixes {
		it := o.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(p)})
		it.Rewind()
		found := it.Valid()
		it.Close()
		if found {
			return false, nil
		}
	}
	return true, nil
}

func (o *overlay) Get(collection, id string, v any) (bool, error) {
	if !validName(collection) {
		return false, fmt.Errorf("bad collection name %q", collection)
	}
	body, ok, err := o.get(recordKey(collection, id))
	if err != nil || !ok {
		return false, err
	}
	if raw, isRaw := v.(*json.RawMessage); isRaw {
		// A caller that decodes the record itself (the chart, which
		// the domain keeps decoded by its bytes) takes the bytes as
		// stored: they were valid JSON when written. They are shared,
		// as get's are.
		*raw = body
		return true, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("decode %s/%s: %w", collection, id, err)
	}
	return true, nil
}

// Has reports whether record id of collection exists, without decoding
// it.
func (o *overlay) Has(collection, id string) (bool, error) {
	if !validName(collection) {
		return false, fmt.Errorf("bad collection name %q", collection)
	}
	_, ok, err := o.get(recordKey(collection, id))
	return ok, err
}

func (o *overlay) Put(collection, id string, v any) error {
	if !validName(collection) || id == "" {
		return fmt.Errorf("bad record key %q/%q", collection, id)
	}
	return o.put(recordKey(collection, id), v)
}

func (o *overlay) Index(index, k string) error {
	if !validName(index) || k == "" {
		return fmt.Errorf("bad index key %q/%q", index, k)
	}
	o.writes[string(indexKey(index, k))] = []byte{}
	return nil
}

func (o *overlay) Unindex(index, k string) error {
	if !validName(index) || k == "" {
		return fmt.Errorf("bad index key %q/%q", index, k)
	}
	o.writes[string(indexKey(index, k))] = nil
	return nil
}

// EachBill calls fn with every bill of the ledger in id order, as the
// command sees it: its own writes over the store's (the books' opening
// entry reads them once, possibly in the command that wrote them, as demo
// data does).
func (o *overlay) EachBill(fn func(domain.Bill) error) error {
	var own []string
	for k, v := range o.writes {
		if strings.HasPrefix(k, prefixBill) && v != nil {
			own = append(own, k)
		}
	}
	slices.Sort(own)
	decode := func(k string, v []byte) error {
		var b domain.Bill
		if err := json.Unmarshal(v, &b); err != nil {
			return fmt.Errorf("read bill %s: %w", k, err)
		}
		return fn(b)
	}
	it := o.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixBill), PrefetchValues: true, PrefetchSize: 64})
	defer it.Close()
	i := 0
	for it.Rewind(); it.Valid(); it.Next() {
		k := string(it.Item().Key())
		for ; i < len(own) && own[i] < k; i++ {
			if err := decode(own[i], o.writes[own[i]]); err != nil {
				return err
			}
		}
		if _, mine := o.writes[k]; mine {
			continue // the command's own write, or its delete, stands
		}
		if err := it.Item().Value(func(v []byte) error { return decode(k, v) }); err != nil {
			return err
		}
	}
	for ; i < len(own); i++ {
		if err := decode(own[i], o.writes[own[i]]); err != nil {
			return err
		}
	}
	return nil
}

func hasRecordPrefix(k []byte) bool {
	return bytes.HasPrefix(k, []byte(prefixParcel)) || bytes.HasPrefix(k, []byte(prefixAccount)) || bytes.HasPrefix(k, []byte(prefixBill))
}

// getJSON reads and decodes one record; a missing key is (zero, false, nil).
func getJSON[T any](txn *badger.Txn, k []byte) (T, bool, error) {
	var v T
	item, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	err = item.Value(func(b []byte) error { return json.Unmarshal(b, &v) })
	if err != nil {
		return v, false, fmt.Errorf("decode %s: %w", k, err)
	}
	return v, true, nil
}

var _ raft.BatchingFSM = (*FSM)(nil)
var _ domain.Tx = (*overlay)(nil)
var _ io.Writer = (*countingWriter)(nil)

// ResetApplied sets the applied index to zero, keeping the state and the
// journal. `appliance restore` calls it when a backup seeds a new cluster,
// whose log starts again at index 1; command ids still guard against
// applying anything twice.
func (f *FSM) ResetApplied() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(keyApplied, uint64Bytes(0)) }); err != nil {
		return fmt.Errorf("reset applied index: %w", err)
	}
	if err := f.syncState(); err != nil {
		return err
	}
	f.applied.Store(0)
	return nil
}

// VerifyChain checks a run of journal entries exported as JSON lines (the
// fields of the journal, "prev" included), as the auditors' extract
// carries them: the first links to prev, each links to the one before,
// each hash matches its content and the sequence has no gap. It returns
// the hash of the last entry (prev when there is none).
func VerifyChain(prev string, lines [][]byte) (string, error) {
	var seq uint64
	for i, line := range lines {
		var e journalEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return "", fmt.Errorf("journal line %d: %w", i+1, err)
		}
		switch {
		case e.Prev != prev:
			return "", fmt.Errorf("journal entry %d: previous hash %s does not match %s", e.Seq, e.Prev, prev)
		case hex.EncodeToString(journalHash(e)) != e.Hash:
			return "", fmt.Errorf("journal entry %d: hash %s does not match its content", e.Seq, e.Hash)
		case i > 0 && e.Seq != seq+1:
			return "", fmt.Errorf("journal entry %d follows %d: an entry is missing", e.Seq, seq)
		}
		prev, seq = e.Hash, e.Seq
	}
	return prev, nil
}
