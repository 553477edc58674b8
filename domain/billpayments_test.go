package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// ledgerAt is a staffTx whose ledger runs at a given format.
type ledgerAt struct {
	*staffTx
	format int
}

func (t ledgerAt) LedgerFormat() int { return t.format }

// fataler is what ledgerAt's helpers need of a test (testing.TB or
// rapid.T).
type fataler interface {
	Helper()
	Fatal(args ...any)
}

func (t ledgerAt) run(c Command) (Result, error) {
	work := ledgerAt{t.staffTx.clone(), t.format}
	res, err := Apply(work, c, 7, DefaultParams())
	if err == nil {
		*t.staffTx = *work.staffTx
	}
	return res, err
}

func (t ledgerAt) bill(tb fataler, id string) Bill {
	tb.Helper()
	b, _, err := loadBill(t, id, true)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestIncrementalPostingMatchesFullRecomputation (§5.10, ledger format 3):
// for random bills and random sequences of card payments (pay_bill, and
// pay_bills with a second bill), check payments at the window and
// returned checks (§5.20), dated in any order across
// interest months, the November penalty and the tax-roll date, a ledger at
// format 3 (each bill's summary continued by a later-dated payment,
// recomputed by an earlier one or a reversal) posts exactly what the
// format 2 ledger posts by recomputing every payment: the same outcome,
// allocation and balance for every command, and the same payments and
// figures read back on any date. Below format 3 the bill keeps its
// payments in its record; at format 3 it never does.
func TestIncrementalPostingMatchesFullRecomputation(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		billed := MustDate("2025-01-01").AddDays(rapid.IntRange(0, 640).Draw(rt, "billed"))
		principal := Cents(int64(rapid.IntRange(100, 500_000).Draw(rt, "principal")))
		bill := Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: billed, Principal: principal}
		// A second bill of the account, paid with the first by pay_bills.
		other := Bill{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", BilledOn: billed,
			Principal: Cents(int64(rapid.IntRange(100, 50_000).Draw(rt, "other principal")))}
		old := ledgerAt{newStaffTx(), 2}
		inc := ledgerAt{newStaffTx(), 3}
		for _, tx := range []ledgerAt{old, inc} {
			tx.bills[bill.ID], tx.bills[other.ID] = bill, other
		}
		at := func(day int, minute int) DateTime {
			return NewDateTime(billed.AddDays(day), 9+minute/60, minute%60, 0)
		}
		both := func(c Command) (Result, bool) {
			ro, eo := old.run(c)
			ri, ei := inc.run(c)
			if (eo == nil) != (ei == nil) || (eo != nil && eo.Error() != ei.Error()) {
				rt.Fatalf("%s at %s: format 2 says %v, format 3 says %v", c.Kind, c.At, eo, ei)
			}
			if eo != nil {
				return ro, false
			}
			if (ro.Receipt == nil) != (ri.Receipt == nil) {
				rt.Fatalf("%s: receipts %+v and %+v", c.Kind, ro.Receipt, ri.Receipt)
			}
			if ro.Receipt != nil && (js(ro.Receipt.Allocation) != js(ri.Receipt.Allocation) || !ro.Receipt.Balance.Equal(ri.Receipt.Balance) || js(ro.Receipt.Lines) != js(ri.Receipt.Lines)) {
				rt.Fatalf("%s at %s: format 2 allocates %+v balance %s; format 3 %+v balance %s", c.Kind, c.At,
					ro.Receipt.Allocation, ro.Receipt.Balance, ri.Receipt.Allocation, ri.Receipt.Balance)
			}
			if js(ro.Refund) != js(ri.Refund) {
				rt.Fatalf("%s: refunds %+v and %+v", c.Kind, ro.Refund, ri.Refund)
			}
			return ro, true
		}
		open := staffCmd(KindDrawerOpen, "clerk", billed.String()+"T08:00")
		open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")}
		if _, ok := both(open); !ok {
			rt.Fatal("the drawer does not open")
		}
		var checks []string // receipts of check payments not returned yet
		last := 0           // the latest day used, so that dates mostly go forward
		n := rapid.IntRange(1, 30).Draw(rt, "commands")
		for i := range n {
			day := last + rapid.IntRange(0, 60).Draw(rt, "forward")
			if rapid.IntRange(0, 4).Draw(rt, "back") == 0 {
				day = rapid.IntRange(0, last).Draw(rt, "earlier") // an offline payment posting late
			}
			last = max(last, day)
			when := at(day, i)
			amount := Cents(int64(rapid.IntRange(1, int(principal.Cents())*6/5+1).Draw(rt, "amount")))
			switch rapid.IntRange(0, 6).Draw(rt, "kind") {
			case 0, 1, 2:
				c := cmdAt(KindPayBill, when.String(), uint64(i+1))
				c.ID = fmt.Sprintf("card-%d", i)
				c.Payload = &PayBill{BillID: bill.ID, Amount: amount, Tender: Card, Reference: "OK"}
				// The kiosk's preview of the read side's bill (from its
				// summary when it can) is what posting then gives.
				pv, perr := inc.bill(rt, bill.ID).PreviewPayment(when, amount, DefaultParams())
				res, ok := both(c)
				if ok != (perr == nil) || ok && (js(pv.Allocation) != js(res.Receipt.Allocation) || !pv.Balance.Equal(res.Receipt.Balance)) {
					rt.Fatalf("previewed %+v balance %s (%v); posted %+v", pv.Allocation, pv.Balance, perr, res.Receipt)
				}
			case 3, 4:
				c := staffCmd(KindWindowPayment, "clerk", when.String())
				c.Payload = &WindowPayment{DrawerID: "D-1", BillID: bill.ID, Amount: amount, Tender: Check, Reference: fmt.Sprintf("%d", 1000+i)}
				if _, ok := both(c); ok {
					checks = append(checks, c.ReceiptNumber())
				}
			case 6:
				c := cmdAt(KindPayBills, when.String(), uint64(i+1))
				c.ID = fmt.Sprintf("cart-%d", i)
				c.Payload = &PayBills{Account: "100101", Tender: Card, Reference: "OK", Bills: []BillAmount{
					{BillID: bill.ID, Amount: amount},
					{BillID: other.ID, Amount: Cents(int64(rapid.IntRange(1, int(other.Principal.Cents())).Draw(rt, "other amount")))},
				}}
				both(c)
			case 5:
				if len(checks) == 0 {
					continue
				}
				k := rapid.IntRange(0, len(checks)-1).Draw(rt, "returned")
				c := staffCmd(KindReturnCheck, "treasurer", at(last, i).String())
				c.Payload = &ReturnCheck{ReturnID: fmt.Sprintf("RC-%d", i), BillID: bill.ID, Receipt: checks[k], FeeBillID: fmt.Sprintf("B-FEE-%d", i)}
				if _, ok := both(c); ok {
					checks = append(checks[:k], checks[k+1:]...)
				}
			}
			if bo, bi := old.bill(rt, other.ID), inc.bill(rt, other.ID); js(bo.Payments) != js(bi.Payments) {
				rt.Fatalf("after command %d the payments of %s differ:\n format 2 %+v\n format 3 %+v", i, other.ID, bo.Payments, bi.Payments)
			}
			bo, bi := old.bill(rt, bill.ID), inc.bill(rt, bill.ID)
			if js(bo.Payments) != js(bi.Payments) || js(bo.Reversed) != js(bi.Reversed) {
				rt.Fatalf("after command %d the payments differ:\n format 2 %+v\n format 3 %+v", i, bo.Payments, bi.Payments)
			}
			if bo.Summary != nil || len(old.bills[bill.ID].Payments) != len(bo.Payments) {
				rt.Fatal("below format 3 a bill must keep its payments in its record")
			}
			if stored := inc.bills[bill.ID]; len(bo.Payments) > 0 && (stored.Summary == nil || stored.Payments != nil) {
				rt.Fatalf("at format 3 the bill's record holds %d payments, summary %v", len(stored.Payments), stored.Summary)
			}
			for _, d := range []Date{when.Date, at(rapid.IntRange(0, last+30).Draw(rt, "as of"), 0).Date} {
				fo, eo := bo.Figures(d, DefaultParams())
				fi, ei := bi.Figures(d, DefaultParams())
				if (eo == nil) != (ei == nil) || js(fo) != js(fi) {
					rt.Fatalf("figures as of %s differ:\n format 2 %+v %v\n format 3 %+v %v", d, fo, eo, fi, ei)
				}
				checkBareNovemberItems(rt, inc.bills[bill.ID], bi, d)
			}
		}
		// The summary a bill keeps is the account the full computation
		// reaches after its latest payment.
		if b := inc.bill(rt, bill.ID); b.Summary != nil {
			full := b
			full.Summary = nil
			_, want, err := full.account(full.latestPayment(), DefaultParams())
			if err != nil {
				rt.Fatal(err)
			}
			got := *b.Summary
			got.Slots, got.Removed, got.Rates, got.all = 0, nil, "", false
			if js(got) != js(want) || got.PenaltyDue != want.PenaltyDue {
				rt.Fatalf("summary %+v\nrecomputed %+v", got, want)
			}
		}
	})
}

