// Package replica is the replicated ledger: a hashicorp/raft node whose FSM
// applies domain commands to a Badger store, the node's durable outbox, and
// the domain.Ledger the kiosk and staff pages use.
//
// Files: node.go (lifecycle, configuration), submit.go (taking commands:
// NewCommand, Submit and the intake rules the domain gives), forwarder.go
// (draining the outbox into the log, the leader's admission), forward.go
// (the peer port's forwarding endpoint), fsm.go (applying entries),
// snapshot.go, params.go (the ledger's parameters), integrity.go and
// digest.go (checkpoints, divergence, ledger format), revoke.go,
// membership.go, peer.go, outbox.go, recover.go (promotion).
//
// # What keeps every replica the same
//
// Found under load (issue 10) and fixed; each has a test that fails
// without its fix:
//
//   - A snapshot was Badger's DB.Backup, which reads its key ranges in
//     goroutines that each open their own read transaction (a database
//     without managed transactions: stream.go, readTs 0). Taken while
//     applies committed, one snapshot held an applied index newer than its
//     bills; the follower that installed it skipped the entries between
//     and kept a different ledger at the same index. A snapshot is now one
//     read transaction opened on raft's FSM goroutine between two applies
//     (TestSnapshotHoldsTheStateAtSnapshotTime,
//     TestSnapshotsUnderConcurrentAppliesAreConsistent).
//   - A batch too big for one Badger transaction committed half an entry
//     and wrote it again in the next; a crash between left half an entry.
//     A batch now splits only between entries, by Badger's own size
//     estimate, which counts the marker every transaction starts with
//     (TestABatchSplitsOnlyBetweenEntries, TestBatchAccountingMatchesBadger).
//   - An entry a node could not decode was journaled as refused and
//     skipped: a node of an older release would diverge silently. It now
//     halts the FSM (HaltError), and the ledger format keeps newer kinds
//     from being proposed before every member applies them
//     (TestUndecodableEntryHaltsTheFSM, TestLedgerFormatWaitsForEveryMember).
//   - A command id retried at another node was numbered twice; the second
//     number is now an alias of the posted receipt
//     (TestRetryAtAnotherNodeKeepsOneReceipt).
//   - Rules that changed the outcome of an existing kind apply from the
//     ledger format that introduced them (domain.RulesFormat), and
//     parameters are the ledger's own (params.go), so the same log gives
//     the same ledger on every node whatever build or file it runs.
//
// Divergence that gets through anyway is found: every node hashes its
// whole ledger at the leader's checkpoints and compares with its peers
// (digest.go, integrity.go; TestDivergedReplicaIsFlagged).
//
// # Durability
//
// Both Badger stores sync every commit (badgerstore.PiOptions). The raft
// log is synced before an entry is acknowledged; the ledger state commits
// an entry's records, its applied index and its journal link together, so
// after a crash at any moment the FSM's applied index names exactly what it
// holds, and raft replays the rest of its log (entries at or below the
// index are skipped). Raft compacts its log only behind a snapshot, and a
// snapshot holds the state at its index; a restore that a crash
// interrupted is finished at the next start (restoreMarker). The stores
// are opened through badgerstore.OpenDB, which refuses a damaged one.
package replica
