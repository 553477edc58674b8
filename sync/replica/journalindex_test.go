package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// indexLedger is a random series of commands and, for each command id,
// what it touches when it applies (worked out from the commands, not
// from the ledger): the oracle the indexes are checked against.
type indexLedger struct {
	cmds    []domain.Command
	touched map[string]domain.Touched
}

func money(s string) *domain.Money { m := domain.MustMoney(s); return &m }

func randomIndexLedger(seed uint64, n int) indexLedger {
	rng := rand.New(rand.NewPCG(seed, 7))
	l := indexLedger{touched: map[string]domain.Touched{}}
	s := seedCommand()
	sd := s.Payload.(*domain.SeedDemo)
	sd.Parcels = append(sd.Parcels, domain.Parcel{ID: "0601-141-2002", Address: "143 W Main St", County: domain.Dane, Owner: "B"})
	sd.Accounts = append(sd.Accounts, domain.Account{Number: "100102", Name: "B", Parcels: []string{"0601-141-2002"}})
	sd.Bills = append(sd.Bills,
		domain.Bill{ID: "C1", Account: "100102", Parcel: "0601-141-2002", Description: "water", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("900.00")},
		domain.Bill{ID: "C2", Account: "100102", Parcel: "0601-141-2002", Description: "weeds", BilledOn: domain.MustDate("2026-03-05"), Principal: domain.MustMoney("800.00")})
	// Format 3: payments of several bills, and payments kept as records
	// of their own.
	raise := domain.Command{ID: "lf3", Kind: domain.KindLedgerFormat, At: s.At, Node: "n1", Payload: &domain.LedgerFormatChange{To: 3}}
	drawer := domain.Command{ID: "drawer", Kind: domain.KindDrawerOpen, At: domain.NewDateTime(domain.MustDate("2026-03-31"), 8, 0, 0), Node: "n1", Actor: "clerk",
		Payload: &domain.DrawerOpen{DrawerID: "D1", Float: domain.MustMoney("10.00")}}
	l.cmds = append(l.cmds, raise, s, drawer)
	account := map[string]string{"B1": "100101", "B2": "100101", "B3": "100101", "C1": "100102", "C2": "100102"}
	parcel := map[string]string{"100101": "0601-141-2001", "100102": "0601-141-2002"}
	bills := []string{"B1", "B2", "B3", "C1", "C2"}
	type check struct{ bill, receipt, amount string }
	var checks []check
	seq := uint64(1)
	clock := domain.MustDate("2026-04-01")
	for i := range n {
		seq++
		id := fmt.Sprintf("c%04d", i)
		// Intake days move on through the series; one command in ten
		// comes from a node that was offline a few days.
		if rng.IntN(3) == 0 {
			clock = clock.AddDays(1)
		}
		day := clock
		if rng.IntN(10) == 0 {
			day = clock.AddDays(-1 - rng.IntN(4))
		}
		dt := domain.NewDateTime(day, 8+rng.IntN(9), rng.IntN(60), 0)
		at := dt.String()
		amount := fmt.Sprintf("%d.%02d", 1+rng.IntN(20), rng.IntN(100))
		bill := bills[rng.IntN(len(bills))]
		var c domain.Command
		switch r := rng.IntN(20); {
		case r < 8: // a card payment
			c = payCommand(id, seq, bill, amount, at)
			l.touched[id] = domain.Touched{Bills: []string{bill}, Receipt: c.ReceiptNumber(), Account: account[bill], Amount: money(amount)}
		case r < 11: // a check at the window
			c = domain.Command{ID: id, Kind: domain.KindWindowPayment, At: dt, Node: "n1", Seq: seq, Actor: "clerk",
				Payload: &domain.WindowPayment{DrawerID: "D1", BillID: bill, Amount: domain.MustMoney(amount), Tender: domain.Check, Tendered: domain.MustMoney(amount), Reference: "1" + id[1:]}}
			l.touched[id] = domain.Touched{Bills: []string{bill}, Receipt: c.ReceiptNumber(), Account: account[bill], Amount: money(amount)}
			checks = append(checks, check{bill, c.ReceiptNumber(), amount})
		case r < 13: // two bills of one account in one payment
			acct := []string{"100101", "100102"}[rng.IntN(2)]
			var two []string
			for _, b := range bills {
				if account[b] == acct && len(two) < 2 {
					two = append(two, b)
				}
			}
			c = domain.Command{ID: id, Kind: domain.KindPayBills, At: dt, Node: "n1", Seq: seq, Actor: "clerk", Payload: &domain.PayBills{Account: acct, Tender: domain.Card, Reference: "sim",
				Bills: []domain.BillAmount{{BillID: two[0], Amount: domain.MustMoney(amount)}, {BillID: two[1], Amount: domain.MustMoney("1.00")}}}}
			total := domain.MustMoney(amount).Add(domain.MustMoney("1.00"))
			l.touched[id] = domain.Touched{Bills: two, Receipt: c.ReceiptNumber(), Account: acct, Amount: &total}
		case r < 15: // new bills: one names its bill, two name none
			acct := []string{"100101", "100102"}[rng.IntN(2)]
			nb := []domain.NewBill{{ID: "N" + id, Account: acct, Parcel: parcel[acct], Description: "dumpster", BilledOn: dt.Date, Principal: domain.MustMoney(amount)}}
			if rng.IntN(2) == 0 {
				nb = append(nb, domain.NewBill{ID: "M" + id, Account: acct, Parcel: parcel[acct], Description: "dumpster", BilledOn: dt.Date, Principal: domain.MustMoney("5.00")})
				l.touched[id] = domain.Touched{}
			} else {
				l.touched[id] = domain.Touched{Bills: []string{"N" + id}, Account: acct, Amount: money(amount)}
			}
			for _, b := range nb {
				account[b.ID] = acct
			}
			c = domain.Command{ID: id, Kind: domain.KindCreateBills, At: dt, Node: "n1", Actor: "clerk", Payload: &domain.CreateBills{Bills: nb, Source: "form"}}
		case r < 17 && len(checks) > 0: // a check comes back
			ch := checks[0]
			checks = checks[1:]
			c = domain.Command{ID: id, Kind: domain.KindReturnCheck, At: domain.NewDateTime(domain.MustDate("2026-10-30"), 9, 0, 0), Node: "n1", Actor: "treasurer",
				Payload: &domain.ReturnCheck{ReturnID: "R" + id, BillID: ch.bill, Receipt: ch.receipt, FeeBillID: "F" + id}}
			back := domain.MustMoney(ch.amount).Neg()
			l.touched[id] = domain.Touched{Bills: []string{ch.bill}, Receipt: ch.receipt, Account: account[ch.bill], Amount: &back}
		case r < 19 && len(l.cmds) > 3: // a second delivery, journaled once
			c = l.cmds[3+rng.IntN(len(l.cmds)-3)]
		default: // refused: no such bill
			c = payCommand(id, seq, "NOPE", amount, at)
		}
		l.cmds = append(l.cmds, c)
	}
	return l
}