// checkBareNovemberItems checks that a bill's record read alone (bare,
// BillQuery.Bare: its summary, no payments) gives each November run
// step's line on day on exactly as the bill read with every payment
// (full) does, or ErrPaymentsNeeded, and that only when the summary
// cannot answer: a payment dated after the step's day, or one taken back
// after it that the day still counts.
func checkBareNovemberItems(rt *rapid.T, bare, full Bill, on Date) {
	rt.Helper()
	if bare.Summary == nil {
		return
	}
	year, err := full.RollYear(DefaultParams())
	if err != nil {
		rt.Fatal(err)
	}
	for _, step := range []string{"penalties", "certify"} {
		want, wantIn, wantErr := NovemberItemOn(full, step, year, on, DefaultParams())
		got, gotIn, gotErr := NovemberItemOn(bare, step, year, on, DefaultParams())
		asOf := TaxRollDay(year)
		if on.After(asOf) {
			asOf = on
		}
		if step == "penalties" {
			asOf = PenaltyDay(year)
		}
		if errors.Is(gotErr, ErrPaymentsNeeded) {
			reversed := slices.ContainsFunc(full.Reversed, func(r ReversedPayment) bool { return !r.At.Date.After(asOf) && r.ReversedOn.After(asOf) })
			if !bare.Summary.Latest.After(asOf) && !reversed {
				rt.Fatalf("%s of %d as of %s: payments asked for, though the latest (%s) is not after %s and no reversal counts", step, year, on, bare.Summary.Latest, asOf)
			}
			continue
		}
		if (wantErr == nil) != (gotErr == nil) || wantIn != gotIn || js(want) != js(got) {
			rt.Fatalf("%s of %d as of %s from the summary:\n %v %+v %v\nwith every payment:\n %v %+v %v", step, year, on, gotIn, got, gotErr, wantIn, want, wantErr)
		}
	}
}

