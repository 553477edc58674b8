package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The November run's figures of each bill (domain.Lookups.NovemberBills)
// are kept by the node once a preview has figured them, so that the run's
// pages, its confirmation and the start page's alerts read a small entry
// a bill instead of decoding every bill of the year, its payments when
// its summary cannot answer, and the §5.10 arithmetic of each:
//
//	\x00px/n/<bill id> → novemberEntry
//
// An entry says what it was figured from: the bill record's version in
// the store (a bill written since, by a payment or anything else, has
// another), a fingerprint of the parameters (a change to the §5.10 rows
// or the due days figures every bill again) and the day the
// certification was figured to (it runs to the day asked once November 15
// has passed). The FSM never writes them: a read figures the bills whose
// entry is missing or stale and writes theirs afterwards, node-local
// keys outside the state hash and snapshots; and the node figures again,
// a few seconds after they are written, the bills of the years asked
// lately (warmNovember), so that a page rarely finds many entries stale.
// They are under the lookups' prefix, so a reindex drops them; a restore
// drops the whole store.
const prefixNovember = prefixLookup + "n/"

// novemberFormat is the first byte of an entry: an entry of another form
// is figured again.
const novemberFormat = 1

// novemberEntry is a bill's figures as an entry holds them.
type novemberEntry struct {
	version uint64  // the bill record's version it was figured from
	params  [8]byte // paramsPrint of the parameters it was figured with
	certOn  string  // the day the certification was figured to
	bill    domain.NovemberBill
}

func (e novemberEntry) append(buf []byte) []byte {
	buf = append(buf, novemberFormat)
	buf = binary.AppendUvarint(buf, e.version)
	buf = append(buf, e.params[:]...)
	buf = appendString(buf, e.certOn)
	buf = appendString(buf, e.bill.Parcel)
	for _, a := range []domain.NovemberAmount{e.bill.Penalties, e.bill.Certify} {
		if !a.Takes {
			buf = append(buf, 0)
			continue
		}
		buf = appendString(append(buf, 1), a.Amount.String())
	}
	return buf
}

func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

var errNovemberEntry = errors.New("malformed November figures entry")

// parseNovemberEntry reads an entry; an entry it cannot read is figured
// again.
func parseNovemberEntry(raw []byte) (novemberEntry, error) {
	var e novemberEntry
	if len(raw) == 0 || raw[0] != novemberFormat {
		return e, errNovemberEntry
	}
	raw = raw[1:]
	v, n := binary.Uvarint(raw)
	if n <= 0 || len(raw[n:]) < len(e.params) {
		return e, errNovemberEntry
	}
	e.version, raw = v, raw[n:]
	copy(e.params[:], raw)
	raw = raw[len(e.params):]
	str := func() (string, bool) {
		l, n := binary.Uvarint(raw)
		if n <= 0 || uint64(len(raw[n:])) < l {
			return "", false
		}
		s := string(raw[n : n+int(l)])
		raw = raw[n+int(l):]
		return s, true
	}
	var ok bool
	if e.certOn, ok = str(); !ok {
		return e, errNovemberEntry
	}
	if e.bill.Parcel, ok = str(); !ok {
		return e, errNovemberEntry
	}
	for _, a := range []*domain.NovemberAmount{&e.bill.Penalties, &e.bill.Certify} {
		if len(raw) == 0 {
			return e, errNovemberEntry
		}
		takes := raw[0]
		raw = raw[1:]
		if takes == 0 {
			continue
		}
		s, ok := str()
		if !ok {
			return e, errNovemberEntry
		}
		m, err := domain.ParseSignedMoney(s)
		if err != nil {
			return e, errNovemberEntry
		}
		a.Takes, a.Amount = true, m
	}
	if len(raw) != 0 {
		return e, errNovemberEntry
	}
	return e, nil
}

// paramsPrint fingerprints the parameters the figures depend on: every
// effective-dated row and the holidays (due days move with them).
func paramsPrint(p *domain.Params) ([8]byte, error) {
	var out [8]byte
	raw, err := json.Marshal(struct {
		Rows     []domain.ParamRow
		Holidays []domain.Date
	}{p.Rows(), p.Holidays()})
	if err != nil {
		return out, fmt.Errorf("fingerprint the parameters: %w", err)
	}
	sum := sha256.Sum256(raw)
	copy(out[:], sum[:])
	return out, nil
}

// novemberWriteBatch is how many entries one write of the figures
// carries.
const novemberWriteBatch = 1024

