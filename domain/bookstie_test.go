package domain

import "testing"

// TestBooksTieSetsTheBooksBesideTheBills: before the chart names a general
// fund the books are closed and hold nothing; once open, each fund's
// trial balance balances and its receivables are the principal its own
// bills still owe, a bill of the water utility in the utility's fund; a
// bill the books never counted leaves its fund untied, and a bill
// certified to the tax roll is the county's and not counted.
func TestBooksTieSetsTheBooksBesideTheBills(t *testing.T) {
	tx := newStaffTx()
	bills := func(ids ...string) []Bill {
		var out []Bill
		for _, id := range ids {
			b, ok, err := loadBill(tx, id, true)
			if err != nil || !ok {
				t.Fatalf("bill %s: %v, %v", id, ok, err)
			}
			out = append(out, b)
		}
		return out
	}
	tie, err := ReadsOf(txRecords{tx}).BooksTie(nil)
	if err != nil || tie.Open || len(tie.Funds) != 0 || !tie.Debit.IsZero() {
		t.Fatalf("books without a chart: %+v, %v; want closed and empty", tie, err)
	}

	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T10:00", &PayBill{BillID: "B-W1", Amount: MustMoney("45.00"), Tender: Card, Reference: "SIM-1"})

	tie, err = ReadsOf(txRecords{tx}).BooksTie(bills("B-W1", "B-G1"))
	if err != nil || !tie.Open {
		t.Fatalf("books after the chart: %+v, %v", tie, err)
	}
	if !tie.Debit.Equal(tie.Credit) || tie.Debit.IsZero() {
		t.Fatalf("trial balance: debits %s, credits %s", tie.Debit, tie.Credit)
	}
	want := map[string]string{"GF": "80.00", "WU": "75.00"}
	for fund, owed := range want {
		f := tie.Funds[fund]
		if !f.Balanced() || !f.Tied() || !f.OpenPrincipal.Equal(MustMoney(owed)) {
			t.Errorf("fund %s: %+v; want balanced, tied, %s owed", fund, f, owed)
		}
	}
	if a := tie.Accounts["WU-112"]; !a.Debit.Equal(MustMoney("45.00")) {
		t.Errorf("the card's receipt not yet deposited: %+v", a)
	}

	// A bill the books never counted: its fund's receivables do not tie.
	stray := Bill{ID: "B-X", Principal: MustMoney("10.00"), Revenue: "46100"}
	tie, _ = ReadsOf(txRecords{tx}).BooksTie(append(bills("B-W1", "B-G1"), stray))
	if f := tie.Funds["WU"]; f.Tied() || !f.OpenPrincipal.Equal(MustMoney("85.00")) {
		t.Errorf("with a bill the books never counted, fund WU: %+v; want untied", f)
	}
	// A bill on the tax roll is the county's to collect.
	stray.Certified = &Certification{Year: 2026}
	tie, _ = ReadsOf(txRecords{tx}).BooksTie(append(bills("B-W1", "B-G1"), stray))
	if f := tie.Funds["WU"]; !f.Tied() {
		t.Errorf("a certified bill counted as open, fund WU: %+v", f)
	}
}
