package domain

import (
	"strings"
	"testing"
)

// A kind that exists only in this test, declared as every kind is: its
// payload, its rule and its descriptor in one file (this one), and one
// row in a table (testKinds). Nothing else in the package changes.

const kindTally Kind = "tally"

// Tally adds By to the counter Counter.
type Tally struct {
	Counter string `json:"counter"`
	By      int    `json:"by"`
}

func (*Tally) Kind() Kind { return kindTally }

func (p *Tally) textFields() []textField { return []textField{oneLine("The counter", p.Counter)} }

var tallyKind = &Descriptor{
	Kind:    kindTally,
	Offline: true,
	New:     func() Payload { return new(Tally) },
	Check: func(c Command) error {
		if c.Payload.(*Tally).By <= 0 {
			return Errorf(EINVALID, "", "A tally counts up by a positive number.")
		}
		return nil
	},
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := c.Payload.(*Tally)
		var n int
		if _, err := tx.Get("tallies", p.Counter, &n); err != nil {
			return err
		}
		res.Note = strings.Repeat("|", n+p.By)
		return tx.Put("tallies", p.Counter, n+p.By)
	},
}

// testKinds is the product's table and the one row.
var testKinds = Kinds.With(tallyKind)

// TestANewKindIsOneFileAndOneRow: with its row, the test kind encodes and
// decodes, is validated by its own check, applies its own rule and
// answers the intake questions (offline-safe, node roles, format) from its
// descriptor; the product's table, without the row, refuses it.
func TestANewKindIsOneFileAndOneRow(t *testing.T) {
	c := Command{ID: "t-1", Kind: kindTally, At: NewDateTime(MustDate("2026-06-01"), 9, 0, 0), Node: "n1", Seq: 1, Actor: "clerk", Payload: &Tally{Counter: "visits", By: 2}}
	b, err := EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := testKinds.Decode(b)
	if err != nil || got.Payload.(*Tally).By != 2 {
		t.Fatalf("decode with its row: %+v, %v", got, err)
	}
	if _, err := Kinds.Decode(b); err == nil {
		t.Fatal("the product's table decoded a kind it does not know")
	}
	tx := newResidentTx()
	for range 2 {
		if _, err := testKinds.Apply(tx, got, Env{Index: 1, Params: DefaultParams()}); err != nil {
			t.Fatal(err)
		}
	}
	if res, _ := testKinds.Apply(tx, got, Env{}); res.Note != "||||||" {
		t.Fatalf("third tally: %q", res.Note)
	}
	bad := c
	bad.Payload = &Tally{Counter: "visits", By: 0}
	if err := testKinds.Validate(bad); err == nil {
		t.Fatal("the kind's own check did not run")
	}
	hidden := c
	hidden.Payload = &Tally{Counter: "vis\u202eits", By: 1}
	if _, err := testKinds.Apply(tx, hidden, Env{}); err == nil {
		t.Fatal("the kind's free text was not checked")
	}
	if !testKinds.OfflineSafe(kindTally) || testKinds.MayTake(NodeKiosk, kindTally) || !testKinds.MayTake(NodeClerk, kindTally) || testKinds.Since(kindTally) != 1 {
		t.Fatal("the intake questions were not answered from the descriptor")
	}
}
