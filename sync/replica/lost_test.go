package replica

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hashicorp/raft"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/villagehall/appliance/sync/badgerstore"
)

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLostLogEntriesReported cuts the end of a stopped node's raft log as
// a cut write-ahead log would, and checks that the node, started again,
// says so in its log, its problems (/healthz) and its metrics, and does not
// elect itself: alone, it has no leader to catch up from.
func TestLostLogEntriesReported(t *testing.T) {
	dir := t.TempDir()
	n := openNode(t, dir, time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC))
	seedNode(t, n)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	raftDir := filepath.Join(dir, "raft")
	db, err := badgerstore.OpenDB(badgerstore.PiOptions(raftDir), "raft log")
	if err != nil {
		t.Fatal(err)
	}
	// The log's last entry as the node left it: the leader appends on
	// its own too (a checkpoint, its parameters), so what raft said
	// before it closed may not be the last.
	var last uint64
	err = db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: []byte{'l'}})
		it.Seek([]byte{'l', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		for ; it.Valid() && last == 0; it.Next() {
			if k := it.Item().Key(); len(k) == 9 { // 'l' and the index
				last = binary.BigEndian.Uint64(k[1:])
			}
		}
		it.Close()
		if last < 3 {
			return fmt.Errorf("the raft log ends at %d", last)
		}
		for i := last - 1; i <= last; i++ {
			if err := txn.Delete(binary.BigEndian.AppendUint64([]byte{'l'}, i)); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	var logs syncBuffer
	n, err = Open(Config{ID: "n1", Dir: dir, Params: params, Now: time.Now,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !strings.Contains(logs.String(), "raft log lost entries it had synced") || !strings.Contains(logs.String(), raftDir) {
		t.Errorf("the log does not report the lost entries and the folder:\n%s", logs.String())
	}
	problems := strings.Join(n.Problems(), "\n")
	for _, want := range []string{raftDir, fmt.Sprintf("lost log entries %d to %d (2)", last-1, last), "takes no part in elections"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems %q do not say %q", problems, want)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(n))
	if got := gatherValues(t, reg)[`appliance_raft_lost_entries{node="n1"}`]; got != 2 {
		t.Errorf("appliance_raft_lost_entries = %v, want 2", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // four election timeouts
	defer cancel()
	if err := n.WaitLeader(ctx); err == nil || n.Raft().State() == raft.Leader {
		t.Fatal("a node alone elected itself with entries it had synced missing")
	}
}
