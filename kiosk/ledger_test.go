package kiosk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/villagehall/appliance/domain"
)

// fakeLedger is an in-memory domain.Ledger for handler and browser tests.
// It applies commands with the real domain.Apply, dedupes them by id as the
// replicated ledger does, and can pretend to be offline (Submit returns a
// provisional receipt and the ledger cannot read it back) or a stale
// replica. The real ledger is sync/replica, wired by the appliance.
type fakeLedger struct {
	mu          sync.Mutex
	now         func() time.Time
	loc         *time.Location
	node        string
	params      *domain.Params
	seq         uint64
	logIndex    uint64
	bills       map[string]domain.Bill
	parcels     map[string]domain.Parcel
	accounts    map[string]domain.Account
	receipts    map[string]domain.Receipt
	outbox      map[string]domain.Receipt // provisional receipts of commands taken offline
	refunds     []domain.RefundDue
	results     map[string]domain.Result // by command id
	submits     int                      // calls of Submit
	applied     int                      // commands applied (not deduped)
	records     map[string][]byte        // "collection/id" → JSON
	index       map[string]bool          // "index/key"
	consistency domain.Consistency
	format      int              // the replicated ledger's format; 0 is this build's
	submitted   []domain.Command // every command Submit was given
	offline     bool
	bare        bool  // offline, answering like a ledger that makes no provisional receipt for a kind
	refuse      error // Submit and NewCommand fail with it when set
}

var _ domain.Ledger = (*fakeLedger)(nil)

func newFakeLedger(now func() time.Time, loc *time.Location) *fakeLedger {
	return &fakeLedger{
		now:         now,
		loc:         loc,
		node:        "hall-kiosk",
		params:      domain.DefaultParams(),
		bills:       make(map[string]domain.Bill),
		parcels:     make(map[string]domain.Parcel),
		accounts:    make(map[string]domain.Account),
		receipts:    make(map[string]domain.Receipt),
		outbox:      make(map[string]domain.Receipt),
		results:     make(map[string]domain.Result),
		records:     make(map[string][]byte),
		index:       make(map[string]bool),
		consistency: domain.Consistency{Level: domain.Current},
	}
}

func (l *fakeLedger) Submit(ctx context.Context, cmd domain.Command) (domain.Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.submits++
	l.submitted = append(l.submitted, cmd)
	if l.refuse != nil {
		return domain.Result{}, l.refuse
	}
	if err := cmd.Validate(); err != nil {
		return domain.Result{}, err
	}
	if res, ok := l.results[cmd.ID]; ok {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return domain.Result{}, err
	}
	tx := &fakeTx{l: l, bills: map[string]domain.Bill{}, receipts: map[string]domain.Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	l.logIndex++
	res, err := domain.Apply(tx, cmd, l.logIndex, l.params)
	if err != nil {
		l.logIndex--
		return domain.Result{}, err
	}
	if l.offline {
		// Queued, not applied: the kiosk gets a provisional receipt, which
		// the ledger reads back from its outbox as the replicated one does.
		l.logIndex--
		if l.bare {
			l.consistency.Pending++
			return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind}, nil
		}
		rc := *res.Receipt
		rc.Status = domain.Provisional
		rc.Index = 0
		res.Index = 0
		res.Receipt = &rc
		l.outbox[rc.Number] = rc
		l.results[cmd.ID] = res
		l.consistency.Pending++
		return res, nil
	}
	maps.Copy(l.records, tx.records)
	for k, v := range tx.index {
		if v {
			l.index[k] = true
		} else {
			delete(l.index, k)
		}
	}
	maps.Copy(l.bills, tx.bills)
	maps.Copy(l.receipts, tx.receipts)
	l.refunds = append(l.refunds, tx.refunds...)
	l.results[cmd.ID] = res
	l.applied++
	return res, nil
}

