package replica

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// BenchmarkLookups fills a ledger of five years' size (20,000 parcels,
// 100,000 bills, a fifth of them paid) through the FSM and times what the
// pages ask of its indexes: a surname, the candidates of a misspelt
// address, a page of a year's bills, and the whole November preview of a
// year (every bill of it read with its payments and figured). It reports;
// it asserts nothing about time.
func BenchmarkLookups(b *testing.B) {
	f, err := OpenFSM(badgerstore.PiOptions(b.TempDir()), params, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	f.kinds = domain.Kinds.With(putRecordsKind)
	start := time.Now()
	surnames := []string{"Gutierrez", "Ramirez", "Smith", "Johnson", "Olson", "Nelson", "Larson", "Brown", "Miller", "Davis"}
	streets := []string{"W Main St", "Hale St", "E Church St", "Park Ave", "Mill Rd", "Pearl St", "Oak Ln", "Elm St"}
	index := uint64(1)
	put := func(p putRecords) {
		data, err := domain.EncodeCommand(domain.Command{ID: fmt.Sprintf("fill-%d", index), Kind: kindPutRecords, At: domain.NewDateTime(domain.MustDate("2026-01-01"), 9, 0, 0), Node: "n1", Actor: "bench", Payload: &p})
		if err != nil {
			b.Fatal(err)
		}
		f.ApplyBatch([]*raft.Log{{Index: index, Type: raft.LogCommand, Data: data}})
		index++
	}
	var p putRecords
	for i := range 20000 {
		p.Parcels = append(p.Parcels, domain.Parcel{ID: fmt.Sprintf("0601-%03d-%04d", i/1000, i%1000), County: domain.Dane,
			Owner: fmt.Sprintf("%s%d %s", surnames[i%7], i, surnames[i%len(surnames)]), Address: fmt.Sprintf("%d %s", 100+i%900, streets[i%len(streets)])})
		if len(p.Parcels) == 2000 {
			put(p)
			p = putRecords{}
		}
	}
	for i := range 100000 {
		pc := fmt.Sprintf("0601-%03d-%04d", (i%20000)/1000, i%1000)
		bill := domain.Bill{ID: fmt.Sprintf("B-%06d", i), Account: "100101", Parcel: pc, Description: "water",
			BilledOn: domain.NewDate(2021+i%5, time.March, 1+i%28), Principal: domain.Cents(int64(2000 + i%7000))}
		if i%5 == 0 {
			bill.Payments = []domain.BillPayment{{CommandID: "pay", At: domain.NewDateTime(bill.BilledOn, 10, 0, 0), Amount: bill.Principal, Tender: domain.Cash}}
		}
		p.Bills = append(p.Bills, bill)
		p.Summarize = append(p.Summarize, true)
		if len(p.Bills) == 1000 {
			put(p)
			p = putRecords{}
		}
	}
	b.Logf("filled 20,000 parcels and 100,000 bills in %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := f.reindex(); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed them again from a walk in %s", time.Since(start).Round(time.Millisecond))

	b.Run("surname", func(b *testing.B) {
		for b.Loop() {
			if got, err := f.FindParcels(domain.ParcelQuery{Field: domain.ParcelOwner, Words: []string{"olso"}, Prefix: true, Limit: 100}); err != nil || len(got) == 0 {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("misspelt-address-candidates", func(b *testing.B) {
		for b.Loop() {
			if got, err := f.FindParcels(domain.ParcelQuery{Field: domain.ParcelAddress, Words: []string{"141"}}); err != nil || len(got) == 0 {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("year-page", func(b *testing.B) {
		for b.Loop() {
			if got, err := f.BillsOfYear(domain.BillQuery{Year: 2024, Standings: []domain.BillStanding{domain.BillOpen}, Limit: 100}); err != nil || len(got) != 100 {
				b.Fatal(len(got), err)
			}
		}
	})
	// The figures of the 20,000 bills of a year as the run's pages read
	// them: figured, every entry dropped before each read; and kept.
	figures := func(b *testing.B) {
		n := 0
		if err := f.NovemberBills(2024, domain.MustDate("2024-11-20"), func(domain.NovemberBill) error { n++; return nil }); err != nil || n != 20000 {
			b.Fatal(n, err)
		}
	}
	b.Run("november-figures-figured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := f.db.DropPrefix([]byte(prefixNovember)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			figures(b)
		}
	})
	b.Run("november-figures-kept", func(b *testing.B) {
		b.ReportAllocs()
		figures(b)
		for b.Loop() {
			figures(b)
		}
	})
	b.Run("november-preview-year", func(b *testing.B) {
		for b.Loop() {
			q := domain.BillQuery{Year: 2024, Limit: domain.MaxBillPage}
			n := 0
			for {
				bills, err := f.BillsOfYear(q)
				if err != nil {
					b.Fatal(err)
				}
				for _, bill := range bills {
					if _, ok, err := domain.NovemberItemOn(bill, "penalties", 2024, domain.MustDate("2024-11-20"), params); err != nil {
						b.Fatal(err)
					} else if ok {
						n++
					}
				}
				if len(bills) < q.Bound() {
					break
				}
				q.After = bills[len(bills)-1].ID
			}
			if n == 0 {
				b.Fatal("no bill owes a penalty")
			}
		}
	})
}
