package staff_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// notices is a module for the test: a page for the people who may read
// the journal, a form and an API call that record a resolution, a
// link in the navigation and an alert on the start page.
type notices struct{ o *staff.Office }

func (m *notices) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/notices", staff.CapJournal, m.show)
	o.Page("POST /staff/notices", staff.CapResolutions, m.submit)
	o.API("POST /api/v1/notices", staff.CapResolutions, m.api)
	o.Nav(staff.CapJournal, "Notices", "/staff/notices")
	o.Alert(func(ctx context.Context, who staff.Who) ([]view.Alert, error) {
		if !staff.Allowed(who.Role, staff.CapResolutions) {
			return nil, nil
		}
		return []view.Alert{{TestID: "alert-notices", Text: "A notice waits for " + who.Username + ".", URL: "/staff/notices"}}, nil
	})
	return nil
}

func (m *notices) show(w http.ResponseWriter, r *http.Request) {
	who := m.o.Who(r)
	m.o.Render(w, r, http.StatusOK, view.ErrorPage(m.o.Frame(r, "Notices"), view.Problem{Status: 200, Message: "notices for " + who.Username}))
}

func resolutionOf(number string) *domain.Resolution {
	return &domain.Resolution{Number: number, Title: "Fee schedule 2027", AdoptedOn: domain.MustDate("2026-11-02"), Ayes: 5, Present: 6,
		Rows: []domain.ParamRow{{Effective: domain.MustDate("2027-01-01"), Name: "status_letter", Value: "45.00"}}}
}

func (m *notices) submit(w http.ResponseWriter, r *http.Request) {
	if _, err := m.o.Submit(r, resolutionOf(m.o.Form(r, "number"))); err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		m.o.Render(w, r, status, templ.Raw(`<p data-testid="notice-error">`+templ.EscapeString(msg)+`</p>`))
		return
	}
	m.o.Redirect(w, r, "/staff/notices")
}

func (m *notices) api(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CommandID string `json:"command_id"`
		Number    string `json:"number"`
	}
	if err := m.o.DecodeJSON(w, r, &req, "a notice"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitAPI(r, req.CommandID, resolutionOf(req.Number))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"command_id": res.CommandID, "index": res.Index})
}

