package replica

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The journal's tallies: for each intake year, the sequences of the first
// and the last journal entry of that year; for each intake day, how many
// card receipts the card index holds (journalindex.go) and their total.
// The auditors' extract of a year (kiosk/staff/audit) chains the year's
// entries in journal order, with the hash of the entry before each: from
// the years' spans it finds the part of the journal to read (JournalSpan)
// instead of walking every year before. The card reconciliation of a day
// with no processor's statement to match shows the day's count and total
// and one page of its receipts (CardReceiptsPage) instead of reading
// thirty thousand receipts for a page of five hundred.
//
// Like the journal's indexes they are derived data of this node alone,
// under a key prefix that begins with a zero byte (firstReplicated), so they
// change no ledger format and no state hash. The FSM writes an entry's
// tallies in the transaction that writes the entry (indexJournalTally,
// called from ApplyBatch before indexJournal). When the stored version
// differs from journalTallyVersion (an older release kept none, a restore
// dropped them), they are rebuilt (rebuildJournalTally): the years from
// one walk of the journal, the card days from one walk of the card index,
// which the journal's indexes have rebuilt first when they needed it.
// Either walk holds one tally a year or a day.
//
//	\x00jt/v            → the version (8 bytes)
//	\x00jt/y/<yyyy>     → the year's first and last sequence (8 bytes each, big-endian)
//	\x00jt/c/<day>      → the day's card receipts: {"count":N,"total":"12.34"}
//
// <yyyy> and <day> are the entry's intake date (journalEntry.At), as the
// day and card indexes have it.
const (
	prefixJT     = "\x00jt/"
	prefixJTYear = prefixJT + "y/"
	prefixJTCard = prefixJT + "c/"

	// journalTallyVersion is the layout of the keys above and of what
	// they hold; raise it whenever either changes, or which receipts
	// the card index holds or their amounts do (not merely how its
	// values are laid out: the tallies would come out the same), and
	// every node rebuilds them at its next start.
	journalTallyVersion = 1
)

var keyJTVersion = []byte(prefixJT + "v")

// jySpan is the first and the last sequence of a year's entries.
type jySpan struct{ first, last uint64 }

func jyKey(year int) []byte { return fmt.Appendf([]byte(prefixJTYear), "%04d", year) }

func (s jySpan) bytes() []byte {
	return binary.BigEndian.AppendUint64(uint64Bytes(s.first), s.last)
}

// add widens the span to seq; the zero span becomes seq alone.
func (s jySpan) add(seq uint64) jySpan {
	if s.first == 0 || seq < s.first {
		s.first = seq
	}
	s.last = max(s.last, seq)
	return s
}

func jySpanOf(v []byte) jySpan {
	if len(v) != 16 {
		return jySpan{}
	}
	return jySpan{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}
}

// CardTally is how many card receipts a day has, and their total.
type CardTally struct {
	Count int          `json:"count"`
	Total domain.Money `json:"total"`
}

func (c CardTally) add(amount domain.Money) CardTally {
	return CardTally{Count: c.Count + 1, Total: c.Total.Add(amount)}
}

func jcKey(day string) []byte { return key(prefixJTCard, day) }

// tallied is what the tallies read of a journal entry.
type tallied struct {
	At      domain.DateTime `json:"at"`
	Outcome string          `json:"outcome"`
}

