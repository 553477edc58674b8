package replica

import "encoding/binary"

// Keys of the FSM's Badger store. Every kind of record has its own prefix,
// and the secondary keys sort so that the common listings are prefix scans:
// an account's bills by billing date, a parcel's bills, refunds by deadline.
const (
	prefixMeta      = "m/"  // m/applied, m/journal
	prefixCommand   = "c/"  // c/<command id> → commandRecord (dedupe)
	prefixBill      = "b/"  // b/<bill id> → domain.Bill
	prefixBillByAcc = "ba/" // ba/<account>/<billed_on>/<bill id> → ""
	prefixBillByPar = "bp/" // bp/<parcel>/<bill id> → ""
	prefixParcel    = "p/"  // p/<parcel id> → domain.Parcel
	prefixAccount   = "a/"  // a/<account> → domain.Account
	prefixReceipt   = "r/"  // r/<receipt number> → domain.Receipt
	prefixRefund    = "rf/" // rf/<refund by>/<command id> → domain.RefundDue
	prefixJournal   = "j/"  // j/<journal seq, 8 bytes big-endian> → journalEntry
	prefixRecord    = "x/"  // x/<collection>/<id> → JSON of a domain record
	prefixIndex     = "xi/" // xi/<index>/<key> → ""
	prefixAlias     = "ra/" // ra/<receipt number> → the number it posted under
	prefixRevoked   = "rv/" // rv/<node id> → revocation (revoke.go)
	// Node-local keys begin with a zero byte: the journal's indexes are
	// under "\x00jx/" (journalindex.go), its tallies under "\x00jt/"
	// (journaltally.go), the parcel and bill lookups under "\x00px/"
	// (parcelindex.go) and the derived indexes under "\x00dx/"
	// (derivedindex.go).
)

// firstReplicated is where the replicated ledger's keys begin. Keys that
// begin with a zero byte belong to this node alone (the node-local
// indexes, the store's own marker, badgerstore.OpenDB) and all sort
// before it: state hashes and snapshots start their walk here.
var firstReplicated = []byte{1}

func recordKey(collection, id string) []byte { return key(prefixRecord, collection, "/", id) }

func indexKey(index, k string) []byte { return key(prefixIndex, index, "/", k) }

// validName checks a collection or index name: lower-case letters, digits
// and dashes, so that no name is a prefix of another's key space.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

var (
	keyApplied = []byte(prefixMeta + "applied")
	keyJournal = []byte(prefixMeta + "journal")
	keyLatest  = []byte(prefixMeta + "latest") // the latest intake time applied
	keyFormat  = []byte(prefixMeta + "format") // the ledger format (8 bytes BE); absent means 1
)

// key joins parts into a new key: one allocation, as every write and read
// of a command makes several.
func key(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func journalKey(seq uint64) []byte {
	k := make([]byte, len(prefixJournal)+8)
	copy(k, prefixJournal)
	binary.BigEndian.PutUint64(k[len(prefixJournal):], seq)
	return k
}

func uint64Bytes(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}
