package view_test

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// TestCartReceiptLines: the receipt of several bills lists each bill with
// its part, how §5.10 applied it and what it owes after; an overpayment
// (a bill paid meanwhile: its refund is due) is said on its bill's line,
// in both languages; a provisional receipt shows the parts only.
func TestCartReceiptLines(t *testing.T) {
	r := view.Receipt{Number: "hall-kiosk-000009", Kind: domain.KindPayBills, Status: domain.Posted, Account: "100101", Amount: m("70.00"), Tender: domain.Card,
		Lines: []view.ReceiptLine{
			{BillID: "B-1", Description: "Water", Amount: m("50.00"), Allocation: domain.Allocation{Interest: m("2.00"), Principal: m("43.00"), Overpayment: m("5.00")}},
			{BillID: "B-2", Description: "Weeds", Amount: m("20.00"), Allocation: domain.Allocation{Principal: m("20.00")}, Balance: m("4.00")},
		}, Balance: m("4.00")}
	for lang, over := range map[i18n.Lang]string{i18n.English: "Overpayment", i18n.Spanish: "Pago de más"} {
		doc := render(t, view.ReceiptPage(page(t, lang), r))
		lines := doc.Find(`[data-testid="cart-line"]`)
		if lines.Length() != 2 || !strings.Contains(lines.Eq(1).Text(), "$4.00") {
			t.Fatalf("%s: lines %q", lang, lines.Text())
		}
		if got := text(doc, "cart-line-overpayment"); !strings.Contains(got, over) || !strings.Contains(got, "$5.00") || doc.Find(`[data-testid="cart-line-overpayment"]`).Length() != 1 {
			t.Errorf("%s: overpayment %q", lang, got)
		}
	}
	r.Status = domain.Provisional
	doc := render(t, view.ReceiptPage(page(t, i18n.English), r))
	if doc.Find(`[data-testid="cart-line-allocation"]`).Length() != 0 || doc.Find(`[data-testid="cart-line-amount"]`).Length() != 2 {
		t.Errorf("a provisional receipt shows allocations it cannot know")
	}
}
