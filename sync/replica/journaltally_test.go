package replica

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// yearsLedger is a seed and then n payments whose intake days move on
// from November 2025, some two days a payment, one in four taken by a
// node that was offline up to two months, so that entries of a year reach the journal
// among the next year's; one in ten a second delivery, which the journal
// does not take again.
func yearsLedger(seed uint64, n int) []domain.Command {
	rng := rand.New(rand.NewPCG(seed, 11))
	cmds := []domain.Command{seedCommand()}
	clock := domain.MustDate("2025-11-20")
	for i := range n {
		clock = clock.AddDays(rng.IntN(6))
		day := clock
		if rng.IntN(4) == 0 {
			day = clock.AddDays(-1 - rng.IntN(60))
		}
		if rng.IntN(10) == 0 && len(cmds) > 1 {
			cmds = append(cmds, cmds[1+rng.IntN(len(cmds)-1)])
			continue
		}
		at := domain.NewDateTime(day, 8+rng.IntN(9), rng.IntN(60), 0).String()
		cmds = append(cmds, payCommand(fmt.Sprintf("y%04d", i), uint64(i+2), []string{"B1", "B2", "B3"}[rng.IntN(3)], "1.00", at))
	}
	return cmds
}

func applyAll(t *testing.T, f *FSM, cmds []domain.Command) {
	t.Helper()
	logs := logsOf(t, 1, cmds...)
	for len(logs) > 0 {
		n := min(len(logs), 13)
		f.ApplyBatch(logs[:n])
		logs = logs[n:]
	}
}

// spanByWalk is JournalSpan worked out from every entry of the journal:
// the oracle.
func spanByWalk(t *testing.T, f *FSM, year int) JournalSpan {
	t.Helper()
	var s JournalSpan
	before := ""
	err := f.Journal(func(e JournalEntry) error {
		y := e.At.Date.Year()
		if y >= year && s.First == 0 {
			s.First, s.Prev = e.Seq, before
		}
		if y <= year {
			s.Last = e.Seq
		}
		before = e.Hash
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.First == 0 {
		s.Prev = before
	}
	return s
}

// checkSpans checks the span of every year around the ledger's against
// a walk, and that the span is as narrow as the late entries allow: the
// entries just outside it are of other years.
func checkSpans(t *testing.T, f *FSM) {
	t.Helper()
	for year := 2023; year <= 2030; year++ {
		got, err := f.JournalSpan(year)
		if err != nil {
			t.Fatal(err)
		}
		if want := spanByWalk(t, f, year); got != want {
			t.Fatalf("%d: span %+v, the walk %+v", year, got, want)
		}
	}
}

// checkCardPages checks every day's card tally against the card index's
// listing of the day (CardReceipts), and pages of it against slices of
// the listing.
func checkCardPages(t *testing.T, f *FSM) {
	t.Helper()
	defer func(n int) { cardLinePart = n }(cardLinePart)
	cardLinePart = 2
	days := 0
	for d := domain.MustDate("2025-09-01"); d.Before(domain.MustDate("2028-06-01")); d = d.AddDays(1) {
		var all []domain.Receipt
		if err := f.CardReceipts(d, func(r domain.Receipt) error { all = append(all, r); return nil }); err != nil {
			t.Fatal(err)
		}
		var total domain.Money
		for _, r := range all {
			total = total.Add(r.Amount)
		}
		whole, err := f.CardReceiptsPage(d, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Count != len(all) || !whole.Total.Equal(total) || !reflect.DeepEqual(whole.Receipts, all) {
			t.Fatalf("%s: tally %d receipts, %s; the index lists %d, %s", d, whole.Count, whole.Total, len(all), total)
		}
		// The CSV's stream: the same receipts, slim, in parts of two here
		// so that days of several parts resume where the last ended.
		for _, n := range []int{0, 1, 2, 3, len(all), len(all) + 1} {
			var slim []domain.Receipt
			if err := f.EachCardReceipt(d, n, func(r domain.Receipt) error { slim = append(slim, r); return nil }); err != nil {
				t.Fatal(err)
			}
			want := all
			if n > 0 {
				want = all[:min(n, len(all))]
			}
			if len(slim) != len(want) {
				t.Fatalf("%s, %d of them: streamed %d receipts, want %d", d, n, len(slim), len(want))
			}
			for i, r := range want {
				if s := slim[i]; s.Number != r.Number || s.CommandID != r.CommandID || !s.Amount.Equal(r.Amount) {
					t.Fatalf("%s, %d of them: receipt %d streamed as %+v, want %s %s %s", d, n, i, s, r.Number, r.CommandID, r.Amount)
				}
			}
		}
		if len(all) == 0 {
			continue
		}
		days++
		for _, p := range [][2]int{{0, 1}, {1, 2}, {len(all) - 1, 5}, {len(all), 3}, {len(all) + 4, 3}} {
			page, err := f.CardReceiptsPage(d, p[0], p[1])
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(p[0], len(all)):min(p[0]+p[1], len(all))]
			if page.Count != len(all) || len(page.Receipts) != len(want) || (len(want) > 0 && !reflect.DeepEqual(page.Receipts, want)) {
				t.Fatalf("%s from %d, %d of them: %d receipts of %d, want %d", d, p[0], p[1], len(page.Receipts), page.Count, len(want))
			}
		}
	}
	if days < 50 {
		t.Fatalf("card receipts on %d days: too few to test with", days)
	}
}

// TestJournalTallyAgreesWithAWalk: after card payments over three years,
// some of them reaching the journal weeks after their intake, the span
// of each year (first entry of it or later, last of it or earlier, the
// hash before) is what a walk of the journal finds, the years before and
// after the ledger's included; JournalRange gives the entries of a span
// as the walk has them; each day's card tally is the count and total of
// the receipts the card index lists, and a page of them a slice of that
// listing.
func TestJournalTallyAgreesWithAWalk(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f := openFSM(t, t.TempDir())
			defer f.Close()
			applyAll(t, f, yearsLedger(seed, 400))
			var all []JournalEntry
			late := 0
			f.Journal(func(e JournalEntry) error {
				if n := len(all); n > 0 && e.At.Date.Year() < all[n-1].At.Date.Year() {
					late++
				}
				all = append(all, e)
				return nil
			})
			if len(all) < 300 || late < 3 {
				t.Fatalf("%d entries, %d of an earlier year after a later one's: too few to test with", len(all), late)
			}
			checkSpans(t, f)
			checkCardPages(t, f)
			s, _ := f.JournalSpan(2026)
			if s.First == 0 || s.Last <= s.First {
				t.Fatalf("2026's span %+v", s)
			}
			var got []JournalEntry
			if err := f.JournalRange(s.First, s.Last, func(e JournalEntry) error { got = append(got, e); return nil }); err != nil {
				t.Fatal(err)
			}
			want := all[s.First-1 : s.Last]
			if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
				t.Fatalf("the range %d to %d: %d entries, the walk %d", s.First, s.Last, len(got), len(want))
			}
			if got[0].Prev != s.Prev {
				t.Fatalf("the span's hash before %q, its first entry's link %q", s.Prev, got[0].Prev)
			}
		})
	}
}

