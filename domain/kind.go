package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// A command kind is declared once: one Descriptor, in the file of the
// rule it applies, and one row in the table Kinds (kinds.go). The log
// codec, the ledger (the replica's FSM), the intake checks of the nodes
// (offline-safe, node roles, ledger format), the kiosk's provisional
// receipts and the staff pages all read the table; no switch over kinds
// is written anywhere else.

// Payload is what a command of one kind carries: one type per kind,
// always used as a pointer (*PayBill). Kind names the kind it belongs to.
type Payload interface {
	Kind() Kind
}

// Env is what applying a command may use besides the ledger itself: the
// log index applying it and the parameters in force.
type Env struct {
	Index  uint64
	Params *Params
}

// Descriptor declares one kind of command.
type Descriptor struct {
	Kind Kind
	// Field is the JSON field of the payload in the log encoding; empty
	// means the kind's own name. (november_run carries november_step, as
	// the first release wrote it.)
	Field string
	// Section is the ordinance section the kind applies, for the journal
	// and the pages ("§5.10"); empty for none.
	Section string
	// Since is the ledger format that introduced the kind (0 means 1):
	// no node proposes it, and the ledger refuses it, until the cluster's
	// format has been raised to it.
	Since int
	// Offline says a node may take the kind while it cannot reach the
	// leader: it is queued with a provisional receipt and re-validated
	// when it reaches the ledger. The safe default for a new kind is no.
	Offline bool
	// Resident says residents start it at the kiosk: a kiosk-role node
	// takes it. Every other kind is the clerk's office's.
	Resident bool
	// Cluster says the kind is the cluster's own, appended by the leader
	// and applied by the ledger itself (Apply is nil): no client and no
	// node role may submit it.
	Cluster bool
	// Roles are the staff roles that may issue it; empty means any
	// signed-in role whose page offers it (the pages' capabilities say
	// who sees which page).
	Roles []Role
	// New returns an empty payload of the kind, for decoding.
	New func() Payload
	// Check checks the payload beyond being present (optional): what
	// needs no ledger to decide.
	Check func(Command) error
	// Apply runs the kind's rule against the ledger (nil for the
	// cluster's kinds, which the replica applies).
	Apply func(tx Tx, c Command, env Env, res *Result) error
	// Receipt, when set, returns the provisional receipt for a command
	// queued but not yet applied: the kinds that take money have one.
	Receipt func(Command) *Receipt
	// Books, when set, names the journal lines of the village's books
	// that the command posts, after Apply, with res its result (books.go):
	// every kind that moves money or a claim to money has it. It returns
	// the entry's memo; a line that does not balance refuses the command.
	Books func(l *Lines, tx Tx, c Command, res Result) string
}

// field returns the payload's JSON field.
func (d *Descriptor) field() string {
	if d.Field != "" {
		return d.Field
	}
	return string(d.Kind)
}

// since returns the ledger format that introduced the kind.
func (d *Descriptor) since() int { return max(d.Since, 1) }

// Permits reports whether staff role r may issue the kind (Role.Is: the
// Village President issues what a board member may).
func (d *Descriptor) Permits(r Role) bool {
	if len(d.Roles) == 0 {
		return true
	}
	for _, x := range d.Roles {
		if r.Is(x) {
			return true
		}
	}
	return false
}

// Table is a set of command kinds: Kinds in the product, extended in
// tests with kinds of their own (With).
type Table struct {
	byKind  map[Kind]*Descriptor
	byField map[string]*Descriptor
}

// NewTable returns a table of descriptors. A kind or a payload field named
// twice, or a descriptor without New (or without Apply when it is not a
// cluster kind), is a bug in the table and panics when the program starts.
func NewTable(ds ...*Descriptor) Table {
	t := Table{byKind: map[Kind]*Descriptor{}, byField: map[string]*Descriptor{}}
	for _, d := range ds {
		switch {
		case d.Kind == "" || d.New == nil || (d.Apply == nil) != d.Cluster:
			panic(fmt.Sprintf("domain: incomplete descriptor for kind %q", d.Kind))
		case t.byKind[d.Kind] != nil:
			panic(fmt.Sprintf("domain: kind %q declared twice", d.Kind))
		case t.byField[d.field()] != nil || new(header).field(d.field()) != nil:
			panic(fmt.Sprintf("domain: payload field %q declared twice", d.field()))
		case d.New().Kind() != d.Kind:
			panic(fmt.Sprintf("domain: the payload of kind %q names kind %q", d.Kind, d.New().Kind()))
		}
		t.byKind[d.Kind] = d
		t.byField[d.field()] = d
	}
	return t
}

// With returns a table with the kinds of t and ds.
func (t Table) With(ds ...*Descriptor) Table { return NewTable(append(t.Descriptors(), ds...)...) }

