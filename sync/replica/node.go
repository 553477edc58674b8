package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/google/uuid"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
)

// Config configures a Node.
type Config struct {
	// ID is the node's id, unique in the cluster ("hall-kiosk").
	ID string
	// Dir is the node's data folder. It holds raft/ (the raft log, stable
	// store and the outbox), state/ (the ledger) and snapshots/.
	Dir string
	// Params are the ordinance's parameters; every node must run the same.
	Params *domain.Params
	// Kinds are the command kinds the node takes and applies (default
	// domain.Kinds; tests add kinds of their own).
	Kinds domain.Table
	// Role is what this node is for (its certificate's role on a
	// clustered node; OpenPeer sets it). It limits the kinds of command
	// the node takes (domain.NodeRole.MayTake). Empty means clerk: a node
	// alone is the whole office.
	Role domain.NodeRole
	// Identity is the node's village certificate and key (OpenPeer sets
	// it). From ledger format 4 the node signs every log entry it makes
	// with it, and its ledger applies only entries that a node of the
	// same village CA signed (signed.go). Nil: the node neither signs nor
	// checks (a ledger alone in tests of the rules).
	Identity *pki.Identity
	// Location is the village's time zone (America/Chicago).
	Location *time.Location
	// Now reads the clock; tests pin it.
	Now func() time.Time
	// Logger receives structured logs.
	Logger *slog.Logger
	// Transport carries raft RPCs to peers. Nil means a node alone, on an
	// in-memory transport.
	Transport raft.Transport
	// Servers is the cluster's first configuration, used only when the node
	// starts on an empty data folder. Empty means this node alone.
	Servers []raft.Server
	// Bootstrap says whether this node writes the first configuration. Only
	// one node of a new cluster bootstraps; the others join.
	Bootstrap bool
	// SubmitWait is how long Submit waits for the ledger before it gives a
	// provisional answer (default 2 s).
	SubmitWait time.Duration
	// SnapshotThreshold is the number of log entries between snapshots.
	// Zero (the default) sets it from the size of the node's latest
	// snapshot, and again after each (snapshotThreshold).
	SnapshotThreshold uint64
	// TrailingLogs is how many entries a snapshot leaves in the log for
	// followers that fall behind (default 10,240); one further behind
	// catches up by InstallSnapshot.
	TrailingLogs uint64
	// NewID makes command ids (default: UUIDv7, time-ordered).
	NewID func() string
	// Forward sends commands to the leader when this node is a follower
	// (a PeerClient's Forward). Nil: a follower waits to become leader.
	Forward func(ctx context.Context, leader raft.ServerAddress, commands [][]byte) ([]domain.Result, error)
	// Status asks a peer for its status (a PeerClient's Status), for the
	// cluster view and leader placement.
	Status func(ctx context.Context, addr raft.ServerAddress) (NodeStatus, error)
	// OfflineCardLimit is the largest card payment a node takes while it
	// cannot reach the leader (the card network may be down too, and the
	// charge is only an approval from the terminal); zero means no limit.
	OfflineCardLimit domain.Money
	// ClockCheckEvery is how often a clustered node compares its clock
	// and its checkpoint hashes with its peers' (default 15 s).
	ClockCheckEvery time.Duration
	// CheckpointEvery is how often a leading clustered node appends a
	// checkpoint for the replicas to hash, when the ledger moved since the
	// last one (default 30 s; see digest.go).
	CheckpointEvery time.Duration
	// MarkEvery is how often a leading clustered node marks its peers'
	// receipt sequences and clocks in the ledger (default 1 minute): a
	// command may not be dated before its node's last mark (sequence.go).
	MarkEvery time.Duration
	// MaxClockSkew is how far this node's clock may be from its peers'
	// (and behind the latest command applied) before it refuses to date
	// commands (default 2 minutes).
	MaxClockSkew time.Duration
	// LedgerFormat is the newest ledger format this node says it applies
	// (default domain.LedgerFormat). Tests set a lower one to stand for a
	// member that still runs an older release.
	LedgerFormat int
	// Pause, if set, is called at the points where concurrent work races
	// (a command queued, answers about to be settled, a batch about to
	// commit, a snapshot about to be written or loaded). Stress tests make
	// it sleep at random to widen those windows; it is nil in service.
	Pause func(point string)
	// WrapLogStore, if set, wraps the raft log store (fault injection: a
	// slow disk). The wrapper must pass on IsMonotonic
	// (raft.MonotonicLogStore); Open refuses one that does not.
	WrapLogStore func(raft.LogStore) raft.LogStore
	// AvoidLeadership marks a node that should not lead while a node that
	// may is healthy: the backup node in the second building. A kiosk
	// (Role) always avoids it.
	AvoidLeadership bool
	// Cluster is the cluster of the node's certificates (OpenPeer sets it
	// from PeerConfig.Identity). Open checks that the data folder's
	// stores belong to it, recording it in stores that record no cluster
	// (identity.go). Zero checks nothing: a node alone.
	Cluster pki.Cluster
	// LogStore and StableStore, when set, keep raft's log and stable state
	// instead of the node's Badger store, so benchmarks can run the node on
	// raft-boltdb. The outbox stays in Badger. The caller closes them after
	// Close. Set both or neither.
	LogStore    raft.LogStore
	StableStore raft.StableStore
}

