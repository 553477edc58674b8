// Package users is the back office's staff accounts: the page that adds
// an account with a temporary password, resets, disables and enables
// accounts and issues and revokes API tokens, and POST /api/v1/users,
// through which `appliance user` does the same from the node itself. It
// is a staff.Module; the password policy and the sign-in stay the
// office's own (kiosk/staff).
package users

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the staff accounts' part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the staff accounts' routes and link.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/users", staff.CapUsers, m.showUsersPage)
	o.Page("POST /staff/users", staff.CapUsers, m.submitUser)
	o.Page("POST /staff/users/{username}/reset", staff.CapUsers, m.submitReset)
	o.Page("POST /staff/users/{username}/disable", staff.CapUsers, m.submitDisable)
	o.Page("POST /staff/users/{username}/enable", staff.CapUsers, m.submitEnable)
	o.Page("POST /staff/users/{username}/tokens", staff.CapUsers, m.submitToken)
	o.Page("POST /staff/tokens/{id}/revoke", staff.CapUsers, m.submitRevoke)
	// The operator token of the node is also accepted here, from this
	// machine (staff.Config.OperatorToken).
	o.API("POST /api/v1/users", staff.CapUsers, m.apiUser)
	o.Nav(staff.CapUsers, "Staff", "/staff/users")
	return nil
}

func (m *Module) showUsersPage(w http.ResponseWriter, r *http.Request) {
	m.usersPage(w, r, http.StatusOK, UsersForm{})
}

func (m *Module) usersPage(w http.ResponseWriter, r *http.Request, status int, f UsersForm) {
	users, err := m.o.Reads().StaffUsers()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	tokens, err := m.o.Reads().APITokens()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Users{Form: f}
	byName := map[string]domain.StaffUser{}
	for _, u := range users {
		byName[u.Username] = u
		v.Users = append(v.Users, User{Username: u.Username, Name: u.Name, Role: roleTitle(u), MustChange: u.MustChange, Disabled: u.Disabled, Changed: u.Changed.String(), ChangedBy: u.ChangedBy})
	}
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, Token{ID: t.ID, Username: t.Username, Label: t.Label, Created: t.Created.String(), Revoked: t.Revoked,
			Ended: !t.Revoked && !t.Live(byName[t.Username])})
	}
	for _, role := range domain.Roles() {
		v.Roles = append(v.Roles, staffview.Option{Value: string(role), Label: role.Title(), Selected: string(role) == f.Role})
	}
	m.o.Render(w, r, status, UsersPage(m.o.Frame(r, "Staff accounts"), v))
}

func (m *Module) submitUser(w http.ResponseWriter, r *http.Request) {
	f := UsersForm{Username: m.o.Form(r, "username"), Name: m.o.Form(r, "name"), Role: m.o.Form(r, "role"), Unit: m.o.Form(r, "unit")}
	resp, err := m.changeUser(r, UserRequest{Op: "add", Username: f.Username, Name: f.Name, Role: domain.Role(f.Role), Unit: f.Unit})
	if err != nil {
		if httperr.Status(err) >= 500 {
			m.o.Fail(w, r, err)
			return
		}
		f.Error = domain.ErrorMessage(err)
		m.usersPage(w, r, httperr.Status(err), f)
		return
	}
	m.usersPage(w, r, http.StatusOK, UsersForm{Secret: Secret{What: "Temporary password for " + resp.Username, Value: resp.TemporaryPassword}})
}

func (m *Module) userOp(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp, err := m.changeUser(r, UserRequest{Op: op, Username: r.PathValue("username")})
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		if resp.TemporaryPassword != "" {
			m.usersPage(w, r, http.StatusOK, UsersForm{Secret: Secret{What: "Temporary password for " + resp.Username, Value: resp.TemporaryPassword}})
			return
		}
		m.o.Redirect(w, r, "/staff/users")
	}
}

func (m *Module) submitReset(w http.ResponseWriter, r *http.Request)   { m.userOp("reset")(w, r) }
func (m *Module) submitDisable(w http.ResponseWriter, r *http.Request) { m.userOp("disable")(w, r) }
func (m *Module) submitEnable(w http.ResponseWriter, r *http.Request)  { m.userOp("enable")(w, r) }

// submitToken issues an API token for an account and shows it once.
func (m *Module) submitToken(w http.ResponseWriter, r *http.Request) {
	username := r.PathValue("username")
	id, tok, hash := staff.NewAPIToken()
	_, err := m.o.SubmitWith(r, domain.KindAPIToken, func(c *domain.Command) {
		c.Payload = &domain.APITokenChange{Op: "issue", ID: id, Username: username, Label: m.o.Form(r, "label"), SecretHash: hash}
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.usersPage(w, r, http.StatusOK, UsersForm{Secret: Secret{What: "API token for " + username + " (shown once)", Value: tok}})
}

func (m *Module) submitRevoke(w http.ResponseWriter, r *http.Request) {
	_, err := m.o.SubmitWith(r, domain.KindAPIToken, func(c *domain.Command) {
		c.Payload = &domain.APITokenChange{Op: "revoke", ID: r.PathValue("id")}
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/users")
}

// roleTitle names an account's role, with the unit a department head
// heads.
func roleTitle(u domain.StaffUser) string {
	if u.Unit != "" {
		return u.Role.Title() + " (" + u.Unit + ")"
	}
	return u.Role.Title()
}
