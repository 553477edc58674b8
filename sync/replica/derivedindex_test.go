package replica

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// entry is the records of one put_records entry, by id.
type entry struct {
	collection string
	ids        []string
	records    []any
}

// recordLedger is a ledger FSM that takes put_records entries.
type recordLedger struct {
	t    *testing.T
	f    *FSM
	next uint64
}

func newRecordLedger(t *testing.T, dir string) *recordLedger {
	return &recordLedger{t: t, f: indexFSM(t, dir), next: 1}
}

// put applies the entries, all in one batch.
func (l *recordLedger) put(entries ...entry) {
	l.t.Helper()
	var puts []putRecords
	for _, e := range entries {
		p := putRecords{Collection: e.collection, IDs: e.ids}
		for _, r := range e.records {
			raw, err := json.Marshal(r)
			if err != nil {
				l.t.Fatal(err)
			}
			p.Records = append(p.Records, raw)
		}
		puts = append(puts, p)
	}
	applyOK(l.t, l.f, putLogs(l.t, l.next, puts...))
	l.next += uint64(len(puts))
}

// scanOnly hides a store's derived indexes: the domain's reads walk the
// collection through it, as they do over a store that keeps none.
type scanOnly struct{ domain.Records }

// checks is an entry of checks, noting the month each check number was
// last written in (the test's own account).
func checks(months map[int]string, cks ...domain.CheckRecord) entry {
	e := entry{collection: domain.CollectionChecks}
	for _, ck := range cks {
		e.ids, e.records = append(e.ids, domain.CheckID(ck.Number)), append(e.records, ck)
		months[ck.Number] = ck.On.String()[:7]
	}
	return e
}

func check(n int, on string) domain.CheckRecord {
	return domain.CheckRecord{Number: n, On: domain.MustDate(on), Payee: fmt.Sprintf("Payee %d", n), Amount: domain.Cents(int64(100 * n))}
}

var checkMonths = []string{"2025-11", "2025-12", "2026-01", "2026-02", "2026-03", "2026-04"}

