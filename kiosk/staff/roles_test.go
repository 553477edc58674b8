package staff_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/assessments"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// routes lists every capability-guarded staff route. A route added to the
// server without a row here is still refused to roles without its
// capability, but this table is what proves it.
var routes = []stafftest.Route{
	{Method: "GET", Path: "/staff/", Cap: staff.CapDashboard},
	{Method: "GET", Path: "/staff/users", Cap: staff.CapUsers},
	{Method: "POST", Path: "/staff/users", Cap: staff.CapUsers, Form: url.Values{"username": {"matrixuser"}, "name": {"M"}, "role": {"board"}}},
	{Method: "POST", Path: "/staff/users/victim/reset", Cap: staff.CapUsers},
	{Method: "POST", Path: "/staff/users/victim/disable", Cap: staff.CapUsers},
	{Method: "POST", Path: "/staff/users/victim/enable", Cap: staff.CapUsers},
	{Method: "POST", Path: "/staff/users/victim/tokens", Cap: staff.CapUsers},
	{Method: "POST", Path: "/staff/tokens/nope/revoke", Cap: staff.CapUsers},
	{Method: "GET", Path: "/staff/bills/new", Cap: staff.CapBills},
	{Method: "POST", Path: "/staff/bills", Cap: staff.CapBills, Form: url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"x"}, "billed_on": {"2026-11-02"}, "amount": {"1.00"}}},
	{Method: "GET", Path: "/staff/bills/import", Cap: staff.CapBills},
	{Method: "POST", Path: "/staff/bills/import", Cap: staff.CapBills, Form: url.Values{"csv": {"account,parcel,description,billed_on,amount\n"}}},
	{Method: "GET", Path: "/staff/parcels/import", Cap: staff.CapBills},
	{Method: "POST", Path: "/staff/parcels/import", Cap: staff.CapBills, Form: url.Values{"csv": {"parcel,address,county,owner\n"}}},
	{Method: "GET", Path: "/staff/bills/B-2026-0101", Cap: staff.CapReadBills},
	{Method: "GET", Path: "/staff/accounts", Cap: staff.CapReadBills},
	{Method: "GET", Path: "/staff/accounts/100101", Cap: staff.CapReadBills},
	{Method: "GET", Path: "/staff/window", Cap: staff.CapWindow},
	{Method: "POST", Path: "/staff/window/open", Cap: staff.CapWindow, Form: url.Values{"float": {"-1"}}},
	{Method: "POST", Path: "/staff/window/pay", Cap: staff.CapWindow, Form: url.Values{"bill": {"B-2026-0101"}, "amount": {"1.00"}, "tender": {"cash"}}},
	{Method: "GET", Path: "/staff/window/close", Cap: staff.CapWindow},
	{Method: "POST", Path: "/staff/window/close", Cap: staff.CapWindow, Form: url.Values{"drawer": {"none"}, "cash": {"1"}}},
	{Method: "GET", Path: "/staff/receipts/none", Cap: staff.CapReadCash},
	{Method: "GET", Path: "/staff/drawers", Cap: staff.CapReadCash},
	{Method: "GET", Path: "/staff/drawers/none", Cap: staff.CapReadCash},
	{Method: "GET", Path: "/staff/deposits/none", Cap: staff.CapReadCash},
	{Method: "POST", Path: "/staff/deposits", Cap: staff.CapDeposit, Form: url.Values{"depository": {"nowhere"}}},
	{Method: "GET", Path: "/staff/returned-checks/new?receipt=none", Cap: staff.CapReturns},
	{Method: "POST", Path: "/staff/returned-checks", Cap: staff.CapReturns, Form: url.Values{"bill": {"B-2026-0101"}, "receipt": {"none"}}},
	{Method: "GET", Path: "/staff/returned-checks/none", Cap: staff.CapReadCash},
	{Method: "GET", Path: "/staff/refunds", Cap: staff.CapReadCash},
	{Method: "POST", Path: "/staff/refunds/none/approve", Cap: staff.CapRefundApprove, Form: url.Values{"bill": {"B-2026-0101"}}},
	{Method: "POST", Path: "/staff/refunds/none/check", Cap: staff.CapRefundCheck, Form: url.Values{"bill": {"B-2026-0101"}, "check_number": {"1"}}},
	{Method: "GET", Path: "/staff/letters", Cap: staff.CapReadLetters},
	{Method: "GET", Path: "/staff/letters/none", Cap: staff.CapReadLetters},
	{Method: "GET", Path: "/staff/letters/none/letter.pdf", Cap: staff.CapReadLetters},
	{Method: "POST", Path: "/staff/letters/none/complete", Cap: staff.CapLetters},
	{Method: "POST", Path: "/staff/letters/none/deliver", Cap: staff.CapLetters, Form: url.Values{"delivery": {"pickup"}}},
	{Method: "GET", Path: "/staff/letters/new", Cap: staff.CapLetters},
	{Method: "POST", Path: "/staff/letters/new", Cap: staff.CapLetters, Form: url.Values{"command_id": {"0123456789abcdef"}, "parcel": {"none"}}},
	{Method: "POST", Path: "/staff/letters/none/email", Cap: staff.CapLetters},
	{Method: "GET", Path: "/staff/november", Cap: staff.CapReadBills},
	{Method: "POST", Path: "/staff/november", Cap: staff.CapNovemberRun, Form: url.Values{"year": {"2026"}, "step": {"certify"}}},
	{Method: "GET", Path: "/staff/november/2026/dane.csv", Cap: staff.CapReadBills},
	{Method: "GET", Path: "/staff/charges/new", Cap: staff.CapBills},
	{Method: "POST", Path: "/staff/charges", Cap: staff.CapBills, Form: url.Values{"kind": {"notice_fee"}}},
	{Method: "GET", Path: "/staff/fees", Cap: staff.CapReadFees},
	{Method: "GET", Path: "/staff/resolutions/new", Cap: staff.CapResolutions},
	{Method: "POST", Path: "/staff/resolutions", Cap: staff.CapResolutions, Form: url.Values{"action": {"preview"}, "number": {"matrix"}, "title": {"Matrix"}, "adopted_on": {"2026-11-02"}, "ayes": {"4"}, "nays": {"0"}, "present": {"4"}, "name1": {"status_letter"}, "effective1": {"2027-01-01"}, "value1": {"50.00"}}},
	{Method: "GET", Path: "/staff/journal", Cap: staff.CapJournal},
	{Method: "GET", Path: "/staff/journal.csv", Cap: staff.CapJournal},
	{Method: "GET", Path: "/staff/cluster", Cap: staff.CapCluster},
}