// indexJournalTally adds to an entry's writes its year's span widened to
// the journal link among them, if it has one (a second delivery of a
// command and a checkpoint write none), and for a card receipt its day's
// count and total, on the terms journalIndexWrites indexes it. It goes
// before the journal's indexes (indexJournal), which keep only what fits
// beside it; a card payment writes far less than a transaction holds, so
// its card key is always among them.
func (f *FSM) indexJournalTally(txn *badger.Txn, res domain.Result, writes []kv) []kv {
	if e, ok := f.journalWrite(writes); ok {
		read := txnRead(txn)
		yk := jyKey(e.At.Date.Year())
		had, _, err := read(yk)
		if err != nil {
			panic(fmt.Sprintf("replica: read the journal's tallies: %v", err))
		}
		writes = append(writes, kv{yk, jySpanOf(had).add(e.Seq).bytes()})
		if e.Outcome == "applied" && res.Receipt != nil && res.Receipt.Tender == domain.Card {
			ck := jcKey(e.At.Date.String())
			had, _, err := read(ck)
			if err != nil {
				panic(fmt.Sprintf("replica: read the journal's tallies: %v", err))
			}
			var c CardTally
			if len(had) > 0 {
				if err := json.Unmarshal(had, &c); err != nil {
					panic(fmt.Sprintf("replica: read the journal's tallies: %v", err))
				}
			}
			body, _ := json.Marshal(c.add(res.Receipt.Amount))
			writes = append(writes, kv{ck, body})
		}
		return writes
	}
	return writes
}

// checkJournalTally rebuilds the journal's tallies unless the store holds
// them at this build's version. The caller holds the store to itself
// (OpenFSM before the FSM is handed out, Restore under its locks), after
// the journal's indexes are current (checkJournalIndex).
func (f *FSM) checkJournalTally() error {
	var have []byte
	err := f.db.View(func(txn *badger.Txn) error {
		v, _, err := txnRead(txn)(keyJTVersion)
		have = v
		return err
	})
	if err != nil {
		return fmt.Errorf("read the journal tallies' version: %w", err)
	}
	if bytes.Equal(have, uint64Bytes(journalTallyVersion)) || f.db.Opts().ReadOnly {
		return nil
	}
	return f.rebuildJournalTally()
}

// rebuildJournalTally drops the journal's tallies and writes them again,
// then the version in a write of its own, so that a node stopped half way
// rebuilds them at its next start.
func (f *FSM) rebuildJournalTally() error {
	start := time.Now()
	// DropPrefix stops the store's writes and flushes it: a new store,
	// which holds no tallies, is spared it.
	held := false
	if err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJT)})
		defer it.Close()
		it.Rewind()
		held = it.Valid()
		return nil
	}); err != nil {
		return fmt.Errorf("read the journal's tallies: %w", err)
	}
	if held {
		if err := f.db.DropPrefix([]byte(prefixJT)); err != nil {
			return fmt.Errorf("drop the journal's tallies: %w", err)
		}
	}
	var years map[int]jySpan
	var days map[string]CardTally
	entries := 0
	err := f.db.View(func(txn *badger.Txn) error {
		var err error
		if years, entries, err = walkJournalYears(txn); err != nil {
			return err
		}
		days, err = walkCardDays(txn, "")
		return err
	})
	if err != nil {
		return fmt.Errorf("rebuild the journal's tallies: %w", err)
	}
	wb := f.db.NewWriteBatch()
	defer wb.Cancel()
	for y, s := range years {
		if err := wb.Set(jyKey(y), s.bytes()); err != nil {
			return fmt.Errorf("rebuild the journal's tallies: %w", err)
		}
	}
	for day, c := range days {
		body, _ := json.Marshal(c)
		if err := wb.Set(jcKey(day), body); err != nil {
			return fmt.Errorf("rebuild the journal's tallies: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("rebuild the journal's tallies: %w", err)
	}
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(keyJTVersion, uint64Bytes(journalTallyVersion)) }); err != nil {
		return fmt.Errorf("rebuild the journal's tallies: %w", err)
	}
	if err := f.syncState(); err != nil {
		return err
	}
	f.log.Info("rebuilt the journal's tallies", "entries", entries, "years", len(years), "card_days", len(days), "took", time.Since(start).Round(time.Millisecond), "version", journalTallyVersion)
	return nil
}

// walkJournalYears reads every journal entry's intake year: the spans by
// year, and the entries read.
func walkJournalYears(txn *badger.Txn) (map[int]jySpan, int, error) {
	spans := map[int]jySpan{}
	n := 0
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJournal), PrefetchValues: true, PrefetchSize: 256})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) != len(prefixJournal)+8 {
			continue
		}
		var e tallied
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
			return nil, 0, fmt.Errorf("journal entry %x: %w", k, err)
		}
		y := e.At.Date.Year()
		spans[y] = spans[y].add(jxSeq(k))
		n++
	}
	return spans, n, nil
}

