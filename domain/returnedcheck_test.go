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
	b := tx.bill(t, "B-1")
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
	// Before ledger format 5 the check's number is the one the clerk
	// typed (TestRefundChecksShareTheStock for format 5).
	check.ID += "-2"
	if _, err := runAtFormat(t, tx, 4, check); err != nil {
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

// TestReturnedCheckLeavesTheDrawer (§5.20): a check that
// comes back the same day, before the drawer closes, is no longer expected
// in it, and the count is over or short tender by tender: the cashier 0.90
// short in cash is 0.90 short, not 153.15 (the check counted as missing).
// A drawer closed before the return keeps its count; its deposit slip
// leaves the check out.
func TestReturnedCheckLeavesTheDrawer(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("152.25")}
	tx.bills["B-2"] = Bill{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("40.00")}
	open := staffCmd(KindDrawerOpen, "clerk", "2026-06-10T08:00")
	open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("100.00")}
	cash := staffCmd(KindWindowPayment, "clerk", "2026-06-10T08:30")
	cash.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-2", Amount: MustMoney("40.00"), Tender: Cash, Tendered: MustMoney("40.00")}
	check := staffCmd(KindWindowPayment, "clerk", "2026-06-10T09:00")
	check.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("152.25"), Tender: Check, Reference: "2001"}
	ret := staffCmd(KindReturnCheck, "treasurer", "2026-06-10T14:00")
	ret.Payload = &ReturnCheck{ReturnID: "RC-1", BillID: "B-1", Receipt: check.ReceiptNumber(), FeeBillID: "B-FEE-1"}
	closeC := staffCmd(KindDrawerClose, "clerk", "2026-06-10T16:00")
	closeC.Payload = &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("139.10")}
	for _, c := range []Command{open, cash, check, ret, closeC} {
		mustRun(t, tx, c)
	}
	var d Drawer
	tx.Get(CollectionDrawers, "D-1", &d)
	got := [5]string{d.ExpectedCash.String(), d.ExpectedChecks.String(), d.CashOverShort.String(), d.ChecksOverShort.String(), d.OverShort.String()}
	if want := [5]string{"140.00", "0.00", "-0.90", "0.00", "-0.90"}; got != want {
		t.Fatalf("expected cash, checks, cash over/short, checks over/short, total = %v, want %v", got, want)
	}
	if p := d.Payments[1]; p.ReturnID != "RC-1" || p.ReturnedOn.String() != "2026-06-10" {
		t.Fatalf("the check's line %+v", p)
	}

	// Returned after the close: the count stands, the slip leaves it out.
	tx.bills["B-3"] = Bill{ID: "B-3", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("60.00")}
	open2 := staffCmd(KindDrawerOpen, "clerk", "2026-06-11T08:00")
	open2.Payload = &DrawerOpen{DrawerID: "D-2", Float: MustMoney("0.00")}
	check2 := staffCmd(KindWindowPayment, "clerk", "2026-06-11T09:00")
	check2.Payload = &WindowPayment{DrawerID: "D-2", BillID: "B-3", Amount: MustMoney("60.00"), Tender: Check, Reference: "77"}
	close2 := staffCmd(KindDrawerClose, "clerk", "2026-06-11T16:00")
	close2.Payload = &DrawerClose{DrawerID: "D-2", CountedChecks: MustMoney("60.00"), CheckCount: 1}
	ret2 := staffCmd(KindReturnCheck, "treasurer", "2026-06-11T16:10")
	ret2.Payload = &ReturnCheck{ReturnID: "RC-2", BillID: "B-3", Receipt: check2.ReceiptNumber(), FeeBillID: "B-FEE-2"}
	for _, c := range []Command{open2, check2, close2, ret2} {
		mustRun(t, tx, c)
	}
	tx.Get(CollectionDrawers, "D-2", &d)
	if !d.OverShort.IsZero() || d.ExpectedChecks.String() != "60.00" || !d.Payments[0].Returned() {
		t.Fatalf("drawer closed before the return: %+v", d)
	}
	mustRun(t, tx, depositoryCmd("2026-06-11T16:20", DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")}))
	dep := staffCmd(KindDeposit, "treasurer", "2026-06-11T16:30")
	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1", "D-2"}}
	mustRun(t, tx, dep)
	var slip DepositSlip
	tx.Get(CollectionDeposits, "DEP-1", &slip)
	if len(slip.Checks) != 0 || slip.Total.String() != "39.10" {
		t.Fatalf("deposit slip: %d checks, total %s; want none and 39.10 (cash less the float)", len(slip.Checks), slip.Total)
	}
}

// TestQuoteWindowPayment (§5.10, §5.07(1)): $100 cash
// typed as the amount on an $82.37 balance is 82.37 paid and 17.63 in
// change, not a refund due; a $150 check on $133.17 leaves 16.83 to refund
// by the 15th business day; an exact payment needs no confirmation.
func TestQuoteWindowPayment(t *testing.T) {
	p := DefaultParams()
	at := mustDT("2026-06-10T09:00")
	b := Bill{ID: "B-1", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("82.37")}
	c := Bill{ID: "B-2", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("133.17")}
	rows := []struct {
		name             string
		bill             Bill
		tender           Tender
		amount, tendered string
		want             [4]string // amount, tendered, change, overpayment
		refundBy         string
		confirm          bool
	}{
		{"cash typed over the balance", b, Cash, "100.00", "100.00", [4]string{"82.37", "100.00", "17.63", "0.00"}, "", true},
		{"cash with change", b, Cash, "82.37", "100.00", [4]string{"82.37", "100.00", "17.63", "0.00"}, "", true},
		{"exact cash", b, Cash, "82.37", "82.37", [4]string{"82.37", "82.37", "0.00", "0.00"}, "", false},
		{"short cash, left to posting", b, Cash, "82.37", "50.00", [4]string{"82.37", "50.00", "0.00", "0.00"}, "", false},
		{"check over the balance", c, Check, "150.00", "", [4]string{"150.00", "150.00", "0.00", "16.83"}, "2026-07-01", true},
		{"exact check", c, Check, "133.17", "", [4]string{"133.17", "133.17", "0.00", "0.00"}, "", false},
	}
	for _, r := range rows {
		t.Run("§5.10/"+r.name, func(t *testing.T) {
			tendered := Cents(0)
			if r.tendered != "" {
				tendered = MustMoney(r.tendered)
			}
			q, err := r.bill.QuoteWindowPayment(at, r.tender, MustMoney(r.amount), tendered, p)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{q.Amount.String(), q.Tendered.String(), q.Change.String(), q.Overpayment.String()}
			refundBy := ""
			if !q.RefundBy.IsZero() {
				refundBy = q.RefundBy.String()
			}
			if got != r.want || refundBy != r.refundBy || q.NeedsConfirm() != r.confirm {
				t.Errorf("quote %v refund by %q confirm %v, want %v %q %v", got, refundBy, q.NeedsConfirm(), r.want, r.refundBy, r.confirm)
			}
		})
	}
	paid := b
	paid.Payments = []BillPayment{{At: at, Amount: MustMoney("82.37"), Tender: Card}}
	if _, err := paid.QuoteWindowPayment(at, Cash, MustMoney("10.00"), MustMoney("10.00"), p); ErrorCode(err) != ECONFLICT {
		t.Errorf("cash on a paid bill: %v", err)
	}
}

// TestReturnedCheckOwed (§5.20): what the notice says is
// owed is the bill's balance with its interest as though never paid, plus
// the fee bill: one figure with the interest in it, never "plus the
// interest" on top of a figure that holds it.
func TestReturnedCheckOwed(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("150.00")}
	open := staffCmd(KindDrawerOpen, "clerk", "2026-06-10T08:00")
	open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")}
	// June 10: 150.00 and three months of 2.25 interest.
	pay := staffCmd(KindWindowPayment, "clerk", "2026-06-10T09:00")
	pay.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("156.75"), Tender: Check, Reference: "2001"}
	ret := staffCmd(KindReturnCheck, "treasurer", "2026-06-20T10:00")
	ret.Payload = &ReturnCheck{ReturnID: "RC-1", BillID: "B-1", Receipt: pay.ReceiptNumber(), FeeBillID: "B-FEE-1"}
	for _, c := range []Command{open, pay, ret} {
		mustRun(t, tx, c)
	}
	var rec ReturnedCheckRecord
	tx.Get(CollectionReturnedChecks, "RC-1", &rec)
	fee := tx.bills["B-FEE-1"]
	bal, total, err := ReturnedCheckOwed(tx.bill(t, "B-1"), &fee, MustDate("2026-06-20"), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if bal.String() != "156.75" || !total.Equal(bal.Add(rec.Fee)) || !total.Equal(rec.Owed) {
		t.Fatalf("on the day: bill %s, total %s; record owed %s, fee %s", bal, total, rec.Owed, rec.Fee)
	}
	// July 2: the fourth month's interest; the notice's figure holds it.
	bal, total, _ = ReturnedCheckOwed(tx.bill(t, "B-1"), &fee, MustDate("2026-07-02"), DefaultParams())
	if bal.String() != "159.00" || !total.Equal(bal.Add(rec.Fee)) {
		t.Fatalf("July 2: bill %s, total %s", bal, total)
	}
}
