package replica

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// Signed entries. A village certificate proves that a machine is one of
// the village's nodes, not that an entry in the log is one its node made:
// anyone who can speak raft to a follower (a stolen kiosk's key is enough)
// can append entries there. So from ledger format 4 every entry is signed
// by the node that made it, and every replica checks, in Apply, that:
//
//   - the entry is an envelope this build reads, signed with the key of a
//     certificate the village CA issued, for the node the command names;
//   - the cluster has not revoked the certificate (revoke.go) by the
//     entry's index;
//   - the node's role may take the command's kind (domain.Table.MayTake,
//     the table the leader's admission reads; of the cluster's own kinds,
//     marks and revocations only from a clerk or backup node), and the
//     staff role it was taken under may issue it (domain.Descriptor.Permits)
//     and names an account the ledger holds (checkAuthority);
//   - its receipt sequence and date keep the node's sequence rules
//     (sequence.go).
//
// An entry that fails is journaled as refused, identically on every node,
// and changes nothing else: not even its command id is taken, so a forger
// cannot use up the id of a real command. Only an entry signed by a clerk
// or backup node that this build cannot decode halts the ledger (HaltError:
// the version-skew case); the same from a kiosk's key is refused, so no
// single entry a stolen kiosk makes can stop the cluster. After this a
// leader, a stolen kiosk or a forged AppendEntries can refuse or delay
// commands, never invent one.
//
// From ledger format 9 a node may also sign several of its own payments
// as one group entry (group.go); each command in it is checked as above.
//
// The ledger keeps each certificate that signed an entry (prefixNodeKey,
// keyed by its SHA-256): an entry carries its certificate until its node
// sees it in its own ledger, then only the certificate's hash.
//
// The envelope, after its magic (which no command version byte takes):
//
//	uvarint length, command (domain.EncodeCommand)
//	uvarint length, SHA-256 of the signer's certificate
//	uvarint length, the certificate (empty once the ledger holds it)
//	uvarint length, the staff role the command was taken under ("" for none)
//	uvarint length, ECDSA signature of entryDigest
const prefixNodeKey = "nk/" // nk/<hex SHA-256 of the certificate> → nodeKey

// entryMagic begins every signed entry. Its first byte is no command
// version (those count up from 1), so an unsigned entry of an older
// format is never taken for an envelope.
var entryMagic = []byte{0xA5, 'V', 'H', 1}

// envelope is a signed entry, parsed.
type envelope struct {
	command []byte   // domain.EncodeCommand output
	keySum  [32]byte // SHA-256 of the signer's certificate
	cert    []byte   // the certificate, when the entry carries it
	role    string   // the staff role the command was taken under
	sig     []byte
}

// signed reports whether data is a signed entry.
func signed(data []byte) bool { return bytes.HasPrefix(data, entryMagic) }

// parseEnvelope reads a signed entry. It never panics, whatever data holds
// (FuzzParseEnvelope, group_internal_test.go).
func parseEnvelope(data []byte) (envelope, error) {
	var e envelope
	if !signed(data) {
		return e, errors.New("not a signed entry")
	}
	rest := data[len(entryMagic):]
	var fields [5][]byte
	for i := range fields {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return e, fmt.Errorf("field %d of the entry is cut short", i+1)
		}
		fields[i], rest = rest[k:k+int(n)], rest[k+int(n):]
	}
	if len(rest) != 0 {
		return e, errors.New("trailing bytes after the signature")
	}
	if len(fields[1]) != sha256.Size || len(fields[0]) == 0 || len(fields[4]) == 0 || len(fields[3]) > 64 {
		return e, errors.New("malformed signed entry")
	}
	e.command, e.cert, e.role, e.sig = fields[0], fields[2], string(fields[3]), fields[4]
	copy(e.keySum[:], fields[1])
	return e, nil
}

// entryDigest is what a node signs: the cluster's CA and id (so that no
// signature counts in another village's ledger, or in another cluster of
// the same village), the command, the signing certificate and the staff
// role.
func entryDigest(caSum [32]byte, cluster string, command []byte, keySum [32]byte, role string) []byte {
	h := sha256.New()
	h.Write([]byte("village ledger entry v1\x00"))
	h.Write(caSum[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(cluster)))
	h.Write(n[:])
	h.Write([]byte(cluster))
	binary.BigEndian.PutUint64(n[:], uint64(len(command)))
	h.Write(n[:])
	h.Write(command)
	h.Write(keySum[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(role)))
	h.Write(n[:])
	h.Write([]byte(role))
	return h.Sum(nil)
}

