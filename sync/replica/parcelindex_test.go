package replica

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// A test-only kind that writes parcels, bills and the records of a named
// collection as given, so that the indexes can be checked against any mix
// of new and changed records.
const kindPutRecords domain.Kind = "put_records"

type putRecords struct {
	Parcels []domain.Parcel `json:"parcels,omitempty"`
	Bills   []domain.Bill   `json:"bills,omitempty"`
	// Summarize stores the bills as ledger format 3 does: a summary in
	// the record, each payment in a slot of its own.
	Summarize []bool `json:"summarize,omitempty"`
	// Records of Collection, by IDs.
	Collection string            `json:"collection,omitempty"`
	IDs        []string          `json:"ids,omitempty"`
	Records    []json.RawMessage `json:"records,omitempty"`
}

func (*putRecords) Kind() domain.Kind { return kindPutRecords }

var putRecordsKind = &domain.Descriptor{
	Kind: kindPutRecords,
	New:  func() domain.Payload { return new(putRecords) },
	Apply: func(tx domain.Tx, c domain.Command, e domain.Env, res *domain.Result) error {
		in := c.Payload.(*putRecords)
		for _, p := range in.Parcels {
			if err := tx.PutParcel(p); err != nil {
				return err
			}
		}
		for i, b := range in.Bills {
			if i < len(in.Summarize) && in.Summarize[i] {
				s, err := b.Summarized(e.Params)
				if err != nil {
					return err
				}
				for slot, pay := range b.Payments {
					if err := tx.Put(domain.CollectionBillPayments, domain.BillPaymentID(b.ID, slot), pay); err != nil {
						return err
					}
				}
				b = s
			}
			if err := tx.PutBill(b); err != nil {
				return err
			}
		}
		for i, raw := range in.Records {
			if err := tx.Put(in.Collection, in.IDs[i], raw); err != nil {
				return err
			}
		}
		return nil
	},
}

// indexFSM opens an FSM that also takes put_records.
func indexFSM(t *testing.T, dir string) *FSM {
	t.Helper()
	f := openFSM(t, dir)
	f.kinds = domain.Kinds.With(putRecordsKind)
	return f
}

// putLogs makes one log entry per put_records command, from index next.
func putLogs(t testing.TB, next uint64, puts ...putRecords) []*raft.Log {
	t.Helper()
	var logs []*raft.Log
	for i, p := range puts {
		c := domain.Command{ID: fmt.Sprintf("put-%d", next+uint64(i)), Kind: kindPutRecords, At: domain.NewDateTime(domain.MustDate("2026-03-01"), 9, 0, 0),
			Node: "n1", Actor: "test", Payload: &p}
		data, err := domain.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: next + uint64(i), Term: 1, Type: raft.LogCommand, Data: data})
	}
	return logs
}

// applyOK applies logs and fails on any refused command.
func applyOK(t testing.TB, f *FSM, logs []*raft.Log) {
	t.Helper()
	for i, r := range f.ApplyBatch(logs) {
		if res, ok := r.(domain.Result); ok && res.Error != nil {
			t.Fatalf("entry %d refused: %v", logs[i].Index, res.Error)
		}
	}
}

// walkIndexKeys is what the indexes must hold, worked out from a walk of
// every parcel and bill with the domain's own words, year and standing.
func walkIndexKeys(t testing.TB, f *FSM) []string {
	t.Helper()
	parcels, err := f.Parcels()
	if err != nil {
		t.Fatal(err)
	}
	bills, err := f.Bills()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range parcels {
		for field, code := range map[domain.ParcelField]string{domain.ParcelOwner: "o", domain.ParcelAddress: "a", domain.ParcelNumber: "n"} {
			for _, w := range p.Words(field) {
				want = append(want, prefixParcelWord+code+"/"+w+"\x00"+p.ID)
			}
		}
		if p.County.Valid() {
			want = append(want, prefixParcelWord+"c/"+string(p.County)+"\x00"+p.ID)
		}
		if len(parcelWordKeys(p)) > 0 {
			want = append(want, prefixParcelWords+p.ID)
		}
	}
	for _, b := range bills {
		y, err := b.RollYear(params)
		if err != nil {
			t.Fatal(err)
		}
		s, err := b.Standing(params)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s%04d/%s/%s", prefixBillYear, y, s, b.ID), prefixBillStanding+b.ID)
	}
	slices.Sort(want)
	return want
}