// TestRoleMatrix signs in as each role and requests every route: a role
// without the route's capability gets 403 and changes nothing; a role with
// it is never refused for its role.
func TestRoleMatrix(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("victim", domain.RoleClerk, true)
	stafftest.CheckRoleMatrix(t, h, routes)
}

// TestAPIRoleMatrix checks the API routes with each role's token.
func TestAPIRoleMatrix(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	apiRoutes := []stafftest.Route{
		{Method: "GET", Path: "/api/v1/whoami", Cap: staff.CapDashboard},
		{Method: "GET", Path: "/api/v1/holds?account=100101", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/api/v1/bills?account=100101", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/api/v1/bills/B-2026-0101?as_of=2026-12-01", Cap: staff.CapReadBills},
		{Method: "POST", Path: "/api/v1/users", Cap: staff.CapUsers},
		{Method: "POST", Path: "/api/v1/payments", Cap: staff.CapWindow},
		{Method: "POST", Path: "/api/v1/status-letters", Cap: staff.CapLetters},
	}
	for _, role := range domain.Roles() {
		name := "tok-" + strings.ReplaceAll(string(role), "_", "-")
		h.AddUser(name, role, true)
		admin.Get("/staff/users")
		tok := admin.Post("/staff/users/"+name+"/tokens", nil).Text("secret")
		for _, rt := range apiRoutes {
			body := `{"op":"enable","username":"` + name + `"}`
			if rt.Path == "/api/v1/payments" {
				body = `{"command_id":"matrix-` + name + `","bill_id":"B-2026-0102","amount":"1.00","tender":"card","reference":"APPROVAL-1"}`
			}
			if rt.Path == "/api/v1/status-letters" {
				body = `{"command_id":"matrix-letter-` + name + `","parcel":"0601-141-2001","requester":"Badger Title Co.","contact":"Pat, 608-555-0199","email":"closings@badgertitle.example","account":"100102"}`
			}
			req, _ := http.NewRequest(rt.Method, h.Srv.URL+rt.Path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			allowed := staff.Allowed(role, rt.Cap)
			if allowed != (resp.StatusCode == http.StatusOK) {
				t.Errorf("%s %s %s: status %d, allowed %v", role, rt.Method, rt.Path, resp.StatusCode, allowed)
			}
			if !allowed && resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: refused with %d, want 403", role, rt.Path, resp.StatusCode)
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

// TestRoomTaxCapabilities pins who has each room tax capability (§5.22):
// every role is refused the others. Reading is offered to every role,
// because the ledger decides whose returns each person may read
// (kiosk/staff/roomtax's TestReturnRoutesRoleMatrix proves the refusals
// route by route).
func TestRoomTaxCapabilities(t *testing.T) {
	all := domain.Roles()
	want := map[staff.Capability][]domain.Role{
		staff.CapRoomTaxForms:     {domain.RoleClerk, domain.RoleTreasurer, domain.RoleHotelOperator},
		staff.CapRoomTaxFile:      {domain.RoleTreasurer, domain.RoleHotelOperator},
		staff.CapRoomTaxRead:      all,
		staff.CapRoomTaxDirectory: {domain.RoleTreasurer, domain.RoleAuditor},
		staff.CapRoomTaxAdmin:     {domain.RoleTreasurer},
		staff.CapRoomTaxLog:       {domain.RoleTreasurer, domain.RoleAuditor},
		staff.CapRoomTaxTotals:    all,
	}
	for c, roles := range want {
		for _, r := range all {
			granted := false
			for _, x := range roles {
				granted = granted || x == r
			}
			if staff.Allowed(r, c) != granted {
				t.Errorf("%s has %s: %v, want %v", r, c, staff.Allowed(r, c), granted)
			}
		}
	}
}

// assessmentRoutes are the routes of special assessments and special
// charges (kiosk/staff/assessments), with the capability each needs.
var assessmentRoutes = []stafftest.Route{
	{Method: "GET", Path: "/staff/assessments", Cap: staff.CapReadAssessments},
	{Method: "GET", Path: "/staff/assessments/new", Cap: staff.CapAssessmentBoard},
	{Method: "POST", Path: "/staff/assessments", Cap: staff.CapAssessmentBoard, Form: url.Values{"project": {"SA-M"}, "number": {"m"}, "adopted_on": {"2099-01-01"}}},
	{Method: "GET", Path: "/staff/assessments/none", Cap: staff.CapReadAssessments},
	{Method: "GET", Path: "/staff/assessments/none/documents/none", Cap: staff.CapReadAssessments},
	{Method: "GET", Path: "/staff/assessments/none/letters.pdf", Cap: staff.CapReadAssessments},
	{Method: "POST", Path: "/staff/assessments/none/report", Cap: staff.CapAssessmentClerk},
	{Method: "POST", Path: "/staff/assessments/none/notice", Cap: staff.CapAssessmentClerk},
	{Method: "POST", Path: "/staff/assessments/none/owner", Cap: staff.CapAssessmentClerk},
	{Method: "POST", Path: "/staff/assessments/none/hearing", Cap: staff.CapAssessmentBoard},
	{Method: "POST", Path: "/staff/assessments/none/final", Cap: staff.CapAssessmentBoard},
	{Method: "POST", Path: "/staff/assessments/none/publish", Cap: staff.CapAssessmentClerk},
	{Method: "POST", Path: "/staff/assessments/none/levy", Cap: staff.CapAssessmentLevy},
	{Method: "POST", Path: "/staff/assessments/none/change", Cap: staff.CapAssessmentBoard},
	{Method: "GET", Path: "/staff/assessment/none", Cap: staff.CapReadAssessments},
	{Method: "POST", Path: "/staff/assessment/none/appeal", Cap: staff.CapAssessmentClerk},
	{Method: "GET", Path: "/staff/assessment/none/pay", Cap: staff.CapWindow},
	{Method: "POST", Path: "/staff/assessment/none/pay", Cap: staff.CapWindow, Form: url.Values{"amount": {"1.00"}, "tender": {"cash"}}},
	{Method: "GET", Path: "/staff/special-charges", Cap: staff.CapReadAssessments},
	{Method: "POST", Path: "/staff/special-charges/notices", Cap: staff.CapSpecialCharges, Form: url.Values{"id": {"RN-M"}}},
	{Method: "POST", Path: "/staff/special-charges/notices/none/hearing", Cap: staff.CapSpecialCharges, Form: url.Values{"decision": {"perform"}}},
	{Method: "POST", Path: "/staff/special-charges", Cap: staff.CapSpecialCharges, Form: url.Values{"category": {"weeds"}}},
}

// TestAssessmentRoleMatrix is TestRoleMatrix for the routes of special
// assessments, with their module mounted.
func TestAssessmentRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New()}})
	stafftest.CheckRoleMatrix(t, h, assessmentRoutes)
}

