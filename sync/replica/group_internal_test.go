package replica

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// groupLog is a group entry at index of cmds, as a ledger without
// certificates reads it (the signature is not checked there).
func groupLog(t *testing.T, index uint64, cmds ...domain.Command) *raft.Log {
	t.Helper()
	var data [][]byte
	roles := make([]string, len(cmds))
	for _, c := range cmds {
		d, err := domain.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, d)
	}
	return &raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: encodeGroup(data, roles, [32]byte{1}, nil, []byte("sig"))}
}

// crashApplying applies group in f as a process that dies before the
// second commit of its batch, and closes f's store as that process leaves
// it; whole says why the test fails when the group commits whole.
func crashApplying(t *testing.T, f *FSM, group *raft.Log, whole string) {
	t.Helper()
	commits := 0
	f.beforeCommit = func() {
		commits++
		if commits == 2 {
			panic("crash between two commits of one group")
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal(whole)
			}
		}()
		f.ApplyBatch([]*raft.Log{group})
	}()
	f.db.Close()
}

// TestGroupAppliesAsEachAlone: the commands of a group give the results,
// the bills and the journal that the same commands give as entries of
// their own: two payments of one bill in one group (the second sees the
// first), one the rules refuse, and a second delivery of an earlier one.
func TestGroupAppliesAsEachAlone(t *testing.T) {
	cmds := []domain.Command{
		payCommand("g1", 2, "B1", "40.00", "2026-04-10T10:00"),
		payCommand("g2", 3, "B1", "70.00", "2026-05-02T16:00"),
		payCommand("g3", 4, "B2", "10.00", "2026-11-20T09:00"), // after tax_roll_on: refused
		payCommand("g1", 2, "B1", "40.00", "2026-04-10T10:00"), // a second delivery
	}
	seed := testLog(t)[:1]
	grouped := openFSM(t, t.TempDir())
	defer grouped.Close()
	grouped.ApplyBatch(seed)
	out := grouped.ApplyBatch([]*raft.Log{groupLog(t, 4, cmds...)})
	rs, ok := out[0].(groupResults)
	if !ok || len(rs) != len(cmds) {
		t.Fatalf("the group's response is %#v; want one result a command", out[0])
	}
	alone := openFSM(t, t.TempDir())
	defer alone.Close()
	alone.ApplyBatch(seed)
	for i, c := range cmds {
		res := alone.ApplyBatch(logsOf(t, uint64(4+i), c))[0].(domain.Result)
		got := rs[i]
		if got.CommandID != res.CommandID || (got.Error == nil) != (res.Error == nil) || got.Receipt == nil != (res.Receipt == nil) {
			t.Fatalf("command %d in a group: %+v; alone: %+v", i, got, res)
		}
		if got.Receipt != nil && (got.Receipt.Number != res.Receipt.Number || !got.Receipt.Amount.Equal(res.Receipt.Amount) || !got.Receipt.Balance.Equal(res.Receipt.Balance)) {
			t.Fatalf("command %d: receipt %+v in a group, %+v alone", i, got.Receipt, res.Receipt)
		}
	}
	if rs[2].Error == nil || rs[0].Error != nil || rs[1].Error != nil || rs[0].Receipt == nil || rs[1].Receipt == nil {
		t.Fatalf("outcomes %v, %v, %v: want the third refused alone", rs[0].Error, rs[1].Error, rs[2].Error)
	}
	for _, id := range []string{"B1", "B2"} {
		g, err := grouped.Bill(id)
		if err != nil {
			t.Fatal(err)
		}
		a, err := alone.Bill(id)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", a) {
			t.Fatalf("bill %s: %+v after the group, %+v after the entries alone", id, g, a)
		}
	}
	var links []string
	grouped.Journal(func(e JournalEntry) error {
		if e.Index == 4 {
			links = append(links, e.CommandID+" "+e.Outcome)
		}
		return nil
	})
	if want := []string{"g1 applied", "g2 applied", "g3 refused"}; fmt.Sprint(links) != fmt.Sprint(want) {
		t.Fatalf("journal at the group's index: %q; want %q", links, want)
	}
	if _, err := grouped.VerifyJournal(); err != nil {
		t.Fatal(err)
	}
	if grouped.Applied() != 4 {
		t.Fatalf("applied %d after the group at 4", grouped.Applied())
	}
	// Raft hands the entry again after a restart: the same answers,
	// nothing applied twice.
	again := grouped.ApplyBatch([]*raft.Log{groupLog(t, 4, cmds...)})[0].(groupResults)
	for i := range rs {
		if again[i].CommandID != rs[i].CommandID || (again[i].Error == nil) != (rs[i].Error == nil) {
			t.Fatalf("replayed command %d: %+v; first %+v", i, again[i], rs[i])
		}
	}
	if _, err := grouped.VerifyJournal(); err != nil {
		t.Fatal(err)
	}
}