// storedIndexKeys are the index keys the store holds, but the version.
func storedIndexKeys(t testing.TB, f *FSM) []string {
	t.Helper()
	var got []string
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixLookup)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if k := string(it.Item().Key()); k != string(keyLookupVersion) {
				got = append(got, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func checkIndexes(t *testing.T, f *FSM, when string) {
	t.Helper()
	want, got := walkIndexKeys(t, f), storedIndexKeys(t, f)
	if slices.Equal(want, got) {
		return
	}
	shown := 0
	for _, k := range want {
		if !slices.Contains(got, k) && shown < 10 {
			t.Errorf("%s: index lacks %q", when, k)
			shown++
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) && shown < 20 {
			t.Errorf("%s: index holds %q, which no record makes", when, k)
			shown++
		}
	}
	t.Fatalf("%s: %d index keys, a walk makes %d", when, len(got), len(want))
}

var (
	owners    = []string{"Ana Gutiérrez", "Luis Ramirez", "Belleville Feed & Seed LLC", "Ana Lopez", "Maria Gutierrez-Lopez", "O'Brien Trust"}
	streets   = []string{"W Main St", "Hale Street", "E Church St", "Park Avenue", "Mill Rd"}
	billDates = []string{"2024-03-02", "2024-11-20", "2025-01-15", "2025-06-30", "2025-10-05", "2026-02-01"}
)

// randomPut makes a command's worth of new parcels and bills and changes
// to those already written: an owner or address changed, a payment
// (partial or in full), a bill certified, a bill stored as ledger format
// 3 does (its summary instead of its payments).
func randomPut(r *rand.Rand, parcels map[string]domain.Parcel, bills map[string]domain.Bill, n int) putRecords {
	var out putRecords
	for range n {
		switch k := r.IntN(10); {
		case k < 3 || len(parcels) == 0:
			id := fmt.Sprintf("0601-%03d-%04d", r.IntN(40), r.IntN(3))
			p := domain.Parcel{ID: id, County: []domain.County{domain.Dane, domain.Green}[r.IntN(2)], Owner: owners[r.IntN(len(owners))], Address: fmt.Sprintf("%d %s", 100+r.IntN(20), streets[r.IntN(len(streets))])}
			if r.IntN(8) == 0 {
				p.Owner = ""
			}
			parcels[id] = p
			out.Parcels = append(out.Parcels, p)
		case k < 6 || len(bills) == 0:
			ids := mapsKeys(parcels)
			pc := ids[r.IntN(len(ids))]
			b := domain.Bill{ID: fmt.Sprintf("B-%04d", r.IntN(200)), Account: "100101", Parcel: pc, Description: "water",
				BilledOn: domain.MustDate(billDates[r.IntN(len(billDates))]), Principal: domain.Cents(int64(1000 + r.IntN(50000)))}
			bills[b.ID] = b
			out.Bills = append(out.Bills, b)
			out.Summarize = append(out.Summarize, false)
		default:
			ids := mapsKeys(bills)
			b := bills[ids[r.IntN(len(ids))]]
			switch r.IntN(4) {
			case 0: // a payment that pays it all, and some
				b.Payments = append(slices.Clone(b.Payments), domain.BillPayment{CommandID: "pay", At: domain.NewDateTime(b.BilledOn, 10, 0, 0), Amount: b.Principal.Add(domain.Cents(5000)), Tender: domain.Cash})
			case 1: // a partial payment
				b.Payments = append(slices.Clone(b.Payments), domain.BillPayment{CommandID: "pay", At: domain.NewDateTime(b.BilledOn, 10, 0, 0), Amount: domain.Cents(100), Tender: domain.Cash})
			case 2:
				b.Certified = &domain.Certification{Year: 2025, Amount: b.Principal}
			case 3: // a parcel's owner sold up
				p := parcels[b.Parcel]
				p.Owner = owners[r.IntN(len(owners))]
				parcels[p.ID] = p
				out.Parcels = append(out.Parcels, p)
			}
			bills[b.ID] = b
			out.Bills = append(out.Bills, b)
			out.Summarize = append(out.Summarize, r.IntN(2) == 0)
		}
	}
	return out
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestIndexesAgreeWithAWalk: after random puts and changes of parcels and
// bills, in batches of several entries, the indexes hold exactly what a
// walk of the records makes, and the lookups answer what a walk answers.
func TestIndexesAgreeWithAWalk(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			f := indexFSM(t, t.TempDir())
			defer f.Close()
			parcels, bills := map[string]domain.Parcel{}, map[string]domain.Bill{}
			next := uint64(1)
			for round := range 12 {
				var puts []putRecords
				for range 1 + r.IntN(4) {
					puts = append(puts, randomPut(r, parcels, bills, 1+r.IntN(12)))
				}
				applyOK(t, f, putLogs(t, next, puts...))
				next += uint64(len(puts))
				checkIndexes(t, f, fmt.Sprint("round ", round))
			}
			checkLookups(t, f)
		})
	}
}

