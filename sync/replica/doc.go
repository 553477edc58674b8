// Package replica is the replicated ledger: a hashicorp/raft node whose FSM
// applies domain commands to a Badger store, the node's durable outbox, and
// the domain.Ledger the kiosk and staff pages use.
//
// Files: node.go (lifecycle, configuration), submit.go (taking commands:
// NewCommand, Submit and the intake rules the domain gives), forwarder.go
// (draining the outbox into the log, the leader's admission), forward.go
// (the peer port's forwarding endpoint), leader.go (following raft's
// leader changes: a forward to an old leader is sent again to the new
// one), dials.go (the raft transport's failed dials, for /healthz),
// fsm.go (applying entries),
// snapshot.go, params.go (the ledger's parameters), integrity.go and
// digest.go (checkpoints, divergence, ledger format), revoke.go,
// membership.go, peer.go, outbox.go, recover.go (promotion).
//
// # What keeps every replica the same
//
// Found under load and fixed; each has a test that fails
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
// # Bills and their payments
//
// A bill is b/<bill id>. Below ledger format 3 its record holds every
// payment posted to it. From format 3 the record holds a summary of its
// §5.10 account after its latest payment (domain.BillSummary) and each
// payment is the record x/bill-payments/<bill id>/<slot> of the named
// collection domain.CollectionBillPayments, written once; a bill stored
// the old way is converted by the first rule that stores it at format 3,
// at the same index on every replica. The store knows nothing of this
// (the domain reads and writes the records through domain.Tx); the reads
// here (FSM.Bill, BillsByAccount, BillsByParcel, Bills) fill Payments in
// with domain.ReadBillPayments, so every reader sees a bill as before.
//
// Divergence that gets through anyway is found: every node hashes its
// whole ledger at the leader's checkpoints and compares with its peers
// (digest.go, integrity.go; TestDivergedReplicaIsFlagged).
//
// # Durability
//
// Acknowledged means committed: the entry is in the raft log of a quorum,
// and the raft log syncs every write (badgerstore.PiOptions, SyncWrites)
// before raft counts it stored. The outbox lives in the same synced store,
// so a command is durable on this node before Submit returns, whatever
// happens to it after.
//
// The ledger state does not sync its commits (Node opens it with
// SyncWrites off): everything it holds can be computed again from the log,
// and the FSM is deterministic. What the state must guarantee after a
// crash at any moment is only this:
//
//  1. It holds a prefix of the log: an entry's records, its applied index
//     and its journal link commit in one Badger transaction, and a batch
//     splits only between entries (ApplyBatch). Badger replays its
//     write-ahead log up to the first entry that fails its checksum and
//     drops a transaction without its finish entry, so after a power cut
//     it holds the transactions before some point, never a hole, and the
//     applied index names exactly the entries it holds. Tables written by
//     a memtable flush, and the MANIFEST, are synced by Badger whatever
//     SyncWrites says, before the write-ahead log they replace is deleted.
//  2. Every entry raft may have deleted from its log, or may skip at the
//     next start, is in it. Raft deletes log entries only up to a snapshot
//     (less TrailingLogs) once the snapshot's sink has closed, and at start
//     it replays only the entries after its newest snapshot (its applied
//     index starts at the snapshot's, NoSnapshotRestoreOnStart or not). So
//     the snapshot syncs the state before it closes its sink
//     (snapshot.Persist): the state on disk then reaches at least the
//     snapshot's index, and everything after it is still in the log and is
//     replayed; entries at or below the applied index are skipped. A
//     snapshot installed from the leader (Restore) syncs before it removes
//     its restore marker and returns, after which raft drops its whole log;
//     ResetApplied syncs too.
//  3. No write-ahead entry points at value-log data that could be missing.
//     A value of ValueThreshold bytes or more (1 MiB with PiOptions) goes to
//     Badger's value log, and unsynced, the log entry pointing at it could
//     reach the disk first: a batch that writes one syncs after its commit
//     (batch.commit). The window left is the commit itself; such values
//     occur only in records near the batch limit (at ledger format 2, a
//     bill with thousands of payments; from format 3 a bill's record holds
//     a summary of its account and each payment is a record of its own,
//     domain/billpayments.go).
//
// A crash then loses only state that the log gives back: at the next
// start raft replays the log after the snapshot and the FSM applies what
// it does not hold, computing the same records, receipts and journal links
// it computed before (same log, same results). Until that replay a
// restarted node's reads are older than what it had acknowledged; its
// outbox already says which commands were answered and with what. kill -9
// loses nothing of the state at all (the page cache survives the process),
// which the kill -9 and fault suites check with the state hashes of every
// node; a power cut can lose the unsynced tail, which the replay restores.
//
// Every commit of the state used to be synced as well, one fsync per batch
// on every node beside raft's own; measured in sync/raftbench. Raft
// compacts its log only behind a snapshot, and a snapshot holds the state
// at its index; a restore that a crash interrupted is finished at the next
// start (restoreMarker). The stores are opened through badgerstore.OpenDB,
// which refuses a damaged one.
package replica
