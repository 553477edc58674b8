package replica

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

// flatBills is how many bills the flat-cost ledgers hold; the prior
// payments are spread over them evenly.
const flatBills = 100_000

// BenchmarkApplyFlat measures one pay_bill applied through the real FSM
// (FSM.Apply: decode, the §5.10 rule, the records, the dedupe record and
// the journal link, one synced commit) on ledgers of 100,000 bills
// pre-filled with 0, 100,000 and 1,000,000 prior payments, and on a bill
// that holds 1,000, 4,000 and 10,000 payments (the target: the cost per
// apply stays within 1.5× across them), at ledger formats 2 and 3
// side by side. At format 2 a bill keeps its payments in its own record,
// which the FSM decodes, recomputes (§5.10 over every payment) and writes
// again at each payment: its cost grows with the bill's history, and a
// bill whose record no longer fits one Badger transaction (about 5,000
// payments with PiOptions) refuses the next payment, which the benchmark
// reports as refused=1. At format 3 the bill's record keeps a summary of
// its account and each payment is a record of its own
// (domain/billpayments.go): a payment dated after the bill's latest reads
// the summary and writes one payment record, whatever the history. The
// history is written directly into the state store, as the FSM writes it
// at that format (the bills with their payments, a receipt, a command
// record and a journal entry per payment); replaying a million payments
// through raft would take an hour here. Each measured apply pays the next
// bill in turn (the one bill, in the last cases). The ratios to the empty
// ledger of the same format are reported as x-empty.
//
//	go test -run '^$' -bench ApplyFlat -benchtime 2000x ./sync/replica
func BenchmarkApplyFlat(b *testing.B) {
	empty := map[int]float64{}
	for _, format := range []int{2, 3} {
		for _, c := range []struct {
			name           string
			prior, perBill int // payments written before; on the one bill paid
		}{
			{"prior=0", 0, 0},
			{"prior=100000", 100_000, 0},
			{"prior=1000000", 1_000_000, 0},
			{"one-bill=1000", 0, 1000},
			{"one-bill=4000", 0, 4000},
			{"one-bill=10000", 0, 10_000},
		} {
			b.Run(fmt.Sprintf("format=%d/%s", format, c.name), func(b *testing.B) {
				f := flatLedger(b, c.prior, c.perBill, format)
				idx := f.Applied()
				refused := false
				for i := 0; b.Loop(); i++ {
					bill := flatBillID(i % flatBills)
					if c.perBill > 0 {
						bill = flatBillID(0)
					}
					idx++
					cmd := payCommand(fmt.Sprintf("m-%d", idx), idx, bill, "0.01", "2026-03-20T10:00")
					data, _ := domain.EncodeCommand(cmd)
					res, _ := f.Apply(&raft.Log{Index: idx, Type: raft.LogCommand, Data: data}).(domain.Result)
					if res.Error != nil && c.perBill > 0 && domain.ErrorCode(res.Error) == domain.EINVALID {
						// At format 2 the bill keeps its payments in its
						// record, and a record bigger than one Badger
						// transaction cannot be written: such a bill
						// takes no more payments.
						b.Logf("%s: the bill's next payment is refused: %v", c.name, res.Error)
						refused = true
						for b.Loop() { // the testing package needs the loop run out
						}
						break
					}
					if res.Error != nil || res.Receipt == nil {
						b.Fatalf("apply %d: %+v", idx, res)
					}
				}
				if refused {
					b.ReportMetric(1, "refused")
					b.ReportMetric(0, "ns/op")
					return
				}
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				if c.name == "prior=0" {
					empty[format] = per
				}
				if empty[format] > 0 {
					b.ReportMetric(per/empty[format], "x-empty")
				}
			})
		}
	}
}

func flatBillID(i int) string { return fmt.Sprintf("F%06d", i) }

