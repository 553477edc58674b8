package budget_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/budget"
	"github.com/villagehall/appliance/kiosk/staff/purchasing"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

const chartCSV = `code,type,name,fund,unit,major,general,reserve,sources,closed
100,fund,General fund,,,,yes,,,
ADMIN,department,Administration,100,,,,,,
PW,department,Public works,100,,,,,,
100-41110,revenue,General property taxes,100,,Taxes,,,,
100-46100,revenue,Charges for services,100,,Public charges for services,,,bills;status_letters,
100-51400,expenditure,Administration,100,ADMIN,General government,,,,
100-53300,expenditure,Streets,100,PW,Public works,,,,
`

func newOffice(t *testing.T) *stafftest.Harness {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{budget.New(), purchasing.New()}})
	h.Seed()
	return h
}

// at moves the clock to hour on day and signs the people in again (a
// session lasts a working day).
func at(h *stafftest.Harness, day string, hour int, people ...person) {
	d := domain.MustDate(day)
	h.SetClock(time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, h.Loc))
	for _, p := range people {
		if st := p.c.Login(p.username, stafftest.Password).Status; st != http.StatusSeeOther {
			h.T.Fatalf("sign in again as %s: %d", p.username, st)
		}
		p.c.Get("/staff/")
	}
}

type person struct {
	c        *stafftest.Client
	username string
}

// importChart imports chartCSV as admin.
func importChart(t *testing.T, admin *stafftest.Client) {
	t.Helper()
	admin.Get("/staff/chart/import")
	if p := admin.Upload("/staff/chart/import", map[string]string{"mode": "import"}, "chart.csv", chartCSV); p.Status != http.StatusOK || !p.Has("chart-imported") {
		t.Fatalf("import: %d %v", p.Status, p.Text("chart-import-errors"))
	}
}