// sealEntry signs command (encoded) as id, under staff role, carrying the
// certificate when withCert is set.
func sealEntry(id *pki.Identity, command []byte, role string, withCert bool) ([]byte, error) {
	cert := id.Certificate()
	keySum := sha256.Sum256(cert.Raw)
	sig, err := id.Sign(entryDigest(sha256.Sum256(id.CACertificate().Raw), id.Cluster().ID, command, keySum, role))
	if err != nil {
		return nil, err
	}
	var certField []byte
	if withCert {
		certField = cert.Raw
	}
	out := make([]byte, 0, len(entryMagic)+len(command)+len(certField)+len(sig)+len(role)+48)
	out = append(out, entryMagic...)
	for _, f := range [][]byte{command, keySum[:], certField, []byte(role), sig} {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return out, nil
}

// nodeKey is a certificate that signed entries, as the ledger keeps it.
type nodeKey struct {
	Node string `json:"node"`
	Role string `json:"role"`
	DER  []byte `json:"der"`

	cert *x509.Certificate
}

// loadNodeKeys reads the certificates the ledger holds (at open and after
// a restore).
func (f *FSM) loadNodeKeys(txn *badger.Txn) error {
	keys := map[[32]byte]*nodeKey{}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixNodeKey), PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var k nodeKey
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &k) }); err != nil {
			return fmt.Errorf("read node key %s: %w", it.Item().Key(), err)
		}
		cert, err := x509.ParseCertificate(k.DER)
		if err != nil {
			return fmt.Errorf("read node key %s: %w", it.Item().Key(), err)
		}
		k.cert = cert
		keys[sha256.Sum256(k.DER)] = &k
	}
	f.keysMu.Lock()
	f.keys = keys
	f.keysMu.Unlock()
	return nil
}

// knowsKey reports whether the ledger holds the certificate whose SHA-256
// is sum.
func (f *FSM) knowsKey(sum [32]byte) bool {
	f.keysMu.RLock()
	defer f.keysMu.RUnlock()
	_, ok := f.keys[sum]
	return ok
}

// Trust makes the FSM check signed entries against the village CA ca and
// the cluster id cluster ("" for a cluster made before cluster ids). An
// FSM without it (a ledger opened alone, without certificates, in tests
// of the rules) reads entries unchecked.
func (f *FSM) Trust(ca *x509.Certificate, cluster string) {
	f.ca, f.cluster = ca, cluster
	f.caSum = sha256.Sum256(ca.Raw)
}

// checksSignatures reports whether entries must be signed at the ledger's
// current format.
func (f *FSM) checksSignatures() bool { return f.ca != nil && f.Format() >= signedFormat }

// signedFormat is the ledger format from which entries are signed.
const signedFormat = 4

// unsigned is why an entry is refused before its command is looked at:
// it is not what a node of this cluster signed.
type unsigned struct{ reason string }

func (u *unsigned) Error() string { return "not an entry a node of this cluster signed: " + u.reason }

// halting says the entry is signed by a node the cluster trusts with its
// release and this build cannot decode it.
type halting struct{ err error }

func (h *halting) Error() string { return h.err.Error() }

// opened is a signed entry whose signature checked out.
type opened struct {
	cmd    domain.Command
	role   domain.NodeRole // the signer's node role
	staff  string          // the staff role it was taken under
	newKey *nodeKey        // a certificate the ledger does not hold yet
	keySum [32]byte
}

// openEntry checks a signed entry and decodes its command. The error is
// an *unsigned (refuse the entry) or a *halting (stop applying).
func (f *FSM) openEntry(data []byte) (opened, error) {
	var o opened
	env, err := parseEnvelope(data)
	if err != nil {
		return o, &unsigned{err.Error()}
	}
	o.keySum, o.staff = env.keySum, env.role
	k, newKey, why := f.signer(env.keySum, env.cert)
	if why != nil {
		return o, why
	}
	o.newKey = newKey
	if !f.checked.take(data) && !pki.CheckSignature(k.cert, entryDigest(f.caSum, f.cluster, env.command, env.keySum, env.role), env.sig) {
		return o, &unsigned{fmt.Sprintf("its signature is not %s's", k.Node)}
	}
	o.role = domain.NodeRole(k.Role)
	cmd, err := f.kinds.Decode(env.command)
	if err != nil {
		o.cmd.ID = "" // nothing of it is trusted
		if o.role == domain.NodeKiosk {
			// A kiosk never runs ahead of the cluster's format (its
			// kinds are gated like every node's): what it signed and
			// this build cannot read is not a release's, and stopping
			// the ledger for it would let one stolen kiosk halt the
			// cluster.
			return o, &unsigned{fmt.Sprintf("the kiosk %s signed an entry this ledger cannot read: %v", k.Node, err)}
		}
		return o, &halting{fmt.Errorf("the entry cannot be decoded by this build (ledger format %d): %w", domain.LedgerFormat, err)}
	}
	o.cmd = cmd
	if cmd.Node != k.Node {
		return o, &unsigned{fmt.Sprintf("it is signed by %s for a command taken on %s", k.Node, cmd.Node)}
	}
	// The certificate's validity dates are not held against the command's:
	// a node signs what it took when it sends it, possibly after an
	// outage, with the certificate it has then, and an expired one cannot
	// reach a peer (TLS checks it against the clock). Revocation is the
	// ledger's own, by index.
	if err := f.CheckCertificate(k.cert); err != nil {
		return o, &unsigned{err.Error()}
	}
	if err := f.mayTake(o, cmd); err != nil {
		return o, &unsigned{err.Error()}
	}
	return o, nil
}

