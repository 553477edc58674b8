package staff

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// operatorUser is who the operator token acts as: an administrator for
// account management only, and only from this machine (`appliance user`).
var operatorUser = domain.StaffUser{Username: "operator", Name: "Node operator", Role: domain.RoleAdministrator}

// requireToken admits an API request bearing a live token of an active
// account whose role has capability c. On /api/v1/users the node's
// operator token is also accepted.
func (s *Server) requireToken(c Capability, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tok == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="staff"`)
			writeAPIError(w, domain.Errorf(domain.EUNAUTHENTICATED, "", "An API token is required (Authorization: Bearer …)."))
			return
		}
		var u domain.StaffUser
		switch {
		case s.operator != "" && c == CapUsers && loopback(r) && subtle.ConstantTimeCompare([]byte(tok), []byte(s.operator)) == 1:
			u = operatorUser
		default:
			var ok bool
			if u, ok = s.tokenUser(tok); !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="staff", error="invalid_token"`)
				writeAPIError(w, domain.Errorf(domain.EUNAUTHENTICATED, "", "The API token is not valid."))
				return
			}
		}
		if !Allowed(u.Role, c) {
			writeAPIError(w, domain.Errorf(domain.EFORBIDDEN, "", "The role %s may not do this.", u.Role))
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), ctxPrincipal, principal{user: u, api: true})))
	}
}

// loopback reports whether the request comes from this machine.
func loopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

// tokenUser returns the active account a token belongs to. A token
// issued before the account's latest password change, reset or disabling
// is void (domain.APIToken.Live).
func (s *Server) tokenUser(tok string) (domain.StaffUser, bool) { return tokenUser(s.ledger, tok) }

// Administrator returns the username of the active administrator whose
// live API token tok is, read from records (the replicated staff accounts
// and tokens, the same on every node). The appliance accepts it as the
// operator's authority for a membership change on the peer port.
func Administrator(records domain.Records, tok string) (string, error) {
	u, ok := tokenUser(records, tok)
	if !ok {
		return "", errors.New("the API token is not valid")
	}
	if u.Role != domain.RoleAdministrator {
		return "", fmt.Errorf("the token belongs to %s, a %s, not an administrator", u.Username, u.Role)
	}
	return u.Username, nil
}

func tokenUser(records domain.Records, tok string) (domain.StaffUser, bool) {
	id, secret, ok := parseAPIToken(tok)
	if !ok {
		return domain.StaffUser{}, false
	}
	reads := domain.ReadsOf(records)
	t, err := reads.APIToken(id)
	if err != nil || t.Revoked {
		return domain.StaffUser{}, false
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(t.SecretHash)) != 1 {
		return domain.StaffUser{}, false
	}
	u, err := reads.StaffUser(t.Username)
	if err != nil || !t.Live(u) {
		return domain.StaffUser{}, false
	}
	return u, true
}

func (s *Server) apiWhoami(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{"username": pr.user.Username, "role": string(pr.user.Role)})
}