// checkLookups compares the lookups with a walk, for every word and
// prefix of every parcel's owner and address and every year and standing.
func checkLookups(t *testing.T, f *FSM) {
	t.Helper()
	all, err := f.Parcels()
	if err != nil {
		t.Fatal(err)
	}
	var queries []domain.ParcelQuery
	for _, p := range all {
		for _, field := range []domain.ParcelField{domain.ParcelOwner, domain.ParcelAddress, domain.ParcelNumber} {
			words := p.Words(field)
			if len(words) == 0 {
				continue
			}
			queries = append(queries, domain.ParcelQuery{Field: field, Words: words},
				domain.ParcelQuery{Field: field, Words: []string{words[0][:min(2, len(words[0]))]}, Prefix: true},
				domain.ParcelQuery{Field: field, Words: words[len(words)-1:], Limit: 2})
		}
	}
	for _, q := range queries {
		got, err := f.FindParcels(q)
		if err != nil {
			t.Fatal(err)
		}
		if want := domain.FilterParcels(all, q); !slices.EqualFunc(got, want, func(a, b domain.Parcel) bool { return a.ID == b.ID }) {
			t.Errorf("%+v: found %v, a walk finds %v", q, ids(got), ids(want))
		}
	}
	counties, err := f.ParcelCounties()
	if err != nil {
		t.Fatal(err)
	}
	if want := domain.ParcelCountiesOf(all); !maps.Equal(counties, want) || len(want) == 0 {
		t.Errorf("counties %v, a walk finds %v", counties, want)
	}
	bills, err := f.Bills()
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range []int{2024, 2025, 2026, 2027} {
		for _, st := range [][]domain.BillStanding{nil, {domain.BillOpen}, {domain.BillSettled, domain.BillCertified}} {
			q := domain.BillQuery{Year: y, Standings: st}
			want, err := domain.FilterBills(bills, q, params)
			if err != nil {
				t.Fatal(err)
			}
			// Page by three: every bill exactly once, in order.
			var got []domain.Bill
			for q.Limit = 3; ; {
				page, err := f.BillsOfYear(q)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, page...)
				if len(page) < q.Limit {
					break
				}
				q.After = page[len(page)-1].ID
			}
			if !slices.EqualFunc(got, want, func(a, b domain.Bill) bool { return a.ID == b.ID && len(a.Payments) == len(b.Payments) }) {
				t.Errorf("%d %v: paged %v, a walk finds %v", y, st, billIDs(got), billIDs(want))
			}
			// Bare: the same bills, each as its record holds it (a
			// summary instead of its payments).
			q.After, q.Limit, q.Bare = "", 0, true
			bare, err := f.BillsOfYear(q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(bare, want, func(a, b domain.Bill) bool {
				return a.ID == b.ID && (a.Summary == nil) == (b.Summary == nil) && (a.Summary == nil || len(a.Payments) == 0)
			}) {
				t.Errorf("%d %v bare: %v, a walk finds %v", y, st, billIDs(bare), billIDs(want))
			}
		}
	}
}

func ids(ps []domain.Parcel) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func billIDs(bs []domain.Bill) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.ID)
	}
	return out
}

// filled writes a few rounds of random records into f.
func filled(t *testing.T, f *FSM, seed uint64) uint64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	parcels, bills := map[string]domain.Parcel{}, map[string]domain.Bill{}
	next := uint64(1)
	for range 6 {
		applyOK(t, f, putLogs(t, next, randomPut(r, parcels, bills, 20)))
		next++
	}
	return next
}

