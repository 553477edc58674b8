package replica

import (
	"strings"
	"testing"
	"time"
)

// TestClockVerdict: a node distrusts its clock when most of its peers'
// recent readings are off, and a peer's reading counts for a while after
// it: one status request lost on a busy machine (TestClockSanity failed
// so once) does not let the one skewed peer outvote the good clock of this
// node and its other peer. A reading older than the memory is forgotten.
func TestClockVerdict(t *testing.T) {
	now := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	const memory, maxSkew = 5 * time.Second, 2 * time.Minute
	good := clockVote{skew: time.Second, at: now.Add(-3 * time.Second)} // last round's
	off := clockVote{skew: 10 * time.Minute, at: now}
	stale := clockVote{skew: time.Second, at: now.Add(-6 * time.Second)}
	cases := []struct {
		name    string
		votes   map[string]clockVote
		trusted bool
	}{
		{"both peers agree", map[string]clockVote{"a": good, "b": good}, true},
		{"one of two peers off, the other heard from last round", map[string]clockVote{"a": good, "b": off}, true},
		{"the only peer heard from lately is off", map[string]clockVote{"a": stale, "b": off}, false},
		{"both peers off", map[string]clockVote{"a": off, "b": off}, false},
		{"no peer heard from", map[string]clockVote{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := clockVerdict(c.votes, now, memory, maxSkew)
			if (msg == "") != c.trusted {
				t.Fatalf("verdict %q, want trusted %v", msg, c.trusted)
			}
			if !c.trusted && !strings.Contains(msg, "10m0s") {
				t.Errorf("verdict %q does not say by how much", msg)
			}
		})
	}
	votes := map[string]clockVote{"a": stale}
	clockVerdict(votes, now, memory, maxSkew)
	if len(votes) != 0 {
		t.Errorf("a reading older than the memory is kept: %v", votes)
	}
}
