package faultsuite

import (
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/sync/faults"
)

// The checker must catch each broken promise, or a green suite means
// nothing. These histories are made up; each breaks one promise.
func TestCheckCatchesBrokenPromises(t *testing.T) {
	t0 := time.Date(2026, 4, 10, 15, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	due := map[string]int64{"F001": 10000}
	state := func(id string, hash string, payments map[string]int, paid int64) faults.NodeState {
		return faults.NodeState{ID: id, Hash: hash, Applied: 9, Payments: map[string]map[string]int{"F001": payments}, Paid: map[string]int64{"F001": paid}}
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
