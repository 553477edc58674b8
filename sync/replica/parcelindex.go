package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The indexes of parcels and bills (domain.Lookups): parcels by the words
// of their owner's name, address and number, bills by tax-roll year and
// standing. They are derived data, node-local (keys that begin with a
// zero byte, firstReplicated): the state hash and snapshots skip them, so
// they need no ledger format and replicas of different releases hash
// alike. The FSM writes them in the transaction that writes the parcel or
// bill (indexWrites); a store whose indexes are missing or of another
// version is indexed again from its records when it opens and after a
// snapshot is restored, in bounded batches (reindex, rebuild.go).
//
//	\x00px/v                                  → version (8 bytes BE)
//	\x00px/w/<field>/<word>\x00<parcel id>    → ""  (field: o owner, a address, n number, c county)
//	\x00px/r/<parcel id>                      → the parcel's word keys, "<field>/<word>" a line
//	\x00px/y/<year>/<standing>/<bill id>      → ""
//	\x00px/s/<bill id>                        → "<year>/<standing>" (what to remove on a change)
//
// Words hold no zero byte (domain.NameWords, AddressWords and NumberWord
// keep letters and digits), so "\x00" ends a word and a scan of
// "<field>/<prefix>" finds every word that starts with prefix.
const (
	prefixLookup       = "\x00px/"
	prefixParcelWord   = prefixLookup + "w/"
	prefixParcelWords  = prefixLookup + "r/"
	prefixBillYear     = prefixLookup + "y/"
	prefixBillStanding = prefixLookup + "s/"
)

var keyLookupVersion = []byte(prefixLookup + "v")

// lookupVersion is the version of the indexes' keys and of what they hold:
// raise it whenever either changes, and every node indexes its ledger
// again when it next opens.
const lookupVersion = 2

// fieldCode is a parcel field's letter in the index keys.
var fieldCode = map[domain.ParcelField]string{domain.ParcelOwner: "o", domain.ParcelAddress: "a", domain.ParcelNumber: "n"}

// parcelWordKeys returns the word keys ("<field>/<word>") of a parcel:
// the words of its owner, address and number, and its county, which the
// November run's county totals read for every parcel (ParcelCounties).
func parcelWordKeys(p domain.Parcel) []string {
	var out []string
	for _, f := range []domain.ParcelField{domain.ParcelOwner, domain.ParcelAddress, domain.ParcelNumber} {
		for _, w := range p.Words(f) {
			out = append(out, fieldCode[f]+"/"+w)
		}
	}
	if p.County.Valid() {
		out = append(out, countyCode+"/"+string(p.County))
	}
	return out
}

// countyCode is the county's letter in the word keys.
const countyCode = "c"

