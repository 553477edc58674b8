package staff

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

func (s *Server) showUsersPage(w http.ResponseWriter, r *http.Request) {
	s.usersPage(w, r, http.StatusOK, view.UsersForm{})
}

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request, status int, f view.UsersForm) {
	users, err := s.reads.StaffUsers()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tokens, err := s.reads.APITokens()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.Users{Form: f}
	byName := map[string]domain.StaffUser{}
	for _, u := range users {
		byName[u.Username] = u
		v.Users = append(v.Users, view.User{Username: u.Username, Name: u.Name, Role: roleTitle(u), MustChange: u.MustChange, Disabled: u.Disabled, Changed: u.Changed.String(), ChangedBy: u.ChangedBy})
	}
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, view.Token{ID: t.ID, Username: t.Username, Label: t.Label, Created: t.Created.String(), Revoked: t.Revoked,
			Ended: !t.Revoked && !t.Live(byName[t.Username])})
	}
	for _, role := range domain.Roles() {
		v.Roles = append(v.Roles, view.Option{Value: string(role), Label: role.Title(), Selected: string(role) == f.Role})
	}
	s.render(w, r, status, view.UsersPage(s.page(r, "Staff accounts"), v))
}

func (s *Server) submitUser(w http.ResponseWriter, r *http.Request) {
	f := view.UsersForm{Username: formValue(r, "username"), Name: formValue(r, "name"), Role: formValue(r, "role"), Unit: formValue(r, "unit")}
	resp, err := s.changeUser(r, UserRequest{Op: "add", Username: f.Username, Name: f.Name, Role: domain.Role(f.Role), Unit: f.Unit})
	if err != nil {
		if errorStatus(err) >= 500 {
			s.fail(w, r, err)
			return
		}
		f.Error = domain.ErrorMessage(err)
		s.usersPage(w, r, errorStatus(err), f)
		return
	}
	s.usersPage(w, r, http.StatusOK, view.UsersForm{Secret: view.Secret{What: "Temporary password for " + resp.Username, Value: resp.TemporaryPassword}})
}

func (s *Server) userOp(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp, err := s.changeUser(r, UserRequest{Op: op, Username: r.PathValue("username")})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if resp.TemporaryPassword != "" {
			s.usersPage(w, r, http.StatusOK, view.UsersForm{Secret: view.Secret{What: "Temporary password for " + resp.Username, Value: resp.TemporaryPassword}})
			return
		}
		redirect(w, r, "/staff/users")
	}
}

func (s *Server) submitReset(w http.ResponseWriter, r *http.Request)   { s.userOp("reset")(w, r) }
func (s *Server) submitDisable(w http.ResponseWriter, r *http.Request) { s.userOp("disable")(w, r) }
func (s *Server) submitEnable(w http.ResponseWriter, r *http.Request)  { s.userOp("enable")(w, r) }

// submitToken issues an API token for an account and shows it once.
func (s *Server) submitToken(w http.ResponseWriter, r *http.Request) {
	username := r.PathValue("username")
	id, tok, hash := NewAPIToken()
	_, err := s.submit(r, domain.KindAPIToken, func(c *domain.Command) {
		c.Payload = &domain.APITokenChange{Op: "issue", ID: id, Username: username, Label: formValue(r, "label"), SecretHash: hash}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.usersPage(w, r, http.StatusOK, view.UsersForm{Secret: view.Secret{What: "API token for " + username + " (shown once)", Value: tok}})
}

func (s *Server) submitRevoke(w http.ResponseWriter, r *http.Request) {
	_, err := s.submit(r, domain.KindAPIToken, func(c *domain.Command) {
		c.Payload = &domain.APITokenChange{Op: "revoke", ID: r.PathValue("id")}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/users")
}

// roleTitle names an account's role, with the unit a department head
// heads.
func roleTitle(u domain.StaffUser) string {
	if u.Unit != "" {
		return u.Role.Title() + " (" + u.Unit + ")"
	}
	return u.Role.Title()
}
