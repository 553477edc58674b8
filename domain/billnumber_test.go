package domain

import (
	"fmt"
	"strings"
	"testing"
)

// createBills makes bills of v billed on day, n of them in one command.
func createBills(v *village, at, day string, first, n int) []string {
	v.t.Helper()
	in := &CreateBills{Source: "form"}
	var ids []string
	for i := range n {
		id := fmt.Sprintf("B-%s-%03d", day, first+i)
		ids = append(ids, id)
		in.Bills = append(in.Bills, NewBill{ID: id, Account: "100101", Parcel: "0601-141-2001", Description: "Water and sewer", BilledOn: MustDate(day), Principal: MustMoney("42.10")})
	}
	v.do("treas", at, in)
	return ids
}

// TestBillNumbers: from ledger format 7 each new bill gets the next
// number of the year it is billed in, never one given before, in one
// command or many; the sequence starts again at 000001 each year; the
// number finds its bill, and Shown prints it.
func TestBillNumbers(t *testing.T) {
	v := newVillage(t)
	var ids []string
	ids = append(ids, createBills(v, "2026-03-02T09:00", "2026-03-02", 1, 3)...)
	ids = append(ids, createBills(v, "2026-12-30T09:00", "2026-12-30", 10, 2)...)
	ids = append(ids, createBills(v, "2027-01-04T09:00", "2027-01-04", 20, 2)...)
	ids = append(ids, createBills(v, "2027-01-05T09:00", "2026-12-31", 30, 1)...) // billed last year, made this year
	want := []string{"2026-000001", "2026-000002", "2026-000003", "2026-000004", "2026-000005", "2027-000001", "2027-000002", "2026-000006"}
	seen := map[string]bool{}
	for i, id := range ids {
		b, ok, err := v.tx.Bill(id)
		if err != nil || !ok {
			t.Fatalf("bill %s: %v %v", id, ok, err)
		}
		if b.Number != want[i] || b.Shown() != want[i] || seen[b.Number] {
			t.Errorf("bill %s: number %q, shown %q, want %q once", id, b.Number, b.Shown(), want[i])
		}
		seen[b.Number] = true
		if got, ok, err := v.reads().BillNumbered(" " + want[i] + " "); err != nil || !ok || got != id {
			t.Errorf("bill number %s finds %q %v %v, want %s", want[i], got, ok, err, id)
		}
	}
	for _, s := range []string{"2026-000099", "2026-123", "B-2026-03-02-001", ""} {
		if got, ok, err := v.reads().BillNumbered(s); ok || err != nil || got != "" {
			t.Errorf("%q finds %q %v %v", s, got, ok, err)
		}
	}
	// A refused command gives no number: the next bill takes the next one.
	v.refused("treas", "2027-01-06T09:00", &CreateBills{Source: "form", Bills: []NewBill{
		{ID: "B-ok", Account: "100101", Parcel: "0601-141-2001", Description: "x", BilledOn: MustDate("2027-01-06"), Principal: MustMoney("1.00")},
		{ID: ids[0], Account: "100101", Parcel: "0601-141-2001", Description: "x", BilledOn: MustDate("2027-01-06"), Principal: MustMoney("1.00")},
	}}, ECONFLICT, ids[0])
	if next := createBills(v, "2027-01-07T09:00", "2027-01-07", 40, 1); true {
		if b, _, _ := v.tx.Bill(next[0]); b.Number != "2027-000003" {
			t.Errorf("after a refused command the next number is %q", b.Number)
		}
	}
}

// TestBillNumbersManyCommands: a thousand bills in commands of every size
// get a thousand numbers, consecutive, none twice.
func TestBillNumbersManyCommands(t *testing.T) {
	v := newVillage(t)
	made := 0
	for size := 1; made < 1000; size = size%37 + 1 {
		n := min(size, 1000-made)
		createBills(v, "2026-05-01T09:00", "2026-05-01", made, n)
		made += n
	}
	seen := map[string]bool{}
	for i := range 1000 {
		b, _, _ := v.tx.Bill(fmt.Sprintf("B-2026-05-01-%03d", i))
		if want := fmt.Sprintf("2026-%06d", i+1); b.Number != want || seen[b.Number] {
			t.Fatalf("bill %d: %q, want %q once", i, b.Number, want)
		}
		seen[b.Number] = true
	}
}

// TestBillNumbersFormat6: a ledger of format 6 makes bills as it always
// did: no number, no counter, the ID shown; so a format-6 log replays into
// the same records.
func TestBillNumbersFormat6(t *testing.T) {
	v := newVillageAt(t, DocumentsFormat-1)
	ids := createBills(v, "2026-03-02T09:00", "2026-03-02", 1, 2)
	for _, id := range ids {
		b, _, _ := v.tx.Bill(id)
		if b.Number != "" || b.Shown() != id {
			t.Errorf("bill %s at format 6: number %q, shown %q", id, b.Number, b.Shown())
		}
	}
	for k := range v.tx.records {
		if strings.HasPrefix(k, CollectionBillNumbers) {
			t.Errorf("format 6 wrote %s", k)
		}
	}
	// The same commands at format 7 write the counter: proof the check
	// above can see it.
	w := newVillage(t)
	createBills(w, "2026-03-02T09:00", "2026-03-02", 1, 2)
	found := false
	for k := range w.tx.records {
		found = found || strings.HasPrefix(k, CollectionBillNumbers)
	}
	if !found {
		t.Fatal("format 7 wrote no bill numbers")
	}
}
