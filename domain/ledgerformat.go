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
	// KindNodeMark records, for each node the leader is in touch with, the
	// highest receipt sequence the node has handed out, the sequence up to
	// which the ledger has answered every one of its commands, and when:
	// a command from the node dated before the mark that preceded its
	// sequence is back-dated, and refused (replica's sequence rules).
	KindNodeMark Kind = "node_mark"
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
//
// Format 4: every log entry is signed by the node that made it and the
// ledger applies only what a node of the cluster signed, with a role that
// may take its kind (replica's signed entries); each node's receipt
// sequences are used once and a command may not be dated before its
// node's last mark (KindNodeMark); a receipt, once posted, is never
// written again; and demo data loads only into a ledger without staff.
//
// Format 5: the village's books (books.go): the kinds that move money post
// balanced journal lines by fund with the command, and the chart's
// balance-sheet accounts hold them.
//
// Format 6: the books complete (ReconciledFormat, books.go): bank
// statements reconciled against cash by depository, postings for the
// money events the first release of the books left out, and the budget's
// actuals read from the books alone.
//
// Format 7: the documents that leave the office (DocumentsFormat): what
// they need recorded that the ledger did not hold before. A reduction of
// special assessments to a lower actual cost (§5.14(10)) shares the cost
// out over the village's own share too, and a refund it makes names the
// receipts that paid. A status letter is requested at the window or through the
// API (office_status_letter, statusoffice.go), for a title company that
// gives an e-mail address, with its fee paid by card, by check into a
// drawer or billed on account; a written letter may be recorded as
// mailed. A hotel operator's login that pays room tax by card on its
// portal (pay_room_tax with a staff actor) pays only toward its own
// operator's returns (checkOperatorPays, roomtaxreturn.go). The owner's
// mailing address of a parcel or a billing account (mailing.go), which a
// parcel roll's line may carry and KindMailingAddress records, so that
// bills and notices go to the owner rather than to the parcel. The
// rules' messages and the bases they record print amounts with thousands
// separators ("$70,000.00"; dollarsIn, money.go). The notice of a
// budget's hearing records the day it names (BudgetNotice.HearingOn).
// Each new bill gets a number for people, "2026-000123", from a counter
// of its year in the ledger (Bill.Number, billnumber.go). A village bill
// may carry a description in Spanish (Bill.DescriptionES, billing.go),
// given when it is created, for the resident kiosk's Spanish pages.
//
// Format 8: what one log entry writes no longer grows with the village
// (RunPartsFormat). The November run posts a step in parts of at most
// RunPartBills bills, each line a record of its own, the run keeping
// counts and totals and staying open until the last part; before, one
// command held every line and the run's record grew with the roll, past
// what one entry may write in a village of some thousands of bills. A
// change too large to apply says so by its size.
//
// Format 9: a leading node that takes many payments at once may append
// them as one log entry under one signature (GroupFormat; replica's group
// entries). Nothing a command records changes: each applies as it would
// alone, with its own journal link and result.
const LedgerFormat = 9

// DocumentsFormat is the ledger format from which the ledger holds what
// the documents that leave the office need: a payload field or a rule
// that only this format applies names it, so that a format-6 ledger
// replays exactly as it was written.
const DocumentsFormat = 7

// RunPartsFormat is the ledger format from which a November run step
// posts in parts (NovemberStep.More, applyNovemberPart).
const RunPartsFormat = 8

// GroupFormat is the ledger format from which the log takes group
// entries: several payments of one node signed together.
const GroupFormat = 9

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

// NodeMarks carries the leader's marks of the nodes it is in touch with.
type NodeMarks struct {
	Marks []NodeMark `json:"marks"`
}

// NodeMark is what one node said of its receipt sequences when the leader
// asked: Issued is the highest it had handed out, Answered the highest
// below which the ledger has answered every command it took, and At when
// it said so (on its clock, no later than the mark's own date).
type NodeMark struct {
	Node     string   `json:"node"`
	Issued   uint64   `json:"issued"`
	Answered uint64   `json:"answered"`
	At       DateTime `json:"at"`
}

// Kind names the payload's kind.
func (*NodeMarks) Kind() Kind { return KindNodeMark }

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
	nodeMarkKind = &Descriptor{
		Kind: KindNodeMark, Since: 4, Cluster: true,
		New: func() Payload { return new(NodeMarks) },
		Check: func(c Command) error {
			for _, m := range c.Payload.(*NodeMarks).Marks {
				if m.Node == "" || m.At.IsZero() || m.Answered > m.Issued {
					return Errorf(EINVALID, "", "a node mark names a node, a time, and an answered sequence no higher than the issued one")
				}
			}
			return nil
		},
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