// Node is one replica of the ledger: a raft voter, its FSM, its outbox and
// the forwarder that drains the outbox into the log.
type Node struct {
	cfg        Config
	kinds      domain.Table // cfg.Kinds
	raft       *raft.Raft
	fsm        *FSM
	logDB      *badger.DB
	logs       *badgerstore.Store
	raftLog    raft.LogStore    // the log raft keeps (logs, or Config.LogStore, wrapped)
	raftStable raft.StableStore // where raft keeps its term and vote
	box        *outbox
	transport  raft.Transport
	snaps      raft.SnapshotStore
	replayTo   uint64 // the ledger's applied index at start, when raft replays up to it (open)
	// snapBytes is the size of the latest snapshot written or restored,
	// and snapSized says it changed (tuneSnapshots; nil when
	// Config.SnapshotThreshold is fixed).
	snapBytes atomic.Int64
	snapSized chan struct{}
	log       *slog.Logger

	pending    atomic.Int64
	readyTerm  atomic.Uint64        // the term in which this leader applied its first barrier
	lastAt     atomic.Value         // domain.DateTime of the latest command taken here
	clockErr   atomic.Value         // string: why the clock is distrusted, or ""
	clockVotes map[string]clockVote // the peers' latest clock readings (watchPeers only)
	marked     time.Time            // when this node last marked its peers (watchPeers only)
	divergence atomic.Value         // *Divergence: the latest mismatch of checkpoint hashes
	wake       chan struct{}
	done       chan struct{}
	proposals  chan *proposal // submitDirect's commands for the group proposer (group.go)
	wg         sync.WaitGroup

	waitMu  sync.Mutex
	waiters map[string][]chan domain.Result

	peerSrv    *http.Server // the peer port of a clustered node
	peers      *PeerClient
	authorize  func(*http.Request) (string, error) // PeerConfig.Authorize
	statedRole domain.NodeRole                     // the role the node's certificate states ("" for one from before roles)

	serialMu sync.Mutex
	serials  map[string]string // node id → serial of the certificate it last presented

	// The leader as raft last reported it (watchLeader): a change closes
	// leaderChange, which stops a forward to the old leader at once.
	leaderMu     sync.Mutex
	leaderChange chan struct{}
	leaderLost   time.Time // when this node last knew no leader (zero while it knows one)
	timing       raftTiming
	dials        *dialLog // the raft transport's dials to peers (nil for a node alone)

	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the node's stores and starts raft and the
// forwarder. On an empty data folder with Bootstrap set it writes the first
// cluster configuration.
func Open(cfg Config) (*Node, error) {
	if cfg.ID == "" || cfg.Dir == "" || cfg.Params == nil {
		return nil, errors.New("replica: ID, Dir and Params are required")
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.SubmitWait == 0 {
		cfg.SubmitWait = 2 * time.Second
	}
	if cfg.MaxClockSkew == 0 {
		cfg.MaxClockSkew = 2 * time.Minute
	}
	if cfg.ClockCheckEvery == 0 {
		cfg.ClockCheckEvery = 15 * time.Second
	}
	if cfg.Role == "" {
		cfg.Role = domain.NodeClerk
	}
	if cfg.Role == domain.NodeKiosk {
		// The kiosk leads only until the clerk's node or the backup can
		// (placeLeader, raftguard.go).
		cfg.AvoidLeadership = true
	}
	if cfg.Kinds.IsZero() {
		cfg.Kinds = domain.Kinds
	}
	if cfg.LedgerFormat == 0 {
		cfg.LedgerFormat = domain.LedgerFormat
	}
	if cfg.MarkEvery == 0 {
		cfg.MarkEvery = time.Minute
	}
	if cfg.CheckpointEvery == 0 {
		cfg.CheckpointEvery = 30 * time.Second
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	n := &Node{cfg: cfg, kinds: cfg.Kinds, log: cfg.Logger.With("node", cfg.ID), wake: make(chan struct{}, 1),
		done: make(chan struct{}), waiters: map[string][]chan domain.Result{}, proposals: make(chan *proposal, 8*groupMax),
		leaderChange: make(chan struct{})}
	if err := n.open(); err != nil {
		n.closeStores()
		return nil, err
	}
	if _, ok := n.logs.Lost(); ok {
		n.wg.Add(1)
		go n.reportCaughtUp()
	}
	// Observe the leader before the forwarder starts, so that it never
	// misses a change. Raft starts knowing no leader.
	n.leaderLost = time.Now()
	observed := make(chan raft.Observation, 16)
	observer := raft.NewObserver(observed, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(observer)
	n.wg.Add(1)
	go n.watchLeader(observed, observer)
	n.wg.Add(1)
	go n.forward()
	n.wg.Add(1)
	go n.proposeGroups()
	n.wg.Add(1)
	go n.watchLeadership()
	n.wg.Add(1)
	go n.warmNovember() // novemberfigures.go
	if cfg.SnapshotThreshold == 0 {
		n.wg.Add(1)
		go n.tuneSnapshots()
	}
	if cfg.Status != nil {
		n.wg.Add(2)
		go n.watchPeers()
		go n.watchCheckpoints()
	}
	if cfg.AvoidLeadership {
		n.wg.Add(1)
		go n.placeLeader()
	}
	return n, nil
}

func (n *Node) open() error {
	cfg := n.cfg
	for _, d := range []string{"raft", "state", "snapshots"} {
		if err := os.MkdirAll(filepath.Join(cfg.Dir, d), 0o750); err != nil {
			return fmt.Errorf("create data folder: %w", err)
		}
	}
	logOpts := badgerstore.PiOptions(filepath.Join(cfg.Dir, "raft"))
	logOpts.Logger = badgerstore.NewLogger(n.log)
	db, err := badgerstore.OpenDB(logOpts, "raft log")
	if err != nil {
		return err
	}
	n.logDB = db
	if n.logs, err = badgerstore.New(db); err != nil {
		return err
	}
	if lost, ok := n.logs.Lost(); ok {
		n.log.Error("raft log lost entries it had synced; this node takes no part in elections until it has caught up",
			"problem", lost.String(), "folder", lost.Dir, "from", lost.From, "to", lost.To, "count", lost.To-lost.From+1)
	}
	if n.box, err = openOutbox(db); err != nil {
		return err
	}

	// The ledger state does not sync each commit: raft's log holds every
	// entry durably, and the FSM syncs before raft may drop one
	// (Durability, doc.go).
	stateOpts := badgerstore.PiOptions(filepath.Join(cfg.Dir, "state")).WithSyncWrites(false)
	stateOpts.Logger = badgerstore.NewLogger(n.log)
	if n.fsm, err = OpenFSM(stateOpts, cfg.Params, n.log); err != nil {
		return err
	}
	n.fsm.pause, n.fsm.kinds = cfg.Pause, cfg.Kinds
	if cfg.Identity != nil {
		n.fsm.Trust(cfg.Identity.CACertificate(), cfg.Identity.Cluster().ID)
	}
	if err := bindStores(cfg.Cluster, db, n.fsm.db); err != nil {
		return err
	}

	if k, err := n.recoverProposals(); err != nil {
		return fmt.Errorf("recover the commands this node proposed: %w", err)
	} else if k > 0 {
		n.log.Info("queued commands this node proposed before it stopped, not known to be applied", "commands", k)
	}
	pend, err := n.box.pending(0)
	if err != nil {
		return fmt.Errorf("read outbox: %w", err)
	}
	n.pending.Store(int64(len(pend)))
	last, err := n.box.lastAt()
	if err != nil {
		return fmt.Errorf("read outbox: %w", err)
	}
	n.lastAt.Store(last)
	n.clockErr.Store("")

	hlog := hclogFor(n.log)
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(cfg.Dir, "snapshots"), 2, hlog)
	if err != nil {
		return fmt.Errorf("open snapshot store: %w", err)
	}
	n.snaps = snaps
	// Raft hands the FSM again every entry after its newest snapshot
	// (skipped when the ledger holds it already): until it has come to the
	// last the ledger applied before this start, a new command waits behind
	// them (Readiness).
	n.replayTo = 0
	threshold := cfg.SnapshotThreshold
	if list, err := snaps.List(); err == nil {
		var snapIndex uint64
		var snapSize int64
		if len(list) > 0 {
			snapIndex, snapSize = list[0].Index, list[0].Size
		}
		if a := n.fsm.Applied(); a > snapIndex {
			n.replayTo = a
		}
		// Raft counts every entry up to the snapshot applied and hands
		// the FSM only those after it. The ones after it may be none
		// the FSM sees at all (a new term's no-op, barriers): counted
		// from zero, a node restarted just after a snapshot was
		// "behind" by the whole log until a command came.
		n.fsm.seen.Store(snapIndex)
		if threshold == 0 {
			threshold = snapshotThreshold(snapSize)
		}
	}
	if threshold == 0 {
		threshold = snapshotThreshold(0)
	}
	if cfg.SnapshotThreshold == 0 {
		n.snapSized = make(chan struct{}, 1)
		n.fsm.onSized = func(bytes int64) {
			n.snapBytes.Store(bytes)
			select {
			case n.snapSized <- struct{}{}:
			default:
			}
		}
	}
	n.transport = cfg.Transport
	if n.transport == nil {
		_, n.transport = raft.NewInmemTransport(raft.ServerAddress(cfg.ID))
	}
	rc := RaftConfig(cfg.ID, threshold)
	n.timing = timingOf(rc)
	if cfg.TrailingLogs > 0 {
		rc.TrailingLogs = cfg.TrailingLogs
	}
	rc.Logger = hlog
	if n.fsm.Incomplete() {
		// The node stopped while a snapshot was being restored: its
		// state is partial. Have raft restore its latest snapshot at
		// start (it skips that by default: the state is kept in Badger).
		n.log.Warn("ledger state is incomplete (a snapshot restore was interrupted); restoring the latest snapshot")
		rc.NoSnapshotRestoreOnStart = false
	}

	var logs raft.LogStore = n.logs
	var stable raft.StableStore = n.logs
	if cfg.LogStore != nil && cfg.StableStore != nil {
		logs, stable = cfg.LogStore, cfg.StableStore
	}
	if cfg.WrapLogStore != nil {
		wrapped := cfg.WrapLogStore(logs)
		if monotonic(logs) && !monotonic(wrapped) {
			// Raft would keep a follower's entries from before an
			// installed snapshot and append above a gap, which the store
			// refuses as damaged at the next start.
			return errors.New("replica: the wrapped raft log store does not pass on IsMonotonic (raft.MonotonicLogStore)")
		}
		logs = wrapped
	}
	n.raftLog, n.raftStable = logs, stable
	existing, err := raft.HasExistingState(logs, stable, snaps)
	if err != nil {
		return fmt.Errorf("inspect raft state: %w", err)
	}
	if !existing && cfg.Bootstrap {
		servers := cfg.Servers
		if len(servers) == 0 {
			servers = []raft.Server{{Suffrage: raft.Voter, ID: raft.ServerID(cfg.ID), Address: n.transport.LocalAddr()}}
		}
		if err := raft.BootstrapCluster(rc, logs, stable, snaps, n.transport, raft.Configuration{Servers: servers}); err != nil {
			return fmt.Errorf("bootstrap cluster: %w", err)
		}
	}
	if n.raft, err = raft.NewRaft(rc, n.fsm, logs, stable, snaps, n.transport); err != nil {
		return fmt.Errorf("start raft: %w", err)
	}
	if n.fsm.Incomplete() {
		n.raft.Shutdown().Error()
		n.raft = nil
		return errors.New("this node's ledger state is incomplete (a snapshot restore was interrupted) and no snapshot is on disk to finish it: move the data folder aside and rejoin the cluster from empty (docs/operating.md, Rebuilding a node)")
	}
	return nil
}

// reportCaughtUp logs when a node whose raft log had lost entries it had
// synced has them again from the leader, and so votes again.
func (n *Node) reportCaughtUp() {
	defer n.wg.Done()
	lost, _ := n.logs.Lost()
	select {
	case <-n.logs.CaughtUp():
		n.log.Info("raft log caught up past the entries it had lost; this node takes part in elections again",
			"folder", lost.Dir, "from", lost.From, "to", lost.To)
	case <-n.done:
	}
}

// The snapshot cadence. A snapshot copies the whole ledger (1.3 GB of
// keys and values at five years of a village's books), and raft takes
// one every SnapshotThreshold entries. At a fixed 8,192 the copying grew
// with the ledger: on five years of books, 30,000 payments through the
// API took two snapshots of some 80 s each, and the payment rate halved
// from the first 5,000 to the last (docs/benchmarks.md). In proportion
// to the ledger, a snapshot costs each entry at most
// snapshotBytesPerEntry bytes copied, however old the books. The bounds:
// no more often than every 8,192 entries on a small ledger, and at most
// every maxSnapshotThreshold, because a node replays every entry after
// its latest snapshot at start (the ones its ledger holds are skipped,
// but raft reads them; Readiness waits for them) and its raft log keeps
// them all. A follower further behind than TrailingLogs still catches up
// from the latest snapshot.
const (
	minSnapshotThreshold  = 8192
	maxSnapshotThreshold  = 65536
	snapshotBytesPerEntry = 16 << 10
)

// snapshotThreshold returns how many log entries a node lets pass
// between snapshots of a ledger whose latest snapshot was size bytes
// (zero: none yet).
func snapshotThreshold(size int64) uint64 {
	return min(max(uint64(max(size, 0))/snapshotBytesPerEntry, minSnapshotThreshold), maxSnapshotThreshold)
}

// tuneSnapshots sets raft's snapshot threshold from each snapshot's size
// as it is written or restored (snapshotThreshold).
func (n *Node) tuneSnapshots() {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		case <-n.snapSized:
		}
		want := snapshotThreshold(n.snapBytes.Load())
		rc := n.raft.ReloadableConfig()
		if rc.SnapshotThreshold == want {
			continue
		}
		was := rc.SnapshotThreshold
		rc.SnapshotThreshold = want
		if err := n.raft.ReloadConfig(rc); err != nil {
			n.log.Error("set the snapshot threshold", "entries", want, "err", err)
			continue
		}
		n.log.Info("snapshot threshold set from the ledger's size", "entries", want, "was", was, "snapshot_bytes", n.snapBytes.Load())
	}
}

// monotonic reports whether raft treats s as a log without gaps
// (raft.MonotonicLogStore), emptying it when it installs a snapshot.
func monotonic(s raft.LogStore) bool {
	m, ok := s.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// RaftConfig returns the raft configuration tuned for a village LAN:
// heartbeat and election timeouts of 500 ms (raft's defaults are 1 s, tuned
// for WANs) give a fail-over of about a second; the leader lease is half of
// that. Snapshots keep 10,240 trailing entries so a node back from a short
// outage catches up from the log. The FSM keeps its state in Badger, so a
// restart replays the log tail instead of restoring the last snapshot.
func RaftConfig(id string, snapshotThreshold uint64) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(id)
	rc.HeartbeatTimeout = 500 * time.Millisecond
	rc.ElectionTimeout = 500 * time.Millisecond
	rc.LeaderLeaseTimeout = 250 * time.Millisecond
	rc.CommitTimeout = 20 * time.Millisecond
	rc.SnapshotThreshold = snapshotThreshold
	rc.SnapshotInterval = 30 * time.Second
	rc.TrailingLogs = 10240
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	rc.NoSnapshotRestoreOnStart = true
	return rc
}

// ID returns the node's id.
func (n *Node) ID() string { return n.cfg.ID }

// Raft returns the raft instance, for cluster management.
func (n *Node) Raft() *raft.Raft { return n.raft }

// FSM returns the node's state machine.
func (n *Node) FSM() *FSM { return n.fsm }

// Close stops the forwarder, shuts raft down, closes the transport (raft
// does not) and closes both stores, in that order.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		close(n.done)
		n.wg.Wait()
		var errs []error
		if n.raft != nil {
			errs = append(errs, n.raft.Shutdown().Error())
		}
		if c, ok := n.transport.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		errs = append(errs, n.closePeerPort(), n.closeStores())
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}

