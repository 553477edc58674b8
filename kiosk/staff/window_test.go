package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestWindowDay is a clerk's day at the window at handler level: open the
// drawer, take cash with change and a check, close on a blind count that
// comes up short, see the alert for money not deposited, and the
// treasurer's deposit slip that clears it.
func TestWindowDay(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)

	p := c.get("/staff/window")
	if !p.has("open-form") {
		t.Fatal("no open-drawer form before the drawer is open")
	}
	if p := c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"10.00"}, "tender": {"cash"}}); p.status != http.StatusConflict {
		t.Fatalf("payment without a drawer: %d", p.status)
	}
	if p := c.post("/staff/window/open", url.Values{"float": {"100.00"}}); p.status != http.StatusSeeOther {
		t.Fatalf("open: %d %s", p.status, p.text("window-error"))
	}
	p = c.get("/staff/window?bill=B-2026-0101")
	drawer := p.text("drawer-id")
	if drawer == "" || p.doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", "") != "142.37" {
		t.Fatalf("window: drawer %q, amount prefilled %q", drawer, p.doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", ""))
	}
	// Too little cash handed over is refused; nothing posts.
	if p := c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"142.37"}, "tender": {"cash"}, "tendered": {"100.00"}}); p.status != http.StatusUnprocessableEntity || !p.has("window-error") {
		t.Fatalf("short cash: %d", p.status)
	}
	p = c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"142.37"}, "tender": {"cash"}, "tendered": {"160.00"}, "payer": {"Ana"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("cash: %d %s", p.status, p.text("window-error"))
	}
	p = c.get(p.location)
	if p.text("change-due") != "17.63" || p.text("receipt-balance") != "0.00" || p.text("receipt-status") != "posted" {
		t.Fatalf("cash receipt: change %q balance %q status %q", p.text("change-due"), p.text("receipt-balance"), p.text("receipt-status"))
	}
	c.get("/staff/window")
	if p := c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"90.00"}, "tender": {"check"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("check without a number: %d", p.status)
	}
	p = c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"90.00"}, "tender": {"check"}, "reference": {"1042"}, "payer": {"Luis Ramirez"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("check: %d %s", p.status, p.text("window-error"))
	}
	// The blind count shows nothing of what the drawer should hold.
	p = c.get("/staff/window/close")
	if !p.has("close-form") || strings.Contains(p.body, "242.37") || strings.Contains(p.body, "142.37") {
		t.Fatal("the close page is not blind")
	}
	if p := c.get("/staff/drawers/" + drawer); p.has("drawer-payments") {
		t.Fatal("the cashier sees the drawer's payments before the count")
	}
	h.setClock(h.now().Add(7 * time.Hour)) // 16:00; the session idled out
	if p := c.get("/staff/window/close"); p.status != http.StatusSeeOther {
		t.Fatalf("a session idle for 7 hours: %d", p.status)
	}
	c.login("jdoe", testPassword)
	c.get("/staff/window/close")
	p = c.post("/staff/window/close", url.Values{"drawer": {drawer}, "cash": {"242.00"}, "checks": {"90.00"}, "check_count": {"1"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.status, p.text("close-error"))
	}
	p = c.get(p.location)
	if p.text("over-short") != "-0.37" || p.text("expected-cash") != "242.37" {
		t.Fatalf("after close: over/short %q expected %q", p.text("over-short"), p.text("expected-cash"))
	}
	// 16:45, after the office closed: the money is not deposited.
	h.setClock(h.now().Add(45 * time.Minute))
	c.login("jdoe", testPassword)
	if p := c.get("/staff/"); !p.has("alert-undeposited") {
		t.Fatal("no alert for money not deposited by the day's end")
	}
	// The clerk cannot make the deposit; the treasurer can.
	if p := c.post("/staff/deposits", url.Values{"depository": {"Bank of Belleville (designated)"}, "drawer": {drawer}}); p.status != http.StatusForbidden {
		t.Fatalf("clerk deposit: %d", p.status)
	}
	tr := h.signedIn("treasurer", domain.RoleTreasurer)
	p = tr.get("/staff/drawers")
	if !p.has("alert-undeposited") || !p.has("deposit-"+drawer) {
		t.Fatal("the drawers page does not offer the closed drawer for deposit")
	}
	if p := tr.post("/staff/deposits", url.Values{"depository": {"Some other bank"}, "drawer": {drawer}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("an undesignated depository: %d", p.status)
	}
	p = tr.post("/staff/deposits", url.Values{"depository": {"Bank of Belleville (designated)"}, "drawer": {drawer}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("deposit: %d %s", p.status, p.text("error"))
	}
	p = tr.get(p.location)
	// Cash counted 242.00 less the 100.00 float, and the check.
	if p.text("slip-cash") != "142.00" || p.text("slip-checks") != "90.00" || p.text("slip-total") != "232.00" {
		t.Fatalf("slip: cash %q checks %q total %q", p.text("slip-cash"), p.text("slip-checks"), p.text("slip-total"))
	}
	if p := c.get("/staff/"); p.has("alert-undeposited") {
		t.Fatal("the alert stays after the deposit")
	}
	if p := tr.post("/staff/deposits", url.Values{"depository": {"Bank of Belleville (designated)"}, "drawer": {drawer}}); p.status != http.StatusConflict {
		t.Fatalf("second deposit of a drawer: %d", p.status)
	}
}

func TestNextDayAlert(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("jdoe", domain.RoleClerk)
	c.post("/staff/window/open", url.Values{"float": {"50.00"}})
	c.get("/staff/window")
	c.post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"20.00"}, "tender": {"cash"}, "tendered": {"20.00"}})
	if p := c.get("/staff/"); p.has("alert-undeposited") {
		t.Fatal("an alert during the business day")
	}
	h.setClock(h.now().Add(24 * time.Hour))
	c.login("jdoe", testPassword)
	if p := c.get("/staff/"); !p.has("alert-undeposited") {
		t.Fatal("no alert the next morning for yesterday's money")
	}
}

