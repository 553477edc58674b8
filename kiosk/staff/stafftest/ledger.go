package stafftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Ledger is an in-memory domain.Ledger for handler tests. It applies
// commands with the real domain.Apply on a copy of its state and keeps the
// copy only when the command succeeds, dedupes command ids, and keeps a
// journal of (kind, actor, outcome) as the replicated ledger does. The
// real ledger is sync/replica, which appliance/staff_test.go drives.
type Ledger struct {
	mu          sync.Mutex
	now         func() time.Time
	loc         *time.Location
	params      *domain.Params
	seq         uint64
	index       uint64
	st          memState
	results     map[string]domain.Result
	requests    map[string]domain.Command // what each command id asked, to refuse its reuse
	journal     []staff.JournalEntry
	provisional bool // Submit answers provisionally (no quorum) without applying
	parcelReads int  // Parcel calls, for tests of what a page reads
}

type memState struct {
	bills    map[string]domain.Bill
	parcels  map[string]domain.Parcel
	accounts map[string]domain.Account
	receipts map[string]domain.Receipt
	refunds  []domain.RefundDue
	records  map[string][]byte
	keys     map[string]bool
}

func (s memState) clone() memState {
	return memState{maps.Clone(s.bills), maps.Clone(s.parcels), maps.Clone(s.accounts), maps.Clone(s.receipts), slices.Clone(s.refunds), maps.Clone(s.records), maps.Clone(s.keys)}
}

var _ domain.Ledger = (*Ledger)(nil)

func NewLedger(now func() time.Time, loc *time.Location) *Ledger {
	l := &Ledger{now: now, loc: loc, params: domain.DefaultParams(), results: map[string]domain.Result{}, requests: map[string]domain.Command{},
		st: memState{map[string]domain.Bill{}, map[string]domain.Parcel{}, map[string]domain.Account{}, map[string]domain.Receipt{}, nil, map[string][]byte{}, map[string]bool{}}}
	for i, owner := range []string{"Ana Gutierrez", "Luis Ramirez"} {
		p := domain.Parcel{ID: fmt.Sprintf("0601-141-%04d", 2001+i), Address: fmt.Sprintf("%d Main St", 10+i), County: []domain.County{domain.Dane, domain.Green}[i], Owner: owner}
		l.st.parcels[p.ID] = p
		a := domain.Account{Number: fmt.Sprintf("%06d", 100101+i), Name: owner, Parcels: []string{p.ID}}
		l.st.accounts[a.Number] = a
	}
	l.st.bills["B-2026-0101"] = domain.Bill{ID: "B-2026-0101", Account: "100101", Parcel: "0601-141-2001", Description: "Water and sewer", BilledOn: domain.MustDate("2026-10-20"), Principal: domain.MustMoney("142.37")}
	l.st.bills["B-2026-0102"] = domain.Bill{ID: "B-2026-0102", Account: "100102", Parcel: "0601-141-2002", Description: "Weed cutting", BilledOn: domain.MustDate("2026-10-25"), Principal: domain.MustMoney("90.00")}
	return l
}

func (l *Ledger) NewCommand(k domain.Kind, actor string) (domain.Command, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return domain.Command{ID: fmt.Sprintf("cmd-%d", l.seq), Kind: k, At: domain.DateTimeOf(l.now().In(l.loc)), Node: "hall-clerk", Seq: l.seq, Actor: actor}, nil
}

