package raftbench_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/replica"
)

// BenchmarkSubmitParts takes the submit path of the appliance's setup
// (ws-badger) apart, at concurrency 1 and 16, to show where its time goes:
//
//   - newcommand: Node.NewCommand alone. It allocates the receipt sequence
//     in memory, under the outbox's mutex.
//   - submit-only: Node.Submit of commands made beforehand: on the leader,
//     raft.Apply straight from Submit and the FSM.
//   - synced-write: one synced Badger update of a 512-byte value, in a
//     store opened with the appliance's options, from concurrent writers
//     that hold no lock: what Badger's group commit allows.
//
// Run them alone with:
//
//	go test -run '^$' -bench SubmitParts ./sync/raftbench
func BenchmarkSubmitParts(b *testing.B) {
	b.Run("synced-write", func(b *testing.B) {
		opts := badgerstore.PiOptions(b.TempDir())
		opts.Logger = badgerstore.NewLogger(logger())
		db, err := badger.Open(opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		value := make([]byte, 512)
		for _, conc := range concurrencies {
			b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
				b.StopTimer()
				if _, err := measure(b, conc, func(i int) error {
					k := binary.BigEndian.AppendUint64([]byte("k/"), uint64(i))
					return db.Update(func(txn *badger.Txn) error { return txn.Set(k, value) })
				}); err != nil {
					b.Fatal(err)
				}
			})
		}
	})

	var c *cluster
	get := func(sub *testing.B) *cluster {
		if c == nil {
			c = newCluster(b, sub, wsBadger)
			c.seed()
			c.warm(400)
		}
		c.tb = sub
		return c
	}
	parts := []struct {
		name string
		// prepare makes what the n timed calls need before the timer
		// starts, and returns the call.
		prepare func(b *testing.B, n *replica.Node, base, count int) func(int) error
	}{
		{"newcommand", func(_ *testing.B, n *replica.Node, _, _ int) func(int) error {
			return func(int) error {
				_, err := n.NewCommand(domain.KindPayBill, "bench")
				return err
			}
		}},
		{"submit-only", func(b *testing.B, n *replica.Node, base, count int) func(int) error {
			cmds := make([]domain.Command, count)
			for i := range cmds {
				var err error
				if cmds[i], err = n.NewCommand(domain.KindPayBill, "bench"); err != nil {
					b.Fatal(err)
				}
				cmds[i].Payload = payment(base + i)
			}
			return func(i int) error {
				res, err := n.Submit(context.Background(), cmds[i])
				if err == nil && (res.Receipt == nil || res.Receipt.Status != domain.Posted) {
					err = fmt.Errorf("command %s not posted", cmds[i].ID)
				}
				return err
			}
		}},
	}
	for _, part := range parts {
		b.Run(part.name, func(b *testing.B) {
			for _, conc := range concurrencies {
				b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
					b.StopTimer()
					c := get(b)
					c.measureOnLeader(b, conc, path{name: part.name, op: func(_ *cluster, l *member, base int) func(int) error {
						return part.prepare(b, l.node, base, b.N)
					}})
				})
			}
		})
	}
}