// signer returns the certificate of the key whose SHA-256 is keySum: the
// ledger's, or cert, which the entry carries, when the village CA issued
// it (then newKey is it, for the ledger to record).
func (f *FSM) signer(keySum [32]byte, cert []byte) (k, newKey *nodeKey, why *unsigned) {
	f.keysMu.RLock()
	k = f.keys[keySum]
	f.keysMu.RUnlock()
	if k != nil {
		return k, nil, nil
	}
	if len(cert) == 0 {
		return nil, nil, &unsigned{"it is signed with a certificate the ledger does not know"}
	}
	if sha256.Sum256(cert) != keySum {
		return nil, nil, &unsigned{"the certificate it carries is not the one it names"}
	}
	c, err := x509.ParseCertificate(cert)
	if err != nil {
		return nil, nil, &unsigned{"the certificate it carries cannot be read"}
	}
	node, role, err := pki.VerifyIssued(f.ca, c)
	if err != nil {
		return nil, nil, &unsigned{err.Error()}
	}
	k = &nodeKey{Node: node, Role: role, DER: cert, cert: c}
	return k, k, nil
}

// mayTake says why the signer of o may not take cmd, if it may not: its
// node role (the cluster's own kinds only from a clerk or backup node,
// which the operator's membership changes and the format raise come from),
// and the staff role the command was taken under.
func (f *FSM) mayTake(o opened, cmd domain.Command) error {
	if f.kinds.Cluster(cmd.Kind) {
		if !clusterKindOf(o.role, cmd.Kind) {
			return fmt.Errorf("a %s node may not append %s entries", o.role, cmd.Kind)
		}
		return nil
	}
	if !f.kinds.MayTake(o.role, cmd.Kind) {
		return fmt.Errorf("a %s node may not take %s commands", o.role, cmd.Kind)
	}
	if d, ok := f.kinds.Lookup(cmd.Kind); ok && o.staff != "" && !d.Permits(domain.Role(o.staff)) {
		return fmt.Errorf("%s was taken under the %s role, which may not issue it", cmd.Kind, o.staff)
	}
	if cmd.Seq == 0 {
		return fmt.Errorf("%s carries no receipt sequence of its node", cmd.Kind)
	}
	return nil
}

// checkAuthority says why the staff authority a signed command names does
// not hold in the ledger at its index, if it does not: the account must
// exist and its role (which may have changed since) still issue the kind.
// A command taken while its account was enabled and applied after it was
// disabled still posts: it was taken under that authority.
func (f *FSM) checkAuthority(ov *overlay, op opened, cmd domain.Command) *domain.Error {
	if op.staff == "" || !f.checksSignatures() {
		return nil
	}
	var u domain.StaffUser
	ok, err := ov.Get(domain.CollectionStaffUsers, cmd.Actor, &u)
	if err != nil {
		panic(fmt.Sprintf("replica: read staff account: %v", err))
	}
	d, _ := f.kinds.Lookup(cmd.Kind)
	switch {
	case !ok:
		return domain.Errorf(domain.EFORBIDDEN, "", "%s was taken in the name of %s, who has no staff account.", cmd.Kind, cmd.Actor)
	case d != nil && !d.Permits(u.Role):
		return domain.Errorf(domain.EFORBIDDEN, "", "%s's role %s may not issue %s.", cmd.Actor, u.Role, cmd.Kind)
	}
	return nil
}

// clusterKindOf reports whether a node of role may append the cluster's
// own entries of kind k. A revocation (the operator's removal of a node)
// and a node mark (which bounds the dates a node may give) come only from
// a clerk or backup node, never from the kiosk in the public hallway. The
// format raise and the checkpoints are housekeeping any leader does: a
// cluster whose certificates predate roles (each read as a kiosk's) must
// still reach this format, and neither changes a record.
func clusterKindOf(role domain.NodeRole, k domain.Kind) bool {
	switch k {
	case domain.KindLedgerFormat, domain.KindCheckpoint:
		return true
	}
	return role == domain.NodeClerk || role == domain.NodeBackup
}

