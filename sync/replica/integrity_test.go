package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
)

func logsOf(t *testing.T, first uint64, cmds ...domain.Command) []*raft.Log {
	t.Helper()
	var out []*raft.Log
	for i, c := range cmds {
		data, err := domain.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &raft.Log{Index: first + uint64(i), Term: 1, Type: raft.LogCommand, Data: data})
	}
	return out
}

// manyBills is a seed of 200 bills of 100.00 on one account, as log
// entry 1.
func manyBills(t *testing.T) []*raft.Log {
	t.Helper()
	seed := seedCommand()
	seed.Payload.(*domain.SeedDemo).Bills = nil
	for i := range 200 {
		seed.Payload.(*domain.SeedDemo).Bills = append(seed.Payload.(*domain.SeedDemo).Bills, domain.Bill{ID: fmt.Sprintf("M%03d", i), Account: "100101", Parcel: "0601-141-2001",
			Description: "water", BilledOn: domain.MustDate("2026-10-20"), Principal: domain.MustMoney("100.00")})
	}
	return logsOf(t, 1, seed)
}

// payments returns n payments of 0.01 spread over the bills of manyBills,
// with log indexes from first.
func payments(t *testing.T, first uint64, n int) []*raft.Log {
	t.Helper()
	var cmds []domain.Command
	for i := range n {
		idx := first + uint64(i)
		cmds = append(cmds, payCommand(fmt.Sprintf("pay-%d", idx), idx, fmt.Sprintf("M%03d", idx%200), "0.01", "2026-10-25T10:00"))
	}
	return logsOf(t, first, cmds...)
}

func snapshotBytes(t *testing.T, snap raft.FSMSnapshot) []byte {
	t.Helper()
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()
	return sink.Bytes()
}

// TestSnapshotHoldsTheStateAtSnapshotTime: raft records a snapshot at
// the index applied when it calls Snapshot; the bytes Persist writes later,
// while applies go on, must be the state at that index and no other. (A
// snapshot streamed by Badger's Backup was read range by range at
// different moments: a follower that installed one held a different
// ledger at the same applied index.)
func TestSnapshotHoldsTheStateAtSnapshotTime(t *testing.T) {
	src := openFSM(t, t.TempDir())
	defer src.Close()
	src.ApplyBatch(append(manyBills(t), payments(t, 2, 52)...))
	want := stateHash(t, src)
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	src.ApplyBatch(payments(t, 54, 50)) // applies after Snapshot, before Persist
	data := snapshotBytes(t, snap)

	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	if err := dst.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	if got := stateHash(t, dst); got != want {
		t.Fatalf("snapshot holds state %s, want the state at Snapshot time %s", got, want)
	}
	if dst.Applied() != 53 {
		t.Fatalf("applied after restore = %d, want 53", dst.Applied())
	}
}

// TestSnapshotsUnderConcurrentAppliesAreConsistent takes snapshots of a
// store spread over many tables while payments apply, and checks each one
// the way a follower uses it: restored, then fed the rest of the log, it
// must reach exactly the source's state.
func TestSnapshotsUnderConcurrentAppliesAreConsistent(t *testing.T) {
	src := openFSM(t, t.TempDir())
	defer src.Close()
	all := append(manyBills(t), payments(t, 2, 3000)...)
	src.ApplyBatch(all[:1001])
	if err := src.db.Flatten(1); err != nil { // several tables, several Badger stream ranges
		t.Fatal(err)
	}
	var snaps [][]byte
	var wg sync.WaitGroup
	next := 1001
	for next < len(all) {
		snap, err := src.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink memSink
			if err := snap.Persist(&sink); err != nil {
				t.Error(err)
			}
			snap.Release()
			snaps = append(snaps, sink.Bytes())
		}()
		end := min(next+250, len(all))
		for _, l := range all[next:end] {
			src.ApplyBatch([]*raft.Log{l})
		}
		next = end
		wg.Wait()
	}
	want := stateHash(t, src)
	for i, data := range snaps {
		dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
		if err := dst.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
			t.Fatal(err)
		}
		dst.ApplyBatch(all) // raft replays from the snapshot's index; the FSM skips what it holds
		if got := stateHash(t, dst); got != want {
			t.Errorf("snapshot %d (applied %d): restored and replayed to %s, want %s", i, dst.Applied(), got, want)
		}
		dst.Close()
	}
}

