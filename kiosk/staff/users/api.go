package users

import (
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// UserRequest is the body of POST /api/v1/users, which `appliance user`
// sends: add an account, reset its password, disable or enable it. For
// add and reset the node makes a temporary password, hashes it and
// returns it once; the account must change it at its next sign-in.
type UserRequest struct {
	Op       string      `json:"op"` // add | reset | disable | enable
	Username string      `json:"username"`
	Name     string      `json:"name,omitempty"`
	Role     domain.Role `json:"role,omitempty"`
	// Unit is the unit of the chart a department head heads.
	Unit string `json:"unit,omitempty"`
}

// UserResponse answers a UserRequest.
type UserResponse struct {
	Username          string `json:"username"`
	TemporaryPassword string `json:"temporary_password,omitempty"`
	CommandID         string `json:"command_id"`
}

func (m *Module) apiUser(w http.ResponseWriter, r *http.Request) {
	var req UserRequest
	if err := m.o.DecodeJSON(w, r, &req, "a user request"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	resp, err := m.changeUser(r, req)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, resp)
}

// changeUser carries out a UserRequest for the API and the staff page.
func (m *Module) changeUser(r *http.Request, req UserRequest) (UserResponse, error) {
	resp := UserResponse{Username: strings.ToLower(strings.TrimSpace(req.Username))}
	ch := domain.StaffUserChange{Username: resp.Username}
	switch req.Op {
	case "add", "reset":
		resp.TemporaryPassword = staff.RandomPassword()
		ch.PasswordHash = m.o.HashPassword(resp.TemporaryPassword)
		ch.Op, ch.MustChange = domain.StaffPassword, true
		if req.Op == "add" {
			ch.Op, ch.Name, ch.Role, ch.Unit = domain.StaffAdd, req.Name, req.Role, req.Unit
		}
	case "disable":
		ch.Op = domain.StaffDisable
	case "enable":
		ch.Op = domain.StaffEnable
	default:
		return resp, domain.Errorf(domain.EINVALID, "", "Unknown operation %q (add, reset, disable, enable).", req.Op)
	}
	res, err := m.o.SubmitWith(r, domain.KindStaffUser, func(c *domain.Command) { c.Payload = &ch })
	if err != nil {
		return UserResponse{}, err
	}
	resp.CommandID = res.CommandID
	if req.Op != "add" && req.Op != "enable" {
		m.o.EndSessions(resp.Username)
	}
	return resp, nil
}
