package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/pki"
)

// What backups and `appliance verify` need of the ledger's files: the
// summary of a snapshot (to describe and check a backup without
// restoring it), and a replay of a stopped node's raft log into a scratch
// ledger (to check that the ledger a node holds is what its log says).

// SnapshotSummary describes the ledger state a snapshot holds.
type SnapshotSummary struct {
	Records int    // replicated keys
	Applied uint64 // the applied index the state records
	Format  int    // the ledger format (1 when unset)
	Journal uint64 // journal entries
	// StateHash is the hash FSM.StateHash gives of the state once the
	// snapshot is restored.
	StateHash string
}

// SummarizeSnapshot checks a snapshot of size bytes (this release's
// format) as Restore does before it touches any state, and summarizes it.
func SummarizeSnapshot(r io.ReaderAt, size int64) (SnapshotSummary, error) {
	v, bodyLen, err := verifySnapshot(r, size)
	if err != nil {
		return SnapshotSummary{}, err
	}
	if v != 2 {
		return SnapshotSummary{}, errors.New("a snapshot of an earlier release's format (Badger's backup stream) cannot be summarized")
	}
	s := SnapshotSummary{Format: 1}
	h := sha256.New()
	var n [8]byte
	s.Records, err = snapshotRecords(io.NewSectionReader(r, int64(len(snapshotMagic)), bodyLen), bodyLen, func(k, v []byte) error {
		binary.BigEndian.PutUint64(n[:], uint64(len(k)))
		h.Write(n[:])
		h.Write(k)
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write(v)
		switch {
		case bytes.Equal(k, keyApplied) && len(v) == 8:
			s.Applied = binary.BigEndian.Uint64(v)
		case bytes.Equal(k, keyFormat) && len(v) == 8:
			s.Format = int(binary.BigEndian.Uint64(v))
		case bytes.Equal(k, keyJournal) && len(v) >= 8:
			s.Journal = binary.BigEndian.Uint64(v[:8])
		}
		return nil
	})
	if err != nil {
		return SnapshotSummary{}, err
	}
	s.StateHash = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// Replayed says what Replay did.
type Replayed struct {
	From      uint64 // the snapshot index the replay started from (0: an empty ledger)
	To        uint64 // the last entry applied
	Entries   int    // log entries applied
	StateHash string // the scratch ledger's state hash
}

// ErrNoReplay means a stopped node's files do not hold what a replay
// needs: the log was compacted and no snapshot covers its start.
var ErrNoReplay = errors.New("nothing to replay from")

// Replay rebuilds the ledger of the stopped node in dataDir from its own
// raft log, in a scratch folder: from the newest snapshot at or below
// upTo (or from an empty ledger when the log starts at index 1), applying
// every entry after it up to upTo with this build's rules. Its state hash
// must equal the node's own at upTo; a difference means the ledger on
// disk is not what its log says. params are the parameters the node
// started with (they count only before the ledger holds its own). id is
// the node's identity, whose village CA and cluster the entries are
// checked against as the node checks them (FSM.Trust); nil replays them
// unchecked, as a node without certificates applies them.
func Replay(dataDir, scratch string, upTo uint64, params *domain.Params, id *pki.Identity, logger *slog.Logger) (Replayed, error) {
	var out Replayed
	raftDir := filepath.Join(dataDir, "raft")
	if entries, err := os.ReadDir(raftDir); err != nil || len(entries) == 0 {
		return out, fmt.Errorf("%w: %s holds no raft log", ErrNoReplay, raftDir)
	}
	logOpts := badgerstore.PiOptions(raftDir).WithReadOnly(true)
	logOpts.Logger = badgerstore.NewLogger(logger)
	db, err := badgerstore.OpenDB(logOpts, "raft log")
	if err != nil {
		return out, err
	}
	defer db.Close()
	logs, err := badgerstore.New(db)
	if err != nil {
		return out, err
	}

	fsm, err := OpenFSM(badgerstore.PiOptions(scratch).WithLogger(badgerstore.NewLogger(logger)), params, logger)
	if err != nil {
		return out, err
	}
	defer fsm.Close()
	if id != nil {
		fsm.Trust(id.CACertificate(), id.Cluster().ID)
	}

	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(dataDir, "snapshots"), 2, hclogFor(logger))
	if err != nil {
		return out, fmt.Errorf("open snapshot store: %w", err)
	}
	list, err := snaps.List()
	if err != nil {
		return out, fmt.Errorf("list snapshots: %w", err)
	}
	first, err := logs.FirstIndex()
	if err != nil {
		return out, err
	}
	for _, meta := range list {
		if meta.Index > upTo {
			continue
		}
		_, rc, err := snaps.Open(meta.ID)
		if err != nil {
			return out, fmt.Errorf("open snapshot %s: %w", meta.ID, err)
		}
		if err := fsm.Restore(rc); err != nil {
			return out, fmt.Errorf("snapshot %s: %w", meta.ID, err)
		}
		out.From = meta.Index
		break
	}
	if out.From == 0 && first > 1 {
		return out, fmt.Errorf("%w: the log starts at index %d and no snapshot on disk covers the entries before it", ErrNoReplay, first)
	}
	var batch []*raft.Log
	flush := func() {
		if len(batch) > 0 {
			fsm.ApplyBatch(batch)
			batch = batch[:0]
		}
	}
	for i := out.From + 1; i <= upTo; i++ {
		l := new(raft.Log)
		if err := logs.GetLog(i, l); err != nil {
			return out, fmt.Errorf("the raft log lacks entry %d: %w", i, err)
		}
		batch = append(batch, l)
		out.Entries++
		if len(batch) == 256 {
			flush()
		}
	}
	flush()
	if err := fsm.Halted(); err != nil {
		return out, err
	}
	out.To = fsm.Applied()
	if out.StateHash, err = fsm.StateHash(); err != nil {
		return out, err
	}
	return out, nil
}