// TestAssessmentAPIRoleMatrix checks the API routes of special
// assessments with each role's token: a role without the capability is
// refused with 403, a role with it is never refused for its role.
func TestAssessmentAPIRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New()}})
	apiRoutes := []stafftest.Route{
		{Method: "GET", Path: "/api/v1/assessments", Cap: staff.CapReadAssessments},
		{Method: "POST", Path: "/api/v1/assessments", Cap: staff.CapAssessmentBoard},
		{Method: "GET", Path: "/api/v1/assessments/none", Cap: staff.CapReadAssessments},
		{Method: "POST", Path: "/api/v1/assessments/none/report", Cap: staff.CapAssessmentClerk},
		{Method: "POST", Path: "/api/v1/assessments/none/hearing", Cap: staff.CapAssessmentBoard},
		{Method: "POST", Path: "/api/v1/assessments/none/levy", Cap: staff.CapAssessmentLevy},
		{Method: "GET", Path: "/api/v1/assessment/none", Cap: staff.CapReadAssessments},
		{Method: "POST", Path: "/api/v1/assessment/none/appeal", Cap: staff.CapAssessmentClerk},
		{Method: "POST", Path: "/api/v1/assessment-payments", Cap: staff.CapWindow},
		{Method: "GET", Path: "/api/v1/repair-notices", Cap: staff.CapReadAssessments},
		{Method: "POST", Path: "/api/v1/repair-notices", Cap: staff.CapSpecialCharges},
		{Method: "POST", Path: "/api/v1/special-charges", Cap: staff.CapSpecialCharges},
	}
	for i := range apiRoutes {
		if apiRoutes[i].Method == "POST" {
			apiRoutes[i].Body = `{"command_id":"matrix-api"}`
		}
	}
	stafftest.CheckAPIRoleMatrix(t, h, apiRoutes)
}