func (l *Ledger) Submit(ctx context.Context, cmd domain.Command) (domain.Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := cmd.Validate(); err != nil {
		return domain.Result{}, err
	}
	b, err := domain.EncodeCommand(cmd)
	if err != nil {
		return domain.Result{}, err
	}
	if cmd, err = domain.DecodeCommand(b); err != nil {
		return domain.Result{}, err
	}
	if res, ok := l.results[cmd.ID]; ok {
		if !l.requests[cmd.ID].SameRequest(cmd) {
			// As the replica answers an id reused for another request.
			return domain.Result{}, domain.Errorf(domain.ECONFLICT, "", "The command id %s was already used for a different request; use a new id for a new request.", cmd.ID)
		}
		if res.Error != nil {
			return res, res.Error
		}
		return res, nil
	}
	if l.provisional {
		return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind}, nil
	}
	l.index++
	l.requests[cmd.ID] = cmd
	work := l.st.clone()
	res, err := domain.Apply(memTx{&work}, cmd, l.index, l.params)
	if err != nil {
		var de *domain.Error
		if !errors.As(err, &de) {
			panic(err) // the replicated FSM panics too: a non-domain error is a bug
		}
		res = domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: l.index, Error: de}
		l.results[cmd.ID] = res
		l.journal = append(l.journal, staff.JournalEntry{Seq: uint64(len(l.journal) + 1), Index: l.index, CommandID: cmd.ID, Kind: cmd.Kind, Actor: cmd.Actor, Node: cmd.Node, At: cmd.At, Outcome: "refused", Error: de.Error()})
		return res, de
	}
	l.st = work
	if cmd.Kind == domain.KindResolution {
		// As the replica does: once the ledger holds resolutions, their
		// rows are the parameters every later command computes with.
		l.params = l.ledgerParams()
	}
	l.results[cmd.ID] = res
	l.journal = append(l.journal, staff.JournalEntry{Seq: uint64(len(l.journal) + 1), Index: l.index, CommandID: cmd.ID, Kind: cmd.Kind, Actor: cmd.Actor, Node: cmd.Node, At: cmd.At, Outcome: "applied",
		Touched: l.touched(cmd.ID, res)})
	return res, nil
}

// touched is what command id touched, as the replicated ledger records it
// when the command applies (domain.TouchedBy): from its result, the bill
// it made and the returned check it recorded.
func (l *Ledger) touched(id string, res domain.Result) domain.Touched {
	var made []string
	var returned *domain.ReturnedCheckRecord
	for k, raw := range l.st.records {
		switch {
		case strings.HasPrefix(k, domain.CollectionBillOrigins+"/"):
			var o domain.BillOrigin
			if json.Unmarshal(raw, &o) == nil && o.CommandID == id {
				made = append(made, o.BillID)
			}
		case strings.HasPrefix(k, domain.CollectionReturnedChecks+"/"):
			var r domain.ReturnedCheckRecord
			if json.Unmarshal(raw, &r) == nil && r.CommandID == id {
				returned = &r
			}
		}
	}
	var bill *domain.Bill
	if len(made) == 1 {
		if b, ok := l.st.bills[made[0]]; ok {
			bill = &b
		}
	}
	return domain.TouchedBy(res, bill, returned)
}

// JournalEntries implements staff.Journal over the whole journal, in the
// order and with the cursor and bound the replicated ledger's indexes
// give (sync/replica JournalRows).
func (l *Ledger) JournalEntries(q staff.JournalQuery, fn func(staff.JournalEntry) bool) (staff.JournalScan, error) {
	l.mu.Lock()
	entries := slices.Clone(l.journal)
	l.mu.Unlock()
	dated := q.CommandID == "" && q.Bill == "" && q.Account == "" && (q.Kind != "" || !q.From.IsZero() || !q.To.IsZero())
	order := func(a, b staff.JournalEntry) int {
		c := 0
		if dated {
			c = a.At.Date.Compare(b.At.Date)
		}
		if c == 0 {
			c = int(a.Seq) - int(b.Seq)
		}
		if !q.Oldest {
			c = -c
		}
		return c
	}
	slices.SortStableFunc(entries, order)
	var out staff.JournalScan
	start := 0
	if q.Cursor > 0 {
		i := slices.IndexFunc(entries, func(e staff.JournalEntry) bool { return e.Seq == q.Cursor })
		if i < 0 {
			return out, domain.Errorf(domain.EINVALID, "", "The journal has no entry %d to go on from.", q.Cursor)
		}
		start = i + 1
	}
	read := 0
	for i := start; i < len(entries); i++ {
		e := entries[i]
		if q.Scan > 0 && read >= q.Scan {
			out.More = true
			return out, nil
		}
		read++
		out.Last = e.Seq
		d := e.At.Date
		switch {
		case q.CommandID != "" && e.CommandID != q.CommandID,
			q.Bill != "" && !e.Touched.TouchesBill(q.Bill),
			q.Account != "" && e.Touched.Account != q.Account,
			q.Kind != "" && e.Kind != q.Kind,
			!q.From.IsZero() && d.Before(q.From),
			!q.To.IsZero() && d.After(q.To):
			continue
		}
		if !fn(e) {
			out.More = i+1 < len(entries)
			return out, nil
		}
	}
	return out, nil
}