// js is v in JSON, to compare records as the ledger stores them.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// countingTx counts the payment records a rule reads and writes.
type countingTx struct {
	ledgerAt
	gets, puts int
}

func (t *countingTx) Get(c, id string, v any) (bool, error) {
	if c == CollectionBillPayments {
		t.gets++
	}
	return t.ledgerAt.Get(c, id, v)
}

func (t *countingTx) Put(c, id string, v any) error {
	if c == CollectionBillPayments {
		t.puts++
	}
	return t.ledgerAt.Put(c, id, v)
}

// TestPostingReadsNoOtherPayment (ledger format 3): a payment dated on or
// after a bill's latest one reads none of the bill's other payments and
// writes one record of them, whatever the bill's history; an earlier one
// reads them all; a bill stored the old way is converted when it is next
// paid, and reads back the same.
func TestPostingReadsNoOtherPayment(t *testing.T) {
	tx := &countingTx{ledgerAt: ledgerAt{newStaffTx(), 3}}
	b := Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-01-02"), Principal: MustMoney("5000.00")}
	// Stored the old way: 200 payments in the record, as format 2 left it.
	for i := range 200 {
		b.Payments = append(b.Payments, BillPayment{CommandID: fmt.Sprintf("old-%d", i), Receipt: fmt.Sprintf("R-%d", i),
			At: NewDateTime(MustDate("2026-01-05"), 9, 0, 0), Amount: MustMoney("1.00"), Tender: Card})
	}
	tx.bills[b.ID] = b
	// Summarized, which tools and benchmarks write ledgers with, is what
	// converting the bill stores.
	conv := ledgerAt{newStaffTx(), 3}
	if _, err := storeBill(conv, b, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if sum, err := b.Summarized(DefaultParams()); err != nil || js(sum) != js(conv.bills[b.ID]) || len(conv.records) != 200 {
		t.Fatalf("Summarized %s (%v); storeBill wrote %s and %d payments", js(sum), err, js(conv.bills[b.ID]), len(conv.records))
	}
	pay := func(at string, seq uint64) Receipt {
		t.Helper()
		c := cmdAt(KindPayBill, at, seq)
		c.Payload = &PayBill{BillID: b.ID, Amount: MustMoney("1.00"), Tender: Card}
		tx.gets, tx.puts = 0, 0
		res, err := Apply(tx, c, seq, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return *res.Receipt
	}
	pay("2026-03-10T10:00", 1)
	if tx.gets != 0 || tx.puts != 201 {
		t.Fatalf("converting: %d reads, %d writes of payments; want 0 and 201", tx.gets, tx.puts)
	}
	for i := range 5 {
		pay(fmt.Sprintf("2026-03-%02dT10:00", 11+i), uint64(2+i))
		if tx.gets != 0 || tx.puts != 1 {
			t.Fatalf("a later payment: %d reads, %d writes of payments; want 0 and 1", tx.gets, tx.puts)
		}
	}
	earlier := pay("2026-02-20T10:00", 9)
	if tx.gets != 206 || tx.puts != 1 {
		t.Fatalf("an earlier payment: %d reads, %d writes of payments; want 206 and 1", tx.gets, tx.puts)
	}
	// Due Feb 1; Feb 2 posts 1.5% of 4,795.00 unpaid then = 71.93 of interest.
	if earlier.Allocation.Interest.String() != "1.00" {
		t.Fatalf("the earlier payment went to %+v; want the interest", earlier.Allocation)
	}
	got := tx.bill(t, b.ID)
	if len(got.Payments) != 207 || got.Payments[0].CommandID != "old-0" || got.Payments[206].Receipt != earlier.Number {
		t.Fatalf("read back %d payments", len(got.Payments))
	}
	var viaList Bill = tx.bills[b.ID]
	if err := ReadBillPayments(listTx{tx.staffTx}, &viaList); err != nil || js(viaList.Payments) != js(got.Payments) {
		t.Fatalf("ReadBillPayments: %v", err)
	}
}

// listTx lists a staffTx's records, as the read side does.
type listTx struct{ *staffTx }

func (t listTx) List(collection, prefix string, fn func(id string, raw []byte) error) error {
	var ids []string
	for k := range t.records {
		if id, ok := strings.CutPrefix(k, collection+"/"+prefix); ok {
			ids = append(ids, prefix+id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := fn(id, t.records[collection+"/"+id]); err != nil {
			return err
		}
	}
	return nil
}
