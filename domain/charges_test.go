package domain

import "testing"

func TestCharges(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-OLD"] = Bill{ID: "B-OLD", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-01-05"), Principal: MustMoney("400.00")}
	place := staffCmd(KindCharge, "treasurer", "2026-06-01T10:00")
	place.Payload = &NewCharge{ChargeID: "CH-1", BillID: "B-COLL", What: ChargeCollection, Reference: "Badger Collections LLC", Placed: "B-OLD",
		Items: []ChargeItem{{Description: "Collection agency fee", Amount: MustMoney("60.00")}, {Description: "Attorney's fees", Amount: MustMoney("125.00")}}}
	if _, err := tx.run(t, place); err != nil {
		t.Fatal(err)
	}
	b := tx.bills["B-COLL"]
	if b.Account != "100101" || b.Principal.String() != "185.00" || b.BilledOn != MustDate("2026-06-01") {
		t.Fatalf("collection costs bill = %+v", b)
	}
	cb := staffCmd(KindCharge, "clerk", "2026-06-02T10:00")
	cb.Payload = &NewCharge{ChargeID: "CH-2", BillID: "B-CB", What: ChargeChargeback, Account: "100101", Parcel: "0601-141-2001", Reference: "Engineering invoice 2291",
		Items: []ChargeItem{{Description: "Plan review, 3 hours", Amount: MustMoney("375.00")}}}
	if _, err := tx.run(t, cb); err != nil {
		t.Fatal(err)
	}
	var ch Charge
	tx.Get(CollectionCharges, "CH-2", &ch)
	get := func(id string) (Bill, error) { return tx.bills[id], nil }
	p := DefaultParams()
	// Due July 2; no hold on the due date, a hold the day after.
	if h, _ := PermitHolds([]Charge{ch}, get, MustDate("2026-07-02"), p); len(h) != 0 {
		t.Fatalf("hold on the due date: %+v", h)
	}
	h, err := PermitHolds([]Charge{ch}, get, MustDate("2026-07-03"), p)
	if err != nil || len(h) != 1 || h[0].Since != MustDate("2026-07-03") {
		t.Fatalf("holds = %+v %v", h, err)
	}
	for _, bad := range []NewCharge{
		{ChargeID: "CH-3", BillID: "B-3", What: ChargeNoticeFee, Account: "100101", Parcel: "0601-141-2001", Reference: "", Items: []ChargeItem{{Description: "Notice", Amount: MustMoney("40.00")}}},
		{ChargeID: "CH-3", BillID: "B-3", What: ChargeNoticeFee, Account: "100101", Parcel: "0601-141-2001", Reference: "CUP 26-04", Items: []ChargeItem{{Description: "Notice", Amount: MustMoney("-1.00")}}},
		{ChargeID: "CH-3", BillID: "B-3", What: ChargeCollection, Reference: "Agency", Placed: "B-NONE", Items: []ChargeItem{{Description: "Fee", Amount: MustMoney("1.00")}}},
		{ChargeID: "CH-3", BillID: "B-3", What: "gift", Account: "100101", Parcel: "0601-141-2001", Reference: "x", Items: []ChargeItem{{Description: "Fee", Amount: MustMoney("1.00")}}},
	} {
		c := staffCmd(KindCharge, "clerk", "2026-06-03T10:00")
		c.Payload = &bad
		if _, err := tx.run(t, c); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
