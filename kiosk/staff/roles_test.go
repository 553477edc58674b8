package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/assessments"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// route is one staff route and the capability it needs.
type route struct {
	method, path string
	cap          staff.Capability
	form         url.Values
}

// routes lists every capability-guarded staff route. A route added to the
// server without a row here is still refused to roles without its
// capability, but this table is what proves it.
var routes = []route{
	{"GET", "/staff/", staff.CapDashboard, nil},
	{"GET", "/staff/users", staff.CapUsers, nil},
	{"POST", "/staff/users", staff.CapUsers, url.Values{"username": {"matrixuser"}, "name": {"M"}, "role": {"board"}}},
	{"POST", "/staff/users/victim/reset", staff.CapUsers, nil},
	{"POST", "/staff/users/victim/disable", staff.CapUsers, nil},
	{"POST", "/staff/users/victim/enable", staff.CapUsers, nil},
	{"POST", "/staff/users/victim/tokens", staff.CapUsers, nil},
	{"POST", "/staff/tokens/nope/revoke", staff.CapUsers, nil},
	{"GET", "/staff/bills/new", staff.CapBills, nil},
	{"POST", "/staff/bills", staff.CapBills, url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"x"}, "billed_on": {"2026-11-02"}, "amount": {"1.00"}}},
	{"GET", "/staff/bills/import", staff.CapBills, nil},
	{"POST", "/staff/bills/import", staff.CapBills, url.Values{"csv": {"account,parcel,description,billed_on,amount\n"}}},
	{"GET", "/staff/bills/B-2026-0101", staff.CapReadBills, nil},
	{"GET", "/staff/accounts", staff.CapReadBills, nil},
	{"GET", "/staff/accounts/100101", staff.CapReadBills, nil},
	{"GET", "/staff/window", staff.CapWindow, nil},
	{"POST", "/staff/window/open", staff.CapWindow, url.Values{"float": {"-1"}}},
	{"POST", "/staff/window/pay", staff.CapWindow, url.Values{"bill": {"B-2026-0101"}, "amount": {"1.00"}, "tender": {"cash"}}},
	{"GET", "/staff/window/close", staff.CapWindow, nil},
	{"POST", "/staff/window/close", staff.CapWindow, url.Values{"drawer": {"none"}, "cash": {"1"}}},
	{"GET", "/staff/receipts/none", staff.CapReadCash, nil},
	{"GET", "/staff/drawers", staff.CapReadCash, nil},
	{"GET", "/staff/drawers/none", staff.CapReadCash, nil},
	{"GET", "/staff/deposits/none", staff.CapReadCash, nil},
	{"POST", "/staff/deposits", staff.CapDeposit, url.Values{"depository": {"nowhere"}}},
	{"GET", "/staff/returned-checks/new?receipt=none", staff.CapReturns, nil},
	{"POST", "/staff/returned-checks", staff.CapReturns, url.Values{"bill": {"B-2026-0101"}, "receipt": {"none"}}},
	{"GET", "/staff/returned-checks/none", staff.CapReadCash, nil},
	{"GET", "/staff/refunds", staff.CapReadCash, nil},
	{"POST", "/staff/refunds/none/approve", staff.CapRefundApprove, url.Values{"bill": {"B-2026-0101"}}},
	{"POST", "/staff/refunds/none/check", staff.CapRefundCheck, url.Values{"bill": {"B-2026-0101"}, "check_number": {"1"}}},
	{"GET", "/staff/letters", staff.CapReadLetters, nil},
	{"GET", "/staff/letters/none", staff.CapReadLetters, nil},
	{"GET", "/staff/letters/none/letter.pdf", staff.CapReadLetters, nil},
	{"POST", "/staff/letters/none/complete", staff.CapLetters, nil},
	{"POST", "/staff/letters/none/deliver", staff.CapLetters, url.Values{"delivery": {"pickup"}}},
	{"GET", "/staff/november", staff.CapReadBills, nil},
	{"POST", "/staff/november", staff.CapNovemberRun, url.Values{"year": {"2026"}, "step": {"certify"}}},
	{"GET", "/staff/november/2026/dane.csv", staff.CapReadBills, nil},
	{"GET", "/staff/charges/new", staff.CapBills, nil},
	{"POST", "/staff/charges", staff.CapBills, url.Values{"kind": {"notice_fee"}}},
	{"GET", "/staff/fees", staff.CapReadFees, nil},
	{"GET", "/staff/resolutions/new", staff.CapResolutions, nil},
	{"POST", "/staff/resolutions", staff.CapResolutions, url.Values{"action": {"preview"}, "number": {"matrix"}, "title": {"Matrix"}, "adopted_on": {"2026-11-02"}, "ayes": {"4"}, "nays": {"0"}, "present": {"4"}, "name1": {"status_letter"}, "effective1": {"2027-01-01"}, "value1": {"50.00"}}},
	{"GET", "/staff/journal", staff.CapJournal, nil},
	{"GET", "/staff/journal.csv", staff.CapJournal, nil},
	{"GET", "/staff/cluster", staff.CapCluster, nil},
}

