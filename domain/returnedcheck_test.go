package domain

import "testing"

// TestReturnedCheck: a check pays a bill in full; it comes back two months
// later. The payment is reversed, the bill owes interest as if never paid,
// and the returned_check fee in force is billed to the same account.
func TestReturnedCheck(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("100.00")}
	open := staffCmd(KindDrawerOpen, "clerk", "2026-06-10T08:00")
	open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")}
	pay := staffCmd(KindWindowPayment, "clerk", "2026-06-10T09:00")
	pay.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("110.00"), Tender: Check, Reference: "2001"}
	for _, c := range []Command{open, pay} {
		if _, err := tx.run(t, c); err != nil {
			t.Fatal(err)
		}
	}
	receipt := pay.ReceiptNumber()
	approve := staffCmd(KindIssueRefund, "treasurer", "2026-06-11T09:00")
	approve.Payload = &IssueRefund{Op: "approve", BillID: "B-1", CommandID: pay.ID}
	if _, err := tx.run(t, approve); err != nil {
		t.Fatal(err)
	}
	ret := staffCmd(KindReturnCheck, "treasurer", "2026-08-20T10:00")
	ret.Payload = &ReturnCheck{ReturnID: "RC-1", BillID: "B-1", Receipt: receipt, FeeBillID: "B-FEE-1", Referral: "Referred to the district attorney"}
	if _, err := tx.run(t, ret); err != nil {
		t.Fatal(err)
	}
	b := tx.bills["B-1"]
	if len(b.Payments) != 0 {
		t.Fatalf("payment not reversed: %+v", b.Payments)
	}
	// Due 2026-07-01; months start Jul 2 and Aug 2: 2 × 1.50 as of Aug 20.
	fig, err := b.Figures(MustDate("2026-08-20"), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if fig.Interest.String() != "3.00" || fig.Balance.String() != "103.00" {
		t.Fatalf("after the return: interest %s balance %s", fig.Interest, fig.Balance)
	}
	fee := tx.bills["B-FEE-1"]
	wantFee := DefaultParams().At(MustDate("2026-08-20")).ReturnedCheckFee
	if !fee.Principal.Equal(wantFee) || fee.Account != "100101" || fee.BilledOn != MustDate("2026-08-20") {
		t.Fatalf("fee bill = %+v, want %s", fee, wantFee)
	}
	var rec ReturnedCheckRecord
	tx.Get(CollectionReturnedChecks, "RC-1", &rec)
	if !rec.Owed.Equal(MustMoney("110.00").Add(wantFee)) || rec.Payment.Reference != "2001" || rec.Referral == "" {
		t.Fatalf("record = %+v", rec)
	}
	var st RefundState
	tx.Get(CollectionRefundStates, pay.ID, &st)
	if st.State != RefundCancelled {
		t.Fatalf("the refund of the bad check's overpayment is %q, want cancelled", st.State)
	}
	again := staffCmd(KindReturnCheck, "treasurer", "2026-08-21T10:00")
	again.Payload = &ReturnCheck{ReturnID: "RC-2", BillID: "B-1", Receipt: receipt, FeeBillID: "B-FEE-2"}
	if _, err := tx.run(t, again); ErrorCode(err) != ENOTFOUND {
		t.Fatalf("returning the same check twice: %v", err)
	}
}

func TestRefundIssue(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("100.00")}
	open := staffCmd(KindDrawerOpen, "clerk", "2026-06-10T08:00")
	open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")}
	pay := staffCmd(KindWindowPayment, "clerk", "2026-06-10T09:00")
	pay.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("125.00"), Tender: Cash, Tendered: MustMoney("125.00")}
	for _, c := range []Command{open, pay} {
		if _, err := tx.run(t, c); err != nil {
			t.Fatal(err)
		}
	}
	check := staffCmd(KindIssueRefund, "clerk", "2026-06-12T09:00")
	check.Payload = &IssueRefund{Op: "check", BillID: "B-1", CommandID: pay.ID, CheckNumber: "5001"}
	if _, err := tx.run(t, check); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a check before approval: %v", err)
	}
	approve := staffCmd(KindIssueRefund, "treasurer", "2026-06-11T09:00")
	approve.Payload = &IssueRefund{Op: "approve", BillID: "B-1", CommandID: pay.ID}
	if _, err := tx.run(t, approve); err != nil {
		t.Fatal(err)
	}
	check.ID += "-2"
	if _, err := tx.run(t, check); err != nil {
		t.Fatal(err)
	}
	var st RefundState
	tx.Get(CollectionRefundStates, pay.ID, &st)
	if st.State != RefundPaid || st.Amount.String() != "25.00" || st.CheckNumber != "5001" || st.ApprovedBy != "treasurer" {
		t.Fatalf("refund = %+v", st)
	}
	none := staffCmd(KindIssueRefund, "treasurer", "2026-06-11T09:00")
	none.Payload = &IssueRefund{Op: "approve", BillID: "B-1", CommandID: open.ID}
	if _, err := tx.run(t, none); ErrorCode(err) != ENOTFOUND {
		t.Fatalf("approving what is not an overpayment: %v", err)
	}
}
