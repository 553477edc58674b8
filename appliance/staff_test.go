package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// staffClient is a browser for the clerk's office over real HTTP: cookies
// and the CSRF token of the last page.
type staffClient struct {
	t    testing.TB
	base string
	c    *http.Client
	csrf string
}

func newStaffClient(t testing.TB, m *Main) *staffClient {
	jar, _ := cookiejar.New(nil)
	return &staffClient{t: t, base: "https://" + m.StaffAddr(), c: &http.Client{Jar: jar, Transport: staffTransport(m),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// staffTransport trusts the node's own certificate, as a staff browser
// that installed the village CA does.
func staffTransport(m *Main) *http.Transport {
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: m.Identity().CAPool(), MinVersion: tls.VersionTLS12}}
}

type staffPage struct {
	status   int
	location string
	doc      *goquery.Document
}

func (p staffPage) text(id string) string {
	return strings.TrimSpace(p.doc.Find(`[data-testid="` + id + `"]`).Text())
}

func (s *staffClient) do(req *http.Request) staffPage {
	s.t.Helper()
	resp, err := s.c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if tok := doc.Find(`input[name="csrf"]`).First().AttrOr("value", ""); tok != "" {
		s.csrf = tok
	}
	return staffPage{resp.StatusCode, resp.Header.Get("Location"), doc}
}

func (s *staffClient) get(path string) staffPage {
	req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
	return s.do(req)
}

func (s *staffClient) post(path string, form url.Values) staffPage {
	form.Set("csrf", s.csrf)
	req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.do(req)
}

func (s *staffClient) login(user, password string) staffPage {
	s.get("/staff/login")
	return s.post("/staff/login", url.Values{"username": {user}, "password": {password}})
}

// userCLI runs `appliance user …` against a running node and returns its
// output.
func userCLI(t testing.TB, m *Main, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	all := append([]string{"user"}, args...)
	all = append(all, "--data", m.Config.DataDir, "--node", "https://"+m.StaffAddr())
	code := run(context.Background(), all, strings.NewReader(""), &out, &errb)
	return out.String() + errb.String(), code
}

// tempPassword reads the temporary password `appliance user add|reset`
// prints.
func tempPassword(t testing.TB, out string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "temporary password ")
	if !ok {
		t.Fatalf("no temporary password in %q", out)
	}
	return strings.Fields(rest)[0]
}