// bigBills returns a create_bills command of n bills on the seed's
// account, each with a long description: a few of them overflow one
// Badger transaction together.
func bigBills(id string, seq uint64, n int) domain.Command {
	c := domain.Command{ID: id, Kind: domain.KindCreateBills, At: domain.NewDateTime(domain.MustDate("2026-03-05"), 9, 0, 0), Node: "n1", Seq: seq, Actor: "clerk",
		Payload: &domain.CreateBills{Source: "test"}}
	for i := range n {
		c.Payload.(*domain.CreateBills).Bills = append(c.Payload.(*domain.CreateBills).Bills, domain.NewBill{
			ID: fmt.Sprintf("%s-%04d", id, i), Account: "100101", Parcel: "0601-141-2001",
			Description: strings.Repeat("weed cutting ", 20), BilledOn: domain.MustDate("2026-03-05"), Principal: domain.MustMoney("10.00"),
		})
	}
	return c
}

// TestABatchSplitsOnlyBetweenEntries: a batch too big for one Badger
// transaction is committed in several, each holding whole entries with
// their applied index and journal link; a crash between two commits
// leaves whole entries only, and raft's replay completes the rest.
func TestABatchSplitsOnlyBetweenEntries(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	f.ApplyBatch(testLog(t)[:1])
	var cmds []domain.Command
	for i := range 6 {
		cmds = append(cmds, bigBills(fmt.Sprintf("imp%d", i), uint64(10+i), 1500))
	}
	batch := logsOf(t, 4, cmds...)
	commits := 0
	f.beforeCommit = func() {
		commits++
		if commits == 2 {
			panic("crash between two commits of one batch")
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("the batch fit in one transaction; make it bigger")
			}
		}()
		f.ApplyBatch(batch)
	}()
	f.db.Close() // the process died; its open transaction is gone with it

	f = openFSM(t, dir)
	applied := f.Applied()
	if applied <= 3 || applied >= batch[len(batch)-1].Index {
		t.Fatalf("applied %d after the crash: want some but not all entries of the batch (4..%d)", applied, batch[len(batch)-1].Index)
	}
	for i, l := range batch {
		_, ok, err := f.CommandResult(cmds[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		bills := 0
		for j := range 1500 {
			if _, err := f.Bill(fmt.Sprintf("imp%d-%04d", i, j)); err == nil {
				bills++
			}
		}
		whole := l.Index <= applied
		if ok != whole || (whole && bills != 1500) || (!whole && bills != 0) {
			t.Fatalf("entry %d (applied %d): command recorded %v, %d of 1500 bills: a half-applied entry", l.Index, applied, ok, bills)
		}
	}
	if _, err := f.VerifyJournal(); err != nil {
		t.Fatal(err)
	}
	f.ApplyBatch(batch) // raft replays the entries after the applied index
	fresh := openFSM(t, t.TempDir())
	defer fresh.Close()
	fresh.ApplyBatch(testLog(t)[:1])
	for _, l := range batch {
		fresh.ApplyBatch([]*raft.Log{l})
	}
	if stateHash(t, f) != stateHash(t, fresh) {
		t.Fatal("after the replay the state differs from entries applied one by one")
	}
	f.Close()
}

// TestUndecodableEntryHaltsTheFSM: a committed entry this build cannot
// decode stops the FSM there, loudly, instead of skipping it; nothing
// after it is applied, no snapshot is taken (raft would compact what this
// node has not applied), and a build that can decode it applies it after
// a restart.
func TestUndecodableEntryHaltsTheFSM(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	logs := testLog(t)
	f.ApplyBatch(logs)
	before := stateHash(t, f)
	last := logs[len(logs)-1].Index
	future := []byte(`{"v":1,"id":"x1","kind":"room_tax_return","at":"2026-05-01T10:00","node":"n1","seq":9,"actor":"op","room_tax_return":{}}`)
	tail := append([]*raft.Log{{Index: last + 1, Term: 1, Type: raft.LogCommand, Data: append([]byte{1}, future...)}},
		payments(t, last+2, 1)...)
	out := f.ApplyBatch(tail)
	for i, o := range out {
		if r := o.(domain.Result); r.Error == nil || !strings.Contains(r.Error.Error(), "stopped applying the ledger at log index") {
			t.Fatalf("entry %d after the undecodable one: %+v, want the halt", i, r)
		}
	}
	if err := f.Halted(); err == nil || !strings.Contains(err.Error(), fmt.Sprint(last+1)) {
		t.Fatalf("Halted() = %v", err)
	}
	if f.Applied() != last || stateHash(t, f) != before {
		t.Fatalf("a halted FSM applied something: applied %d, want %d", f.Applied(), last)
	}
	if _, err := f.Snapshot(); err == nil {
		t.Fatal("a halted FSM took a snapshot")
	}
	f.Close()

	// After an upgrade the entry decodes (here: the same index carries a
	// kind this build knows) and everything applies in order.
	f = openFSM(t, dir)
	defer f.Close()
	if f.Halted() != nil {
		t.Fatal("halted again before meeting the entry")
	}
	upgraded := append(logsOf(t, last+1, payCommand("late", 20, "B3", "1.00", "2026-10-25T10:00")), tail[1:]...)
	f.ApplyBatch(upgraded)
	if r, ok, _ := f.CommandResult("late"); !ok || r.Error != nil {
		t.Fatalf("the entry at the halt's index after the upgrade: %+v, %v", r, ok)
	}
	if f.Applied() != last+2 {
		t.Fatalf("applied %d, want %d", f.Applied(), last+2)
	}
}

// TestASecondDeliveryUnderAnotherNumberFindsThePostedReceipt: a client
// retried a payment at a second node, which queued it under its own
// provisional number; the ledger posts it once, and that number finds the
// posted receipt.
func TestASecondDeliveryUnderAnotherNumberFindsThePostedReceipt(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	first := payCommand("p1", 2, "B1", "40.00", "2026-04-10T10:00")
	again := first
	again.Node, again.Seq = "n2", 7
	out := f.ApplyBatch(append(testLog(t)[:1], logsOf(t, 4, first, again)...))
	r1, r2 := out[1].(domain.Result), out[2].(domain.Result)
	if r1.Receipt == nil || r2.Receipt == nil || r2.Receipt.Number != r1.Receipt.Number {
		t.Fatalf("second delivery answered %+v, want the first receipt %+v", r2.Receipt, r1.Receipt)
	}
	rc, err := f.Receipt(again.ReceiptNumber())
	if err != nil || rc.Number != first.ReceiptNumber() {
		t.Fatalf("receipt %s: %+v, %v; want the posted %s", again.ReceiptNumber(), rc, err, first.ReceiptNumber())
	}
	if f.MaxSeq("n2") != 7 {
		t.Fatalf("n2's sequence %d was not recorded: a rebuilt n2 could hand it out again", f.MaxSeq("n2"))
	}
	if b, _ := f.Bill("B1"); len(b.Payments) != 1 {
		t.Fatalf("B1 holds %d payments, want 1", len(b.Payments))
	}
}

// TestLedgerFormatGatesNewKinds: a kind newer than the ledger's format is
// refused on every replica alike until the format is raised, and the raise
// is kept across a restart.
func TestLedgerFormatGatesNewKinds(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	var digests []uint64
	f.onDigest = func(i uint64, _ string) { digests = append(digests, i) }
	cp := domain.Command{ID: "cp1", Kind: domain.KindCheckpoint, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 9, 0, 0), Node: "n1", Payload: &domain.Checkpoint{}}
	raise := domain.Command{ID: "lf2", Kind: domain.KindLedgerFormat, At: cp.At, Node: "n1", Payload: &domain.LedgerFormatChange{To: 2}}
	cp2 := cp
	cp2.ID = "cp2"
	out := f.ApplyBatch(logsOf(t, 1, cp, raise, cp2))
	if r := out[0].(domain.Result); r.Error == nil || r.Error.Code != domain.EUNAVAILABLE {
		t.Fatalf("checkpoint at format 1: %+v, want refused", r)
	}
	if r := out[1].(domain.Result); r.Error != nil || f.Format() != 2 {
		t.Fatalf("raise: %+v, format %d", r, f.Format())
	}
	if r := out[2].(domain.Result); r.Error != nil {
		t.Fatalf("checkpoint at format 2: %+v", r)
	}
	f.Close() // waits for the checkpoint's hash
	if len(digests) != 1 || digests[0] != 3 {
		t.Fatalf("checkpoint hashes at %v, want [3]", digests)
	}
	f = openFSM(t, dir)
	defer f.Close()
	if f.Format() != 2 {
		t.Fatalf("format after reopen = %d", f.Format())
	}
	tooNew := raise
	tooNew.ID, tooNew.Payload = "lf9", &domain.LedgerFormatChange{To: domain.LedgerFormat + 1}
	if r := f.ApplyBatch(logsOf(t, 4, tooNew))[0].(domain.Result); r.Error == nil {
		t.Fatal("a format newer than the build was taken")
	}
}