// TestChartImport: a dry run shows every problem with its line and saves
// nothing; a clean file is saved whole by an import.
func TestChartImport(t *testing.T) {
	h := newOffice(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	admin.Get("/staff/chart/import")
	bad := "code,type,name,fund,unit,major\n100,fund,General fund,,,\nPW,department,Public works,100,,\n100-53300,expenditure,Streets,100,PW,\nX Y,fund,Bad,,,\n"
	before := h.Ledger.JournalLen()
	p := admin.Upload("/staff/chart/import", map[string]string{"mode": "import"}, "bad.csv", bad)
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("chart-import-errors"), "Line 4: Account 100-53300 needs its major expenditure category") ||
		!strings.Contains(p.Text("chart-import-errors"), "Line 5: The account code \"X Y\"") {
		t.Fatalf("bad import: %d %q", p.Status, p.Text("chart-import-errors"))
	}
	// A unit that names a fund the file lacks: the chart's own check,
	// with its line.
	p = admin.Upload("/staff/chart/import", map[string]string{"mode": "dry-run"}, "refs.csv", "code,type,name,fund\nPW,department,Public works,200\n")
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("chart-import-errors"), "Line 2: Account PW names the fund 200") {
		t.Fatalf("dangling fund: %d %q", p.Status, p.Text("chart-import-errors"))
	}
	p = admin.Upload("/staff/chart/import", map[string]string{"mode": "dry-run"}, "chart.csv", chartCSV)
	if p.Status != http.StatusOK || !p.Has("chart-dry-run") || p.Doc.Find(`[data-testid="chart-import-rows"] tbody tr`).Length() != 7 {
		t.Fatalf("dry run: %d %s", p.Status, p.Text("chart-import-errors"))
	}
	if h.Ledger.JournalLen() != before {
		t.Fatal("a refused import or a dry run recorded something")
	}
	importChart(t, admin)
	if p := admin.Get("/staff/chart"); !strings.Contains(p.Text("account-100-46100"), "bills, status_letters") || !strings.Contains(p.Text("account-100"), "general fund") {
		t.Fatalf("chart after import: %q", p.Text("account-100-46100"))
	}
	// The form changes one account.
	if p := admin.Post("/staff/chart", url.Values{"code": {"100-53310"}, "type": {"expenditure"}, "name": {"Street reconstruction"}, "fund": {"100"}, "unit": {"PW"}, "major": {"Public works"}}); p.Status != http.StatusOK || !p.Has("chart-saved") {
		t.Fatalf("add account: %d %s", p.Status, p.Text("chart-error"))
	}
	if p := admin.Post("/staff/chart", url.Values{"code": {"200"}, "type": {"fund"}, "name": {"Debt service"}, "general": {"on"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("chart-error"), "Only one fund is the general fund") {
		t.Fatalf("second general fund: %d %q", p.Status, p.Text("chart-error"))
	}
	// The API reads it: the seven accounts imported, the one the form
	// added, and the two the books' opening entry added when the chart
	// named its general fund (the receivables of the bills then open and
	// the fund balance they count in).
	tok := h.Token("script", domain.RoleAuditor)
	st, b := h.API("GET", "/api/v1/chart", tok, "")
	var got struct{ Accounts []domain.ChartAccount }
	if err := json.Unmarshal(b, &got); st != http.StatusOK || err != nil || len(got.Accounts) != 10 {
		t.Fatalf("api chart: %d %s", st, b)
	}
}

// TestBudgetCycleByHand: the cycle as the people in the office do it on
// the pages: estimates (a department head for their unit, the tracker and
// the late alert), the proposal, the summary and the notice, the hearing,
// the adoption, a failing amendment, the appropriations, an expense and
// the close of the year.
func TestBudgetCycleByHand(t *testing.T) {
	h := newOffice(t)
	at(h, "2026-09-01", 9)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	importChart(t, admin)
	head := h.Client()
	h.AddUserChange(domain.StaffUserChange{Op: domain.StaffAdd, Username: "pat", Name: "Pat Works", Role: domain.RoleDepartmentHead, Unit: "PW", PasswordHash: stafftest.Hasher.Hash(stafftest.Password)})
	h.AddUserChange(domain.StaffUserChange{Op: domain.StaffPassword, Username: "pat", PasswordHash: stafftest.Hasher.Hash(stafftest.Password)})
	head.Login("pat", stafftest.Password)
	head.Get("/staff/")
	clerk := h.SignedIn("cleo", domain.RoleClerk)
	treasurer := h.SignedIn("tom", domain.RoleTreasurer)
	everyone := []person{{admin, "boss"}, {head, "pat"}, {clerk, "cleo"}, {treasurer, "tom"}}

	// The board: seven members.
	admin.Get("/staff/board")
	for i, name := range []string{"Wells", "Ames", "Berg", "Cruz", "Diaz", "Eng", "Fox"} {
		seat := "trustee"
		if i == 0 {
			seat = "president"
		}
		if p := clerk.Post("/staff/board", url.Values{"id": {seat + "-" + strings.ToLower(name)}, "name": {name}, "seat": {seat}, "from": {"2025-04-15"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("member %s: %d %s", name, p.Status, p.Text("board-error"))
		}
	}
	if p := clerk.Get("/staff/board"); !strings.Contains(p.Text("board-seats"), "7 of 7") {
		t.Fatalf("board: %q", p.Text("board-seats"))
	}

	// Estimates: the department head sees their unit's accounts only.
	p := head.Get("/staff/budget/2027/estimates")
	if !p.Has("estimate-form") || p.Doc.Find(`input[name="account"]`).Length() != 1 {
		t.Fatalf("the head's estimate form: %s", p.Body)
	}
	if p := head.Post("/staff/budget/2027/estimates", url.Values{"unit": {"PW"}, "account": {"100-53300"}, "prior-100-53300": {"36,000.00"}, "current-100-53300": {"38500"}, "next-100-53300": {"40000"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("file estimates: %d %s", p.Status, p.Text("estimate-error"))
	}
	if p := head.Post("/staff/budget/2027/estimates", url.Values{"unit": {"ADMIN"}, "account": {"100-51400"}, "next-100-51400": {"1"}}); p.Status != http.StatusForbidden || !strings.Contains(p.Text("estimate-error"), "heads PW") {
		t.Fatalf("another unit's estimates: %d %q", p.Status, p.Text("estimate-error"))
	}
	if p := head.Post("/staff/budget/2027/estimates", url.Values{"unit": {"PW"}, "account": {"100-53300"}, "next-100-53300": {"12,50"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("estimate-error"), "not an amount") {
		t.Fatalf("a misgrouped amount: %d %q", p.Status, p.Text("estimate-error"))
	}
	// From September 16 the administrator's start page flags ADMIN late.
	at(h, "2026-09-15", 9, everyone...)
	if p := admin.Get("/staff/"); p.Has("alert-estimates-late") {
		t.Fatal("late alert on September 15")
	}
	at(h, "2026-09-16", 9, everyone...)
	if p := admin.Get("/staff/"); !strings.Contains(p.Text("alert-estimates-late"), "1 unit(s)") {
		t.Fatalf("late alert: %q", p.Text("alert-estimates-late"))
	}
	if p := head.Get("/staff/"); p.Has("alert-estimates-late") {
		t.Fatal("the head of PW, who filed, is alerted for another unit")
	}
	if p := admin.Get("/staff/budget/2027/estimates"); !p.Has("estimate-ADMIN") || !strings.Contains(p.Text("estimate-ADMIN"), "late: not filed") {
		t.Fatalf("tracker: %q", p.Text("estimate-ADMIN"))
	}

	// The proposal: the form is filled from the estimates.
	at(h, "2026-10-01", 9, everyone...)
	p = admin.Get("/staff/budget/2027/proposal")
	if v, _ := p.Doc.Find(`[data-testid="amount-100-53300"]`).Attr("value"); v != "40000.00" {
		t.Fatalf("proposal filled with %q", v)
	}
	form := url.Values{"account": {"100-41110", "100-46100", "100-51400", "100-53300"},
		"amount-100-41110": {"900,000.00"}, "amount-100-46100": {"120000"}, "amount-100-51400": {"300000"}, "amount-100-53300": {"40000"},
		"debt-0": {"2019 GO note"}, "debt-outstanding-0": {"1,200,000"}, "debt-due-0": {"150000"},
		"fin-0": {"Transfer from the water utility"}, "fin-fund-0": {"100"}, "fin-kind-0": {"source"}, "fin-amount-0": {"25000"},
		"fund": {"100"}, "beginning-100": {"410000"}, "section-0": {"Levy limit"}, "section-body-0": {"Within the limit."}}
	if p := admin.Post("/staff/budget/2027/proposal", form); p.Status != http.StatusSeeOther {
		t.Fatalf("proposal: %d %s", p.Status, p.Text("proposal-error"))
	}
	p = admin.Get("/staff/budget/2027")
	if !strings.Contains(p.Text("line-100-51400"), "$300,000.00") || !strings.Contains(p.Text("budget-debts"), "$1,200,000.00") || p.Text("fund-ending") != "$1,115,000.00" {
		t.Fatalf("budget page: %q / %q / %q", p.Text("line-100-51400"), p.Text("budget-debts"), p.Text("fund-ending"))
	}
	// The summary and its notice: for a hearing on November 4, publish by October 20.
	p = clerk.Get("/staff/budget/2027/summary?hearing=2026-11-04")
	if !strings.Contains(p.Text("summary-publish-by"), "2026-10-20") || !strings.Contains(p.Text("summary-expenditures-total"), "$340,000.00") {
		t.Fatalf("summary: %q %q", p.Text("summary-publish-by"), p.Text("summary-expenditures-total"))
	}
	resp, err := clerk.HTTP.Get(h.Srv.URL + "/staff/budget/2027/summary.pdf?hearing=2026-11-04")
	if err != nil {
		t.Fatal(err)
	}
	pdf := make([]byte, 5)
	resp.Body.Read(pdf)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" || string(pdf) != "%PDF-" {
		t.Fatalf("summary PDF: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), pdf)
	}
	// The notice is dated as the clerk chooses, and a time at the end of
	// its sentence takes one period.
	st, _, body := clerk.GetPDF("/staff/budget/2027/summary.pdf?hearing=2026-11-04&date=2026-10-15&time=" + url.QueryEscape("6:30 p.m.") + "&place=" + url.QueryEscape("the Village Hall."))
	pages := stafftest.PDFPages(t, body)
	if text := stafftest.PageText(pages[0]); st != http.StatusOK || !strings.Contains(text, "Dated October 15, 2026") || strings.Contains(text, "Hall..") {
		t.Fatalf("the notice: %d\n%s", st, text)
	}
	stafftest.CheckLetter(t, pages)

	// The notice, the hearing (refused when the notice was late) and the adoption.
	at(h, "2026-10-22", 9, everyone...)
	if p := clerk.Post("/staff/budget/2027/notices", url.Values{"purpose": {"hearing"}, "published": {"2026-10-22"}, "newspaper": {"Belleville Recorder"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("notice: %d %s", p.Status, p.Text("budget-error"))
	}
	at(h, "2026-11-04", 21, everyone...)
	if p := clerk.Post("/staff/budget/2027/hearing", url.Values{"on": {"2026-11-04"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("budget-error"), "on or before 2026-10-20") {
		t.Fatalf("hearing 13 days after the notice: %d %q", p.Status, p.Text("budget-error"))
	}
	at(h, "2026-11-07", 10, everyone...)
	if p := clerk.Post("/staff/budget/2027/hearing", url.Values{"on": {"2026-11-07"}, "notes": {"Two residents spoke."}}); p.Status != http.StatusSeeOther {
		t.Fatalf("hearing: %d %s", p.Status, p.Text("budget-error"))
	}
	vote := func(c *stafftest.Client, action, on string, ayes int, extra url.Values) stafftest.Page {
		c.Get("/staff/budget/2027/vote")
		f := url.Values{"action": {action}, "on": {on}}
		for i, id := range []string{"president-wells", "trustee-ames", "trustee-berg", "trustee-cruz", "trustee-diaz", "trustee-eng", "trustee-fox"} {
			f.Add("member", id)
			v := "nay"
			if i < ayes {
				v = "aye"
			}
			f.Set("vote-"+id, v)
		}
		for k, v := range extra {
			f[k] = v
		}
		return c.Post("/staff/budget/2027/votes", f)
	}
	if p := vote(clerk, "adopt", "2026-11-07", 6, nil); p.Status != http.StatusSeeOther {
		t.Fatalf("adopt: %d %s", p.Status, p.Text("vote-error"))
	}
	p = admin.Get("/staff/budget/2027")
	if !strings.Contains(p.Text("budget-status"), "Adopted on 2026-11-07") || p.Text("vote-1") == "" || !strings.Contains(p.Text("vote-1"), "passed") {
		t.Fatalf("after adoption: %q / %q", p.Text("budget-status"), p.Text("vote-1"))
	}
	if p := admin.Post("/staff/budget/2027/proposal", form); p.Status != http.StatusConflict || !strings.Contains(p.Text("proposal-error"), "only an amendment") {
		t.Fatalf("a proposal after adoption: %d %q %q", p.Status, p.Text("proposal-error"), p.Text("error"))
	}
	// An amendment with 4 of 7: recorded as failed; the appropriation stands.
	at(h, "2027-03-10", 21, everyone...)
	if p := vote(clerk, "amend", "2027-03-10", 4, url.Values{"change-account-0": {"100-53300"}, "change-amount-0": {"5,000.00"}, "purpose": {"More salt"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("amend: %d %s", p.Status, p.Text("vote-error"))
	}
	if p := admin.Get("/staff/budget/2027"); !strings.Contains(p.Text("vote-2"), "failed") || !strings.Contains(p.Text("vote-2"), "5 aye(s) required") {
		t.Fatalf("failed amendment: %q", p.Text("vote-2"))
	} else if got := p.Text("vote-change"); !strings.Contains(got, "100-53300: +$5,000.00") {
		t.Errorf("the vote record shows the change %q, want it signed", got)
	}
	if p := treasurer.Get("/staff/appropriations/2027"); p.Text("available-100-53300") != "$40,000.00" {
		t.Fatalf("available after a failed amendment: %q", p.Text("available-100-53300"))
	}
	// An amendment dated before the adoption is refused.
	if p := vote(clerk, "amend", "2026-11-01", 7, url.Values{"change-account-0": {"100-53300"}, "change-amount-0": {"5000"}, "purpose": {"x"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("vote-error"), "before the adoption") {
		t.Fatalf("amendment before adoption: %d %q", p.Status, p.Text("vote-error"))
	}
	// Every payment is a claim (§5.07(3)), the payroll of an employment
	// too from ledger format 6: the page points there, offers no expense
	// form, and the ledger refuses an expense, saying what to do instead.
	p = treasurer.Get("/staff/appropriations/2027")
	if !p.Has("enter-claim") || !strings.Contains(p.Text("expense-to-claims"), "claim audit of §5.07(3)") || !p.Has("enter-payroll-claim") {
		t.Fatalf("the page does not point payments to the claims: %q", p.Text("expense-to-claims"))
	}
	if p.Has("expense-form") {
		t.Fatal("the page offers the payroll expense on a ledger at format 6")
	}
	emp := h.Submit("boss", &domain.Employment{Line: "100-53300", Person: "Streets crew", Position: "Seasonal crew", Amount: domain.MustMoney("1250.00"), From: domain.MustDate("2027-03-01"), Approval: "motion 2027-02-20 #3", ApprovedOn: domain.MustDate("2027-02-20")}).Ref
	for _, f := range []url.Values{
		{"line": {"100-53300"}, "on": {"2027-03-10"}, "amount": {"1,250.00"}, "payee": {"Sugar River Asphalt"}, "description": {"Pothole repair"}},
		{"line": {"100-53300"}, "on": {"2027-03-10"}, "amount": {"1,250.00"}, "payee": {"Streets crew"}, "description": {"March wages"}, "against": {emp}},
	} {
		if p := treasurer.Post("/staff/expenses", f); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("expense-error"), "enter the payroll as a claim naming the employment") {
			t.Fatalf("an expense at format 6: %d %s", p.Status, p.Text("expense-error"))
		}
	}
	// The employment's encumbrance is on the appropriation's record, and
	// nothing the refused expenses would have charged.
	if p := admin.Get("/staff/appropriations/2027/100-53300"); p.Text("appropriation-available") != "$38,750.00" || !strings.Contains(p.Text("appropriation-charges"), "Seasonal crew") ||
		strings.Contains(p.Text("appropriation-charges"), "March wages") {
		t.Fatalf("record: %q %q", p.Text("appropriation-available"), p.Text("appropriation-charges"))
	}
	// The close: previewed, refused before the last day, then done.
	at(h, "2027-12-30", 10, everyone...)
	p = treasurer.Get("/staff/appropriations/2027/close")
	if !strings.Contains(p.Text("close-totals"), "$338,750.00 lapses") {
		t.Fatalf("preview: %q", p.Text("close-totals"))
	}
	if p := treasurer.Post("/staff/appropriations/2027/close", nil); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("close-error"), "2027-12-31") {
		t.Fatalf("early close: %d %q", p.Status, p.Text("close-error"))
	}
	at(h, "2027-12-31", 16, everyone...)
	if p := treasurer.Post("/staff/appropriations/2027/close", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.Status, p.Text("close-error"))
	}
	if p := treasurer.Get("/staff/appropriations/2027/close"); !p.Has("close-done") || !strings.Contains(p.Text("close-totals"), "$338,750.00 lapses") {
		t.Fatalf("after close: %q", p.Text("close-totals"))
	}
}

// TestBudgetRoutesByRole: every route of the module refuses the roles
// without its capability, on the pages and through the API.
func TestBudgetRoutesByRole(t *testing.T) {
	h := newOffice(t)
	h.Submit("setup", &domain.ChartChange{Accounts: []domain.ChartAccount{{Code: "100", Type: domain.AccountFund, Name: "General", General: true}}})
	pages := []stafftest.Route{
		{Method: "GET", Path: "/staff/chart", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/chart", Cap: staff.CapChart, Form: url.Values{"code": {"Z"}, "type": {"fund"}, "name": {"z"}}},
		{Method: "GET", Path: "/staff/chart/import", Cap: staff.CapChart},
		{Method: "POST", Path: "/staff/chart/import", Cap: staff.CapChart},
		{Method: "GET", Path: "/staff/board", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/board", Cap: staff.CapBudgetMeeting, Form: url.Values{"id": {"x"}}},
		{Method: "GET", Path: "/staff/budget", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/staff/budget/2027", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/staff/budget/2027/estimates", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/budget/2027/estimates", Cap: staff.CapEstimates, Form: url.Values{"unit": {"NONE"}}},
		{Method: "GET", Path: "/staff/budget/2027/proposal", Cap: staff.CapBudget},
		{Method: "POST", Path: "/staff/budget/2027/proposal", Cap: staff.CapBudget},
		{Method: "GET", Path: "/staff/budget/2027/summary", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/staff/budget/2027/summary.pdf", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/budget/2027/notices", Cap: staff.CapBudgetMeeting},
		{Method: "POST", Path: "/staff/budget/2027/hearing", Cap: staff.CapBudgetMeeting},
		{Method: "GET", Path: "/staff/budget/2027/vote", Cap: staff.CapBudgetMeeting},
		{Method: "POST", Path: "/staff/budget/2027/votes", Cap: staff.CapBudgetMeeting},
		{Method: "GET", Path: "/staff/budget/2027/versions/1", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/staff/appropriations/2027", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/staff/appropriations/2027/100-53300", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/appropriations/2027/100-53300/end", Cap: staff.CapCertify},
		{Method: "POST", Path: "/staff/expenses", Cap: staff.CapCertify},
		{Method: "GET", Path: "/staff/appropriations/2027/close", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/appropriations/2027/close", Cap: staff.CapCertify},
	}
	stafftest.CheckRoleMatrix(t, h, pages)
	bad := `{"command_id":"m-1","command":{}}`
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/chart", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/chart", Cap: staff.CapChart, Body: bad},
		{Method: "GET", Path: "/api/v1/board", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/board", Cap: staff.CapBudgetMeeting, Body: bad},
		{Method: "GET", Path: "/api/v1/budgets/2027", Cap: staff.CapReadBudget},
		{Method: "GET", Path: "/api/v1/budgets/2027/estimates", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/budgets/2027/estimates", Cap: staff.CapEstimates, Body: bad},
		{Method: "POST", Path: "/api/v1/budgets/2027/proposal", Cap: staff.CapBudget, Body: bad},
		{Method: "POST", Path: "/api/v1/budgets/2027/notices", Cap: staff.CapBudgetMeeting, Body: bad},
		{Method: "POST", Path: "/api/v1/budgets/2027/hearing", Cap: staff.CapBudgetMeeting, Body: bad},
		{Method: "POST", Path: "/api/v1/budgets/2027/votes", Cap: staff.CapBudgetMeeting, Body: bad},
		{Method: "GET", Path: "/api/v1/appropriations/2027", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/expenses", Cap: staff.CapCertify, Body: bad},
		{Method: "POST", Path: "/api/v1/appropriations/2027/end", Cap: staff.CapCertify, Body: bad},
		{Method: "GET", Path: "/api/v1/appropriations/2027/close", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/appropriations/2027/close", Cap: staff.CapCertify, Body: bad},
	})
}
