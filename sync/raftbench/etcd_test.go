package raftbench_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The appliance beside etcd. bench/etcd (a module of its own, so that
// etcd's dependencies stay out of the appliance's go.mod) measures the same
// payment on three embedded etcd members and writes its runs as JSON.
// `make bench` runs, in this order:
//
//  1. a counting pass of each under strace (see syncTrace): bench/etcd
//     writes bin/etcd-syncs.json, this package (RAFTBENCH_SYNCS_OUT)
//     bin/raftbench-syncs.json, each with the sync system calls per
//     payment;
//  2. the timed etcd run, writing bin/etcd.json;
//  3. the timed BenchmarkReplication, whose ratios step, with
//     RAFTBENCH_COMPARE=bin, reads the three files and prints the
//     comparison below its own tables.

// etcdRun is one run of bench/etcd's BenchmarkPayment at one concurrency,
// as its ETCDBENCH_OUT file holds it.
type etcdRun struct {
	Conc           int      `json:"conc"`
	N              int      `json:"payments"`
	Rate           float64  `json:"payments_per_s"`
	P50            float64  `json:"p50_us"`
	P99            float64  `json:"p99_us"`
	CPU            float64  `json:"cpu_us_per_payment"`
	Cores          float64  `json:"cores"`
	WALFsyncs      float64  `json:"wal_fsyncs_per_payment"`
	BackendCommits float64  `json:"backend_commits_per_payment"`
	SyncCalls      *float64 `json:"sync_calls_per_payment,omitempty"`
}

// syncsKey names a measurement in RAFTBENCH_SYNCS_OUT's file.
func syncsKey(k key) string { return fmt.Sprintf("%s/%s/%d", k.setup, k.path, k.conc) }

// writeSyncs writes the sync calls per command of the measurements that
// counted them to the file RAFTBENCH_SYNCS_OUT names, if it is set.
func writeSyncs(m map[key]result) error {
	name := os.Getenv("RAFTBENCH_SYNCS_OUT")
	if name == "" {
		return nil
	}
	out := map[string]float64{}
	for k, r := range m {
		if r.syncs >= 0 {
			out[syncsKey(k)] = r.syncs
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(data, '\n'), 0o644)
}

// readJSON decodes the file into v, and returns the file's age; a missing
// file is not an error (ok false).
func readJSON(name string, v any) (age time.Duration, ok bool, err error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return 0, false, fmt.Errorf("%s: %w", name, err)
	}
	st, err := os.Stat(name)
	if err != nil {
		return 0, false, err
	}
	return time.Since(st.ModTime()), true, nil
}

// printEtcd prints the appliance's submit path beside etcd and bare raft,
// with the ratios and their targets, when RAFTBENCH_COMPARE names the
// folder holding etcd.json (and, from the counting passes,
// etcd-syncs.json and raftbench-syncs.json).
func printEtcd(m map[key]result) error {
	dir := os.Getenv("RAFTBENCH_COMPARE")
	if dir == "" {
		return nil
	}
	var timed, counted []etcdRun
	age, ok, err := readJSON(filepath.Join(dir, "etcd.json"), &timed)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Printf("raftbench: no %s: run bench/etcd first (make bench does)\n", filepath.Join(dir, "etcd.json"))
		return nil
	}
	if _, _, err := readJSON(filepath.Join(dir, "etcd-syncs.json"), &counted); err != nil {
		return err
	}
	syncs := map[string]float64{}
	if _, _, err := readJSON(filepath.Join(dir, "raftbench-syncs.json"), &syncs); err != nil {
		return err
	}
	etcd := map[int]etcdRun{}
	for _, r := range timed {
		etcd[r.Conc] = r
	}
	etcdSyncs := map[int]float64{}
	for _, r := range counted {
		if r.SyncCalls != nil {
			etcdSyncs[r.Conc] = *r.SyncCalls
		}
	}
	fmt.Print(etcdTable(m, etcd, etcdSyncs, syncs, age))
	return nil
}

// etcdRow is one line of the comparison: a figure for the appliance's
// submit path, etcd and bare raft (NaN where not measured), and one ratio.
// A line with a target against etcd also reads bare raft against it
// (engine): the submit path is raft with the ledger's work added, so where
// bare raft misses a target on the machine, the submit path cannot meet it
// there, whatever its own cost.
type etcdRow struct {
	name               string
	submit, etcd, bare float64
	format             string
	ratio              ratio
	engine             *ratio
}

