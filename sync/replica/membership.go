package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
)

// Peer-port paths for cluster management. Every call is authenticated by
// the caller's village certificate (mutual TLS on the peer port).
const (
	JoinPath     = "/cluster/join"
	RemovePath   = "/cluster/remove"
	TransferPath = "/cluster/transfer"
	StatusPath   = "/cluster/status"
)

// NodeStatus is one node's own account of itself, served at StatusPath.
type NodeStatus struct {
	ID           string    `json:"id"`
	Address      string    `json:"address"`
	State        string    `json:"state"`
	Leader       string    `json:"leader"`
	Term         uint64    `json:"term"`
	AppliedIndex uint64    `json:"applied_index"`
	LastIndex    uint64    `json:"last_index"`
	LastContact  time.Time `json:"last_contact,omitzero"`
	PreferLeader bool      `json:"prefer_leader"`
	// AtHall says the node stands at village hall (atHall). A release
	// before it reports false: read PreferLeader instead (MemberView).
	AtHall bool      `json:"at_hall,omitempty"`
	Clock  time.Time `json:"clock"` // the node's clock when it answered
	// Format is the newest ledger format the node's build applies (0 from
	// a release before ledger formats).
	Format int `json:"format,omitempty"`
	// Digests are the node's recent checkpoint hashes (divergence
	// detection, digest.go).
	Digests []Digest `json:"digests,omitempty"`
	// Halted says why the node stopped applying the log, if it did.
	Halted string `json:"halted,omitempty"`
	// Issued is the highest receipt sequence the node has handed out, and
	// Answered the highest at or below which the ledger has answered
	// every command it took (outbox.marks): the leader marks them in the
	// ledger with Clock (sequence.go).
	Issued   uint64 `json:"issued,omitempty"`
	Answered uint64 `json:"answered,omitempty"`

	rtMid  time.Time // the asker's clock half way through the request
	serial string    // the serial of the certificate the node answered with
}

// Status returns this node's status.
func (n *Node) Status() NodeStatus {
	_, leader := n.raft.LeaderWithID()
	s := NodeStatus{
		ID:           n.cfg.ID,
		Address:      string(n.transport.LocalAddr()),
		State:        n.raft.State().String(),
		Leader:       string(leader),
		Term:         n.raft.CurrentTerm(),
		AppliedIndex: n.fsm.Applied(),
		LastIndex:    n.raft.LastIndex(),
		PreferLeader: !n.cfg.AvoidLeadership,
		AtHall:       n.atHall(),
		Clock:        n.cfg.Now(),
		Format:       n.cfg.LedgerFormat,
		Digests:      n.fsm.Digests(),
	}
	if err := n.fsm.Halted(); err != nil {
		s.Halted = err.Error()
	}
	if issued, answered, err := n.box.marks(); err == nil {
		s.Issued, s.Answered = issued, answered
	}
	s.Clock = n.cfg.Now() // after the marks: a number handed out later is dated later
	if n.raft.State() == raft.Leader {
		s.LastContact = time.Now()
	} else {
		s.LastContact = n.raft.LastContact()
	}
	return s
}

type memberRequest struct {
	ID      string `json:"id"`
	Address string `json:"address,omitempty"`
}

type memberResponse struct {
	OK     bool   `json:"ok,omitempty"`
	Leader string `json:"leader,omitempty"`
	Error  string `json:"error,omitempty"`
}

