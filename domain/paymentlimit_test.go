package domain

import "testing"

// formatTx is a ledger transaction at a given ledger format.
type formatTx struct {
	*residentTx
	format int
}

func (t formatTx) LedgerFormat() int { return t.format }

// TestPaymentRulesOfLedgerFormat2: at ledger format 2 a single payment
// over the payment limit is refused on every channel (the probe paid
// 999,999,999,999.99 on a $90 bill), and a bill payment that is not by
// card is refused (cash and checks go into a drawer at the window). At
// format 1 — entries applied before the cluster was upgraded, replayed on
// a node catching up from the log — the old rules give the old answers.
func TestPaymentRulesOfLedgerFormat2(t *testing.T) {
	bill := Bill{ID: "B-90", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-05-01"), Principal: MustMoney("90.00")}
	pay := func(amount string, tender Tender) Command {
		c := cmdAt(KindPayBill, "2026-05-10T10:00", 7)
		c.Payload = &PayBill{BillID: bill.ID, Amount: MustMoney(amount), Tender: tender}
		return c
	}
	cases := []struct {
		name    string
		format  int
		cmd     Command
		refused bool
	}{
		{"huge card payment at format 2", 2, pay("999999999999.99", Card), true},
		{"cash through pay_bill at format 2", 2, pay("90.00", Cash), true},
		{"card payment at the limit", 2, pay("50000.00", Card), false},
		{"huge card payment at format 1", 1, pay("999999999999.99", Card), false},
		{"cash through pay_bill at format 1", 1, pay("90.00", Cash), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := formatTx{newResidentTx(), c.format}
			tx.bills[bill.ID] = bill
			_, err := Apply(tx, c.cmd, 9, DefaultParams())
			if refused := err != nil; refused != c.refused {
				t.Fatalf("refused = %v (%v), want %v", refused, err, c.refused)
			}
			if c.refused && len(tx.bill(t, bill.ID).Payments) != 0 {
				t.Fatal("a refused payment changed the bill")
			}
		})
	}
}