// NovemberBills calls fn with each bill of the tax-roll year, in id order,
// and its part in the year's November run on day on: from its entry when
// the entry was figured from the bill as it stands, with the parameters
// and for the day asked; otherwise figured from the bill (with its
// payments when its summary cannot answer), and its entry written
// afterwards.
func (f *FSM) NovemberBills(year int, on domain.Date, fn func(domain.NovemberBill) error) error {
	if years := f.november.ask(year); years != nil && !f.readOnly {
		f.saveAsked(years)
	}
	p := f.Params()
	fp, err := paramsPrint(p)
	if err != nil {
		return err
	}
	certOn := domain.CertifyAsOf(year, on).String()
	restores := f.restores.Load()
	var fresh []kv
	var out []domain.NovemberBill
	err = f.view(func(txn *badger.Txn) error {
		type ref struct {
			id       string
			standing domain.BillStanding
		}
		// Sized as the last answer was: a year's bills are tens of
		// thousands, and each doubling of the slices is the collector's
		// work again at the unit's heap limit.
		refs := make([]ref, 0, f.november.lastSize.Load())
		for _, s := range domain.BillStandings {
			prefix := key(prefixBillYear, fmt.Sprintf("%04d/%s/", year, s))
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			for it.Rewind(); it.Valid(); it.Next() {
				refs = append(refs, ref{string(it.Item().Key()[len(prefix):]), s})
			}
			it.Close()
		}
		slices.SortFunc(refs, func(a, b ref) int { return strings.Compare(a.id, b.id) })
		f.november.lastSize.Store(int64(len(refs)))
		out = make([]domain.NovemberBill, 0, len(refs))
		bills := newCursor(txn, prefixBill)
		defer bills.close()
		entries := newCursor(txn, prefixNovember)
		defer entries.close()
		for _, r := range refs {
			item, ok := bills.at(r.id)
			if !ok {
				continue
			}
			version := item.Version()
			if raw, ok := entries.at(r.id); ok {
				var e novemberEntry
				err := raw.Value(func(v []byte) error {
					var err error
					e, err = parseNovemberEntry(v)
					return err
				})
				if err == nil && e.version == version && e.params == fp && e.certOn == certOn {
					e.bill.ID, e.bill.Standing = r.id, r.standing
					out = append(out, e.bill)
					continue
				}
			}
			e, err := figureNovember(txn, item, r.id, r.standing, year, on, p, fp, certOn)
			if err != nil {
				return err
			}
			fresh = append(fresh, kv{key(prefixNovember, r.id), e.append(nil)})
			out = append(out, e.bill)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(fresh) > 0 {
		if err := f.keepNovember(fresh, restores); err != nil {
			// The figures are kept to be read faster next time; the
			// answer stands.
			f.log.Warn("November run figures not kept", "year", year, "err", err)
		}
	}
	// fn is called once the read is over: it may read the ledger itself.
	for _, nb := range out {
		if err := fn(nb); err != nil {
			return err
		}
	}
	return nil
}

// figureNovember figures the entry of the bill whose record is item, in
// txn: its part in year's run on day on, from the bill alone when its
// summary answers, else with its payments.
func figureNovember(txn *badger.Txn, item *badger.Item, id string, standing domain.BillStanding, year int, on domain.Date, p *domain.Params, fp [8]byte, certOn string) (novemberEntry, error) {
	var b domain.Bill
	if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &b) }); err != nil {
		return novemberEntry{}, fmt.Errorf("read bill %s: %w", id, err)
	}
	nb, err := domain.NovemberBillOf(b, standing, year, on, p)
	if errors.Is(err, domain.ErrPaymentsNeeded) {
		if err = domain.ReadBillPayments(txnRecords{txn}, &b); err == nil {
			nb, err = domain.NovemberBillOf(b, standing, year, on, p)
		}
	}
	if err != nil {
		return novemberEntry{}, fmt.Errorf("bill %s: %w", id, err)
	}
	return novemberEntry{version: item.Version(), params: fp, certOn: certOn, bill: nb}, nil
}

