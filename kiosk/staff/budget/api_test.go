package budget_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// TestBudgetCycleByAPI: a script drives the whole cycle through the API,
// and every refusal comes back as the same errors payments give.
func TestBudgetCycleByAPI(t *testing.T) {
	h := newOffice(t)
	h.SetClock(time.Date(2026, 9, 1, 9, 0, 0, 0, h.Loc))
	admin, clerk, treasurer := h.Token("admin-bot", domain.RoleAdministrator), h.Token("clerk-bot", domain.RoleClerk), h.Token("treasury-bot", domain.RoleTreasurer)
	n := 0
	post := func(tok, path, command string, want int) staff.CommandResponse {
		t.Helper()
		n++
		st, b := h.API("POST", path, tok, fmt.Sprintf(`{"command_id":"script-%d","command":%s}`, n, command))
		if st != want {
			t.Fatalf("%s %s: %d %s, want %d", path, command, st, b, want)
		}
		var r staff.CommandResponse
		_ = json.Unmarshal(b, &r)
		return r
	}
	post(admin, "/api/v1/chart", `{"accounts":[{"code":"100","type":"fund","name":"General fund","general":true},{"code":"PW","type":"department","name":"Public works","fund":"100"},
		{"code":"100-41110","type":"revenue","name":"Taxes","fund":"100","major":"Taxes"},{"code":"100-53300","type":"expenditure","name":"Streets","fund":"100","unit":"PW","major":"Public works"}]}`, http.StatusOK)
	for i := range 7 {
		post(clerk, "/api/v1/board", fmt.Sprintf(`{"id":"trustee-%c","name":"Trustee %c","seat":"trustee","from":"2025-04-15"}`, 'a'+i, 'A'+i), http.StatusOK)
	}
	post(admin, "/api/v1/budgets/2027/estimates", `{"unit":"PW","lines":[{"account":"100-53300","prior":"36000.00","current":"38500.00","next":"40000.00"}]}`, http.StatusOK)
	post(admin, "/api/v1/budgets/2027/estimates", `{"unit":"FIRE","lines":[{"account":"100-53300","prior":"1.00","current":"1.00","next":"1.00"}]}`, http.StatusUnprocessableEntity)
	post(admin, "/api/v1/budgets/2027/estimates", `{"year":2028,"unit":"PW","lines":[]}`, http.StatusUnprocessableEntity)
	post(admin, "/api/v1/budgets/2027/proposal", `{"lines":[{"account":"100-41110","amount":"100000.00"},{"account":"100-53300","amount":"40000.00"}],"balances":[{"fund":"100","beginning":"50000.00"}]}`, http.StatusOK)
	h.SetClock(time.Date(2026, 10, 15, 9, 0, 0, 0, h.Loc))
	post(clerk, "/api/v1/budgets/2027/notices", `{"purpose":"hearing","published":"2026-10-15","newspaper":"Belleville Recorder"}`, http.StatusOK)
	h.SetClock(time.Date(2026, 11, 4, 21, 0, 0, 0, h.Loc))
	post(clerk, "/api/v1/budgets/2027/hearing", `{"on":"2026-11-04"}`, http.StatusOK)
	votes := func(ayes int) string {
		var vs []string
		for i := range 7 {
			v := "nay"
			if i < ayes {
				v = "aye"
			}
			vs = append(vs, fmt.Sprintf(`{"member":"trustee-%c","vote":"%s"}`, 'a'+i, v))
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	post(clerk, "/api/v1/budgets/2027/votes", `{"action":"adopt","on":"2026-11-04","present":5,"votes":`+votes(7)+`}`, http.StatusUnprocessableEntity) // 7 ayes, 5 present
	post(clerk, "/api/v1/budgets/2027/votes", `{"action":"adopt","on":"2026-11-04","present":6,"votes":`+votes(7)+`}`, http.StatusUnprocessableEntity)
	post(clerk, "/api/v1/budgets/2027/votes", `{"action":"adopt","on":"2026-11-04","present":7,"votes":`+votes(5)+`}`, http.StatusOK)

	st, b := h.API("GET", "/api/v1/appropriations/2027", treasurer, "")
	var apps struct {
		Appropriations []struct {
			Line      string       `json:"line"`
			Available domain.Money `json:"available"`
		} `json:"appropriations"`
	}
	if err := json.Unmarshal(b, &apps); st != http.StatusOK || err != nil || len(apps.Appropriations) != 1 || !apps.Appropriations[0].Available.Equal(domain.MustMoney("40000.00")) {
		t.Fatalf("appropriations: %d %s", st, b)
	}
	h.SetClock(time.Date(2027, 3, 1, 9, 0, 0, 0, h.Loc))
	post(treasurer, "/api/v1/expenses", `{"line":"100-53300","on":"2027-03-01","amount":"900.00","payee":"Sugar River Asphalt","description":"Patching"}`, http.StatusUnprocessableEntity)
	emp := h.Submit("admin-bot", &domain.Employment{Line: "100-53300", Person: "Streets crew", Position: "Seasonal crew", Amount: domain.MustMoney("900.00"), From: domain.MustDate("2027-03-01"), Approval: "motion 2027-02-20 #3", ApprovedOn: domain.MustDate("2027-02-20")}).Ref
	// From ledger format 6 the payroll too is a claim, not an expense.
	post(treasurer, "/api/v1/expenses", `{"line":"100-53300","on":"2027-03-01","amount":"900.00","payee":"Streets crew","description":"Patching","against":"`+emp+`"}`, http.StatusUnprocessableEntity)
	h.SetClock(time.Date(2027, 12, 31, 16, 0, 0, 0, h.Loc))
	st, b = h.API("GET", "/api/v1/appropriations/2027/close", treasurer, "")
	var plan domain.YearEndPlan
	if err := json.Unmarshal(b, &plan); st != http.StatusOK || err != nil || !plan.Lapsed.Equal(domain.MustMoney("39100.00")) {
		t.Fatalf("close preview: %d %s", st, b)
	}
	post(treasurer, "/api/v1/appropriations/2027/close", `{}`, http.StatusOK)
	post(treasurer, "/api/v1/appropriations/2027/close", `{}`, http.StatusConflict)
	st, b = h.API("GET", "/api/v1/budgets/2027", admin, "")
	var view domain.BudgetView
	if err := json.Unmarshal(b, &view); st != http.StatusOK || err != nil || view.Budget.Status != domain.BudgetAdopted || len(view.Budget.Votes) != 1 {
		t.Fatalf("budget: %d %s", st, b)
	}
}
