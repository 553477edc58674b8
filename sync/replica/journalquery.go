package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// JournalQuery selects entries of the journal through its indexes
// (journalindex.go). Every field set must match; the most selective one
// picks the index read (command, bill, account, kind, day range, else the
// journal itself) and the others are checked on each entry read.
//
// Order: newest first, or oldest first with Oldest. A listing by kind or
// by a day range (with no command, bill or account) goes by intake day,
// then journal order; the others go by journal order. The two differ
// only for commands that reached the ledger days after their intake (a
// node's offline payments).
type JournalQuery struct {
	CommandID, Bill, Account string
	Kind                     domain.Kind
	From, To                 domain.Date // intake days, both included; zero: open
	// Cursor is the sequence of an entry already listed (0: none): the
	// listing starts just past it, in its order.
	Cursor uint64
	Oldest bool
	// Scan bounds the entries read (0: no bound), so a search whose
	// entries are rare in the index it reads still answers quickly;
	// JournalScan says where it stopped.
	Scan int
}

// JournalRow is a journal entry with what its command touched.
type JournalRow struct {
	JournalEntry
	Touched domain.Touched
}

// JournalScan says where a listing stopped.
type JournalScan struct {
	// Last is the sequence of the last entry read (0: none): the cursor
	// that goes on from there.
	Last uint64
	// More is set when the listing stopped (fn said so, or Scan entries
	// were read) before the index ran out.
	More bool
}

// jxRange is the part of one index a query reads: keys under prefix
// from lo (included) to hi (excluded); dated keys hold a day before the
// sequence.
type jxRange struct {
	prefix, lo, hi []byte
	dated, journal bool
}

// prefixEnd is the first key after every key that starts with p.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (q JournalQuery) plan() jxRange {
	var r jxRange
	switch {
	case q.CommandID != "":
		r.prefix = []byte(prefixJXCommand + q.CommandID + "/")
	case q.Bill != "":
		r.prefix = []byte(prefixJXBill + strings.ToUpper(q.Bill) + "/")
	case q.Account != "":
		r.prefix = []byte(prefixJXAccount + q.Account + "/")
	case q.Kind != "":
		r.prefix, r.dated = []byte(prefixJXKind+string(q.Kind)+"/"), true
	case !q.From.IsZero() || !q.To.IsZero():
		r.prefix, r.dated = []byte(prefixJXDay), true
	default:
		r.prefix, r.journal = []byte(prefixJournal), true
	}
	r.lo, r.hi = r.prefix, prefixEnd(r.prefix)
	if r.dated {
		if !q.From.IsZero() {
			r.lo = append(bytes.Clone(r.prefix), q.From.String()+"/"...)
		}
		if !q.To.IsZero() {
			r.hi = append(bytes.Clone(r.prefix), q.To.String()+"0"...) // '0' follows '/'
		}
	}
	return r
}

// keyOf is the key of entry e in the range's index.
func (r jxRange) keyOf(e journalEntry) []byte {
	switch {
	case r.journal:
		return journalKey(e.Seq)
	case r.dated:
		return jxKey(string(r.prefix), e.At.Date.String(), e.Seq)
	}
	return append(bytes.Clone(r.prefix), uint64Bytes(e.Seq)...)
}

// wellFormed reports whether k is a key of the range's own index, not
// one of an indexed value that merely starts like it ("12" and "12/3").
func (r jxRange) wellFormed(k []byte) bool {
	n := len(r.prefix) + 8
	if r.dated {
		n += len("2006-01-02/")
	}
	return len(k) == n && bytes.Compare(k, r.lo) >= 0 && bytes.Compare(k, r.hi) < 0
}

// match checks the fields of q that the index read does not.
func (q JournalQuery) match(row JournalRow) bool {
	d := row.At.Date
	switch {
	case q.CommandID != "" && row.CommandID != q.CommandID,
		q.Bill != "" && !row.Touched.TouchesBill(q.Bill),
		q.Account != "" && row.Touched.Account != q.Account,
		q.Kind != "" && row.Kind != q.Kind,
		!q.From.IsZero() && d.Before(q.From),
		!q.To.IsZero() && d.After(q.To):
		return false
	}
	return true
}

// JournalRows calls fn with the entries q selects, in its order, until fn
// returns false, the index runs out or q.Scan entries have been read.
func (f *FSM) JournalRows(q JournalQuery, fn func(JournalRow) bool) (JournalScan, error) {
	var out JournalScan
	r := q.plan()
	err := f.view(func(txn *badger.Txn) error {
		var from []byte // the cursor's key, excluded
		if q.Cursor > 0 {
			e, ok, err := getJSON[journalEntry](txn, journalKey(q.Cursor))
			if err != nil {
				return err
			}
			if !ok {
				return domain.Errorf(domain.EINVALID, "", "The journal has no entry %d to go on from.", q.Cursor)
			}
			from = r.keyOf(e)
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: r.prefix, Reverse: !q.Oldest, PrefetchValues: r.journal || r.days(), PrefetchSize: 100})
		defer it.Close()
		switch {
		case q.Oldest && from != nil && bytes.Compare(from, r.lo) >= 0:
			it.Seek(append(bytes.Clone(from), 0))
		case q.Oldest:
			it.Seek(r.lo)
		case from != nil && bytes.Compare(from, r.hi) < 0:
			it.Seek(from)
		default:
			it.Seek(r.hi)
		}
		entries := &entryReader{txn: txn, reverse: !q.Oldest}
		defer entries.close()
		read := 0
		for ; it.Valid(); it.Next() {
			k := it.Item().Key()
			if q.Oldest && bytes.Compare(k, r.hi) >= 0 || !q.Oldest && bytes.Compare(k, r.lo) < 0 {
				return nil
			}
			if from != nil && bytes.Equal(k, from) || !r.wellFormed(k) {
				continue
			}
			if q.Scan > 0 && read >= q.Scan {
				out.More = true
				return nil
			}
			read++
			row, ok, err := f.journalRow(txn, it.Item(), r, entries)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			out.Last = row.Seq
			if q.match(row) && !fn(row) {
				it.Next()
				out.More = it.Valid() && (q.Oldest && bytes.Compare(it.Item().Key(), r.hi) < 0 || !q.Oldest && bytes.Compare(it.Item().Key(), r.lo) >= 0)
				return nil
			}
		}
		return nil
	})
	return out, err
}

