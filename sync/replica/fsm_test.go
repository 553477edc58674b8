package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

var params = domain.DefaultParams()

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func openFSM(t *testing.T, dir string) *FSM {
	t.Helper()
	f, err := OpenFSM(badgerstore.PiOptions(dir), params, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func seedCommand() domain.Command {
	return domain.Command{
		ID: "seed", Kind: domain.KindSeedDemo, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 9, 0, 0),
		Node: "n1", Seq: 1, Actor: "test",
		Payload: &domain.SeedDemo{
			Parcels:  []domain.Parcel{{ID: "0601-141-2001", Address: "141 W Main St", County: domain.Dane, Owner: "A"}},
			Accounts: []domain.Account{{Number: "100101", Name: "A", Parcels: []string{"0601-141-2001"}}},
			Bills: []domain.Bill{
				{ID: "B1", Account: "100101", Parcel: "0601-141-2001", Description: "water", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("100.00")},
				{ID: "B2", Account: "100101", Parcel: "0601-141-2001", Description: "weeds", BilledOn: domain.MustDate("2026-01-01"), Principal: domain.MustMoney("123.45")},
				{ID: "B3", Account: "100101", Parcel: "0601-141-2001", Description: "water", BilledOn: domain.MustDate("2026-10-20"), Principal: domain.MustMoney("50.00")},
			},
		},
	}
}

func payCommand(id string, seq uint64, bill, amount, at string) domain.Command {
	dt, err := domain.ParseDateTime(at)
	if err != nil {
		panic(err)
	}
	return domain.Command{
		ID: id, Kind: domain.KindPayBill, At: dt, Node: "n1", Seq: seq, Actor: "kiosk",
		Payload: &domain.PayBill{BillID: bill, Amount: domain.MustMoney(amount), Tender: domain.Card, Reference: "sim-" + id},
	}
}

// testLog is a log with a seed, payments (one partial, one overpaying, one
// refused because the bill is on the tax roll) and a duplicate delivery.
func testLog(t *testing.T) []*raft.Log {
	t.Helper()
	cmds := []domain.Command{
		seedCommand(),
		payCommand("p1", 2, "B1", "40.00", "2026-04-10T10:00"),
		payCommand("p2", 3, "B1", "70.00", "2026-05-02T16:00"),
		payCommand("p3", 4, "B2", "10.00", "2026-11-20T09:00"), // after tax_roll_on: refused
		payCommand("p4", 5, "B2", "50.00", "2026-06-10T09:00"),
		payCommand("p1", 2, "B1", "40.00", "2026-04-10T10:00"), // duplicate delivery
	}
	var logs []*raft.Log
	for i, c := range cmds {
		data, err := domain.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(i + 3), Term: 1, Type: raft.LogCommand, Data: data})
	}
	return logs
}

