package replica

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// A test-only kind that writes check records as it is given them, so that
// the derived index of checks by month is driven through the FSM without
// a village's payables behind each check.
const kindPutChecks domain.Kind = "put_checks"

type putChecks struct {
	Checks []domain.CheckRecord `json:"checks"`
}

func (*putChecks) Kind() domain.Kind { return kindPutChecks }

var putChecksKind = &domain.Descriptor{
	Kind: kindPutChecks,
	New:  func() domain.Payload { return new(putChecks) },
	Apply: func(tx domain.Tx, c domain.Command, _ domain.Env, _ *domain.Result) error {
		for _, ck := range c.Payload.(*putChecks).Checks {
			if err := tx.Put(domain.CollectionChecks, domain.CheckID(ck.Number), ck); err != nil {
				return err
			}
		}
		return nil
	},
}

// scanOnly hides a store's derived indexes: the domain's reads walk the
// collection through it, as they do over a store that keeps none.
type scanOnly struct{ domain.Records }

// checkLedger is a ledger FSM that takes put_checks entries, and the
// months each check number was last written in (the test's own account).
type checkLedger struct {
	t      *testing.T
	f      *FSM
	index  uint64
	months map[int]string
}

func newCheckLedger(t *testing.T, dir string) *checkLedger {
	f := openFSM(t, dir)
	f.kinds = domain.Kinds.With(putChecksKind)
	return &checkLedger{t: t, f: f, months: map[int]string{}}
}

// apply writes each group of checks as one entry, all in one batch.
func (l *checkLedger) apply(groups ...[]domain.CheckRecord) {
	l.t.Helper()
	var logs []*raft.Log
	for _, g := range groups {
		l.index++
		c := domain.Command{ID: fmt.Sprintf("put-%d", l.index), Kind: kindPutChecks, At: domain.NewDateTime(domain.MustDate("2026-04-01"), 9, 0, 0),
			Node: "n1", Actor: "test", Payload: &putChecks{Checks: g}}
		logs = append(logs, logsOf(l.t, l.index, c)...)
		for _, ck := range g {
			l.months[ck.Number] = ck.On.String()[:7]
		}
	}
	for _, r := range l.f.ApplyBatch(logs) {
		if res := r.(domain.Result); res.Error != nil {
			l.t.Fatal(res.Error)
		}
	}
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
	l := newCheckLedger(t, dir)
	var first []domain.CheckRecord
	for n := 1; n <= 40; n++ {
		first = append(first, check(n, fmt.Sprintf("%s-%02d", checkMonths[n%5], 1+n%28)))
	}
	l.apply(first)
	registers(t, "written", l.f, l.months)
	registers(t, "walked", scanOnly{l.f}, l.months)

	// Redated, moved twice in one batch, and rewritten where it was.
	l.apply(
		[]domain.CheckRecord{check(3, "2026-04-02"), check(7, "2025-11-30")},
		[]domain.CheckRecord{check(7, "2026-04-15"), check(41, "2026-04-30")},
		[]domain.CheckRecord{check(10, l.months[10]+"-05")},
	)
	registers(t, "redated", l.f, l.months)
	registers(t, "redated, walked", scanOnly{l.f}, l.months)
	if ids, err := l.f.Derived(domain.IndexChecksByMonth, "2025-11"); err != nil || slices.Contains(ids, domain.CheckID(7)) {
		t.Errorf("check 7, moved out of 2025-11, is still indexed there: %v, %v", ids, err)
	}

	restored := newCheckLedger(t, t.TempDir())
	defer restored.f.Close()
	if err := restored.f.Restore(io.NopCloser(bytes.NewReader(snapshotOf(t, l.f)))); err != nil {
		t.Fatal(err)
	}
	registers(t, "restored", restored.f, l.months)

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
		l.f = openFSM(t, dir)
		l.f.kinds = domain.Kinds.With(putChecksKind)
		registers(t, "reopened", l.f, l.months)
	}
	defer l.f.Close()

	if _, err := l.f.Derived("no-such-index", ""); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("an unknown derived index: %v", err)
	}
}

// A test-only kind that writes operators' quarterly returns as it is
// given them.
const kindPutReturns domain.Kind = "put_returns"

type putReturns struct {
	Returns []domain.QuarterlyReturn `json:"returns"`
}

func (*putReturns) Kind() domain.Kind { return kindPutReturns }

var putReturnsKind = &domain.Descriptor{
	Kind: kindPutReturns,
	New:  func() domain.Payload { return new(putReturns) },
	Apply: func(tx domain.Tx, c domain.Command, _ domain.Env, _ *domain.Result) error {
		for _, r := range c.Payload.(*putReturns).Returns {
			if err := tx.Put(domain.CollectionRoomTaxReturns, r.ID, r); err != nil {
				return err
			}
		}
		return nil
	},
}

// TestRoomTaxReturnsByYearAndPayment: the index of returns answers a
// year's collections (returns paid in it), a year's export (returns of
// its quarters) and whether a command id paid a return, as a walk of
// every return does, through payments added over the years and command
// ids with any character in them.
func TestRoomTaxReturnsByYearAndPayment(t *testing.T) {
	f := openFSM(t, t.TempDir())
	defer f.Close()
	f.kinds = domain.Kinds.With(putReturnsKind)
	index := uint64(0)
	put := func(rs ...domain.QuarterlyReturn) {
		t.Helper()
		index++
		c := domain.Command{ID: fmt.Sprintf("put-%d", index), Kind: kindPutReturns, At: domain.NewDateTime(domain.MustDate("2026-04-01"), 9, 0, 0),
			Node: "n1", Actor: "test", Payload: &putReturns{Returns: rs}}
		if res := f.ApplyBatch(logsOf(t, index, c))[0].(domain.Result); res.Error != nil {
			t.Fatal(res.Error)
		}
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