// Descriptors returns the table's descriptors, by kind.
func (t Table) Descriptors() []*Descriptor {
	out := make([]*Descriptor, 0, len(t.byKind))
	for _, d := range t.byKind {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// IsZero reports whether t is the zero Table (no kinds at all).
func (t Table) IsZero() bool { return t.byKind == nil }

// OfflineSafe reports whether commands of kind k may be taken without
// quorum (Descriptor.Offline).
func (t Table) OfflineSafe(k Kind) bool {
	d, ok := t.byKind[k]
	return ok && d.Offline
}

// Since returns the ledger format that introduced kind k; a kind t does
// not know needs a format no cluster runs.
func (t Table) Since(k Kind) int {
	if d, ok := t.byKind[k]; ok {
		return d.since()
	}
	return LedgerFormat + 1
}

// MayTake reports whether a node of role r may take commands of kind k:
// the kiosk takes resident kinds only; the clerk's node and the backup
// (which serves the clerk's office when village hall is lost) take every
// kind; no role takes the cluster's own kinds.
func (t Table) MayTake(r NodeRole, k Kind) bool {
	d, ok := t.byKind[k]
	if !ok || d.Cluster {
		return false
	}
	switch r {
	case NodeClerk, NodeBackup:
		return true
	case NodeKiosk:
		return d.Resident
	}
	return false
}

// Cluster reports whether kind k is the cluster's own (appended by the
// leader, applied by the replica).
func (t Table) Cluster(k Kind) bool {
	d, ok := t.byKind[k]
	return ok && d.Cluster
}

// Lookup returns the descriptor of kind k.
func (t Table) Lookup(k Kind) (*Descriptor, bool) {
	d, ok := t.byKind[k]
	return d, ok
}

// Validate checks that c is well formed: an id, an intake time and a
// node, a kind of the table with its own payload, and what the kind's
// Check says.
func (t Table) Validate(c Command) error {
	if len(c.ID) == 0 || len(c.ID) > 64 || isBlank(c.ID) {
		return Errorf(EINVALID, "", "command id is missing or too long")
	}
	if c.At.IsZero() {
		return Errorf(EINVALID, "", "command %s has no intake time", c.ID)
	}
	if c.Node == "" {
		return Errorf(EINVALID, "", "command %s has no node", c.ID)
	}
	d, ok := t.byKind[c.Kind]
	if !ok {
		return Errorf(EINVALID, "", "command %s has unknown kind %q", c.ID, c.Kind)
	}
	if c.Payload == nil || c.Payload.Kind() != c.Kind {
		return Errorf(EINVALID, "", "command %s of kind %s must carry exactly its own payload", c.ID, c.Kind)
	}
	if _, raw := c.Payload.(RawPayload); raw {
		return Errorf(EINVALID, "", "command %s of kind %s is not known to this build", c.ID, c.Kind)
	}
	if d.Check != nil {
		return d.Check(c)
	}
	return nil
}

// Apply runs c against the ledger inside tx. It is deterministic: the
// same command on the same state gives the same writes and result on
// every node. A refusal by the rules is returned as an *Error and nothing
// is written; the caller records the command as seen either way, so that
// a second delivery of it is a no-op.
func (t Table) Apply(tx Tx, c Command, env Env) (Result, error) {
	res := Result{CommandID: c.ID, Kind: c.Kind, Index: env.Index}
	d, ok := t.byKind[c.Kind]
	if !ok || d.Apply == nil {
		return res, Errorf(EINVALID, "", "unknown command kind %q", c.Kind)
	}
	if RulesFormat(tx) >= 2 {
		// Free text is checked here, for every kind and whichever channel
		// brought it, so that no hidden character (a NUL, a bidi
		// control) is ever stored (ledger format 2).
		if err := c.CheckText(); err != nil {
			return res, err
		}
	}
	if err := d.Apply(tx, c, env, &res); err != nil {
		return res, err
	}
	if res.Receipt != nil && RulesFormat(tx) >= 2 {
		// Every receipt the ledger posts is counted in the actuals of the
		// revenue account that collects it (appropriation.go), so the
		// budget's actuals are the ledger's own receipts.
		if err := postReceipt(tx, res.Receipt, res.Receipt.Amount); err != nil {
			return res, err
		}
	}
	if err := postBooks(tx, d, c, env, res); err != nil {
		return res, err
	}
	return res, nil
}

// Decode reads a command written by EncodeCommand of this or an earlier
// version. Unknown fields, an unknown kind, a missing payload or a
// version from the future are errors: a node must never apply what it
// does not fully understand.
func (t Table) Decode(b []byte) (Command, error) {
	if len(b) == 0 {
		return Command{}, Errorf(EINVALID, "", "empty command")
	}
	if b[0] == 0 || b[0] > CommandVersion {
		return Command{}, Errorf(EINVALID, "", "command version %d is not known to this build (newest %d)", b[0], CommandVersion)
	}
	var c Command
	if err := t.unmarshal(b[1:], &c); err != nil {
		return Command{}, Errorf(EINVALID, "", "decode command: %v", err)
	}
	if c.V != int(b[0]) {
		return Command{}, Errorf(EINVALID, "", "command version byte %d does not match body version %d", b[0], c.V)
	}
	if err := t.Validate(c); err != nil {
		return Command{}, err
	}
	return c, nil
}

// header is a command's fields other than its payload.
type header struct {
	V     int      `json:"v"`
	ID    string   `json:"id"`
	Kind  Kind     `json:"kind"`
	At    DateTime `json:"at"`
	Node  string   `json:"node"`
	Seq   uint64   `json:"seq"`
	Actor string   `json:"actor"`
}

// headerFields are the names of a command's header fields in JSON.
var headerFields = [...]string{"v", "id", "kind", "at", "node", "seq", "actor"}

// field returns where the header field named f decodes to, or nil for a
// name that is not a header field's (exactly: the payload's field, or one
// the command's kind refuses).
func (h *header) field(f string) any {
	switch f {
	case "v":
		return &h.V
	case "id":
		return &h.ID
	case "kind":
		return &h.Kind
	case "at":
		return &h.At
	case "node":
		return &h.Node
	case "seq":
		return &h.Seq
	case "actor":
		return &h.Actor
	}
	return nil
}

// unmarshal decodes the JSON of a command strictly: header fields, and at
// most one payload, under its kind's field. A payload of a kind t does not
// know is kept as a RawPayload (a record written by a newer build reads
// back); Validate refuses it where a command must be applied.
func (t Table) unmarshal(b []byte, c *Command) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	var h header
	var payloads []string
	for _, k := range headerFields { // in order, so that an error is the same every time
		if v, ok := fields[k]; ok {
			if err := json.Unmarshal(v, h.field(k)); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	for k := range fields {
		if h.field(k) == nil {
			payloads = append(payloads, k)
		}
	}
	*c = Command{V: h.V, ID: h.ID, Kind: h.Kind, At: h.At, Node: h.Node, Seq: h.Seq, Actor: h.Actor}
	switch len(payloads) {
	case 0:
		return nil // a command kept without its payload (too big to keep)
	case 1:
	default:
		sort.Strings(payloads)
		return fmt.Errorf("more than one payload: %v", payloads)
	}
	field := payloads[0]
	d, known := t.byField[field]
	if !known {
		if _, ok := t.byKind[h.Kind]; ok {
			return fmt.Errorf("unknown field %q", field)
		}
		c.Payload = RawPayload{K: h.Kind, Field: field, JSON: append(json.RawMessage(nil), fields[field]...)}
		return nil
	}
	if d.Kind != h.Kind {
		return fmt.Errorf("kind %s carries the payload of %s", h.Kind, d.Kind)
	}
	p := d.New()
	pd := json.NewDecoder(bytes.NewReader(fields[field]))
	pd.DisallowUnknownFields()
	if err := pd.Decode(p); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if string(bytes.TrimSpace(fields[field])) == "null" {
		return fmt.Errorf("%s: null payload", field)
	}
	c.Payload = p
	return nil
}

// RawPayload is the payload of a kind this build does not know, kept as
// it was written: a record can be read back and shown, never applied.
type RawPayload struct {
	K     Kind
	Field string
	JSON  json.RawMessage
}

// Kind returns the payload's kind.
func (p RawPayload) Kind() Kind { return p.K }

// MarshalJSON writes a command as the log and the records keep it: the
// header fields and the payload under its kind's field.
func (c Command) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	hb, err := json.Marshal(header{V: c.V, ID: c.ID, Kind: c.Kind, At: c.At, Node: c.Node, Seq: c.Seq, Actor: c.Actor})
	if err != nil {
		return nil, err
	}
	buf.Write(hb[:len(hb)-1])
	if c.Payload != nil {
		var field string
		var body []byte
		if raw, ok := c.Payload.(RawPayload); ok {
			field, body = raw.Field, raw.JSON
		} else {
			d, ok := Kinds.byKind[c.Payload.Kind()]
			field = string(c.Payload.Kind())
			if ok {
				field = d.field()
			}
			if body, err = json.Marshal(c.Payload); err != nil {
				return nil, err
			}
		}
		fb, _ := json.Marshal(field)
		buf.WriteByte(',')
		buf.Write(fb)
		buf.WriteByte(':')
		buf.Write(body)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a command as MarshalJSON writes it, with the kinds
// of the product's table (Kinds).
func (c *Command) UnmarshalJSON(b []byte) error { return Kinds.unmarshal(b, c) }

func isBlank(s string) bool { return len(bytes.TrimSpace([]byte(s))) == 0 }
