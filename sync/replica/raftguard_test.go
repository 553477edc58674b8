package replica_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// TestKioskCannotChangeMembershipNorReplaceALedger replays the attack of a
// stolen kiosk that speaks raft itself, in its own name, to a follower of
// the clerk's node: raft would follow it as leader on a higher term. A
// configuration entry that makes the kiosk the only voter and a snapshot
// are refused with the reason and never reach raft: the follower's term,
// membership and ledger stay as they were. So are a no-op in a term the
// follower did not elect the kiosk in and a vote asked as a leadership
// transfer: a kiosk does not take leadership from a leader that answers.
// An entry that would replace one the follower has applied is refused
// from any node, the clerk's included.
func TestKioskCannotChangeMembershipNorReplaceALedger(t *testing.T) {
	c := trustCluster(t)
	leader := c.Leader(10 * time.Second)
	kiosk := member(c, "hall-kiosk")
	target := member(c, "annex-backup")
	if target.ID == leader.ID {
		target = member(c, "hall-clerk")
	}
	term, lastIndex, lastTerm := raftState(t, target.Node)
	applied := target.Node.FSM().Applied()
	forged := term + 1000
	header := raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(kiosk.ID), Addr: []byte(kiosk.Addr)}
	refused := func(what, answered string, err error, want string) {
		t.Helper()
		if err != nil || !strings.Contains(answered, "not taken from this node's role") && want == "" || want != "" && !strings.Contains(answered, want) {
			t.Fatalf("%s from the kiosk: answered %q, %v; want refused", what, answered, err)
		}
	}

	// A configuration with the kiosk as the only voter.
	alone := raft.EncodeConfiguration(raft.Configuration{Servers: []raft.Server{
		{Suffrage: raft.Voter, ID: raft.ServerID(kiosk.ID), Address: raft.ServerAddress(kiosk.Addr)},
	}})
	rr := dialRaft(t, kiosk.Identity, target.Addr)
	var aeResp raft.AppendEntriesResponse
	answered, err := rr.call(0, &raft.AppendEntriesRequest{
		RPCHeader: header, Term: forged, PrevLogEntry: lastIndex, PrevLogTerm: lastTerm,
		Entries:           []*raft.Log{{Index: lastIndex + 1, Term: forged, Type: raft.LogConfiguration, Data: alone}},
		LeaderCommitIndex: lastIndex + 1,
	}, &aeResp)
	refused("a configuration entry", answered, err, "")
	if !rr.closed() {
		t.Error("the connection that carried the refused configuration stayed open")
	}

	// A snapshot past the follower's log, which would replace its ledger.
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	snapshot := []byte("a forged ledger")
	var isResp raft.InstallSnapshotResponse
	answered, err = rr.callWithData(2, &raft.InstallSnapshotRequest{
		RPCHeader: header, SnapshotVersion: raft.SnapshotVersionMax, Term: forged,
		LastLogIndex: lastIndex + 100, LastLogTerm: forged, Configuration: alone, ConfigurationIndex: lastIndex + 100,
		Size: int64(len(snapshot)),
	}, snapshot, &isResp)
	refused("a snapshot", answered, err, "")

	// An entry at an index the follower has applied, of another term,
	// from the other staff node's key: no role may send that.
	staff := member(c, "hall-clerk")
	if staff == target {
		staff = member(c, "annex-backup")
	}
	rr = dialRaft(t, staff.Identity, target.Addr)
	answered, err = rr.call(0, &raft.AppendEntriesRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(staff.ID), Addr: []byte(staff.Addr)},
		Term:      forged, PrevLogEntry: applied - 1, PrevLogTerm: termAt(t, target.Node, applied-1),
		Entries: []*raft.Log{{Index: applied, Term: forged, Type: raft.LogNoop}},
	}, &aeResp)
	if err != nil || !strings.Contains(answered, "which its ledger has applied") {
		t.Fatalf("a rewrite of an applied entry from %s: answered %q, %v; want refused", staff.ID, answered, err)
	}

	time.Sleep(200 * time.Millisecond)
	if nowTerm, _, _ := raftState(t, target.Node); nowTerm >= forged {
		t.Fatalf("a refused request reached raft: term %d (forged %d)", nowTerm, forged)
	}
	f := target.Node.Raft().GetConfiguration()
	if err := f.Error(); err != nil || len(f.Configuration().Servers) != 3 {
		t.Fatalf("the follower's configuration: %+v, %v; want the three nodes", f.Configuration(), err)
	}
	if got := termAt(t, target.Node, applied); got == forged {
		t.Fatalf("entry %d was replaced", applied)
	}
	if got := target.Node.FSM().Restores(); got != 0 {
		t.Fatalf("the follower restored %d snapshots", got)
	}

	// Even as itself, at the end of the log, and a leadership transfer
	// to itself: the follower did not elect it, and its leader answers.
	_, lastIndex, lastTerm = raftState(t, target.Node)
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	answered, err = rr.call(0, &raft.AppendEntriesRequest{
		RPCHeader: header, Term: forged, PrevLogEntry: lastIndex, PrevLogTerm: lastTerm,
		Entries: []*raft.Log{{Index: lastIndex + 1, Term: forged, Type: raft.LogNoop}},
	}, &aeResp)
	refused("a no-op at a term the follower did not elect it in", answered, err, "did not elect hall-kiosk leader of term")
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	var rvResp raft.RequestVoteResponse
	answered, err = rr.call(1, &raft.RequestVoteRequest{
		RPCHeader: header, Term: forged, LastLogIndex: lastIndex + 100, LastLogTerm: forged, LeadershipTransfer: true,
	}, &rvResp)
	refused("a vote asked as a leadership transfer", answered, err, "leadership is not handed to a kiosk node")
	if nowTerm, _, _ := raftState(t, target.Node); nowTerm >= forged || rvResp.Granted {
		t.Fatalf("the follower took the kiosk's term %d (granted %v)", nowTerm, rvResp.Granted)
	}
}

