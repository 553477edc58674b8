package domain

import (
	"fmt"
	"strings"
)

// Role is what a member of staff may do in the clerk's office. The
// handlers decide which role may use which page; the ledger only records
// who holds which role.
type Role string

// The roles of the village's staff (DESIGN.md, "Security").
const (
	RoleClerk         Role = "clerk"          // the clerk's window: bills, payments, letters
	RoleTreasurer     Role = "treasurer"      // Finance Director/Treasurer: deposits, refunds, the November run
	RoleAdministrator Role = "administrator"  // administrator and purchasing agent; manages staff accounts
	RoleAuditor       Role = "auditor"        // reads everything, changes nothing
	RoleBoard         Role = "board"          // board members: reads summaries
	RoleHotelOperator Role = "hotel_operator" // files and reads its own room tax returns only
	// RoleDepartmentHead heads one unit of the chart of accounts (a
	// department, committee, commission or board, StaffUser.Unit): files
	// its budget estimates and requisitions, and makes its emergency
	// purchases (§5.01(3), §5.12(3), §5.12(7)).
	RoleDepartmentHead Role = "department_head"
	// RolePresident is the Village President: a member of the board with
	// the presidency's own duties, told of every legal claim and deciding
	// whether to contact the Village Attorney (§5.08). A role, not a
	// designation: a person holds one role, the pages and the ledger read
	// it from the account on every request, and the presidency changes
	// hands as a role does (the users page, `appliance user`). Is says
	// the President also has every power of a board member.
	RolePresident Role = "president"
)

// Roles returns every role, in the order forms list them.
func Roles() []Role {
	return []Role{RoleClerk, RoleTreasurer, RoleAdministrator, RoleAuditor, RoleBoard, RolePresident, RoleHotelOperator, RoleDepartmentHead}
}

// Is reports whether a person of role r acts as role x: every role as
// itself, and the Village President as a member of the board besides.
func (r Role) Is(x Role) bool { return r == x || (r == RolePresident && x == RoleBoard) }

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	for _, x := range Roles() {
		if r == x {
			return true
		}
	}
	return false
}

// Title returns the role's name for people.
func (r Role) Title() string {
	switch r {
	case RoleClerk:
		return "Clerk"
	case RoleTreasurer:
		return "Treasurer"
	case RoleAdministrator:
		return "Administrator"
	case RoleAuditor:
		return "Auditor"
	case RoleBoard:
		return "Board member"
	case RolePresident:
		return "Village President"
	case RoleHotelOperator:
		return "Hotel operator"
	case RoleDepartmentHead:
		return "Department head"
	}
	return string(r)
}

// Collections of staff records.
const (
	CollectionStaffUsers = "staff-users" // id: username → StaffUser
	CollectionAPITokens  = "api-tokens"  // id: token id → APIToken
)

// StaffUser is a member of staff who signs in to the clerk's office. Only
// a password hash is ever stored (argon2id, made by the adapter before the
// command is built); the password never enters the log.
type StaffUser struct {
	Username string `json:"username"`
	Name     string `json:"name"`
	Role     Role   `json:"role"`
	// Unit is the unit of the chart a department head heads; empty for
	// every other role.
	Unit         string `json:"unit,omitempty"`
	PasswordHash string `json:"password_hash"`
	MustChange   bool   `json:"must_change,omitempty"` // set by add and reset: change the password at next sign-in
	Disabled     bool   `json:"disabled,omitempty"`
	// Epoch is the account's session epoch: how many times its password
	// was changed or reset or the account disabled. Sessions live in one
	// node's memory and API tokens in the ledger; each remembers the
	// epoch it began in and is void once the account's record (which is
	// replicated, so every node reads the same) has moved past it. That
	// is how a password changed at the clerk's node ends a session that
	// someone opened with the old password at the backup. Enabling the
	// account again does not lower it: what the change ended stays ended.
	// A role change does not raise it, because sessions and tokens read
	// the role from the record on every request.
	Epoch     uint64   `json:"epoch,omitempty"`
	Created   DateTime `json:"created"`
	Changed   DateTime `json:"changed"`
	ChangedBy string   `json:"changed_by"`
}

// APIToken is a bearer token for automation. Its secret is random (256
// bits) and only its SHA-256 is stored; it acts with the role of the user
// it belongs to, as that user's role is when it is used.
type APIToken struct {
	ID         string   `json:"id"`
	Username   string   `json:"username"`
	Label      string   `json:"label,omitempty"`
	SecretHash string   `json:"secret_hash"` // hex SHA-256 of the secret
	Created    DateTime `json:"created"`
	CreatedBy  string   `json:"created_by"`
	Revoked    bool     `json:"revoked,omitempty"`
	Epoch      uint64   `json:"epoch,omitempty"` // the account's session epoch when the token was issued
}