// TestGroupResumesAfterACrash: a group too big for one transaction commits
// in parts; a node that dies between two parts goes on, at its next start,
// from the first command it had not committed: every command applied and
// journaled once, the state that of a node that never stopped.
func TestGroupResumesAfterACrash(t *testing.T) {
	dir := t.TempDir()
	f := openFSM(t, dir)
	f.ApplyBatch(testLog(t)[:1])
	var cmds []domain.Command
	for i := range 6 {
		cmds = append(cmds, bigBills(fmt.Sprintf("grp%d", i), uint64(10+i), 1500))
	}
	group := groupLog(t, 4, cmds...)
	crashApplying(t, f, group, "the group fit in one transaction; make it bigger")

	f = openFSM(t, dir)
	if f.Applied() != 3 {
		t.Fatalf("applied %d after a crash part-way through the group at 4; want 3", f.Applied())
	}
	done := 0
	for _, c := range cmds {
		if _, ok, _ := f.CommandResult(c.ID); ok {
			done++
		}
	}
	if done == 0 || done == len(cmds) {
		t.Fatalf("%d of %d commands applied before the crash: the test wants a group stopped part-way", done, len(cmds))
	}
	f.ApplyBatch([]*raft.Log{group})
	if f.Applied() != 4 {
		t.Fatalf("applied %d after the group was handed again", f.Applied())
	}
	if _, err := f.VerifyJournal(); err != nil {
		t.Fatal(err)
	}
	links := 0
	f.Journal(func(e JournalEntry) error {
		if e.Index == 4 {
			links++
		}
		return nil
	})
	if links != len(cmds) {
		t.Fatalf("%d journal links at the group's index; want one a command (%d)", links, len(cmds))
	}
	fresh := openFSM(t, t.TempDir())
	defer fresh.Close()
	fresh.ApplyBatch(testLog(t)[:1])
	fresh.ApplyBatch([]*raft.Log{group})
	if stateHash(t, f) != stateHash(t, fresh) {
		t.Fatal("the group resumed after a crash left another state than the group applied whole")
	}
	f.Close()
}

// FuzzParseGroup: whatever an entry holds, parseGroup never panics, and
// what it reads is what encodeGroup lays out again.
func FuzzParseGroup(f *testing.F) {
	f.Add(encodeGroup([][]byte{[]byte("\x01{}")}, []string{""}, [32]byte{}, nil, []byte("s")))
	f.Add(encodeGroup([][]byte{[]byte("a"), []byte("bc")}, []string{"clerk", ""}, [32]byte{7}, []byte("cert"), []byte("sig")))
	f.Add(append(bytes.Clone(groupMagic), 0x40))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := parseGroup(data)
		if err != nil {
			return
		}
		if again := encodeGroup(g.commands, g.roles, g.keySum, g.cert, g.sig); !bytes.Equal(again, data) {
			t.Fatalf("parsed %x, laid out again as %x", data, again)
		}
	})
}

