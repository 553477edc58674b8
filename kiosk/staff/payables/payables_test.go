package payables_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/payables"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// adopted is an office whose 2027 budget is adopted, on 2027-02-01.
func adopted(t *testing.T) *stafftest.Harness {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{payables.New()}})
	h.Seed()
	h.SetClock(time.Date(2026, 10, 1, 9, 0, 0, 0, h.Loc))
	h.Submit("admin", &domain.ChartChange{Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "PW", Type: domain.AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "100-53300", Type: domain.AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works"},
	}})
	var votes []domain.MemberVote
	for i := range 7 {
		id := fmt.Sprintf("trustee-%c", 'a'+i)
		h.Submit("admin", &domain.BoardMember{ID: id, Name: id, Seat: "trustee", From: domain.MustDate("2025-04-15")})
		votes = append(votes, domain.MemberVote{Member: id, Vote: "aye"})
	}
	h.Submit("admin", &domain.BudgetProposal{Year: 2027, Lines: []domain.BudgetLine{{Account: "100-53300", Amount: domain.MustMoney("40000.00")}}})
	h.Submit("clerk", &domain.BudgetNoticeChange{Year: 2027, BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: domain.MustDate("2026-10-01"), Newspaper: "Recorder"}})
	h.SetClock(time.Date(2026, 11, 4, 21, 0, 0, 0, h.Loc))
	h.Submit("clerk", &domain.BudgetHearingChange{Year: 2027, BudgetHearing: domain.BudgetHearing{On: domain.MustDate("2026-11-04")}})
	h.Submit("clerk", &domain.BudgetVoteChange{Year: 2027, Action: domain.BudgetAdopt, On: domain.MustDate("2026-11-04"), Votes: votes, Present: 7})
	h.SetClock(time.Date(2027, 2, 1, 9, 0, 0, 0, h.Loc))
	h.Submit("treasurer", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "General checking", Institution: "Bank of Belleville", Resolution: "2027-01", From: domain.MustDate("2027-01-01"), Number: "000123456789"})
	return h
}

func seeOther(t *testing.T, what string, p stafftest.Page, errID string) string {
	t.Helper()
	if p.Status != http.StatusSeeOther {
		t.Fatalf("%s: %d %q", what, p.Status, p.Text(errID))
	}
	return p.Location
}