// jtDump is every key and value of the journal's tallies.
func jtDump(t *testing.T, f *FSM) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJT), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJournalTallyRebuiltAtOpen: a store whose tallies' version is
// missing or another build's, and whose spans and card tallies are
// wrong, has them rebuilt when it opens, exactly as applying wrote them;
// the state hash is unchanged. One at this version is left alone; one
// opened read-only is read as it is, and answers from walks when its
// version is not this build's.
func TestJournalTallyRebuiltAtOpen(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	applyAll(t, f, yearsLedger(4, 300))
	want := jtDump(t, f)
	hash := stateHash(t, f)
	cards := 0
	for k := range want {
		if strings.HasPrefix(k, prefixJTCard) {
			cards++
		}
	}
	if _, ok := want[string(keyJTVersion)]; !ok || len(want)-cards < 4 || cards < 50 {
		t.Fatalf("a new ledger's tallies: %d card days of %d keys", cards, len(want))
	}
	f.Close()

	spoil := func(t *testing.T, version []byte) {
		t.Helper()
		f := openFSM(t, dir)
		defer f.Close()
		err := f.db.Update(func(txn *badger.Txn) error {
			if err := txn.Set(jyKey(2026), jySpan{1, 2}.bytes()); err != nil {
				return err
			}
			if err := txn.Delete(jyKey(2027)); err != nil {
				return err
			}
			if err := txn.Set(jcKey("2026-06-01"), []byte(`{"count":1,"total":"9.99"}`)); err != nil {
				return err
			}
			if version == nil {
				return txn.Delete(keyJTVersion)
			}
			return txn.Set(keyJTVersion, version)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, version := range map[string][]byte{"removed": nil, "older": uint64Bytes(journalTallyVersion - 1), "newer": uint64Bytes(journalTallyVersion + 1)} {
		t.Run(name, func(t *testing.T) {
			spoil(t, version)
			f := openFSM(t, dir)
			defer f.Close()
			if got := jtDump(t, f); len(got) != len(want) {
				t.Fatalf("rebuilt: %d keys, want %d", len(got), len(want))
			} else {
				for k, v := range want {
					if got[k] != v {
						t.Fatalf("rebuilt: %q holds %x, want %x", k, got[k], v)
					}
				}
			}
			if stateHash(t, f) != hash {
				t.Fatal("the rebuild changed the state hash")
			}
			checkSpans(t, f)
			checkCardPages(t, f)
		})
	}
	t.Run("current", func(t *testing.T) {
		spoil(t, uint64Bytes(journalTallyVersion))
		f := openFSM(t, dir)
		defer f.Close()
		if got := jtDump(t, f); got[string(jyKey(2026))] != string(jySpan{1, 2}.bytes()) {
			t.Fatal("a store at this version was rebuilt")
		}
	})
	t.Run("read-only", func(t *testing.T) {
		spoil(t, nil)
		f, err := OpenFSM(badgerstore.PiOptions(dir).WithReadOnly(true), params, quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, ok := jtDump(t, f)[string(keyJTVersion)]; ok {
			t.Fatal("a store opened read-only was rebuilt")
		}
		checkSpans(t, f)
		checkCardPages(t, f)
	})
}

// TestJournalTallyAfterRestore: a node that restores a snapshot (which
// carries no node-local keys) holds the tallies of the snapshot's
// journal, not of what it had before.
func TestJournalTallyAfterRestore(t *testing.T) {
	src := openFSM(t, t.TempDir())
	defer src.Close()
	applyAll(t, src, yearsLedger(5, 300))
	data := snapshotOf(t, src)
	if bytes.Contains(data, []byte(prefixJT)) {
		t.Fatal("the snapshot carries the journal's tallies")
	}
	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	applyAll(t, dst, yearsLedger(6, 80))
	if err := dst.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	got, want := jtDump(t, dst), jtDump(t, src)
	if len(got) != len(want) {
		t.Fatalf("restored: %d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("restored: %q holds %x, want %x", k, got[k], v)
		}
	}
	checkSpans(t, dst)
	checkCardPages(t, dst)
}
