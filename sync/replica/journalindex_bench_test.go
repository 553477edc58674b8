package replica

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// journalLedger writes n payments (half by card) spread evenly over
// days days from 2026-01-01, on 2,000 bills of 500 accounts, straight
// into a state store, as applying them would have left their journal
// entries and command records, without the indexes; opening it rebuilds
// them. It returns the reopened FSM and how long the rebuild took.
func journalLedger(b *testing.B, n, days int) (*FSM, time.Duration) {
	b.Helper()
	dir := b.TempDir()
	f, err := OpenFSM(badgerstore.PiOptions(dir), params, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	wb := f.db.NewWriteBatch()
	set := func(k []byte, v any) {
		body, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		if err := wb.Set(k, body); err != nil {
			b.Fatal(err)
		}
	}
	first := domain.MustDate("2026-01-01")
	for i := range n {
		seq := uint64(i + 1)
		id := fmt.Sprintf("pay-%07d", i)
		bill := fmt.Sprintf("Y%05d", i%2000)
		at := domain.NewDateTime(first.AddDays(i*days/n), 8+i%9, i%60, 0)
		cmd := payCommand(id, seq, bill, "1.00", at.String())
		tender := domain.Card
		if i%2 == 1 {
			tender = domain.Check
		}
		rc := domain.Receipt{Number: cmd.ReceiptNumber(), CommandID: id, Status: domain.Posted, BillID: bill, Account: fmt.Sprintf("2%05d", i%500),
			At: at, Amount: domain.MustMoney("1.00"), Tender: tender, Node: "n1", Index: seq}
		set(key(prefixCommand, id), commandRecord{Index: seq, Command: &cmd, Result: domain.Result{CommandID: id, Kind: cmd.Kind, Index: seq, Receipt: &rc}})
		set(journalKey(seq), journalEntry{Seq: seq, Index: seq, CommandID: id, Kind: cmd.Kind, Actor: "kiosk", Node: "n1", At: at, Outcome: "applied"})
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyJXVersion) }); err != nil {
		b.Fatal(err)
	}
	f.Close()
	start := time.Now()
	f, err = OpenFSM(badgerstore.PiOptions(dir), params, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	return f, time.Since(start)
}

// BenchmarkJournalPage times one page of the journal (100 entries) and
// one day's card receipts on a year of payments: 200,000 unless
// JOURNAL_BENCH_ENTRIES says otherwise.
//
//	go test -run '^$' -bench JournalPage -benchtime 200x ./sync/replica/
func BenchmarkJournalPage(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("JOURNAL_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	f, took := journalLedger(b, n, 365)
	defer f.Close()
	b.Logf("%d journal entries indexed at open in %s", n, took.Round(time.Millisecond))
	page := func(q JournalQuery, match func(JournalRow) bool) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				rows := 0
				if _, err := f.JournalRows(q, func(r JournalRow) bool {
					if match == nil || match(r) {
						rows++
					}
					return rows < 100
				}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	mid := domain.MustDate("2026-06-15")
	b.Run("newest", page(JournalQuery{}, nil))
	b.Run("deep", page(JournalQuery{Cursor: uint64(n / 3)}, nil))
	b.Run("bill", page(JournalQuery{Bill: "Y00042"}, nil))
	b.Run("account", page(JournalQuery{Account: "200042"}, nil))
	b.Run("kind-month", page(JournalQuery{Kind: domain.KindPayBill, From: domain.MustDate("2026-06-01"), To: domain.MustDate("2026-06-30")}, nil))
	b.Run("day", page(JournalQuery{From: mid, To: mid}, nil))
	b.Run("text-5000", page(JournalQuery{Scan: 5000}, func(r JournalRow) bool { return strings.Contains(r.CommandID, "no such text") }))
	b.Run("year-export", func(b *testing.B) {
		// As the export reads: 2,000 entries at a time.
		for b.Loop() {
			q, rows := JournalQuery{From: domain.MustDate("2026-01-01"), To: domain.MustDate("2026-12-31"), Oldest: true, Scan: 2000}, 0
			for {
				st, err := f.JournalRows(q, func(JournalRow) bool { rows++; return true })
				if err != nil {
					b.Fatal(err)
				}
				if !st.More {
					break
				}
				q.Cursor = st.Last
			}
			if rows != n {
				b.Fatalf("%d rows of %d", rows, n)
			}
		}
	})
	b.Run("card-day", func(b *testing.B) {
		for b.Loop() {
			got := 0
			if err := f.CardReceipts(mid, func(domain.Receipt) error { got++; return nil }); err != nil || got == 0 {
				b.Fatal(got, err)
			}
		}
	})
}

// BenchmarkCardDayCSV times the card reconciliation's CSV of a busy day:
// 30,000 card receipts streamed through EachCardReceipt into CSV lines,
// as the staff page writes them (kiosk/staff/cards), to io.Discard.
//
//	go test -run '^$' -bench CardDayCSV -benchtime 20x ./sync/replica/
func BenchmarkCardDayCSV(b *testing.B) {
	const cards = 30_000
	f, _ := journalLedger(b, 2*cards, 1)
	defer f.Close()
	day := domain.MustDate("2026-01-01")
	for b.Loop() {
		c := csv.NewWriter(io.Discard)
		got := 0
		err := f.EachCardReceipt(day, 0, func(rc domain.Receipt) error {
			got++
			return c.Write([]string{day.String(), rc.CommandID, rc.Number, rc.Amount.String(), "", "", "", "", "", "receipt in the ledger, no charge at the processor"})
		})
		c.Flush()
		if err == nil {
			err = c.Error()
		}
		if err != nil || got != cards {
			b.Fatal(got, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cards), "ns/receipt")
}