func (l indexLedger) apply(t *testing.T, f *FSM) {
	t.Helper()
	logs := logsOf(t, 1, l.cmds...)
	for len(logs) > 0 {
		n := min(len(logs), 17)
		f.ApplyBatch(logs[:n])
		logs = logs[n:]
	}
}

// walk is every journal entry, with what the oracle says it touched.
func (l indexLedger) walk(t *testing.T, f *FSM) []JournalRow {
	t.Helper()
	var out []JournalRow
	err := f.Journal(func(e JournalEntry) error {
		row := JournalRow{JournalEntry: e}
		if e.Outcome == "applied" {
			row.Touched = l.touched[e.CommandID]
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// byIndexOrder sorts rows as q lists them, newest first unless Oldest.
func byIndexOrder(q JournalQuery, rows []JournalRow) {
	dated := q.CommandID == "" && q.Bill == "" && q.Account == "" && (q.Kind != "" || !q.From.IsZero() || !q.To.IsZero())
	slices.SortFunc(rows, func(a, b JournalRow) int {
		c := 0
		if dated {
			c = a.At.Date.Compare(b.At.Date)
		}
		if c == 0 {
			c = int(a.Seq) - int(b.Seq)
		}
		if !q.Oldest {
			c = -c
		}
		return c
	})
}

func rowsOf(t *testing.T, f *FSM, q JournalQuery) []JournalRow {
	t.Helper()
	var out []JournalRow
	if _, err := f.JournalRows(q, func(r JournalRow) bool { out = append(out, r); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

func indexQueries() []JournalQuery {
	qs := []JournalQuery{
		{}, {Oldest: true},
		{Bill: "B1"}, {Bill: "c1"}, {Bill: "B2", Oldest: true}, {Bill: "NOPE"},
		{Account: "100101"}, {Account: "100102", Oldest: true},
		{Kind: domain.KindPayBill}, {Kind: domain.KindPayBills, Oldest: true}, {Kind: domain.KindCreateBills}, {Kind: domain.KindReturnCheck},
		{From: domain.MustDate("2026-05-01"), To: domain.MustDate("2026-06-15")},
		{From: domain.MustDate("2026-07-01"), Oldest: true},
		{To: domain.MustDate("2026-04-30")},
		{Kind: domain.KindPayBill, From: domain.MustDate("2026-05-01"), To: domain.MustDate("2026-05-31")},
		{Account: "100101", Kind: domain.KindPayBills, From: domain.MustDate("2026-06-01")},
		{Bill: "C2", To: domain.MustDate("2026-08-01"), Oldest: true},
		{CommandID: "c0003"}, {CommandID: "seed"},
	}
	return qs
}

func checkAgainstWalk(t *testing.T, f *FSM, walk []JournalRow) {
	t.Helper()
	for _, q := range indexQueries() {
		var want []JournalRow
		for _, r := range walk {
			if q.match(r) {
				want = append(want, r)
			}
		}
		byIndexOrder(q, want)
		got := rowsOf(t, f, q)
		if len(got) != len(want) {
			t.Fatalf("%+v: %d entries, the walk finds %d", q, len(got), len(want))
		}
		for i := range want {
			if got[i].JournalEntry != want[i].JournalEntry || !reflect.DeepEqual(got[i].Touched, want[i].Touched) {
				t.Fatalf("%+v: entry %d is %+v, the walk says %+v", q, i, got[i], want[i])
			}
		}
	}
}

// TestJournalIndexAgreesWithAWalk: after a random series of payments,
// payments of two bills, new bills, returned checks, refusals and second
// deliveries, every listing the indexes give is what filtering a walk of
// the whole journal gives, in the same order, with what each command
// touched.
func TestJournalIndexAgreesWithAWalk(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			l := randomIndexLedger(seed, 300)
			f := openFSM(t, t.TempDir())
			defer f.Close()
			l.apply(t, f)
			walk := l.walk(t, f)
			applied := 0
			for _, r := range walk {
				if r.Outcome == "applied" {
					applied++
				}
			}
			if len(walk) < 250 || applied < 150 || applied == len(walk) {
				t.Fatalf("the series journaled %d entries, %d applied: too few to test with", len(walk), applied)
			}
			checkAgainstWalk(t, f, walk)
		})
	}
}

// jxDump is every key and value of the journal's indexes.
func jxDump(t *testing.T, f *FSM) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixJX), PrefetchValues: true})
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

func sameDump(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d index keys, want %d", what, len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: index key %q holds %q, want %q", what, k, got[k], v)
		}
	}
}

