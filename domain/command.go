package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CommandVersion is the version of the command encoding written by this
// build. Decoding accepts every version up to it; kinds and fields only grow.
const CommandVersion = 1

// Kind names what a command does. Kinds are declared in the table Kinds
// (kinds.go); none is ever renamed or removed, because old log entries
// must still decode.
type Kind string

// OfflineSafe reports whether commands of kind k may be taken without
// quorum (Descriptor.Offline).
func (k Kind) OfflineSafe() bool { return Kinds.OfflineSafe(k) }

// Since returns the ledger format that introduced kind k.
func (k Kind) Since() int { return Kinds.Since(k) }

// Command is one change to the ledger. Everything that is not deterministic
// (its id, the intake time, the node, the receipt sequence) is decided before
// it enters the log, where it was taken, so that every node applying it
// reaches the same state. Its payload says what it does; the log encodes it
// under its kind's field (Command.MarshalJSON).
type Command struct {
	V     int      // the encoding's version
	ID    string   // client-made, unique (UUIDv7); a second delivery is a no-op
	Kind  Kind     //
	At    DateTime // intake time on the village clock: the command's legal date
	Node  string   // the node that took it
	Seq   uint64   // that node's receipt sequence
	Actor string
	// Payload is the kind's own payload (*PayBill for pay_bill …).
	Payload Payload
}

// PayloadKept reports whether c carries its payload (the ledger keeps a
// very large command without it).
func (c Command) PayloadKept() bool { return c.Payload != nil }

// SameRequest reports whether d asks for exactly what c asks: the same id,
// kind, actor and payload. The node, its sequence and the intake time may
// differ: a client that retries at another node sends the same request,
// which that node stamps anew. A command id reused for another request
// (another amount, another bill, another account) is a conflict, never
// the first request's answer.
func (c Command) SameRequest(d Command) bool {
	norm := func(x Command) []byte {
		x.V, x.Node, x.Seq, x.At = 0, "", 0, DateTime{}
		b, _ := json.Marshal(x)
		return b
	}
	return bytes.Equal(norm(c), norm(d))
}

// ReceiptNumber returns the number a receipt for this command carries:
// "<node>-<sequence>", unique without coordination.
func (c Command) ReceiptNumber() string { return fmt.Sprintf("%s-%06d", c.Node, c.Seq) }

// ProvisionalReceipt returns the receipt a node gives for a command it has
// recorded in its outbox but that has not posted yet: numbered
// "<node>-<sequence>" like the posted one, marked Provisional, without the
// figures only applying it can give. It is nil for a kind that takes no
// money (Descriptor.Receipt).
func (c Command) ProvisionalReceipt() *Receipt {
	d, ok := Kinds.Lookup(c.Kind)
	if !ok || d.Receipt == nil || c.Payload == nil {
		return nil
	}
	return d.Receipt(c)
}

// provisional is the frame of a provisional receipt, which each paying
// kind fills in.
func provisional(c Command) *Receipt {
	return &Receipt{Number: c.ReceiptNumber(), Kind: c.Kind, CommandID: c.ID, Status: Provisional, At: c.At, Node: c.Node}
}

// Result is what applying a command produced.
type Result struct {
	CommandID string     `json:"command_id"`
	Kind      Kind       `json:"kind"`
	Index     uint64     `json:"index,omitempty"`
	Receipt   *Receipt   `json:"receipt,omitempty"`
	Refund    *RefundDue `json:"refund,omitempty"`
	Error     *Error     `json:"error,omitempty"` // the domain refused the command
	Note      string     `json:"note,omitempty"`
	// Ref names the record the command made, when the ledger numbered it
	// (an order's number, an expense's), for the page to show next.
	Ref string `json:"ref,omitempty"`
}

// EncodeCommand returns the log encoding of c: a version byte, then JSON.
func EncodeCommand(c Command) ([]byte, error) {
	c.V = CommandVersion
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode command %s: %w", c.ID, err)
	}
	return append([]byte{CommandVersion}, body...), nil
}

// DecodeCommand reads a command with the product's kinds (Table.Decode).
func DecodeCommand(b []byte) (Command, error) { return Kinds.Decode(b) }

// Validate checks that the command is well formed (Table.Validate).
func (c Command) Validate() error { return Kinds.Validate(c) }

// Apply runs a command of the product's kinds against the ledger inside tx
// (Table.Apply). index is the log index applying it.
func Apply(tx Tx, c Command, index uint64, p *Params) (Result, error) {
	return Kinds.Apply(tx, c, Env{Index: index, Params: p})
}