// flatLedger returns an FSM over a fresh state store at ledger format
// holding the seed, flatBills bills and prior payments spread over them,
// or, with perBill, that many payments on the first bill, stored as that
// format stores them. The journal chain and applied index continue from
// what was written.
func flatLedger(b *testing.B, prior, perBill, format int) *FSM {
	b.Helper()
	dir := b.TempDir()
	f, err := OpenFSM(badgerstore.PiOptions(dir), params, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	seed, _ := domain.EncodeCommand(seedCommand())
	f.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: seed})
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(keyFormat, uint64Bytes(uint64(format))) }); err != nil {
		b.Fatal(err)
	}

	wb := f.db.NewWriteBatch()
	defer wb.Cancel()
	set := func(k []byte, v any) {
		body, ok := v.([]byte)
		if !ok {
			body, err = json.Marshal(v)
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := wb.Set(k, body); err != nil {
			b.Fatal(err)
		}
	}
	at := domain.NewDateTime(domain.MustDate("2026-03-04"), 10, 0, 0)
	jseq, index := f.jseq, uint64(1)
	head := f.head
	// payment makes the records of one prior payment on bill and returns
	// the payment as the bill holds it.
	payment := func(bill domain.Bill) domain.BillPayment {
		index++
		id := fmt.Sprintf("pre-%07d", index)
		cmd := payCommand(id, index, bill.ID, "0.01", "2026-03-04T10:00")
		alloc := domain.Allocation{Principal: domain.MustMoney("0.01")}
		rc := domain.Receipt{Number: cmd.ReceiptNumber(), CommandID: id, Status: domain.Posted, BillID: bill.ID,
			Account: bill.Account, Parcel: bill.Parcel, At: at, Amount: domain.MustMoney("0.01"), Tender: domain.Card,
			Reference: "sim-" + id, Allocation: alloc, Balance: domain.MustMoney("99.99"), Node: "n1", Index: index}
		set(key(prefixReceipt, rc.Number), rc)
		set(key(prefixCommand, id), commandRecord{Index: index, Command: &cmd, Result: domain.Result{CommandID: id, Kind: cmd.Kind, Index: index, Receipt: &rc}})
		jseq++
		e := journalEntry{Seq: jseq, Index: index, CommandID: id, Kind: cmd.Kind, Actor: cmd.Actor, Node: cmd.Node, At: cmd.At, Outcome: "applied"}
		e.Prev = fmt.Sprintf("%x", head)
		e.Hash = fmt.Sprintf("%x", journalHash(e))
		head = journalHash(e)
		set(journalKey(jseq), e)
		return domain.BillPayment{CommandID: id, Receipt: rc.Number, At: at, Amount: rc.Amount, Tender: domain.Card, Reference: rc.Reference, Allocation: alloc}
	}
	for i := range flatBills {
		bill := domain.Bill{ID: flatBillID(i), Account: fmt.Sprintf("1%05d", i%1000), Parcel: "0601-141-2001",
			Description: "water and sewer", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("100.00")}
		n := prior / flatBills
		if i < prior%flatBills {
			n++
		}
		if i == 0 {
			n += perBill
		}
		for range n {
			bill.Payments = append(bill.Payments, payment(bill))
		}
		rec := bill
		if format >= 3 {
			if rec, err = bill.Summarized(params); err != nil {
				b.Fatal(err)
			}
			for slot, pay := range bill.Payments {
				set(recordKey(domain.CollectionBillPayments, domain.BillPaymentID(bill.ID, slot)), pay)
			}
		}
		body, err := json.Marshal(rec)
		if err != nil {
			b.Fatal(err)
		}
		set(key(prefixBill, bill.ID), body)
		set(key(prefixBillByAcc, bill.Account, "/", bill.BilledOn.String(), "/", bill.ID), []byte{})
		set(key(prefixBillByPar, bill.Parcel, "/", bill.ID), []byte{})
	}
	set(keyApplied, uint64Bytes(index))
	set(keyJournal, append(uint64Bytes(jseq), head...))
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	// A ledger that grew over years has its tables compacted; one
	// written in a minute would spend the measurement compacting.
	if err := f.db.Flatten(2); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if f, err = OpenFSM(badgerstore.PiOptions(dir), params, quietLogger()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	if f.Applied() != index {
		b.Fatalf("pre-filled ledger applied index %d; want %d", f.Applied(), index)
	}
	return f
}