// LedgerFormat is the replicated ledger's format, as replica.Node says it.
func (l *fakeLedger) LedgerFormat() int {
	if l.format != 0 {
		return l.format
	}
	return domain.LedgerFormat
}

// LedgerFormat makes the rules apply at the fake ledger's format.
func (t *fakeTx) LedgerFormat() int { return t.l.LedgerFormat() }

// CheckStamp is the replica's question before a card is charged: would
// NewCommand refuse now?
func (l *fakeLedger) CheckStamp(domain.Kind) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refuse != nil && domain.ErrorCode(l.refuse) == domain.EUNAVAILABLE {
		return l.refuse
	}
	return nil
}

func (l *fakeLedger) NewCommand(k domain.Kind, actor string) (domain.Command, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refuse != nil && domain.ErrorCode(l.refuse) == domain.EUNAVAILABLE {
		return domain.Command{}, l.refuse
	}
	l.seq++
	return domain.Command{
		V:     domain.CommandVersion,
		ID:    fmt.Sprintf("fake-%d", l.seq),
		Kind:  k,
		At:    domain.DateTimeOf(l.now().In(l.loc)),
		Node:  l.node,
		Seq:   l.seq,
		Actor: actor,
	}, nil
}

func notFound(what, id string) error {
	return domain.Errorf(domain.ENOTFOUND, "", "There is no %s %q.", what, id)
}

func (l *fakeLedger) Bill(id string) (domain.Bill, error) {
	l.mu.Lock()
	b, ok := l.bills[id]
	l.mu.Unlock()
	if !ok {
		return b, notFound("bill", id)
	}
	return b, domain.ReadBillPayments(l, &b)
}

func (l *fakeLedger) BillsByAccount(number string) ([]domain.Bill, error) {
	return l.billsWhere(func(b domain.Bill) bool { return b.Account == number })
}

func (l *fakeLedger) BillsByParcel(id string) ([]domain.Bill, error) {
	return l.billsWhere(func(b domain.Bill) bool { return b.Parcel == id })
}