// etcdTable renders the comparison. Its targets: submit at least 1.5×
// etcd's payments/s at 16 clients, a p50 at 1 client and a p99 at 16 no
// more than etcd's, at most 3× bare raft's CPU per payment, and at 16
// clients no more sync calls per payment than bare raft.
func etcdTable(m map[key]result, etcd map[int]etcdRun, etcdSyncs map[int]float64, syncs map[string]float64, age time.Duration) string {
	nan := func() float64 { var z float64; return z / z }()
	get := func(setup string, conc int, f func(result) float64) float64 {
		r, ok := m[key{setup, "submit", conc}]
		if !ok {
			return nan
		}
		return f(r)
	}
	ofEtcd := func(conc int, f func(etcdRun) float64) float64 {
		r, ok := etcd[conc]
		if !ok {
			return nan
		}
		return f(r)
	}
	counted := func(setup string, conc int) float64 {
		v, ok := syncs[syncsKey(key{setup, "submit", conc})]
		if !ok {
			return nan
		}
		return v
	}
	ofEtcdSyncs := func(conc int) float64 {
		v, ok := etcdSyncs[conc]
		if !ok {
			return nan
		}
		return v
	}
	div := func(name, target string, limit, num, den float64) ratio {
		r := ratio{name: name, target: target, limit: limit, known: num == num && den == den && den != 0}
		if r.known {
			r.value = num / den
		}
		return r
	}
	rate := func(r result) float64 { return r.rate }
	p50 := func(r result) float64 { return millis(r.p50) }
	p99 := func(r result) float64 { return millis(r.p99) }
	cpu := func(r result) float64 { return micros(r.cpu) }
	var rows []etcdRow
	add := func(name, format string, s, e, b float64, r ratio) {
		row := etcdRow{name: name, format: format, submit: s, etcd: e, bare: b, ratio: r}
		if r.name == "submit/etcd" && r.target != "" {
			engine := div("bare/etcd", r.target, r.limit, b, e)
			row.engine = &engine
		}
		rows = append(rows, row)
	}
	for _, conc := range concurrencies {
		s, e, b := get("ws-badger", conc, rate), ofEtcd(conc, func(r etcdRun) float64 { return r.Rate }), get("ws-bare", conc, rate)
		target, limit := "", 0.0
		if conc == 16 {
			target, limit = ">= 1.5", 1.5
		}
		add(fmt.Sprintf("payments/s @%d", conc), "%.0f", s, e, b, div("submit/etcd", target, limit, s, e))
	}
	s, e := get("ws-badger", 1, p50), ofEtcd(1, func(r etcdRun) float64 { return r.P50 / 1000 })
	add("p50 ms @1", "%.2f", s, e, get("ws-bare", 1, p50), div("submit/etcd", "<= 1", 1, s, e))
	s, e = get("ws-badger", 16, p99), ofEtcd(16, func(r etcdRun) float64 { return r.P99 / 1000 })
	add("p99 ms @16", "%.2f", s, e, get("ws-bare", 16, p99), div("submit/etcd", "<= 1", 1, s, e))
	for _, conc := range concurrencies {
		s, b := get("ws-badger", conc, cpu), get("ws-bare", conc, cpu)
		add(fmt.Sprintf("CPU µs/payment @%d", conc), "%.0f", s, ofEtcd(conc, func(r etcdRun) float64 { return r.CPU }), b, div("submit/bare", "<= 3", 3, s, b))
	}
	for _, conc := range concurrencies {
		s, b := counted("ws-badger", conc), counted("ws-bare", conc)
		target, limit := "", 0.0
		if conc == 16 {
			target, limit = "<= 1", 1
		}
		add(fmt.Sprintf("sync calls/payment @%d", conc), "%.2f", s, ofEtcdSyncs(conc), b, div("submit/bare", target, limit, s, b))
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "\nraftbench: the appliance's submit path (ws-badger) beside etcd v3.7.3 (bench/etcd, measured %s before) and bare raft (ws-bare)\n", age.Round(time.Second))
	fmt.Fprintf(&sb, "%-24s %9s %9s %9s   %-12s %6s %7s %-7s %s\n", "figure", "submit", "etcd", "bare", "ratio", "value", "target", "", "engine (bare/etcd)")
	cell := func(format string, v float64) string {
		if v != v {
			return "n/a"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range rows {
		v := "n/a"
		if r.ratio.known {
			v = fmt.Sprintf("%.2f", r.ratio.value)
		}
		engine := ""
		if e := r.engine; e != nil && e.known {
			engine = fmt.Sprintf("%.2f %s", e.value, e.met())
		}
		fmt.Fprintf(&sb, "%-24s %9s %9s %9s   %-12s %6s %7s %-7s %s\n", r.name, cell(r.format, r.submit), cell(r.format, r.etcd), cell(r.format, r.bare), r.ratio.name, v, r.ratio.target, r.ratio.met(), engine)
	}
	for _, conc := range concurrencies {
		if r, ok := etcd[conc]; ok {
			fmt.Fprintf(&sb, "etcd's own counts @%d: %.2f WAL fdatasyncs and %.3f backend commits (bbolt, two fdatasyncs each) per payment, three members\n", conc, r.WALFsyncs, r.BackendCommits)
		}
	}
	sb.WriteString("engine: bare raft (the same transport and log store, an FSM that does nothing) against the same target;\n")
	sb.WriteString("where it misses, the submit path (raft and the ledger's work) cannot meet that target on this machine.\n")
	sb.WriteString("CPU: the process's user and system time over the run (three members and the clients) per payment.\n")
	sb.WriteString("sync calls: fsync, fdatasync, msync(MS_SYNC), sync_file_range and syncfs system calls of the whole process\n")
	sb.WriteString("(three members) per payment, counted under strace in a separate, untimed pass (n/a without it).\n")
	return sb.String()
}