// Live reports whether the token may act for u, the account's record as
// the ledger holds it now: the token is not revoked, it is u's, u is not
// disabled, and u's password has not been changed or reset, nor u
// disabled, since the token was issued (StaffUser.Epoch).
func (t APIToken) Live(u StaffUser) bool {
	return !t.Revoked && t.Username == u.Username && !u.Disabled && t.Epoch == u.Epoch
}

// StaffUserOp is what a StaffUserChange does.
type StaffUserOp string

// Staff account operations.
const (
	StaffAdd      StaffUserOp = "add"      // a new account; must change its password at first sign-in
	StaffPassword StaffUserOp = "password" // a new password hash (a reset sets MustChange, a change clears it); raises Epoch
	StaffDisable  StaffUserOp = "disable"  // raises Epoch
	StaffEnable   StaffUserOp = "enable"
	StaffRole     StaffUserOp = "role" // a new role
)

// StaffUserChange adds or changes a staff account.
type StaffUserChange struct {
	Op           StaffUserOp `json:"op"`
	Username     string      `json:"username"`
	Name         string      `json:"name,omitempty"`
	Role         Role        `json:"role,omitempty"`
	Unit         string      `json:"unit,omitempty"` // a department head's unit (add, role)
	PasswordHash string      `json:"password_hash,omitempty"`
	MustChange   bool        `json:"must_change,omitempty"`
}

// APITokenChange issues or revokes an API token.
type APITokenChange struct {
	Op         string `json:"op"` // "issue" | "revoke"
	ID         string `json:"id"`
	Username   string `json:"username,omitempty"`
	Label      string `json:"label,omitempty"`
	SecretHash string `json:"secret_hash,omitempty"`
}