// Journal implements staff.Journal.
func (l *Ledger) Journal(fn func(staff.JournalEntry) error) error {
	l.mu.Lock()
	entries := slices.Clone(l.journal)
	l.mu.Unlock()
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// JournalYear implements staff.Journal from a walk of the journal.
func (l *Ledger) JournalYear(year int) (staff.JournalYear, error) {
	l.mu.Lock()
	entries := slices.Clone(l.journal)
	l.mu.Unlock()
	var out staff.JournalYear
	before := ""
	for _, e := range entries {
		y := e.At.Date.Year()
		if y >= year && out.First == 0 {
			out.First, out.Prev = e.Seq, before
		}
		if y <= year {
			out.Last = e.Seq
		}
		before = e.Hash
	}
	if out.First == 0 {
		out.Prev = before
	}
	return out, nil
}

// JournalRange implements staff.Journal.
func (l *Ledger) JournalRange(from, to uint64, fn func(staff.JournalEntry) error) error {
	l.mu.Lock()
	entries := slices.Clone(l.journal)
	l.mu.Unlock()
	for _, e := range entries {
		if e.Seq < from || e.Seq > to {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (l *Ledger) JournalLen() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.journal)
}

func notFound(what, id string) error {
	return domain.Errorf(domain.ENOTFOUND, "", "There is no %s %q.", what, id)
}

// Bill returns a bill with its payments, which a bill stored at ledger
// format 3 keeps as records of their own (domain.ReadBillPayments).
func (l *Ledger) Bill(id string) (domain.Bill, error) {
	l.mu.Lock()
	b, ok := l.st.bills[id]
	l.mu.Unlock()
	if !ok {
		return b, notFound("bill", id)
	}
	return b, domain.ReadBillPayments(l, &b)
}

func (l *Ledger) bills(f func(domain.Bill) bool) ([]domain.Bill, error) {
	l.mu.Lock()
	var out []domain.Bill
	for _, b := range l.st.bills {
		if f(b) {
			out = append(out, b)
		}
	}
	l.mu.Unlock()
	domain.SortBills(out)
	for i := range out {
		if err := domain.ReadBillPayments(l, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (l *Ledger) BillsByAccount(n string) ([]domain.Bill, error) {
	return l.bills(func(b domain.Bill) bool { return b.Account == n })
}

func (l *Ledger) BillsByParcel(id string) ([]domain.Bill, error) {
	return l.bills(func(b domain.Bill) bool { return b.Parcel == id })
}

func (l *Ledger) Parcel(id string) (domain.Parcel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.parcelReads++
	p, ok := l.st.parcels[id]
	if !ok {
		return p, notFound("parcel", id)
	}
	return p, nil
}

// ParcelReads returns how many parcels were read one by one (Parcel)
// since the ledger was made: a test of what a page reads.
func (l *Ledger) ParcelReads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.parcelReads
}

func (l *Ledger) Parcels() ([]domain.Parcel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Collect(maps.Values(l.st.parcels)), nil
}

// FindParcels answers a parcel lookup by walking the parcels, as the
// replicated ledger's indexes must answer it.
func (l *Ledger) FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error) {
	parcels, err := l.Parcels()
	return domain.FilterParcels(parcels, q), err
}

// BillsOfYear answers a bill lookup by walking the bills; Bare bills are
// their records as stored.
func (l *Ledger) BillsOfYear(q domain.BillQuery) ([]domain.Bill, error) {
	bills, err := l.bills(func(domain.Bill) bool { return true })
	if err != nil {
		return nil, err
	}
	out, err := domain.FilterBills(bills, q, l.Params())
	if err != nil || !q.Bare {
		return out, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, b := range out {
		out[i] = l.st.bills[b.ID]
	}
	return out, nil
}

// ParcelCounties walks the parcels.
func (l *Ledger) ParcelCounties() (map[string]domain.County, error) {
	parcels, err := l.Parcels()
	return domain.ParcelCountiesOf(parcels), err
}

// NovemberBills figures every bill of the year from the bills with
// their payments, as the replicated ledger's preview must answer.
func (l *Ledger) NovemberBills(year int, on domain.Date, fn func(domain.NovemberBill) error) error {
	bills, err := l.bills(func(domain.Bill) bool { return true })
	if err != nil {
		return err
	}
	return domain.FigureNovemberBills(bills, year, on, l.Params(), fn)
}

func (l *Ledger) Account(n string) (domain.Account, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.st.accounts[n]
	if !ok {
		return a, notFound("account", n)
	}
	return a, nil
}

func (l *Ledger) Receipt(n string) (domain.Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.st.receipts[n]
	if !ok {
		return r, notFound("receipt", n)
	}
	return r, nil
}

func (l *Ledger) Params() *domain.Params {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.params
}

// ledgerParams returns the parameters of the resolutions the state holds
// (domain.ParamsOf, in their order), as the replica's FSM reads them after
// a resolution applies. The caller holds l.mu.
func (l *Ledger) ledgerParams() *domain.Params {
	var rs []domain.Resolution
	for k, b := range l.st.records {
		if id, ok := strings.CutPrefix(k, domain.CollectionResolutions+"/"); ok && id != "count" {
			var r domain.Resolution
			if err := json.Unmarshal(b, &r); err != nil {
				panic(err)
			}
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b domain.Resolution) int { return a.Order - b.Order })
	p, err := domain.ParamsOf(rs)
	if err != nil {
		panic(err) // the replica halts too: its resolutions must make complete parameters
	}
	return p
}

func (l *Ledger) Consistency() domain.Consistency {
	return domain.Consistency{Level: domain.Current}
}

func (l *Ledger) Get(collection, id string, v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.st.records[collection+"/"+id]
	if !ok {
		return notFound(collection, id)
	}
	return json.Unmarshal(b, v)
}

func (l *Ledger) List(collection, prefix string, fn func(string, []byte) error) error {
	l.mu.Lock()
	var ids []string
	base := collection + "/"
	for k := range l.st.records {
		if strings.HasPrefix(k, base+prefix) {
			ids = append(ids, k)
		}
	}
	slices.Sort(ids)
	vals := make([][]byte, len(ids))
	for i, k := range ids {
		vals[i] = l.st.records[k]
	}
	l.mu.Unlock()
	for i, k := range ids {
		if err := fn(strings.TrimPrefix(k, base), vals[i]); err != nil {
			return err
		}
	}
	return nil
}

func (l *Ledger) Keys(index, prefix string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	base := index + "/"
	for k := range l.st.keys {
		if strings.HasPrefix(k, base+prefix) {
			out = append(out, strings.TrimPrefix(k, base))
		}
	}
	slices.Sort(out)
	return out, nil
}

// memTx is the domain.Tx over a working copy of the state.
type memTx struct{ s *memState }

func (t memTx) Bill(id string) (domain.Bill, bool, error) { b, ok := t.s.bills[id]; return b, ok, nil }
func (t memTx) PutBill(b domain.Bill) error               { t.s.bills[b.ID] = b; return nil }

// EachBill calls fn with every bill in id order, as the replicated
// ledger's transaction does (the books' opening entry reads them).
func (t memTx) EachBill(fn func(domain.Bill) error) error {
	for _, id := range slices.Sorted(maps.Keys(t.s.bills)) {
		if err := fn(t.s.bills[id]); err != nil {
			return err
		}
	}
	return nil
}
func (t memTx) Parcel(id string) (domain.Parcel, bool, error) {
	p, ok := t.s.parcels[id]
	return p, ok, nil
}
func (t memTx) PutParcel(p domain.Parcel) error { t.s.parcels[p.ID] = p; return nil }
func (t memTx) Account(n string) (domain.Account, bool, error) {
	a, ok := t.s.accounts[n]
	return a, ok, nil
}
func (t memTx) PutAccount(a domain.Account) error { t.s.accounts[a.Number] = a; return nil }
func (t memTx) PutReceipt(r domain.Receipt) error { t.s.receipts[r.Number] = r; return nil }
func (t memTx) PutRefundDue(r domain.RefundDue) error {
	t.s.refunds = append(t.s.refunds, r)
	return nil
}
func (t memTx) Empty() (bool, error)            { return len(t.s.bills) == 0, nil }
func (t memTx) Index(index, key string) error   { t.s.keys[index+"/"+key] = true; return nil }
func (t memTx) Unindex(index, key string) error { delete(t.s.keys, index+"/"+key); return nil }
func (t memTx) Get(c, id string, v any) (bool, error) {
	b, ok := t.s.records[c+"/"+id]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}
func (t memTx) Put(c, id string, v any) error {
	b, err := json.Marshal(v)
	t.s.records[c+"/"+id] = b
	return err
}

func (l *Ledger) RefundsDue() ([]domain.RefundDue, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.st.refunds), nil
}

// ClearBills removes the bills the ledger starts with, for a test of a
// village whose books open before it has billed anything (the books'
// opening entry carries every bill then open, and the starting bills are
// dated in the autumn).
func (l *Ledger) ClearBills() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.st.bills)
}

// PutBill writes a bill straight into the ledger's state, for a test
// that needs a bill the commands would take many steps to make.
func (l *Ledger) PutBill(b domain.Bill) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st.bills[b.ID] = b
}

