package wsstream_test

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// inCluster returns ident as a node of the cluster with id clusterID.
func inCluster(tb testing.TB, ident *pki.Identity, clusterID string) *pki.Identity {
	tb.Helper()
	ident, err := ident.WithClusterID(clusterID)
	if err != nil {
		tb.Fatal(err)
	}
	return ident
}

// TestPeerOfAnotherClusterRefusedAtHandshake has nodes of two clusters of
// one village (same CA, different cluster ids, as when a cluster restored
// from a backup runs beside the real one) dial each other: both ends refuse
// before the WebSocket upgrade, naming both clusters, and neither accepts a
// connection. A peer that sends no cluster id (a cluster made before
// cluster ids) is refused as well. Nodes of one cluster connect.
func TestPeerOfAnotherClusterRefusedAtHandshake(t *testing.T) {
	const realID, restoredID = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	v := newVillage(t)
	srv := startNode(t, inCluster(t, v.issue("hall-clerk"), realID), nodeOptions{})
	restored := startNode(t, inCluster(t, v.issue("hall-kiosk"), restoredID), nodeOptions{})
	member := startNode(t, inCluster(t, v.issue("annex-backup"), realID), nodeOptions{})

	// The member of the same cluster gets through.
	c := dial(t, member.layer, srv)
	_ = accept(t, srv)
	c.Close()

	check := acceptNothing(t, srv)
	c, err := restored.layer.Dial(raft.ServerAddress(srv.addr), 5*time.Second)
	if err == nil {
		c.Close()
		t.Fatal("a node of another cluster connected")
	}
	if !errors.Is(err, pki.ErrForeignCluster) || !strings.Contains(err.Error(), realID) || !strings.Contains(err.Error(), restoredID) {
		t.Fatalf("Dial from another cluster: %v; want ErrForeignCluster naming both cluster ids", err)
	}

	// A peer sending no cluster id, and one sending another, get 409
	// with the server's own id.
	for name, h := range map[string]http.Header{"no cluster id": nil, "another cluster id": {wsstream.ClusterHeader: {restoredID}}} {
		ws, resp, err := rawDialer(restored.id.ClientTLS()).Dial(wsURL(srv), h)
		if err == nil {
			ws.Close()
			t.Fatalf("a peer with %s connected", name)
		}
		if resp == nil || resp.StatusCode != http.StatusConflict || resp.Header.Get(wsstream.ClusterHeader) != realID {
			t.Fatalf("a peer with %s: %v, %v; want 409 Conflict naming the server's cluster", name, resp, err)
		}
	}
	check()

	// The dialing end checks the server's answer too: a server that lets
	// anyone through but is of another cluster is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upgrader := websocket.Upgrader{}
	lax := &http.Server{
		TLSConfig:         inCluster(t, v.issue("annex-backup-2"), restoredID).ServerTLS(),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ws, err := upgrader.Upgrade(w, r, http.Header{wsstream.ClusterHeader: {restoredID}})
			if err == nil {
				ws.Close()
			}
		}),
	}
	go lax.ServeTLS(ln, "", "")
	t.Cleanup(func() { lax.Close() })
	if c, err := member.layer.Dial(raft.ServerAddress(ln.Addr().String()), 5*time.Second); err == nil {
		c.Close()
		t.Fatal("dialed a node of another cluster")
	} else if !errors.Is(err, pki.ErrForeignCluster) || !strings.Contains(err.Error(), restoredID) {
		t.Fatalf("Dial to another cluster: %v; want ErrForeignCluster naming its cluster", err)
	}
}