// TestClaimToCheck: a claim entered, certified one condition at a time by
// whom each belongs to, paid in a check run with approved signatures,
// voided, paid again; the positive-pay file, the register as a page, PDF
// and CSV, the board's review, and the start page's reminders.
func TestClaimToCheck(t *testing.T) {
	h := adopted(t)
	clerk := h.SignedIn("cleo", domain.RoleClerk)
	treas := h.SignedIn("tom", domain.RoleTreasurer)
	head := h.SignedIn("pat", domain.RoleDepartmentHead)
	admin := h.SignedIn("ada", domain.RoleAdministrator)

	if p := treas.Get("/staff/"); !p.Has("alert-ap-policy") {
		t.Error("no reminder that the village has no accounts payable policy")
	}
	treas.Get("/staff/ap-policy")
	seeOther(t, "policy", treas.Post("/staff/ap-policy", url.Values{"text": {"Claims are paid twice a month."}, "adopted_by": {"motion 2027-01-20 #4"}, "reviewed_on": {"2027-01-20"}}), "policy-error")
	if p := treas.Get("/staff/"); p.Has("alert-ap-policy") {
		t.Error("the policy reminder stays after the policy was recorded")
	}

	clerk.Get("/staff/claims")
	before := h.Ledger.JournalLen()
	p := clerk.Post("/staff/claims", url.Values{"line": {"100-53300"}, "vendor": {"Sugar River Asphalt"}, "invoice": {"SRA-88"}, "invoice_date": {"2027-01-30"}, "amount": {"twelve"}, "description": {"Pothole patching"}})
	if p.Status != http.StatusUnprocessableEntity || !p.Has("claim-error") || h.Ledger.JournalLen() != before {
		t.Fatalf("a bad amount: %d %q", p.Status, p.Text("claim-error"))
	}
	at := seeOther(t, "enter", clerk.Post("/staff/claims", url.Values{"line": {"100-53300"}, "vendor": {"Sugar River Asphalt"}, "invoice": {"SRA-88"}, "invoice_date": {"2027-01-30"},
		"amount": {"1,200.00"}, "description": {"Pothole patching"}}), "claim-error")
	if at != "/staff/claims/CL-2027-0001" || h.Ledger.JournalLen() != before+1 {
		t.Fatalf("entered at %q", at)
	}
	certify := func(c *stafftest.Client, what, basis string) stafftest.Page {
		c.Get(at)
		return c.Post(at+"/certify", url.Values{"certification": {what}, "basis": {basis}})
	}
	if p := certify(clerk, domain.CertifyFundsAvailable, ""); p.Status != http.StatusForbidden || !strings.Contains(p.Text("claim-error"), "not the clerk's") {
		t.Fatalf("the clerk certifying funds: %d %q", p.Status, p.Text("claim-error"))
	}
	seeOther(t, "funds", certify(treas, domain.CertifyFundsAvailable, ""), "claim-error")
	if p := certify(head, domain.CertifyAuthorized, ""); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("claim-error"), "what authorized it") {
		t.Fatalf("authorized without a basis: %d %q", p.Status, p.Text("claim-error"))
	}
	seeOther(t, "authorized", certify(head, domain.CertifyAuthorized, "work order 12"), "claim-error")
	seeOther(t, "conformity", certify(admin, domain.CertifyConformity, "patches seen done"), "claim-error")
	seeOther(t, "valid", certify(treas, domain.CertifyValid, ""), "claim-error")
	if p := certify(treas, domain.CertifyValid, ""); p.Status != http.StatusConflict || !strings.Contains(p.Text("claim-error"), "no fifth") {
		t.Fatalf("a fifth certification: %d %q", p.Status, p.Text("claim-error"))
	}
	// The four certifications await the treasurer's endorsement
	// (§5.07(3)); only the treasurer is offered it.
	if cp := clerk.Get(at); cp.Text("claim-status") != "certified" || cp.Has("endorse-form") || !cp.Has("claim-awaits-endorsement") {
		t.Fatalf("the certified claim as the clerk sees it: %q", cp.Text("claim-status"))
	}
	if p := clerk.Post(at+"/endorse", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("the clerk endorsing: %d", p.Status)
	}
	if cp := treas.Get(at); !cp.Has("endorse-form") {
		t.Fatalf("no endorsement form for the treasurer")
	}
	seeOther(t, "endorse", treas.Post(at+"/endorse", url.Values{"note": {"all four determined"}}), "claim-error")
	cp := treas.Get(at)
	if !strings.Contains(cp.Text("claim-endorsed"), "Approved by tom") || cp.Has("endorse-form") {
		t.Fatalf("the endorsement: %q", cp.Text("claim-endorsed"))
	}
	if cp.Text("claim-status") != "approved" || !cp.Has("cert-authorized") || !strings.Contains(cp.Text("cert-authorized"), "pat") || cp.Has("certify-form") {
		t.Fatalf("the approved claim: %q", cp.Text("claim-certifications"))
	}

	// Signatures, the stock, the run.
	clerk.Get("/staff/checks")
	for _, s := range []url.Values{
		{"op": {"approve"}, "id": {"sig-pres"}, "official": {"Howard Wells"}, "office": {"president"}, "form": {"facsimile"}, "approval": {"motion 2027-01-20 #5"}, "on": {"2027-01-20"}},
		{"op": {"approve"}, "id": {"sig-treas"}, "official": {"Tom Treasurer"}, "office": {"treasurer"}, "form": {"digital"}, "approval": {"motion 2027-01-20 #5"}, "on": {"2027-01-20"}},
	} {
		seeOther(t, "signature", clerk.Post("/staff/signatures", s), "checks-error")
	}
	treas.Get("/staff/checks")
	seeOther(t, "stock", treas.Post("/staff/checks/stock", url.Values{"next": {"7001"}, "account": {"BOB"}}), "checks-error")
	cks := treas.Get("/staff/checks")
	if !cks.Has("pay-CL-2027-0001") || !cks.Has("sign-sig-pres") || !strings.Contains(cks.Text("run-account"), "account 000123456789") {
		t.Fatalf("the run form lacks the claim, the signature or the account")
	}
	// One signature: the run is held (§5.18).
	if p := treas.Post("/staff/checks/runs", url.Values{"claim": {"CL-2027-0001"}, "signature": {"sig-pres"}, "on": {"2027-02-01"}, "account": {"BOB"}}); p.Status != http.StatusForbidden || !strings.Contains(p.Text("checks-error"), "Held:") {
		t.Fatalf("a run with one signature: %d %q", p.Status, p.Text("checks-error"))
	}
	treas.Get("/staff/checks")
	run := seeOther(t, "run", treas.Post("/staff/checks/runs", url.Values{"claim": {"CL-2027-0001"}, "signature": {"sig-pres", "sig-treas"}, "on": {"2027-02-01"}, "account": {"BOB"}}), "checks-error")
	rp := treas.Get(run)
	if !rp.Has("check-7001") || !strings.Contains(rp.Text("run-summary"), "1 checks, $1,200.00") {
		t.Fatalf("run page: %q", rp.Text("run-summary"))
	}
	pp := treas.Get(run + "/positive-pay.csv")
	rows, err := csv.NewReader(strings.NewReader(pp.Body)).ReadAll()
	if err != nil || len(rows) != 2 || strings.Join(rows[1], "|") != "000123456789|7001|2027-02-01|1200.00|Sugar River Asphalt|issued" {
		t.Fatalf("positive pay %q %v", pp.Body, err)
	}
	if p := clerk.Get(run + "/positive-pay.csv"); p.Status != http.StatusForbidden {
		t.Fatalf("the clerk read the positive-pay file: %d", p.Status)
	}

	// The check is lost: voided, then paid again with a new number.
	treas.Get(run)
	seeOther(t, "void", treas.Post("/staff/checks/7001/void", url.Values{"reason": {"lost in the mail"}}), "run-error")
	if p := treas.Get(run); !strings.Contains(p.Text("check-void"), "lost in the mail") {
		t.Fatalf("void not shown: %q", p.Text("check-void"))
	}
	treas.Get("/staff/checks")
	run2 := seeOther(t, "run again", treas.Post("/staff/checks/runs", url.Values{"claim": {"CL-2027-0001"}, "signature": {"sig-pres", "sig-treas"}, "on": {"2027-02-01"}, "account": {"BOB"}}), "checks-error")
	if p := treas.Get(run2); !p.Has("check-7002") {
		t.Fatalf("the new check: %s", p.Text("run-checks"))
	}

	// The register of February, reviewed by the board in March.
	h.SetClock(time.Date(2027, 3, 2, 9, 0, 0, 0, h.Loc))
	treas = h.SignedIn("tom2", domain.RoleTreasurer)
	if p := treas.Get("/staff/"); !p.Has("alert-register") {
		t.Error("no reminder of the register awaiting the board")
	}
	reg := treas.Get("/staff/check-register?month=2027-02")
	if reg.Doc.Find(`[data-testid="register-row"]`).Length() != 2 || reg.Text("register-total") != "$1,200.00" {
		t.Fatalf("register: %q total %q", reg.Text("register"), reg.Text("register-total"))
	}
	if pdf := treas.Get("/staff/check-register/2027-02/register.pdf"); pdf.Status != http.StatusOK || !strings.HasPrefix(pdf.Body, "%PDF-") {
		t.Fatalf("register PDF: %d", pdf.Status)
	}
	rc := treas.Get("/staff/check-register/2027-02/register.csv")
	if rows, err := csv.NewReader(strings.NewReader(rc.Body)).ReadAll(); err != nil || len(rows) != 3 || rows[1][7] != "lost in the mail" || rows[2][1] != "7002" {
		t.Fatalf("register CSV %q %v", rc.Body, err)
	}
	seeOther(t, "review", treas.Post("/staff/check-register/2027-02/review", url.Values{"on": {"2027-03-01"}, "motion": {"motion 2027-03-01 #2"}}), "register-error")
	if p := treas.Get("/staff/"); p.Has("alert-register") {
		t.Error("the register reminder stays after the review")
	}
	if p := treas.Get("/staff/check-register?month=2027-02"); !strings.Contains(p.Text("register-reviewed"), "2027-03-01") || p.Has("review-form") {
		t.Fatalf("review not shown: %q", p.Text("register-reviewed"))
	}

	// A year after the review, the policy is due again.
	h.SetClock(time.Date(2028, 1, 21, 9, 0, 0, 0, h.Loc))
	if p := h.SignedIn("tom3", domain.RoleTreasurer).Get("/staff/"); !strings.Contains(p.Text("alert-ap-policy"), "due for its annual review on 2028-01-20") {
		t.Errorf("overdue policy: %q", p.Text("alert-ap-policy"))
	}
}

