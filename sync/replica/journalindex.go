package replica

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The journal's indexes: what the office's journal search and the card
// reconciliation read instead of walking the whole journal.
//
// They are derived data of this node alone, under a key prefix that
// begins with a zero byte (firstReplicated): the state hash and
// snapshots skip them, so they change no ledger format and replicas that
// keep them and replicas that do not hash alike. The FSM writes an
// entry's index keys in the transaction that writes the entry
// (indexJournal, called from ApplyBatch), so the indexes never lag the
// journal. When the stored version differs from journalIndexVersion (a
// new release indexes otherwise, an older one wrote none, a restore
// dropped them), they are rebuilt from the journal in one walk, in
// bounded batches (rebuildJournalIndex, rebuild.go).
//
// Keys, each ending with the entry's journal sequence (8 bytes big-endian)
// so that a prefix lists entries in journal order, forwards or backwards:
//
//	\x00jx/v                          → the indexes' version (8 bytes)
//	\x00jx/c/<command id>/<seq>       → ""
//	\x00jx/a/<account>/<seq>          → ""
//	\x00jx/b/<BILL ID>/<seq>          → "" (the id upper-cased)
//	\x00jx/k/<kind>/<day>/<seq>       → ""
//	\x00jx/d/<day>/<seq>              → domain.Touched of the entry (JSON; empty: none)
//	\x00jx/card/<day>/<seq>           → the card receipt: its number, command id and amount, then its JSON (cardIndexValue)
//	\x00jx/t/…                        → staged by a rebuild while it runs (stageTouched)
//
// <day> is the command's intake date ("2026-04-01"), in the village's
// time as every command carries it. The kind and day indexes sort by day
// before sequence, so a day range is one key range. What an entry touched
// is kept with its day key: a listing of days (a year's export) reads it
// as it goes, in the journal's order; any other listing looks it up by the
// entry's day and sequence, which it has read.
const (
	prefixJX        = "\x00jx/"
	prefixJXCommand = prefixJX + "c/"
	prefixJXAccount = prefixJX + "a/"
	prefixJXBill    = prefixJX + "b/"
	prefixJXKind    = prefixJX + "k/"
	prefixJXDay     = prefixJX + "d/"
	prefixJXCard    = prefixJX + "card/"

	// What a rebuild stages beside the journal while it runs
	// (stageTouched), dropped when it ends.
	prefixJXStaged   = prefixJX + "t/"
	prefixJXMade     = prefixJXStaged + "m/" // <command id> → the one bill it made; empty: several
	prefixJXReturned = prefixJXStaged + "r/" // <command id> → its domain.ReturnedCheckRecord

	// journalIndexVersion is the layout of the keys above and of what
	// they hold; raise it whenever either changes, and every node
	// rebuilds its indexes at its next start.
	journalIndexVersion = 3
)

var keyJXVersion = []byte(prefixJX + "v")

// jxKey is an index key: prefix, the indexed value and "/", then seq.
func jxKey(prefix, value string, seq uint64) []byte {
	k := make([]byte, 0, len(prefix)+len(value)+9)
	k = append(k, prefix...)
	k = append(k, value...)
	k = append(k, '/')
	return binary.BigEndian.AppendUint64(k, seq)
}

// jxSeq returns the sequence that ends an index key.
func jxSeq(k []byte) uint64 { return binary.BigEndian.Uint64(k[len(k)-8:]) }

