package replica

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/badgerstore"
)

// Promotion. With village hall lost (both hall nodes down for good), the
// backup node alone is one voter of three: it serves reads and queues
// offline commands, but it cannot commit. Recover rewrites the stopped
// node's raft configuration so that only the surviving node(s) are voters;
// started again, the node elects itself and commits, and its outbox posts.
//
// Raft cannot make this safe by itself: the lost nodes must never come back
// on their old data folders (they would elect each other under the old
// configuration and the ledger would split in two). They rejoin the
// promoted node from empty folders. Entries the hall committed that had not
// reached the survivor are not on it; everything in its own log is applied,
// committed or not, and becomes the ledger.

// Recovered says what Recover did.
type Recovered struct {
	Before      []raft.Server // the configuration found
	After       []raft.Server // the configuration written
	LastIndex   uint64        // the last log entry, applied to the ledger
	Applied     uint64        // the ledger's applied index afterwards
	PendingSent int           // commands in the outbox, to post once it runs
	// Lost, if not nil, is the log entries this node had synced and lost
	// (a cut write-ahead log): the recovered cluster goes on without them.
	Lost *badgerstore.LostRange
}

// ErrNoState is returned by Recover for a data folder holding no raft state.
var ErrNoState = errors.New("no raft state in the data folder")

// Recover rewrites the raft configuration of the stopped node whose data
// folder is cfg.Dir (cfg.ID, cfg.Params set) so that only the nodes in keep
// (their ids; empty means cfg.ID alone) are voters, with the addresses the
// old configuration gave them. It uses raft.RecoverCluster: every entry in
// the node's log is applied to its ledger first. The node must not be
// running: Badger's directory lock refuses a second opener. With
// cfg.Cluster set, stores of another cluster are refused as Open refuses
// them.
func Recover(cfg Config, keep []string) (Recovered, error) {
	var rec Recovered
	if cfg.ID == "" || cfg.Dir == "" || cfg.Params == nil {
		return rec, errors.New("replica: ID, Dir and Params are required")
	}
	if len(keep) == 0 {
		keep = []string{cfg.ID}
	}
	if !slices.Contains(keep, cfg.ID) {
		return rec, fmt.Errorf("recover: the node recovering (%s) must be one of the nodes kept", cfg.ID)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, "raft")); err != nil {
		return rec, fmt.Errorf("recover %s: %w", cfg.Dir, ErrNoState)
	}
	log := cfg.Logger.With("node", cfg.ID)
	logOpts := badgerstore.PiOptions(filepath.Join(cfg.Dir, "raft"))
	logOpts.Logger = badgerstore.NewLogger(log)
	db, err := badgerstore.OpenDB(logOpts, "raft log")
	if err != nil {
		return rec, fmt.Errorf("open raft log (is the node still running?): %w", err)
	}
	defer db.Close()
	store, err := badgerstore.New(db)
	if err != nil {
		return rec, err
	}
	defer store.Close()
	// The operator makes this node's log the cluster's: entries it had
	// synced and lost are lost to the cluster, and the node must be able
	// to vote (badgerstore.Store.AcceptLoss).
	if lost, ok, err := store.AcceptLoss(); err != nil {
		return rec, err
	} else if ok {
		rec.Lost = &lost
		log.Error("raft log had lost entries it had synced; recovering without them", "folder", lost.Dir, "from", lost.From, "to", lost.To)
	}
	stateOpts := badgerstore.PiOptions(filepath.Join(cfg.Dir, "state"))
	stateOpts.Logger = badgerstore.NewLogger(log)
	fsm, err := OpenFSM(stateOpts, cfg.Params, log)
	if err != nil {
		return rec, err
	}
	defer fsm.Close()
	if err := bindStores(cfg.Cluster, db, fsm.db); err != nil {
		return rec, err
	}
	hlog := hclogFor(log)
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(cfg.Dir, "snapshots"), 2, hlog)
	if err != nil {
		return rec, fmt.Errorf("open snapshot store: %w", err)
	}
	if ok, err := raft.HasExistingState(store, store, snaps); err != nil {
		return rec, err
	} else if !ok {
		return rec, fmt.Errorf("recover %s: %w", cfg.Dir, ErrNoState)
	}
	rc := RaftConfig(cfg.ID, max(cfg.SnapshotThreshold, 8192))
	rc.Logger = hlog
	_, trans := raft.NewInmemTransport(raft.ServerAddress(cfg.ID))
	defer trans.Close()

	// The configuration as the node knows it, for the survivors' addresses.
	gc := *rc
	before, err := raft.GetConfiguration(&gc, fsm, store, store, snaps, trans)
	if err != nil {
		return rec, fmt.Errorf("read the cluster configuration: %w", err)
	}
	rec.Before = before.Servers
	for _, id := range keep {
		i := slices.IndexFunc(before.Servers, func(s raft.Server) bool { return string(s.ID) == id })
		if i < 0 {
			return rec, fmt.Errorf("recover: %s is not in the cluster configuration %v", id, before.Servers)
		}
		s := before.Servers[i]
		s.Suffrage = raft.Voter
		rec.After = append(rec.After, s)
	}
	if rec.LastIndex, err = store.LastIndex(); err != nil {
		return rec, err
	}
	if err := raft.RecoverCluster(rc, fsm, store, store, snaps, trans, raft.Configuration{Servers: rec.After}); err != nil {
		return rec, fmt.Errorf("recover cluster: %w", err)
	}
	rec.Applied = fsm.Applied()
	pend, err := (&outbox{db: db}).pending(0)
	if err != nil {
		return rec, fmt.Errorf("read outbox: %w", err)
	}
	rec.PendingSent = len(pend)
	return rec, nil
}
