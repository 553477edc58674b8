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
	// SnapshotThreshold is the number of log entries between snapshots
	// (default 8192).
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
	// slow disk).
	WrapLogStore func(raft.LogStore) raft.LogStore
	// AvoidLeadership marks a node that should not lead while a node that
	// may is healthy: the backup node in the second building.
	AvoidLeadership bool
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
	cfg       Config
	kinds     domain.Table // cfg.Kinds
	raft      *raft.Raft
	fsm       *FSM
	logDB     *badger.DB
	logs      *badgerstore.Store
	box       *outbox
	transport raft.Transport
	log       *slog.Logger

	pending    atomic.Int64
	readyTerm  atomic.Uint64 // the term in which this leader applied its first barrier
	lastAt     atomic.Value  // domain.DateTime of the latest command taken here
	clockErr   atomic.Value  // string: why the clock is distrusted, or ""
	divergence atomic.Value  // *Divergence: the latest mismatch of checkpoint hashes
	wake       chan struct{}
	done       chan struct{}
	wg         sync.WaitGroup

	waitMu  sync.Mutex
	waiters map[string][]chan domain.Result

	peerSrv   *http.Server // the peer port of a clustered node
	peers     *PeerClient
	authorize func(*http.Request) (string, error) // PeerConfig.Authorize

	serialMu sync.Mutex
	serials  map[string]string // node id → serial of the certificate it last presented

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
	if cfg.SnapshotThreshold == 0 {
		cfg.SnapshotThreshold = 8192
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
	if cfg.Kinds.IsZero() {
		cfg.Kinds = domain.Kinds
	}
	if cfg.LedgerFormat == 0 {
		cfg.LedgerFormat = domain.LedgerFormat
	}
	if cfg.CheckpointEvery == 0 {
		cfg.CheckpointEvery = 30 * time.Second
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	n := &Node{cfg: cfg, kinds: cfg.Kinds, log: cfg.Logger.With("node", cfg.ID), wake: make(chan struct{}, 1),
		done: make(chan struct{}), waiters: map[string][]chan domain.Result{}}
	if err := n.open(); err != nil {
		n.closeStores()
		return nil, err
	}
	n.wg.Add(1)
	go n.forward()
	n.wg.Add(1)
	go n.watchLeadership()
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
	n.logs = badgerstore.New(db)
	if n.box, err = openOutbox(db); err != nil {
		return err
	}

	stateOpts := badgerstore.PiOptions(filepath.Join(cfg.Dir, "state"))
	stateOpts.Logger = badgerstore.NewLogger(n.log)
	if n.fsm, err = OpenFSM(stateOpts, cfg.Params, n.log); err != nil {
		return err
	}
	n.fsm.pause, n.fsm.kinds = cfg.Pause, cfg.Kinds

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
	n.transport = cfg.Transport
	if n.transport == nil {
		_, n.transport = raft.NewInmemTransport(raft.ServerAddress(cfg.ID))
	}
	rc := RaftConfig(cfg.ID, cfg.SnapshotThreshold)
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
		logs = cfg.WrapLogStore(logs)
	}
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
		return errors.New("this node's ledger state is incomplete (a snapshot restore was interrupted) and no snapshot is on disk to finish it: move the data folder aside and rejoin the cluster from empty (README: Rebuilding a node)")
	}
	return nil
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

// NewCommand returns a command of kind k stamped with a fresh id, this
// node's id, the next receipt sequence and the intake time on the village
// clock. The sequence is allocated durably, so no receipt number repeats.
//
// A node whose clock is clearly wrong refuses: one that reads earlier than
// a command it took before or than the ledger's latest command (less the
// allowed skew), or that its peers say is off by more than MaxClockSkew. A
// Pi without its RTC boots in the past; dating a payment then would date
// it wrong, which is worse than asking the resident to use the window.
func (n *Node) NewCommand(k domain.Kind, actor string) (domain.Command, error) {
	at := domainNow(n)
	if err := n.checkClock(at); err != nil {
		return domain.Command{}, err
	}
	if err := n.checkKind(k); err != nil {
		return domain.Command{}, err
	}
	// The ledger knows the highest sequence this node id ever used: a node
	// rebuilt on an empty folder must not hand out those numbers again.
	seq, err := n.box.nextSeq(n.fsm.MaxSeq(n.cfg.ID))
	if err != nil {
		return domain.Command{}, err
	}
	return domain.Command{
		ID:    n.cfg.NewID(),
		Kind:  k,
		At:    at,
		Node:  n.cfg.ID,
		Seq:   seq,
		Actor: actor,
	}, nil
}

