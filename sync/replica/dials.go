package replica

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/wsstream"
)

// dialLog wraps the raft stream layer and remembers, for each peer
// address, how raft's last dial to it failed: the reason /healthz gives
// for a node that cannot reach a quorum, and the sign of a node its
// peers refuse (another cluster's certificate or data, a revoked or
// foreign certificate), which raft itself only logs and retries for ever.
type dialLog struct {
	raft.StreamLayer
	now func() time.Time

	mu     sync.Mutex
	failed map[raft.ServerAddress]dialFailure // cleared by the next dial that succeeds
}

// dialFailure is how a dial to a peer failed, and when.
type dialFailure struct {
	at      time.Time
	err     error
	refused bool // the peer refused this node (refusal)
}

// dialMemory is how long a failed dial counts: raft dials a peer it
// cannot reach at every election or heartbeat retry, far more often, so
// an older failure is one no dial has repeated (a pooled connection works).
const dialMemory = 30 * time.Second

func newDialLog(s raft.StreamLayer) *dialLog {
	return &dialLog{StreamLayer: s, now: time.Now, failed: map[raft.ServerAddress]dialFailure{}}
}

// Dial dials through the wrapped layer and records the outcome.
func (d *dialLog) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	c, err := d.StreamLayer.Dial(address, timeout)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.failed[address] = dialFailure{at: d.now(), err: err, refused: refusal(err)}
	} else {
		delete(d.failed, address)
	}
	return c, err
}

// failure returns how the last dial to address failed, if it did lately.
func (d *dialLog) failure(address raft.ServerAddress) (dialFailure, bool) {
	if d == nil {
		return dialFailure{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.failed[address]
	if !ok || d.now().Sub(f.at) > dialMemory {
		return dialFailure{}, false
	}
	return f, true
}

// refusal reports whether a dial failed because the peer would not take
// this node: it answered that this node is of another cluster
// (pki.ErrForeignCluster), refused its certificate after the handshake
// (wsstream.ErrRefused), or ended the TLS handshake with an alert, which
// is how a node refuses a certificate it does not trust or that was
// revoked.
func refusal(err error) bool {
	if errors.Is(err, pki.ErrForeignCluster) || errors.Is(err, wsstream.ErrRefused) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}