// keepNovember writes figured entries, as a read does: never while a
// snapshot is restored, which drops the store, and not at all when one
// was restored since the figures were read (restores, as Restores read
// it before): they were figured from the store before.
func (f *FSM) keepNovember(writes []kv, restores int64) error {
	f.restoring.RLock()
	defer f.restoring.RUnlock()
	if f.restores.Load() != restores {
		return nil
	}
	for len(writes) > 0 {
		n := min(len(writes), novemberWriteBatch)
		wb := f.db.NewWriteBatch()
		for _, w := range writes[:n] {
			if err := wb.Set(w.k, w.v); err != nil {
				wb.Cancel()
				return err
			}
		}
		if err := wb.Flush(); err != nil {
			return err
		}
		writes = writes[n:]
	}
	return nil
}

// cursor finds the keys of one prefix for ids asked in ascending order,
// stepping forward through the keys between them (a year's bills sit
// close together in the store) and seeking past a longer gap, so that
// each table block is read once rather than once a key.
type cursor struct {
	it      *badger.Iterator
	prefix  []byte
	key     []byte
	started bool
}

// cursorSteps is how many keys a cursor steps over before it seeks.
const cursorSteps = 16

func newCursor(txn *badger.Txn, prefix string) *cursor {
	return &cursor{it: txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix)}), prefix: []byte(prefix)}
}

// at returns the item of prefix+id, if the store has it; ids must come
// in ascending order. The item is valid until the next call.
func (c *cursor) at(id string) (*badger.Item, bool) {
	c.key = append(append(c.key[:0], c.prefix...), id...)
	if !c.started {
		c.it.Seek(c.key)
		c.started = true
	}
	for n := 0; c.it.Valid(); n++ {
		switch bytes.Compare(c.it.Item().Key(), c.key) {
		case 0:
			return c.it.Item(), true
		case 1:
			return nil, false
		}
		if n == cursorSteps {
			c.it.Seek(c.key)
		} else {
			c.it.Next()
		}
	}
	return nil, false
}

func (c *cursor) close() { c.it.Close() }

// askedYears are the tax-roll years whose November figures were asked
// lately, the latest first: the start page asks for the coming run's every
// time it is shown, the run's pages for the year they show.
type askedYears struct {
	mu       sync.Mutex
	years    []int
	any      atomic.Bool  // a year was asked since the ledger opened
	lastSize atomic.Int64 // how many bills the last read of a year's figures found
}

// warmYears is how many years askedYears keeps.
const warmYears = 2

// ask notes year as the latest asked, and returns the years when that
// changed them (nil when it did not).
func (a *askedYears) ask(year int) []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	was := slices.Clone(a.years)
	a.years = slices.DeleteFunc(a.years, func(y int) bool { return y == year })
	a.years = slices.Insert(a.years, 0, year)
	if len(a.years) > warmYears {
		a.years = a.years[:warmYears]
	}
	a.any.Store(true)
	if slices.Equal(was, a.years) {
		return nil
	}
	return slices.Clone(a.years)
}

// keyNovemberAsked keeps the years asked lately (askedYears, the latest
// first, comma-separated), so that a node started again keeps warm the
// years it kept warm before and the treasurer's first preview after a
// restart reads entries rather than figures the year. Node-local, and
// only a hint: a store without it keeps no year warm until one is asked.
var keyNovemberAsked = []byte("\x00nw/asked")

// saveAsked records years as the years asked lately.
func (f *FSM) saveAsked(years []int) {
	var b []byte
	for i, y := range years {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(y), 10)
	}
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(keyNovemberAsked, b) }); err != nil {
		f.log.Warn("the years asked for November figures not recorded", "err", err)
	}
}

// loadAsked takes the years asked lately from the store, if it records
// any.
func (f *FSM) loadAsked() error {
	return f.db.View(func(txn *badger.Txn) error {
		v, ok, err := txnRead(txn)(keyNovemberAsked)
		if err != nil || !ok {
			return err
		}
		parts := strings.Split(string(v), ",")
		for _, p := range slices.Backward(parts) {
			y, err := strconv.Atoi(p)
			if err != nil {
				f.log.Warn("the years asked for November figures are unreadable", "value", string(v))
				f.november = askedYears{}
				return nil
			}
			f.november.ask(y)
		}
		return nil
	})
}

func (a *askedYears) list() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.years)
}

// writtenBills are the bills written since the warmer last took them,
// kept once a year was asked (before that, the first read figures every
// bill anyway). Past writtenBillsMax, or after a restore, it holds all
// instead: every bill is looked at.
type writtenBills struct {
	mu  sync.Mutex
	ids map[string]struct{}
	all bool
}

const writtenBillsMax = 50_000

