package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

func TestPasswordHashes(t *testing.T) {
	h := stafftest.Hasher.Hash("s3cret password")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash = %q", h)
	}
	if !staff.CheckPassword(h, "s3cret password") || staff.CheckPassword(h, "s3cret Password") {
		t.Fatal("CheckPassword does not tell the password from another")
	}
	if h == stafftest.Hasher.Hash("s3cret password") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "$2a$10$abc", "$argon2id$v=19$m=0,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=99999999,t=1,p=1$AAAA$AAAA"} {
		if staff.CheckPassword(bad, "x") {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSignInForcesPasswordChange(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, false)
	c := h.Client()
	p := c.Login("jdoe", stafftest.Password)
	if p.Status != http.StatusSeeOther || p.Location != "/staff/password" {
		t.Fatalf("sign-in: %d → %q, want the password page", p.Status, p.Location)
	}
	if p := c.Get("/staff/window"); p.Status != http.StatusSeeOther || p.Location != "/staff/password" {
		t.Fatalf("a page before the change: %d → %q", p.Status, p.Location)
	}
	p = c.Get("/staff/password")
	if !p.Has("password-forced") {
		t.Fatal("the password page does not say the change is required")
	}
	for _, tc := range []struct{ cur, nw, again string }{
		{"wrong", "a brand new password", "a brand new password"},
		{stafftest.Password, "short", "short"},
		{stafftest.Password, "a brand new password", "a brand new passw0rd"},
		{stafftest.Password, "jdoe's long password", "jdoe's long password"},
		{stafftest.Password, stafftest.Password, stafftest.Password},
	} {
		if p := c.Post("/staff/password", url.Values{"current": {tc.cur}, "new": {tc.nw}, "again": {tc.again}}); p.Status != http.StatusUnprocessableEntity || !p.Has("password-error") {
			t.Errorf("%+v: status %d", tc, p.Status)
		}
	}
	p = c.Post("/staff/password", url.Values{"current": {stafftest.Password}, "new": {"a brand new password"}, "again": {"a brand new password"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("change: %d %s", p.Status, p.Text("password-error"))
	}
	if p := c.Get(p.Location); p.Status != http.StatusOK || !p.Has("password-changed") {
		t.Fatalf("dashboard after the change: %d", p.Status)
	}
	// The old password no longer works; the new one does, without a change.
	if p := h.Client().Login("jdoe", stafftest.Password); p.Status != http.StatusUnauthorized {
		t.Fatalf("old password: %d", p.Status)
	}
	if p := h.Client().Login("jdoe", "a brand new password"); p.Status != http.StatusSeeOther || p.Location != "/staff/" {
		t.Fatalf("new password: %d → %q", p.Status, p.Location)
	}
}

func TestSignInRateLimit(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	c := h.Client()
	for i := range 5 {
		if p := c.Login("jdoe", "guess"+string(rune('a'+i))); p.Status != http.StatusUnauthorized || !p.Has("login-error") {
			t.Fatalf("failure %d: status %d", i+1, p.Status)
		}
	}
	if p := c.Login("jdoe", stafftest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("right password after 5 failures: %d, want 429", p.Status)
	}
	// Other accounts from the same address are held too.
	h.AddUser("asmith", domain.RoleClerk, true)
	if p := c.Login("asmith", stafftest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("another account from the same address: %d, want 429", p.Status)
	}
	h.SetClock(h.Now().Add(16 * 60e9))
	if p := c.Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("after the lock: %d", p.Status)
	}
}

func TestSignInRefusals(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	if p := h.Client().Login("nobody", stafftest.Password); p.Status != http.StatusUnauthorized {
		t.Fatalf("unknown account: %d", p.Status)
	}
	c := h.Client()
	c.Get("/staff/login")
	if p := c.Post("/staff/login", url.Values{"username": {"jdoe"}, "password": {stafftest.Password}, "csrf": {"forged"}}); p.Status != http.StatusForbidden {
		t.Fatalf("sign-in with a forged CSRF token: %d", p.Status)
	}
	if p := h.Client().Get("/staff/window"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("a page without a session: %d → %q", p.Status, p.Location)
	}
	// A disabled account's session ends.
	c = h.SignedIn("asmith", domain.RoleClerk)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	admin.Get("/staff/users")
	if p := admin.Post("/staff/users/asmith/disable", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("disable: %d", p.Status)
	}
	if p := c.Get("/staff/window"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("disabled account's page: %d → %q", p.Status, p.Location)
	}
	if p := h.Client().Login("asmith", stafftest.Password); p.Status != http.StatusUnauthorized {
		t.Fatalf("disabled account signs in: %d", p.Status)
	}
	// Signing out ends the session.
	admin.Post("/staff/logout", nil)
	if p := admin.Get("/staff/users"); p.Status != http.StatusSeeOther {
		t.Fatalf("after sign-out: %d", p.Status)
	}
}

func TestCSRFOnEveryForm(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	before := h.Ledger.JournalLen()
	for _, path := range []string{"/staff/window/open", "/staff/bills", "/staff/password", "/staff/logout"} {
		if p := c.Post(path, url.Values{"csrf": {""}, "float": {"100.00"}}); p.Status != http.StatusForbidden {
			t.Errorf("POST %s without a token: %d", path, p.Status)
		}
		if p := c.Post(path, url.Values{"csrf": {c.CSRF + "x"}, "float": {"100.00"}}); p.Status != http.StatusForbidden {
			t.Errorf("POST %s with a wrong token: %d", path, p.Status)
		}
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("refused forms submitted %d commands", n-before)
	}
	// A token of another session does not pass.
	other := h.SignedIn("asmith", domain.RoleClerk)
	if p := c.Post("/staff/window/open", url.Values{"csrf": {other.CSRF}, "float": {"1.00"}}); p.Status != http.StatusForbidden {
		t.Fatalf("another session's token: %d", p.Status)
	}
}
