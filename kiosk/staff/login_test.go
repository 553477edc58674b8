package staff_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

func TestPasswordHashes(t *testing.T) {
	h := cheap.Hash("s3cret password")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash = %q", h)
	}
	if !staff.CheckPassword(h, "s3cret password") || staff.CheckPassword(h, "s3cret Password") {
		t.Fatal("CheckPassword does not tell the password from another")
	}
	if h == cheap.Hash("s3cret password") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "$2a$10$abc", "$argon2id$v=19$m=0,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=99999999,t=1,p=1$AAAA$AAAA"} {
		if staff.CheckPassword(bad, "x") {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSignInForcesPasswordChange(t *testing.T) {
	h := newHarness(t)
	h.addUser("jdoe", domain.RoleClerk, false)
	c := h.client()
	p := c.login("jdoe", testPassword)
	if p.status != http.StatusSeeOther || p.location != "/staff/password" {
		t.Fatalf("sign-in: %d → %q, want the password page", p.status, p.location)
	}
	if p := c.get("/staff/window"); p.status != http.StatusSeeOther || p.location != "/staff/password" {
		t.Fatalf("a page before the change: %d → %q", p.status, p.location)
	}
	p = c.get("/staff/password")
	if !p.has("password-forced") {
		t.Fatal("the password page does not say the change is required")
	}
	for _, tc := range []struct{ cur, nw, again string }{
		{"wrong", "a brand new password", "a brand new password"},
		{testPassword, "short", "short"},
		{testPassword, "a brand new password", "a brand new passw0rd"},
		{testPassword, "jdoe's long password", "jdoe's long password"},
		{testPassword, testPassword, testPassword},
	} {
		if p := c.post("/staff/password", url.Values{"current": {tc.cur}, "new": {tc.nw}, "again": {tc.again}}); p.status != http.StatusUnprocessableEntity || !p.has("password-error") {
			t.Errorf("%+v: status %d", tc, p.status)
		}
	}
	p = c.post("/staff/password", url.Values{"current": {testPassword}, "new": {"a brand new password"}, "again": {"a brand new password"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("change: %d %s", p.status, p.text("password-error"))
	}
	if p := c.get(p.location); p.status != http.StatusOK || !p.has("password-changed") {
		t.Fatalf("dashboard after the change: %d", p.status)
	}
	// The old password no longer works; the new one does, without a change.
	if p := h.client().login("jdoe", testPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("old password: %d", p.status)
	}
	if p := h.client().login("jdoe", "a brand new password"); p.status != http.StatusSeeOther || p.location != "/staff/" {
		t.Fatalf("new password: %d → %q", p.status, p.location)
	}
}

func TestSignInRateLimit(t *testing.T) {
	h := newHarness(t)
	h.addUser("jdoe", domain.RoleClerk, true)
	c := h.client()
	for i := range 5 {
		if p := c.login("jdoe", "guess"+string(rune('a'+i))); p.status != http.StatusUnauthorized || !p.has("login-error") {
			t.Fatalf("failure %d: status %d", i+1, p.status)
		}
	}
	if p := c.login("jdoe", testPassword); p.status != http.StatusTooManyRequests {
		t.Fatalf("right password after 5 failures: %d, want 429", p.status)
	}
	// Other accounts from the same address are held too.
	h.addUser("asmith", domain.RoleClerk, true)
	if p := c.login("asmith", testPassword); p.status != http.StatusTooManyRequests {
		t.Fatalf("another account from the same address: %d, want 429", p.status)
	}
	h.setClock(h.now().Add(16 * 60e9))
	if p := c.login("jdoe", testPassword); p.status != http.StatusSeeOther {
		t.Fatalf("after the lock: %d", p.status)
	}
}

func TestSignInRefusals(t *testing.T) {
	h := newHarness(t)
	h.addUser("jdoe", domain.RoleClerk, true)
	if p := h.client().login("nobody", testPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("unknown account: %d", p.status)
	}
	c := h.client()
	c.get("/staff/login")
	if p := c.post("/staff/login", url.Values{"username": {"jdoe"}, "password": {testPassword}, "csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("sign-in with a forged CSRF token: %d", p.status)
	}
	if p := h.client().get("/staff/window"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/staff/login") {
		t.Fatalf("a page without a session: %d → %q", p.status, p.location)
	}
	// A disabled account's session ends.
	c = h.signedIn("asmith", domain.RoleClerk)
	admin := h.signedIn("boss", domain.RoleAdministrator)
	admin.get("/staff/users")
	if p := admin.post("/staff/users/asmith/disable", nil); p.status != http.StatusSeeOther {
		t.Fatalf("disable: %d", p.status)
	}
	if p := c.get("/staff/window"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/staff/login") {
		t.Fatalf("disabled account's page: %d → %q", p.status, p.location)
	}
	if p := h.client().login("asmith", testPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("disabled account signs in: %d", p.status)
	}
	// Signing out ends the session.
	admin.post("/staff/logout", nil)
	if p := admin.get("/staff/users"); p.status != http.StatusSeeOther {
		t.Fatalf("after sign-out: %d", p.status)
	}
}

func TestCSRFOnEveryForm(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	before := h.ledger.journalLen()
	for _, path := range []string{"/staff/window/open", "/staff/bills", "/staff/password", "/staff/logout"} {
		if p := c.post(path, url.Values{"csrf": {""}, "float": {"100.00"}}); p.status != http.StatusForbidden {
			t.Errorf("POST %s without a token: %d", path, p.status)
		}
		if p := c.post(path, url.Values{"csrf": {c.csrf + "x"}, "float": {"100.00"}}); p.status != http.StatusForbidden {
			t.Errorf("POST %s with a wrong token: %d", path, p.status)
		}
	}
	if n := h.ledger.journalLen(); n != before {
		t.Fatalf("refused forms submitted %d commands", n-before)
	}
	// A token of another session does not pass.
	other := h.signedIn("asmith", domain.RoleClerk)
	if p := c.post("/staff/window/open", url.Values{"csrf": {other.csrf}, "float": {"1.00"}}); p.status != http.StatusForbidden {
		t.Fatalf("another session's token: %d", p.status)
	}
}

func TestUsersPageAndTokens(t *testing.T) {
	h := newHarness(t)
	admin := h.signedIn("boss", domain.RoleAdministrator)
	admin.get("/staff/users")
	p := admin.post("/staff/users", url.Values{"username": {"newclerk"}, "name": {"New Clerk"}, "role": {"clerk"}})
	if p.status != http.StatusOK || p.text("secret") == "" {
		t.Fatalf("add: %d", p.status)
	}
	temp := p.text("secret")
	if p := admin.post("/staff/users", url.Values{"username": {"newclerk"}, "name": {"Again"}, "role": {"clerk"}}); p.status != http.StatusConflict || !p.has("user-error") {
		t.Fatalf("a taken username: %d", p.status)
	}
	if p := h.client().login("newclerk", temp); p.location != "/staff/password" {
		t.Fatalf("temporary password: → %q, want the forced change", p.location)
	}
	p = admin.post("/staff/users/newclerk/tokens", url.Values{"label": {"export job"}})
	tok := p.text("secret")
	if !strings.HasPrefix(tok, "vbt_") {
		t.Fatalf("token = %q", tok)
	}
	api := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/v1/whoami", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			var who map[string]string
			json.NewDecoder(resp.Body).Decode(&who)
			if who["username"] != "newclerk" || who["role"] != "clerk" {
				t.Errorf("whoami = %v", who)
			}
		}
		return resp.StatusCode
	}
	if s := api(tok); s != http.StatusOK {
		t.Fatalf("token: %d", s)
	}
	if s := api(tok[:len(tok)-1] + "x"); s != http.StatusUnauthorized {
		t.Fatalf("altered token: %d", s)
	}
	id := strings.Split(tok, "_")[1]
	admin.get("/staff/users")
	if p := admin.post("/staff/tokens/"+id+"/revoke", nil); p.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.status)
	}
	if s := api(tok); s != http.StatusUnauthorized {
		t.Fatalf("revoked token: %d", s)
	}
}

func TestOperatorTokenManagesUsers(t *testing.T) {
	h := newHarness(t)
	call := func(tok string, body string) (int, staff.UserResponse) {
		req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/api/v1/users", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out staff.UserResponse
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	const op = "operator-secret-token-0123456789abcdef"
	if s, _ := call("wrong", `{"op":"add","username":"admin","name":"A","role":"administrator"}`); s != http.StatusUnauthorized {
		t.Fatalf("wrong operator token: %d", s)
	}
	s, out := call(op, `{"op":"add","username":"admin","name":"Village Administrator","role":"administrator"}`)
	if s != http.StatusOK || len(out.TemporaryPassword) != 16 || out.CommandID == "" {
		t.Fatalf("add: %d %+v", s, out)
	}
	if p := h.client().login("admin", out.TemporaryPassword); p.location != "/staff/password" {
		t.Fatalf("first sign-in: %q", p.location)
	}
	s, reset := call(op, `{"op":"reset","username":"admin"}`)
	if s != http.StatusOK || reset.TemporaryPassword == out.TemporaryPassword {
		t.Fatalf("reset: %d", s)
	}
	if p := h.client().login("admin", out.TemporaryPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("old temporary password after reset: %d", p.status)
	}
	if s, _ := call(op, `{"op":"disable","username":"admin"}`); s != http.StatusOK {
		t.Fatalf("disable: %d", s)
	}
	if p := h.client().login("admin", reset.TemporaryPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("disabled: %d", p.status)
	}
	if s, _ := call(op, `{"op":"add","username":"x","name":"X","role":"mayor"}`); s != http.StatusUnprocessableEntity {
		t.Fatalf("bad request: %d", s)
	}
	// The operator token opens nothing else.
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/v1/bills?account=100101", nil)
	req.Header.Set("Authorization", "Bearer "+op)
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("operator token on bills: %d", resp.StatusCode)
	}
}

func TestOperatorTokenOnlyFromLoopback(t *testing.T) {
	h := newHarness(t)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/users", strings.NewReader(`{"op":"add","username":"admin","name":"A","role":"administrator"}`))
	req.RemoteAddr = "10.0.0.9:51515"
	req.Header.Set("Authorization", "Bearer operator-secret-token-0123456789abcdef")
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("operator token from the LAN: %d", rec.Code)
	}
}