func (w *writtenBills) add(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.all:
	case len(w.ids) >= writtenBillsMax:
		w.ids, w.all = nil, true
	default:
		if w.ids == nil {
			w.ids = map[string]struct{}{}
		}
		w.ids[id] = struct{}{}
	}
}

func (w *writtenBills) setAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ids, w.all = nil, true
}

// take returns the bills written, in id order, and empties the set.
func (w *writtenBills) take() (ids []string, all bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids, all = slices.Sorted(maps.Keys(w.ids)), w.all
	w.ids, w.all = nil, false
	return ids, all
}

// billWritten notes a bill record the FSM wrote, for the warmer.
func (f *FSM) billWritten(id string) {
	if f.november.any.Load() {
		f.written.add(id)
	}
}

// novemberWarmEvery is how often a node looks for bills written since it
// last looked (a variable so that a test can look more often).
var novemberWarmEvery = 5 * time.Second

// warmNovember keeps the figures of the years asked lately current: every
// novemberWarmEvery it figures again the entries of the bills of those
// years written since it last looked, and every bill of a year when what
// all its entries were figured for has moved (the parameters, or the day
// the certification is figured to, which is each day's from November 16),
// or after a restore. Without it the first page after a day of payments
// (the start page's alerts, the run's preview) figures every bill paid
// that day while the clerk waits; with it that work is done a few seconds
// after the payments, a few bills at a time, and the page reads entries.
// A node that has not been asked keeps no year warm. The pages never
// depend on it: they check each entry against its bill.
func (n *Node) warmNovember() {
	defer n.wg.Done()
	tick := time.NewTicker(novemberWarmEvery)
	defer tick.Stop()
	figuredFor := map[int]string{} // by year: the parameters and day of its last whole pass
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		years := n.fsm.november.list()
		ids, all := n.fsm.written.take()
		if len(years) == 0 {
			continue
		}
		today := domain.DateOf(n.cfg.Now().In(n.cfg.Location))
		fp, err := paramsPrint(n.fsm.Params())
		if err != nil {
			continue
		}
		var some []int
		for _, y := range slices.Backward(years) { // the latest asked stays first
			now := string(fp[:]) + domain.CertifyAsOf(y, today).String()
			if !all && figuredFor[y] == now {
				some = append(some, y)
				continue
			}
			select {
			case <-n.done:
				return
			default:
			}
			if err := n.fsm.NovemberBills(y, today, func(domain.NovemberBill) error { return nil }); err != nil {
				// Said once, not every few seconds: the run's pages say
				// it to the treasurer, and the next change tries again.
				n.log.Warn("November run figures not kept current", "year", y, "err", err)
			}
			figuredFor[y] = now
		}
		if len(some) > 0 && len(ids) > 0 {
			if err := n.fsm.refigureNovember(some, today, ids); err != nil {
				n.log.Warn("November run figures not kept current", "err", err)
			}
		}
	}
}

// refigureNovember writes the entries of bills ids (in id order) that are
// in one of years' runs and whose entry is missing or stale, figured for
// day on, as NovemberBills would. A bill that cannot be figured is left
// to the page that asks for it, which says why.
func (f *FSM) refigureNovember(years []int, on domain.Date, ids []string) error {
	p := f.Params()
	fp, err := paramsPrint(p)
	if err != nil {
		return err
	}
	restores := f.restores.Load()
	var fresh []kv
	err = f.view(func(txn *badger.Txn) error {
		read := txnRead(txn)
		for _, id := range ids {
			at, ok, err := read(key(prefixBillStanding, id))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			ys, standing, _ := strings.Cut(string(at), "/")
			year, err := strconv.Atoi(ys)
			if err != nil || !slices.Contains(years, year) {
				continue
			}
			item, err := txn.Get(key(prefixBill, id))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			certOn := domain.CertifyAsOf(year, on).String()
			if raw, ok, err := read(key(prefixNovember, id)); err != nil {
				return err
			} else if ok {
				if e, err := parseNovemberEntry(raw); err == nil && e.version == item.Version() && e.params == fp && e.certOn == certOn {
					continue
				}
			}
			e, err := figureNovember(txn, item, id, domain.BillStanding(standing), year, on, p, fp, certOn)
			if err != nil {
				f.log.Warn("November run figures of a bill not kept", "bill", id, "err", err)
				continue
			}
			fresh = append(fresh, kv{key(prefixNovember, id), e.append(nil)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return f.keepNovember(fresh, restores)
}