func (n *Node) closeStores() error {
	var errs []error
	if n.fsm != nil {
		errs = append(errs, n.fsm.Close())
	}
	if n.logs != nil {
		errs = append(errs, n.logs.Close()) // the store's record of what it synced; the database is ours
	}
	if n.logDB != nil {
		errs = append(errs, n.logDB.Close())
	}
	return errors.Join(errs...)
}

// WaitLeader waits until the cluster has a leader or ctx ends.
func (n *Node) WaitLeader(ctx context.Context) error {
	for {
		if _, id := n.raft.LeaderWithID(); id != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no leader: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// watchLeadership marks the leader ready (its reads current) once a
// barrier of its own term has applied: only then does its ledger hold every
// entry its predecessors committed. raft.LeaderCh has this one reader.
func (n *Node) watchLeadership() {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		case leading := <-n.raft.LeaderCh():
			n.readyTerm.Store(0)
			if !leading {
				continue
			}
			term := n.raft.CurrentTerm()
			if n.fsm.Halted() != nil {
				// A node that cannot apply the log must not lead it.
				n.log.Warn("halted node elected; handing leadership over")
				n.raft.LeadershipTransfer()
				continue
			}
			for n.raft.State() == raft.Leader {
				if err := n.raft.Barrier(5 * time.Second).Error(); err == nil {
					n.readyTerm.Store(term)
					n.raiseFormat(n.peerStatuses())
					n.seedParams()
					break
				}
				select {
				case <-n.done:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}
}

func (n *Node) pause(point string) {
	if n.cfg.Pause != nil {
		n.cfg.Pause(point)
	}
}

// hclogFor adapts a slog logger for raft, at warning level: raft's info
// lines (every heartbeat timeout, every pipeline) are too many for an SD
// card's log.
func hclogFor(l *slog.Logger) hclog.Logger {
	return hclog.FromStandardLogger(slog.NewLogLogger(l.Handler(), slog.LevelWarn),
		&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn})
}