// checkKind says why this node cannot take a command of kind k now: the
// node halted (its ledger is behind and it needs an upgrade), or the kind
// needs a ledger format the cluster has not reached (a member still runs
// an older release).
func (n *Node) checkKind(k domain.Kind) error {
	if err := n.fsm.Halted(); err != nil {
		return domain.Errorf(domain.EUNAVAILABLE, "", "This node cannot take payments or changes until it is upgraded; please use another station or the clerk's window. (%v)", err)
	}
	if need := n.kinds.Since(k); need > n.fsm.Format() {
		return domain.Errorf(domain.EUNAVAILABLE, "", "This needs every node of the cluster to run a release with ledger format %d; the cluster runs format %d. Finish upgrading the nodes first.", need, n.fsm.Format())
	}
	return nil
}

// admit is the leader's check of a command before it enters the log: the
// node that took it must be allowed its kind, and it must not be dated
// after the leader's clock plus the allowed skew. A command dated in the
// future would raise the ledger's latest intake time, below which every
// node refuses to date payments: one bad clock, or one forged command,
// would freeze the ledger. (A command dated in the past is an offline
// payment replayed, and is taken.)
func (n *Node) admit(cmd domain.Command, role domain.NodeRole) *domain.Error {
	if !n.kinds.MayTake(role, cmd.Kind) {
		return domain.Errorf(domain.EFORBIDDEN, "", "A %s node may not take %s commands.", role, cmd.Kind)
	}
	now := n.cfg.Now().In(n.cfg.Location)
	if at := cmd.At.Time(n.cfg.Location); at.After(now.Add(n.cfg.MaxClockSkew)) {
		return domain.Errorf(domain.EINVALID, "", "Command %s is dated %s, after the leader's clock (%s) by more than the allowed %s; the clock of node %s is wrong.",
			cmd.ID, cmd.At, domain.DateTimeOf(now), n.cfg.MaxClockSkew, cmd.Node)
	}
	return nil
}

// domainNow reads the node's clock as a village date and time.
func domainNow(n *Node) domain.DateTime { return domain.DateTimeOf(n.cfg.Now().In(n.cfg.Location)) }