// TestJournalIndexRebuiltAtOpen: a store whose index version is missing
// or another build's, and whose indexes lost keys, has them rebuilt when
// it opens, exactly as applying wrote them; one at this version is left
// alone.
func TestJournalIndexRebuiltAtOpen(t *testing.T) {
	dir := t.TempDir()
	l := randomIndexLedger(4, 200)
	f := openFSM(t, dir)
	l.apply(t, f)
	want := jxDump(t, f)
	hash := stateHash(t, f)
	if _, ok := want[string(keyJXVersion)]; !ok {
		t.Fatal("a new ledger has no index version")
	}
	// The card index holds each receipt's number, command id and amount
	// ahead of its JSON; an older index held the JSON alone.
	bare := map[string]string{}
	for k, v := range want {
		if !strings.HasPrefix(k, prefixJXCard) {
			continue
		}
		l, body, err := readCardIndexValue([]byte(v))
		var rc domain.Receipt
		if err == nil {
			err = json.Unmarshal(body, &rc)
		}
		if err != nil || l.Number != rc.Number || l.CommandID != rc.CommandID || !l.Amount.Equal(rc.Amount) {
			t.Fatalf("card index key %q holds %q: %+v, %v", k, v, l, err)
		}
		bare[k] = string(body)
	}
	if len(bare) < 20 {
		t.Fatalf("%d card receipts indexed: too few to test with", len(bare))
	}
	f.Close()

	lose := func(t *testing.T, version []byte) {
		t.Helper()
		f := openFSM(t, dir)
		defer f.Close()
		err := f.db.Update(func(txn *badger.Txn) error {
			n := 0
			for k := range want {
				if k != string(keyJXVersion) && n%3 == 0 {
					if err := txn.Delete([]byte(k)); err != nil {
						return err
					}
				}
				n++
			}
			// An index of the version before this one holds the card
			// receipts as bare JSON, which the rebuild replaces.
			if bytes.Equal(version, uint64Bytes(journalIndexVersion-1)) {
				for k, v := range bare {
					if err := txn.Set([]byte(k), []byte(v)); err != nil {
						return err
					}
				}
			}
			if version == nil {
				return txn.Delete(keyJXVersion)
			}
			return txn.Set(keyJXVersion, version)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, version := range map[string][]byte{"removed": nil, "older": uint64Bytes(journalIndexVersion - 1), "newer": uint64Bytes(journalIndexVersion + 1)} {
		t.Run(name, func(t *testing.T) {
			lose(t, version)
			f := openFSM(t, dir)
			defer f.Close()
			sameDump(t, "rebuilt", jxDump(t, f), want)
			if stateHash(t, f) != hash {
				t.Fatal("the rebuild changed the state hash")
			}
		})
	}
	t.Run("current", func(t *testing.T) {
		lose(t, uint64Bytes(journalIndexVersion))
		f := openFSM(t, dir)
		defer f.Close()
		if got := jxDump(t, f); len(got) >= len(want) {
			t.Fatalf("a store at this version was rebuilt (%d keys of %d)", len(got), len(want))
		}
	})
	// A rebuild reads the journal, the bill origins and the returned
	// checks in batches, each in a transaction of its own: batches of 7
	// put many boundaries inside the series, and what it staged is gone
	// once it ends.
	t.Run("in small batches", func(t *testing.T) {
		lose(t, uint64Bytes(journalIndexVersion))
		f := openFSM(t, dir)
		defer f.Close()
		f.rebuildN = 7
		if err := f.rebuildJournalIndex(journalIndexVersion); err != nil {
			t.Fatal(err)
		}
		sameDump(t, "rebuilt in batches of 7", jxDump(t, f), want)
		if stateHash(t, f) != hash {
			t.Fatal("the rebuild changed the state hash")
		}
	})
}

// TestJournalIndexAfterRestore: a node that restores a snapshot (which
// carries no node-local keys) holds the snapshot's journal indexed, not
// what it had before.
func TestJournalIndexAfterRestore(t *testing.T) {
	l := randomIndexLedger(5, 200)
	src := openFSM(t, t.TempDir())
	defer src.Close()
	l.apply(t, src)
	data := snapshotOf(t, src)
	if bytes.Contains(data, []byte(prefixJX)) {
		t.Fatal("the snapshot carries the journal indexes")
	}

	dst := openFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	other := randomIndexLedger(6, 50)
	other.apply(t, dst)
	if err := dst.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	sameDump(t, "restored", jxDump(t, dst), jxDump(t, src))
	checkAgainstWalk(t, dst, l.walk(t, dst))
}

// TestJournalPaging: paging through a listing, a few entries a page and
// in either direction, or reading a bounded number of entries a page,
// gives every entry exactly once and in order.
func TestJournalPaging(t *testing.T) {
	l := randomIndexLedger(7, 300)
	f := openFSM(t, t.TempDir())
	defer f.Close()
	l.apply(t, f)
	seqs := func(rows []JournalRow) []uint64 {
		var out []uint64
		for _, r := range rows {
			out = append(out, r.Seq)
		}
		return out
	}
	for _, q := range indexQueries() {
		all := seqs(rowsOf(t, f, q))
		for _, page := range []int{1, 7, 100} {
			for _, scan := range []int{0, 3} {
				var got []uint64
				pq := q
				pq.Scan = scan
				for pages := 0; ; pages++ {
					if pages > 2000 {
						t.Fatalf("%+v: paging does not end", q)
					}
					var rows []JournalRow
					st, err := f.JournalRows(pq, func(r JournalRow) bool { rows = append(rows, r); return len(rows) < page })
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, seqs(rows)...)
					if !st.More {
						break
					}
					pq.Cursor = st.Last
				}
				if !slices.Equal(got, all) {
					t.Fatalf("%+v, %d a page, scan %d: pages give %v, the listing %v", q, page, scan, got, all)
				}
			}
		}
		// Back again: from the last entry of the listing, the other
		// direction gives the rest in reverse.
		if len(all) > 2 {
			back := q
			back.Oldest, back.Cursor = !q.Oldest, all[len(all)-1]
			got := seqs(rowsOf(t, f, back))
			want := slices.Clone(all[:len(all)-1])
			slices.Reverse(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%+v backwards from %d: %v, want %v", q, back.Cursor, got, want)
			}
		}
	}
}

// TestCardReceiptsOfADay: the card receipts the index gives for a day are
// those a walk of the journal and the commands' results gives.
func TestCardReceiptsOfADay(t *testing.T) {
	l := randomIndexLedger(8, 400)
	f := openFSM(t, t.TempDir())
	defer f.Close()
	l.apply(t, f)
	walk := map[domain.Date][]domain.Receipt{}
	err := f.Journal(func(e JournalEntry) error {
		if e.Outcome != "applied" {
			return nil
		}
		res, ok, err := f.CommandResult(e.CommandID)
		if err != nil || !ok || res.Receipt == nil || res.Receipt.Tender != domain.Card {
			return err
		}
		walk[e.At.Date] = append(walk[e.At.Date], *res.Receipt)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	days := 0
	for d := domain.MustDate("2026-03-01"); d.Before(domain.MustDate("2027-03-01")); d = d.AddDays(1) {
		var got []domain.Receipt
		if err := f.CardReceipts(d, func(r domain.Receipt) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			days++
		}
		if len(got) != len(walk[d]) || (len(got) > 0 && !reflect.DeepEqual(got, walk[d])) {
			t.Fatalf("%s: %d card receipts, the walk finds %d", d, len(got), len(walk[d]))
		}
	}
	if days < 20 {
		t.Fatalf("card receipts on %d days: too few to test with", days)
	}
}

// TestCardIndexValue: a card index value gives back the receipt's number,
// command id and amount without its JSON, and the JSON whole after them;
// a value cut short anywhere in its head, of the older layout (the bare
// JSON) or with an amount that is not one is an error, never a panic.
func TestCardIndexValue(t *testing.T) {
	receipts := []domain.Receipt{
		{Number: "R-2026-000001", CommandID: "pay-1", Status: domain.Posted, BillID: "B1", Account: "100101", Parcel: "0601-141-2001",
			At: domain.NewDateTime(domain.MustDate("2026-04-01"), 9, 30, 0), Amount: domain.MustMoney("1234.56"), Tender: domain.Card,
			Card: &domain.CardShown{Brand: "visa", Last4: "4242"}, Allocation: domain.Allocation{Principal: domain.MustMoney("1234.56")}, Node: "n1", Index: 42},
		{Number: "R-2026-000002", CommandID: "pay-2", Amount: domain.MustMoney("0.05"), Tender: domain.Card},
		{Number: "", CommandID: "", Amount: domain.MustMoney("-3.10"), Tender: domain.Card},
		{Number: strings.Repeat("N", 300), CommandID: strings.Repeat("c", 200), Amount: domain.MustMoney("999999999999.99"), Tender: domain.Card},
	}
	for _, rc := range receipts {
		body, err := json.Marshal(rc)
		if err != nil {
			t.Fatal(err)
		}
		v := cardIndexValue(cardLine{Number: rc.Number, CommandID: rc.CommandID, Amount: rc.Amount}, body)
		l, got, err := readCardIndexValue(v)
		if err != nil {
			t.Fatalf("%s: %v", rc.Number, err)
		}
		if l.Number != rc.Number || l.CommandID != rc.CommandID || !l.Amount.Equal(rc.Amount) || l.Amount.String() != rc.Amount.String() {
			t.Fatalf("%s: head read as %+v", rc.Number, l)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("%s: JSON read as %s, want %s", rc.Number, got, body)
		}
		// Amounts compare by their JSON: a decoded $0.00 and the zero
		// Money are the same amount held differently.
		whole, err := cardReceipt(v)
		if again, _ := json.Marshal(whole); err != nil || !bytes.Equal(again, body) {
			t.Fatalf("%s: receipt read as %+v, %v", rc.Number, whole, err)
		}
		head := len(v) - len(body)
		for n := range head {
			if _, _, err := readCardIndexValue(v[:n]); !errors.Is(err, errCardIndexValue) {
				t.Fatalf("%s cut to %d bytes of %d: %v", rc.Number, n, len(v), err)
			}
		}
		if _, err := cardReceipt(v[:head+len(body)/2]); err == nil {
			t.Fatalf("%s: a receipt whose JSON is cut short was read", rc.Number)
		}
		if _, _, err := readCardIndexValue(body); !errors.Is(err, errCardIndexValue) {
			t.Fatalf("%s: the bare JSON of the older layout read: %v", rc.Number, err)
		}
		if _, err := cardReceipt(body); !errors.Is(err, errCardIndexValue) {
			t.Fatalf("%s: the bare JSON of the older layout read whole: %v", rc.Number, err)
		}
	}
	for _, amount := range []string{"", "1e3", "12.345", "twelve", "1.2.3"} {
		v := []byte{cardValueVersion, 1, 'R', 1, 'c', byte(len(amount))}
		v = append(v, amount...)
		if _, _, err := readCardIndexValue(v); !errors.Is(err, errCardIndexValue) {
			t.Fatalf("amount %q: %v", amount, err)
		}
	}
}

// FuzzCardIndexValue checks that readCardIndexValue never panics, that
// what it refuses wraps errCardIndexValue, and that what it reads is a
// head and the rest of the value, which encode again to a value read the
// same.
func FuzzCardIndexValue(f *testing.F) {
	body := []byte(`{"number":"R1","command_id":"c1","amount":"12.34","tender":"card"}`)
	v := cardIndexValue(cardLine{Number: "R1", CommandID: "c1", Amount: domain.MustMoney("12.34")}, body)
	f.Add(v)
	f.Add(v[:len(v)-len(body)])
	f.Add(v[:5])
	f.Add(body)
	f.Add([]byte{})
	f.Add([]byte{cardValueVersion})
	f.Add([]byte{cardValueVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, rest, err := readCardIndexValue(b)
		if err != nil {
			if !errors.Is(err, errCardIndexValue) {
				t.Fatalf("error %v does not wrap errCardIndexValue", err)
			}
			return
		}
		if !bytes.HasSuffix(b, rest) {
			t.Fatalf("%x: the receipt's JSON %x is not the value's end", b, rest)
		}
		again := cardIndexValue(l, rest)
		l2, rest2, err := readCardIndexValue(again)
		if err != nil || l2.Number != l.Number || l2.CommandID != l.CommandID || !l2.Amount.Equal(l.Amount) || !bytes.Equal(rest2, rest) {
			t.Fatalf("%x read as %+v, which encodes to %x, read as %+v (%v)", b, l, again, l2, err)
		}
	})
}