// journalRow reads the entry an index item names, with what its command
// touched: from the item itself when the index is the day index, which
// keeps it, else from the entry's day key. ok is false when the index
// names an entry the journal lacks (it cannot, but a listing skips it
// rather than fail). entries reads the entry of an index's item (nil: a
// read of its own).
func (f *FSM) journalRow(txn *badger.Txn, item *badger.Item, r jxRange, entries *entryReader) (JournalRow, bool, error) {
	var row JournalRow
	if r.journal {
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &row.JournalEntry) }); err != nil {
			return row, false, fmt.Errorf("journal entry %x: %w", item.Key(), err)
		}
	} else {
		if entries == nil {
			entries = &entryReader{txn: txn}
			defer entries.close()
		}
		e, ok, err := entries.get(jxSeq(item.Key()))
		if err != nil || !ok {
			return row, false, err
		}
		row.JournalEntry = e
	}
	decode := func(v []byte) error {
		if len(v) == 0 {
			return nil
		}
		return json.Unmarshal(v, &row.Touched)
	}
	if r.days() {
		return row, true, item.Value(decode)
	}
	if row.Outcome != "applied" {
		// A refused command touched nothing (journalIndexWrites).
		return row, true, nil
	}
	t, err := txn.Get(jxKey(prefixJXDay, row.At.Date.String(), row.Seq))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return row, true, nil
	}
	if err != nil {
		return row, false, err
	}
	return row, true, t.Value(decode)
}

// days reports whether the range is of the day index, whose items keep
// what their entries touched.
func (r jxRange) days() bool { return bytes.Equal(r.prefix, []byte(prefixJXDay)) }

// entryReader reads journal entries by sequence for a listing that asks
// for them mostly in journal order (a day's entries, then the next
// day's), or mostly in reverse: it keeps an iterator over the journal
// where the last entry was, and steps to the next one asked for when it
// is a few entries on, instead of looking each up afresh. A lookup finds
// the key's block anew (the store's block cache is small: it would
// decompress the same block again for each entry of it); a step reads on
// in the block it has.
type entryReader struct {
	txn     *badger.Txn
	reverse bool
	it      *badger.Iterator
}

// entryReaderSteps is the most entries the reader steps over to reach
// the next one asked for before it seeks instead.
const entryReaderSteps = 32

func (r *entryReader) get(seq uint64) (journalEntry, bool, error) {
	k := journalKey(seq)
	if r.it == nil {
		r.it = r.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJournal), Reverse: r.reverse})
		r.it.Seek(k)
	} else {
		for n := 0; ; n++ {
			if !r.it.Valid() {
				r.it.Seek(k)
				break
			}
			c := bytes.Compare(r.it.Item().Key(), k)
			if c == 0 {
				break
			}
			if (c > 0) != r.reverse || n == entryReaderSteps {
				// Past it, or too far before it.
				r.it.Seek(k)
				break
			}
			r.it.Next()
		}
	}
	var e journalEntry
	if !r.it.Valid() || !bytes.Equal(r.it.Item().Key(), k) {
		return e, false, nil
	}
	if err := r.it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
		return e, false, fmt.Errorf("decode %s: %w", k, err)
	}
	return e, true, nil
}

func (r *entryReader) close() {
	if r.it != nil {
		r.it.Close()
	}
}

// JournalRow returns the entry of sequence seq with what its command
// touched; ok is false when the journal has no such entry.
func (f *FSM) JournalRow(seq uint64) (JournalRow, bool, error) {
	var row JournalRow
	found := false
	err := f.view(func(txn *badger.Txn) error {
		item, err := txn.Get(journalKey(seq))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		row, found, err = f.journalRow(txn, item, jxRange{journal: true}, nil)
		return err
	})
	return row, found, err
}

// CardReceipts calls fn with the card receipts of the commands applied
// with intake date day, in journal order, until fn returns an error.
func (f *FSM) CardReceipts(day domain.Date, fn func(domain.Receipt) error) error {
	return f.view(func(txn *badger.Txn) error {
		prefix := []byte(prefixJXCard + day.String() + "/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 256})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var rc domain.Receipt
			if err := it.Item().Value(func(v []byte) (err error) { rc, err = cardReceipt(v); return err }); err != nil {
				return fmt.Errorf("card receipt %x: %w", it.Item().Key(), err)
			}
			if err := fn(rc); err != nil {
				return err
			}
		}
		return nil
	})
}