// TestRoleMatrix signs in as each role and requests every route: a role
// without the route's capability gets 403 and changes nothing; a role with
// it is never refused for its role.
func TestRoleMatrix(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("victim", domain.RoleClerk, true)
	for _, role := range domain.Roles() {
		c := h.SignedIn("as-"+strings.ReplaceAll(string(role), "_", "-"), role)
		for _, rt := range routes {
			t.Run(string(role)+"/"+rt.method+" "+rt.path, func(t *testing.T) {
				allowed := staff.Allowed(role, rt.cap)
				before := h.Ledger.JournalLen()
				var p stafftest.Page
				if rt.method == "GET" {
					p = c.Get(rt.path)
				} else {
					c.Get("/staff/")
					form := url.Values{}
					for k, v := range rt.form {
						form[k] = v
					}
					p = c.Post(rt.path, form)
				}
				refusedForRole := p.Status == http.StatusForbidden && strings.Contains(p.Text("error"), "Your role")
				if allowed && refusedForRole {
					t.Fatalf("%s refused to %s", rt.path, role)
				}
				if !allowed {
					if !refusedForRole {
						t.Fatalf("%s %s for %s: status %d, want 403 for the role", rt.method, rt.path, role, p.Status)
					}
					if n := h.Ledger.JournalLen(); n != before {
						t.Fatalf("a refused request submitted %d commands", n-before)
					}
				}
			})
		}
	}
}

// TestAPIRoleMatrix checks the API routes with each role's token.
func TestAPIRoleMatrix(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	apiRoutes := []route{
		{"GET", "/api/v1/whoami", staff.CapDashboard, nil},
		{"GET", "/api/v1/holds?account=100101", staff.CapReadBills, nil},
		{"GET", "/api/v1/bills?account=100101", staff.CapReadBills, nil},
		{"GET", "/api/v1/bills/B-2026-0101?as_of=2026-12-01", staff.CapReadBills, nil},
		{"POST", "/api/v1/users", staff.CapUsers, nil},
		{"POST", "/api/v1/payments", staff.CapWindow, nil},
	}
	for _, role := range domain.Roles() {
		name := "tok-" + strings.ReplaceAll(string(role), "_", "-")
		h.AddUser(name, role, true)
		admin.Get("/staff/users")
		tok := admin.Post("/staff/users/"+name+"/tokens", nil).Text("secret")
		for _, rt := range apiRoutes {
			body := `{"op":"enable","username":"` + name + `"}`
			if rt.path == "/api/v1/payments" {
				body = `{"command_id":"matrix-` + name + `","bill_id":"B-2026-0102","amount":"1.00","tender":"card","reference":"APPROVAL-1"}`
			}
			req, _ := http.NewRequest(rt.method, h.Srv.URL+rt.path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			allowed := staff.Allowed(role, rt.cap)
			if allowed != (resp.StatusCode == http.StatusOK) {
				t.Errorf("%s %s %s: status %d, allowed %v", role, rt.method, rt.path, resp.StatusCode, allowed)
			}
			if !allowed && resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: refused with %d, want 403", role, rt.path, resp.StatusCode)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/bills?account=100101", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}

// assessmentRoutes are the routes of special assessments and special
// charges (kiosk/staff/assessments), with the capability each needs.
var assessmentRoutes = []route{
	{"GET", "/staff/assessments", staff.CapReadAssessments, nil},
	{"GET", "/staff/assessments/new", staff.CapAssessmentBoard, nil},
	{"POST", "/staff/assessments", staff.CapAssessmentBoard, url.Values{"project": {"SA-M"}, "number": {"m"}, "adopted_on": {"2099-01-01"}}},
	{"GET", "/staff/assessments/none", staff.CapReadAssessments, nil},
	{"GET", "/staff/assessments/none/documents/none", staff.CapReadAssessments, nil},
	{"GET", "/staff/assessments/none/letters.pdf", staff.CapReadAssessments, nil},
	{"POST", "/staff/assessments/none/report", staff.CapAssessmentClerk, nil},
	{"POST", "/staff/assessments/none/notice", staff.CapAssessmentClerk, nil},
	{"POST", "/staff/assessments/none/owner", staff.CapAssessmentClerk, nil},
	{"POST", "/staff/assessments/none/hearing", staff.CapAssessmentBoard, nil},
	{"POST", "/staff/assessments/none/final", staff.CapAssessmentBoard, nil},
	{"POST", "/staff/assessments/none/publish", staff.CapAssessmentClerk, nil},
	{"POST", "/staff/assessments/none/levy", staff.CapAssessmentLevy, nil},
	{"POST", "/staff/assessments/none/change", staff.CapAssessmentBoard, nil},
	{"GET", "/staff/assessment/none", staff.CapReadAssessments, nil},
	{"POST", "/staff/assessment/none/appeal", staff.CapAssessmentClerk, nil},
	{"GET", "/staff/assessment/none/pay", staff.CapWindow, nil},
	{"POST", "/staff/assessment/none/pay", staff.CapWindow, url.Values{"amount": {"1.00"}, "tender": {"cash"}}},
	{"GET", "/staff/special-charges", staff.CapReadAssessments, nil},
	{"POST", "/staff/special-charges/notices", staff.CapSpecialCharges, url.Values{"id": {"RN-M"}}},
	{"POST", "/staff/special-charges/notices/none/hearing", staff.CapSpecialCharges, url.Values{"decision": {"perform"}}},
	{"POST", "/staff/special-charges", staff.CapSpecialCharges, url.Values{"category": {"weeds"}}},
}

// TestAssessmentRoleMatrix is TestRoleMatrix for the routes of special
// assessments, with their module mounted.
func TestAssessmentRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New()}})
	for _, role := range domain.Roles() {
		c := h.SignedIn("as-"+strings.ReplaceAll(string(role), "_", "-"), role)
		for _, rt := range assessmentRoutes {
			t.Run(string(role)+"/"+rt.method+" "+rt.path, func(t *testing.T) {
				allowed := staff.Allowed(role, rt.cap)
				before := h.Ledger.JournalLen()
				var p stafftest.Page
				if rt.method == "GET" {
					p = c.Get(rt.path)
				} else {
					c.Get("/staff/")
					form := url.Values{}
					for k, v := range rt.form {
						form[k] = v
					}
					p = c.Post(rt.path, form)
				}
				refusedForRole := p.Status == http.StatusForbidden && strings.Contains(p.Text("error"), "Your role")
				if allowed && refusedForRole {
					t.Fatalf("%s refused to %s", rt.path, role)
				}
				if !allowed {
					if !refusedForRole {
						t.Fatalf("%s %s for %s: status %d, want 403 for the role", rt.method, rt.path, role, p.Status)
					}
					if n := h.Ledger.JournalLen(); n != before {
						t.Fatalf("a refused request submitted %d commands", n-before)
					}
				}
			})
		}
	}
}