func stateHash(t *testing.T, f *FSM) string {
	t.Helper()
	h, err := f.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestFSMDeterministic(t *testing.T) {
	logs := testLog(t)
	a := openFSM(t, t.TempDir())
	defer a.Close()
	b := openFSM(t, t.TempDir())
	defer b.Close()
	a.ApplyBatch(logs)
	for _, l := range logs {
		b.Apply(l)
	}
	if ha, hb := stateHash(t, a), stateHash(t, b); ha != hb {
		t.Fatalf("same log, different state: %s vs %s", ha, hb)
	}
	if a.Applied() != logs[len(logs)-1].Index {
		t.Fatalf("applied = %d, want %d", a.Applied(), logs[len(logs)-1].Index)
	}
	if n, err := a.VerifyJournal(); err != nil || n != len(logs)-1 {
		t.Fatalf("journal: %d entries, %v; want %d entries (duplicates are not journaled)", n, err, len(logs)-1)
	}
}

func TestFSMOutcomes(t *testing.T) {
	logs := testLog(t)
	f := openFSM(t, t.TempDir())
	defer f.Close()
	out := f.ApplyBatch(logs)
	res := func(i int) domain.Result { return out[i].(domain.Result) }

	if r := res(1); r.Error != nil || r.Receipt == nil || r.Receipt.Number != "n1-000002" || r.Receipt.Status != domain.Posted {
		t.Fatalf("first payment: %+v", r)
	}
	// 40.00 on April 10 paid the 1.50 of April interest and 38.50 of principal.
	// 70.00 on May 2: May's interest (1.5% of 61.50 = 0.9225 → 0.92) comes
	// first, then the 61.50 principal; 7.58 is overpaid.
	r2 := res(2)
	if r2.Error != nil || r2.Receipt.Allocation.Interest.String() != "0.92" || r2.Receipt.Allocation.Overpayment.String() != "7.58" {
		t.Fatalf("second payment: %+v", r2.Receipt)
	}
	if r2.Refund == nil || r2.Refund.Amount.String() != "7.58" {
		t.Fatalf("overpayment not recorded as a refund due: %+v", r2.Refund)
	}
	if r := res(3); r.Error == nil || r.Error.Code != domain.ECONFLICT {
		t.Fatalf("payment after the tax roll: want a conflict, got %+v", r)
	}
	if r := res(5); r.Receipt == nil || r.Receipt.Number != res(1).Receipt.Number {
		t.Fatalf("duplicate delivery must return the first result, got %+v", r)
	}
	bill, err := f.Bill("B1")
	if err != nil {
		t.Fatal(err)
	}
	if len(bill.Payments) != 2 {
		t.Fatalf("B1 has %d payments, want 2 (the duplicate is applied once)", len(bill.Payments))
	}
	b2, _ := f.Bill("B2")
	if len(b2.Payments) != 1 {
		t.Fatalf("B2 has %d payments, want 1 (the refused one changes nothing)", len(b2.Payments))
	}
	refunds, err := f.RefundsDue()
	if err != nil || len(refunds) != 1 {
		t.Fatalf("refunds due: %v, %v", refunds, err)
	}
	if got, _ := f.BillsByAccount("100101"); len(got) != 3 || got[0].ID != "B2" || got[2].ID != "B3" {
		t.Fatalf("account bills by date: %+v", got)
	}
}

func TestFSMSkipsReplayedEntriesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	logs := testLog(t)
	f := openFSM(t, dir)
	f.ApplyBatch(logs[:3])
	before := stateHash(t, f)
	f.Close()

	f = openFSM(t, dir)
	defer f.Close()
	if f.Applied() != logs[2].Index {
		t.Fatalf("applied after reopen = %d, want %d", f.Applied(), logs[2].Index)
	}
	out := f.ApplyBatch(logs[:3]) // raft replays the tail after a restart
	if got := stateHash(t, f); got != before {
		t.Fatalf("replaying applied entries changed the state")
	}
	if r := out[1].(domain.Result); r.Receipt == nil || r.Receipt.Number != "n1-000002" {
		t.Fatalf("a replayed entry answers with its stored result, got %+v", r)
	}
	f.ApplyBatch(logs[3:])
	fresh := openFSM(t, t.TempDir())
	defer fresh.Close()
	fresh.ApplyBatch(logs)
	if stateHash(t, f) != stateHash(t, fresh) {
		t.Fatalf("restarted replica diverged from one that applied the log in one go")
	}
}

type memSink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }
func (s *memSink) Close() error  { return nil }

// snapshotOf persists a snapshot of f and returns its bytes.
func snapshotOf(t *testing.T, f *FSM) []byte {
	t.Helper()
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes()
}

