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

// MayTake reports whether a node of role r may take commands of kind k
// (Table.MayTake, with the product's kinds).
func (r NodeRole) MayTake(k Kind) bool { return Kinds.MayTake(r, k) }

// Valid reports whether r is a known role.
func (r NodeRole) Valid() bool { return r == NodeKiosk || r == NodeClerk || r == NodeBackup }
