package replica

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// listOnly is the ledger's records without ListFrom: what a store that
// cannot seek gives the domain's reads.
type listOnly struct{ domain.Records }

// TestBookEntriesFromADay: the books' entries of a span of days, read
// from the first day on (the store seeks to it, FSM.ListFrom), are those
// a filter of every entry gives, in the same order, for spans within a
// day, across months and years, open at the start, empty and reversed,
// with and without an account; read through a store that cannot seek
// they are the same, and read a few at a time (BookEntriesBy) too.
func TestBookEntriesFromADay(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	at := func(day domain.Date, h int) domain.DateTime { return domain.NewDateTime(day, h, 0, 0) }
	start := domain.MustDate("2026-03-01")
	cmds := []domain.Command{
		{ID: "lf", Kind: domain.KindLedgerFormat, At: at(start, 8), Node: "n1", Payload: &domain.LedgerFormatChange{To: domain.LedgerFormat}},
		seedCommand(),
		{ID: "chart", Kind: domain.KindChart, At: at(start, 10), Node: "n1", Actor: "admin", Payload: &domain.ChartChange{Accounts: []domain.ChartAccount{
			{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
			{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
		}}},
	}
	rng := rand.New(rand.NewPCG(9, 9))
	day := start
	for i := range 240 {
		day = day.AddDays(rng.IntN(4))
		cmds = append(cmds, payCommand(fmt.Sprintf("p%03d", i), uint64(i+2), []string{"B1", "B2", "B3"}[rng.IntN(3)], "0.50", at(day, 9+rng.IntN(8)).String()))
	}
	applyAll(t, f, cmds)

	var all []domain.BookEntry
	err := f.List(domain.CollectionBookEntries, "", func(_ string, raw []byte) error {
		var e domain.BookEntry
		err := json.Unmarshal(raw, &e)
		all = append(all, e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 150 || all[len(all)-1].Date.Year() == all[0].Date.Year() {
		t.Fatalf("%d entries from %s to %s: too few to test with", len(all), all[0].Date, all[len(all)-1].Date)
	}
	account := all[len(all)/2].Lines[0].Account
	first, last := all[0].Date, all[len(all)-1].Date
	spans := [][2]domain.Date{
		{}, {domain.Date{}, last}, {domain.Date{}, first}, {first, last}, {first.AddDays(-40), last.AddDays(40)},
		{last, first}, {last.AddDays(1), last.AddDays(9)}, {first.AddDays(-9), first.AddDays(-1)},
		{domain.MustDate("2026-12-31"), domain.MustDate("2027-01-01")}, {domain.MustDate("2027-01-01"), domain.MustDate("2027-12-31")},
	}
	for range 40 {
		a := all[rng.IntN(len(all))].Date.AddDays(rng.IntN(3) - 1)
		spans = append(spans, [2]domain.Date{a, a}, [2]domain.Date{a, a.AddDays(rng.IntN(90))})
	}
	text := func(es []domain.BookEntry) string { b, _ := json.Marshal(es); return string(b) }
	for _, s := range spans {
		for _, acct := range []string{"", account} {
			var want []domain.BookEntry
			for _, e := range all {
				if !e.Date.Before(s[0]) && !e.Date.After(s[1]) && (acct == "" || hasLine(e, acct)) {
					want = append(want, e)
				}
			}
			name := fmt.Sprintf("%s to %s, account %q", s[0], s[1], acct)
			for store, reads := range map[string]domain.Reads{"seeking": domain.ReadsOf(f), "listing": domain.ReadsOf(listOnly{f})} {
				got, err := reads.BookEntries(s[0], s[1], acct)
				if err != nil {
					t.Fatal(err)
				}
				if text(got) != text(want) {
					t.Fatalf("%s, %s store: %d entries, the filter %d", name, store, len(got), len(want))
				}
			}
			for _, n := range []int{1, 7} {
				var got []domain.BookEntry
				err := domain.ReadsOf(f).BookEntriesBy(s[0], s[1], acct, n, func(part []domain.BookEntry) error {
					if len(part) == 0 || len(part) > n {
						t.Fatalf("%s: a part of %d entries, %d at a time", name, len(part), n)
					}
					got = append(got, part...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if text(got) != text(want) {
					t.Fatalf("%s, %d at a time: %d entries, the filter %d", name, n, len(got), len(want))
				}
			}
		}
	}
}

func hasLine(e domain.BookEntry, account string) bool {
	for _, l := range e.Lines {
		if l.Account == account {
			return true
		}
	}
	return false
}