// TestModuleRoutesShareTheOffice: a module's pages, API calls, link and
// alert go through the office's sign-in, capabilities, CSRF check, submit
// path and error mapping.
func TestModuleRoutesShareTheOffice(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{&notices{}}})
	h.Seed()

	// Signed out: to the sign-in page, as for every staff page.
	if p := h.Client().Get("/staff/notices"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("signed out: %d %q", p.Status, p.Location)
	}
	// A clerk has neither capability: no link, no page, no alert.
	clerk := h.SignedIn("jdoe", domain.RoleClerk)
	if p := clerk.Get("/staff/"); strings.Contains(p.Body, `href="/staff/notices"`) || p.Has("alert-notices") {
		t.Error("a clerk sees the module's link or alert")
	}
	if p := clerk.Get("/staff/notices"); p.Status != http.StatusForbidden {
		t.Errorf("clerk's notices page: %d", p.Status)
	}
	// An auditor reads the journal: the link and the page, no alert, and
	// the form is refused by capability.
	audit := h.SignedIn("audit", domain.RoleAuditor)
	if p := audit.Get("/staff/"); !strings.Contains(p.Body, `href="/staff/notices"`) || p.Has("alert-notices") {
		t.Errorf("auditor's start page: link %v alert %v", strings.Contains(p.Body, `href="/staff/notices"`), p.Has("alert-notices"))
	}
	if p := audit.Get("/staff/notices"); p.Status != http.StatusOK || !strings.Contains(p.Text("error"), "notices for audit") {
		t.Errorf("auditor's notices page: %d %q", p.Status, p.Text("error"))
	}
	if p := audit.Post("/staff/notices", map[string][]string{"number": {"2026-20"}}); p.Status != http.StatusForbidden {
		t.Errorf("auditor posted the form: %d", p.Status)
	}
	// An administrator sees the alert; a form without the session's token
	// is refused; with it, the resolution is recorded once, and a second
	// with the same number is the domain's conflict, shown by the form.
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	if p := admin.Get("/staff/"); !strings.Contains(p.Text("alert-notices"), "boss") {
		t.Errorf("administrator's alert: %q", p.Text("alert-notices"))
	} else if p.Doc.Find(`[data-testid="queue-today"] [data-testid="alert-notices"]`).Length() != 1 || p.Text("queue-today-count") != "(1)" {
		t.Errorf("the undated alert is not in today's work, counted: %q", p.Text("queue-today-count"))
	}
	before := h.Ledger.JournalLen()
	if p := admin.Post("/staff/notices", map[string][]string{"number": {"2026-20"}, "csrf": {"forged"}}); p.Status != http.StatusForbidden || h.Ledger.JournalLen() != before {
		t.Errorf("forged form: %d, journal %d → %d", p.Status, before, h.Ledger.JournalLen())
	}
	if p := admin.Post("/staff/notices", map[string][]string{"number": {"2026-20"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("administrator's form: %d %s", p.Status, p.Body)
	}
	if p := admin.Post("/staff/notices", map[string][]string{"number": {"2026-20"}}); p.Status != http.StatusConflict || !strings.Contains(p.Text("notice-error"), "recorded already") {
		t.Errorf("the same resolution again: %d %q", p.Status, p.Text("notice-error"))
	}

	// The API: a token of a role without the capability is refused; the
	// command id makes a retry answer with the first result and a reuse
	// with another body a conflict.
	clerkTok := h.Token("robot", domain.RoleClerk)
	if st, _ := h.API("POST", "/api/v1/notices", clerkTok, `{"command_id":"n-1","number":"2026-21"}`); st != http.StatusForbidden {
		t.Errorf("clerk's token: %d", st)
	}
	tok := h.Token("script", domain.RoleAdministrator)
	st, b := h.API("POST", "/api/v1/notices", tok, `{"command_id":"n-1","number":"2026-21"}`)
	var first struct {
		CommandID string `json:"command_id"`
		Index     uint64 `json:"index"`
	}
	if err := json.Unmarshal(b, &first); st != http.StatusOK || err != nil || first.Index == 0 {
		t.Fatalf("API: %d %s", st, b)
	}
	st, b = h.API("POST", "/api/v1/notices", tok, `{"command_id":"n-1","number":"2026-21"}`)
	var again struct{ Index uint64 }
	if err := json.Unmarshal(b, &again); st != http.StatusOK || err != nil || again.Index != first.Index {
		t.Errorf("retry: %d %s, want the first result (index %d)", st, b, first.Index)
	}
	if st, b := h.API("POST", "/api/v1/notices", tok, `{"command_id":"n-1","number":"2026-22"}`); st != http.StatusConflict {
		t.Errorf("reused command id with another body: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/notices", tok, `{"command_id":"","number":"2026-23"}`); st != http.StatusBadRequest && st != http.StatusUnprocessableEntity {
		t.Errorf("no command id: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/notices", tok, `{"command_id":"n-2","number":"2026-23","extra":1}`); st != http.StatusBadRequest {
		t.Errorf("unknown field: %d %s", st, b)
	}
}

// linksOnly is a module for the test that adds navigation links to pages
// of several offices, in an order of its own.
type linksOnly struct{}

func (linksOnly) Mount(o *staff.Office) error {
	o.Nav(staff.CapReadPayables, "Claims", "/staff/claims")
	o.Nav(staff.CapJournal, "Journal", "/staff/journal")
	o.Nav(staff.CapWindow, "Window", "/staff/window")
	o.Nav(staff.CapReadBills, "Accounts", "/staff/accounts")
	return nil
}

// navOf reads the navigation of a page: each office's name and its links'
// labels, in order.
func navOf(p stafftest.Page) []string {
	var out []string
	p.Doc.Find(`nav [data-testid="nav-office"]`).Each(func(_ int, g *goquery.Selection) {
		line := g.Find(".office-name").Text() + ":"
		g.Find("a").Each(func(_ int, a *goquery.Selection) { line += " " + a.Text() })
		out = append(out, line)
	})
	return out
}

// TestNavigationGroupedByOffice: the navigation (the office's own modules
// and a test module's) is grouped by the office whose work a page is, each office's links in its order whatever order
// the modules added them in, a link no office lists under "More", and only
// the links the role may follow: an office with none is left out.
func TestNavigationGroupedByOffice(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{linksOnly{}, &notices{}}})
	h.Seed()
	for _, c := range []struct {
		role domain.Role
		want []string
	}{
		{domain.RoleClerk, []string{"Front desk: Today Window Accounts Status letters Drawers Refunds Fees", "Receivables: New bill Import bills Parcel roll", "Payables: Claims"}},
		{domain.RoleAdministrator, []string{"Front desk: Today Accounts Status letters Drawers Refunds Fees", "Payables: Claims", "Treasury and books: Journal", "Administration: Staff Cluster", "More: Notices"}},
		{domain.RoleHotelOperator, []string{"Front desk: Today Fees"}},
	} {
		p := h.SignedIn("u-"+string(c.role), c.role).Get("/staff/")
		if got := navOf(p); strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("%s's navigation:\n got %q\nwant %q", c.role, got, c.want)
		}
		if cur := p.Doc.Find(`nav a[aria-current="page"]`); cur.Length() != 1 || cur.Text() != "Today" {
			t.Errorf("%s: the current page is marked on %d links (%q)", c.role, cur.Length(), cur.Text())
		}
	}
}