// TestPayablesAPI drives a claim to its check through the API, with the
// command id's idempotency.
func TestPayablesAPI(t *testing.T) {
	h := adopted(t)
	tok := h.Token("api-treas", domain.RoleTreasurer)
	post := func(path, id string, cmd any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"command_id": id, "command": cmd})
		st, body := h.API("POST", path, tok, string(b))
		var out map[string]any
		json.Unmarshal(body, &out)
		return st, out
	}
	enter := map[string]any{"op": "enter", "vendor": "Badger Salt", "invoice": "B-1", "invoice_date": "2027-01-31", "amount": "480.00", "line": "100-53300", "description": "Salt"}
	st, out := post("/api/v1/claims", "c-1", enter)
	if st != http.StatusOK || out["ref"] != "CL-2027-0001" {
		t.Fatalf("enter: %d %v", st, out)
	}
	if st, again := post("/api/v1/claims", "c-1", enter); st != http.StatusOK || again["index"] != out["index"] {
		t.Fatalf("the same command again: %d %v", st, again)
	}
	enter["amount"] = "481.00"
	if st, _ := post("/api/v1/claims", "c-1", enter); st != http.StatusConflict {
		t.Fatalf("the same id for another claim: %d", st)
	}
	if st, out := post("/api/v1/check-runs", "r-0", map[string]any{"on": "2027-02-01", "account": "BOB", "claims": []string{"CL-2027-0001"}, "signatures": []string{"none"}}); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(out["error"]), "no signature") {
		t.Fatalf("a run with an unknown signature: %d %v", st, out)
	}
	for i, what := range []string{"funds", "valid"} {
		if st, out := post("/api/v1/claims", fmt.Sprintf("cert-%d", i), map[string]any{"op": "certify", "id": "CL-2027-0001", "certification": what}); st != http.StatusOK {
			t.Fatalf("certify %s: %d %v", what, st, out)
		}
	}
	if st, out := post("/api/v1/signatures", "s-1", map[string]any{"op": "approve", "id": "sig-1", "official": "Howard Wells", "office": "president", "form": "facsimile", "approval": "motion", "approved_on": "2027-01-20"}); st != http.StatusOK {
		t.Fatalf("signature: %d %v", st, out)
	}
	if st, out := post("/api/v1/signatures", "s-2", map[string]any{"op": "approve", "id": "sig-2", "official": "Tom Treasurer", "office": "treasurer", "form": "digital", "approval": "motion", "approved_on": "2027-01-20"}); st != http.StatusOK {
		t.Fatalf("signature: %d %v", st, out)
	}
	if st, out := post("/api/v1/check-runs", "r-1", map[string]any{"on": "2027-02-01", "account": "BOB", "claims": []string{"CL-2027-0001"}, "signatures": []string{"sig-1", "sig-2"}}); st != http.StatusConflict || !strings.Contains(fmt.Sprint(out["error"]), "authorized, conformity") {
		t.Fatalf("a run of a claim not approved: %d %v", st, out)
	}
	st, body := h.API("GET", "/api/v1/claims?year=2027", tok, "")
	var list struct {
		Claims []domain.Claim
		Count  int
		Older  *int
	}
	if st != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Claims) != 1 || len(list.Claims[0].Certifications) != 2 || list.Count != 1 || list.Older != nil {
		t.Fatalf("list: %d %s", st, body)
	}

	// Paged, newest first: the client follows "older" to the first claim.
	for i := 2; i <= 5; i++ {
		e := maps.Clone(enter)
		e["invoice"] = fmt.Sprintf("B-%d", i)
		if st, out := post("/api/v1/claims", fmt.Sprintf("c-%d", i), e); st != http.StatusOK || out["ref"] != fmt.Sprintf("CL-2027-%04d", i) {
			t.Fatalf("enter claim %d: %d %v", i, st, out)
		}
	}
	var seen []string
	for path := "/api/v1/claims?year=2027&limit=2"; path != ""; {
		st, body := h.API("GET", path, tok, "")
		list.Older = nil
		if st != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Claims) > 2 || list.Count != 5 {
			t.Fatalf("%s: %d %s", path, st, body)
		}
		for _, c := range list.Claims {
			seen = append(seen, c.ID)
		}
		path = ""
		if list.Older != nil {
			path = fmt.Sprintf("/api/v1/claims?year=2027&limit=2&from=%d", *list.Older)
		}
	}
	if got := strings.Join(seen, ","); got != "CL-2027-0005,CL-2027-0004,CL-2027-0003,CL-2027-0002,CL-2027-0001" {
		t.Errorf("the pages listed %s", got)
	}
	for _, q := range []string{"limit=0", "limit=501", "limit=x", "from=-1"} {
		if st, body := h.API("GET", "/api/v1/claims?year=2027&"+q, tok, ""); st != http.StatusUnprocessableEntity && st != http.StatusBadRequest {
			t.Errorf("?%s: %d %s", q, st, body)
		}
	}
}