func TestSnapshotRestore(t *testing.T) {
	logs := testLog(t)
	src := openFSM(t, t.TempDir())
	defer src.Close()
	src.ApplyBatch(logs)
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	good := sink.Bytes()

	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	dst.ApplyBatch(logs[:2]) // old state to be discarded
	old := stateHash(t, dst)

	bad := map[string][]byte{
		"truncated":      good[:len(good)/2],
		"empty":          nil,
		"flipped byte":   flip(good, len(good)/3),
		"extra bytes":    append(append([]byte{}, good...), 0),
		"not a snapshot": []byte("hello, this is not a snapshot at all, but it is long enough to have a trailer......"),
	}
	for name, b := range bad {
		if err := dst.Restore(io.NopCloser(bytes.NewReader(b))); err == nil {
			t.Errorf("%s snapshot restored without error", name)
		}
		if got := stateHash(t, dst); got != old {
			t.Fatalf("%s snapshot changed the state", name)
		}
	}

	if err := dst.Restore(io.NopCloser(bytes.NewReader(good))); err != nil {
		t.Fatal(err)
	}
	if stateHash(t, dst) != stateHash(t, src) {
		t.Fatalf("restored state differs from the snapshot's source")
	}
	if dst.Applied() != src.Applied() {
		t.Fatalf("applied index after restore = %d, want %d", dst.Applied(), src.Applied())
	}
	if _, err := dst.VerifyJournal(); err != nil {
		t.Fatalf("journal after restore: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0xff
	return c
}

func TestJournalDetectsTampering(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	f.ApplyBatch(testLog(t))
	err := f.db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(journalKey(4))
		if err != nil {
			return err
		}
		var e journalEntry
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
			return err
		}
		e.Actor = "someone else"
		body, _ := json.Marshal(e)
		return txn.Set(journalKey(4), body)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.VerifyJournal(); err == nil {
		t.Fatal("a tampered journal entry verified")
	}
}

// BenchmarkFSMApply measures pay_bill applied through FSM.ApplyBatch in
// batches of 1, 16 and 64 on one bill, at the newest ledger format, with
// the state store synced at each commit (PiOptions).
func BenchmarkFSMApply(b *testing.B) {
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			// As the node opens its state store: raft's log is what is
			// synced, the state's commits are not (replica.Open).
			f, err := OpenFSM(badgerstore.PiOptions(b.TempDir()).WithSyncWrites(false), params, quietLogger())
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			seed, _ := domain.EncodeCommand(seedCommand())
			f.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: seed})
			// A fresh state store is at ledger format 1, where a bill
			// keeps its payments in its record and each payment
			// recomputes them all; a cluster raises it at once (the
			// leader's ledger_format command). Measure what it runs.
			if err := f.db.Update(func(txn *badger.Txn) error {
				return txn.Set(keyFormat, uint64Bytes(uint64(domain.LedgerFormat)))
			}); err != nil {
				b.Fatal(err)
			}
			if err := f.loadMeta(); err != nil {
				b.Fatal(err)
			}
			idx := uint64(2)
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				logs := make([]*raft.Log, 0, batch)
				for j := 0; j < batch; j++ {
					c := payCommand(fmt.Sprintf("c%d", idx), idx, "B1", "0.01", "2026-03-05T10:00")
					data, _ := domain.EncodeCommand(c)
					logs = append(logs, &raft.Log{Index: idx, Type: raft.LogCommand, Data: data})
					idx++
				}
				f.ApplyBatch(logs)
			}
		})
	}
}

func TestJournalDetectsMissingEntry(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	f.ApplyBatch(testLog(t))
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Delete(journalKey(3)) }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.VerifyJournal(); err == nil {
		t.Fatal("a journal with an entry deleted verified")
	}
}

// TestRecordsAndIndexes writes named-collection records and index keys
// through a command's overlay and reads them back by id, prefix and index.
func TestRecordsAndIndexes(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	type letter struct{ Claim, ReadyBy string }
	txn := f.db.NewTransaction(true)
	ov := &overlay{txn: txn, writes: map[string][]byte{}}
	for _, l := range []letter{{"SL-2", "2026-12-02"}, {"SL-1", "2026-12-01"}, {"SL-3", "2026-12-03"}} {
		if err := ov.Put("status-letters", l.Claim, l); err != nil {
			t.Fatal(err)
		}
		if err := ov.Index("letters-by-ready", l.ReadyBy+"/"+l.Claim); err != nil {
			t.Fatal(err)
		}
	}
	var got letter
	if ok, err := ov.Get("status-letters", "SL-2", &got); !ok || err != nil || got.ReadyBy != "2026-12-02" {
		t.Fatalf("read own write: %+v %v %v", got, ok, err)
	}
	if err := ov.Unindex("letters-by-ready", "2026-12-03/SL-3"); err != nil {
		t.Fatal(err)
	}
	if err := ov.Put("Bad Name", "x", got); err == nil {
		t.Fatal("a collection name outside [a-z0-9-] was accepted")
	}
	if err := setAll(txn, ov.sorted()); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Get("status-letters", "SL-1", &got); err != nil || got.Claim != "SL-1" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if err := f.Get("status-letters", "SL-9", &got); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("missing record: %v", err)
	}
	var ids []string
	if err := f.List("status-letters", "SL-", func(id string, raw []byte) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids) != "[SL-1 SL-2 SL-3]" {
		t.Fatalf("list = %v", ids)
	}
	keys, err := f.Keys("letters-by-ready", "2026-12")
	if err != nil || fmt.Sprint(keys) != "[2026-12-01/SL-1 2026-12-02/SL-2]" {
		t.Fatalf("index = %v, %v", keys, err)
	}
}