// TestStaffOnRealLedger drives the clerk's office on a real node: the
// first administrator is made with `appliance user add`, a clerk signs in,
// changes the temporary password, takes a cash payment into a drawer and
// closes it; the payment is in the replicated ledger and the journal.
func TestStaffOnRealLedger(t *testing.T) {
	dir := t.TempDir()
	m := startMain(t, dir)
	defer m.Close()

	if out, code := userCLI(t, m, "add", "--username", "clerk1"); code != 2 {
		t.Fatalf("add without name and role: exit %d %q", code, out)
	}
	out, code := userCLI(t, m, "add", "--username", "admin", "--name", "Village Administrator", "--role", "administrator")
	if code != 0 {
		t.Fatalf("user add: exit %d: %s", code, out)
	}
	out, code = userCLI(t, m, "add", "--username", "clerk1", "--name", "Pat Clerk", "--role", "clerk")
	if code != 0 {
		t.Fatalf("user add: exit %d: %s", code, out)
	}
	temp := tempPassword(t, out)

	// The kiosk never links to the staff pages.
	resp, err := http.Get("http://" + m.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if bytes.Contains(body, []byte("/staff")) {
		t.Fatal("the resident kiosk links to the staff pages")
	}

	c := newStaffClient(t, m)
	if p := c.get("/staff/window"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/staff/login") {
		t.Fatalf("staff page without sign-in: %d → %q", p.status, p.location)
	}
	if p := c.login("clerk1", temp); p.location != "/staff/password" {
		t.Fatalf("first sign-in → %q, want the forced password change", p.location)
	}
	c.get("/staff/password")
	if p := c.post("/staff/password", url.Values{"current": {temp}, "new": {"a long window password"}, "again": {"a long window password"}}); p.status != http.StatusSeeOther {
		t.Fatalf("password change: %d %s", p.status, p.text("password-error"))
	}
	c.get("/staff/window")
	if p := c.post("/staff/window/open", url.Values{"float": {"100.00"}}); p.status != http.StatusSeeOther {
		t.Fatalf("open drawer: %d %s", p.status, p.text("window-error"))
	}
	const bill = "B-2026-0101" // demo: 142.37, current
	p := c.get("/staff/window?bill=" + bill)
	drawer := p.text("drawer-id")
	p = c.post("/staff/window/pay", url.Values{"bill": {bill}, "amount": {"142.37"}, "tender": {"cash"}, "tendered": {"150.00"}, "confirm": {"yes"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("cash payment: %d %s", p.status, p.text("window-error"))
	}
	p = c.get(p.location)
	if p.text("change-due") != "7.63" || p.text("receipt-status") != "posted" {
		t.Fatalf("receipt: change %q status %q", p.text("change-due"), p.text("receipt-status"))
	}
	number := p.text("receipt-number")
	c.get("/staff/window/close")
	p = c.post("/staff/window/close", url.Values{"drawer": {drawer}, "cash": {"243.37"}, "checks": {"0"}, "check_count": {"0"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.status, p.text("close-error"))
	}
	if p := c.get(p.location); p.text("over-short") != "1.00" {
		t.Fatalf("over/short %q, want 1.00 over", p.text("over-short"))
	}
	b, err := m.Node.Bill(bill)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Payments) != 1 || b.Payments[0].Receipt != number || b.Payments[0].Tender != "cash" {
		t.Fatalf("bill payments = %+v", b.Payments)
	}
	// The clerk may not see the cluster; the administrator may.
	if p := c.get("/staff/cluster"); p.status != http.StatusForbidden {
		t.Fatalf("clerk on the cluster page: %d", p.status)
	}
	out, _ = userCLI(t, m, "reset", "--username", "admin")
	admin := newStaffClient(t, m)
	admin.login("admin", tempPassword(t, out))
	admin.get("/staff/password")
	admin.post("/staff/password", url.Values{"current": {tempPassword(t, out)}, "new": {"village hall secret 1"}, "again": {"village hall secret 1"}})
	p = admin.get("/staff/cluster")
	if p.status != http.StatusOK || p.text("cluster-leader") != m.Config.NodeID {
		t.Fatalf("cluster page: %d leader %q", p.status, p.text("cluster-leader"))
	}
	// The journal of the real ledger shows the clerk's commands.
	p = admin.get("/staff/journal?actor=clerk1")
	if n := p.doc.Find(`tr[data-command]`).Length(); n != 4 || !strings.Contains(p.text("journal"), "window_payment") {
		t.Fatalf("journal for clerk1: %d entries: %q", n, p.text("journal"))
	}
	if p := admin.get("/staff/journal?actor=operator&kind=staff_user"); p.doc.Find(`tr[data-command]`).Length() != 3 {
		t.Fatalf("operator's account changes: %q", p.text("journal"))
	}
	// Disabled on the command line: the session ends, sign-in fails.
	if out, code := userCLI(t, m, "disable", "--username", "clerk1"); code != 0 {
		t.Fatalf("disable: %s", out)
	}
	if p := c.get("/staff/"); p.status != http.StatusSeeOther {
		t.Fatalf("disabled clerk's page: %d", p.status)
	}
	if p := newStaffClient(t, m).login("clerk1", "a long window password"); p.status != http.StatusUnauthorized {
		t.Fatalf("disabled clerk signs in: %d", p.status)
	}
	if out, code := userCLI(t, m, "enable", "--username", "nobody"); code == 0 {
		t.Fatalf("enable of an unknown account succeeded: %s", out)
	}
}
