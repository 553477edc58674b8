package replica

import (
	"context"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// A test-only kind, declared as every kind is (payload, rule, descriptor in
// one file, one row in the table the node is given), to show that the log
// codec, the FSM and the node's intake read the table and nothing else.

const kindStamp domain.Kind = "stamp"

type stamp struct {
	Note string `json:"note"`
}

func (*stamp) Kind() domain.Kind { return kindStamp }

var stampKind = &domain.Descriptor{
	Kind: kindStamp,
	New:  func() domain.Payload { return new(stamp) },
	Apply: func(tx domain.Tx, c domain.Command, _ domain.Env, res *domain.Result) error {
		res.Note = "stamped " + c.Payload.(*stamp).Note
		return tx.Put("stamps", c.ID, c.Payload)
	},
}

// TestANodeAppliesAKindFromItsTable: a node given a table with the test
// kind takes it, applies it and keeps its record; a node on the product's
// table refuses it at intake.
func TestANodeAppliesAKindFromItsTable(t *testing.T) {
	n, err := Open(Config{ID: "n1", Dir: t.TempDir(), Params: params, Bootstrap: true, Kinds: domain.Kinds.With(stampKind),
		Now: func() time.Time { return time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	cmd, err := n.NewCommand(kindStamp, "clerk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &stamp{Note: "approved"}
	res, err := n.Submit(context.Background(), cmd)
	if err != nil || res.Note != "stamped approved" || res.Index == 0 {
		t.Fatalf("the test kind: %+v, %v", res, err)
	}
	var kept stamp
	if err := n.Get("stamps", cmd.ID, &kept); err != nil || kept.Note != "approved" {
		t.Fatalf("its record: %+v, %v", kept, err)
	}

	plain := openNode(t, t.TempDir(), time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC))
	defer plain.Close()
	other := cmd
	other.Node = "n1"
	if _, err := plain.Submit(context.Background(), other); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("a node without the kind's row took it: %v", err)
	}
}
