package replica_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// TestLeaderGroupsConcurrentPayments: payments taken on the leader at once
// go into the log in groups, each signed once, over the real transport
// with TLS; every one posts once with its own receipt, and every node
// holds the same ledger.
func TestLeaderGroupsConcurrentPayments(t *testing.T) {
	c := signedCluster(t, func(cfg *replica.Config) {
		quiet(cfg)
		// A loaded machine may take longer than the default wait to
		// apply a payment, which then answers provisionally and posts
		// later: the test wants each answer from the ledger.
		cfg.SubmitWait = 30 * time.Second
	})
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the ledger format of group entries", func() bool { return leader.Node.FSM().Format() >= domain.GroupFormat })
	const clients, each = 16, 6
	var mu sync.Mutex
	receipts := map[string]bool{}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for range each {
				res, err := leader.Pay(synctest.BillID(i%2), "1.00")
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("client %d: %v", i, err)
				case res.Receipt == nil || res.Receipt.Status == domain.Provisional:
					t.Errorf("client %d: %+v; want a posted receipt", i, res.Receipt)
				case receipts[res.Receipt.Number]:
					t.Errorf("receipt %s given twice", res.Receipt.Number)
				default:
					receipts[res.Receipt.Number] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	c.Converge(20 * time.Second)
	groups, grouped, err := leader.Node.GroupEntries()
	if err != nil {
		t.Fatal(err)
	}
	if groups == 0 || grouped < 2*groups {
		t.Fatalf("%d group entries holding %d commands in the leader's log after %d payments from %d clients at once: none went together", groups, grouped, clients*each, clients)
	}
	t.Logf("%d payments: %d of them in %d group entries", clients*each, grouped, groups)
	for _, m := range c.Running() {
		if g, n := m.Node.FSM().GroupCounts(); g != uint64(groups) || n != uint64(grouped) {
			t.Errorf("%s counts %d group entries of %d commands; the log holds %d of %d", m.ID, g, n, groups, grouped)
		}
	}
	for _, m := range c.Running() {
		paid := domain.Cents(0)
		for i := range 2 {
			for _, p := range billPayments(t, m, synctest.BillID(i)) {
				paid = paid.Add(p)
			}
		}
		if want := domain.MustMoney(fmt.Sprintf("%d.00", clients*each)); !paid.Equal(want) {
			t.Errorf("%s: %s paid on the two bills; want %s", m.ID, paid, want)
		}
	}
}

// TestForgedGroupsChangeNothing: with the kiosk's key, a forger makes
// group entries, carried over raft to every node (forgeAppend): one
// holding a staff account the kiosk may not make and a payment in the
// clerk's node's name, and a group the clerk's node signed whose amount
// the kiosk changed. Every node
// refuses each command, posts nothing, halts nowhere, and the cluster
// goes on.
func TestForgedGroupsChangeNothing(t *testing.T) {
	c := signedCluster(t, quiet)
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the ledger format of group entries", func() bool { return leader.Node.FSM().Format() >= domain.GroupFormat })
	kiosk, clerk := member(c, "hall-kiosk"), member(c, "hall-clerk")
	at := domain.DateTimeOf(c.Now())
	pay := func(node string, seq uint64, amount string) domain.Command {
		return domain.Command{V: 1, ID: fmt.Sprintf("forged-pay-%d", seq), Kind: domain.KindPayBill, At: at, Node: node, Seq: seq, Actor: "test",
			Payload: &domain.PayBill{BillID: synctest.BillID(0), Amount: domain.MustMoney(amount), Tender: domain.Card}}
	}
	admin := domain.Command{V: 1, ID: "forged-admin", Kind: domain.KindStaffUser, At: at, Node: "hall-kiosk", Seq: 9101, Actor: "operator",
		Payload: &domain.StaffUserChange{Op: domain.StaffAdd, Username: "mallory", Name: "Mallory", Role: domain.RoleAdministrator, PasswordHash: "x"}}
	kioskGroup, err := replica.SignGroup(kiosk.Identity, []domain.Command{admin, pay("hall-clerk", 9102, "50.00")}, []string{string(domain.RoleAdministrator), ""}, true)
	if err != nil {
		t.Fatal(err)
	}
	clerkGroup, err := replica.SignGroup(clerk.Identity, []domain.Command{pay("hall-clerk", 9103, "1.00"), pay("hall-clerk", 9104, "2.00")}, []string{"", ""}, true)
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte(strings.Replace(string(clerkGroup), `"2.00"`, `"9.00"`, 1))
	if string(tampered) == string(clerkGroup) {
		t.Fatal("the amount to change is not in the group as the test expects")
	}
	before := billPayments(t, leader, synctest.BillID(0))
	first := forgeAppend(t, c, member(c, "hall-clerk"), [][]byte{kioskGroup, tampered})
	outcomes := journalAt(t, c, first, first+1)
	for _, m := range c.Running() {
		got := outcomes[m.ID]
		if len(got) != 3 {
			t.Fatalf("%s journaled %q for the two forged groups; want the kiosk's two commands and the tampered group refused", m.ID, got)
		}
		for i, o := range got {
			if !strings.HasPrefix(o, "refused: not an entry a node of this cluster signed") {
				t.Errorf("%s, forged link %d: %s; want refused as unsigned", m.ID, i+1, o)
			}
		}
		if err := m.Node.FSM().Halted(); err != nil {
			t.Errorf("%s halted: %v", m.ID, err)
		}
		var u domain.StaffUser
		if err := m.Node.Get(domain.CollectionStaffUsers, "mallory", &u); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Errorf("%s holds mallory: %+v, %v", m.ID, u, err)
		}
		if got := billPayments(t, m, synctest.BillID(0)); len(got) != len(before) {
			t.Errorf("%s: %d payments on the bill after the forgery; %d before", m.ID, len(got), len(before))
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	waitFor(t, 20*time.Second, "a payment to post after the forgery", func() bool {
		_, err := c.Leader(10*time.Second).Pay(synctest.BillID(1), "1.00")
		return err == nil
	})
	c.Converge(20 * time.Second)
}

// billPayments returns the amounts of the payments on bill in m's ledger.
func billPayments(t *testing.T, m *synctest.Member, bill string) []domain.Money {
	t.Helper()
	b, err := m.Node.FSM().Bill(bill)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.Money
	for _, p := range b.Payments {
		out = append(out, p.Amount)
	}
	return out
}
