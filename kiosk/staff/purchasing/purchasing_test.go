package purchasing_test

import (
	"encoding/json"
	"fmt"
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

// adopted is an office whose 2027 budget is adopted (through the ledger,
// as the budget's own tests do it on the pages), on 2027-02-01.
func adopted(t *testing.T) *stafftest.Harness {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{budget.New(), purchasing.New()}})
	h.Seed()
	h.SetClock(time.Date(2026, 10, 1, 9, 0, 0, 0, h.Loc))
	h.Submit("admin", &domain.ChartChange{Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "PW", Type: domain.AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "ADMIN", Type: domain.AccountDepartment, Name: "Administration", Fund: "100"},
		{Code: "100-53300", Type: domain.AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works"},
		{Code: "100-51400", Type: domain.AccountExpenditure, Name: "Administration", Fund: "100", Unit: "ADMIN", Major: "General government"},
	}})
	var votes []domain.MemberVote
	for i := range 7 {
		id := fmt.Sprintf("trustee-%c", 'a'+i)
		h.Submit("admin", &domain.BoardMember{ID: id, Name: id, Seat: "trustee", From: domain.MustDate("2025-04-15")})
		votes = append(votes, domain.MemberVote{Member: id, Vote: "aye"})
	}
	h.Submit("admin", &domain.BudgetProposal{Year: 2027, Lines: []domain.BudgetLine{{Account: "100-53300", Amount: domain.MustMoney("40000.00")}, {Account: "100-51400", Amount: domain.MustMoney("5000.00")}}})
	h.Submit("clerk", &domain.BudgetNoticeChange{Year: 2027, BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: domain.MustDate("2026-10-01"), Newspaper: "Recorder"}})
	h.SetClock(time.Date(2026, 11, 4, 21, 0, 0, 0, h.Loc))
	h.Submit("clerk", &domain.BudgetHearingChange{Year: 2027, BudgetHearing: domain.BudgetHearing{On: domain.MustDate("2026-11-04")}})
	h.Submit("clerk", &domain.BudgetVoteChange{Year: 2027, Action: domain.BudgetAdopt, On: domain.MustDate("2026-11-04"), Votes: votes, Present: 7})
	h.SetClock(time.Date(2027, 2, 1, 9, 0, 0, 0, h.Loc))
	return h
}

func orderID(t *testing.T, p stafftest.Page) string {
	t.Helper()
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/orders/") {
		t.Fatalf("create order: %d %s", p.Status, p.Text("order-error"))
	}
	return strings.TrimPrefix(p.Location, "/staff/orders/")
}

