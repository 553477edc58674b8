package domain

import "time"

// Commands about the replicated ledger itself, not about Chapter 5: they
// keep a cluster whose nodes run different releases from diverging, and
// let the nodes prove to each other that they hold the same ledger.

// Cluster command kinds. Kinds only grow.
const (
	// KindLedgerFormat raises the cluster's ledger format: the leader
	// proposes it once every member says it can apply that format.
	KindLedgerFormat Kind = "ledger_format"
	// KindCheckpoint marks a point of the log at which every node hashes
	// its whole ledger, so that replicas compare their state at the same
	// index.
	KindCheckpoint Kind = "checkpoint"
	// KindRevokeNode revokes the certificates of a node the cluster
	// removed: every node refuses them at the TLS handshake from then on.
	KindRevokeNode Kind = "revoke_node"
)

// LedgerFormat is the newest ledger format this build applies. A ledger
// begins at format 1 (every kind of the first releases). A kind introduced
// later names the format it needs (Kind.Since); no node proposes it, and
// the ledger refuses it, until the cluster's format has been raised to it,
// which happens only once every member runs a build that applies it. So
// during a rolling upgrade an old node never meets a kind it cannot
// decode; if it does anyway (a bug), it halts rather than skip it.
const LedgerFormat = 2

// since lists the kinds that need a ledger format above 1.
var since = map[Kind]int{
	KindLedgerFormat: 2,
	KindCheckpoint:   2,
	KindRevokeNode:   2,
}

// Since returns the ledger format that introduced kind k.
func (k Kind) Since() int {
	if v, ok := since[k]; ok {
		return v
	}
	return 1
}

// RulesFormat returns the ledger format the rules apply at inside tx: the
// replicated ledger's format when tx knows it (the replica's transaction
// does), else this build's newest. A rule that changes the outcome of a
// kind that already exists (a new limit, a new refusal) applies only from
// the format that introduced it, so entries applied under the old rules
// give the same answers wherever the log is replayed: on a node catching
// up from the log of a cluster that was upgraded, the format raise sits at
// the same index as it did everywhere.
func RulesFormat(tx Tx) int {
	if f, ok := tx.(interface{ LedgerFormat() int }); ok {
		return f.LedgerFormat()
	}
	return LedgerFormat
}

// LedgerFormatChange raises the ledger format to To.
type LedgerFormatChange struct {
	To int `json:"to"`
}

// Checkpoint carries nothing: its log index is the point hashed.
type Checkpoint struct{}

// RevokeNode revokes node's certificates: the one with serial Serial (the
// certificate it last presented, when known, in decimal) and every one
// issued before Before (its NotBefore earlier than that), so that a
// certificate issued after the removal, to rejoin, is accepted.
type RevokeNode struct {
	Node   string    `json:"node"`
	Serial string    `json:"serial,omitempty"`
	Before time.Time `json:"before"` // an instant, as certificates date themselves
}

// clusterPayloads counts the cluster payloads of c and says whether kind k
// is a cluster kind carrying its own.
func (c Command) clusterPayloads(k Kind) (n int, known, ok bool) {
	if c.LedgerFormat != nil {
		n++
	}
	if c.Checkpoint != nil {
		n++
	}
	if c.RevokeNode != nil {
		n++
	}
	switch k {
	case KindRevokeNode:
		return n, true, c.RevokeNode != nil && c.RevokeNode.Node != "" && !c.RevokeNode.Before.IsZero()
	case KindLedgerFormat:
		return n, true, c.LedgerFormat != nil && c.LedgerFormat.To > 1
	case KindCheckpoint:
		return n, true, c.Checkpoint != nil
	}
	return n, false, false
}
