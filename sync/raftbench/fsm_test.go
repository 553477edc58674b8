package raftbench_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/faultsuite"
	"github.com/villagehall/appliance/sync/replica"
)

// BenchmarkFSMPayment is one voter's share of a payment in the cluster
// benchmarks, without raft: one FSM on the appliance's state store
// options, seeded as the clusters are (the books open on a chart of two
// funds), applying pay_bill commands in batches of 16, as raft hands them
// over at sixteen clients, and one at a time, as at one client. It is the
// steadiest figure of the apply path's cost to compare two builds by; the
// clusters scatter far more.
//
//	go test -run '^$' -bench FSMPayment -count 5 ./sync/raftbench
func BenchmarkFSMPayment(b *testing.B) {
	for _, batch := range []int{16, 1} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) { fsmPayment(b, batch) })
	}
}

func fsmPayment(b *testing.B, batch int) {
	f, err := replica.OpenFSM(badgerstore.PiOptions(b.TempDir()).WithSyncWrites(false), domain.DefaultParams(), logger())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	day := domain.MustDate("2026-03-02")
	index := uint64(0)
	apply := func(cmds ...domain.Command) []any {
		logs := make([]*raft.Log, len(cmds))
		for i, c := range cmds {
			data, err := domain.EncodeCommand(c)
			if err != nil {
				b.Fatal(err)
			}
			index++
			logs[i] = &raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: data}
		}
		return f.ApplyBatch(logs)
	}
	at := domain.NewDateTime(day, 9, 0, 0)
	for _, c := range []domain.Command{
		{ID: "format", Kind: domain.KindLedgerFormat, Node: "bench", Actor: "bench", At: at, Payload: &domain.LedgerFormatChange{To: domain.LedgerFormat}},
		{ID: "seed", Kind: domain.KindSeedDemo, Node: "bench", Actor: "bench", At: at, Payload: faultsuite.SeedBills(bills, day)},
	} {
		if res := apply(c)[0].(domain.Result); res.Error != nil {
			b.Fatalf("%s: %v", c.ID, res.Error)
		}
	}
	if f.Format() != domain.LedgerFormat {
		b.Fatalf("the ledger is at format %d", f.Format())
	}
	pay := domain.NewDateTime(domain.MustDate("2026-04-10"), 10, 0, 0)
	seq := uint64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		cmds := make([]domain.Command, 0, batch)
		for range batch {
			seq++
			cmds = append(cmds, domain.Command{
				ID: fmt.Sprintf("pay-%d", seq), Kind: domain.KindPayBill, Node: "bench", Seq: seq, Actor: "bench", At: pay,
				Payload: &domain.PayBill{BillID: billID(int(seq)), Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: fmt.Sprintf("card-%d", seq)},
			})
		}
		for _, r := range apply(cmds...) {
			if res := r.(domain.Result); res.Error != nil {
				b.Fatalf("%s: %v", res.CommandID, res.Error)
			}
		}
	}
}