// TestTreasuryGrants pins who has the treasury's capabilities (§5.06,
// 5.08, 5.09, 5.17; kiosk/staff/treasury, whose own matrix test requests
// every route with every role): legal claims are the administrator's and
// the board's (the President among them), read by the auditor; the
// President is told of a claim by the administrator (either records it)
// and alone decides on the attorney (§5.08); the depositories,
// investments and settlements are the treasurer's, read by the
// administrator, the board and the auditor. Every other role has none.
func TestTreasuryGrants(t *testing.T) {
	want := map[domain.Role][]staff.Capability{
		domain.RoleTreasurer:     {staff.CapReadTreasury, staff.CapTreasury},
		domain.RoleAdministrator: {staff.CapReadLegalClaims, staff.CapLegalClaims, staff.CapLegalNotify, staff.CapReadTreasury},
		domain.RoleBoard:         {staff.CapReadLegalClaims, staff.CapLegalClaims, staff.CapReadTreasury},
		domain.RolePresident:     {staff.CapReadLegalClaims, staff.CapLegalClaims, staff.CapLegalNotify, staff.CapLegalAttorney, staff.CapReadTreasury},
		domain.RoleAuditor:       {staff.CapReadLegalClaims, staff.CapReadTreasury},
	}
	caps := []staff.Capability{staff.CapReadLegalClaims, staff.CapLegalClaims, staff.CapLegalNotify, staff.CapLegalAttorney, staff.CapReadTreasury, staff.CapTreasury}
	for _, role := range domain.Roles() {
		for _, c := range caps {
			has := false
			for _, w := range want[role] {
				has = has || w == c
			}
			if staff.Allowed(role, c) != has {
				t.Errorf("%s has %s: %v, want %v", role, c, staff.Allowed(role, c), has)
			}
		}
	}
}