// billEntry returns a bill's entry in the year index ("<year>/<standing>").
func billEntry(b domain.Bill, p *domain.Params) (string, error) {
	y, err := b.RollYear(p)
	if err != nil {
		return "", err
	}
	s, err := b.Standing(p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%04d/%s", y, s), nil
}

// lookupKeys returns the writes that index a parcel or bill written with
// value v (nil: deleted), after removing what its earlier version put in
// the indexes, whose entries read reads (the transaction the record is
// written in). A record whose indexes cannot be computed (a bill billed
// before the parameters know its due days) is left out of them and logged:
// the lookups then miss it, which a rule never depends on.
//
// decoded, if not nil, holds bills already decoded (batch.decoded): a bill
// whose bytes are v is not decoded again.
func (f *FSM) lookupKeys(read func(k []byte) ([]byte, bool, error), decoded map[string]decodedBill, k, v []byte) ([]kv, error) {
	switch {
	case bytes.HasPrefix(k, []byte(prefixParcel)):
		id := string(k[len(prefixParcel):])
		var words []string
		if v != nil {
			var p domain.Parcel
			if err := json.Unmarshal(v, &p); err != nil {
				return nil, fmt.Errorf("index parcel %s: %w", id, err)
			}
			words = parcelWordKeys(p)
		}
		return rekey(read, key(prefixParcelWords, id), words, func(w string) []byte { return parcelWordKey(w, id) })
	case bytes.HasPrefix(k, []byte(prefixBill)):
		id := string(k[len(prefixBill):])
		entry := ""
		if v != nil {
			var b domain.Bill
			if d, hit := decoded[id]; hit && bytes.Equal(d.body, v) {
				b = d.bill // billEntry only reads it
			} else if err := json.Unmarshal(v, &b); err != nil {
				return nil, fmt.Errorf("index bill %s: %w", id, err)
			}
			e, err := billEntry(b, f.Params())
			if err != nil {
				f.log.Warn("bill left out of the year index", "bill", id, "err", err)
			}
			entry = e
		}
		old, _, err := read(key(prefixBillStanding, id))
		if err != nil {
			return nil, err
		}
		if string(old) == entry {
			return nil, nil
		}
		var out []kv
		if len(old) > 0 {
			out = append(out, kv{key(prefixBillYear, string(old), "/", id), nil})
		}
		if entry == "" {
			return append(out, kv{key(prefixBillStanding, id), nil}), nil
		}
		return append(out, kv{key(prefixBillYear, entry, "/", id), []byte{}}, kv{key(prefixBillStanding, id), []byte(entry)}), nil
	}
	return nil, nil
}

func parcelWordKey(word, id string) []byte { return key(prefixParcelWord, word, "\x00", id) }

// rekey returns the writes that move a record's entries in an index from
// the keys its record of keys rec holds (as read reads it, a line each)
// to keys: the entries (keyOf) of keys it no longer has removed, of keys
// it gains added, and rec rewritten, or removed when keys is empty.
// Nothing, when the keys are the same.
func rekey(read func(k []byte) ([]byte, bool, error), rec []byte, keys []string, keyOf func(string) []byte) ([]kv, error) {
	old, _, err := read(rec)
	if err != nil {
		return nil, err
	}
	var was []string
	if len(old) > 0 {
		was = strings.Split(string(old), "\n")
	}
	if slices.Equal(was, keys) {
		return nil, nil
	}
	var out []kv
	for _, x := range was {
		if !slices.Contains(keys, x) {
			out = append(out, kv{keyOf(x), nil})
		}
	}
	for _, x := range keys {
		if !slices.Contains(was, x) {
			out = append(out, kv{keyOf(x), []byte{}})
		}
	}
	if len(keys) == 0 {
		return append(out, kv{rec, nil}), nil
	}
	return append(out, kv{rec, []byte(strings.Join(keys, "\n"))}), nil
}

// indexed reports whether a ledger record's key is one the indexes follow.
func indexed(k []byte) bool {
	return bytes.HasPrefix(k, []byte(prefixParcel)) || bytes.HasPrefix(k, []byte(prefixBill))
}

// txnRead reads a key of txn: its value, or false when it is absent.
func txnRead(txn *badger.Txn) func(k []byte) ([]byte, bool, error) {
	return func(k []byte) ([]byte, bool, error) {
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		v, err := item.ValueCopy(nil)
		return v, err == nil, err
	}
}

// addIndexed adds an entry's writes to the batch with the index writes of
// the parcels and bills among them and of the records of the derived
// indexes (derivedindex.go), in the same transaction. An entry
// whose index writes would not fit in one transaction with it (a roll
// import near the ledger's limit on what a command writes: every parcel
// has several words) commits without them and with the indexes' version
// removed, then they follow in transactions of their own and the version
// comes back last: a crash in between leaves a store that is indexed
// again when it opens.
func (f *FSM) addIndexed(b *batch, writes []kv) {
	var idx []kv
	var bills []string
	for _, w := range writes {
		if ixs, _ := derivedOf(w.k); ixs != nil {
			more, err := derivedWrites(txnRead(b.txn), w.k, w.v)
			if err != nil {
				panic(fmt.Sprintf("replica: %v", err))
			}
			idx = append(idx, more...)
			continue
		}
		if !indexed(w.k) {
			continue
		}
		if bytes.HasPrefix(w.k, []byte(prefixBill)) {
			bills = append(bills, string(w.k[len(prefixBill):]))
		}
		more, err := f.lookupKeys(txnRead(b.txn), b.decoded, w.k, w.v)
		if err != nil {
			panic(fmt.Sprintf("replica: %v", err))
		}
		idx = append(idx, more...)
	}
	// The bills are noted once the transaction holding them commits
	// (batch.commit): a warmer that took them sooner would figure them
	// from the record before.
	if len(idx) == 0 {
		b.add(writes)
		b.bills = append(b.bills, bills...)
		return
	}
	all := append(slices.Clip(writes), idx...)
	if b.fits(all) {
		b.add(all)
		b.bills = append(b.bills, bills...)
		return
	}
	b.add(append(slices.Clip(writes), kv{keyLookupVersion, nil}, kv{keyDerivedVersion, nil}))
	b.bills = append(b.bills, bills...)
	b.commit()
	wb := f.db.NewWriteBatch()
	defer wb.Cancel()
	for _, w := range append(idx, kv{keyLookupVersion, uint64Bytes(lookupVersion)}, kv{keyDerivedVersion, derivedStamp}) {
		var err error
		if w.v == nil {
			err = wb.Delete(w.k)
		} else {
			err = wb.Set(w.k, w.v)
		}
		if err != nil {
			panic(fmt.Sprintf("replica: write indexes: %v", err))
		}
	}
	if err := wb.Flush(); err != nil {
		panic(fmt.Sprintf("replica: write indexes: %v", err))
	}
	// The batch's next transaction must read what was just written.
	b.txn.Discard()
	b.txn = f.db.NewTransaction(true)
	clear(b.reads)
}

// fits reports whether writes fit in one fresh transaction (batch.add's
// estimate).
func (b *batch) fits(writes []kv) bool {
	size, count := txnBaseSize, int64(txnBaseCount)
	for _, w := range writes {
		size += int64(len(w.k) + len(w.v) + 12)
		count++
	}
	return size < b.maxSize && count < b.max
}

// reindexIfStale indexes the ledger again when its indexes are missing or
// of another version than this build's, and so the derived indexes.
func (f *FSM) reindexIfStale() error {
	var have []byte
	err := f.db.View(func(txn *badger.Txn) error {
		v, _, err := txnRead(txn)(keyLookupVersion)
		have = v
		return err
	})
	if err != nil {
		return fmt.Errorf("read index version: %w", err)
	}
	if !bytes.Equal(have, uint64Bytes(lookupVersion)) {
		if err := f.reindex(); err != nil {
			return err
		}
	}
	return f.reindexDerivedIfStale()
}

// reindex drops the indexes and writes them again from a walk of every
// parcel and bill, in bounded batches (rebuild.go), then the version. It
// runs with nothing else using the store (at open, and in Restore).
func (f *FSM) reindex() error {
	start := time.Now()
	if err := f.db.DropPrefix([]byte(prefixLookup)); err != nil {
		return fmt.Errorf("drop indexes: %w", err)
	}
	w := &indexWriter{db: f.db}
	defer w.discard()
	parcels, bills := 0, 0
	absent := func([]byte) ([]byte, bool, error) { return nil, false, nil }
	for _, prefix := range []string{prefixParcel, prefixBill} {
		err := f.walkBatches([]byte(prefix), func(_ *badger.Txn, item *badger.Item) error {
			var writes []kv
			err := item.Value(func(v []byte) error {
				var err error
				writes, err = f.lookupKeys(absent, nil, item.Key(), v)
				return err
			})
			if err != nil {
				return err
			}
			for _, x := range writes {
				if x.v == nil {
					continue
				}
				if err := w.set(x.k, x.v); err != nil {
					return err
				}
			}
			if prefix == prefixParcel {
				parcels++
			} else {
				bills++
			}
			return nil
		}, w.commit)
		if err != nil {
			return fmt.Errorf("index the ledger: %w", err)
		}
	}
	if err := w.set(keyLookupVersion, uint64Bytes(lookupVersion)); err != nil {
		return fmt.Errorf("index the ledger: %w", err)
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("index the ledger: %w", err)
	}
	if err := f.syncState(); err != nil {
		return err
	}
	f.log.Info("indexed the ledger's parcels and bills", "parcels", parcels, "bills", bills, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// FindParcels returns the parcels q names (domain.ParcelQuery), from the
// word index: for each word the parcels having it, or a word it starts,
// then those having every word, in id order.
func (f *FSM) FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error) {
	code, ok := fieldCode[q.Field]
	if !ok || len(q.Words) == 0 {
		return nil, nil
	}
	var out []domain.Parcel
	err := f.view(func(txn *badger.Txn) error {
		var ids map[string]bool
		for _, w := range q.Words {
			if w == "" || strings.ContainsRune(w, 0) {
				ids = nil
				break
			}
			prefix := code + "/" + w
			if !q.Prefix {
				prefix += "\x00"
			}
			has := map[string]bool{}
			it := txn.NewIterator(badger.IteratorOptions{Prefix: key(prefixParcelWord, prefix)})
			for it.Rewind(); it.Valid(); it.Next() {
				k := it.Item().Key()
				id := string(k[bytes.IndexByte(k[len(prefixParcelWord):], 0)+len(prefixParcelWord)+1:])
				if ids == nil || ids[id] {
					has[id] = true
				}
			}
			it.Close()
			ids = has
			if len(ids) == 0 {
				break
			}
		}
		sorted := make([]string, 0, len(ids))
		for id := range ids {
			sorted = append(sorted, id)
		}
		slices.Sort(sorted)
		if n := q.Bound(); len(sorted) > n {
			sorted = sorted[:n]
		}
		for _, id := range sorted {
			p, ok, err := getJSON[domain.Parcel](txn, key(prefixParcel, id))
			if err != nil {
				return err
			}
			if ok {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// ParcelCounties returns the county of every parcel that has one, by
// parcel id, from the word index's county entries: keys alone, no parcel
// decoded.
func (f *FSM) ParcelCounties() (map[string]domain.County, error) {
	out := map[string]domain.County{}
	err := f.view(func(txn *badger.Txn) error {
		prefix := key(prefixParcelWord, countyCode, "/")
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			county, id, ok := strings.Cut(string(it.Item().Key()[len(prefix):]), "\x00")
			if !ok {
				return fmt.Errorf("malformed county index key %q", it.Item().Key())
			}
			out[id] = domain.County(county)
		}
		return nil
	})
	return out, err
}

// BillsOfYear returns a page of the bills q names (domain.BillQuery),
// from the year index: for each standing asked, the bill ids after the
// cursor, merged in id order. Bare bills are their records alone.
func (f *FSM) BillsOfYear(q domain.BillQuery) ([]domain.Bill, error) {
	n := q.Bound()
	var out []domain.Bill
	err := f.view(func(txn *badger.Txn) error {
		var ids []string
		for _, s := range domain.BillStandings {
			if !q.Takes(s) {
				continue
			}
			prefix := key(prefixBillYear, fmt.Sprintf("%04d/%s/", q.Year, s))
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			got := 0
			for it.Seek(append(slices.Clip(prefix), q.After...)); it.Valid() && got < n; it.Next() {
				id := string(it.Item().Key()[len(prefix):])
				if id <= q.After {
					continue
				}
				ids = append(ids, id)
				got++
			}
			it.Close()
		}
		slices.Sort(ids)
		if len(ids) > n {
			ids = ids[:n]
		}
		for _, id := range ids {
			b, ok, err := getJSON[domain.Bill](txn, key(prefixBill, id))
			if err != nil {
				return err
			}
			if ok {
				out = append(out, b)
			}
		}
		return nil
	})
	if q.Bare {
		return out, err
	}
	return f.withPayments(out, err)
}
