package replica

import (
	"github.com/hashicorp/raft"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector exposes a node's state to Prometheus. It reads the node when
// scraped, so nothing on the write path pays for metrics; register it on a
// per-node registry (several nodes may run in one test process).
type Collector struct {
	n *Node

	state, applied, lastIndex, term, pending, lastContact, clockOK, halted, diverged, format *prometheus.Desc

	commit, oldest, snapshotAge, commands, payments, applySeconds, unsigned, groups, grouped, lost *prometheus.Desc
}

// NewCollector returns a collector for n.
func NewCollector(n *Node) *Collector {
	l := prometheus.Labels{"node": n.cfg.ID}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("appliance_"+name, help, labels, l)
	}
	return &Collector{
		n:           n,
		state:       d("raft_state", "1 for the node's current raft state.", "state"),
		applied:     d("applied_index", "Index of the last log entry applied to the ledger."),
		lastIndex:   d("raft_last_index", "Index of the last entry in the node's raft log."),
		term:        d("raft_term", "The node's current raft term."),
		pending:     d("outbox_pending", "Commands taken on this node and not yet applied by the ledger."),
		lastContact: d("raft_last_contact_seconds", "Seconds since a follower last heard from the leader (0 on the leader)."),
		clockOK:     d("clock_trusted", "1 when the node trusts its clock to date commands."),
		halted:      d("ledger_halted", "1 when the node stopped applying the log at an entry it cannot apply (see /healthz)."),
		diverged:    d("ledger_diverged", "1 when checkpoint hashes show a replica whose ledger differs (see /healthz)."),
		format:      d("ledger_format", "The cluster's ledger format as this replica holds it."),

		commit:       d("raft_commit_index", "Index of the last log entry this node knows to be committed."),
		oldest:       d("outbox_oldest_seconds", "Age of the oldest command waiting in the outbox (0 when none waits)."),
		snapshotAge:  d("snapshot_age_seconds", "Seconds since the newest raft snapshot on disk was taken (-1 when there is none)."),
		commands:     d("commands_total", "Commands the ledger applied or refused since the node started, by kind.", "kind", "outcome"),
		unsigned:     d("unsigned_entries_total", "Log entries the ledger refused since the node started because no node of the cluster signed them: a forgery, or a bug."),
		groups:       d("group_entries_total", "Group entries the ledger applied since the node started: payments a leader appended together under one signature."),
		grouped:      d("grouped_commands_total", "Commands the ledger applied from group entries since the node started."),
		payments:     d("payments_total", "Payments posted by the ledger since the node started, by tender.", "tender"),
		applySeconds: d("apply_seconds", "Time to apply one batch of committed entries and commit it to the ledger store."),
		lost:         d("raft_lost_entries", "Log entries this node had synced and found missing at start (a cut write-ahead log) and has not yet caught up from the leader; while above 0 it does not vote (see /healthz)."),
	}
}

// Describe sends the descriptors of the metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.state, c.applied, c.lastIndex, c.term, c.pending, c.lastContact, c.clockOK, c.halted, c.diverged, c.format,
		c.commit, c.oldest, c.snapshotAge, c.commands, c.payments, c.applySeconds, c.unsigned, c.groups, c.grouped, c.lost} {
		ch <- d
	}
}

// Collect reads the node.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	n := c.n
	st := n.raft.State()
	for _, s := range []raft.RaftState{raft.Follower, raft.Candidate, raft.Leader, raft.Shutdown} {
		v := 0.0
		if s == st {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.state, prometheus.GaugeValue, v, s.String())
	}
	ch <- prometheus.MustNewConstMetric(c.applied, prometheus.GaugeValue, float64(n.fsm.Applied()))
	ch <- prometheus.MustNewConstMetric(c.lastIndex, prometheus.GaugeValue, float64(n.raft.LastIndex()))
	ch <- prometheus.MustNewConstMetric(c.term, prometheus.GaugeValue, float64(n.raft.CurrentTerm()))
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(max(n.pending.Load(), 0)))
	contact := 0.0
	if st != raft.Leader {
		if last := n.raft.LastContact(); !last.IsZero() {
			contact = n.cfg.Now().Sub(last).Seconds()
		}
	}
	ch <- prometheus.MustNewConstMetric(c.lastContact, prometheus.GaugeValue, contact)
	trusted := 1.0
	if n.checkClock(domainNow(n)) != nil {
		trusted = 0
	}
	ch <- prometheus.MustNewConstMetric(c.clockOK, prometheus.GaugeValue, trusted)
	ch <- prometheus.MustNewConstMetric(c.halted, prometheus.GaugeValue, flag(n.fsm.Halted() != nil))
	ch <- prometheus.MustNewConstMetric(c.diverged, prometheus.GaugeValue, flag(n.Divergence() != nil))
	ch <- prometheus.MustNewConstMetric(c.format, prometheus.GaugeValue, float64(n.fsm.Format()))

	ch <- prometheus.MustNewConstMetric(c.commit, prometheus.GaugeValue, float64(n.raft.CommitIndex()))
	age := 0.0
	if at, ok := n.outboxOldest(); ok {
		age = max(n.cfg.Now().Sub(at).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
	snap := -1.0
	if at, ok := n.lastSnapshot(); ok {
		snap = max(n.cfg.Now().Sub(at).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.snapshotAge, prometheus.GaugeValue, snap)
	counts := n.fsm.stats.read()
	for _, k := range counts.kinds {
		ch <- prometheus.MustNewConstMetric(c.commands, prometheus.CounterValue, float64(counts.applied[k]), string(k), "applied")
		ch <- prometheus.MustNewConstMetric(c.commands, prometheus.CounterValue, float64(counts.refused[k]), string(k), "refused")
	}
	for _, t := range counts.tenders {
		ch <- prometheus.MustNewConstMetric(c.payments, prometheus.CounterValue, float64(counts.payments[t]), string(t))
	}
	ch <- prometheus.MustNewConstHistogram(c.applySeconds, counts.total, counts.sum, counts.buckets)
	ch <- prometheus.MustNewConstMetric(c.unsigned, prometheus.CounterValue, float64(counts.unsigned))
	ch <- prometheus.MustNewConstMetric(c.groups, prometheus.CounterValue, float64(counts.groups))
	ch <- prometheus.MustNewConstMetric(c.grouped, prometheus.CounterValue, float64(counts.grouped))
	lost := 0.0
	if r, ok := n.logs.Lost(); ok {
		lost = float64(r.To - r.From + 1)
	}
	ch <- prometheus.MustNewConstMetric(c.lost, prometheus.GaugeValue, lost)
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
