package window_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestReceiptOfSeveralBills: a payment of two bills made at the kiosk
// (pay_bills) shows at the window as one receipt listing each bill with
// its part and allocation, and the journal finds it by either bill.
func TestReceiptOfSeveralBills(t *testing.T) {
	h := stafftest.New(t)
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{{ID: "B-2026-0150", Account: "100101", Parcel: "0601-141-2001", Description: "Sidewalk repair", BilledOn: h.Today(), Principal: domain.MustMoney("40.00")}}})
	res := h.Submit("kiosk", &domain.PayBills{Account: "100101", Tender: domain.Card, Reference: "SIM-1", Bills: []domain.BillAmount{
		{BillID: "B-2026-0101", Amount: domain.MustMoney("142.37")},
		{BillID: "B-2026-0150", Amount: domain.MustMoney("15.00")},
	}})
	number := res.Receipt.Number
	c := h.SignedIn("jdoe", domain.RoleClerk)
	p := c.Get("/staff/receipts/" + number)
	lines := p.Doc.Find(`[data-testid="receipt-line"]`)
	if lines.Length() != 2 || p.Text("receipt-amount") != "157.37" || !strings.Contains(lines.Eq(1).Text(), "B-2026-0150") || !strings.Contains(lines.Eq(1).Text(), "25.00") {
		t.Fatalf("receipt: %d lines %q, amount %q", lines.Length(), lines.Text(), p.Text("receipt-amount"))
	}
	a := h.SignedIn("audit", domain.RoleAuditor)
	for _, bill := range []string{"B-2026-0101", "B-2026-0150"} {
		rows := a.Get("/staff/journal?bill=" + bill).Doc.Find("tr[data-command]")
		found := false
		rows.Each(func(_ int, s *goquery.Selection) {
			found = found || strings.Contains(s.Text(), number) && strings.Contains(s.Text(), "157.37")
		})
		if !found {
			t.Errorf("journal by %s: %q", bill, rows.Text())
		}
	}
}