// TestGroupWithARefusalResumesAfterACrash: in a ledger that checks
// signatures, a group's command that names another node is refused alone
// and journaled without a command record; when the node dies after that
// refusal committed and before the rest of the group did, the group goes
// on from its mark at the next start, so the refusal is not journaled
// twice and the state is that of a node that never stopped.
func TestGroupWithARefusalResumesAfterACrash(t *testing.T) {
	now := time.Now()
	ca, err := pki.NewCA("Belleville", now)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ca.Issue("n1", pki.RoleClerk, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	open := func(dir string) *FSM {
		f := openFSM(t, dir)
		f.Trust(ca.Certificate(), id.Cluster().ID)
		return f
	}
	raise, err := domain.EncodeCommand(domain.Command{ID: "format", Kind: domain.KindLedgerFormat, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 8, 0, 0), Node: "n1", Actor: "operator",
		Payload: &domain.LedgerFormatChange{To: domain.GroupFormat}})
	if err != nil {
		t.Fatal(err)
	}
	seedData, err := domain.EncodeCommand(seedCommand())
	if err != nil {
		t.Fatal(err)
	}
	seed, err := sealEntry(id, seedData, "", true)
	if err != nil {
		t.Fatal(err)
	}
	other := payCommand("g0", 2, "B1", "5.00", "2026-04-10T09:00")
	other.Node = "n2"
	cmds := []domain.Command{
		other,
		payCommand("g1", 3, "B1", "40.00", "2026-04-10T10:00"),
		payCommand("g2", 4, "B1", "70.00", "2026-05-02T16:00"),
		payCommand("g3", 5, "B2", "10.00", "2026-06-20T09:00"),
	}
	var data [][]byte
	for _, c := range cmds {
		d, err := domain.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, d)
	}
	sealed, err := sealGroup(id, data, make([]string, len(cmds)), false)
	if err != nil {
		t.Fatal(err)
	}
	head := []*raft.Log{
		{Index: 1, Term: 1, Type: raft.LogCommand, Data: raise},
		{Index: 2, Term: 1, Type: raft.LogCommand, Data: seed},
	}
	group := &raft.Log{Index: 3, Term: 1, Type: raft.LogCommand, Data: sealed}

	dir := t.TempDir()
	f := open(dir)
	f.ApplyBatch(head)
	if f.Format() != domain.GroupFormat || f.Applied() != 2 {
		t.Fatalf("format %d, applied %d: the ledger did not reach the group format", f.Format(), f.Applied())
	}
	f.batchBytes = 1 // a commit before every command but the first
	crashApplying(t, f, group, "the group committed whole; the test wants it split")

	f = open(dir)
	defer f.Close()
	if f.Applied() != 2 {
		t.Fatalf("applied %d after a crash part-way through the group at 3", f.Applied())
	}
	rs, ok := f.ApplyBatch([]*raft.Log{group})[0].(groupResults)
	if !ok || len(rs) != len(cmds) {
		t.Fatalf("the resumed group answered %#v", rs)
	}
	if rs[0].Receipt != nil {
		t.Fatalf("the command naming another node: %+v; want no receipt", rs[0])
	}
	for i, r := range rs[1:] {
		if r.Error != nil || r.Receipt == nil {
			t.Fatalf("command %d of the group: %+v; want posted", i+1, r)
		}
	}
	var links []string
	f.Journal(func(e JournalEntry) error {
		if e.Index == 3 {
			links = append(links, e.CommandID+" "+e.Outcome)
		}
		return nil
	})
	if want := []string{"g0 refused", "g1 applied", "g2 applied", "g3 applied"}; fmt.Sprint(links) != fmt.Sprint(want) {
		t.Fatalf("journal at the group's index: %q; want %q", links, want)
	}
	if _, err := f.VerifyJournal(); err != nil {
		t.Fatal(err)
	}
	whole := open(t.TempDir())
	defer whole.Close()
	whole.ApplyBatch(head)
	whole.ApplyBatch([]*raft.Log{group})
	if stateHash(t, f) != stateHash(t, whole) {
		t.Fatal("the group resumed after a crash left another state than the group applied whole")
	}
}

// FuzzParseEnvelope: whatever an entry holds, parseEnvelope never panics,
// and a signed entry it reads has the fields it lays out.
func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte{})
	f.Add(append(bytes.Clone(entryMagic), 1, 'x', 32))
	f.Add(append(append(bytes.Clone(entryMagic), 3, 1, '{', '}', 32), make([]byte, 32)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parseEnvelope(data)
		if err != nil {
			return
		}
		if len(e.command) == 0 || len(e.sig) == 0 || len(e.role) > 64 {
			t.Fatalf("parsed a malformed entry as %+v", e)
		}
	})
}