// PeerHandler returns the handler of the node's peer port: raft's stream
// (the transport's handler), leader forwarding, membership and status.
// peerID names the authenticated caller from its client certificate.
func (n *Node) PeerHandler(raftStream http.Handler, raftPath string, peerID func(*http.Request) (string, bool)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(raftPath, raftStream)
	mux.Handle("POST "+ForwardPath, n.ForwardHandler(peerID))
	mux.HandleFunc("GET "+StatusPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, n.Status())
	})
	member := func(act func(caller string, req memberRequest) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			caller, ok := peerID(r)
			if !ok {
				writeJSON(w, http.StatusForbidden, memberResponse{Error: "no peer certificate"})
				return
			}
			if n.authorize == nil {
				writeJSON(w, http.StatusForbidden, memberResponse{Error: "membership changes are not accepted on this node"})
				return
			}
			who, err := n.authorize(r)
			if err != nil {
				writeJSON(w, http.StatusUnauthorized, memberResponse{Error: "a membership change needs the operator's authority (the operator token of this node, or an administrator's API token): " + err.Error()})
				return
			}
			n.log.Info("membership change", "path", r.URL.Path, "by", who, "via", caller)
			var req memberRequest
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
				writeJSON(w, http.StatusBadRequest, memberResponse{Error: "malformed request"})
				return
			}
			if n.raft.State() != raft.Leader {
				addr, _ := n.raft.LeaderWithID()
				writeJSON(w, http.StatusMisdirectedRequest, memberResponse{Leader: string(addr), Error: ErrNotLeader.Error()})
				return
			}
			if err := act(caller, req); err != nil {
				writeJSON(w, http.StatusConflict, memberResponse{Error: err.Error()})
				return
			}
			writeJSON(w, http.StatusOK, memberResponse{OK: true})
		}
	}
	mux.HandleFunc("POST "+JoinPath, member(func(caller string, req memberRequest) error {
		// A node joins itself, with its own certificate: the village CA
		// issuing it a certificate is what admits it.
		if req.ID != caller || req.Address == "" {
			return fmt.Errorf("node %s may only join itself, with its peer address", caller)
		}
		if err := n.mayChangeMembership(); err != nil {
			return err
		}
		if err := n.checkJoinerFormat(req.ID, req.Address); err != nil {
			return err
		}
		n.log.Info("adding voter", "id", req.ID, "address", req.Address)
		return n.raft.AddVoter(raft.ServerID(req.ID), raft.ServerAddress(req.Address), 0, 30*time.Second).Error()
	}))
	mux.HandleFunc("POST "+RemovePath, member(func(caller string, req memberRequest) error {
		if _, err := n.serverAddress(req.ID); err != nil {
			return err
		}
		if req.ID == n.cfg.ID {
			return errors.New("a leader does not remove itself: transfer leadership first")
		}
		if err := n.mayChangeMembership(); err != nil {
			return err
		}
		n.log.Info("removing server", "id", req.ID, "by", caller)
		if err := n.revoke(req.ID); err != nil {
			return fmt.Errorf("revoke %s's certificate: %w", req.ID, err)
		}
		return n.raft.RemoveServer(raft.ServerID(req.ID), 0, 30*time.Second).Error()
	}))
	mux.HandleFunc("POST "+TransferPath, member(func(caller string, req memberRequest) error {
		n.log.Info("transferring leadership", "to", req.ID, "by", caller)
		if req.ID == "" {
			return n.raft.LeadershipTransfer().Error()
		}
		addr, err := n.serverAddress(req.ID)
		if err != nil {
			return err
		}
		return n.raft.LeadershipTransferToServer(raft.ServerID(req.ID), addr).Error()
	}))
	return mux
}

// mayChangeMembership refuses a change of membership on a kiosk that
// leads: its peers take no configuration entry from a kiosk (raftguard.go),
// so the change would never commit and would hold up every entry after it.
func (n *Node) mayChangeMembership() error {
	if n.statedRole != domain.NodeKiosk {
		return nil
	}
	return fmt.Errorf("this %s node leads for now, and the other nodes take a change of membership only from the clerk's node or the backup: "+
		"it hands leadership to one of them as soon as one is caught up; try again then", n.statedRole)
}

func (n *Node) serverAddress(id string) (raft.ServerAddress, error) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return "", err
	}
	for _, s := range f.Configuration().Servers {
		if string(s.ID) == id {
			return s.Address, nil
		}
	}
	return "", fmt.Errorf("no server %q in the cluster", id)
}

// Member asks the leader at addr (or the leader it names) to run a
// membership action: JoinPath, RemovePath or TransferPath, with the
// operator's authority (token: this node's operator token or an
// administrator's API token). While the cluster is electing a leader (the
// node answers that it does not lead and knows no leader) it asks again,
// for up to about five seconds or until ctx ends.
func (c *PeerClient) Member(ctx context.Context, addr, path, id, address, token string) error {
	const electionWait, electionTries = 200 * time.Millisecond, 25
	for range electionTries {
		body, _ := json.Marshal(memberRequest{ID: id, Address: address})
		req, err := c.newRequest(ctx, http.MethodPost, "https://"+addr+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.HTTP.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		var mr memberResponse
		err = json.NewDecoder(resp.Body).Decode(&mr)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: undecodable answer", addr, resp.Status)
		}
		switch {
		case resp.StatusCode == http.StatusOK:
			return nil
		case resp.StatusCode == http.StatusMisdirectedRequest && mr.Leader != "":
			addr = mr.Leader
			continue
		case resp.StatusCode == http.StatusMisdirectedRequest:
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: no leader: %w", addr, ctx.Err())
			case <-time.After(electionWait):
			}
			continue
		default:
			return fmt.Errorf("%s: %s: %s", addr, resp.Status, mr.Error)
		}
	}
	return errors.New("could not reach the leader")
}