// TestOversizedCommandIsRefusedNotCrashed: a command whose writes cannot
// fit in one Badger transaction is refused (on every replica alike) instead
// of panicking the FSM, which would crash-loop the node on that entry.
func TestOversizedCommandIsRefusedNotCrashed(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	seed := seedCommand()
	for i := range 20000 {
		seed.Payload.(*domain.SeedDemo).Parcels = append(seed.Payload.(*domain.SeedDemo).Parcels, domain.Parcel{ID: fmt.Sprintf("0601-999-%05d", i), Address: "1 Long Rd", County: domain.Dane})
	}
	data, err := domain.EncodeCommand(seed)
	if err != nil {
		t.Fatal(err)
	}
	out := f.ApplyBatch([]*raft.Log{{Index: 1, Type: raft.LogCommand, Data: data}})
	res := out[0].(domain.Result)
	if res.Error == nil || res.Error.Code != domain.EINVALID {
		t.Fatalf("oversized seed: %+v, want refused", res)
	}
	if empty, _ := (&overlay{txn: f.db.NewTransaction(false), writes: map[string][]byte{}}).Empty(); !empty {
		t.Fatal("a refused oversized command wrote records")
	}
	ok := seedCommand()
	ok.ID = "seed-2"
	data, _ = domain.EncodeCommand(ok)
	if r := f.ApplyBatch([]*raft.Log{{Index: 2, Type: raft.LogCommand, Data: data}})[0].(domain.Result); r.Error != nil {
		t.Fatalf("a normal command after the refusal: %v", r.Error)
	}
}

// TestRestoreDoesNotWaitForAnOpenSnapshot: raft may hold a snapshot it
// took (not yet persisted, not released) while its main goroutine waits
// for a Restore: the restore must not wait for that snapshot, or the node
// deadlocks (seen under load: the snapshot goroutine waited for the
// configuration from the main goroutine, which waited for the restore,
// which waited for the snapshot's read lock). The restore ends the open
// snapshot instead: its Persist fails, so raft takes a fresh one, and its
// Release is harmless.
func TestRestoreDoesNotWaitForAnOpenSnapshot(t *testing.T) {
	logs := testLog(t)
	src := openFSM(t, t.TempDir())
	defer src.Close()
	src.ApplyBatch(logs)
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()

	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	dst.ApplyBatch(logs[:2])
	open, err := dst.Snapshot() // raft holds it, asking for the configuration
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dst.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the restore waited for a snapshot raft still holds")
	}
	if stateHash(t, dst) != stateHash(t, src) {
		t.Fatal("restored state differs from the snapshot's source")
	}
	var late memSink
	if err := open.Persist(&late); !errors.Is(err, errSnapshotEnded) || !late.cancelled {
		t.Fatalf("the ended snapshot persisted: %v (cancelled %v)", err, late.cancelled)
	}
	open.Release()
	open.Release() // raft may release twice on its error paths
	again, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer again.Release()
	var fresh memSink
	if err := again.Persist(&fresh); err != nil || !bytes.Equal(fresh.Bytes(), sink.Bytes()) {
		t.Fatalf("a snapshot after the restore: %v, same bytes as the source's: %v", err, bytes.Equal(fresh.Bytes(), sink.Bytes()))
	}
}