// booksOpenSetup is a ledger at this release's format with the seed's
// bills and a chart that opens the books, as log entries 1 to 3.
func booksOpenSetup() []domain.Command {
	at := domain.NewDateTime(domain.MustDate("2026-03-01"), 8, 0, 0)
	return []domain.Command{
		{ID: "lf", Kind: domain.KindLedgerFormat, At: at, Node: "n1", Payload: &domain.LedgerFormatChange{To: domain.LedgerFormat}},
		seedCommand(),
		{ID: "chart", Kind: domain.KindChart, At: at, Node: "n1", Actor: "admin", Payload: &domain.ChartChange{Accounts: []domain.ChartAccount{
			{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
			{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
		}}},
	}
}

// TestGroupPostsEachPaymentToTheBooks: with the books open, the payments
// of one group on one day each post an entry of their own to the books,
// told apart under the group's one raft index (freeEntryID), and the books
// come out as they do for the same payments as entries of their own.
func TestGroupPostsEachPaymentToTheBooks(t *testing.T) {
	setup := booksOpenSetup()
	pays := []domain.Command{
		payCommand("g1", 2, "B1", "10.00", "2026-04-10T10:00"),
		payCommand("g2", 3, "B2", "20.00", "2026-04-10T10:05"),
		payCommand("g3", 4, "B1", "30.00", "2026-04-10T10:10"),
	}
	books := func(f *FSM) (ids []string, lines string) {
		t.Helper()
		err := f.List(domain.CollectionBookEntries, "", func(id string, raw []byte) error {
			var e domain.BookEntry
			if err := json.Unmarshal(raw, &e); err != nil {
				return err
			}
			if e.Kind == domain.KindPayBill {
				ids = append(ids, id)
				lines += fmt.Sprintf("%s %s %v\n", e.CommandID, e.Date, e.Lines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids, lines
	}
	grouped := openFSM(t, t.TempDir())
	defer grouped.Close()
	grouped.ApplyBatch(logsOf(t, 1, setup...))
	if rs := grouped.ApplyBatch([]*raft.Log{groupLog(t, 4, pays...)})[0].(groupResults); rs[0].Error != nil || rs[1].Error != nil || rs[2].Error != nil {
		t.Fatalf("the group's payments: %v, %v, %v", rs[0].Error, rs[1].Error, rs[2].Error)
	}
	ids, lines := books(grouped)
	if want := []string{"2026-04-10/000000000004", "2026-04-10/000000000004.0002", "2026-04-10/000000000004.0003"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("the group's book entries: %q; want %q", ids, want)
	}
	alone := openFSM(t, t.TempDir())
	defer alone.Close()
	alone.ApplyBatch(logsOf(t, 1, setup...))
	alone.ApplyBatch(logsOf(t, 4, pays...))
	if _, want := books(alone); lines != want {
		t.Fatalf("the group's lines:\n%s\nthe same payments alone:\n%s", lines, want)
	}
}

// TestOneTransactionReadsWhatItsEntriesWrote: the payments of one batch
// read what the earlier ones wrote (batch.reads is kept current as each
// entry's writes go in), so a ledger that takes them in one transaction,
// one apiece, or in transactions cut short ends in the same state: the
// same bill paid twice, the books' totals of one day and fund, an
// overpayment, and a payment refused between them.
func TestOneTransactionReadsWhatItsEntriesWrote(t *testing.T) {
	setup := booksOpenSetup()
	pays := logsOf(t, 4,
		payCommand("p1", 2, "B1", "40.00", "2026-04-10T10:00"),
		payCommand("p2", 3, "B1", "30.00", "2026-04-10T10:05"),
		payCommand("p3", 4, "B2", "0.00", "2026-04-10T10:07"), // refused: no amount
		payCommand("p4", 5, "B2", "20.00", "2026-04-10T10:10"),
		payCommand("p5", 6, "B1", "500.00", "2026-04-10T10:20"), // pays it off and over
	)
	type run struct {
		name   string
		limit  int64 // batchBytes; 0 for the store's own
		chunks int   // entries handed to each ApplyBatch
	}
	var results, hashes []string
	for _, r := range []run{{"one transaction", 0, len(pays)}, {"a batch apiece", 0, 1}, {"a commit before each entry", 1, len(pays)}} {
		f := openFSM(t, t.TempDir())
		f.ApplyBatch(logsOf(t, 1, setup...))
		f.batchBytes = r.limit
		var got []string
		for i := 0; i < len(pays); i += r.chunks {
			for _, res := range f.ApplyBatch(pays[i:min(i+r.chunks, len(pays))]) {
				res := res.(domain.Result)
				got = append(got, fmt.Sprintf("%s %v %v", res.CommandID, res.Receipt != nil && res.Receipt.Balance.Cents() == 0, res.Error != nil))
			}
		}
		sum, err := f.StateHash()
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		results, hashes = append(results, fmt.Sprint(got)), append(hashes, sum)
		if results[len(results)-1] != results[0] || sum != hashes[0] {
			t.Errorf("%s: results %s, state %s; in one transaction: %s, state %s", r.name, results[len(results)-1], sum, results[0], hashes[0])
		}
	}
	if want := "[p1 false false p2 false false p3 false true p4 false false p5 true false]"; results[0] != want {
		t.Errorf("results %s, want %s", results[0], want)
	}
}

// TestBatchLetsGoOfManyReads: a transaction that has read more records
// than maxBatchReads starts the next entry's reads afresh, and one that
// has read fewer keeps them, kept current by the entry's writes.
func TestBatchLetsGoOfManyReads(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	b := f.newBatch()
	defer b.discard()
	b.reads["b/B1"] = []byte(`{"id":"B1"}`)
	b.add([]kv{{[]byte("b/B1"), []byte(`{"id":"B1","principal":"1.00"}`)}})
	if got := string(b.reads["b/B1"]); got != `{"id":"B1","principal":"1.00"}` {
		t.Fatalf("a record read and then written reads %q", got)
	}
	for i := range maxBatchReads + 1 {
		b.reads[fmt.Sprintf("b/X%d", i)] = nil
		b.decoded[fmt.Sprintf("X%d", i)] = decodedBill{}
	}
	b.add([]kv{{[]byte("b/B2"), []byte(`{"id":"B2"}`)}})
	if len(b.reads) != 0 || len(b.decoded) != 0 {
		t.Fatalf("after %d reads the batch still holds %d reads and %d bills", maxBatchReads+1, len(b.reads), len(b.decoded))
	}
}

// TestRestoreDropsKeptReads: the books' records an FSM keeps read from
// one batch to the next (FSM.kept) go with a restored snapshot's state: a
// ledger that took other payments before the restore posts the next
// payment to the books exactly as the ledger the snapshot came from.
func TestRestoreDropsKeptReads(t *testing.T) {
	setup := booksOpenSetup()
	restored := openFSM(t, t.TempDir())
	defer restored.Close()
	restored.ApplyBatch(logsOf(t, 1, setup...))
	restored.ApplyBatch(logsOf(t, 4, payCommand("p1", 2, "B1", "40.00", "2026-04-10T10:00")))
	if len(restored.kept) == 0 {
		t.Fatal("a payment's batch kept none of the books' records it read")
	}
	source := openFSM(t, t.TempDir())
	defer source.Close()
	source.ApplyBatch(logsOf(t, 1, setup...))
	source.ApplyBatch(logsOf(t, 4, payCommand("q1", 2, "B2", "20.00", "2026-04-10T09:00")))
	if err := restored.Restore(io.NopCloser(bytes.NewReader(snapshotOf(t, source)))); err != nil {
		t.Fatal(err)
	}
	next := logsOf(t, 5, payCommand("p9", 3, "B1", "10.00", "2026-04-10T11:00"))
	var sums []string
	for _, f := range []*FSM{source, restored} {
		if res := f.ApplyBatch(next)[0].(domain.Result); res.Error != nil {
			t.Fatal(res.Error)
		}
		sum, err := f.StateHash()
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sum)
	}
	if sums[0] != sums[1] {
		t.Errorf("after the restore and one payment the ledgers differ: %s from the source, %s restored", sums[0], sums[1])
	}
}