// TestCheckpointHashIsTheStateAtItsIndex: the hash a checkpoint records is
// the state right after it, even when entries follow in the same batch.
func TestCheckpointHashIsTheStateAtItsIndex(t *testing.T) {
	f := openFSM(t, t.TempDir())
	raise := domain.Command{ID: "lf2", Kind: domain.KindLedgerFormat, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 9, 0, 0), Node: "n1", Payload: &domain.LedgerFormatChange{To: 2}}
	f.ApplyBatch(append(manyBills(t), logsOf(t, 2, raise)...))
	cp := domain.Command{ID: "cp", Kind: domain.KindCheckpoint, At: raise.At, Node: "n1", Payload: &domain.Checkpoint{}}
	f.ApplyBatch(append(payments(t, 3, 12), logsOf(t, 15, cp)...))
	want := stateHash(t, f)
	f.ApplyBatch(payments(t, 16, 10))
	f.Close()
	ds := f.Digests()
	if len(ds) != 1 || ds[0].Index != 15 || ds[0].Hash != want {
		t.Fatalf("digests %+v, want index 15 hash %s", ds, want)
	}
}

// TestInterruptedRestoreIsFinishedAtStart: a node that stopped half way
// through restoring a snapshot restores its latest snapshot again when it
// starts; without one to restore, it refuses to start rather than run on
// half a ledger.
func TestInterruptedRestoreIsFinishedAtStart(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{ID: "n1", Dir: dir, Params: params, Bootstrap: true}
	n, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The leader's own first entries (its format raise, the parameters)
	// go in before the seed, so that the snapshot below holds the whole
	// log and the state right after a restore is the state wanted.
	for deadline := time.Now().Add(10 * time.Second); n.FSM().Format() < domain.LedgerFormat || !n.FSM().Seeded(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the node did not raise its format and seed its parameters: format %d, seeded %v", n.FSM().Format(), n.FSM().Seeded())
		}
	}
	seedNode(t, n)
	if err := n.Raft().Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	want, _ := n.FSM().StateHash()
	n.Close()
	if err := writeMarker(restoreMarker(filepath.Join(dir, "state"))); err != nil {
		t.Fatal(err)
	}
	n, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n.FSM().Restores() != 1 || n.FSM().Incomplete() {
		t.Fatalf("restores %d, incomplete %v: the interrupted restore was not finished", n.FSM().Restores(), n.FSM().Incomplete())
	}
	if got, _ := n.FSM().StateHash(); got != want {
		t.Fatalf("state after the finished restore %s, want %s", got, want)
	}
	if _, err := os.Stat(restoreMarker(filepath.Join(dir, "state"))); !os.IsNotExist(err) {
		t.Fatalf("restore marker left behind: %v", err)
	}
	n.Close()

	// Stopped right after the old state was dropped: the store is empty
	// (but marked, so it opens) and the restore is finished at start.
	f := openFSM(t, filepath.Join(dir, "state"))
	if err := writeMarker(restoreMarker(filepath.Join(dir, "state"))); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DropAll(); err != nil {
		t.Fatal(err)
	}
	if err := badgerstore.Mark(f.db); err != nil {
		t.Fatal(err)
	}
	f.Close()
	n, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := n.FSM().StateHash(); got != want {
		t.Fatalf("state after the dropped-then-finished restore %s, want %s", got, want)
	}
	n.Close()

	empty := t.TempDir()
	cfg.Dir = empty
	n, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.Close()
	writeMarker(restoreMarker(filepath.Join(empty, "state")))
	if n, err = Open(cfg); err == nil {
		n.Close()
		t.Fatal("a node with a partial ledger and no snapshot started")
	} else if !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("error %q does not say the ledger is incomplete", err)
	}
}