// termAt returns the term of the entry at index in n's raft log.
func termAt(t *testing.T, n *replica.Node, index uint64) uint64 {
	t.Helper()
	var l raft.Log
	if err := n.RaftLog().GetLog(index, &l); err != nil {
		t.Fatalf("log entry %d: %v", index, err)
	}
	return l.Term
}

// TestKioskHandsLeadershipOver plays the case a kiosk may lead for: the
// clerk's node down and the backup back from an outage without the
// payments the hall committed meanwhile. Only the kiosk holds them, so
// only it can be elected; it leads, brings the backup up to date and
// hands leadership to it, since the others take from a kiosk neither a
// snapshot nor a change of membership. It refuses a change of membership
// itself rather than append one that would never commit.
func TestKioskHandsLeadershipOver(t *testing.T) {
	// The village's three nodes as the appliance runs them: the backup
	// avoids leadership too.
	c := synctest.NewWith(t, synctest.Options{
		IDs:   []string{"hall-clerk", "hall-kiosk", "annex-backup"},
		Roles: map[string]string{"hall-kiosk": pki.RoleKiosk, "annex-backup": pki.RoleBackup},
		Tune:  func(cfg *replica.Config) { cfg.AvoidLeadership = cfg.ID == "annex-backup" },
	})
	c.Leader(10 * time.Second).Seed(2)
	c.Converge(20 * time.Second)
	kiosk, clerk, backup := member(c, "hall-kiosk"), member(c, "hall-clerk"), member(c, "annex-backup")

	// The kiosk refuses to add or remove a voter (were it leading, the
	// others would refuse the configuration entry); the others do not.
	err := replica.MembershipAllowed(kiosk.Node)
	if err == nil || !strings.Contains(err.Error(), "take a change of membership only from the clerk's node or the backup") {
		t.Fatalf("a change of membership on the kiosk: %v; want refused", err)
	}
	for _, m := range []*synctest.Member{clerk, backup} {
		if err := replica.MembershipAllowed(m.Node); err != nil {
			t.Fatalf("a change of membership on %s: %v", m.ID, err)
		}
	}

	waitFor(t, 20*time.Second, "the clerk's node leading", func() bool { return clerk.Node.Raft().State() == raft.Leader })
	backup.Stop()
	for i := range 5 {
		if _, err := clerk.Pay(synctest.BillID(i%2), "1.00"); err != nil {
			t.Fatalf("pay with the backup away: %v", err)
		}
	}
	want := clerk.Node.FSM().Applied()
	clerk.Stop()
	backup.Start()

	var seen []string
	waitFor(t, 30*time.Second, "the backup leading, handed leadership by the kiosk", func() bool {
		for _, m := range []*synctest.Member{kiosk, backup} {
			if m.Node.Raft().State() == raft.Leader && (len(seen) == 0 || seen[len(seen)-1] != m.ID) {
				seen = append(seen, m.ID)
			}
		}
		return backup.Node.Raft().State() == raft.Leader
	})
	if len(seen) == 0 || seen[0] != kiosk.ID {
		t.Fatalf("leaders seen: %q; want the kiosk first (the only node holding every committed payment)", seen)
	}
	if got := backup.Node.FSM().Applied(); got < want {
		t.Fatalf("the backup leads at applied index %d, short of %d the hall committed", got, want)
	}
	if _, err := backup.Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatalf("pay with the backup leading: %v", err)
	}
}
