package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// PeerConfig says where a clustered node's peer port listens and how it
// proves who it is.
type PeerConfig struct {
	// Identity is the node's village certificate and key.
	Identity *pki.Identity
	// Listen is the address the peer port binds ("0.0.0.0:9443").
	Listen string
	// Advertise is where the other nodes reach it ("10.0.0.2:9443"); raft
	// records it in the cluster configuration. Empty means Listen.
	Advertise string
	// WrapStream, if set, wraps the raft stream layer (fault injection:
	// partitions between chosen nodes).
	WrapStream func(raft.StreamLayer) raft.StreamLayer
	// WrapHandler, if set, wraps the peer port's handler (fault injection:
	// refusing chosen peers' requests, raft streams included).
	WrapHandler func(http.Handler) http.Handler
	// DialContext, if set, dials the TCP connections of the peer client
	// (leader forwarding, status, membership).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Authorize says who, with the operator's authority, asks for a
	// membership change (join, remove, transfer) on this node's peer port:
	// a node certificate proves only that the caller is one of the
	// village's machines. The appliance accepts this node's operator token
	// or an active administrator's API token (Authorization: Bearer).
	// Nil refuses every membership change.
	Authorize func(*http.Request) (string, error)
}

// OpenPeer opens a node that replicates with its peers: raft's RPCs travel
// over WebSockets with mutual TLS on the node's HTTPS peer port, which also
// serves leader forwarding, membership and status. The node id is the one
// in the certificate. Close stops the peer port too.
func OpenPeer(cfg Config, peer PeerConfig) (*Node, error) {
	if peer.Identity == nil {
		return nil, errors.New("replica: a clustered node needs its village certificate")
	}
	if cfg.ID == "" {
		cfg.ID = peer.Identity.NodeID()
	}
	if cfg.ID != peer.Identity.NodeID() {
		return nil, fmt.Errorf("replica: node id %q does not match its certificate (%q)", cfg.ID, peer.Identity.NodeID())
	}
	cfg.Role = domain.NodeRole(peer.Identity.Role())
	cfg.Identity = peer.Identity
	cluster, err := checkPeerCluster(cfg, peer.Identity)
	if err != nil {
		return nil, err
	}
	cfg.Cluster = cluster
	if peer.Advertise == "" {
		peer.Advertise = peer.Listen
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	layer, err := wsstream.New(wsstream.Config{Advertise: peer.Advertise, Identity: peer.Identity, Logger: logger.With("node", cfg.ID)})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", peer.Listen)
	if err != nil {
		layer.Close()
		return nil, fmt.Errorf("listen on peer port %s: %w", peer.Listen, err)
	}
	var stream raft.StreamLayer = layer
	if peer.WrapStream != nil {
		stream = peer.WrapStream(layer)
	}
	dials := newDialLog(stream) // why peers cannot be reached, for /healthz
	stream = dials
	// Pipelined replication is off (MaxRPCsInFlight 1: one AppendEntries
	// at a time per follower). hashicorp/raft v1.8's pipeline deadlocks
	// when a follower answers Success=false (after a partition or a
	// compaction) while a send waits: that follower never gets another
	// entry, heartbeats keep it from calling an election, and Shutdown
	// hangs. The fault suite hit it; see hashicorp/raft#612.
	// The transport takes a request from a peer only in the name of the
	// node its certificate names (wsstream.Transport).
	cfg.Transport = wsstream.NewTransport(&raft.NetworkTransportConfig{
		Stream: stream, MaxPool: 3, Timeout: 10 * time.Second, Logger: hclogFor(logger), MaxRPCsInFlight: 1,
	}, logger.With("node", cfg.ID))
	client := NewPeerClient(peer.Identity)
	if peer.DialContext != nil {
		client.HTTP.Transport.(*http.Transport).DialContext = peer.DialContext
	}
	cfg.Forward = client.Forward
	cfg.Status = client.Status
	n, err := Open(cfg)
	if err != nil {
		ln.Close()
		cfg.Transport.(io.Closer).Close()
		return nil, err
	}
	n.peers = client
	n.dials = dials
	// Set before the peer port serves: a snapshot or a change of
	// membership is taken only from the clerk's node or the backup
	// (raftguard.go).
	cfg.Transport.(*wsstream.Transport).SetGuard(n.guardRaft)
	n.authorize = peer.Authorize
	n.statedRole = domain.NodeRole(peer.Identity.StatedRole())
	// Every handshake, both ways, asks the ledger whether the peer's
	// certificate was revoked when its node was removed.
	peer.Identity.SetRevocation(n.fsm.CheckCertificate)
	handler := clusterGuard(cfg.Cluster.ID, n.PeerHandler(layer.Handler(), wsstream.Path, peerIDOf))
	if peer.WrapHandler != nil {
		handler = peer.WrapHandler(handler)
	}
	n.peerSrv = &http.Server{
		Handler:           handler,
		TLSConfig:         peer.Identity.ServerTLS(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	go n.peerSrv.ServeTLS(ln, "", "")
	return n, nil
}

// PeerIDOf names the caller of a peer-port request from its verified
// client certificate.
func PeerIDOf(r *http.Request) (string, bool) { return peerIDOf(r) }

// peerIDOf names the caller of a peer-port request from its verified
// client certificate.
func peerIDOf(r *http.Request) (string, bool) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return "", false
	}
	id, err := pki.NodeIDOf(r.TLS.PeerCertificates[0])
	return id, err == nil
}

// Peers returns the client this node uses to call its peers, or nil for a
// node alone.
func (n *Node) Peers() *PeerClient { return n.peers }

func (n *Node) closePeerPort() error {
	if n.peerSrv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := n.peerSrv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = n.peerSrv.Close()
	}
	return err
}
