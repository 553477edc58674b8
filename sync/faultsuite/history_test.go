package faultsuite

import (
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/faults"
)

// The checker must catch each broken promise, or a green suite means
// nothing. These histories are made up; each breaks one promise.
func TestCheckCatchesBrokenPromises(t *testing.T) {
	t0 := time.Date(2026, 4, 10, 15, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	due := map[string]int64{"F001": 10000}
	// The books after paid cents of F001's 100.00: the card's money not
	// yet deposited, the receivable down by it.
	books := func(paid int64) domain.BooksTie {
		m := domain.Cents(paid)
		return domain.BooksTie{Open: true, Debit: domain.MustMoney("100.00").Add(m), Credit: domain.MustMoney("100.00").Add(m),
			Accounts: map[string]domain.AccountTotals{
				"100-112": {Debit: m}, "100-121": {Debit: domain.MustMoney("100.00"), Credit: m}, "100-341": {Credit: domain.MustMoney("100.00")},
			},
			Funds: map[string]domain.FundTie{"100": {Debit: domain.MustMoney("100.00").Add(m), Credit: domain.MustMoney("100.00").Add(m),
				Receivable: domain.MustMoney("100.00").Sub(m), OpenPrincipal: domain.MustMoney("100.00").Sub(m)}},
		}
	}
	state := func(id string, hash string, payments map[string]int, paid int64) faults.NodeState {
		return faults.NodeState{ID: id, Hash: hash, Applied: 9, Payments: map[string]map[string]int{"F001": payments}, Paid: map[string]int64{"F001": paid},
			Books: books(paid)}
	}
	// withBooks is three good states of good's payments, the books of
	// the last changed by change.
	withBooks := func(change func(*domain.BooksTie)) []faults.NodeState {
		p := map[string]int{"a": 1, "b": 1, "c": 1}
		z := state("z", "h", p, 175)
		z.Books = books(175)
		change(&z.Books)
		return []faults.NodeState{state("x", "h", p, 175), state("y", "h", p, 175), z}
	}
	good := []Op{
		{CommandID: "a", Bill: "F001", Cents: 100, Call: at(0), Return: at(10), Status: Posted, Balance: 9900},
		{CommandID: "b", Bill: "F001", Cents: 50, Call: at(20), Return: at(30), Status: Posted, Balance: 9850},
		{CommandID: "c", Bill: "F001", Cents: 25, Call: at(40), Return: at(2040), Status: Provisional},
		{CommandID: "d", Bill: "F001", Cents: 5, Call: at(50), Return: at(60), Status: Unknown},
	}
	three := func(p map[string]int, paid int64) []faults.NodeState {
		return []faults.NodeState{state("x", "h", p, paid), state("y", "h", p, paid), state("z", "h", p, paid)}
	}
	rows := []struct {
		name   string
		ops    []Op
		states []faults.NodeState
		want   string // "" means the run is fine
	}{
		{"all promises kept", good, three(map[string]int{"a": 1, "b": 1, "c": 1}, 175), ""},
		{"unknown outcome applied once is fine", good, three(map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, 180), ""},
		{"provisional payment lost", good, three(map[string]int{"a": 1, "b": 1}, 150), "missing"},
		{"posted payment applied twice", good, three(map[string]int{"a": 2, "b": 1, "c": 1}, 275), "applied 2 times"},
		{"replicas differ", good, []faults.NodeState{
			state("x", "h", map[string]int{"a": 1, "b": 1, "c": 1}, 175), state("y", "h", map[string]int{"a": 1, "b": 1, "c": 1}, 175),
			state("z", "other", map[string]int{"a": 1, "b": 1, "c": 1}, 175)}, "differs"},
		{"stale balance: not linearizable", []Op{
			{CommandID: "a", Bill: "F001", Cents: 100, Call: at(0), Return: at(10), Status: Posted, Balance: 9900},
			{CommandID: "b", Bill: "F001", Cents: 50, Call: at(20), Return: at(30), Status: Posted, Balance: 9950},
		}, three(map[string]int{"a": 1, "b": 1}, 150), "not linearizable"},
		{"payment nobody made", good, three(map[string]int{"a": 1, "b": 1, "c": 1, "zz": 1}, 175), "no client submitted"},
		{"books never opened", good, withBooks(func(b *domain.BooksTie) { *b = domain.BooksTie{} }), "books are not open"},
		{"trial balance does not balance", good, withBooks(func(b *domain.BooksTie) {
			b.Debit = b.Debit.Add(domain.Cents(1))
		}), "trial balance does not balance"},
		{"a fund does not balance", good, withBooks(func(b *domain.BooksTie) {
			// In total the books balance: a line posted to the wrong fund.
			f := b.Funds["100"]
			f.Debit = f.Debit.Sub(domain.Cents(175))
			b.Funds["100"] = f
			b.Funds["610"] = domain.FundTie{Debit: domain.Cents(175)}
		}), `fund "100" does not balance`},
		{"receivable not tied to the open bills", good, withBooks(func(b *domain.BooksTie) {
			f := b.Funds["100"]
			f.OpenPrincipal = f.OpenPrincipal.Sub(domain.Cents(25))
			b.Funds["100"] = f
		}), "do not tie"},
		{"two nodes' trial balances differ", good, withBooks(func(b *domain.BooksTie) {
			// Each node's books balance and tie; one posted the card's
			// money to cash rather than to receipts not yet deposited.
			b.Accounts["100-111"] = b.Accounts["100-112"]
			delete(b.Accounts, "100-112")
		}), "trial balance of z differs"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := Check(row.ops, row.states, due)
			got := strings.Join(r.Problems, "\n")
			switch {
			case row.want == "" && !r.OK():
				t.Fatalf("a good run was judged bad:\n%s", got)
			case row.want != "" && !strings.Contains(got, row.want):
				t.Fatalf("want a problem mentioning %q, got:\n%s", row.want, got)
			}
		})
	}
}