// Status asks the node at addr for its status.
func (c *PeerClient) Status(ctx context.Context, addr raft.ServerAddress) (NodeStatus, error) {
	var s NodeStatus
	req, err := c.newRequest(ctx, http.MethodGet, "https://"+string(addr)+StatusPath, nil)
	if err != nil {
		return s, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("%s: %s", addr, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return s, err
	}
	if resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0 {
		s.serial = resp.TLS.PeerCertificates[0].SerialNumber.String()
	}
	return s, nil
}

// ClusterView is the cluster as one node sees it: the configuration, and
// each member's own status where it answered.
type ClusterView struct {
	Leader string       `json:"leader"`
	Nodes  []MemberView `json:"nodes"`
}

// MemberView is one member of the cluster.
type MemberView struct {
	ID           string    `json:"id"`
	Address      string    `json:"address"`
	Suffrage     string    `json:"suffrage"`
	State        string    `json:"state"` // raft state, or "unreachable"
	LastContact  time.Time `json:"last_contact,omitzero"`
	AppliedIndex uint64    `json:"applied_index"`
	Lag          uint64    `json:"lag"` // entries behind the most advanced member
	PreferLeader bool      `json:"prefer_leader"`
	AtHall       bool      `json:"at_hall"`
	Error        string    `json:"error,omitempty"`
}

// Cluster asks every member for its status (at most about a second) and
// returns the view. A member that has not answered by then is shown
// unreachable; its request is not waited for (a peer that stopped
// reading can hold a request past its deadline: forwardBatch).
func (n *Node) Cluster(ctx context.Context) (ClusterView, error) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return ClusterView{}, err
	}
	_, leader := n.raft.LeaderWithID()
	view := ClusterView{Leader: string(leader)}
	servers := f.Configuration().Servers
	view.Nodes = make([]MemberView, len(servers))
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	type answer struct {
		i   int
		st  NodeStatus
		err error
	}
	answers := make(chan answer, len(servers))
	for i, s := range servers {
		view.Nodes[i] = MemberView{ID: string(s.ID), Address: string(s.Address), Suffrage: s.Suffrage.String(),
			State: "unreachable", Error: "no answer within a second"}
		go func() {
			var st NodeStatus
			var err error
			switch {
			case s.ID == raft.ServerID(n.cfg.ID):
				st = n.Status()
			case n.cfg.Status != nil:
				st, err = n.cfg.Status(ctx, s.Address)
			default:
				err = errors.New("no peer client")
			}
			answers <- answer{i, st, err}
		}()
	}
wait:
	for range servers {
		select {
		case a := <-answers:
			m := &view.Nodes[a.i]
			if a.err != nil {
				m.Error = a.err.Error()
				continue
			}
			m.State, m.Error, m.LastContact, m.AppliedIndex, m.PreferLeader = a.st.State, "", a.st.LastContact, a.st.AppliedIndex, a.st.PreferLeader
			m.AtHall = a.st.AtHall || a.st.PreferLeader
		case <-ctx.Done():
			break wait
		}
	}
	var top uint64
	for _, m := range view.Nodes {
		top = max(top, m.AppliedIndex)
	}
	for i := range view.Nodes {
		if view.Nodes[i].State != "unreachable" {
			view.Nodes[i].Lag = top - view.Nodes[i].AppliedIndex
		}
	}
	sort.Slice(view.Nodes, func(i, j int) bool { return view.Nodes[i].ID < view.Nodes[j].ID })
	return view, nil
}

// atHall reports whether this node stands at village hall: one that may
// lead (the clerk's node), or the kiosk, which avoids leadership only
// because it stands in a public hallway. A node that avoids leadership
// for any other reason is the backup in the second building.
func (n *Node) atHall() bool {
	return !n.cfg.AvoidLeadership || n.cfg.Role == domain.NodeKiosk
}

// placeLeader moves leadership off a node that should not lead. The
// backup, in the second building, hands it to the clerk's node, so that
// village hall keeps the leader and the kiosk's and the clerk's writes
// commit on the hall's LAN without crossing to the second building. The
// kiosk hands it to the clerk's node, else to the backup: the others take
// neither a snapshot nor a change of membership from a kiosk
// (raftguard.go), so a kiosk leads only until a node they trust with
// those can. It looks every two election timeouts once the node has led
// that long, and asks the voters for their status all at once, acting on
// those that answer within a second: a voter that does not answer (a
// frozen or unplugged machine) is passed over, not waited for.
func (n *Node) placeLeader() {
	defer n.wg.Done()
	every := 2 * n.timing.election
	tick := time.NewTicker(every)
	defer tick.Stop()
	var leaderSince time.Time
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		if n.raft.State() != raft.Leader {
			leaderSince = time.Time{}
			continue
		}
		if leaderSince.IsZero() {
			leaderSince = time.Now()
		}
		if time.Since(leaderSince) < every || n.cfg.Status == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		view, err := n.Cluster(ctx)
		cancel()
		if err != nil {
			continue
		}
		if m, ok := handOverTo(view, n.cfg.ID, n.cfg.Role == domain.NodeKiosk, n.fsm.Applied()); ok {
			n.log.Info("handing leadership over", "to", m.ID)
			if err := n.raft.LeadershipTransferToServer(raft.ServerID(m.ID), raft.ServerAddress(m.Address)).Error(); err != nil {
				n.log.Warn("leadership transfer", "to", m.ID, "err", err)
			}
		}
	}
}