// checkClock says why the node's clock cannot date a command now, if it
// cannot.
func (n *Node) checkClock(now domain.DateTime) error {
	const section = ""
	if last, _ := n.lastAt.Load().(domain.DateTime); now.Before(last) {
		return domain.Errorf(domain.EUNAVAILABLE, section,
			"This node's clock reads %s, earlier than a payment it already took (%s). Payments are refused until the clock is set right; please ask the clerk.", now, last)
	}
	floor := n.fsm.Latest()
	if !floor.IsZero() && now.Time(time.UTC).Add(n.cfg.MaxClockSkew).Before(floor.Time(time.UTC)) {
		return domain.Errorf(domain.EUNAVAILABLE, section,
			"This node's clock reads %s, earlier than the ledger's latest entry (%s). Payments are refused until the clock is set right; please ask the clerk.", now, floor)
	}
	if msg, _ := n.clockErr.Load().(string); msg != "" {
		return domain.Errorf(domain.EUNAVAILABLE, section, "%s Payments are refused until the clock is set right; please ask the clerk.", msg)
	}
	return nil
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

// connected reports whether this node can reach the leader now.
func (n *Node) connected() bool {
	if n.raft.State() == raft.Leader {
		return true
	}
	_, leader := n.raft.LeaderWithID()
	last := n.raft.LastContact()
	return leader != "" && !last.IsZero() && time.Since(last) < 2*time.Second
}

// Submit records cmd in the outbox (synced) and waits, at most SubmitWait
// or until ctx ends, for the ledger to apply it. It returns the ledger's
// result; a command the rules refuse returns its *domain.Error. When the
// ledger does not answer in time the command stays queued and Submit
// returns a provisional result: the receipt is numbered and the payment
// posts when the cluster is reachable again. Submitting the same command
// id again returns the first outcome and never applies it twice.
func (n *Node) Submit(ctx context.Context, cmd domain.Command) (domain.Result, error) {
	if err := n.kinds.Validate(cmd); err != nil {
		return domain.Result{}, err
	}
	if cmd.Node != n.cfg.ID {
		return domain.Result{}, domain.Errorf(domain.EINVALID, "", "command %s was made on node %s, not %s", cmd.ID, cmd.Node, n.cfg.ID)
	}
	if n.kinds.Cluster(cmd.Kind) {
		return domain.Result{}, domain.Errorf(domain.EINVALID, "", "%s commands are the cluster's own", cmd.Kind)
	}
	if !n.kinds.MayTake(n.cfg.Role, cmd.Kind) {
		return domain.Result{}, domain.Errorf(domain.EFORBIDDEN, "", "This %s node cannot take %s; use the clerk's office.", n.cfg.Role, cmd.Kind)
	}
	if err := n.checkKind(cmd.Kind); err != nil {
		return domain.Result{}, err
	}
	// A command the ledger here has already applied (a client retrying
	// at another node what it first sent to one that went down) is
	// answered from the ledger: the same receipt everywhere it is asked.
	if kept, res, ok, err := n.fsm.appliedCommand(cmd.ID); err == nil && ok {
		if !sameRequest(kept, cmd) {
			return domain.Result{}, errReused(cmd.ID)
		}
		return resultErr(res)
	}
	if !n.connected() {
		if !n.kinds.OfflineSafe(cmd.Kind) {
			return domain.Result{}, domain.Errorf(domain.EUNAVAILABLE, "",
				"This needs the current ledger, and this node cannot reach it right now. Please try again when the connection returns.")
		}
		if rc := cmd.ProvisionalReceipt(); rc != nil && rc.Tender == domain.Card && n.cfg.OfflineCardLimit.IsPositive() && rc.Amount.GreaterThan(n.cfg.OfflineCardLimit) {
			return domain.Result{}, domain.Errorf(domain.EUNAVAILABLE, "",
				"While the network is down, card payments over $%s cannot be taken here. Please pay a smaller amount or pay at the clerk's window.", n.cfg.OfflineCardLimit)
		}
	}
	ch := n.addWaiter(cmd.ID)
	defer n.removeWaiter(cmd.ID, ch)
	e, created, err := n.box.put(cmd)
	if err != nil {
		return domain.Result{}, err
	}
	if !created && !e.Command.SameRequest(cmd) {
		return domain.Result{}, errReused(cmd.ID)
	}
	n.pause("submit.queued")
	if created {
		n.pending.Add(1)
		if last, _ := n.lastAt.Load().(domain.DateTime); cmd.At.After(last) {
			n.lastAt.Store(cmd.At)
		}
	}
	if e.State != statePending && e.Result != nil {
		return resultErr(*e.Result)
	}
	n.kick()
	ctx, cancel := context.WithTimeout(ctx, n.cfg.SubmitWait)
	defer cancel()
	select {
	case res := <-ch:
		return resultErr(res)
	case <-ctx.Done():
		return provisional(e.Command), nil
	}
}

func resultErr(res domain.Result) (domain.Result, error) {
	if res.Error != nil {
		return res, res.Error
	}
	return res, nil
}

// provisional is the answer for a command queued but not yet applied.
func provisional(cmd domain.Command) domain.Result {
	return domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Receipt: cmd.ProvisionalReceipt()}
}

func (n *Node) addWaiter(id string) chan domain.Result {
	ch := make(chan domain.Result, 1)
	n.waitMu.Lock()
	n.waiters[id] = append(n.waiters[id], ch)
	n.waitMu.Unlock()
	return ch
}

func (n *Node) removeWaiter(id string, ch chan domain.Result) {
	n.waitMu.Lock()
	defer n.waitMu.Unlock()
	list := n.waiters[id]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(n.waiters, id)
	} else {
		n.waiters[id] = list
	}
}

func (n *Node) deliver(res domain.Result) {
	n.waitMu.Lock()
	defer n.waitMu.Unlock()
	for _, ch := range n.waiters[res.CommandID] {
		select {
		case ch <- res:
		default:
		}
	}
}

func (n *Node) kick() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// outboxRetentionDays is how long answered outbox entries are kept, for
// the node's own look-ups of recent receipts; the ledger keeps them all.
const outboxRetentionDays = 30