// registers checks every month's register read from r against the
// months the checks were last written in: the numbers of that month, in
// order, each record whole.
func registers(t *testing.T, what string, r domain.Records, months map[int]string) {
	t.Helper()
	for _, m := range checkMonths {
		var want []int
		for n, mm := range months {
			if mm == m {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		got, err := domain.ReadsOf(r).CheckRegister(m)
		if err != nil {
			t.Fatalf("%s: register of %s: %v", what, m, err)
		}
		var nums []int
		for _, ck := range got {
			nums = append(nums, ck.Number)
			if ck.On.String()[:7] != m || ck.Payee != fmt.Sprintf("Payee %d", ck.Number) {
				t.Errorf("%s: register of %s holds %+v", what, m, ck)
			}
		}
		if !slices.Equal(nums, want) {
			t.Errorf("%s: register of %s lists checks %v, want %v", what, m, nums, want)
		}
	}
}

// TestChecksByMonthFollowTheRecords: the index of checks by month lists a
// month's checks as their records say, through checks written, redated
// (within one batch too) and written again unchanged; after a snapshot is
// restored into another ledger; and after a store that lost its index, or
// holds one of another set, is opened again. The domain's walk of the
// collection gives the same registers throughout.
func TestChecksByMonthFollowTheRecords(t *testing.T) {
	dir := t.TempDir()
	l := newRecordLedger(t, dir)
	months := map[int]string{}
	var first []domain.CheckRecord
	for n := 1; n <= 40; n++ {
		first = append(first, check(n, fmt.Sprintf("%s-%02d", checkMonths[n%5], 1+n%28)))
	}
	l.put(checks(months, first...))
	registers(t, "written", l.f, months)
	registers(t, "walked", scanOnly{l.f}, months)

	// Redated, moved twice in one batch, and rewritten where it was.
	l.put(
		checks(months, check(3, "2026-04-02"), check(7, "2025-11-30")),
		checks(months, check(7, "2026-04-15"), check(41, "2026-04-30")),
		checks(months, check(10, months[10]+"-05")),
	)
	registers(t, "redated", l.f, months)
	registers(t, "redated, walked", scanOnly{l.f}, months)
	var ids []string
	if err := l.f.Derived(domain.IndexChecksByMonth, "2025-11", func(id string, _ []byte) error { ids = append(ids, id); return nil }); err != nil || slices.Contains(ids, domain.CheckID(7)) {
		t.Errorf("check 7, moved out of 2025-11, is still indexed there: %v, %v", ids, err)
	}

	restored := newRecordLedger(t, t.TempDir())
	defer restored.f.Close()
	if err := restored.f.Restore(io.NopCloser(bytes.NewReader(snapshotOf(t, l.f)))); err != nil {
		t.Fatal(err)
	}
	registers(t, "restored", restored.f, months)

	// A release from before the derived indexes applies an entry that
	// writes a check: the applied index moves, the indexes do not. The
	// next open sees the store was not closed at that index and builds
	// them again; and it removes the mark of the close, so that a crash
	// from then on is seen too.
	if err := l.f.db.Update(func(txn *badger.Txn) error {
		raw, err := json.Marshal(check(42, "2026-03-09"))
		if err != nil {
			return err
		}
		if err := txn.Set(recordKey(domain.CollectionChecks, domain.CheckID(42)), raw); err != nil {
			return err
		}
		return txn.Set(keyApplied, uint64Bytes(l.f.Applied()+1))
	}); err != nil {
		t.Fatal(err)
	}
	months[42] = "2026-03"
	if err := l.f.Close(); err != nil {
		t.Fatal(err)
	}
	l.f = indexFSM(t, dir)
	registers(t, "written by an older release", l.f, months)
	if err := l.f.db.View(func(txn *badger.Txn) error {
		if _, ok, err := txnRead(txn)(keyDerivedClosed); err != nil || ok {
			return fmt.Errorf("the mark of the last close is still there after the open (%v)", err)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}

	// A store without the index (a release before it), and one whose
	// index is of another set, with a key no record accounts for.
	for _, damage := range []func() error{
		func() error { return l.f.db.DropPrefix([]byte(prefixDerived)) },
		func() error {
			return l.f.db.Update(func(txn *badger.Txn) error {
				if err := txn.Set(keyDerivedVersion, []byte("0 checks-by-month")); err != nil {
					return err
				}
				return txn.Set(derivedKey(domain.IndexChecksByMonth, "2026-04", domain.CheckID(99)), []byte{})
			})
		},
	} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		if err := l.f.Close(); err != nil {
			t.Fatal(err)
		}
		l.f = indexFSM(t, dir)
		registers(t, "reopened", l.f, months)
	}
	defer l.f.Close()

	if err := l.f.Derived("no-such-index", "", func(string, []byte) error { return nil }); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("an unknown derived index: %v", err)
	}
}

// TestRoomTaxReturnsByYearAndPayment: the index of returns answers a
// year's collections (returns paid in it), a year's export (returns of
// its quarters) and whether a command id paid a return, as a walk of
// every return does, through payments added over the years and command
// ids with any character in them.
func TestRoomTaxReturnsByYearAndPayment(t *testing.T) {
	l := newRecordLedger(t, t.TempDir())
	defer l.f.Close()
	f := l.f
	put := func(rs ...domain.QuarterlyReturn) {
		t.Helper()
		e := entry{collection: domain.CollectionRoomTaxReturns}
		for _, r := range rs {
			e.ids, e.records = append(e.ids, r.ID), append(e.records, r)
		}
		l.put(e)
	}
	pay := func(id, at string) domain.RoomTaxPayment {
		dt, err := domain.ParseDateTime(at)
		if err != nil {
			t.Fatal(err)
		}
		return domain.RoomTaxPayment{CommandID: id, At: dt, Amount: domain.Cents(100), Tender: domain.Card, By: "op"}
	}
	ret := func(op string, year, q int, pays ...domain.RoomTaxPayment) domain.QuarterlyReturn {
		p := domain.Quarter{Year: year, Q: q}
		return domain.QuarterlyReturn{ID: op + "_" + p.String(), Operator: op, Period: p, Payments: pays}
	}
	put(ret("belle-inn", 2025, 4, pay("c1", "2026-01-20T10:00")),
		ret("belle-inn", 2026, 1),
		ret("a-b", 2025, 3, pay("c2", "2025-10-20T10:00")),
		ret("a", 2025, 4, pay("odd\nid", "2025-12-30T10:00")))
	// Paid later, and paid again the next year.
	put(ret("belle-inn", 2026, 1, pay("c3", "2026-04-20T10:00")),
		ret("a", 2025, 4, pay("odd\nid", "2025-12-30T10:00"), pay("c\x00", "2026-02-01T10:00")))

	ids := func(rs []domain.QuarterlyReturn) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	want := map[string][]string{
		"paid 2025":   {"a_2025-Q4", "a-b_2025-Q3"},
		"paid 2026":   {"a_2025-Q4", "belle-inn_2025-Q4", "belle-inn_2026-Q1"},
		"paid 2024":   nil,
		"of 2025":     {"a_2025-Q4", "a-b_2025-Q3", "belle-inn_2025-Q4"},
		"of 2026":     {"belle-inn_2026-Q1"},
		"command c3":  {"yes"},
		"command c":   nil,
		"command odd": nil,
	}
	for _, r := range []domain.Records{f, scanOnly{f}} {
		x := domain.ReadsOf(r)
		got := map[string][]string{}
		for _, y := range []int{2024, 2025, 2026} {
			rs, err := x.RoomTaxReturnsPaidIn(y)
			if err != nil {
				t.Fatal(err)
			}
			got[fmt.Sprintf("paid %d", y)] = ids(rs)
			if y > 2024 {
				rs, err := x.RoomTaxReturnsOfYear(y)
				if err != nil {
					t.Fatal(err)
				}
				got[fmt.Sprintf("of %d", y)] = ids(rs)
			}
		}
		for _, id := range []string{"c3", "c", "odd"} {
			if ok, err := x.RoomTaxPaymentRecorded(id); err != nil {
				t.Fatal(err)
			} else if ok {
				got["command "+id] = []string{"yes"}
			}
		}
		for _, id := range []string{"c1", "c2", "odd\nid", "c\x00"} {
			if ok, err := x.RoomTaxPaymentRecorded(id); err != nil || !ok {
				t.Errorf("%T: the payment by command %q is not found: %v", r, id, err)
			}
		}
		for k, w := range want {
			if !slices.Equal(got[k], w) {
				t.Errorf("%T: %s: %v, want %v", r, k, got[k], w)
			}
		}
	}
}

// TestPayableClaimsFollowTheirStatus: the checks page's claims (approved,
// of a year) come from the index of claims by status as from a walk of
// every claim, through claims entered, approved, paid and cancelled, two
// changes of one claim in one batch among them.
func TestPayableClaimsFollowTheirStatus(t *testing.T) {
	l := newRecordLedger(t, t.TempDir())
	defer l.f.Close()
	status := map[string]string{}
	claims := func(set ...string) entry {
		e := entry{collection: domain.CollectionClaims}
		for i := 0; i < len(set); i += 2 {
			id, st := set[i], set[i+1]
			var year int
			fmt.Sscanf(id, "CL-%d-", &year)
			e.ids = append(e.ids, id)
			e.records = append(e.records, domain.Claim{ID: id, Year: year, Vendor: "Vendor " + id, Amount: domain.Cents(100), Status: st})
			status[id] = st
		}
		return e
	}
	payable := func(what string) {
		t.Helper()
		for _, year := range []int{2025, 2026} {
			var want []string
			for id, st := range status {
				if st == domain.ClaimApproved && strings.HasPrefix(id, fmt.Sprintf("CL-%d-", year)) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			for _, r := range []domain.Records{l.f, scanOnly{l.f}} {
				cls, err := domain.ReadsOf(r).PayableClaims(year)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range cls {
					got = append(got, c.ID)
					if c.Vendor != "Vendor "+c.ID {
						t.Errorf("%s, %T: claim %+v", what, r, c)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, %T: payable claims of %d: %v, want %v", what, r, year, got, want)
				}
			}
		}
	}
	var first []string
	for n := 1; n <= 12; n++ {
		st := []string{domain.ClaimEntered, domain.ClaimCertified, domain.ClaimApproved}[n%3]
		first = append(first, fmt.Sprintf("CL-%d-%04d", 2025+n%2, n), st)
	}
	l.put(claims(first...))
	payable("entered")
	l.put(
		claims("CL-2025-0002", domain.ClaimPaid, "CL-2026-0001", domain.ClaimApproved),
		claims("CL-2026-0001", domain.ClaimPaid, "CL-2026-0003", domain.ClaimApproved),
		claims("CL-2025-0005", domain.ClaimCancelled, "CL-2026-0013", domain.ClaimApproved),
	)
	payable("paid and cancelled")
}
