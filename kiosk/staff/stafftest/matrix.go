package stafftest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Route is one capability-guarded route and the capability it needs; a
// POST sends Form (a page) or Body (an API call).
type Route struct {
	Method, Path string
	Cap          staff.Capability
	Form         url.Values
	Body         string
}

// CheckRoleMatrix signs in as each role and requests every page route: a
// role without the route's capability gets 403 and submits nothing; a
// role with it is never refused for its role.
func CheckRoleMatrix(t *testing.T, h *Harness, routes []Route) {
	t.Helper()
	for _, role := range domain.Roles() {
		c := h.SignedIn("as-"+strings.ReplaceAll(string(role), "_", "-"), role)
		for _, rt := range routes {
			t.Run(string(role)+"/"+rt.Method+" "+rt.Path, func(t *testing.T) {
				allowed := staff.Allowed(role, rt.Cap)
				before := h.Ledger.JournalLen()
				var p Page
				if rt.Method == "GET" {
					p = c.Get(rt.Path)
				} else {
					c.Get("/staff/")
					form := url.Values{}
					for k, v := range rt.Form {
						form[k] = v
					}
					p = c.Post(rt.Path, form)
				}
				refusedForRole := p.Status == http.StatusForbidden && strings.Contains(p.Text("error"), "Your role")
				if allowed && refusedForRole {
					t.Fatalf("%s refused to %s", rt.Path, role)
				}
				if !allowed {
					if !refusedForRole {
						t.Fatalf("%s %s for %s: status %d, want 403 for the role", rt.Method, rt.Path, role, p.Status)
					}
					if n := h.Ledger.JournalLen(); n != before {
						t.Fatalf("a refused request submitted %d commands", n-before)
					}
				}
			})
		}
	}
}

// CheckAPIRoleMatrix calls every API route with a token of each role: a
// role without the route's capability gets 403 and submits nothing; a
// role with it is not refused with 403 or 401.
func CheckAPIRoleMatrix(t *testing.T, h *Harness, routes []Route) {
	t.Helper()
	for _, role := range domain.Roles() {
		// The accounts CheckRoleMatrix signs in as, when it ran first:
		// the ledger holds one Village President at a time.
		tok := h.Token("as-"+strings.ReplaceAll(string(role), "_", "-"), role)
		for _, rt := range routes {
			before := h.Ledger.JournalLen()
			status, body := h.API(rt.Method, rt.Path, tok, rt.Body)
			allowed := staff.Allowed(role, rt.Cap)
			switch {
			case allowed && (status == http.StatusForbidden || status == http.StatusUnauthorized):
				t.Errorf("%s %s %s: refused (%d %s) though the role may", role, rt.Method, rt.Path, status, body)
			case !allowed && status != http.StatusForbidden:
				t.Errorf("%s %s %s: status %d, want 403", role, rt.Method, rt.Path, status)
			case !allowed && h.Ledger.JournalLen() != before:
				t.Errorf("%s %s %s: a refused call submitted a command", role, rt.Method, rt.Path)
			}
		}
	}
}