func (l *fakeLedger) billsWhere(f func(domain.Bill) bool) ([]domain.Bill, error) {
	l.mu.Lock()
	var out []domain.Bill
	for _, id := range slices.Sorted(maps.Keys(l.bills)) {
		if b := l.bills[id]; f(b) {
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

func (l *fakeLedger) Parcel(id string) (domain.Parcel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.parcels[id]
	if !ok {
		return p, notFound("parcel", id)
	}
	return p, nil
}

func (l *fakeLedger) Parcels() ([]domain.Parcel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []domain.Parcel
	for _, id := range slices.Sorted(maps.Keys(l.parcels)) {
		out = append(out, l.parcels[id])
	}
	return out, nil
}

// FindParcels answers a parcel lookup by walking the parcels, as the
// replicated ledger's indexes must answer it.
func (l *fakeLedger) FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error) {
	parcels, err := l.Parcels()
	return domain.FilterParcels(parcels, q), err
}

// BillsOfYear answers a bill lookup by walking the bills.
func (l *fakeLedger) BillsOfYear(q domain.BillQuery) ([]domain.Bill, error) {
	bills, err := l.billsWhere(func(domain.Bill) bool { return true })
	if err != nil {
		return nil, err
	}
	return domain.FilterBills(bills, q, l.Params())
}

// ParcelCounties walks the parcels.
func (l *fakeLedger) ParcelCounties() (map[string]domain.County, error) {
	parcels, err := l.Parcels()
	return domain.ParcelCountiesOf(parcels), err
}

// NovemberBills figures the year's bills from the bills with their
// payments.
func (l *fakeLedger) NovemberBills(year int, on domain.Date, fn func(domain.NovemberBill) error) error {
	bills, err := l.billsWhere(func(domain.Bill) bool { return true })
	if err != nil {
		return err
	}
	return domain.FigureNovemberBills(bills, year, on, l.Params(), fn)
}

func (l *fakeLedger) Account(number string) (domain.Account, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.accounts[number]
	if !ok {
		return a, notFound("account", number)
	}
	return a, nil
}

func (l *fakeLedger) Receipt(number string) (domain.Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.receipts[number]
	if !ok {
		r, ok = l.outbox[number]
	}
	if !ok {
		return r, notFound("receipt", number)
	}
	return r, nil
}

func (l *fakeLedger) Params() *domain.Params { return l.params }

func (l *fakeLedger) Consistency() domain.Consistency {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.consistency
}

// counts returns how many times Submit was called and how many commands
// were applied.
func (l *fakeLedger) counts() (submits, applied int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.submits, l.applied
}

func (l *fakeLedger) setOffline(pending int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.offline = true
	l.consistency = domain.Consistency{Level: domain.Offline, Pending: pending}
}

// setRefuse makes the ledger refuse: an EUNAVAILABLE error already in
// NewCommand (as a node that distrusts its clock would), any other only in
// Submit.
func (l *fakeLedger) setRefuse(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refuse = err
}

func (l *fakeLedger) setConsistency(c domain.Consistency) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.consistency = c
}

// fakeTx stages the writes of one command; Submit commits them only if the
// command applied.
type fakeTx struct {
	l        *fakeLedger // held locked by Submit
	bills    map[string]domain.Bill
	receipts map[string]domain.Receipt
	refunds  []domain.RefundDue
	records  map[string][]byte
	index    map[string]bool
}

func (t *fakeTx) Get(collection, id string, v any) (bool, error) {
	raw, ok := t.records[collection+"/"+id]
	if !ok {
		raw, ok = t.l.records[collection+"/"+id]
	}
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

func (t *fakeTx) Put(collection, id string, v any) error {
	raw, err := json.Marshal(v)
	t.records[collection+"/"+id] = raw
	return err
}

func (t *fakeTx) Index(index, key string) error   { t.index[index+"/"+key] = true; return nil }
func (t *fakeTx) Unindex(index, key string) error { t.index[index+"/"+key] = false; return nil }

func (l *fakeLedger) Get(collection, id string, v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	raw, ok := l.records[collection+"/"+id]
	if !ok {
		return notFound(collection, id)
	}
	return json.Unmarshal(raw, v)
}

func (l *fakeLedger) List(collection, prefix string, fn func(id string, raw []byte) error) error {
	l.mu.Lock()
	keys := slices.Sorted(maps.Keys(l.records))
	recs := maps.Clone(l.records)
	l.mu.Unlock()
	for _, k := range keys {
		if id, ok := strings.CutPrefix(k, collection+"/"+prefix); ok {
			if err := fn(prefix+id, recs[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *fakeLedger) Keys(index, prefix string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l.index)) {
		if rest, ok := strings.CutPrefix(k, index+"/"+prefix); ok {
			out = append(out, prefix+rest)
		}
	}
	return out, nil
}

func (t *fakeTx) Bill(id string) (domain.Bill, bool, error) {
	if b, ok := t.bills[id]; ok {
		return b, true, nil
	}
	b, ok := t.l.bills[id]
	return b, ok, nil
}

func (t *fakeTx) PutBill(b domain.Bill) error { t.bills[b.ID] = b; return nil }

func (t *fakeTx) Parcel(id string) (domain.Parcel, bool, error) {
	p, ok := t.l.parcels[id]
	return p, ok, nil
}

func (t *fakeTx) PutParcel(p domain.Parcel) error { return fmt.Errorf("fake ledger: no parcel writes") }

func (t *fakeTx) Account(number string) (domain.Account, bool, error) {
	a, ok := t.l.accounts[number]
	return a, ok, nil
}

func (t *fakeTx) PutAccount(a domain.Account) error {
	return fmt.Errorf("fake ledger: no account writes")
}

func (t *fakeTx) PutReceipt(r domain.Receipt) error { t.receipts[r.Number] = r; return nil }

func (t *fakeTx) PutRefundDue(r domain.RefundDue) error { t.refunds = append(t.refunds, r); return nil }

func (t *fakeTx) Empty() (bool, error) { return len(t.l.bills) == 0, nil }

// The fixture: a village on Tuesday, October 20, 2026 at 10:15.
var (
	chicago = mustLocation("America/Chicago")
	fixedAt = time.Date(2026, time.October, 20, 10, 15, 0, 0, chicago)
)

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// Bills of the fixture, one in every state.
const (
	pastDueBill = "B-2026-0101" // 200.00 billed March 1: 7 months of interest by October 20
	currentBill = "B-2026-0102" // 80.00 billed October 5: due November 4
	paidBill    = "B-2026-0103" // 120.00 billed June 1, paid June 15
	taxRollBill = "B-2025-0199" // 150.00 billed February 2025: certified to the tax roll on December 1, 2025
	// rollPendingBill is unpaid past November 15, 2025, and the November
	// run never certified it: still payable, certification pending.
	rollPendingBill = "B-2025-0201"
	partBill        = "B-2026-0104" // 100.00 billed January 15, 40.00 paid February 1
)

func seededLedger() *fakeLedger {
	l := newFakeLedger(func() time.Time { return fixedAt }, chicago)
	for _, p := range []domain.Parcel{
		{ID: "0601-141-2001", Address: "141 W Main St", County: domain.Dane, Owner: "Ana Gutierrez"},
		{ID: "0601-141-2002", Address: "145 W Main St", County: domain.Dane, Owner: "Robert Lindqvist"},
		{ID: "0601-141-2003", Address: "145 W Main St Unit 2", County: domain.Dane, Owner: "Karen Oyelaran"},
		{ID: "0601-141-2005", Address: "305 Hale St", County: domain.Green, Owner: "Luis Ramirez"},
	} {
		l.parcels[p.ID] = p
	}
	for _, a := range []domain.Account{
		{Number: "100101", Name: "Ana Gutierrez", Parcels: []string{"0601-141-2001"}},
		{Number: "100102", Name: "Robert Lindqvist", Parcels: []string{"0601-141-2002"}},
		{Number: "100103", Name: "Karen Oyelaran", Parcels: []string{"0601-141-2003"}},
		{Number: "100105", Name: "Luis Ramirez", Parcels: []string{"0601-141-2005"}},
	} {
		l.accounts[a.Number] = a
	}
	d := domain.MustDate
	m := domain.MustMoney
	for _, b := range []domain.Bill{
		{ID: pastDueBill, Account: "100101", Parcel: "0601-141-2001", Description: "Water and sewer, first quarter", DescriptionES: "Agua y alcantarillado, primer trimestre", BilledOn: d("2026-03-01"), Principal: m("200.00")},
		{ID: currentBill, Account: "100101", Parcel: "0601-141-2001", Description: "Sidewalk snow removal", BilledOn: d("2026-10-05"), Principal: m("80.00")},
		{ID: paidBill, Account: "100102", Parcel: "0601-141-2002", Description: "Water and sewer, second quarter", BilledOn: d("2026-06-01"), Principal: m("120.00"),
			Payments: []domain.BillPayment{{CommandID: "old-1", Receipt: "hall-clerk-000007", At: domain.NewDateTime(d("2026-06-15"), 9, 30, 0), Amount: m("120.00"), Tender: domain.Cash}}},
		{ID: taxRollBill, Account: "100102", Parcel: "0601-141-2002", Description: "Weed cutting", BilledOn: d("2025-02-01"), Principal: m("150.00"),
			Certified: &domain.Certification{Year: 2025, At: domain.NewDateTime(d("2025-12-01"), 10, 0, 0), Command: "run-2025-certify", Amount: m("172.50")}},
		{ID: rollPendingBill, Account: "100105", Parcel: "0601-141-2005", Description: "Brush pickup", BilledOn: d("2025-03-03"), Principal: m("60.00")},
		{ID: partBill, Account: "100105", Parcel: "0601-141-2005", Description: "False alarm response", BilledOn: d("2026-01-15"), Principal: m("100.00"),
			Payments: []domain.BillPayment{{CommandID: "old-2", Receipt: "hall-clerk-000003", At: domain.NewDateTime(d("2026-02-01"), 11, 0, 0), Amount: m("40.00"), Tender: domain.Check}}},
	} {
		l.bills[b.ID] = b
	}
	seedRecords(l)
	return l
}

// Property tax bills of the fixture: the 2025 roll (its payment window
// closed January 31, 2026) and the 2026 roll, issued December 10, 2026,
// payable at the kiosk until January 31, 2027.
var (
	taxBill2026Dane  = domain.TaxBillID(2026, "0601-141-2001")
	taxBill2026Green = domain.TaxBillID(2026, "0601-141-2005")
	taxBill2025Roll  = domain.TaxBillID(2025, "0601-141-2002")
	taxBillSmall     = domain.TaxBillID(2026, "0601-141-2003")
	inJanuary        = time.Date(2027, time.January, 12, 11, 0, 0, 0, chicago)
)

// seedRecords writes the fixture's tax bills and purchasing records
// through the domain's own writers, as the demo seed does.
func seedRecords(l *fakeLedger) {
	tx := &fakeTx{l: l, bills: map[string]domain.Bill{}, receipts: map[string]domain.Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	m := domain.MustMoney
	d := domain.MustDate
	for _, t := range []domain.TaxBill{
		{ID: taxBill2026Dane, Parcel: "0601-141-2001", County: domain.Dane, TaxYear: 2026, IssuedOn: d("2026-12-10"), GeneralTax: m("3001.25"),
			SpecialItems: []domain.TaxItem{{Description: "Special assessment: sidewalk", Amount: m("231.48")}}},
		{ID: taxBill2026Green, Parcel: "0601-141-2005", County: domain.Green, TaxYear: 2026, IssuedOn: d("2026-12-10"), GeneralTax: m("2480.40")},
		{ID: taxBillSmall, Parcel: "0601-141-2003", County: domain.Dane, TaxYear: 2026, IssuedOn: d("2026-12-10"), GeneralTax: m("88.10")},
		{ID: taxBill2025Roll, Parcel: "0601-141-2002", County: domain.Dane, TaxYear: 2025, IssuedOn: d("2025-12-10"), GeneralTax: m("2210.00"),
			SpecialItems: []domain.TaxItem{{Description: "Special charge: weed cutting", Amount: m("172.50"), BillID: taxRollBill}}},
	} {
		if err := domain.PutTaxBill(tx, t); err != nil {
			panic(err)
		}
	}
	for _, p := range []domain.PublicPurchase{
		{ID: "PO-2026-014", Date: d("2026-09-14"), Description: "Road salt, 120 tons", Vendor: "Compass Minerals", Amount: m("9840.00"), Category: domain.CategorySupplies,
			Bids: []domain.Bid{{Vendor: "Compass Minerals", Amount: m("9840.00")}, {Vendor: "Morton Salt", Amount: m("10320.00")}, {Vendor: "Cargill", Amount: m("10116.00")}}},
		{ID: "EM-2026-003", Date: d("2026-08-03"), Description: "Water main break repair, Vine St", Vendor: "Badger State Plumbing", Amount: m("2140.00"), Category: domain.CategoryContractualServices,
			Emergency: true, Invoice: "BSP-88213", Explanation: "A water main broke under Vine Street at night; homes were without water until it was repaired."},
	} {
		if err := domain.PutPurchase(tx, p); err != nil {
			panic(err)
		}
	}
	maps.Copy(l.records, tx.records)
	for k := range tx.index {
		l.index[k] = true
	}
}
