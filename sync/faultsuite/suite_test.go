package faultsuite

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The suite's size comes from the environment so that `make test` runs a
// bounded subset and `make test-faults` the full randomized suite:
//
//	FAULTS_RUNS       in-process runs (default 1)
//	FAULTS_PROC_RUNS  runs of real processes killed with SIGKILL (default 1)
//	FAULTS_SECONDS    length of each run's fault phase (default 5)
//	FAULTS_SEED       first seed (default: from the clock, printed)
//	FAULTS_STRICT_READS=0  do not check reads made where a node says it
//	                  is current (checked by default)
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

var (
	summaryMu sync.Mutex
	summary   []Result
)

func record(t *testing.T, r Result) {
	t.Helper()
	summaryMu.Lock()
	summary = append(summary, r)
	summaryMu.Unlock()
	t.Log(r.Summary())
	report(t, r.Report)
	for _, f := range r.Faults {
		t.Logf("  fault: %s", f)
	}
	if !r.Report.OK() {
		for _, p := range r.Report.Problems {
			t.Errorf("%s seed %d: %s", r.Target, r.Plan.Seed, p)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(summary) > 0 {
		var faults, commands, lost, dup, posted, prov, unknown, failed int
		for _, r := range summary {
			faults += len(r.Faults)
			commands += r.Report.Commands
			lost += r.Report.Lost
			dup += r.Report.Duplicated
			posted += r.Report.Posted
			prov += r.Report.Provisional
			unknown += r.Report.Unknown
			if !r.Report.OK() {
				failed++
			}
		}
		fmt.Printf("fault suite: %d runs (%d failed), %d faults, %d commands (%d posted, %d provisional, %d unknown), lost %d, duplicated %d\n",
			len(summary), failed, faults, commands, posted, prov, unknown, lost, dup)
	}
	os.Exit(code)
}

// report prints the line `make test-stress` adds up: whether the nodes'
// states differed, and how many receipted payments were lost or applied
// twice.
func report(t *testing.T, r Report) {
	fmt.Printf("fault-report test=%s diverged=%d lost=%d duplicated=%d\n", t.Name(), boolInt(!r.HashesMatch), r.Lost, r.Duplicated)
}

func strictReads() bool { return os.Getenv("FAULTS_STRICT_READS") != "0" }

func firstSeed(t *testing.T) uint64 {
	if v, err := strconv.ParseUint(os.Getenv("FAULTS_SEED"), 10, 64); err == nil {
		return v
	}
	s := uint64(time.Now().UnixNano() % 1_000_000)
	t.Logf("FAULTS_SEED=%d", s)
	return s
}

// TestRandomFaultsInProcess runs randomized partitions, crashes (leader
// crashes during writes among them), restarts and slow disks against three
// nodes in this process while four clients pay bills at random nodes.
func TestRandomFaultsInProcess(t *testing.T) {
	runs := envInt("FAULTS_RUNS", 1)
	secs := envInt("FAULTS_SECONDS", 5)
	seed := firstSeed(t)
	for i := range runs {
		plan := Plan{Seed: seed + uint64(i), Duration: time.Duration(secs) * time.Second, Clients: 4, Reads: strictReads()}
		t.Run(fmt.Sprintf("seed-%d", plan.Seed), func(t *testing.T) {
			target := NewInProcess(t, InProcessOptions{SubmitWait: time.Second, TrailingLogs: 8})
			record(t, Run(t, target, plan))
		})
	}
}

// TestRandomFaultsKill9 runs the built appliance as three processes and
// hurts them the way the village can: kill -9 (a power cut) of any node
// and of the leader while clients write, restarts, partitions of the
// WebSocket transport and a slowed disk.
func TestRandomFaultsKill9(t *testing.T) {
	runs := envInt("FAULTS_PROC_RUNS", 1)
	secs := envInt("FAULTS_SECONDS", 5)
	seed := firstSeed(t) + 1000
	for i := range runs {
		plan := Plan{Seed: seed + uint64(i), Duration: time.Duration(secs) * time.Second, Clients: 4, Reads: strictReads()}
		t.Run(fmt.Sprintf("seed-%d", plan.Seed), func(t *testing.T) {
			target := NewProcesses(t, 20)
			r := Run(t, target, plan)
			record(t, r)
			if !r.Report.OK() {
				t.Log(target.Logs())
			}
		})
	}
}