// journalIndexWrites are the index keys of journal entry e, whose command
// touched t and, when it applied, had result res.
func journalIndexWrites(e journalEntry, res domain.Result, t domain.Touched) []kv {
	day := e.At.Date.String()
	touched := []byte{}
	if t.Bills != nil || t.Receipt != "" || t.Account != "" || t.Amount != nil {
		touched, _ = json.Marshal(t)
	}
	out := []kv{
		{jxKey(prefixJXCommand, e.CommandID, e.Seq), []byte{}},
		{jxKey(prefixJXKind, string(e.Kind)+"/"+day, e.Seq), []byte{}},
		{jxKey(prefixJXDay, day, e.Seq), touched},
	}
	if t.Account != "" {
		out = append(out, kv{jxKey(prefixJXAccount, t.Account, e.Seq), []byte{}})
	}
	for _, b := range t.Bills {
		out = append(out, kv{jxKey(prefixJXBill, strings.ToUpper(b), e.Seq), []byte{}})
	}
	if rc := res.Receipt; e.Outcome == "applied" && rc != nil && rc.Tender == domain.Card {
		body, _ := json.Marshal(rc)
		v := cardIndexValue(cardLine{Number: rc.Number, CommandID: rc.CommandID, Amount: rc.Amount}, body)
		out = append(out, kv{jxKey(prefixJXCard, day, e.Seq), v})
	}
	return out
}

// A card index value leads with what a day's reconciliation CSV lists of
// a receipt, so that the CSV of a busy day reads its tens of thousands of
// receipts without decoding their JSON, which the pages that show whole
// receipts read after it:
//
//	version byte (cardValueVersion)
//	number, command id, amount: each its length (uvarint) and its bytes,
//	    the amount as domain.Money writes it ("12.34")
//	the receipt's JSON (domain.Receipt), to the end of the value
//
// The version byte is not '{', which began the bare JSON an older index
// held, so a value of another layout is an error that says so, never
// misread as a head.
const cardValueVersion = 1

// errCardIndexValue is what every card index value that cannot be read
// wraps.
var errCardIndexValue = errors.New("malformed card index value")

// cardLine is what the card index's value holds of a receipt before its
// JSON.
type cardLine struct {
	Number    string
	CommandID string
	Amount    domain.Money
}

// cardIndexValue is the card index's value of a receipt whose JSON is
// receipt and of which l is the number, command id and amount.
func cardIndexValue(l cardLine, receipt []byte) []byte {
	amount := l.Amount.String()
	v := make([]byte, 0, 1+3*binary.MaxVarintLen16+len(l.Number)+len(l.CommandID)+len(amount)+len(receipt))
	v = append(v, cardValueVersion)
	for _, f := range [...]string{l.Number, l.CommandID, amount} {
		v = binary.AppendUvarint(v, uint64(len(f)))
		v = append(v, f...)
	}
	return append(v, receipt...)
}

// readCardIndexValue splits a card index value into the receipt's number,
// command id and amount and its JSON, which is v's own bytes (valid only
// as long as v is). A value cut short, of another layout or with an
// amount that is not one wraps errCardIndexValue.
func readCardIndexValue(v []byte) (cardLine, []byte, error) {
	if len(v) == 0 {
		return cardLine{}, nil, fmt.Errorf("%w: empty", errCardIndexValue)
	}
	if v[0] != cardValueVersion {
		return cardLine{}, nil, fmt.Errorf("%w: layout %#02x, this build reads %#02x", errCardIndexValue, v[0], cardValueVersion)
	}
	rest := v[1:]
	var f [3][]byte
	for i := range f {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return cardLine{}, nil, fmt.Errorf("%w: cut short", errCardIndexValue)
		}
		f[i], rest = rest[w:w+int(n)], rest[w+int(n):]
	}
	amount, err := domain.ParseSignedMoney(string(f[2]))
	if err != nil {
		return cardLine{}, nil, fmt.Errorf("%w: amount: %v", errCardIndexValue, err)
	}
	return cardLine{Number: string(f[0]), CommandID: string(f[1]), Amount: amount}, rest, nil
}

// cardReceipt decodes the whole receipt of a card index value.
func cardReceipt(v []byte) (domain.Receipt, error) {
	var rc domain.Receipt
	_, body, err := readCardIndexValue(v)
	if err == nil {
		err = json.Unmarshal(body, &rc)
	}
	return rc, err
}

