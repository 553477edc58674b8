package replica

import (
	"slices"
	"sync"
	"time"

	"github.com/villagehall/appliance/domain"
)

// applyStats counts what the FSM applied, for the node's metrics: the
// commands applied and refused by kind, the payments posted by tender, and
// how long each batch took to apply and commit. It is plain counters under
// a mutex, read when /metrics is scraped; nothing of it is replicated and
// no outcome depends on it (the FSM reads the clock here only to time).
type applyStats struct {
	mu       sync.Mutex
	applied  map[domain.Kind]uint64
	refused  map[domain.Kind]uint64
	payments map[domain.Tender]uint64
	// batches is a histogram of batch apply times: counts[i] batches took
	// at most applyBuckets[i] seconds (not cumulative), the last counts
	// the rest.
	counts []uint64
	sum    float64
	total  uint64
	// unsigned counts the entries refused because no node of the
	// cluster signed them (signed.go): forgeries, or a bug.
	unsigned uint64
	// groups and grouped count the group entries applied and the
	// commands they held (group.go).
	groups, grouped uint64
}

func (s *applyStats) refusedEntry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unsigned++
}

func (s *applyStats) group(commands int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups++
	s.grouped += uint64(commands)
}

// applyBuckets are the upper bounds, in seconds, of the apply-time
// histogram: a batch on a Pi's SD card takes milliseconds; tens of
// milliseconds is a slow card, a second is trouble.
var applyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

func (s *applyStats) command(cmd domain.Command, res domain.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applied == nil {
		s.applied, s.refused, s.payments = map[domain.Kind]uint64{}, map[domain.Kind]uint64{}, map[domain.Tender]uint64{}
	}
	if res.Error != nil {
		s.refused[cmd.Kind]++
		return
	}
	s.applied[cmd.Kind]++
	if res.Receipt != nil && res.Receipt.Tender != "" {
		s.payments[res.Receipt.Tender]++
	}
}

func (s *applyStats) batch(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = make([]uint64, len(applyBuckets)+1)
	}
	sec := d.Seconds()
	i, _ := slices.BinarySearch(applyBuckets, sec)
	s.counts[i]++
	s.sum += sec
	s.total++
}

// applyCounts is a copy of the counters, in a stable order.
type applyCounts struct {
	kinds    []domain.Kind
	applied  map[domain.Kind]uint64
	refused  map[domain.Kind]uint64
	tenders  []domain.Tender
	payments map[domain.Tender]uint64
	buckets  map[float64]uint64 // cumulative, as Prometheus wants them
	sum      float64
	total    uint64
	unsigned uint64
	groups   uint64
	grouped  uint64
}

func (s *applyStats) read() applyCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := applyCounts{applied: map[domain.Kind]uint64{}, refused: map[domain.Kind]uint64{}, payments: map[domain.Tender]uint64{},
		buckets: map[float64]uint64{}, sum: s.sum, total: s.total, unsigned: s.unsigned,
		groups: s.groups, grouped: s.grouped}
	seen := map[domain.Kind]bool{}
	for k, v := range s.applied {
		c.applied[k], seen[k] = v, true
	}
	for k, v := range s.refused {
		c.refused[k], seen[k] = v, true
	}
	for k := range seen {
		c.kinds = append(c.kinds, k)
	}
	slices.Sort(c.kinds)
	for t, v := range s.payments {
		c.payments[t] = v
		c.tenders = append(c.tenders, t)
	}
	slices.Sort(c.tenders)
	var cum uint64
	for i, b := range applyBuckets {
		if s.counts != nil {
			cum += s.counts[i]
		}
		c.buckets[b] = cum
	}
	return c
}