// TestIndexesRebuiltAtOpen: a store whose index version is missing, or
// older than this build's, with its indexes wrong, is indexed again from
// its records when it opens; one at this version is left as it is.
func TestIndexesRebuiltAtOpen(t *testing.T) {
	for _, c := range []struct {
		name    string
		version []byte // nil: removed
		rebuilt bool
	}{
		{"version removed", nil, true},
		{"older version", uint64Bytes(lookupVersion - 1), true},
		{"current version", uint64Bytes(lookupVersion), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := indexFSM(t, dir)
			filled(t, f, 3)
			checkIndexes(t, f, "before")
			stray := parcelWordKey("o/nobody", "0601-999-9999")
			err := f.db.Update(func(txn *badger.Txn) error {
				if err := txn.Set(stray, []byte{}); err != nil {
					return err
				}
				if c.version == nil {
					return txn.Delete(keyLookupVersion)
				}
				return txn.Set(keyLookupVersion, c.version)
			})
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			f = indexFSM(t, dir)
			defer f.Close()
			got := storedIndexKeys(t, f)
			if has := slices.Contains(got, string(stray)); has == c.rebuilt {
				t.Fatalf("the stray key is there: %v; want it gone: %v", has, c.rebuilt)
			}
			if c.rebuilt {
				checkIndexes(t, f, "after open")
			}
			if v, _, _ := readKey(f, keyLookupVersion); !bytes.Equal(v, uint64Bytes(lookupVersion)) {
				t.Fatalf("version after open: %x", v)
			}
		})
	}
}

// TestIndexesRebuiltInSmallBatches: a rebuild reads the parcels and the
// bills in batches, each in a transaction of its own; batches of 3 put
// many boundaries inside them, and the indexes come out whole.
func TestIndexesRebuiltInSmallBatches(t *testing.T) {
	f := indexFSM(t, t.TempDir())
	defer f.Close()
	filled(t, f, 3)
	stray := parcelWordKey("o/nobody", "0601-999-9999")
	if err := f.db.Update(func(txn *badger.Txn) error { return txn.Set(stray, []byte{}) }); err != nil {
		t.Fatal(err)
	}
	f.rebuildN = 3
	if err := f.reindex(); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(storedIndexKeys(t, f), string(stray)) {
		t.Fatal("the stray key is still there")
	}
	checkIndexes(t, f, "after the rebuild")
}

func readKey(f *FSM, k []byte) (v []byte, ok bool, err error) {
	err = f.db.View(func(txn *badger.Txn) error {
		v, ok, err = txnRead(txn)(k)
		return err
	})
	return v, ok, err
}

// TestIndexesAfterSnapshotRestore: a snapshot carries no index keys; the
// node that restores it indexes what it brought, and drops the indexes
// of the state it had.
func TestIndexesAfterSnapshotRestore(t *testing.T) {
	src := indexFSM(t, t.TempDir())
	defer src.Close()
	filled(t, src, 5)
	data := snapshotOf(t, src)
	if bytes.Contains(data, []byte(prefixLookup)) {
		t.Fatal("the snapshot carries index keys")
	}
	dst := indexFSM(t, filepath.Join(t.TempDir(), "state"))
	defer dst.Close()
	filled(t, dst, 9) // a state of its own, to be replaced
	if err := dst.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, dst, "after restore")
	if !slices.Equal(storedIndexKeys(t, dst), storedIndexKeys(t, src)) {
		t.Fatal("the restored node's indexes differ from its source's")
	}
	a, _ := src.StateHash()
	b, _ := dst.StateHash()
	if a != b {
		t.Fatal("state hashes differ after the restore")
	}
}

// TestIndexesOfAnEntryTooBigForOneTransaction: a command near the
// ledger's limit on writes, whose index writes would not fit with it,
// still leaves indexes that agree with a walk and the version in place.
func TestIndexesOfAnEntryTooBigForOneTransaction(t *testing.T) {
	f := indexFSM(t, t.TempDir())
	defer f.Close()
	var put putRecords
	for i := range 6000 {
		put.Parcels = append(put.Parcels, domain.Parcel{ID: fmt.Sprintf("0601-%03d-%04d", i/1000, i%1000), County: domain.Green,
			Owner: fmt.Sprintf("Owner%d Family Trust of Belleville", i), Address: fmt.Sprintf("%d West Main Street Unit %d", i, i%7)})
	}
	applyOK(t, f, append(putLogs(t, 1, putRecords{Parcels: put.Parcels[:10]}), putLogs(t, 2, putRecords{Parcels: put.Parcels[10:]})...))
	checkIndexes(t, f, "after the big entry")
	if v, _, _ := readKey(f, keyLookupVersion); !bytes.Equal(v, uint64Bytes(lookupVersion)) {
		t.Fatalf("version: %x", v)
	}
	got, err := f.FindParcels(domain.ParcelQuery{Field: domain.ParcelOwner, Words: []string{"owner5999"}})
	if err != nil || len(got) != 1 {
		t.Fatalf("owner5999: %v, %v", ids(got), err)
	}
}
