package replica_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
	"github.com/villagehall/appliance/sync/synctest"
)

// trustCluster starts the village's three nodes with their roles: the
// clerk's node, the kiosk (resident kinds only) and the backup.
func trustCluster(t *testing.T) *synctest.Cluster {
	t.Helper()
	c := synctest.NewWith(t, synctest.Options{
		IDs:   []string{"hall-clerk", "hall-kiosk", "annex-backup"},
		Roles: map[string]string{"hall-kiosk": pki.RoleKiosk, "annex-backup": pki.RoleBackup},
	})
	c.Leader(10 * time.Second).Seed(2)
	c.Converge(20 * time.Second)
	return c
}

func member(c *synctest.Cluster, id string) *synctest.Member {
	for _, m := range c.Members {
		if m.ID == id {
			return m
		}
	}
	panic(id)
}

func leaderAddr(t *testing.T, c *synctest.Cluster) raft.ServerAddress {
	t.Helper()
	return raft.ServerAddress(c.Leader(10 * time.Second).Addr)
}

// forgedAdmin is a staff_user add of an administrator, as the security
// probe sent it with the kiosk's certificate: its own node name, any
// actor, signed with the kiosk's key (or not at all).
func forgedAdmin(t *testing.T, kiosk *pki.Identity, at domain.DateTime) [][]byte {
	cmd := domain.Command{V: 1, ID: "forged-admin", Kind: domain.KindStaffUser, At: at, Node: kiosk.NodeID(), Seq: 9999, Actor: "admin",
		Payload: &domain.StaffUserChange{Op: domain.StaffAdd, Username: "mallory", Name: "Mallory", Role: domain.RoleAdministrator, PasswordHash: "x"}}
	plain, _ := domain.EncodeCommand(cmd)
	signed, err := replica.SignEntry(kiosk, cmd, string(domain.RoleAdministrator), true)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{plain, signed}
}

