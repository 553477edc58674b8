package replica

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The outbox is this node's durable queue of commands taken here (kiosk or
// staff) and not yet known to be applied. It lives in the node's local
// Badger store (beside the raft log, under its own prefix) and is never
// replicated. A command taken on a follower is written, synced, before
// anything else happens to it, so from the moment Submit returns — posted
// or provisional — it cannot be lost; the forwarder resubmits it under the
// same id until the ledger answers, and the FSM's dedupe makes every
// resubmission safe. A leader's own commands go straight into its raft log
// and come here only when the log does not answer for them in time
// (direct.go).
const (
	prefixOutbox = "o/"
)

var (
	keyOutboxSeq = []byte(prefixOutbox + "seq")
)

func outboxKey(seq uint64) []byte {
	k := make([]byte, len(prefixOutbox)+2+8)
	n := copy(k, prefixOutbox+"q/")
	binary.BigEndian.PutUint64(k[n:], seq)
	return k
}

func outboxIDKey(id string) []byte { return []byte(prefixOutbox + "id/" + id) }

// pendingKey marks an entry still to be submitted; the forwarder scans these
// keys only, so the history of done entries costs it nothing.
func pendingKey(seq uint64) []byte {
	k := make([]byte, len(prefixOutbox)+2+8)
	n := copy(k, prefixOutbox+"p/")
	binary.BigEndian.PutUint64(k[n:], seq)
	return k
}

// Outbox states.
const (
	statePending = "pending" // not yet applied by the ledger
	stateDone    = "done"    // applied; Result holds the outcome
	stateRefused = "refused" // the rules refused it; set aside for the clerk
)

type outboxEntry struct {
	Seq     uint64         `json:"seq"`
	Command domain.Command `json:"command"`
	State   string         `json:"state"`
	Index   uint64         `json:"index,omitempty"`
	Result  *domain.Result `json:"result,omitempty"`
}

type outbox struct {
	db  *badger.DB
	mu  sync.Mutex // guards seq, low and puts
	seq uint64     // the last sequence handed out
	// low is a sequence below which no entry is pending, where pending
	// starts its scan. Badger keeps the pending keys that finishAll
	// deleted as tombstones until a compaction drops them, and an
	// iterator from the start of the prefix walks every one: after a day
	// of payments the forwarder's every look spent most of its time
	// there. puts counts the puts committed, so that pending raises low
	// only from a view no put raced with (a put may commit a lower
	// sequence than one already committed).
	low, puts uint64
	// stamped holds the sequences handed out and not yet put, and when:
	// a command is numbered a moment before it is queued (its number is
	// in its payload), and until then no mark may say its number was
	// settled (marks). A number never queued (a crash in between) is
	// forgotten after stampedFor.
	stamped map[uint64]time.Time
}

// stampedFor is how long a sequence handed out counts as on its way to
// the outbox.
const stampedFor = 10 * time.Minute