// walkCardDays tallies the card index's receipts by day, of day only
// when it is set.
func walkCardDays(txn *badger.Txn, day string) (map[string]CardTally, error) {
	out := map[string]CardTally{}
	prefix := []byte(prefixJXCard)
	if day != "" {
		prefix = append(prefix, day+"/"...)
	}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 256})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) != len(prefixJXCard)+len("2006-01-02/")+8 {
			continue
		}
		var l cardLine
		if err := it.Item().Value(func(v []byte) (err error) { l, _, err = readCardIndexValue(v); return err }); err != nil {
			return nil, fmt.Errorf("card receipt %x: %w", k, err)
		}
		d := string(k[len(prefixJXCard) : len(prefixJXCard)+len("2006-01-02")])
		out[d] = out[d].add(l.Amount)
	}
	return out, nil
}

// tallyCurrent reports whether txn's store holds the tallies at this build's
// version; a store opened read-only may not, and is then answered from
// walks.
func (f *FSM) tallyCurrent(txn *badger.Txn) (bool, error) {
	v, _, err := txnRead(txn)(keyJTVersion)
	return bytes.Equal(v, uint64Bytes(journalTallyVersion)), err
}

// JournalSpan is the part of the journal that holds the entries of an
// intake year: First is the sequence of the earliest entry of that year
// or a later one, Last of the latest entry of that year or an earlier one
// (0 when there is no such entry). Every entry before First is of an
// earlier year, every entry after Last of a later one; the entries
// between them may be of any year (a node's offline commands reach the
// journal days after their intake). Prev is the hash of the entry just
// before First: the last entry of an earlier year before any of the
// year's, or the journal's head when First is 0; empty at the journal's
// beginning.
type JournalSpan struct {
	First, Last uint64
	Prev        string
}

// JournalSpan returns the span of intake year year (JournalSpan).
func (f *FSM) JournalSpan(year int) (JournalSpan, error) {
	var out JournalSpan
	err := f.view(func(txn *badger.Txn) error {
		current, err := f.tallyCurrent(txn)
		if err != nil {
			return err
		}
		spans := map[int]jySpan{}
		if current {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJTYear), PrefetchValues: true})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				y, err := strconv.Atoi(string(it.Item().Key()[len(prefixJTYear):]))
				if err != nil {
					continue
				}
				raw, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				spans[y] = jySpanOf(raw)
			}
		} else if spans, _, err = walkJournalYears(txn); err != nil {
			return err
		}
		for y, s := range spans {
			if y >= year && s.first != 0 && (out.First == 0 || s.first < out.First) {
				out.First = s.first
			}
			if y <= year {
				out.Last = max(out.Last, s.last)
			}
		}
		var e journalEntry
		var ok bool
		switch {
		case out.First != 0:
			e, ok, err = getJSON[journalEntry](txn, journalKey(out.First))
			out.Prev = e.Prev
		case out.Last != 0:
			e, ok, err = getJSON[journalEntry](txn, journalKey(out.Last))
			out.Prev = e.Hash
		default:
			return nil
		}
		if err == nil && !ok {
			err = fmt.Errorf("the journal's tallies name entry %d, which the journal lacks", max(out.First, out.Last))
		}
		return err
	})
	return out, err
}