// TestBatchAccountingMatchesBadger feeds the batch entries that bring a
// transaction to within a few bytes of Badger's limit, on either side:
// the batch must commit before the entry that would not fit, never let
// Badger refuse a write half way through an entry.
func TestBatchAccountingMatchesBadger(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	limit := f.db.MaxBatchSize()
	for delta := int64(-40); delta <= 40; delta++ {
		func() {
			b := f.newBatch()
			defer b.discard()
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("delta %d: %v", delta, r)
				}
			}()
			// One entry of five writes takes all but about 1 KiB of the
			// transaction (values under Badger's value threshold, so that
			// they count whole); the next, of three writes, lands around
			// the limit.
			quarter := (limit - txnBaseSize - 1024 - 5*12 - 5*10) / 4
			first := []kv{{[]byte("x/b0000000"), nil}}
			for i := range 4 {
				first = append(first, kv{[]byte(fmt.Sprintf("x/a%07d", i)), make([]byte, quarter)})
			}
			first[4].v = make([]byte, limit-txnBaseSize-1024-5*12-5*10-3*quarter)
			b.add(first)
			tail := 1024 + delta - 3*12 - 3*8
			b.add([]kv{{[]byte("x/c0000000"), make([]byte, tail/2)}, {[]byte("x/d0000000"), make([]byte, tail-tail/2)}, {[]byte("x/e0000000"), []byte{}}})
			b.commit()
		}()
	}
}

