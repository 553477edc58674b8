package faults

import (
	"time"

	"github.com/hashicorp/raft"
)

// WrapLogStore wraps raft's log store so that every write waits for the
// injector's disk delay first, like an SD card stalled in garbage
// collection. Reads are left at full speed: a slow card hurts its fsyncs.
func (in *Injector) WrapLogStore(s raft.LogStore) raft.LogStore { return &slowLog{LogStore: s, in: in} }

type slowLog struct {
	raft.LogStore
	in *Injector
}

var _ raft.LogStore = (*slowLog)(nil)

func (s *slowLog) wait() {
	if d := s.in.DiskDelay(); d > 0 {
		time.Sleep(d)
	}
}

// StoreLog waits, then stores one entry.
func (s *slowLog) StoreLog(l *raft.Log) error {
	s.wait()
	return s.LogStore.StoreLog(l)
}

// StoreLogs waits, then stores a batch.
func (s *slowLog) StoreLogs(logs []*raft.Log) error {
	s.wait()
	return s.LogStore.StoreLogs(logs)
}

// IsMonotonic says what the wrapped store says: raft empties a log that
// keeps no gaps once it installs a snapshot (raft.MonotonicLogStore), and
// the wrapper must not change how raft treats the store.
func (s *slowLog) IsMonotonic() bool {
	m, ok := s.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// DeleteRange waits, then deletes.
func (s *slowLog) DeleteRange(min, max uint64) error {
	s.wait()
	return s.LogStore.DeleteRange(min, max)
}
