// Package raftbench measures the replicated ledger end to end: real
// three-voter clusters on 127.0.0.1 running the real replica FSM, driven
// with pay_bill commands on 2,000 seeded bills. It holds benchmarks only (in
// its test files); the numbers are reported, never asserted.
//
// BenchmarkReplication runs, side by side in one process, three
// configurations of the same node (replica.Node) and the engine under it:
//
//   - ws-bare: bare raft on the appliance's transport and log store
//     (wsstream, badgerstore, replica.RaftConfig) with an FSM that does
//     nothing: the ceiling the appliance's paths are compared with
//     (submit/bare and apply/bare).
//   - ws-badger: raft's NetworkTransport over sync/wsstream (WebSockets with
//     mutual TLS on the peer port) and the Badger log store: the appliance.
//   - tcp-badger: raft's stock TCP transport with the same Badger store.
//   - tcp-bolt: stock TCP with github.com/hashicorp/raft-boltdb/v2 v2.3.0 as
//     raft's log and stable store (replica.Config.LogStore and StableStore;
//     the outbox and the ledger stay in Badger).
//
// Each is loaded at concurrency 1 and 16 through two paths: "submit"
// (Node.NewCommand and Node.Submit on the leader: straight into raft, then
// the FSM, which is what the clerk's window waits for) and "apply"
// (raft.Apply of an encoded command on the leader: raft and the FSM alone).
// ws-bare commits the same encoded pay_bill bytes with raft.Apply on
// either path. For each path and concurrency the setups run one after the
// other, seconds apart. Every run reports committed commands per second (cmds/s)
// and the p50 and p99 latency of one command (p50-µs, p99-µs).
//
// The apply path proposes the leader's own commands, signed with its key
// as the ledger asks (Node.EncodeEntry), with sequences of their own.
//
// BenchmarkReplication/ratios then reports, as metrics, the ratios the
// targets are stated in, and logs a table of the runs and of the ratios
// with their targets. With -count N it does so for each repetition and,
// after the last, logs the medians: on a shared machine compare those.
//
// With RAFTBENCH_COMPARE naming a folder holding bench/etcd's output
// (etcd.json; `make bench-clusters` writes it minutes before), the ratios
// step also prints the submit path beside etcd doing the same payment and
// beside bare raft, with the targets: payments/s, p50 at 1 client, p99 at
// 16, CPU per payment and sync system calls per payment. The sync calls
// are counted under strace (see syncTrace), in a separate untimed pass
// that writes RAFTBENCH_SYNCS_OUT.
//
// BenchmarkFailover stops the leader and times the first pay_bill committed
// through Node.Submit on the new leader, five times, and reports the median
// (commit-ms), for the appliance's setup and for stock TCP.
//
// BenchmarkSubmitParts takes the submit path apart (the receipt sequence,
// Submit alone, and a bare synced Badger write) to show where its time goes.
//
//	go test -run '^$' -bench . -benchtime 2s ./sync/raftbench
//	go test -run '^$' -bench Replication -benchtime 2s -count 3 ./sync/raftbench
//	go test -run '^$' -bench 'Replication/./c/ws-' -benchtime 300x ./sync/raftbench # ws-bare and ws-badger only
//
// The numbers depend on the machine's fsync and cores; compare ratios.
package raftbench
