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
// membership and ledger stay as they were. An entry that would replace
// one the follower has applied is refused too. What the kiosk may send
// as itself (an entry at the end of the log) still reaches raft.
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

	// An entry at an index the follower has applied, of another term.
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	answered, err = rr.call(0, &raft.AppendEntriesRequest{
		RPCHeader: header, Term: forged, PrevLogEntry: applied - 1, PrevLogTerm: termAt(t, target.Node, applied-1),
		Entries: []*raft.Log{{Index: applied, Term: forged, Type: raft.LogNoop}},
	}, &aeResp)
	refused("a rewrite of an applied entry", answered, err, "which its ledger has applied")

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

	// As itself, at the end of the log: raft takes it (the FSM checks
	// each command's signature; a no-op invents nothing).
	_, lastIndex, lastTerm = raftState(t, target.Node)
	rr = dialRaft(t, kiosk.Identity, target.Addr)
	answered, err = rr.call(0, &raft.AppendEntriesRequest{
		RPCHeader: header, Term: forged, PrevLogEntry: lastIndex, PrevLogTerm: lastTerm,
		Entries: []*raft.Log{{Index: lastIndex + 1, Term: forged, Type: raft.LogNoop}},
	}, &aeResp)
	if err != nil || answered != "" || aeResp.Term != forged || !aeResp.Success {
		t.Fatalf("a no-op at the end of the log from the kiosk: answered %q, %+v, %v; want taken at term %d", answered, aeResp, err, forged)
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

// TestKioskHandsLeadershipOver: a kiosk that finds itself leading hands
// leadership to the clerk's node, and, with the clerk's node down, to the
// backup, since the others take from it neither a snapshot nor a change
// of membership; while it leads, it refuses a change of membership itself
// rather than append one that would never commit.
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
	kiosk := member(c, "hall-kiosk")
	lead := func(m *synctest.Member) {
		t.Helper()
		if l := c.Leader(10 * time.Second); l != m {
			if err := l.Node.Raft().LeadershipTransferToServer(raft.ServerID(m.ID), raft.ServerAddress(m.Addr)).Error(); err != nil {
				t.Fatalf("move leadership to %s: %v", m.ID, err)
			}
		}
		waitFor(t, 5*time.Second, m.ID+" leading (the test's premise)", func() bool { return m.Node.Raft().State() == raft.Leader })
	}
	handedTo := func(want string) {
		t.Helper()
		waitFor(t, 20*time.Second, "leadership handed from the kiosk to "+want, func() bool {
			l := c.Leader(10 * time.Second)
			return l.ID == want
		})
	}

	// The kiosk refuses to add or remove a voter (were it leading, the
	// others would refuse the configuration entry); the others do not.
	err := replica.MembershipAllowed(kiosk.Node)
	if err == nil || !strings.Contains(err.Error(), "take a change of membership only from the clerk's node or the backup") {
		t.Fatalf("a change of membership on the kiosk: %v; want refused", err)
	}
	for _, id := range []string{"hall-clerk", "annex-backup"} {
		if err := replica.MembershipAllowed(member(c, id).Node); err != nil {
			t.Fatalf("a change of membership on %s: %v", id, err)
		}
	}

	lead(kiosk)
	handedTo("hall-clerk")

	member(c, "hall-clerk").Stop()
	lead(kiosk)
	handedTo("annex-backup")
	if _, err := c.Leader(time.Second).Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatalf("pay with the backup leading: %v", err)
	}
}