// TestOrderByHand: an order on the pages, from its creation to its
// delivery, with the refusals on the way: an award without the board's
// approval, a certification for more than is available, an issue before
// the certification, a bid after the award.
func TestOrderByHand(t *testing.T) {
	h := adopted(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	treasurer := h.SignedIn("tom", domain.RoleTreasurer)
	p := admin.Get("/staff/orders")
	if !strings.Contains(p.Body, "100-53300 ($40,000.00 available)") {
		t.Fatalf("the order form's lines: %s", p.Doc.Find(`[data-testid="order-line"]`).Text())
	}
	id := orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Road salt"}, "category": {"supplies"}, "estimate": {"4,800.00"}, "solicited": {"mail"}}))
	base := "/staff/orders/" + id
	admin.Get(base)
	for _, b := range [][2]string{{"Compass", "4700"}, {"Morton", "4,650.00"}, {"Cargill", "4990"}} {
		if p := admin.Post(base+"/bid", url.Values{"vendor": {b[0]}, "amount": {b[1]}, "received": {"2027-02-01"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("bid: %d %s", p.Status, p.Text("order-error"))
		}
	}
	if p := admin.Post(base+"/award", url.Values{"vendor": {"Morton"}, "amount": {"4650"}, "on": {"2027-02-01"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("order-error"), "board's approval") {
		t.Fatalf("award without approval: %d %q", p.Status, p.Text("order-error"))
	}
	award := url.Values{"vendor": {"Morton"}, "amount": {"4650"}, "on": {"2027-02-01"}, "board_meeting": {"2027-01-30"}, "board_present": {"6"}, "board_ayes": {"3"}, "board_nays": {"3"}}
	if p := admin.Post(base+"/award", award); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("order-error"), "did not approve") {
		t.Fatalf("award on a tied vote: %d %q", p.Status, p.Text("order-error"))
	}
	award.Set("board_ayes", "5")
	award.Set("board_nays", "1")
	if p := admin.Post(base+"/award", award); p.Status != http.StatusSeeOther {
		t.Fatalf("award: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Get(base); p.Text("order-vote") != "Approved by the board at its meeting of 2027-01-30: 5 ayes, 1 nays, 6 present." || p.Text("order-standing") != "awaiting funds" {
		t.Fatalf("the vote on the order's page: %q, standing %q", p.Text("order-vote"), p.Text("order-standing"))
	}
	if p := admin.Post(base+"/bid", url.Values{"vendor": {"Late"}, "amount": {"1"}, "received": {"2027-02-01"}}); p.Status != http.StatusConflict || !strings.Contains(p.Text("order-error"), "no bid is taken after the award") {
		t.Fatalf("bid after the award: %d %q", p.Status, p.Text("order-error"))
	}
	if p := admin.Post(base+"/issue", nil); p.Status != http.StatusConflict || !strings.Contains(p.Text("order-error"), "certify the funds") {
		t.Fatalf("issue before certification: %d %q", p.Status, p.Text("order-error"))
	}
	// The administrator cannot certify; the treasurer can.
	if p := admin.Post(base+"/certify", nil); p.Status != http.StatusForbidden {
		t.Fatalf("the administrator certified: %d", p.Status)
	}
	treasurer.Get(base)
	if p := treasurer.Post(base+"/certify", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("certify: %d %s", p.Status, p.Text("order-error"))
	}
	p = admin.Get(base)
	if !strings.Contains(p.Text("order-certified"), "tom") || p.Text("order-held") != "$4,650.00" {
		t.Fatalf("certified: %q held %q", p.Text("order-certified"), p.Text("order-held"))
	}
	if p := admin.Post(base+"/issue", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("issue: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Post(base+"/receive", url.Values{"on": {"2027-02-01"}, "inspector": {"Pat"}, "conforms": {"yes"}, "invoice": {"M-1"}, "invoiced": {"4,650.00"}, "test": {"chloride"}, "test_cost": {"85"}, "final": {"on"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("receive: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Get(base); p.Text("order-status") != "received" || !strings.Contains(p.Text("order-delivery"), "chloride") {
		t.Fatalf("received: %q %q", p.Text("order-status"), p.Text("order-delivery"))
	}
	if p := admin.Get("/staff/appropriations/2027"); p.Text("available-100-53300") != "$35,265.00" {
		t.Fatalf("available: %q", p.Text("available-100-53300"))
	}

	// More than is available: refused at the certification.
	big := orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-51400"}, "description": {"Copier"}, "category": {"equipment"}, "estimate": {"6000"}}))
	admin.Post("/staff/orders/"+big+"/bid", url.Values{"vendor": {"Copy Co"}, "amount": {"6000"}, "received": {"2027-02-01"}})
	admin.Post("/staff/orders/"+big+"/award", url.Values{"vendor": {"Copy Co"}, "amount": {"6000"}, "on": {"2027-02-01"}, "reasons": {"sole dealer"},
		"board_meeting": {"2027-01-30"}, "board_present": {"7"}, "board_ayes": {"7"}, "board_nays": {"0"}})
	if p := treasurer.Post("/staff/orders/"+big+"/certify", nil); p.Status != http.StatusConflict || !strings.Contains(p.Text("order-error"), "less than $6,000.00") {
		t.Fatalf("certify over available: %d %q", p.Status, p.Text("order-error"))
	}
	// The treasurer records the refusal; the order stays unissued.
	if p := treasurer.Get("/staff/orders/" + big); p.Doc.Find(`[data-testid="refuse-form"]`).Length() != 1 {
		t.Fatal("no refusal form for the treasurer")
	}
	if p := treasurer.Post("/staff/orders/"+big+"/certify", url.Values{"refuse": {"yes"}, "reason": {""}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("order-error"), "Say why") {
		t.Fatalf("refusal without a reason: %d %q", p.Status, p.Text("order-error"))
	}
	if p := treasurer.Post("/staff/orders/"+big+"/certify", url.Values{"refuse": {"yes"}, "reason": {"funds not available"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("refuse: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Get("/staff/orders/" + big); !strings.Contains(p.Text("order-refused"), "funds not available") || p.Text("order-standing") != "funds refused" || p.Text("order-status") != "awarded" {
		t.Fatalf("refused: %q standing %q status %q", p.Text("order-refused"), p.Text("order-standing"), p.Text("order-status"))
	}
	if got, err := domain.ReadsOf(h.Ledger).Purchase(big); err != nil || got.Standing != domain.StandingFundsRefused || got.Refusal != "funds not available" {
		t.Fatalf("public record of the refused award: %+v %v", got, err)
	}
	// The public record of the salt.
	// Received and invoiced, but no check paid a claim: awarded, not paid.
	if got, err := domain.ReadsOf(h.Ledger).Purchase(id); err != nil || got.Vendor != "Morton" || len(got.Bids) != 3 ||
		got.Standing != domain.StandingAwarded || !got.Paid.IsZero() || got.Vote == nil || got.Vote.Ayes != 5 {
		t.Fatalf("public record: %+v %v", got, err)
	}
}

// TestEmergencyByDepartmentHead: a department head makes an emergency
// purchase under their limit for their own unit; over it, or for another
// unit, it is refused.
func TestEmergencyByDepartmentHead(t *testing.T) {
	h := adopted(t)
	h.AddUser("pat", domain.RoleDepartmentHead, true) // heads PW (stafftest.Unit)
	head := h.Client()
	head.Login("pat", stafftest.Password)
	p := head.Get("/staff/orders")
	if strings.Contains(p.Body, "100-51400") {
		t.Fatal("a department head is offered another unit's appropriation")
	}
	id := orderID(t, head.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Hose for the plow"}, "category": {"materials"}, "estimate": {"480"}, "emergency": {"on"}, "explanation": {"The hose burst in a storm."}}))
	head.Get("/staff/orders/" + id)
	if p := head.Post("/staff/orders/"+id+"/award", url.Values{"vendor": {"Farm & Fleet"}, "amount": {"480"}, "on": {"2027-02-01"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("emergency award: %d %s", p.Status, p.Text("order-error"))
	}
	if p := head.Post("/staff/orders/"+id+"/receive", url.Values{"on": {"2027-02-01"}, "inspector": {"Pat"}, "conforms": {"yes"}, "invoice": {"FF-9"}, "invoiced": {"480"}, "final": {"on"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("emergency receipt: %d %s", p.Status, p.Text("order-error"))
	}
	over := orderID(t, head.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Pump"}, "category": {"equipment"}, "estimate": {"600"}, "emergency": {"on"}, "explanation": {"Flood."}}))
	if p := head.Post("/staff/orders/"+over+"/award", url.Values{"vendor": {"Pumps"}, "amount": {"600"}, "on": {"2027-02-01"}}); p.Status != http.StatusForbidden || !strings.Contains(p.Text("order-error"), "only under $500.00") {
		t.Fatalf("over the limit: %d %q", p.Status, p.Text("order-error"))
	}
	if p := head.Post("/staff/orders", url.Values{"line": {"100-51400"}, "description": {"Toner"}, "category": {"supplies"}, "estimate": {"50"}, "emergency": {"on"}, "explanation": {"x"}}); p.Status != http.StatusForbidden || !strings.Contains(p.Text("order-error"), "heads PW") {
		t.Fatalf("another unit: %d %q", p.Status, p.Text("order-error"))
	}
	if p := head.Post("/staff/requisitions", url.Values{"unit": {"PW"}, "type": {"requisition"}, "category": {"supplies"}, "quantity-0": {"40"}, "item-0": {"Cold patch"}, "estimated-0": {"800"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("requisition: %d %s", p.Status, p.Text("requisition-error"))
	}
	if p := head.Get("/staff/requisitions"); !strings.Contains(p.Text("requisitions"), "40 × Cold patch") {
		t.Fatalf("requisitions: %q", p.Text("requisitions"))
	}
}

// TestOrderAPI: a script drives an order through the API; the command
// id makes a retry safe, and a reused id with another body is a conflict.
func TestOrderAPI(t *testing.T) {
	h := adopted(t)
	admin := h.Token("script", domain.RoleAdministrator)
	treasurer := h.Token("treasury", domain.RoleTreasurer)
	call := func(tok, path, body string) (int, staff.CommandResponse) {
		t.Helper()
		st, b := h.API("POST", path, tok, body)
		var r staff.CommandResponse
		_ = json.Unmarshal(b, &r)
		if st != http.StatusOK {
			t.Logf("%s: %d %s", path, st, b)
		}
		return st, r
	}
	create := `{"command_id":"po-1","command":{"op":"create","line":"100-53300","description":"Salt","category":"supplies","estimate":"2000.00"}}`
	st, first := call(admin, "/api/v1/orders", create)
	if st != http.StatusOK || first.Ref != "PO-2027-0001" {
		t.Fatalf("create: %d %+v", st, first)
	}
	if st, again := call(admin, "/api/v1/orders", create); st != http.StatusOK || again.Ref != first.Ref || again.Index != first.Index {
		t.Fatalf("retry: %d %+v", st, again)
	}
	if st, _ := call(admin, "/api/v1/orders", strings.Replace(create, "2000.00", "2500.00", 1)); st != http.StatusConflict {
		t.Fatalf("reused id: %d", st)
	}
	steps := []struct{ tok, path, body string }{
		{admin, "/api/v1/orders", `{"command_id":"po-2","command":{"op":"bid","id":"PO-2027-0001","bid":{"vendor":"Morton","amount":"1900.00","received":"2027-02-01"}}}`},
		{admin, "/api/v1/orders", `{"command_id":"po-3","command":{"op":"award","id":"PO-2027-0001","award":{"vendor":"Morton","amount":"1900.00","on":"2027-02-01","reasons":"one supplier"}}}`},
		{treasurer, "/api/v1/orders/PO-2027-0001/certify", `{"command_id":"po-4","command":{}}`},
		{admin, "/api/v1/orders", `{"command_id":"po-5","command":{"op":"issue","id":"PO-2027-0001"}}`},
		{admin, "/api/v1/orders/PO-2027-0001/receipts", `{"command_id":"po-6","command":{"delivery":{"on":"2027-02-01","inspector":"Pat","conforms":true,"invoice":"M-2","invoiced":"1900.00","final":true}}}`},
	}
	for _, s := range steps {
		if st, _ := call(s.tok, s.path, s.body); st != http.StatusOK {
			t.Fatalf("%s: %d", s.body, st)
		}
	}
	st, b := h.API("GET", "/api/v1/orders/PO-2027-0001", admin, "")
	var o domain.Order
	if err := json.Unmarshal(b, &o); st != http.StatusOK || err != nil || o.Status != domain.OrderReceived || !o.Paid.Equal(domain.MustMoney("1900.00")) {
		t.Fatalf("order: %d %s", st, b)
	}
	// Bad input: clear errors, nothing changed.
	before := h.Ledger.JournalLen()
	for _, bad := range []string{
		`{"command_id":"bad-1","command":{"op":"create","line":"100-53300","description":"x","category":"supplies","estimate":"-5"}}`,
		`{"command_id":"bad-2","command":{"op":"create","line":"100-53300","description":"x","category":"food","estimate":"5.00"}}`,
		`{"command_id":"bad-3","command":{"op":"create","line":"100-53300","description":"x","category":"supplies","estimate":"5.00","extra":1}}`,
		`{"command_id":"bad-4"}`,
	} {
		if st, b := h.API("POST", "/api/v1/orders", admin, bad); st != http.StatusBadRequest && st != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", bad, st, b)
		}
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("bad input submitted %d commands", n-before)
	}
}

// TestPurchasingRoutesByRole checks the module's routes by role.
func TestPurchasingRoutesByRole(t *testing.T) {
	h := adopted(t)
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/orders", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/orders", Cap: staff.CapPurchasing, Form: url.Values{"estimate": {"x"}}},
		{Method: "GET", Path: "/staff/orders/PO-2027-0099", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/orders/PO-2027-0099/bid", Cap: staff.CapPurchasing},
		{Method: "POST", Path: "/staff/orders/PO-2027-0099/certify", Cap: staff.CapCertify},
		{Method: "GET", Path: "/staff/requisitions", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/requisitions", Cap: staff.CapPurchasing},
		{Method: "GET", Path: "/staff/surplus", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/surplus", Cap: staff.CapPurchasing},
		{Method: "GET", Path: "/staff/purchasing-rules", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/purchasing-rules", Cap: staff.CapPurchasingRules},
		{Method: "GET", Path: "/staff/employment", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/staff/employment", Cap: staff.CapEmployment},
	})
	bad := `{"command_id":"m-1","command":{}}`
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/orders", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/orders", Cap: staff.CapPurchasing, Body: bad},
		{Method: "POST", Path: "/api/v1/orders/PO-2027-0099/certify", Cap: staff.CapCertify, Body: bad},
		{Method: "POST", Path: "/api/v1/orders/PO-2027-0099/receipts", Cap: staff.CapPurchasing, Body: bad},
		{Method: "GET", Path: "/api/v1/requisitions", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/requisitions", Cap: staff.CapPurchasing, Body: bad},
		{Method: "GET", Path: "/api/v1/surplus", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/surplus", Cap: staff.CapPurchasing, Body: bad},
		{Method: "GET", Path: "/api/v1/purchasing-rules", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/purchasing-rules", Cap: staff.CapPurchasingRules, Body: bad},
		{Method: "GET", Path: "/api/v1/employment", Cap: staff.CapReadBudget},
		{Method: "POST", Path: "/api/v1/employment", Cap: staff.CapEmployment, Body: bad},
	})
}

// TestNoticesBeforeBidsByHand (§5.13(1), Wis. Stat. 62.15): on the pages,
// a bid on materials expected to cost more than the class 2 threshold is
// refused until the notice's publication is recorded, and taken once the
// notice was published on or before its receipt; a class 1 notice is
// recorded with no day of opening.
func TestNoticesBeforeBidsByHand(t *testing.T) {
	h := adopted(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	gravel := "/staff/orders/" + orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Gravel"}, "category": {"materials"}, "estimate": {"30,000.00"}}))
	if p := admin.Get(gravel); !strings.Contains(p.Text("order-notice-none"), "class 2 notice published before its bids") {
		t.Fatalf("the notice's hint: %q", p.Text("order-notice-none"))
	}
	bid := url.Values{"vendor": {"Rock Road"}, "amount": {"29,000.00"}, "received": {"2027-01-20"}}
	if p := admin.Post(gravel+"/bid", bid); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("order-error"), "record the publication of its class 2 notice before its bids") {
		t.Fatalf("bid before the notice: %d %q", p.Status, p.Text("order-error"))
	}
	if p := admin.Post(gravel+"/notice", url.Values{"notice1": {"2027-01-21"}, "notice2": {"2027-01-28"}, "bids_open": {"2027-02-08"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("notice: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Post(gravel+"/bid", bid); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("order-error"), "first published on 2027-01-21") {
		t.Fatalf("bid before the publication: %d %q", p.Status, p.Text("order-error"))
	}
	bid.Set("received", "2027-01-21")
	if p := admin.Post(gravel+"/bid", bid); p.Status != http.StatusSeeOther {
		t.Fatalf("bid after the notice: %d %s", p.Status, p.Text("order-error"))
	}

	salt := "/staff/orders/" + orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Salt"}, "category": {"supplies"}, "estimate": {"6,000.00"}}))
	if p := admin.Post(salt+"/notice", url.Values{"notice1": {"2027-01-25"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("class 1 notice: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Get(salt); strings.Join(strings.Fields(p.Text("order-notice")), " ") != "Class 1 notice published: 2027-01-25" {
		t.Fatalf("class 1 notice shown: %q", p.Text("order-notice"))
	}
}