// TestAssessmentAPIRoleMatrix checks the API routes of special
// assessments with each role's token: a role without the capability is
// refused with 403, a role with it is never refused for its role.
func TestAssessmentAPIRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New()}})
	apiRoutes := []route{
		{"GET", "/api/v1/assessments", staff.CapReadAssessments, nil},
		{"POST", "/api/v1/assessments", staff.CapAssessmentBoard, nil},
		{"GET", "/api/v1/assessments/none", staff.CapReadAssessments, nil},
		{"POST", "/api/v1/assessments/none/report", staff.CapAssessmentClerk, nil},
		{"POST", "/api/v1/assessments/none/hearing", staff.CapAssessmentBoard, nil},
		{"POST", "/api/v1/assessments/none/levy", staff.CapAssessmentLevy, nil},
		{"GET", "/api/v1/assessment/none", staff.CapReadAssessments, nil},
		{"POST", "/api/v1/assessment/none/appeal", staff.CapAssessmentClerk, nil},
		{"POST", "/api/v1/assessment-payments", staff.CapWindow, nil},
		{"GET", "/api/v1/repair-notices", staff.CapReadAssessments, nil},
		{"POST", "/api/v1/repair-notices", staff.CapSpecialCharges, nil},
		{"POST", "/api/v1/special-charges", staff.CapSpecialCharges, nil},
	}
	for _, role := range domain.Roles() {
		tok := h.Token("tok-"+strings.ReplaceAll(string(role), "_", "-"), role)
		for _, rt := range apiRoutes {
			body := ""
			if rt.method == "POST" {
				body = `{"command_id":"matrix-` + string(role) + `"}`
			}
			st, b := h.API(rt.method, rt.path, tok, body)
			if allowed := staff.Allowed(role, rt.cap); allowed == (st == http.StatusForbidden && strings.Contains(string(b), "role")) {
				t.Errorf("%s %s %s: %d %s (allowed %v)", role, rt.method, rt.path, st, b, allowed)
			}
		}
	}
}