func TestClusterPage(t *testing.T) {
	h := newHarness(t)
	c := h.signedIn("auditor", domain.RoleAuditor)
	p := c.get("/staff/cluster")
	if p.status != http.StatusOK || p.text("cluster-leader") != "hall-kiosk" {
		t.Fatalf("cluster: %d leader %q", p.status, p.text("cluster-leader"))
	}
	if !strings.Contains(p.text("state-backup"), "unreachable") || p.text("lag-hall-clerk") != "2" || !strings.Contains(p.text("state-hall-kiosk"), "Leader") {
		t.Fatalf("members: %q", p.text("cluster-members"))
	}
}

func TestAPIBills(t *testing.T) {
	h := newHarness(t)
	admin := h.signedIn("boss", domain.RoleAdministrator)
	h.addUser("robot", domain.RoleAuditor, true)
	admin.get("/staff/users")
	tok := admin.post("/staff/users/robot/tokens", nil).text("secret")
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/v1/bills/B-2026-0101?as_of=2026-12-01", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		ID      string `json:"id"`
		Figures struct {
			Status  string `json:"status"`
			Penalty string `json:"penalty"`
		} `json:"figures"`
	}
	if err := jsonDecode(resp, &got); err != nil || got.ID != "B-2026-0101" || got.Figures.Penalty == "" {
		t.Fatalf("bill: %+v %v", got, err)
	}
}

// TestAPIBillFiguresAsOfADate: a bill paid in part later answers, as of a
// date before the payment, with nothing paid and the balance of then.
func TestAPIBillFiguresAsOfADate(t *testing.T) {
	h := newHarness(t)
	b := h.ledger.st.bills["B-2026-0101"] // billed 2026-10-20, 142.37, due 2026-11-19
	b.Payments = []domain.BillPayment{{CommandID: "p1", Receipt: "r1", At: domain.NewDateTime(domain.MustDate("2026-11-25"), 10, 0, 0), Amount: domain.MustMoney("42.37"), Tender: domain.Card}}
	h.ledger.st.bills[b.ID] = b
	admin := h.signedIn("boss", domain.RoleAdministrator)
	h.addUser("robot", domain.RoleAuditor, true)
	admin.get("/staff/users")
	tok := admin.post("/staff/users/robot/tokens", nil).text("secret")
	figures := func(asOf string) (paid, balance, status string) {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/v1/bills/B-2026-0101?as_of="+asOf, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct {
			Figures struct{ Paid, Balance, Status string } `json:"figures"`
		}
		if err := jsonDecode(resp, &got); err != nil {
			t.Fatal(err)
		}
		return got.Figures.Paid, got.Figures.Balance, got.Figures.Status
	}
	if paid, bal, st := figures("2026-11-10"); paid != "0.00" || bal != "142.37" || st != "current" {
		t.Fatalf("as of 2026-11-10: paid %s balance %s %s; want 0.00 142.37 current", paid, bal, st)
	}
	if paid, _, _ := figures("2026-11-25"); paid != "42.37" {
		t.Fatalf("as of the payment's day: paid %s, want 42.37", paid)
	}
}
