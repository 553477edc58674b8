package replica_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
	"github.com/villagehall/appliance/sync/wsstream"
)

// The attacks on the log itself: entries a stolen kiosk can sign, or
// forge, that reach every node's log as a leader's entries would. The
// kiosk's own key no longer carries them while the cluster has its leader
// (raftguard_test.go), but a kiosk the nodes elected, or any node they
// follow, could; so each test carries them over raft with the clerk's
// node's key (forgeAppend), over the real WebSocket transport with TLS,
// and checks that no replica's ledger changes but for the journal's
// record of the refusal, and that nothing halts.

// signedCluster is trustCluster with marks and checks taken often, so the
// tests need not wait a minute for the leader to mark the kiosk.
func signedCluster(t *testing.T, tune func(*replica.Config)) *synctest.Cluster {
	t.Helper()
	c := synctest.NewWith(t, synctest.Options{
		IDs:   []string{"hall-clerk", "hall-kiosk", "annex-backup"},
		Roles: map[string]string{"hall-kiosk": pki.RoleKiosk, "annex-backup": pki.RoleBackup},
		Tune: func(cfg *replica.Config) {
			cfg.ClockCheckEvery, cfg.MarkEvery = 200*time.Millisecond, 200*time.Millisecond
			if tune != nil {
				tune(cfg)
			}
		},
	})
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the ledger format that signs entries", func() bool { return leader.Node.FSM().Format() >= 4 })
	leader.Seed(2)
	c.Converge(20 * time.Second)
	return c
}

// quiet keeps the leader from appending checkpoints and marks while a
// test forges entries at the end of every node's log.
func quiet(cfg *replica.Config) { cfg.CheckpointEvery, cfg.MarkEvery = time.Hour, time.Hour }

// forgeAppend speaks raft to every running member as node from, with its
// identity (a node the transport takes AppendEntries from: the clerk's),
// and appends entries after the last of every member's log, committed at
// once. It returns the index of the first.
//
// The forgery must land at one index everywhere, yet a leader may append
// a mark or a checkpoint of its own at any moment. So it first sends every
// member an empty AppendEntries at a term above all of theirs: each steps
// down and follows the forger, and no node appends while it does (for an
// election timeout, half a second at least). Only when every member
// answers that its log ends at the same entry are the entries sent, in
// that same term; otherwise it waits for a leader again and retries.
func forgeAppend(t *testing.T, c *synctest.Cluster, from *synctest.Member, entries [][]byte) uint64 {
	t.Helper()
	layer, err := wsstream.New(wsstream.Config{Advertise: from.Addr, Identity: from.Identity})
	if err != nil {
		t.Fatal(err)
	}
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: layer, MaxPool: 1, Timeout: 5 * time.Second})
	defer trans.Close()
	send := func(m *synctest.Member, term, prev, prevTerm uint64, logs []*raft.Log) raft.AppendEntriesResponse {
		req := &raft.AppendEntriesRequest{
			RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(from.ID), Addr: []byte(from.Addr)},
			Term:      term, PrevLogEntry: prev, PrevLogTerm: prevTerm,
			Entries: logs, LeaderCommitIndex: prev + uint64(len(logs)),
		}
		var resp raft.AppendEntriesResponse
		if err := trans.AppendEntries(raft.ServerID(m.ID), raft.ServerAddress(m.Addr), req, &resp); err != nil {
			t.Fatalf("forged AppendEntries to %s: %v", m.ID, err)
		}
		return resp
	}
	for try := 0; try < 50; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		c.Converge(20 * time.Second)
		// Dial every member first (an append at term 0, which raft
		// ignores), so that the steps below spend no time connecting.
		for _, m := range c.Running() {
			send(m, 0, 0, 0, nil)
		}
		var term, last, lastTerm uint64
		same := true
		for i, m := range c.Running() {
			stats := m.Node.Raft().Stats()
			mt, _ := strconv.ParseUint(stats["term"], 10, 64)
			ml, _ := strconv.ParseUint(stats["last_log_index"], 10, 64)
			mlt, _ := strconv.ParseUint(stats["last_log_term"], 10, 64)
			term = max(term, mt)
			if i > 0 && (ml != last || mlt != lastTerm) {
				same = false
			}
			last, lastTerm = ml, mlt
		}
		if !same {
			continue
		}
		// Silence every leader: an empty append at a term far above any
		// an election may reach meanwhile, which each member takes if its
		// log holds the entry at last.
		term += 1000
		for _, m := range c.Running() {
			resp := send(m, term, last, lastTerm, nil)
			if !resp.Success || resp.LastLog != last {
				same = false
			}
		}
		if !same {
			continue
		}
		first := last + 1
		for _, m := range c.Running() {
			logs := make([]*raft.Log, len(entries))
			for i, data := range entries {
				logs[i] = &raft.Log{Index: first + uint64(i), Term: term, Type: raft.LogCommand, Data: data}
			}
			if resp := send(m, term, last, lastTerm, logs); !resp.Success {
				t.Fatalf("%s did not take the forged entries (term %d, last %d): the test does not reach the ledger", m.ID, resp.Term, resp.LastLog)
			}
		}
		return first
	}
	t.Fatal("the nodes' logs never ended at one entry while the forger led")
	return 0
}

