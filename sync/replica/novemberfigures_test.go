package replica

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// novemberBills collects what NovemberBills gives.
func novemberBills(t *testing.T, f *FSM, year int, on domain.Date) []domain.NovemberBill {
	t.Helper()
	var out []domain.NovemberBill
	if err := f.NovemberBills(year, on, func(nb domain.NovemberBill) error {
		out = append(out, nb)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// figuredNovemberBills is what NovemberBills must give: every bill of the
// year figured from the bill with its payments.
func figuredNovemberBills(t *testing.T, f *FSM, year int, on domain.Date) []domain.NovemberBill {
	t.Helper()
	bills, err := f.Bills()
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.NovemberBill
	if err := domain.FigureNovemberBills(bills, year, on, f.Params(), func(nb domain.NovemberBill) error {
		out = append(out, nb)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameNovemberBills(a, b []domain.NovemberBill) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d bills, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Parcel != y.Parcel || x.Standing != y.Standing ||
			x.Penalties.Takes != y.Penalties.Takes || !x.Penalties.Amount.Equal(y.Penalties.Amount) ||
			x.Certify.Takes != y.Certify.Takes || !x.Certify.Amount.Equal(y.Certify.Amount) {
			return fmt.Sprintf("bill %d: %+v, want %+v", i, x, y)
		}
	}
	return ""
}

// novemberEntries returns the figures entries the store holds, by bill.
func novemberEntries(t *testing.T, f *FSM) map[string]novemberEntry {
	t.Helper()
	out := map[string]novemberEntry{}
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixNovember)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			raw, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			e, err := parseNovemberEntry(raw)
			if err != nil {
				return fmt.Errorf("%q: %w", it.Item().Key(), err)
			}
			out[string(it.Item().Key()[len(prefixNovember):])] = e
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNovemberFiguresAgreeWithTheBills: after random puts and changes of
// bills (payments, certifications, records summarized or not), the
// November figures the node gives for every year and day, first figured
// and then read from its entries, are what figuring every bill with its
// payments gives; each bill of a year asked has an entry afterwards.
func TestNovemberFiguresAgreeWithTheBills(t *testing.T) {
	days := []string{"2024-11-20", "2025-11-10", "2025-11-16", "2026-01-20", "2026-12-03"}
	taken := 0
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			f := indexFSM(t, t.TempDir())
			defer f.Close()
			parcels, bills := map[string]domain.Parcel{}, map[string]domain.Bill{}
			next := uint64(1)
			for round := range 8 {
				var puts []putRecords
				for range 1 + r.IntN(3) {
					puts = append(puts, randomPut(r, parcels, bills, 1+r.IntN(12)))
				}
				applyOK(t, f, putLogs(t, next, puts...))
				next += uint64(len(puts))
				for _, year := range []int{2024, 2025} {
					on := domain.MustDate(days[r.IntN(len(days))])
					want := figuredNovemberBills(t, f, year, on)
					for _, pass := range []string{"figured", "from the entries"} {
						if diff := sameNovemberBills(novemberBills(t, f, year, on), want); diff != "" {
							t.Fatalf("round %d, %d on %s, %s: %s", round, year, on, pass, diff)
						}
					}
					entries := novemberEntries(t, f)
					for _, nb := range want {
						if _, ok := entries[nb.ID]; !ok {
							t.Fatalf("round %d: bill %s of %d has no entry", round, nb.ID, year)
						}
						if nb.Penalties.Takes || nb.Certify.Takes {
							taken++
						}
					}
				}
			}
		})
	}
	if taken == 0 {
		t.Fatal("no bill had a line in either step: the figures were never put to the test")
	}
}

// TestNovemberFiguresAreReadFromTheirEntries: a bill's entry is what the
// node answers while the bill, the parameters and the day stand (an entry
// altered in the store shows, which proves it is read); a bill written
// since, other parameters or another certification day are figured again.
func TestNovemberFiguresAreReadFromTheirEntries(t *testing.T) {
	f := indexFSM(t, t.TempDir())
	defer f.Close()
	pc := domain.Parcel{ID: "0601-200-0001", County: domain.Dane, Owner: "Ana Lopez", Address: "1 Main St"}
	bill := func(id string) domain.Bill {
		return domain.Bill{ID: id, Account: "100101", Parcel: pc.ID, Description: "water", BilledOn: domain.MustDate("2025-01-15"), Principal: domain.Cents(40000)}
	}
	applyOK(t, f, putLogs(t, 1, putRecords{Parcels: []domain.Parcel{pc}, Bills: []domain.Bill{bill("B-1"), bill("B-2")}, Summarize: []bool{true, true}}))
	on := domain.MustDate("2025-11-20")
	want := figuredNovemberBills(t, f, 2025, on)
	if len(want) != 2 || !want[0].Penalties.Takes || !want[0].Certify.Takes {
		t.Fatalf("want both bills in both steps: %+v", want)
	}
	if diff := sameNovemberBills(novemberBills(t, f, 2025, on), want); diff != "" {
		t.Fatal(diff)
	}
	// Alter B-1's entry in the store: the node answers from it.
	entries := novemberEntries(t, f)
	e := entries["B-1"]
	e.bill.Penalties.Amount = domain.Cents(1)
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(key(prefixNovember, "B-1"), e.append(nil)) }); err != nil {
		t.Fatal(err)
	}
	if got := novemberBills(t, f, 2025, on); !got[0].Penalties.Amount.Equal(domain.Cents(1)) {
		t.Fatalf("B-1's penalty %s: the entry was not read", got[0].Penalties.Amount)
	}
	// A malformed entry is figured again.
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(key(prefixNovember, "B-1"), []byte{novemberFormat, 0xff}) }); err != nil {
		t.Fatal(err)
	}
	if diff := sameNovemberBills(novemberBills(t, f, 2025, on), want); diff != "" {
		t.Fatalf("after a malformed entry: %s", diff)
	}
	alter := func() {
		t.Helper()
		e := novemberEntries(t, f)["B-1"]
		e.bill.Penalties.Amount = domain.Cents(1)
		if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(key(prefixNovember, "B-1"), e.append(nil)) }); err != nil {
			t.Fatal(err)
		}
	}
	// The bill written since (a payment): figured again.
	alter()
	paid := bill("B-1")
	paid.Payments = []domain.BillPayment{{CommandID: "pay", At: domain.NewDateTime(domain.MustDate("2025-03-01"), 10, 0, 0), Amount: domain.Cents(10000), Tender: domain.Cash}}
	applyOK(t, f, putLogs(t, 2, putRecords{Bills: []domain.Bill{paid}, Summarize: []bool{true}}))
	want = figuredNovemberBills(t, f, 2025, on)
	if diff := sameNovemberBills(novemberBills(t, f, 2025, on), want); diff != "" {
		t.Fatalf("after a payment: %s", diff)
	}
	// Another certification day: figured again.
	alter()
	later := domain.MustDate("2025-12-01")
	if diff := sameNovemberBills(novemberBills(t, f, 2025, later), figuredNovemberBills(t, f, 2025, later)); diff != "" {
		t.Fatalf("on another day: %s", diff)
	}
	// Other parameters (a penalty rate from 2025 on): figured again.
	before := figuredNovemberBills(t, f, 2025, later)[0].Penalties.Amount
	alter()
	o, err := domain.ParseParams("o.txt", []byte("2025-01-01 receivable_penalty 0.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	f.params = f.params.Merge(o)
	want = figuredNovemberBills(t, f, 2025, later)
	if want[0].Penalties.Amount.Equal(before) {
		t.Fatal("the new rate does not change B-1's penalty: the test proves nothing")
	}
	if diff := sameNovemberBills(novemberBills(t, f, 2025, later), want); diff != "" {
		t.Fatalf("with other parameters: %s", diff)
	}
}

// TestNovemberFiguresKeptCurrentAfterPayments: a node keeps the figures of
// the year last asked current by itself. Before anyone asks, a payment
// writes no entry; once the year was asked, a payment's bill has its entry
// figured again within a few looks, from the bill as the payment left it,
// with no page asking.
func TestNovemberFiguresKeptCurrentAfterPayments(t *testing.T) {
	defer func(d time.Duration) { novemberWarmEvery = d }(novemberWarmEvery)
	novemberWarmEvery = 20 * time.Millisecond
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	n := openNodeClock(t, t.TempDir(), func() time.Time { return time.Unix(0, clock.Load()).UTC() })
	defer n.Close()
	seedNode(t, n)
	today := domain.DateOf(now)
	pay := func(amount string) {
		t.Helper()
		cmd, err := n.NewCommand(domain.KindPayBill, "kiosk")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = &domain.PayBill{BillID: "B1", Amount: domain.MustMoney(amount), Tender: domain.Card, Reference: "sim-" + cmd.ID}
		if res := submit(t, n, cmd); res.Error != nil {
			t.Fatalf("pay B1: %v", res.Error)
		}
	}
	pay("10.00")
	time.Sleep(10 * novemberWarmEvery)
	if got := novemberEntries(t, n.fsm); len(got) != 0 {
		t.Fatalf("entries kept before any page asked: %v", got)
	}
	asked := novemberBills(t, n.fsm, 2026, today)
	if len(asked) == 0 {
		t.Fatal("no bills in the 2026 run: the test asks nothing")
	}
	before := novemberEntries(t, n.fsm)["B1"]
	pay("40.00")
	version := func() uint64 {
		var v uint64
		if err := n.fsm.db.View(func(txn *badger.Txn) error {
			item, err := txn.Get(key(prefixBill, "B1"))
			if err == nil {
				v = item.Version()
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		e, ok := novemberEntries(t, n.fsm)["B1"]
		if ok && e.version == version() {
			if e.version == before.version {
				t.Fatal("the payment did not write B1 again: the test proves nothing")
			}
			i := slices.IndexFunc(figuredNovemberBills(t, n.fsm, 2026, today), func(w domain.NovemberBill) bool { return w.ID == "B1" })
			if i < 0 {
				t.Fatal("B1 is not in the 2026 run")
			}
			w := figuredNovemberBills(t, n.fsm, 2026, today)[i]
			if diff := sameNovemberBills([]domain.NovemberBill{{ID: "B1", Parcel: e.bill.Parcel, Standing: w.Standing, Penalties: e.bill.Penalties, Certify: e.bill.Certify}}, []domain.NovemberBill{w}); diff != "" {
				t.Fatalf("B1's entry after the payment: %s", diff)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B1's entry still figured from version %d of the bill, now at %d", e.version, version())
		}
		time.Sleep(novemberWarmEvery)
	}
	// The next day the certification is figured to that day: every entry
	// of the year is figured again, with no bill written.
	clock.Add(int64(24 * time.Hour))
	next := today.AddDays(1).String()
	deadline = time.Now().Add(10 * time.Second)
	for {
		stale := 0
		entries := novemberEntries(t, n.fsm)
		for _, e := range entries {
			if e.certOn != next {
				stale++
			}
		}
		if stale == 0 && len(entries) == len(asked) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the day after: %d of %d entries still figured to another day", stale, len(entries))
		}
		time.Sleep(novemberWarmEvery)
	}
}

// TestWrittenBillsOverflowToAll: the warmer's set of bills written gives
// them back once, in id order, and past its bound says every bill.
func TestWrittenBillsOverflowToAll(t *testing.T) {
	var w writtenBills
	w.add("B2")
	w.add("B1")
	w.add("B2")
	if ids, all := w.take(); all || fmt.Sprint(ids) != "[B1 B2]" {
		t.Fatalf("take: %v, all %v; want [B1 B2]", ids, all)
	}
	if ids, all := w.take(); all || len(ids) != 0 {
		t.Fatalf("second take: %v, all %v; want nothing", ids, all)
	}
	for i := range writtenBillsMax + 1 {
		w.add(fmt.Sprint("B", i))
	}
	if ids, all := w.take(); !all || len(ids) != 0 {
		t.Fatalf("past the bound: %d ids, all %v; want all", len(ids), all)
	}
	w.setAll()
	w.add("B1")
	if _, all := w.take(); !all {
		t.Fatal("after a restore: want all")
	}
}

// TestAskedYearsOutlastARestart: the years whose November figures were
// asked lately are still the ones kept warm after the store is opened
// again, in the same order; a store never asked keeps none.
func TestAskedYearsOutlastARestart(t *testing.T) {
	dir := t.TempDir()
	f := indexFSM(t, dir)
	if years := f.november.list(); len(years) != 0 || f.november.any.Load() {
		t.Fatalf("a new store keeps years %v warm", years)
	}
	on := domain.MustDate("2026-11-02")
	for _, y := range []int{2024, 2026, 2025, 2026} {
		if err := f.NovemberBills(y, on, func(domain.NovemberBill) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	want := f.november.list()
	if !slices.Equal(want, []int{2026, 2025}) {
		t.Fatalf("asked 2024, 2026, 2025, 2026: kept %v", want)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = indexFSM(t, dir)
	defer f.Close()
	if got := f.november.list(); !slices.Equal(got, want) || !f.november.any.Load() {
		t.Errorf("after a restart the years kept warm are %v (asked: %v), want %v", got, f.november.any.Load(), want)
	}
}