// forward drains the outbox into the log, oldest first, in batches. An
// entry stays pending until the ledger answers for it; failures whose
// outcome is unknown (no leader, leadership lost, timeouts) are retried
// with the same command id after a growing pause.
func (n *Node) forward() {
	defer n.wg.Done()
	const minPause, maxPause = 50 * time.Millisecond, 5 * time.Second
	pause := minPause
	var pruned time.Time
	for {
		if time.Since(pruned) > time.Hour {
			pruned = time.Now()
			cutoff := domain.DateTimeOf(n.cfg.Now().In(n.cfg.Location).AddDate(0, 0, -outboxRetentionDays))
			if k, err := n.box.prune(cutoff); err != nil {
				n.log.Error("prune outbox", "err", err)
			} else if k > 0 {
				n.log.Info("pruned outbox", "entries", k)
			}
		}
		entries, err := n.box.pending(256)
		if err != nil {
			n.log.Error("read outbox", "err", err)
		}
		var wait time.Duration
		switch {
		case err != nil:
			wait = maxPause
		case len(entries) == 0:
			wait = time.Minute
			pause = minPause
		default:
			if n.submitBatch(entries) {
				pause = minPause
				continue
			}
			wait = pause
			pause = min(pause*2, maxPause)
		}
		select {
		case <-n.done:
			return
		case <-n.wake:
		case <-time.After(wait):
		}
	}
}

// submitBatch applies entries through the leader: the local raft when this
// node leads, else the leader's peer port. It reports whether every entry
// got an answer.
func (n *Node) submitBatch(entries []outboxEntry) bool {
	data := make([][]byte, len(entries))
	for i, e := range entries {
		var err error
		if data[i], err = domain.EncodeCommand(e.Command); err != nil {
			n.log.Error("encode queued command", "id", e.Command.ID, "err", err)
			return false
		}
	}
	if n.raft.State() != raft.Leader {
		return n.forwardBatch(entries, data)
	}
	futures := make([]raft.ApplyFuture, len(entries))
	refused := make([]*domain.Error, len(entries))
	for i, e := range entries {
		if refused[i] = n.admit(e.Command, n.cfg.Role); refused[i] == nil {
			futures[i] = n.raft.Apply(data[i], 5*time.Second)
		}
	}
	ok := true
	var answered []outboxEntry
	var results []domain.Result
	for i, f := range futures {
		if refused[i] != nil {
			answered = append(answered, entries[i])
			results = append(results, domain.Result{CommandID: entries[i].Command.ID, Kind: entries[i].Command.Kind, Error: refused[i]})
			continue
		}
		if err := f.Error(); err != nil {
			if ok {
				n.log.Warn("submit to log", "id", entries[i].Command.ID, "err", err)
			}
			ok = false
			continue
		}
		res, _ := f.Response().(domain.Result)
		answered, results = append(answered, entries[i]), append(results, res)
	}
	n.pause("forward.answered")
	n.settle(answered, results)
	return ok
}

// forwardBatch sends entries to the leader's peer port.
func (n *Node) forwardBatch(entries []outboxEntry, data [][]byte) bool {
	addr, id := n.raft.LeaderWithID()
	if id == "" || n.cfg.Forward == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results, err := n.cfg.Forward(ctx, addr, data)
	n.pause("forward.answered")
	n.settle(entries[:len(results)], results)
	if err != nil {
		n.log.Warn("forward to leader", "leader", id, "err", err)
		return false
	}
	return len(results) == len(entries)
}

// settle records the ledger's answers for outbox entries (in one
// transaction) and wakes anyone waiting for them.
func (n *Node) settle(entries []outboxEntry, results []domain.Result) {
	if len(entries) == 0 {
		return
	}
	seqs := make([]uint64, len(entries))
	for i, e := range entries {
		seqs[i] = e.Seq
	}
	if err := n.box.finishAll(seqs, results); err != nil {
		n.log.Error("record outbox outcomes", "first", entries[0].Command.ID, "err", err)
		return
	}
	n.pending.Add(-int64(len(entries)))
	for i, res := range results {
		if res.Error != nil {
			n.log.Info("command refused; set aside for the clerk", "id", entries[i].Command.ID, "kind", entries[i].Command.Kind, "reason", res.Error.Error())
		}
		n.deliver(res)
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
