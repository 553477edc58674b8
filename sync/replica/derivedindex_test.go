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
