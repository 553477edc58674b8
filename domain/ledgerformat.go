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
//
// Format 3: the receipts of card payments record the card's brand and
// last four digits (CardShown, card.go), which the card-paid kinds carry
// as a new optional payload field; a node sends it only once the
// cluster's ledger is at format 3. And a bill's payments are stored as
// records of their own, with a summary of its §5.10 account in the bill's
// record (billpayments.go), so that posting a payment costs the same
// whatever the bill's history.
const LedgerFormat = 3

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

// Kind names the payload's kind.
func (*LedgerFormatChange) Kind() Kind { return KindLedgerFormat }

// Kind names the payload's kind.
func (*Checkpoint) Kind() Kind { return KindCheckpoint }

// Kind names the payload's kind.
func (*RevokeNode) Kind() Kind { return KindRevokeNode }

// The cluster's kinds: the leader appends them and the replica applies
// them itself.
var (
	ledgerFormatKind = &Descriptor{
		Kind: KindLedgerFormat, Since: 2, Cluster: true,
		New: func() Payload { return new(LedgerFormatChange) },
		Check: func(c Command) error {
			if c.Payload.(*LedgerFormatChange).To < 2 {
				return Errorf(EINVALID, "", "a ledger format change names a format above 1")
			}
			return nil
		},
	}
	checkpointKind = &Descriptor{
		Kind: KindCheckpoint, Since: 2, Cluster: true,
		New: func() Payload { return new(Checkpoint) },
	}
	revokeNodeKind = &Descriptor{
		Kind: KindRevokeNode, Since: 2, Cluster: true,
		New: func() Payload { return new(RevokeNode) },
		Check: func(c Command) error {
			if p := c.Payload.(*RevokeNode); p.Node == "" || p.Before.IsZero() {
				return Errorf(EINVALID, "", "a revocation names a node and a time")
			}
			return nil
		},
	}
)