// TestPayablesRoutesByRole checks the module's routes by role.
func TestPayablesRoutesByRole(t *testing.T) {
	h := adopted(t)
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/claims", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/staff/claims", Cap: staff.CapClaims, Form: url.Values{"amount": {"x"}}},
		{Method: "GET", Path: "/staff/claims/CL-2027-0099", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/staff/claims/CL-2027-0099/certify", Cap: staff.CapClaims},
		{Method: "POST", Path: "/staff/claims/CL-2027-0099/endorse", Cap: staff.CapCheckRuns},
		{Method: "POST", Path: "/staff/claims/CL-2027-0099/cancel", Cap: staff.CapClaims},
		{Method: "GET", Path: "/staff/checks", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/staff/checks/runs", Cap: staff.CapCheckRuns},
		{Method: "GET", Path: "/staff/checks/runs/RUN-2027-099", Cap: staff.CapReadPayables},
		{Method: "GET", Path: "/staff/checks/runs/RUN-2027-099/positive-pay.csv", Cap: staff.CapCheckRuns},
		{Method: "POST", Path: "/staff/checks/stock", Cap: staff.CapCheckRuns},
		{Method: "POST", Path: "/staff/checks/99/void", Cap: staff.CapCheckRuns},
		{Method: "POST", Path: "/staff/signatures", Cap: staff.CapSignatures},
		{Method: "GET", Path: "/staff/check-register", Cap: staff.CapReadPayables},
		{Method: "GET", Path: "/staff/check-register/2027-01/register.pdf", Cap: staff.CapReadPayables},
		{Method: "GET", Path: "/staff/check-register/2027-01/register.csv", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/staff/check-register/2027-01/review", Cap: staff.CapRegister},
		{Method: "GET", Path: "/staff/ap-policy", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/staff/ap-policy", Cap: staff.CapAPPolicy},
	})
	bad := `{"command_id":"m-1","command":{}}`
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/claims", Cap: staff.CapReadPayables},
		{Method: "GET", Path: "/api/v1/claims/CL-2027-0099", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/api/v1/claims", Cap: staff.CapClaims, Body: bad},
		{Method: "GET", Path: "/api/v1/check-runs", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/api/v1/check-runs", Cap: staff.CapCheckRuns, Body: bad},
		{Method: "POST", Path: "/api/v1/checks/void", Cap: staff.CapCheckRuns, Body: bad},
		{Method: "GET", Path: "/api/v1/check-register/2027-01", Cap: staff.CapReadPayables},
		{Method: "GET", Path: "/api/v1/signatures", Cap: staff.CapReadPayables},
		{Method: "POST", Path: "/api/v1/signatures", Cap: staff.CapSignatures, Body: bad},
	})
}

// TestPayrollClaimForm (§5.07(3), §5.16): the claim form offers the open
// employments of the year, with what each has not yet charged; a claim
// naming one is entered, shows it, and once certified and endorsed on
// its pages is charged to the employment. An employment the ledger does
// not know is refused on the form, which keeps what was typed.
func TestPayrollClaimForm(t *testing.T) {
	h := adopted(t)
	clerk := h.SignedIn("cleo", domain.RoleClerk)
	treas := h.SignedIn("tom", domain.RoleTreasurer)
	admin := h.SignedIn("ada", domain.RoleAdministrator)
	emp := h.Submit("admin", &domain.Employment{Line: "100-53300", Person: "Lee Park", Position: "Seasonal crew", Amount: domain.MustMoney("1250.00"),
		From: domain.MustDate("2027-01-15"), Approval: "motion 2027-01-10 #3", ApprovedOn: domain.MustDate("2027-01-10")}).Ref

	p := clerk.Get("/staff/claims")
	if !p.Has("claim-payroll-note") || !strings.Contains(p.Text("claim-employment"), emp+" Lee Park, Seasonal crew (100-53300, $1,250.00 not yet charged)") {
		t.Fatalf("the claim form's employments: %q", p.Text("claim-employment"))
	}
	form := url.Values{"line": {"100-53300"}, "vendor": {"Lee Park"}, "invoice": {"payroll 2027-01"}, "invoice_date": {"2027-01-31"}, "amount": {"500.00"},
		"employment": {"EMP-2027-099"}, "description": {"January wages"}}
	p = clerk.Post("/staff/claims", form)
	if p.Status != http.StatusNotFound || !strings.Contains(p.Text("claim-error"), `There is no employment "EMP-2027-099"`) || p.Doc.Find(`[data-testid="claim-form"] input[name="vendor"]`).AttrOr("value", "") != "Lee Park" {
		t.Fatalf("an unknown employment: %d %q", p.Status, p.Text("claim-error"))
	}
	form.Set("employment", emp)
	at := seeOther(t, "enter", clerk.Post("/staff/claims", form), "claim-error")
	if cp := clerk.Get(at); cp.Text("claim-employment") != emp {
		t.Fatalf("the claim page's employment: %q", cp.Text("claim-employment"))
	}
	for _, x := range []struct {
		c           *stafftest.Client
		what, basis string
	}{{treas, domain.CertifyFundsAvailable, ""}, {admin, domain.CertifyAuthorized, ""}, {admin, domain.CertifyConformity, "timesheet signed"}, {treas, domain.CertifyValid, ""}} {
		x.c.Get(at)
		seeOther(t, x.what, x.c.Post(at+"/certify", url.Values{"certification": {x.what}, "basis": {x.basis}}), "claim-error")
	}
	treas.Get(at)
	seeOther(t, "endorse", treas.Post(at+"/endorse", url.Values{}), "claim-error")
	emps, err := domain.ReadsOf(h.Ledger).Employments(2027)
	if err != nil || len(emps) != 1 || !emps[0].Charged.Equal(domain.MustMoney("500.00")) {
		t.Fatalf("the employment after the endorsement: %+v, %v", emps, err)
	}
	if p := clerk.Get("/staff/claims"); !strings.Contains(p.Text("claim-employment"), "$750.00 not yet charged") {
		t.Fatalf("the form after the payroll was charged: %q", p.Text("claim-employment"))
	}
}

// TestClaimsPaged: a year of more claims than a page shows is listed a
// page at a time, newest first, with links to the newer and the older
// claims, and each page reads only its own claims.
func TestClaimsPaged(t *testing.T) {
	h := adopted(t)
	treas := h.SignedIn("tom", domain.RoleTreasurer)
	const n = 230
	for i := range n {
		h.Submit("cleo", &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: "Quill Office Supply", Invoice: fmt.Sprintf("Q-%03d", i), InvoiceDate: domain.MustDate("2027-01-30"),
			Amount: domain.MustMoney("12.50"), Line: "100-53300", Description: "Office supplies"})
	}
	rows := func(p stafftest.Page) []string {
		var ids []string
		p.Doc.Find(`[data-testid="claims"] tbody tr td:first-child`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, strings.TrimSpace(s.Text())) })
		return ids
	}
	p := treas.Get("/staff/claims?year=2027")
	if ids := rows(p); len(ids) != 100 || ids[0] != "CL-2027-0230" || ids[99] != "CL-2027-0131" {
		t.Fatalf("the first page lists %d claims, %v … %v", len(ids), ids[:min(1, len(ids))], ids[max(0, len(ids)-1):])
	}
	if p.Has("claims-newer") || p.Doc.Find(`[data-testid="claims-older"]`).AttrOr("href", "") != "/staff/claims?year=2027&from=130" {
		t.Errorf("the first page's links: %q", p.Text("claims-pager"))
	}
	p = treas.Get("/staff/claims?year=2027&from=30")
	if ids := rows(p); len(ids) != 30 || ids[0] != "CL-2027-0030" || ids[29] != "CL-2027-0001" {
		t.Fatalf("the last page lists %d claims", len(ids))
	}
	if p.Has("claims-older") || p.Doc.Find(`[data-testid="claims-newer"]`).AttrOr("href", "") != "/staff/claims?year=2027&from=130" {
		t.Errorf("the last page's links: %q", p.Text("claims-pager"))
	}
	if got := p.Text("claims-pager"); !strings.Contains(got, "of 230") {
		t.Errorf("the pager says %q", got)
	}
	if p := treas.Get("/staff/claims?year=2027&from=x"); p.Status != http.StatusUnprocessableEntity {
		t.Errorf("from=x: %d", p.Status)
	}
	if ids := rows(treas.Get("/staff/claims?year=2027")); len(ids) != 100 {
		t.Errorf("the first page lists %d claims", len(ids))
	}
	if ids := rows(treas.Get("/staff/claims?year=2026")); len(ids) != 0 {
		t.Errorf("a year of no claims lists %d", len(ids))
	}
}