// indexJournal adds to an entry's writes the index keys of the journal
// link among them, if it has one (a second delivery of a command and a
// checkpoint write none). res is the entry's result; the records the
// command made are read from writes, then from txn.
//
// The keys go in the entry's own transaction. An entry already at the
// most a transaction holds keeps only the keys that fit: the ledger's
// limits (tooBig) leave room for the few an entry has, so this only
// guards against a panic on a store opened with other options.
func (f *FSM) indexJournal(txn *badger.Txn, res domain.Result, writes []kv) []kv {
	e, found := f.journalWrite(writes)
	if !found {
		return writes
	}
	t := domain.Touched{}
	if e.Outcome == "applied" && res.Error == nil {
		t = touchedAtApply(txn, e.CommandID, res, writes)
	}
	ix := journalIndexWrites(e, res, t)
	var size int64
	for _, w := range writes {
		size += int64(len(w.k) + len(w.v) + 12)
	}
	room := f.db.MaxBatchCount() - txnBaseCount - int64(len(writes)) - 1
	for n := range ix {
		size += int64(len(ix[n].k) + len(ix[n].v) + 12)
		if int64(n) >= room || size+txnBaseSize >= f.db.MaxBatchSize() {
			f.log.Warn("journal entry indexed in part: its command writes nearly all a transaction holds", "seq", e.Seq, "kept", n, "of", len(ix))
			ix = ix[:n]
			break
		}
	}
	return append(writes, ix...)
}

// touchedAtApply finds what a command touched among its own writes: the
// bill it made (a BillOrigin naming it) and the returned check it
// recorded.
func touchedAtApply(txn *badger.Txn, commandID string, res domain.Result, writes []kv) domain.Touched {
	origins := recordKey(domain.CollectionBillOrigins, "")
	returns := recordKey(domain.CollectionReturnedChecks, "")
	var made []string
	var returned *domain.ReturnedCheckRecord
	for _, w := range writes {
		switch {
		case w.v == nil:
		case bytes.HasPrefix(w.k, origins):
			var o domain.BillOrigin
			if json.Unmarshal(w.v, &o) == nil && o.CommandID == commandID {
				made = append(made, o.BillID)
			}
		case bytes.HasPrefix(w.k, returns):
			var r domain.ReturnedCheckRecord
			if json.Unmarshal(w.v, &r) == nil && r.CommandID == commandID {
				returned = &r
			}
		}
	}
	var bill *domain.Bill
	if len(made) == 1 {
		k := key(prefixBill, made[0])
		for _, w := range writes {
			if bytes.Equal(w.k, k) && w.v != nil {
				var b domain.Bill
				if json.Unmarshal(w.v, &b) == nil {
					bill = &b
				}
			}
		}
		if bill == nil {
			if b, ok, err := getJSON[domain.Bill](txn, k); err == nil && ok {
				bill = &b
			}
		}
	}
	return domain.TouchedBy(res, bill, returned)
}

// checkJournalIndex rebuilds the journal's indexes unless the store holds
// them at this build's version. The caller holds the store to itself
// (OpenFSM before the FSM is handed out, Restore under its locks).
func (f *FSM) checkJournalIndex() error {
	var v uint64
	err := f.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyJXVersion)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(b []byte) error {
			if len(b) == 8 {
				v = binary.BigEndian.Uint64(b)
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("read the journal index version: %w", err)
	}
	if v == journalIndexVersion || f.db.Opts().ReadOnly {
		// A store opened read-only (a backup being verified) is read
		// as it is: its indexes serve no page.
		return nil
	}
	return f.rebuildJournalIndex(v)
}

