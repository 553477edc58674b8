package etcdbench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// bills is how many bills the cluster is seeded with, as in sync/raftbench:
// the load pays them in turn.
const bills = 2000

// cluster is three embedded etcd members and a client on the leader.
type cluster struct {
	members []*embed.Etcd
	client  *clientv3.Client
}

// bill is a bill's record, as JSON, under billKey.
type bill struct {
	ID        string `json:"id"`
	Account   string `json:"account"`
	Parcel    string `json:"parcel"`
	BilledOn  string `json:"billed_on"`
	Principal int64  `json:"principal_cents"`
	Balance   int64  `json:"balance_cents"`
	Payments  int    `json:"payments"`
}

// payment is a payment's record, as JSON, under paymentKey.
type payment struct {
	Bill   string `json:"bill"`
	Seq    int    `json:"seq"`
	Amount int64  `json:"amount_cents"`
	Tender string `json:"tender"`
	Payer  string `json:"payer"`
	At     string `json:"at"`
	Before int64  `json:"balance_before_cents"`
}

func billID(i int) string      { return fmt.Sprintf("B%04d", i%bills) }
func billKey(id string) string { return "bill/" + id }
func paymentKey(id string, seq int) string {
	return fmt.Sprintf("payment/%s/%06d", id, seq)
}

// freeURL returns an http URL on a free 127.0.0.1 port.
func freeURL(tb testing.TB) url.URL {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// newCluster starts three members in folders of tb, waits for them to be
// ready and for a leader, and connects a client to the leader. The
// members stop when tb ends.
func newCluster(tb testing.TB) *cluster {
	tb.Helper()
	base := tb.TempDir()
	var cfgs []*embed.Config
	var initial []string
	for i := range 3 {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("member-%d", i+1)
		cfg.Dir = filepath.Join(base, cfg.Name)
		peer, client := freeURL(tb), freeURL(tb)
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.InitialClusterToken = "village-bench"
		cfg.LogLevel = "error"
		cfg.LogOutputs = []string{filepath.Join(base, cfg.Name+".log")}
		cfgs = append(cfgs, cfg)
		initial = append(initial, cfg.Name+"="+peer.String())
	}
	c := &cluster{}
	tb.Cleanup(c.close)
	for _, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			tb.Fatalf("start %s: %v", cfg.Name, err)
		}
		c.members = append(c.members, e)
	}
	for _, e := range c.members {
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(60 * time.Second):
			tb.Fatalf("%s not ready within a minute", e.Config().Name)
		}
	}
	l := c.leader(tb, 15*time.Second)
	var err error
	c.client, err = clientv3.New(clientv3.Config{
		Endpoints:   []string{l.Config().AdvertiseClientUrls[0].String()},
		DialTimeout: 5 * time.Second,
		Logger:      l.GetLogger(),
	})
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	return c
}

// leader waits for a member to lead and returns it.
func (c *cluster) leader(tb testing.TB, timeout time.Duration) *embed.Etcd {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, e := range c.members {
			if e.Server.Leader() == e.Server.MemberID() {
				return e
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("no leader within %s", timeout)
	return nil
}

func (c *cluster) close() {
	if c.client != nil {
		c.client.Close()
	}
	for _, e := range c.members {
		e.Close()
	}
}

// seed puts the bills, 100 to a transaction.
func (c *cluster) seed(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	for i := 0; i < bills; i += 100 {
		var ops []clientv3.Op
		for j := i; j < min(i+100, bills); j++ {
			b := bill{ID: billID(j), Account: "100101", Parcel: "0601-141-2001", BilledOn: "2026-03-02", Principal: 10000, Balance: 10000}
			v, err := json.Marshal(b)
			if err != nil {
				tb.Fatal(err)
			}
			ops = append(ops, clientv3.OpPut(billKey(b.ID), string(v)))
		}
		if _, err := c.client.Txn(ctx).Then(ops...).Commit(); err != nil {
			tb.Fatalf("seed: %v", err)
		}
	}
}

// pay takes the i-th payment: $1.00 on the bills in turn. It reads the
// bill, then commits the payment and the bill's new balance in one
// transaction guarded by the bill's mod revision, reading again when
// another client changed the bill in between.
func (c *cluster) pay(ctx context.Context, i int, at string) error {
	id := billID(i)
	for {
		got, err := c.client.Get(ctx, billKey(id), clientv3.WithSerializable())
		if err != nil {
			return fmt.Errorf("read bill %s: %w", id, err)
		}
		if len(got.Kvs) != 1 {
			return fmt.Errorf("bill %s: not found", id)
		}
		kv := got.Kvs[0]
		var b bill
		if err := json.Unmarshal(kv.Value, &b); err != nil {
			return fmt.Errorf("bill %s: %w", id, err)
		}
		p := payment{Bill: id, Seq: b.Payments + 1, Amount: 100, Tender: "card", Payer: "Bench", At: at, Before: b.Balance}
		b.Balance -= p.Amount
		b.Payments = p.Seq
		pv, err := json.Marshal(p)
		if err != nil {
			return err
		}
		bv, err := json.Marshal(b)
		if err != nil {
			return err
		}
		res, err := c.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(billKey(id)), "=", kv.ModRevision)).
			Then(clientv3.OpPut(paymentKey(id, p.Seq), string(pv)), clientv3.OpPut(billKey(id), string(bv))).
			Commit()
		if err != nil {
			return fmt.Errorf("pay bill %s: %w", id, err)
		}
		if res.Succeeded {
			return nil
		}
	}
}