// TestPayableOfMany: among many claims of a year, the checks page offers
// only the approved ones not yet paid.
func TestPayableOfMany(t *testing.T) {
	h := adopted(t)
	treas := h.SignedIn("tom", domain.RoleTreasurer)
	var ids []string
	for i := range 30 {
		res := h.Submit("cleo", &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: "Quill Office Supply", Invoice: fmt.Sprintf("Q-%03d", i), InvoiceDate: domain.MustDate("2027-01-30"),
			Amount: domain.MustMoney("12.50"), Line: "100-53300", Description: "Office supplies"})
		ids = append(ids, res.Ref)
	}
	h.SignedIn("pat", domain.RoleDepartmentHead)
	for _, id := range []string{ids[3], ids[17]} {
		for _, x := range []struct{ who, what, basis string }{
			{"tom", domain.CertifyFundsAvailable, ""}, {"pat", domain.CertifyAuthorized, "standing order"},
			{"pat", domain.CertifyConformity, "received"}, {"tom", domain.CertifyValid, ""},
		} {
			h.Submit(x.who, &domain.ClaimChange{Op: domain.ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
		}
	}
	h.Submit("tom", &domain.ClaimChange{Op: domain.ClaimEndorse, ID: ids[17]})
	var payable []string
	treas.Get("/staff/checks").Doc.Find(`[data-testid="payable"] tbody tr`).Each(func(_ int, s *goquery.Selection) {
		payable = append(payable, strings.TrimSpace(s.Text()))
	})
	if len(payable) != 1 || !strings.Contains(payable[0], ids[17]) {
		t.Errorf("the checks page offers %q, want %s only (%s is certified, not endorsed)", payable, ids[17], ids[3])
	}
	// The line's balance beside the claim form is read without its
	// charges: the two claims' funds are held.
	if got := treas.Get("/staff/claims?year=2027").Text("claim-line"); !strings.Contains(got, "100-53300 ($39,975.00 available)") {
		t.Errorf("the form offers %q", got)
	}
}