// TestSnapshotOfAnEarlierReleaseRestores: a snapshot in the format of
// earlier releases (a Badger backup stream, "VHSNAP1"), as a leader not
// yet upgraded sends it, still restores.
func TestSnapshotOfAnEarlierReleaseRestores(t *testing.T) {
	src := openFSM(t, t.TempDir())
	defer src.Close()
	src.ApplyBatch(testLog(t))
	var body bytes.Buffer
	body.Write(snapshotMagicV1)
	if _, err := src.db.Backup(&body, 0); err != nil {
		t.Fatal(err)
	}
	framed := append([]byte(nil), body.Bytes()...)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(body.Len()-len(snapshotMagicV1)))
	sum := sha256.Sum256(body.Bytes())
	framed = append(append(framed, n[:]...), sum[:]...)

	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	if err := dst.Restore(io.NopCloser(bytes.NewReader(framed))); err != nil {
		t.Fatal(err)
	}
	if stateHash(t, dst) != stateHash(t, src) || dst.Applied() != src.Applied() {
		t.Fatal("a VHSNAP1 snapshot restored to a different state")
	}
}

// TestLedgerRefusesAReusedCommandID: a command id that arrives again (from
// another node) with another request is refused by the ledger, on every
// replica alike, and the first request keeps its record; the same request
// again is an alias of the first receipt.
func TestLedgerRefusesAReusedCommandID(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	raise := domain.Command{ID: "lf2", Kind: domain.KindLedgerFormat, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 9, 0, 0), Node: "n1", Payload: &domain.LedgerFormatChange{To: 2}}
	first := payCommand("client-42", 2, "B1", "10.00", "2026-04-10T10:00")
	other := payCommand("client-42", 7, "B1", "500.00", "2026-04-10T10:05")
	other.Node = "n2"
	out := f.ApplyBatch(append(testLog(t)[:1], logsOf(t, 4, raise, first, other)...))
	if r := out[3].(domain.Result); r.Error == nil || r.Error.Code != domain.ECONFLICT {
		t.Fatalf("reused id with another amount: %+v", r)
	}
	if b, _ := f.Bill("B1"); len(b.Payments) != 1 || !b.Payments[0].Amount.Equal(domain.MustMoney("10.00")) {
		t.Fatalf("B1 payments %+v, want the first only", b.Payments)
	}
	if _, err := f.Receipt(other.ReceiptNumber()); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the refused request's number found a receipt: %v", err)
	}
}