// keyWrite records a certificate the ledger did not hold.
func (f *FSM) keyWrite(k *nodeKey, sum [32]byte) kv {
	body, _ := json.Marshal(k)
	f.keysMu.Lock()
	if f.keys == nil {
		f.keys = map[[32]byte]*nodeKey{}
	}
	f.keys[sum] = k
	f.keysMu.Unlock()
	return kv{key(prefixNodeKey, hex.EncodeToString(sum[:])), body}
}

// encodeEntry returns the log entry for cmd as this node makes it: signed
// once the ledger's format asks for signatures, else as the older formats
// wrote it. role is the staff role the command was taken under.
func (n *Node) encodeEntry(cmd domain.Command) ([]byte, error) {
	data, err := domain.EncodeCommand(cmd)
	if err != nil {
		return nil, err
	}
	if n.cfg.Identity == nil || n.fsm.Format() < signedFormat {
		return data, nil
	}
	cert := n.cfg.Identity.Certificate()
	entry, err := sealEntry(n.cfg.Identity, data, n.staffRole(cmd), !n.fsm.knowsKey(sha256.Sum256(cert.Raw)))
	if err == nil {
		n.fsm.checked.add(entry)
	}
	return entry, err
}

// checkedEntries remembers, by their SHA-256, the entries whose signature
// this node knows to be good and that it has not yet applied: those it
// signed itself, and those a follower forwarded, which it verified before
// proposing them. Its FSM need not check those signatures again: every
// replica checks each entry's signature, and the ECDSA verification is the
// largest part of applying a payment. Skipping it changes no outcome (the
// bytes are the very ones signed or verified here; the certificate, its
// revocation and the signer's rights are still checked at apply). It is
// bounded: past checkedEntriesMax the oldest are forgotten, and those
// entries are verified as any other.
type checkedEntries struct {
	mu   sync.Mutex
	sums map[[32]byte]struct{}
	old  map[[32]byte]struct{} // the generation before sums
}

const checkedEntriesMax = 4096

func (o *checkedEntries) add(entry []byte) {
	sum := sha256.Sum256(entry)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sums == nil || len(o.sums) >= checkedEntriesMax {
		o.old, o.sums = o.sums, make(map[[32]byte]struct{}, 64)
	}
	o.sums[sum] = struct{}{}
}

// take reports whether entry's signature is known good here, and forgets it.
func (o *checkedEntries) take(entry []byte) bool {
	sum := sha256.Sum256(entry)
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.sums[sum]; ok {
		delete(o.sums, sum)
		return true
	}
	if _, ok := o.old[sum]; ok {
		delete(o.old, sum)
		return true
	}
	return false
}

// EncodeEntry returns the log entry this node would propose for cmd:
// signed with its key once the ledger's format asks for signatures. It is
// for tools that propose to raft directly rather than through Submit (the
// benchmarks' apply path, which measures raft and the FSM alone); cmd must
// name this node and a receipt sequence no other command of it uses.
func (n *Node) EncodeEntry(cmd domain.Command) ([]byte, error) { return n.encodeEntry(cmd) }

// staffRole is the role of the staff account that took cmd, as this
// node's ledger knows it, for a kind the clerk's office issues; "" for a
// resident's, the cluster's, or an actor that is no staff account (the
// operator, the demo).
func (n *Node) staffRole(cmd domain.Command) string {
	d, ok := n.kinds.Lookup(cmd.Kind)
	if !ok || d.Resident || d.Cluster || cmd.Actor == "" {
		return ""
	}
	u, err := domain.ReadsOf(n).StaffUser(cmd.Actor)
	if err != nil {
		return ""
	}
	return string(u.Role)
}

// openForwarded reads an entry a peer forwarded: signed when the ledger's
// format asks for it, by the peer itself.
func (n *Node) openForwarded(data []byte, caller string) (domain.Command, error) {
	if !signed(data) {
		if n.cfg.Identity != nil && n.fsm.Format() >= signedFormat {
			return domain.Command{}, errors.New("the command is not signed")
		}
		return n.kinds.Decode(data)
	}
	o, err := n.fsm.openEntry(data)
	if err != nil {
		return domain.Command{}, err
	}
	n.fsm.checked.add(data)
	if o.cmd.Node != caller {
		return domain.Command{}, fmt.Errorf("node %s may not forward a command taken on %s", caller, o.cmd.Node)
	}
	return o.cmd, nil
}