// TestKioskCertificateCannotForgeStaffCommands replays the probe: with the
// kiosk's own certificate, a staff_user add forwarded to the leader,
// unsigned or signed with the kiosk's key, is refused and never enters the
// log; a resident payment is taken. The kiosk node itself refuses staff
// kinds at intake.
func TestKioskCertificateCannotForgeStaffCommands(t *testing.T) {
	c := trustCluster(t)
	leader := c.Leader(10 * time.Second)
	waitFor(t, 20*time.Second, "the ledger format that signs entries", func() bool { return leader.Node.FSM().Format() >= 4 })
	before := leader.Node.FSM().Applied()
	kiosk := replica.NewPeerClient(member(c, "hall-kiosk").Identity)
	now := domain.DateTimeOf(c.Now())
	for i, data := range forgedAdmin(t, member(c, "hall-kiosk").Identity, now) {
		res, err := kiosk.Forward(context.Background(), leaderAddr(t, c), [][]byte{data})
		if err == nil || !strings.Contains(err.Error(), []string{"not signed", "may not take staff_user"}[i]) {
			t.Fatalf("forged staff_user from the kiosk (%s): %+v, %v; want refused", []string{"unsigned", "signed"}[i], res, err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	// The cluster's own entries (its parameters, marks) may land
	// meanwhile; the forged command must not be among them.
	for _, e := range appliedSince(t, leader.Node, before) {
		if strings.Contains(e, "forged-admin") {
			t.Fatalf("the forged command entered the log: %v", e)
		}
	}
	var u domain.StaffUser
	if err := leader.Node.Get(domain.CollectionStaffUsers, "mallory", &u); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("mallory exists: %+v, %v", u, err)
	}

	kn := member(c, "hall-kiosk").Node
	cmd, err := kn.NewCommand(domain.KindStaffUser, "admin")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.StaffUserChange{Op: domain.StaffAdd, Username: "mallory", Name: "M", Role: domain.RoleAdministrator, PasswordHash: "x"}
	if _, err := kn.Submit(context.Background(), cmd); domain.ErrorCode(err) != domain.EFORBIDDEN {
		t.Fatalf("the kiosk node took a staff command: %v", err)
	}
	// The kiosk still takes what residents do.
	if _, err := member(c, "hall-kiosk").Pay(synctest.BillID(0), "1.00"); err != nil {
		t.Fatalf("a resident payment at the kiosk: %v", err)
	}
}

// TestFutureDatedCommandNeverFreezesTheLedger replays the probe's second
// step: a command dated six hours ahead, forwarded with a member's
// certificate, is refused by the leader before the log, so the ledger's
// latest intake time (below which payments are refused) does not move.
func TestFutureDatedCommandNeverFreezesTheLedger(t *testing.T) {
	c := trustCluster(t)
	leader := c.Leader(10 * time.Second)
	latest := leader.Node.FSM().Latest()
	clerk := replica.NewPeerClient(member(c, "hall-clerk").Identity)
	future := domain.DateTimeOf(c.Now().Add(6 * time.Hour))
	cmd := domain.Command{V: 1, ID: "from-the-future", Kind: domain.KindPayBill, At: future, Node: "hall-clerk", Seq: 8888, Actor: "x",
		Payload: &domain.PayBill{BillID: synctest.BillID(0), Amount: domain.MustMoney("1.00"), Tender: domain.Card}}
	waitFor(t, 20*time.Second, "the ledger format that signs entries", func() bool { return leader.Node.FSM().Format() >= 4 })
	data, err := replica.SignEntry(member(c, "hall-clerk").Identity, cmd, "", true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := clerk.Forward(context.Background(), leaderAddr(t, c), [][]byte{data})
	if err != nil || len(res) != 1 || res[0].Error == nil || !strings.Contains(res[0].Error.Error(), "after the leader's clock") {
		t.Fatalf("future-dated command: %+v, %v; want refused", res, err)
	}
	if got := leader.Node.FSM().Latest(); got != latest {
		t.Fatalf("the ledger's latest intake time moved %s → %s", latest, got)
	}
	if _, err := member(c, "hall-kiosk").Pay(synctest.BillID(1), "1.00"); err != nil {
		t.Fatalf("payments after the attempt: %v", err)
	}
}

// TestMembershipNeedsTheOperatorAndRemovedCertificatesAreRevoked replays
// the probe's third step: the kiosk's certificate alone cannot remove the
// backup; with the operator's authority the backup is removed, and its
// certificate is refused at the TLS handshake by every node from then on,
// while a certificate issued to it afterwards is accepted.
func TestMembershipNeedsTheOperatorAndRemovedCertificatesAreRevoked(t *testing.T) {
	c := trustCluster(t)
	for c.Leader(10*time.Second).ID == "annex-backup" {
		time.Sleep(100 * time.Millisecond) // the backup hands leadership to the hall
	}
	addr := string(leaderAddr(t, c))
	kiosk := replica.NewPeerClient(member(c, "hall-kiosk").Identity)
	for _, tok := range []string{"", "guess"} {
		if err := kiosk.Member(context.Background(), addr, replica.RemovePath, "annex-backup", "", tok); err == nil {
			t.Fatalf("the kiosk's certificate with token %q removed the backup", tok)
		}
	}
	backup := member(c, "annex-backup")
	// The leader learns the backup's certificate from its status calls.
	waitFor(t, 20*time.Second, "the cluster to know every node's certificate", func() bool {
		_, err := replica.NewPeerClient(backup.Identity).Status(context.Background(), raft.ServerAddress(addr))
		return err == nil
	})
	time.Sleep(time.Second)
	if err := kiosk.Member(context.Background(), addr, replica.RemovePath, "annex-backup", "", synctest.OperatorToken); err != nil {
		t.Fatalf("remove with the operator's authority: %v", err)
	}
	old := replica.NewPeerClient(backup.Identity)
	waitFor(t, 20*time.Second, "every remaining node to refuse the removed certificate", func() bool {
		for _, id := range []string{"hall-clerk", "hall-kiosk"} {
			_, err := old.Status(context.Background(), raft.ServerAddress(member(c, id).Addr))
			if err == nil {
				return false
			}
		}
		return true
	})
	_, err := old.Status(context.Background(), raft.ServerAddress(addr))
	if err == nil || !isHandshakeRefusal(err) {
		t.Fatalf("the removed certificate: %v; want the handshake refused", err)
	}
	if err := old.Member(context.Background(), addr, replica.JoinPath, "annex-backup", backup.Addr, synctest.OperatorToken); err == nil {
		t.Fatal("the removed node rejoined with its old certificate")
	}
	fresh, err := c.Issue("annex-backup", pki.RoleBackup)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replica.NewPeerClient(fresh).Status(context.Background(), raft.ServerAddress(addr)); err != nil {
		t.Fatalf("a certificate issued after the removal: %v", err)
	}
}

func isHandshakeRefusal(err error) bool {
	var ue interface{ Unwrap() error }
	return err != nil && (errors.As(err, &ue) || strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "certificate"))
}

var _ = http.StatusOK