// PutSummarizedBill writes a bill straight into the ledger's state as
// ledger format 3 stores it (domain.Bill.Summarized): its record holds
// the summary of its account, each payment is a record of its own.
func (l *Ledger) PutSummarizedBill(b domain.Bill) error {
	rec, err := b.Summarized(l.params)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, pay := range b.Payments {
		if err := (memTx{&l.st}).Put(domain.CollectionBillPayments, domain.BillPaymentID(b.ID, i), pay); err != nil {
			return err
		}
	}
	l.st.bills[b.ID] = rec
	return nil
}

// PutParcel writes a parcel and its owner's account straight into the
// ledger's state (the demo seed is the only command that makes parcels).
func (l *Ledger) PutParcel(p domain.Parcel, account string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st.parcels[p.ID] = p
	l.st.accounts[account] = domain.Account{Number: account, Name: p.Owner, Parcels: []string{p.ID}}
}

// PutTaxBill writes a property tax bill and its index entries straight
// into the ledger's state (domain.PutTaxBill), as the demo seed and the
// roll import do.
func (l *Ledger) PutTaxBill(t domain.TaxBill) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return domain.PutTaxBill(memTx{&l.st}, t)
}

// AppendJournal adds an entry to the journal as it is, for a test of
// what the journal's pages make of a hostile one.
func (l *Ledger) AppendJournal(e staff.JournalEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.journal = append(l.journal, e)
}

// SetProvisional makes Submit answer as a node that has no quorum: the
// command is not applied, and its result has no log index.
func (l *Ledger) SetProvisional(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.provisional = on
}