// booksRoutes are the routes of the books (kiosk/staff/books): reading
// them, keeping them (closing periods, adjusting entries, the opening
// trial balance) and reopening a period.
var booksRoutes = []stafftest.Route{
	{Method: "GET", Path: "/staff/books", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books.csv?as_of=2026-11-02", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/accounts/100-121", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/accounts/100-121.csv", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/balance-sheet", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/balance-sheet.csv?as_of=2026-11-02", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/statement?year=2026", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/statement.csv?year=2026", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/form-ct?year=2026", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/form-ct.csv?year=2026", Cap: staff.CapReadBooks},
	{Method: "GET", Path: "/staff/books/periods", Cap: staff.CapReadBooks},
	{Method: "POST", Path: "/staff/books/periods/close", Cap: staff.CapKeepBooks, Form: url.Values{"through": {"2026-10-31"}}},
	{Method: "POST", Path: "/staff/books/periods/reopen", Cap: staff.CapReopenBooks, Form: url.Values{"reason": {"matrix"}}},
	{Method: "GET", Path: "/staff/books/adjust", Cap: staff.CapKeepBooks},
	{Method: "POST", Path: "/staff/books/adjust", Cap: staff.CapKeepBooks, Form: url.Values{"on": {"2026-11-02"}, "reason": {"matrix"}, "rows": {"0"}}},
	{Method: "GET", Path: "/staff/books/opening", Cap: staff.CapKeepBooks},
	{Method: "POST", Path: "/staff/books/opening", Cap: staff.CapKeepBooks, Form: url.Values{"csv": {"account,fund,debit,credit\n"}}},
}

// TestBooksRoleMatrix is TestRoleMatrix for the routes of the books, with
// their module mounted.
func TestBooksRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.New()}})
	stafftest.CheckRoleMatrix(t, h, booksRoutes)
}

// TestBooksGrants pins who reads the books: the treasurer, the clerk, the
// administrator, the auditor and the board (the Village President among
// them); a hotel operator and a department head do not.
func TestBooksGrants(t *testing.T) {
	for _, role := range domain.Roles() {
		want := role != domain.RoleHotelOperator && role != domain.RoleDepartmentHead
		if staff.Allowed(role, staff.CapReadBooks) != want {
			t.Errorf("%s reads the books: %v, want %v", role, !want, want)
		}
	}
}

// TestBooksKeepingGrants pins who keeps the books: the treasurer alone
// closes periods, posts adjusting entries and imports the opening trial
// balance; the treasurer or the administrator reopens a period.
func TestBooksKeepingGrants(t *testing.T) {
	for _, role := range domain.Roles() {
		keep, reopen := role == domain.RoleTreasurer, role == domain.RoleTreasurer || role == domain.RoleAdministrator
		if staff.Allowed(role, staff.CapKeepBooks) != keep || staff.Allowed(role, staff.CapReopenBooks) != reopen {
			t.Errorf("%s keeps the books: %v (want %v), reopens: %v (want %v)", role, staff.Allowed(role, staff.CapKeepBooks), keep, staff.Allowed(role, staff.CapReopenBooks), reopen)
		}
	}
	// The ledger says the same of its kinds.
	for _, x := range []struct {
		kind  domain.Kind
		roles []domain.Role
	}{
		{domain.KindBooksAdjust, []domain.Role{domain.RoleTreasurer}},
		{domain.KindBooksOpening, []domain.Role{domain.RoleTreasurer}},
		{domain.KindBooksPeriod, []domain.Role{domain.RoleTreasurer, domain.RoleAdministrator}},
	} {
		d, _ := domain.Kinds.Lookup(x.kind)
		for _, role := range domain.Roles() {
			if d.Permits(role) != slices.Contains(x.roles, role) {
				t.Errorf("%s permits %s: %v", x.kind, role, d.Permits(role))
			}
		}
	}
}

// TestPresidentHasTheBoardsGrants checks that the Village President holds
// every capability of a board member, on every route of the tables here,
// and beyond them only the President's steps on legal claims (§5.08).
func TestPresidentHasTheBoardsGrants(t *testing.T) {
	own := map[staff.Capability]bool{staff.CapLegalNotify: true, staff.CapLegalAttorney: true}
	for _, rt := range slices.Concat(routes, assessmentRoutes, booksRoutes) {
		board, pres := staff.Allowed(domain.RoleBoard, rt.Cap), staff.Allowed(domain.RolePresident, rt.Cap)
		if board != pres {
			t.Errorf("%s %s (%s): board %v, President %v", rt.Method, rt.Path, rt.Cap, board, pres)
		}
	}
	for c := range own {
		if staff.Allowed(domain.RoleBoard, c) || !staff.Allowed(domain.RolePresident, c) {
			t.Errorf("%s: board %v, President %v", c, staff.Allowed(domain.RoleBoard, c), staff.Allowed(domain.RolePresident, c))
		}
	}
}