// handOverLag is how far behind the leader a voter may be and still be
// handed leadership: raft's transfer brings the target up to the leader's
// last entry before it asks it to stand, so this only passes over a voter
// still far behind (one rebuilt, or back from a long outage). A narrow
// window passed over a caught-up kiosk whenever a burst of payments was in
// flight at the moment of asking, and the backup kept leadership.
const handOverLag = 1024

// handOverTo picks the voter that a leader avoiding leadership (self, a
// kiosk or not, its ledger applied up to applied) hands over to: a
// follower that answered and is caught up within handOverLag entries, the
// clerk's node (one that prefers to lead) before any other; a kiosk
// also hands it to the backup (a node not at the hall) when no clerk's
// node can take it. The backup never hands it to the kiosk, and no node
// hands it to one that may lead no more than itself.
func handOverTo(view ClusterView, self string, selfKiosk bool, applied uint64) (MemberView, bool) {
	var best MemberView
	var ok bool
	rank := func(m MemberView) int {
		switch {
		case m.PreferLeader:
			return 2
		case selfKiosk && !m.AtHall:
			return 1
		}
		return 0
	}
	for _, m := range view.Nodes {
		if m.ID == self || m.Suffrage != raft.Voter.String() || m.State != raft.Follower.String() || rank(m) == 0 {
			continue
		}
		if m.AppliedIndex+handOverLag < applied {
			continue // not caught up yet
		}
		if !ok || rank(m) > rank(best) || rank(m) == rank(best) && m.AppliedIndex > best.AppliedIndex {
			best, ok = m, true
		}
	}
	return best, ok
}

// revoke appends a revocation of node id's certificates: the one it last
// presented to this node, if known, and every one issued before now (less
// the hour certificates are backdated by, so one issued after this moment
// is accepted). A cluster still at ledger format 1 (a member runs an older
// release) cannot record it; the removal goes ahead with a warning.
func (n *Node) revoke(id string) error {
	if n.fsm.Format() < domain.KindRevokeNode.Since() {
		n.log.Warn("removing a node without revoking its certificate: a member still runs an older release", "node", id)
		return nil
	}
	if n.fsm.Format() >= signedFormat && !n.appends(domain.KindRevokeNode) {
		return fmt.Errorf("the ledger takes a revocation only from a clerk or backup node, and this %s node leads: transfer leadership to the clerk's node, then remove %s", n.cfg.Role, id)
	}
	cmd, err := n.internalCommand(domain.KindRevokeNode)
	if err != nil {
		return err
	}
	n.serialMu.Lock()
	serial := n.serials[id]
	n.serialMu.Unlock()
	cmd.Payload = &domain.RevokeNode{Node: id, Serial: serial, Before: n.cfg.Now().Add(-time.Hour).UTC()}
	return n.applyInternal(cmd)
}

// JoinCluster asks the cluster, through the node at addr, to add this node
// as a voter, with the operator's authority (token), and retries until
// this node is a member or closes. A node joins once it is running and
// listening: adding a voter that cannot yet answer would cost a two-node
// cluster its quorum.
//
// The channel it returns is closed once this node is a member.
func (n *Node) JoinCluster(addr, token string) <-chan struct{} {
	joined := make(chan struct{})
	if n.peers == nil {
		return joined
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for !n.isMember() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := n.peers.Member(ctx, addr, JoinPath, n.cfg.ID, string(n.transport.LocalAddr()), token)
			cancel()
			if err == nil {
				n.log.Info("joined the cluster", "via", addr)
				close(joined)
				return
			}
			n.log.Warn("join the cluster", "via", addr, "err", err)
			select {
			case <-n.done:
				return
			case <-time.After(2 * time.Second):
			}
		}
		close(joined)
	}()
	return joined
}

// isMember reports whether this node is in its own copy of the cluster
// configuration.
func (n *Node) isMember() bool {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return false
	}
	for _, s := range f.Configuration().Servers {
		if string(s.ID) == n.cfg.ID {
			return true
		}
	}
	return false
}