// journalAt returns each node's journal outcome and error for the entries
// at indexes [from, to], waiting until every node applied them.
func journalAt(t *testing.T, c *synctest.Cluster, from, to uint64) map[string][]string {
	t.Helper()
	waitFor(t, 20*time.Second, "every node to apply the forged entries", func() bool {
		for _, m := range c.Running() {
			if m.Node.FSM().Applied() < to {
				return false
			}
		}
		return true
	})
	out := map[string][]string{}
	for _, m := range c.Running() {
		m.Node.FSM().Journal(func(e replica.JournalEntry) error {
			if e.Index >= from && e.Index <= to {
				out[m.ID] = append(out[m.ID], e.Outcome+": "+e.Error)
			}
			return nil
		})
	}
	return out
}

// TestForgedAppendEntriesChangeNothing replays the probe that made an
// administrator and halted the cluster: carried over raft at a higher term
// to every node, with entries made with the kiosk's key, it appends a staff_user add
// signed by the kiosk, the same claiming the clerk's node, an unsigned
// one, demo data, bytes that are no entry, a kiosk-signed entry whose
// command is garbage, and a command the clerk's node signed that the kiosk
// changed. Every node journals each as refused, nobody named mallory
// exists, no node halts, and the cluster goes on posting payments with one
// ledger on every node.
func TestForgedAppendEntriesChangeNothing(t *testing.T) {
	c := signedCluster(t, quiet)
	kiosk, clerk := member(c, "hall-kiosk"), member(c, "hall-clerk")
	at := domain.DateTimeOf(c.Now())
	admin := func(node string, seq uint64) domain.Command {
		return domain.Command{V: 1, ID: fmt.Sprintf("forged-admin-%d", seq), Kind: domain.KindStaffUser, At: at, Node: node, Seq: seq, Actor: "operator",
			Payload: &domain.StaffUserChange{Op: domain.StaffAdd, Username: "mallory", Name: "Mallory", Role: domain.RoleAdministrator, PasswordHash: "x"}}
	}
	sign := func(id *pki.Identity, cmd domain.Command, role string) []byte {
		data, err := replica.SignEntry(id, cmd, role, true)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	unsignedAdmin, _ := domain.EncodeCommand(admin("hall-kiosk", 9001))
	garbage := make([]byte, 64)
	rand.Read(garbage)
	signedGarbage, err := replica.SealRaw(kiosk.Identity, []byte("\x01{not a command"))
	if err != nil {
		t.Fatal(err)
	}
	seed := domain.Command{V: 1, ID: "forged-seed", Kind: domain.KindSeedDemo, At: at, Node: "hall-kiosk", Seq: 9005, Actor: "demo",
		Payload: &domain.SeedDemo{Bills: []domain.Bill{{ID: "B-9999", Account: "100101", Parcel: "0601-141-2001", BilledOn: at.Date, Principal: domain.MustMoney("9999.00"), Description: "x"}}}}
	// The clerk's signature over its own command, with the kiosk's
	// changes: the signature no longer matches.
	tampered := sign(clerk.Identity, admin("hall-clerk", 9006), string(domain.RoleAdministrator))
	tampered = []byte(strings.Replace(string(tampered), "mallory", "mallorx", 1))
	entries := [][]byte{
		sign(kiosk.Identity, admin("hall-kiosk", 9002), string(domain.RoleAdministrator)),
		sign(kiosk.Identity, admin("hall-clerk", 9003), string(domain.RoleAdministrator)),
		unsignedAdmin,
		sign(kiosk.Identity, seed, ""),
		garbage,
		signedGarbage,
		tampered,
	}
	first := forgeAppend(t, c, member(c, "hall-clerk"), entries)
	last := first + uint64(len(entries)) - 1
	outcomes := journalAt(t, c, first, last)
	for _, m := range c.Running() {
		got := outcomes[m.ID]
		if len(got) != len(entries) {
			t.Fatalf("%s journaled %d of the %d forged entries: %q", m.ID, len(got), len(entries), got)
		}
		for i, o := range got {
			if !strings.HasPrefix(o, "refused: not an entry a node of this cluster signed") {
				t.Errorf("%s, forged entry %d: %s; want refused as unsigned", m.ID, i+1, o)
			}
		}
		if err := m.Node.FSM().Halted(); err != nil {
			t.Errorf("%s halted: %v", m.ID, err)
		}
		var u domain.StaffUser
		if err := m.Node.Get(domain.CollectionStaffUsers, "mallory", &u); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Errorf("%s holds mallory: %+v, %v", m.ID, u, err)
		}
		if b, err := m.Node.FSM().Bill("B-9999"); err == nil {
			t.Errorf("%s holds the forged demo bill: %+v", m.ID, b)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for i := range 3 {
		waitFor(t, 20*time.Second, "a payment to post after the forgery", func() bool {
			_, err := c.Leader(10*time.Second).Pay(synctest.BillID(i%2), "1.00")
			return err == nil
		})
	}
	c.Converge(20 * time.Second)
}

// TestRemovedNodesKeySignsNothing: once the operator removes the backup,
// its certificate is revoked in the ledger, and an entry signed with its
// key (carried over raft by the clerk's node's connection, since the
// backup's own is refused at the handshake) is refused by every node.
func TestRemovedNodesKeySignsNothing(t *testing.T) {
	c := signedCluster(t, quiet)
	for c.Leader(10*time.Second).ID == "annex-backup" {
		time.Sleep(100 * time.Millisecond)
	}
	backup := member(c, "annex-backup")
	// The backup's key is in the ledger: it signed the entries it made.
	pay := func(m *synctest.Member) {
		waitFor(t, 20*time.Second, m.ID+"'s payment to post", func() bool {
			_, err := m.Pay(synctest.BillID(0), "1.00")
			return err == nil
		})
	}
	pay(backup)
	addr := c.Leader(10 * time.Second).Addr
	waitFor(t, 20*time.Second, "the leader to know the backup's certificate", func() bool {
		_, err := replica.NewPeerClient(backup.Identity).Status(context.Background(), raft.ServerAddress(addr))
		return err == nil
	})
	time.Sleep(time.Second)
	kiosk := member(c, "hall-kiosk")
	if err := replica.NewPeerClient(kiosk.Identity).Member(context.Background(), addr, replica.RemovePath, "annex-backup", "", synctest.OperatorToken); err != nil {
		t.Fatalf("remove the backup: %v", err)
	}
	backup.Stop()
	at := domain.DateTimeOf(c.Now())
	cmd := domain.Command{V: 1, ID: "from-a-removed-node", Kind: domain.KindPayBill, At: at, Node: "annex-backup", Seq: 7777, Actor: "x",
		Payload: &domain.PayBill{BillID: synctest.BillID(1), Amount: domain.MustMoney("5.00"), Tender: domain.Card}}
	data, err := replica.SignEntry(backup.Identity, cmd, "", false)
	if err != nil {
		t.Fatal(err)
	}
	first := forgeAppend(t, c, member(c, "hall-clerk"), [][]byte{data})
	for id, o := range journalAt(t, c, first, first) {
		if len(o) != 1 || !strings.Contains(o[0], "revoked") {
			t.Errorf("%s: the removed node's entry: %q; want refused as revoked", id, o)
		}
	}
	for _, m := range c.Running() {
		if rc, err := m.Node.FSM().Receipt(cmd.ReceiptNumber()); err == nil {
			t.Errorf("%s posted the removed node's payment: %+v", m.ID, rc)
		}
	}
}

// forwardSigned forwards cmd to the leader as the kiosk would, signed
// with its key.
func forwardSigned(t *testing.T, c *synctest.Cluster, from *synctest.Member, cmd domain.Command) domain.Result {
	t.Helper()
	data, err := replica.SignEntry(from.Identity, cmd, "", true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replica.NewPeerClient(from.Identity).Forward(context.Background(), leaderAddr(t, c), [][]byte{data})
	if err != nil || len(res) != 1 {
		t.Fatalf("forward %s: %+v, %v", cmd.ID, res, err)
	}
	return res[0]
}

// TestKioskCannotBackDateOrReuseReceiptNumbers replays the probe's
// back-dated card payment and its receipt overwrite: signed with the
// kiosk's key and forwarded as the kiosk forwards, a payment dated before
// the kiosk's last mark is refused, as is a payment that reuses the
// number of one already posted, whose receipt stays as it was. A payment
// taken as the kiosk takes them still posts, and demo data from the kiosk
// is refused.
func TestKioskCannotBackDateOrReuseReceiptNumbers(t *testing.T) {
	c := signedCluster(t, nil)
	kiosk := member(c, "hall-kiosk")
	posted, err := kiosk.Pay(synctest.BillID(0), "21.00")
	if err != nil || posted.Receipt == nil || posted.Receipt.Status != domain.Posted {
		t.Fatalf("a payment at the kiosk: %+v, %v", posted, err)
	}
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the leader to mark the kiosk", func() bool {
		return leader.Node.FSM().Mark("hall-kiosk").Issued > 0
	})
	mark := leader.Node.FSM().Mark("hall-kiosk")
	now := posted.Receipt.At // the kiosk's clock, in the nodes' zone
	pay := func(id string, at domain.DateTime, seq uint64, amount string) domain.Command {
		return domain.Command{V: 1, ID: id, Kind: domain.KindPayBill, At: at, Node: "hall-kiosk", Seq: seq, Actor: "kiosk",
			Payload: &domain.PayBill{BillID: synctest.BillID(1), Amount: domain.MustMoney(amount), Tender: domain.Card}}
	}

	backdated := forwardSigned(t, c, kiosk, pay("back-dated", domain.NewDateTime(now.Date.AddDays(-9), 9, 0, 0), mark.Issued+50, "210.00"))
	if backdated.Error == nil || !strings.Contains(backdated.Error.Error(), "back-dated") {
		t.Fatalf("a payment dated nine days before the kiosk's mark: %+v; want refused as back-dated", backdated)
	}

	var seq uint64
	fmt.Sscanf(strings.TrimPrefix(posted.Receipt.Number, "hall-kiosk-"), "%d", &seq)
	reused := forwardSigned(t, c, kiosk, pay("reused-number", now, seq, "4.00"))
	if reused.Error == nil || reused.Error.Code != domain.ECONFLICT {
		t.Fatalf("a payment reusing receipt number %s: %+v; want refused (conflict)", posted.Receipt.Number, reused)
	}
	c.Converge(20 * time.Second)
	for _, m := range c.Running() {
		rc, err := m.Node.FSM().Receipt(posted.Receipt.Number)
		if err != nil || !rc.Amount.Equal(domain.MustMoney("21.00")) || rc.CommandID != posted.CommandID {
			t.Errorf("%s's receipt %s after the reuse: %+v", m.ID, posted.Receipt.Number, rc)
		}
	}

	// Demo data: the kiosk may not sign it at all, and the leader takes
	// it from no other node, the clerk's included.
	seed := domain.Command{V: 1, ID: "seed-from-the-hall", Kind: domain.KindSeedDemo, At: now, Node: "hall-kiosk", Seq: mark.Issued + 60, Actor: "demo",
		Payload: &domain.SeedDemo{}}
	data, err := replica.SignEntry(kiosk.Identity, seed, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := replica.NewPeerClient(kiosk.Identity).Forward(context.Background(), leaderAddr(t, c), [][]byte{data}); err == nil || !strings.Contains(err.Error(), "may not take seed_demo") {
		t.Fatalf("demo data forwarded by the kiosk: %+v, %v; want refused", res, err)
	}
	clerk := member(c, "hall-clerk")
	if c.Leader(10*time.Second) != clerk {
		seed.Node, seed.Seq, seed.ID = "hall-clerk", clerk.Node.FSM().MaxSeq("hall-clerk")+100, "seed-from-the-office"
		if res := forwardSigned(t, c, clerk, seed); res.Error == nil || res.Error.Code != domain.EFORBIDDEN {
			t.Fatalf("demo data forwarded by the clerk's node: %+v; want refused", res)
		}
	}

	// An honest payment, dated by the kiosk's clock after its mark, posts.
	if res := forwardSigned(t, c, kiosk, pay("honest", now, mark.Issued+70, "3.00")); res.Error != nil {
		t.Fatalf("a payment dated at the kiosk's clock: %v", res.Error)
	}
}

// TestAnotherClusterOfTheVillageSignsNothingHere: a node of another
// cluster under the same village CA (a test cluster, a restored one) is
// refused on the peer port before its request is read, and an entry it
// signed, carried into this cluster's log, is refused by every replica:
// a signature names the cluster it was made for.
func TestAnotherClusterOfTheVillageSignsNothingHere(t *testing.T) {
	c := signedCluster(t, quiet)
	kiosk := member(c, "hall-kiosk")
	otherID, err := pki.NewClusterID()
	if err != nil {
		t.Fatal(err)
	}
	other, err := kiosk.Identity.WithClusterID(otherID)
	if err != nil {
		t.Fatal(err)
	}
	at := domain.DateTimeOf(c.Now())
	cmd := domain.Command{V: 1, ID: "from-the-test-cluster", Kind: domain.KindPayBill, At: at, Node: "hall-kiosk", Seq: kiosk.Node.FSM().MaxSeq("hall-kiosk") + 100, Actor: "kiosk",
		Payload: &domain.PayBill{BillID: synctest.BillID(1), Amount: domain.MustMoney("5.00"), Tender: domain.Card}}
	data, err := replica.SignEntry(other, cmd, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := replica.NewPeerClient(other).Forward(context.Background(), leaderAddr(t, c), [][]byte{data}); err == nil || !strings.Contains(err.Error(), "409") {
		t.Fatalf("a forward from another cluster: %+v, %v; want refused (409)", res, err)
	}
	first := forgeAppend(t, c, member(c, "hall-clerk"), [][]byte{data})
	for id, o := range journalAt(t, c, first, first) {
		if len(o) != 1 || !strings.Contains(o[0], "signature is not") {
			t.Errorf("%s: another cluster's entry: %q; want refused, its signature not this cluster's", id, o)
		}
	}
	for _, m := range c.Running() {
		if rc, err := m.Node.FSM().Receipt(cmd.ReceiptNumber()); err == nil {
			t.Errorf("%s posted another cluster's payment: %+v", m.ID, rc)
		}
	}
}
