package domain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// actualsByEntries is a year's actuals from the books worked out from
// every journal entry of the year, the close of the year left out: the
// oracle YearActuals, which reads each account's days, is checked
// against.
func actualsByEntries(t *testing.T, x Reads, year int) []Actual {
	t.Helper()
	ch, err := x.Chart()
	if err != nil {
		t.Fatal(err)
	}
	var entries []BookEntry
	err = x.r.List(CollectionBookEntries, "", func(id string, raw []byte) error {
		var e BookEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		if e.Date.Year() == year {
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Actual{}
	for _, e := range entries {
		if e.Kind == KindYearEndClose {
			continue
		}
		for _, l := range e.Lines {
			a, ok := ch.Account(l.Account)
			if !ok || !a.Type.Line() {
				continue
			}
			id := actualID(year, int(e.Date.Month()), l.Account)
			m, ok := byID[id]
			if !ok {
				m = &Actual{Year: year, Month: int(e.Date.Month()), Account: l.Account}
				byID[id] = m
			}
			if a.Type == AccountRevenue {
				m.Receipts = m.Receipts.Add(l.Credit).Sub(l.Debit)
			} else {
				m.Expended = m.Expended.Add(l.Debit).Sub(l.Credit)
			}
		}
	}
	var out []Actual
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		out = append(out, *byID[id])
	}
	return out
}

func actualsText(as []Actual) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("%d-%02d %s received %s expended %s", a.Year, a.Month, a.Account, a.Receipts, a.Expended))
	}
	return out
}

// TestYearActualsFromTheDays: a year's actuals from the books, which
// YearActuals reads from each line account's totals of each day, are
// what the year's journal entries give month by month, the close of the
// year left out: with a bill and its payment on December 31 beside the
// close of the year that day, a revenue posted and taken back in one
// month, and once more after the close.
func TestYearActualsFromTheDays(t *testing.T) {
	v := statementsVillage(t)
	v.do("clerk", "2027-12-31T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G9", Account: "100101", Parcel: "0601-141-2001", Description: "snow removal", BilledOn: MustDate("2027-12-31"), Principal: MustMoney("70.00")},
		{ID: "B-W9", Account: "100101", Parcel: "0601-141-2001", Description: "water", BilledOn: MustDate("2027-12-31"), Principal: MustMoney("30.00"), Revenue: "WU-46100"},
	}})
	v.do("treas", "2027-06-10T09:00", &BooksAdjust{On: MustDate("2027-06-10"), Reason: "charged to the wrong line", Lines: []AdjustLine{
		{Account: "100-53300", Debit: MustMoney("12.00")}, {Account: "100-46100", Credit: MustMoney("12.00")},
	}})
	v.do("treas", "2027-06-11T09:00", &BooksAdjust{On: MustDate("2027-06-11"), Reason: "and back", Lines: []AdjustLine{
		{Account: "100-46100", Debit: MustMoney("12.00")}, {Account: "100-53300", Credit: MustMoney("12.00")},
	}})
	v.do("treas", "2027-07-01T09:00", &BooksAdjust{On: MustDate("2027-07-01"), Reason: "in and out of one line", Lines: []AdjustLine{
		{Account: "WU-46100", Debit: MustMoney("5.00")}, {Account: "WU-46100", Credit: MustMoney("5.00")},
	}})
	check := func(when string) {
		t.Helper()
		got, err := v.reads().YearActuals(2027)
		if err != nil {
			t.Fatal(err)
		}
		want := actualsByEntries(t, v.reads(), 2027)
		if got.From != FromBooks || !slices.Equal(actualsText(got.Months), actualsText(want)) {
			t.Fatalf("%s: 2027's actuals from %s\n%q\nthe entries give\n%q", when, got.From, actualsText(got.Months), actualsText(want))
		}
		has := func(month int, account, receipts string) bool {
			return slices.ContainsFunc(want, func(a Actual) bool {
				return a.Month == month && a.Account == account && a.Receipts.Equal(MustMoney(receipts))
			})
		}
		if !has(12, "WU-46100", "30.00") || !has(7, "WU-46100", "0.00") {
			t.Fatalf("%s: no December revenue or July's in and out to test with: %q", when, actualsText(want))
		}
	}
	check("before the close")
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	entries, err := v.reads().BookEntries(MustDate("2027-12-31"), MustDate("2027-12-31"), "")
	if err != nil || !slices.ContainsFunc(entries, func(e BookEntry) bool { return e.Kind == KindYearEndClose }) {
		t.Fatalf("no close of 2027 on December 31: %+v %v", entries, err)
	}
	check("after the close")
}
