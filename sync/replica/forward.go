package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// Leader forwarding. A follower's outbox entries are sent to the leader's
// peer port (HTTPS with mutual TLS, the same port that carries raft) in
// batches; the leader appends them to the log and answers with each
// command's result, exactly as if they had been submitted there. A failure
// whose outcome is unknown (the connection drops, leadership is lost) is
// retried later under the same command ids, which the FSM dedupes.

// ForwardPath is the leader-forwarding endpoint on the peer port.
const ForwardPath = "/forward"

// maxForwardBody bounds a forwarded batch.
const maxForwardBody = 16 << 20

type forwardRequest struct {
	Commands [][]byte `json:"commands"` // EncodeCommand output
}

type forwardResponse struct {
	Results []domain.Result `json:"results,omitempty"`
	Leader  string          `json:"leader,omitempty"` // when this node is not the leader
	Error   string          `json:"error,omitempty"`
}

// ErrNotLeader is returned by a forward to a node that no longer leads.
var ErrNotLeader = errors.New("peer is not the leader")

// peerRoleOf returns the role the caller's verified client certificate
// carries.
func peerRoleOf(r *http.Request) (domain.NodeRole, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return "", errors.New("no peer certificate")
	}
	role, err := pki.RoleOf(r.TLS.PeerCertificates[0])
	return domain.NodeRole(role), err
}

// ForwardHandler serves ForwardPath on the peer port. peerID returns the
// node id of the authenticated caller (from its client certificate); a
// node may only forward commands taken on itself.
func (n *Node) ForwardHandler(peerID func(*http.Request) (string, bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, ok := peerID(r)
		if !ok {
			writeJSON(w, http.StatusForbidden, forwardResponse{Error: "no peer certificate"})
			return
		}
		role, err := peerRoleOf(r)
		if err != nil {
			writeJSON(w, http.StatusForbidden, forwardResponse{Error: err.Error()})
			return
		}
		var req forwardRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxForwardBody))
		if err := dec.Decode(&req); err != nil || len(req.Commands) == 0 {
			writeJSON(w, http.StatusBadRequest, forwardResponse{Error: "malformed forward request"})
			return
		}
		cmds := make([]domain.Command, len(req.Commands))
		for i, data := range req.Commands {
			cmd, err := n.openForwarded(data, caller)
			if err != nil {
				writeJSON(w, http.StatusBadRequest, forwardResponse{Error: fmt.Sprintf("command %d: %v", i, err)})
				return
			}
			if cmd.Node != caller {
				writeJSON(w, http.StatusForbidden, forwardResponse{Error: fmt.Sprintf("node %s may not forward a command taken on %s", caller, cmd.Node)})
				return
			}
			if n.kinds.Cluster(cmd.Kind) {
				writeJSON(w, http.StatusForbidden, forwardResponse{Error: fmt.Sprintf("command %d: %s commands are the leader's own", i, cmd.Kind)})
				return
			}
			if need := n.kinds.Since(cmd.Kind); need > n.fsm.Format() {
				writeJSON(w, http.StatusConflict, forwardResponse{Error: fmt.Sprintf("command %d: %s needs ledger format %d; the cluster runs %d", i, cmd.Kind, need, n.fsm.Format())})
				return
			}
			cmds[i] = cmd
		}
		if n.raft.State() != raft.Leader {
			addr, _ := n.raft.LeaderWithID()
			writeJSON(w, http.StatusMisdirectedRequest, forwardResponse{Leader: string(addr), Error: ErrNotLeader.Error()})
			return
		}
		results, err := n.applyAsLeader(cmds, req.Commands, role, true)
		if err != nil && len(results) == 0 {
			writeJSON(w, http.StatusServiceUnavailable, forwardResponse{Error: err.Error()})
			return
		}
		// The prefix answered; the caller retries the rest.
		resp := forwardResponse{Results: results}
		writeJSON(w, http.StatusOK, resp)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// PeerClient calls other nodes' peer ports with this node's client
// certificate, naming its cluster on every request (wsstream.ClusterHeader).
type PeerClient struct {
	HTTP    *http.Client
	cluster string
}

// NewPeerClient returns a client that authenticates as id, of id's
// cluster.
func NewPeerClient(id *pki.Identity) *PeerClient {
	return &PeerClient{HTTP: &http.Client{
		Transport: &http.Transport{TLSClientConfig: id.ClientTLS(), ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 4},
		Timeout:   15 * time.Second,
	}, cluster: id.Cluster().ID}
}

// newRequest is http.NewRequestWithContext with the cluster named.
func (c *PeerClient) newRequest(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err == nil && c.cluster != "" {
		req.Header.Set(wsstream.ClusterHeader, c.cluster)
	}
	return req, err
}

// clusterGuard refuses a peer-port request from a node of another cluster
// (same village CA, another cluster id: a test or restored cluster)
// before anything else reads it: a missing header is a node of a cluster
// made before cluster ids, taken only by such a cluster.
func clusterGuard(own string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get(wsstream.ClusterHeader); got != own {
			writeJSON(w, http.StatusConflict, forwardResponse{Error: fmt.Sprintf("this node is of cluster %q; the caller says it is of cluster %q", own, got)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Forward sends encoded commands to the leader at addr and returns the
// results of those it committed, in order (a prefix of the batch).
func (c *PeerClient) Forward(ctx context.Context, addr raft.ServerAddress, commands [][]byte) ([]domain.Result, error) {
	body, err := json.Marshal(forwardRequest{Commands: commands})
	if err != nil {
		return nil, err
	}
	req, err := c.newRequest(ctx, http.MethodPost, "https://"+string(addr)+ForwardPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("forward to %s: %w", addr, err)
	}
	defer resp.Body.Close()
	var fr forwardResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxForwardBody)).Decode(&fr); err != nil {
		return nil, fmt.Errorf("forward to %s: %s: undecodable answer: %w", addr, resp.Status, err)
	}
	switch {
	case resp.StatusCode == http.StatusMisdirectedRequest:
		return nil, fmt.Errorf("forward to %s: %w (leader now %q)", addr, ErrNotLeader, fr.Leader)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("forward to %s: %s: %s", addr, resp.Status, fr.Error)
	case len(fr.Results) > len(commands):
		return nil, fmt.Errorf("forward to %s: %d results for %d commands", addr, len(fr.Results), len(commands))
	}
	return fr.Results, nil
}
