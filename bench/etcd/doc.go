// Package etcdbench measures the village's payment transaction on etcd, the
// replicated store an integrator would otherwise pick for the same job, so
// that the appliance's figures (sync/raftbench) can be read beside it.
//
// BenchmarkPayment starts three embedded etcd v3.7.3 members
// (go.etcd.io/etcd/server/v3/embed) on 127.0.0.1, each with its own data
// folder, with etcd's default settings (100 ms heartbeat, 1 s election, the
// backend committing every 100 ms). It seeds 2,000 bills and pays $1.00 at
// a time on them in turn, through one go.etcd.io/etcd/client/v3 client on
// the leader, at 1 and 16 concurrent clients. One payment is:
//
//  1. a serializable Get of the bill on the leader (the compare below makes
//     a stale read safe: it fails and is retried);
//  2. one Txn: If the bill's mod revision is the one read, Then put the
//     payment record and put the bill with its new balance. A failed
//     compare (another client paid the same bill) reads and tries again.
//
// Every run reports payments/s (cmds/s), the p50 and p99 latency of one
// payment, the process's CPU time per payment (getrusage: the three members
// and the clients together) and the cores busy, and etcd's own count of
// synced writes per payment, from its Prometheus registry, summed over the
// three members: wal-fsyncs/cmd (etcd_disk_wal_fsync_duration_seconds_count,
// one fdatasync of the write-ahead log per raft Ready batch) and
// backend-commits/cmd (etcd_disk_backend_commit_duration_seconds_count, one
// bbolt commit, itself two fdatasyncs, at most every 100 ms).
//
// When the process runs under strace and SYNCTRACE names strace's output
// file, each run also reports sync-calls/cmd: the fsync, fdatasync, msync
// (MS_SYNC), sync_file_range and syncfs system calls the whole process made
// during the run, counted the same way as sync/raftbench counts the
// appliance's. `make bench` runs such a counting pass apart from the timed
// one, because tracing slows every sync.
//
// With ETCDBENCH_OUT set, the last (longest) run at each concurrency is
// written there as JSON, for sync/raftbench's ratios to read.
//
//	go test -run '^$' -bench Payment -benchtime 2s .
//
// The module is separate from the appliance's so that etcd's dependencies
// (grpc, zap, bbolt, etcd's raft) stay out of the appliance's go.mod.
package etcdbench