// openOutbox reads the outbox's sequence: the larger of the stored counter
// and the newest entry's.
func openOutbox(db *badger.DB) (*outbox, error) {
	o := &outbox{db: db}
	err := db.View(func(txn *badger.Txn) error {
		if item, err := txn.Get(keyOutboxSeq); err == nil {
			if err := item.Value(func(v []byte) error {
				if len(v) != 8 {
					return fmt.Errorf("bad sequence value")
				}
				o.seq = binary.BigEndian.Uint64(v)
				return nil
			}); err != nil {
				return err
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		prefix := []byte(prefixOutbox + "q/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer it.Close()
		it.Seek(append(append([]byte{}, prefix...), 0xff))
		if it.Valid() {
			o.seq = max(o.seq, binary.BigEndian.Uint64(it.Item().Key()[len(prefix):]))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read outbox sequence: %w", err)
	}
	return o, nil
}

// nextSeq hands out the next per-node sequence above floor. It is written down with the
// command that uses it (put), in the same synced transaction, so a number
// on a receipt is never handed out again; a number handed out for a command
// that never reached the outbox (a declined card, a crash before put) may
// be, and no receipt ever showed it.
func (o *outbox) nextSeq(floor uint64) (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq = max(o.seq, floor) + 1
	if o.stamped == nil {
		o.stamped = map[uint64]time.Time{}
	}
	o.stamped[o.seq] = time.Now()
	return o.seq, nil
}

// answered forgets a sequence handed out for a command that the ledger
// answered without it passing through the outbox (the leader's own,
// submitDirect).
func (o *outbox) answered(seq uint64) {
	o.mu.Lock()
	delete(o.stamped, seq)
	o.mu.Unlock()
}

// marks returns the highest sequence this node has handed out, and the
// highest at or below which every command it took has been answered by
// the ledger (none pending, none numbered and on its way): what the
// leader records of this node (KindNodeMark).
func (o *outbox) marks() (issued, answered uint64, err error) {
	o.mu.Lock()
	issued = o.seq
	lowest := issued + 1
	for seq, at := range o.stamped {
		if time.Since(at) > stampedFor {
			delete(o.stamped, seq)
			continue
		}
		lowest = min(lowest, seq)
	}
	low := o.low
	o.mu.Unlock()
	// A put removes its sequence from stamped only after it committed
	// and lowered low, so the view below sees every entry that left
	// stamped before the lock above.
	err = o.db.View(func(txn *badger.Txn) error {
		prefix := []byte(prefixOutbox + "p/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		it.Seek(pendingKey(low))
		if it.Valid() {
			lowest = min(lowest, binary.BigEndian.Uint64(it.Item().Key()[len(prefix):]))
		}
		return nil
	})
	return issued, lowest - 1, err
}

// put enqueues a command (or finds it already queued by id). It reports
// whether the command was new.
func (o *outbox) put(cmd domain.Command) (outboxEntry, bool, error) {
	var e outboxEntry
	created := false
	err := o.db.Update(func(txn *badger.Txn) error {
		if item, err := txn.Get(outboxIDKey(cmd.ID)); err == nil {
			var seq uint64
			if err := item.Value(func(v []byte) error {
				seq = binary.BigEndian.Uint64(v)
				return nil
			}); err != nil {
				return err
			}
			got, ok, err := getJSON[outboxEntry](txn, outboxKey(seq))
			if err != nil {
				return err
			}
			if ok {
				e = got
				return nil
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		e = outboxEntry{Seq: cmd.Seq, Command: cmd, State: statePending}
		if _, exists, err := getJSON[outboxEntry](txn, outboxKey(cmd.Seq)); err != nil {
			return err
		} else if exists {
			return domain.Errorf(domain.ECONFLICT, "", "receipt sequence %d is already used by another command", cmd.Seq)
		}
		body, err := json.Marshal(e)
		if err != nil {
			return err
		}
		created = true
		if err := txn.Set(outboxKey(cmd.Seq), body); err != nil {
			return err
		}
		// Write, never read, the counter here: concurrent puts must not
		// conflict. A stale value written last is corrected at open by the
		// newest entry's sequence.
		o.mu.Lock()
		seq := max(o.seq, cmd.Seq)
		o.mu.Unlock()
		if err := txn.Set(keyOutboxSeq, uint64Bytes(seq)); err != nil {
			return err
		}
		if err := txn.Set(pendingKey(cmd.Seq), nil); err != nil {
			return err
		}
		return txn.Set(outboxIDKey(cmd.ID), uint64Bytes(cmd.Seq))
	})
	if err != nil {
		return e, false, fmt.Errorf("write outbox: %w", err)
	}
	o.mu.Lock()
	if created {
		o.low = min(o.low, cmd.Seq)
		o.puts++
	}
	delete(o.stamped, cmd.Seq)
	o.mu.Unlock()
	return e, created, nil
}

// finish records the outcome of an entry.
func (o *outbox) finish(seq uint64, res domain.Result) error {
	_, err := o.finishAll([]uint64{seq}, []domain.Result{res})
	return err
}

// finishAll records the outcomes of entries in one transaction: one disk
// sync for a whole batch the ledger answered. It returns how many of them
// were still pending: an entry proposed twice (read again while its first
// outcome was being written) is answered twice, and counted once.
func (o *outbox) finishAll(seqs []uint64, results []domain.Result) (int, error) {
	done := 0
	err := o.db.Update(func(txn *badger.Txn) error {
		done = 0
		for i, seq := range seqs {
			res := results[i]
			e, ok, err := getJSON[outboxEntry](txn, outboxKey(seq))
			if err != nil {
				return err
			}
			if !ok || e.State != statePending {
				continue
			}
			done++
			e.State, e.Index, e.Result = stateDone, res.Index, &res
			if res.Error != nil {
				e.State = stateRefused
			}
			body, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := txn.Delete(pendingKey(seq)); err != nil {
				return err
			}
			if err := txn.Set(outboxKey(seq), body); err != nil {
				return err
			}
		}
		return nil
	})
	return done, err
}

// pending returns up to limit entries still to be submitted (0: all), in
// sequence order.
func (o *outbox) pending(limit int) ([]outboxEntry, error) {
	return o.pendingExcept(limit, nil)
}

// pendingExcept is pending without the entries whose sequence skip
// reports (the forwarder's batches in flight), which do not count
// against limit.
func (o *outbox) pendingExcept(limit int, skip func(seq uint64) bool) ([]outboxEntry, error) {
	var out []outboxEntry
	o.mu.Lock()
	low, puts := o.low, o.puts
	o.mu.Unlock()
	// first is the lowest pending sequence the view holds, or the next
	// sequence to hand out when it holds none.
	first := uint64(math.MaxUint64)
	err := o.db.View(func(txn *badger.Txn) error {
		prefix := []byte(prefixOutbox + "p/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(pendingKey(low)); it.Valid(); it.Next() {
			seq := binary.BigEndian.Uint64(it.Item().Key()[len(prefix):])
			first = min(first, seq)
			if skip != nil && skip(seq) {
				continue
			}
			e, ok, err := getJSON[outboxEntry](txn, outboxKey(seq))
			if err != nil {
				return err
			}
			if ok && e.State == statePending {
				out = append(out, e)
				if limit > 0 && len(out) >= limit {
					return nil
				}
			}
		}
		return nil
	})
	if err == nil {
		o.mu.Lock()
		if o.puts == puts {
			// No put committed since the view opened, and every earlier
			// one is in it: nothing below first is pending. With no
			// pending key, first is past every sequence handed out.
			o.low = max(o.low, min(first, o.seq+1))
		}
		o.mu.Unlock()
	}
	return out, err
}

// get returns the entry with the given sequence.
func (o *outbox) get(seq uint64) (outboxEntry, bool, error) {
	var e outboxEntry
	var ok bool
	err := o.db.View(func(txn *badger.Txn) error {
		var err error
		e, ok, err = getJSON[outboxEntry](txn, outboxKey(seq))
		return err
	})
	return e, ok, err
}

// seqOfReceipt reads the sequence out of one of this node's receipt numbers.
func seqOfReceipt(node, number string) (uint64, bool) {
	rest, ok := strings.CutPrefix(number, node+"-")
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	return seq, err == nil
}

// lastAt returns the intake time of the newest command in the outbox: the
// clock of this node must never read earlier.
func (o *outbox) lastAt() (domain.DateTime, error) {
	var at domain.DateTime
	err := o.db.View(func(txn *badger.Txn) error {
		prefix := []byte(prefixOutbox + "q/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer it.Close()
		it.Seek(append(append([]byte{}, prefix...), 0xff))
		if !it.Valid() {
			return nil
		}
		var e outboxEntry
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
			return err
		}
		at = e.Command.At
		return nil
	})
	return at, err
}

// prune deletes entries that the ledger answered for and that were taken
// before cutoff: the ledger keeps every command and receipt, so the outbox
// needs only what is still on its way. It returns how many it deleted.
func (o *outbox) prune(cutoff domain.DateTime) (int, error) {
	return o.pruneIn(cutoff, pruneBatch)
}

// pruneBatch is how many entries one pruning transaction reads and
// deletes. A node that was off for months, or a ledger built with a
// moving clock, can have hundreds of thousands of entries to prune at
// once: each batch is read, deleted and committed before the next is
// read, so what pruning holds does not grow with them.
const pruneBatch = 1024

// outboxAge is what pruning reads of an outbox entry: not its command's
// payload, which it would otherwise decode for every entry it deletes.
type outboxAge struct {
	Seq     uint64 `json:"seq"`
	State   string `json:"state"`
	Command struct {
		ID string          `json:"id"`
		At domain.DateTime `json:"at"`
	} `json:"command"`
}

// pruneIn prunes in transactions of at most batch entries read.
func (o *outbox) pruneIn(cutoff domain.DateTime, batch int) (int, error) {
	prefix := []byte(prefixOutbox + "q/")
	from := prefix
	pruned := 0
	for {
		var seqs []uint64
		var ids []string
		read, end := 0, false
		err := o.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			for it.Seek(from); ; it.Next() {
				if !it.Valid() {
					end = true
					return nil
				}
				if read == batch {
					from = it.Item().KeyCopy(nil)
					return nil
				}
				read++
				var e outboxAge
				if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
					return err
				}
				if !e.Command.At.Before(cutoff) {
					// Entries follow their sequence, which the node hands
					// out in intake order: the rest are as recent, give or
					// take the seconds between concurrent intakes (left
					// for the next pruning). A start reads what it prunes
					// and one more, not the month it keeps.
					end = true
					return nil
				}
				if e.State != statePending {
					seqs = append(seqs, e.Seq)
					ids = append(ids, e.Command.ID)
				}
			}
		})
		if err != nil {
			return pruned, err
		}
		if len(seqs) > 0 {
			err := o.db.Update(func(txn *badger.Txn) error {
				for i, seq := range seqs {
					if err := txn.Delete(outboxKey(seq)); err != nil {
						return err
					}
					if err := txn.Delete(outboxIDKey(ids[i])); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return pruned, err
			}
			pruned += len(seqs)
		}
		if end {
			return pruned, nil
		}
	}
}