// ValidUsername reports whether s can name a staff account: 2 to 32 lower
// case letters, digits, dots, dashes or underscores, starting with a letter.
func ValidUsername(s string) bool {
	if len(s) < 2 || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func applyStaffUser(tx Tx, c Command, res *Result) error {
	ch := c.Payload.(*StaffUserChange)
	if !ValidUsername(ch.Username) {
		return Errorf(EINVALID, "", "A username is 2 to 32 lower-case letters, digits, dots, dashes or underscores, starting with a letter.")
	}
	var u StaffUser
	found, err := tx.Get(CollectionStaffUsers, ch.Username, &u)
	if err != nil {
		return err
	}
	if ch.Op != StaffAdd && !found {
		return Errorf(ENOTFOUND, "", "There is no staff account %q.", ch.Username)
	}
	switch ch.Op {
	case StaffAdd:
		if found {
			return Errorf(ECONFLICT, "", "The username %q is taken.", ch.Username)
		}
		if strings.TrimSpace(ch.Name) == "" {
			return Errorf(EINVALID, "", "The person's name is required.")
		}
		if !roleKnown(tx, ch.Role) {
			return Errorf(EINVALID, "", "Unknown role %q.", ch.Role)
		}
		if ch.PasswordHash == "" {
			return Errorf(EINVALID, "", "A password hash is required.")
		}
		u = StaffUser{Username: ch.Username, Name: strings.TrimSpace(ch.Name), Role: ch.Role, PasswordHash: ch.PasswordHash, MustChange: true, Created: c.At}
		if u.Unit, err = staffUnit(tx, ch); err != nil {
			return err
		}
	case StaffPassword:
		if ch.PasswordHash == "" {
			return Errorf(EINVALID, "", "A password hash is required.")
		}
		u.PasswordHash, u.MustChange = ch.PasswordHash, ch.MustChange
		if RulesFormat(tx) >= 2 {
			u.Epoch++ // ends the account's sessions and tokens everywhere
		}
	case StaffDisable:
		u.Disabled = true
		if RulesFormat(tx) >= 2 {
			u.Epoch++
		}
	case StaffEnable:
		u.Disabled = false
	case StaffRole:
		if !roleKnown(tx, ch.Role) {
			return Errorf(EINVALID, "", "Unknown role %q.", ch.Role)
		}
		u.Role = ch.Role
		if u.Unit, err = staffUnit(tx, ch); err != nil {
			return err
		}
	default:
		return Errorf(EINVALID, "", "Unknown staff account operation %q.", ch.Op)
	}
	if err := holdOffice(tx, u); err != nil {
		return err
	}
	u.Changed, u.ChangedBy = c.At, c.Actor
	res.Note = fmt.Sprintf("staff account %s: %s", u.Username, ch.Op)
	return tx.Put(CollectionStaffUsers, u.Username, u)
}

// CollectionOffices holds the offices one person holds at a time, by
// office: id: "president" → Office.
const CollectionOffices = "offices"

// Office is who holds a one-person office.
type Office struct {
	Username string `json:"username"`
}

// holdOffice keeps the Village President's office with one account (from
// ledger format 3): an enabled account given the President's role while
// another enabled account holds it is refused, and the office is free
// again once its holder's account has another role or is disabled. The
// President alone decides on the Village Attorney for a legal claim
// (§5.08), so two accounts holding the role would be two Presidents.
func holdOffice(tx Tx, u StaffUser) error {
	if RulesFormat(tx) < 3 {
		return nil
	}
	var o Office
	if _, err := tx.Get(CollectionOffices, "president", &o); err != nil {
		return err
	}
	holds := u.Role == RolePresident && !u.Disabled
	switch {
	case holds && o.Username != "" && o.Username != u.Username:
		var h StaffUser
		if ok, err := tx.Get(CollectionStaffUsers, o.Username, &h); err != nil {
			return err
		} else if ok && h.Role == RolePresident && !h.Disabled {
			return Errorf(ECONFLICT, "§5.08", "%s (%s) is the Village President: give that account another role, or disable it, first.", h.Name, h.Username)
		}
		return tx.Put(CollectionOffices, "president", Office{Username: u.Username})
	case holds && o.Username == "":
		return tx.Put(CollectionOffices, "president", Office{Username: u.Username})
	case !holds && o.Username == u.Username:
		return tx.Put(CollectionOffices, "president", Office{})
	}
	return nil
}

// roleKnown reports whether the ledger gives accounts role r: the
// President's role exists from ledger format 2, so an entry of format 1
// that named it is refused wherever it is replayed, as it was when it was
// applied.
func roleKnown(tx Tx, r Role) bool {
	return r.Valid() && (r != RolePresident || RulesFormat(tx) >= 2)
}

// staffUnit returns the unit of the account a change gives a role: a
// department head's unit must be a unit of the chart; no other role has
// one.
func staffUnit(tx Tx, ch *StaffUserChange) (string, error) {
	if ch.Role != RoleDepartmentHead {
		if ch.Unit != "" {
			return "", Errorf(EINVALID, "", "Only a department head heads a unit; leave the unit empty for a %s.", ch.Role.Title())
		}
		return "", nil
	}
	chart, err := loadChart(tx)
	if err != nil {
		return "", err
	}
	a, ok := chart.Account(ch.Unit)
	if !ok || !a.Type.Unit() || a.Closed {
		return "", Errorf(EINVALID, "§5.01(3)", "A department head heads a unit of the chart of accounts (a department, committee, commission or board); %q is not one.", ch.Unit)
	}
	return ch.Unit, nil
}

// actor returns the staff account that issued c, and whether the ledger
// has it (a command of the cluster or the kiosk has none).
func actor(tx Tx, c Command) (StaffUser, bool, error) {
	var u StaffUser
	ok, err := tx.Get(CollectionStaffUsers, c.Actor, &u)
	return u, ok, err
}

func applyAPIToken(tx Tx, c Command, res *Result) error {
	ch := c.Payload.(*APITokenChange)
	if ch.ID == "" || len(ch.ID) > 64 || strings.ContainsAny(ch.ID, "/ ") {
		return Errorf(EINVALID, "", "A token id is required.")
	}
	var t APIToken
	found, err := tx.Get(CollectionAPITokens, ch.ID, &t)
	if err != nil {
		return err
	}
	switch ch.Op {
	case "issue":
		if found {
			return Errorf(ECONFLICT, "", "The token id %q is taken.", ch.ID)
		}
		var u StaffUser
		ok, err := tx.Get(CollectionStaffUsers, ch.Username, &u)
		if err != nil {
			return err
		}
		if !ok || u.Disabled {
			return Errorf(EINVALID, "", "There is no active staff account %q to issue a token to.", ch.Username)
		}
		if len(ch.SecretHash) != 64 {
			return Errorf(EINVALID, "", "The token's secret hash must be a hex SHA-256.")
		}
		t = APIToken{ID: ch.ID, Username: ch.Username, Label: ch.Label, SecretHash: ch.SecretHash, Created: c.At, CreatedBy: c.Actor, Epoch: u.Epoch}
	case "revoke":
		if !found {
			return Errorf(ENOTFOUND, "", "There is no token %q.", ch.ID)
		}
		t.Revoked = true
	default:
		return Errorf(EINVALID, "", "Unknown token operation %q.", ch.Op)
	}
	res.Note = fmt.Sprintf("api token %s: %s", t.ID, ch.Op)
	return tx.Put(CollectionAPITokens, t.ID, t)
}

// Kinds of the staff accounts.
const (
	KindStaffUser Kind = "staff_user" // add or change a staff account
	KindAPIToken  Kind = "api_token"  // issue or revoke an API token
)

// Kind names the payload's kind.
func (*StaffUserChange) Kind() Kind { return KindStaffUser }

// Kind names the payload's kind.
func (*APITokenChange) Kind() Kind { return KindAPIToken }

// Any signed-in person changes their own password with staff_user; the
// pages let administrators change others' accounts.
var staffUserKind = &Descriptor{
	Kind:  KindStaffUser,
	New:   func() Payload { return new(StaffUserChange) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyStaffUser(tx, c, res) },
}

var apiTokenKind = &Descriptor{
	Kind:  KindAPIToken,
	Roles: []Role{RoleAdministrator},
	New:   func() Payload { return new(APITokenChange) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyAPIToken(tx, c, res) },
}
