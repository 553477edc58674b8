package domain

import "testing"

// TestControlsTieToTheirRecords: receivables tie to the open bills,
// vouchers payable to the claims allowed and unpaid, investments to the
// register, fund by fund; a posting lost is a difference the tie names.
func TestControlsTieToTheirRecords(t *testing.T) {
	v := payablesVillage(t)
	v.do("treas", "2027-02-03T10:00", &InvestmentChange{Op: InvestmentBuy, ID: "INV-1", Security: "LGIP deposit", Institution: "State of Wisconsin Investment Board",
		Ground: "lgip", Fund: "100", Amount: MustMoney("250.00"), PurchasedOn: MustDate("2027-02-03"), MaturesOn: MustDate("2027-08-03"), Rate: "4.25"})
	v.do("clerk", "2027-02-04T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "sidewalk repair", BilledOn: MustDate("2027-02-04"), Principal: MustMoney("120.00")},
	}})
	allowClaim(v, "2027-02-05T10:00", "Badger Paving", MustMoney("90.00"), "100-53300")
	ties := wantTies(t, v.tx, "2027-02-05")
	want := map[string]string{"100/receivable": "120.00", "100/vouchers_payable": "90.00", "100/investments": "250.00"}
	for _, c := range ties {
		k := c.Fund + "/" + string(c.Control)
		if w, ok := want[k]; ok {
			if !c.Books.Equal(MustMoney(w)) || !c.Records.Equal(MustMoney(w)) || c.Items != 1 || c.Account == "" || c.Source == "" {
				t.Errorf("%s: %+v, want %s in the books and in one record", k, c, w)
			}
			delete(want, k)
		}
	}
	if len(want) != 0 {
		t.Fatalf("controls not tied: %v (ties %+v)", want, ties)
	}

	// The same claim in books that lost its allowance's posting: the
	// claim is still payable and the books owe nothing for it, and the
	// tie says by how much they differ rather than passing.
	w := payablesVillage(t)
	id := allowClaim(w, "2027-02-05T10:00", "Badger Paving", MustMoney("90.00"), "100-53300")
	delete(w.tx.records, CollectionBookDays+"/100-211/2027-02-05")
	delete(w.tx.records, CollectionBookDays+"/100-53300/2027-02-05")
	bills := []Bill{w.tx.bill(t, "B-G1"), w.tx.bill(t, "B-W1")}
	got, err := ReadsOf(txRecords{w.tx}).ControlTies(bills, MustDate("2027-02-05"), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range got {
		if c.Fund == "100" && c.Control == ControlPayable {
			found = true
			if c.Ties() || !c.Difference().Equal(MustMoney("-90.00")) || c.Items != 1 {
				t.Errorf("claim %s allowed without its posting: %+v, difference %s, want -90.00", id, c, c.Difference())
			}
		}
	}
	if !found {
		t.Fatalf("no vouchers payable row for a claim allowed: %+v", got)
	}
}