// rebuildJournalIndex drops the journal's indexes and writes them again
// from a walk of the journal, in bounded batches (rebuild.go); the
// version goes last, so a node stopped half way rebuilds again at its
// next start.
func (f *FSM) rebuildJournalIndex(was uint64) error {
	start := time.Now()
	if err := f.db.DropPrefix([]byte(prefixJX)); err != nil {
		return fmt.Errorf("drop the journal indexes: %w", err)
	}
	returns, err := f.stageTouched()
	if err != nil {
		return fmt.Errorf("rebuild the journal indexes: %w", err)
	}
	w := &indexWriter{db: f.db}
	defer w.discard()
	n := 0
	err = f.walkBatches([]byte(prefixJournal), func(txn *badger.Txn, item *badger.Item) error {
		var e journalEntry
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
			return fmt.Errorf("journal entry %x: %w", item.Key(), err)
		}
		var res domain.Result
		t := domain.Touched{}
		if e.Outcome == "applied" {
			rec, ok, err := getJSON[struct {
				Result domain.Result `json:"result"`
			}](txn, key(prefixCommand, e.CommandID))
			if err != nil {
				return err
			}
			if ok {
				res = rec.Result
			}
			var bill *domain.Bill
			id, _, err := txnRead(txn)(key(prefixJXMade, e.CommandID))
			if err != nil {
				return err
			}
			if len(id) > 0 {
				b, ok, err := getJSON[domain.Bill](txn, key(prefixBill, string(id)))
				if err != nil {
					return err
				}
				if ok {
					bill = &b
				}
			}
			var returned *domain.ReturnedCheckRecord
			if returns {
				r, ok, err := getJSON[domain.ReturnedCheckRecord](txn, key(prefixJXReturned, e.CommandID))
				if err != nil {
					return err
				}
				if ok {
					returned = &r
				}
			}
			t = domain.TouchedBy(res, bill, returned)
		}
		for _, x := range journalIndexWrites(e, res, t) {
			if err := w.set(x.k, x.v); err != nil {
				return err
			}
		}
		n++
		return nil
	}, w.commit)
	if err != nil {
		return fmt.Errorf("rebuild the journal indexes: %w", err)
	}
	if err := f.db.DropPrefix([]byte(prefixJXStaged)); err != nil {
		return fmt.Errorf("rebuild the journal indexes: %w", err)
	}
	if err := w.set(keyJXVersion, uint64Bytes(journalIndexVersion)); err != nil {
		return fmt.Errorf("rebuild the journal indexes: %w", err)
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("rebuild the journal indexes: %w", err)
	}
	f.log.Info("rebuilt the journal indexes", "entries", n, "took", time.Since(start).Round(time.Millisecond), "version", journalIndexVersion, "was", was)
	return nil
}

// stageTouched writes, for the journal's rebuild, what it needs beside
// the journal under prefixJXStaged: the bill each command made, when it
// made exactly one (TouchedBy names a bill only then), and each command's
// returned check. Bill origins are keyed by bill and returned checks by
// their own id, so finding a command's would otherwise take a map of
// every command that made a bill, held through the whole walk; staged in
// the store, the walk reads one key an entry. It reports whether any
// returned check was staged.
func (f *FSM) stageTouched() (bool, error) {
	w := &indexWriter{db: f.db}
	defer w.discard()
	err := f.walkBatches(recordKey(domain.CollectionBillOrigins, ""), func(_ *badger.Txn, item *badger.Item) error {
		var o domain.BillOrigin
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &o) }); err != nil {
			return fmt.Errorf("bill origin %s: %w", item.Key(), err)
		}
		k := key(prefixJXMade, o.CommandID)
		_, seen, err := w.get(k)
		if err != nil {
			return err
		}
		if seen {
			// A second bill of the same command: it made several.
			return w.set(k, []byte{})
		}
		return w.set(k, []byte(o.BillID))
	}, w.commit)
	if err != nil {
		return false, err
	}
	returns := false
	err = f.walkBatches(recordKey(domain.CollectionReturnedChecks, ""), func(_ *badger.Txn, item *badger.Item) error {
		var r domain.ReturnedCheckRecord
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &r) }); err != nil {
			return fmt.Errorf("returned check %s: %w", item.Key(), err)
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		returns = true
		return w.set(key(prefixJXReturned, r.CommandID), v)
	}, w.commit)
	return returns, err
}