// TestCommandSizeLimitIsTheLedgers: whether a command writes too much is
// decided by the ledger's own limit, not by the local store's options: a
// node whose Badger holds eight times more refuses exactly what a Pi
// refuses (otherwise the two would diverge on that command), and a store
// that holds less than the limit is not opened at all.
func TestCommandSizeLimitIsTheLedgers(t *testing.T) {
	big, err := OpenFSM(badgerstore.PiOptions(t.TempDir()).WithMemTableSize(64<<20), params, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	pi := openFSM(t, t.TempDir())
	defer pi.Close()
	if big.db.MaxBatchSize() <= pi.db.MaxBatchSize() {
		t.Fatalf("the larger store's transactions (%d) are not larger than the Pi's (%d)", big.db.MaxBatchSize(), pi.db.MaxBatchSize())
	}
	for _, n := range []int{ledgerMaxCommandWrites - 100, ledgerMaxCommandWrites} {
		ov := &overlay{writes: map[string][]byte{}}
		for i := range n {
			ov.writes[fmt.Sprintf("x/%08d", i)] = []byte("v")
		}
		if got, want := big.tooBig(ov, 100), pi.tooBig(ov, 100); got != want {
			t.Fatalf("%d writes: too big on the large store %v, on the Pi %v", n, got, want)
		}
		if want := n >= ledgerMaxCommandWrites-16; pi.tooBig(ov, 100) != want {
			t.Fatalf("%d writes: tooBig %v, want %v", n, !want, want)
		}
	}
	// Bytes as well as entries.
	ov := &overlay{writes: map[string][]byte{"x/1": make([]byte, ledgerMaxCommandBytes)}}
	if !big.tooBig(ov, 100) {
		t.Fatal("a command writing more than the ledger's byte limit fits on a store with larger transactions")
	}

	if f, err := OpenFSM(badgerstore.PiOptions(t.TempDir()).WithMemTableSize(4<<20).WithValueThreshold(64<<10), params, quietLogger()); err == nil {
		f.Close()
		t.Fatal("a state store whose transactions hold less than one command may write was opened")
	} else if !strings.Contains(err.Error(), "less than one command may write") {
		t.Fatalf("error %q does not say why", err)
	}
}