// JournalRange calls fn with the journal entries of sequence from to to,
// both included, in journal order, until fn returns an error.
func (f *FSM) JournalRange(from, to uint64, fn func(JournalEntry) error) error {
	if from > to {
		return nil
	}
	return f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJournal), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		end := journalKey(to)
		for it.Seek(journalKey(from)); it.Valid(); it.Next() {
			k := it.Item().Key()
			if bytes.Compare(k, end) > 0 {
				return nil
			}
			var e journalEntry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("journal entry %x: %w", k, err)
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// CardPage is a page of a day's card receipts, with the day's count and
// total.
type CardPage struct {
	CardTally
	Receipts []domain.Receipt
}

// CardReceiptsPage returns the count and total of the card receipts of
// the commands applied with intake date day, and at most n of them (all
// when n is 0) from the from-th on (0 the first), in journal order, as
// CardReceipts lists them: all in one read.
func (f *FSM) CardReceiptsPage(day domain.Date, from, n int) (CardPage, error) {
	var out CardPage
	err := f.view(func(txn *badger.Txn) error {
		current, err := f.tallyCurrent(txn)
		if err != nil {
			return err
		}
		if current {
			raw, ok, err := txnRead(txn)(jcKey(day.String()))
			if err != nil {
				return err
			}
			if ok {
				if err := json.Unmarshal(raw, &out.CardTally); err != nil {
					return fmt.Errorf("the card tally of %s: %w", day, err)
				}
			}
		} else {
			days, err := walkCardDays(txn, day.String())
			if err != nil {
				return err
			}
			out.CardTally = days[day.String()]
		}
		prefix := []byte(prefixJXCard + day.String() + "/")
		// The receipts before the page are stepped over by key alone.
		keys := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		keys.Rewind()
		for i := 0; i < from && keys.Valid(); i++ {
			keys.Next()
		}
		var start []byte
		if keys.Valid() {
			start = keys.Item().KeyCopy(nil)
		}
		keys.Close()
		if start == nil {
			return nil
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 256})
		defer it.Close()
		for it.Seek(start); it.Valid() && (n == 0 || len(out.Receipts) < n); it.Next() {
			var rc domain.Receipt
			if err := it.Item().Value(func(v []byte) (err error) { rc, err = cardReceipt(v); return err }); err != nil {
				return fmt.Errorf("card receipt %x: %w", it.Item().Key(), err)
			}
			out.Receipts = append(out.Receipts, rc)
		}
		return nil
	})
	return out, err
}

// cardLinePart is how many card receipts EachCardReceipt reads in one
// read transaction (a variable so that a test can take small parts).
var cardLinePart = 2000

// EachCardReceipt calls fn with the first n card receipts of the commands
// applied with intake date day (all when n is 0), in journal order, as
// CardReceipts lists them, until fn returns an error; each receipt holds
// its number, command id and amount alone, which is what a day's CSV
// lists. The receipts are read a part at a time, each part in a read of
// its own that starts after the last key of the one before, so that fn
// may write to a slow client without holding a read open for the day.
func (f *FSM) EachCardReceipt(day domain.Date, n int, fn func(domain.Receipt) error) error {
	prefix := []byte(prefixJXCard + day.String() + "/")
	var after []byte
	seen := 0
	var part []domain.Receipt
	for {
		part = part[:0]
		err := f.view(func(txn *badger.Txn) error {
			// No prefetch: it would copy each whole value (the receipt's
			// JSON too), where the head is read in place.
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			if after == nil {
				it.Seek(prefix)
			} else if it.Seek(after); it.Valid() && bytes.Equal(it.Item().Key(), after) {
				it.Next()
			}
			for ; it.Valid() && len(part) < cardLinePart && (n == 0 || seen+len(part) < n); it.Next() {
				// The value's head alone: the receipt's JSON is not read.
				var line cardLine
				if err := it.Item().Value(func(v []byte) (err error) { line, _, err = readCardIndexValue(v); return err }); err != nil {
					return fmt.Errorf("card receipt %x: %w", it.Item().Key(), err)
				}
				part = append(part, domain.Receipt{Number: line.Number, CommandID: line.CommandID, Amount: line.Amount})
				after = it.Item().KeyCopy(after[:0])
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, rc := range part {
			if err := fn(rc); err != nil {
				return err
			}
		}
		seen += len(part)
		if len(part) < cardLinePart || (n > 0 && seen >= n) {
			return nil
		}
	}
}
