package bills_test

import (
	"net/http"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

func TestAPIBills(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("robot", domain.RoleAuditor, true)
	admin.Get("/staff/users")
	tok := admin.Post("/staff/users/robot/tokens", nil).Text("secret")
	req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/bills/B-2026-0101?as_of=2026-12-01", nil)
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
	if err := stafftest.JSONDecode(resp, &got); err != nil || got.ID != "B-2026-0101" || got.Figures.Penalty == "" {
		t.Fatalf("bill: %+v %v", got, err)
	}
}

// TestAPIBillFiguresAsOfADate: a bill paid in part later answers, as of a
// date before the payment, with nothing paid and the balance of then.
func TestAPIBillFiguresAsOfADate(t *testing.T) {
	h := stafftest.New(t)
	b, _ := h.Ledger.Bill("B-2026-0101") // billed 2026-10-20, 142.37, due 2026-11-19
	b.Payments = []domain.BillPayment{{CommandID: "p1", Receipt: "r1", At: domain.NewDateTime(domain.MustDate("2026-11-25"), 10, 0, 0), Amount: domain.MustMoney("42.37"), Tender: domain.Card}}
	h.Ledger.PutBill(b)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("robot", domain.RoleAuditor, true)
	admin.Get("/staff/users")
	tok := admin.Post("/staff/users/robot/tokens", nil).Text("secret")
	figures := func(asOf string) (paid, balance, status string) {
		req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/api/v1/bills/B-2026-0101?as_of="+asOf, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct {
			Figures struct{ Paid, Balance, Status string } `json:"figures"`
		}
		if err := stafftest.JSONDecode(resp, &got); err != nil {
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