// TestFSMClosedAppliesNothing: raft may hand the FSM a batch after the
// node closed it (a node raft shut down by itself, when the cluster
// removed it, is not waited for by the node's own Shutdown). The batch is
// answered as not applied, without touching the closed store, and applies
// from the log after the node opens again.
func TestFSMClosedAppliesNothing(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	logs := testLog(t)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for i, r := range f.ApplyBatch(logs[:2]) {
		if res, ok := r.(domain.Result); !ok || domain.ErrorCode(res.Error) != domain.EUNAVAILABLE {
			t.Fatalf("entry %d after close: %+v", i, r)
		}
	}
	f = openFSM(t, dir)
	defer f.Close()
	if f.Applied() != 0 {
		t.Fatalf("a closed FSM applied up to %d", f.Applied())
	}
	f.ApplyBatch(logs[:2])
	if f.Applied() != logs[1].Index {
		t.Fatalf("the entries did not apply after the reopen: applied %d", f.Applied())
	}
}

// TestBillLookupsWrittenOnce: a bill written again with the account,
// billing date and parcel it had is not given its lookup keys again (a
// payment writes its bill every time), and one that moves to another
// account or parcel, or is written without having been read, is; either
// way the bill is listed under its account and its parcel.
func TestBillLookupsWrittenOnce(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	f.ApplyBatch(logsOf(t, 1, booksOpenSetup()...)) // the seed: bills B1 to B3 of account 100101
	lookups := func(ov *overlay) (n int) {
		for k := range ov.writes {
			if strings.HasPrefix(k, prefixBillByAcc) || strings.HasPrefix(k, prefixBillByPar) {
				n++
			}
		}
		return n
	}
	txn := f.db.NewTransaction(true)
	defer txn.Discard()
	for _, tt := range []struct {
		name string
		read bool
		move func(*domain.Bill)
		want int
	}{
		{"read, written unchanged", true, func(*domain.Bill) {}, 0},
		{"read, its principal changed", true, func(b *domain.Bill) { b.Principal = domain.MustMoney("1.00") }, 0},
		{"not read", false, func(*domain.Bill) {}, 2},
		{"moved to another account", true, func(b *domain.Bill) { b.Account = "100102" }, 2},
		{"moved to another parcel", true, func(b *domain.Bill) { b.Parcel = "0601-141-2002" }, 2},
		{"billed on another day", true, func(b *domain.Bill) { b.BilledOn = b.BilledOn.AddDays(1) }, 2},
	} {
		ov := &overlay{txn: txn, writes: map[string][]byte{}, read: map[string][]byte{}, bills: map[string]decodedBill{}}
		b, ok, err := ov.Bill("B1")
		if !ok || err != nil {
			t.Fatalf("%s: B1: %v %v", tt.name, ok, err)
		}
		if !tt.read {
			ov.bills = map[string]decodedBill{}
		}
		tt.move(&b)
		if err := ov.PutBill(b); err != nil {
			t.Fatal(err)
		}
		if got := lookups(ov); got != tt.want {
			t.Errorf("%s: %d lookup keys written, want %d", tt.name, got, tt.want)
		}
	}
	// Paid, B1 is still found by its account and its parcel.
	txn.Discard()
	if res := f.ApplyBatch(logsOf(t, 4, payCommand("p1", 2, "B1", "10.00", "2026-04-10T10:00")))[0].(domain.Result); res.Error != nil {
		t.Fatal(res.Error)
	}
	for name, list := range map[string]func() ([]domain.Bill, error){
		"account": func() ([]domain.Bill, error) { return f.BillsByAccount("100101") },
		"parcel":  func() ([]domain.Bill, error) { return f.BillsByParcel("0601-141-2001") },
	} {
		bills, err := list()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(bills, func(b domain.Bill) bool { return b.ID == "B1" && len(b.Payments) == 1 }) {
			t.Errorf("by %s: B1 paid not listed: %+v", name, bills)
		}
	}
}
