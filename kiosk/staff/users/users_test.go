package users_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/staff/users"
)

func TestUsersPageAndTokens(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	admin.Get("/staff/users")
	p := admin.Post("/staff/users", url.Values{"username": {"newclerk"}, "name": {"New Clerk"}, "role": {"clerk"}})
	if p.Status != http.StatusOK || p.Text("secret") == "" {
		t.Fatalf("add: %d", p.Status)
	}
	temp := p.Text("secret")
	if p := admin.Post("/staff/users", url.Values{"username": {"newclerk"}, "name": {"Again"}, "role": {"clerk"}}); p.Status != http.StatusConflict || !p.Has("user-error") {
		t.Fatalf("a taken username: %d", p.Status)
	}
	if p := h.Client().Login("newclerk", temp); p.Location != "/staff/password" {
		t.Fatalf("temporary password: → %q, want the forced change", p.Location)
	}
	p = admin.Post("/staff/users/newclerk/tokens", url.Values{"label": {"export job"}})
	tok := p.Text("secret")
	if !strings.HasPrefix(tok, "vbt_") {
		t.Fatalf("token = %q", tok)
	}
	api := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/whoami", nil)
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
	admin.Get("/staff/users")
	if p := admin.Post("/staff/tokens/"+id+"/revoke", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.Status)
	}
	if s := api(tok); s != http.StatusUnauthorized {
		t.Fatalf("revoked token: %d", s)
	}
}

func TestOperatorTokenManagesUsers(t *testing.T) {
	h := stafftest.New(t)
	call := func(tok string, body string) (int, users.UserResponse) {
		req, _ := http.NewRequest(http.MethodPost, h.Srv.URL+"/api/v1/users", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out users.UserResponse
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
	if p := h.Client().Login("admin", out.TemporaryPassword); p.Location != "/staff/password" {
		t.Fatalf("first sign-in: %q", p.Location)
	}
	s, reset := call(op, `{"op":"reset","username":"admin"}`)
	if s != http.StatusOK || reset.TemporaryPassword == out.TemporaryPassword {
		t.Fatalf("reset: %d", s)
	}
	if p := h.Client().Login("admin", out.TemporaryPassword); p.Status != http.StatusUnauthorized {
		t.Fatalf("old temporary password after reset: %d", p.Status)
	}
	if s, _ := call(op, `{"op":"disable","username":"admin"}`); s != http.StatusOK {
		t.Fatalf("disable: %d", s)
	}
	if p := h.Client().Login("admin", reset.TemporaryPassword); p.Status != http.StatusUnauthorized {
		t.Fatalf("disabled: %d", p.Status)
	}
	if s, _ := call(op, `{"op":"add","username":"x","name":"X","role":"mayor"}`); s != http.StatusUnprocessableEntity {
		t.Fatalf("bad request: %d", s)
	}
	// The operator token opens nothing else.
	req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/bills?account=100101", nil)
	req.Header.Set("Authorization", "Bearer "+op)
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("operator token on bills: %d", resp.StatusCode)
	}
}

func TestOperatorTokenOnlyFromLoopback(t *testing.T) {
	h := stafftest.New(t)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/users", strings.NewReader(`{"op":"add","username":"admin","name":"A","role":"administrator"}`))
	req.RemoteAddr = "10.0.0.9:51515"
	req.Header.Set("Authorization", "Bearer operator-secret-token-0123456789abcdef")
	rec := httptest.NewRecorder()
	h.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("operator token from the LAN: %d", rec.Code)
	}
}
