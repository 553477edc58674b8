package domain

// NodeRole is what a node of the cluster is for, as its village
// certificate says: the kiosk in the public hallway, the clerk's node in
// the office, the backup in the second building. The leader takes from a
// node only the kinds of command its role may take, so a stolen kiosk can
// take resident payments into its outbox but cannot create staff, change
// a bill or run the November run.
type NodeRole string

// Node roles.
const (
	NodeKiosk  NodeRole = "kiosk"
	NodeClerk  NodeRole = "clerk"
	NodeBackup NodeRole = "backup"
)

// residentKinds are the kinds a resident starts at the kiosk.
var residentKinds = map[Kind]bool{
	KindPayBill:             true,
	KindRequestStatusLetter: true,
	KindPayPropertyTax:      true,
	// Demo data loads only into an empty ledger, so any node may send it.
	KindSeedDemo: true,
}

// MayTake reports whether a node of role r may take commands of kind k.
// The kiosk takes resident kinds only; the clerk's node and the backup
// (which serves the clerk's office when village hall is lost) take every
// kind. The cluster's own kinds (ledger format, checkpoints) are the
// leader's and taken by no role.
func (r NodeRole) MayTake(k Kind) bool {
	if k == KindLedgerFormat || k == KindCheckpoint || k == KindRevokeNode {
		return false
	}
	switch r {
	case NodeClerk, NodeBackup:
		return true
	case NodeKiosk:
		return residentKinds[k]
	}
	return false
}

// Valid reports whether r is a known role.
func (r NodeRole) Valid() bool { return r == NodeKiosk || r == NodeClerk || r == NodeBackup }
