package domain

import (
	"strings"
	"testing"
)

// runAtFormat applies c as staffTx.run does, but as a ledger at format
// reads the rules: the log of an older cluster replayed.
func runAtFormat(tb testing.TB, tx *staffTx, format int, c Command) (Result, error) {
	tb.Helper()
	work := tx.clone()
	res, err := Apply(&staffFormatTx{staffTx: work, format: format}, c, 7, DefaultParams())
	if err == nil {
		*tx = *work
	}
	return res, err
}

// doAt applies p by actor at time at in a ledger at format, failing the
// test if it is refused.
func (v *village) doAt(format int, actor, at string, p Payload) Result {
	v.t.Helper()
	c := staffCmd(p.Kind(), actor, at)
	c.Payload = p
	res, err := runAtFormat(v.t, v.tx, format, c)
	if err != nil {
		v.t.Fatalf("%s by %s at %s (format %d): %v", p.Kind(), actor, at, format, err)
	}
	return res
}

// payClaim pays amount to vendor from line as every payment is made from
// ledger format 5: a claim certified, endorsed and paid by a check run on
// the village's checking account, which it sets up the first time (the
// depository with its number, the check stock, two signatures). It
// returns the claim's id.
func (v *village) payClaim(at, vendor string, amount Money, line string) string {
	v.t.Helper()
	if _, ok, _ := get[Depository](v.reads().r, CollectionDepositories, "CHK"); !ok {
		day := MustDate(at[:10])
		v.do("treas", at, &DepositoryChange{Op: DepositoryDesignate, ID: "CHK", Name: "General checking", Institution: "Bank of Belleville", Resolution: "designation", From: day, Number: "000555000111"})
		v.do("treas", at, &CheckStock{Next: 7001, Account: "CHK"})
		for _, s := range []SignatureChange{
			{Op: "approve", ID: "chk-pres", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion", ApprovedOn: day},
			{Op: "approve", ID: "chk-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion", ApprovedOn: day},
		} {
			v.do("clerk", at, &s)
		}
	}
	id := allowClaim(v, at, vendor, amount, line)
	v.do("treas", at, &CheckRun{On: MustDate(at[:10]), Account: "CHK", Claims: []string{id}, Signatures: []string{"chk-pres", "chk-treas"}})
	return id
}

// TestTreasurerEndorsesEveryClaim (§5.07(3)): from ledger format 5 the
// four certifications make a claim certified, not payable; only the
// treasurer's endorsement makes it payable, and a claim approved under an
// older format on its certifications alone is endorsed before a check
// pays it. Under format 4 the fourth certification still approves and a
// run pays it, as the old log did.
func TestTreasurerEndorsesEveryClaim(t *testing.T) {
	v := payablesVillage(t)
	certify := func(format int, id string) {
		for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, "motion"}, {"admin", CertifyConformity, "seen"}, {"treas", CertifyValid, ""}} {
			v.doAt(format, x.who, "2027-03-02T10:00", &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
		}
	}
	enter := func(format int, invoice string) string {
		return v.doAt(format, "clerk", "2027-03-02T09:00", &ClaimChange{Op: ClaimEnter, Vendor: "Sugar River Asphalt", Invoice: invoice, InvoiceDate: MustDate("2027-03-01"), Amount: MustMoney("100.00"), Line: "100-53300", Description: "Patching"}).Ref
	}

	// Format 4: approved on the certifications, paid by a run with the
	// account named in words.
	old := enter(4, "OLD-1")
	certify(4, old)
	if cl, _ := v.reads().Claim(old); cl.Status != ClaimApproved {
		t.Fatalf("format 4: the fourth certification approves, got %s", cl.Status)
	}
	older := enter(4, "OLD-2")
	certify(4, older)
	v.doAt(4, "treas", "2027-03-03T10:00", &CheckStock{Next: 4001})
	v.doAt(4, "treas", "2027-03-03T10:00", &CheckRun{On: MustDate("2027-03-03"), Account: "General checking", Claims: []string{old}, Signatures: []string{"sig-treas"}})

	// Format 5: the claim approved under format 4 waits for the
	// endorsement; a new claim is certified, then endorsed.
	run := &CheckRun{On: MustDate("2027-03-04"), Account: "BOB", Claims: []string{older}, Signatures: []string{"sig-wells", "sig-treas"}}
	v.refused("treas", "2027-03-04T10:00", run, ECONFLICT, "endorses it before a check pays it")
	v.do("treas", "2027-03-04T10:01", &ClaimChange{Op: ClaimEndorse, ID: older})
	v.do("treas", "2027-03-04T10:02", run)

	fresh := enter(5, "NEW-1")
	v.refused("treas", "2027-03-02T09:30", &ClaimChange{Op: ClaimEndorse, ID: fresh}, ECONFLICT, "lacks the funds, authorized, conformity, valid certification(s)")
	certify(5, fresh)
	if cl, _ := v.reads().Claim(fresh); cl.Status != ClaimCertified {
		t.Fatalf("format 5: four certifications make the claim %s, want certified", cl.Status)
	}
	v.refused("treas", "2027-03-04T11:00", &CheckRun{On: MustDate("2027-03-04"), Account: "BOB", Claims: []string{fresh}, Signatures: []string{"sig-wells", "sig-treas"}}, ECONFLICT, "certified but not endorsed")
	v.refused("admin", "2027-03-04T11:00", &ClaimChange{Op: ClaimEndorse, ID: fresh}, EFORBIDDEN, "Only the Finance Director/Treasurer")
	v.do("treas", "2027-03-04T11:01", &ClaimChange{Op: ClaimEndorse, ID: fresh})
	v.do("treas", "2027-03-04T11:02", &CheckRun{On: MustDate("2027-03-04"), Account: "BOB", Claims: []string{fresh}, Signatures: []string{"sig-wells", "sig-treas"}})
	if cl, _ := v.reads().Claim(fresh); cl.Status != ClaimPaid {
		t.Fatalf("endorsed claim after the run: %s", cl.Status)
	}
	if tb, err := v.reads().TrialBalance(MustDate("2027-12-31")); err != nil || !tb.Balanced() {
		t.Fatalf("the books do not balance: %v", err)
	}
}

// TestOneCheckSequencePerAccount (§5.07(1), §5.07(4)): a refund check is
// drawn on a bank account and numbered from its check stock like the
// claims' checks; a number typed that is not the next one is refused, a
// voided number is never used again, the register lists refund checks
// beside the claims' with whom they pay and what they refund, and a
// refund paid back to the card draws no check.
func TestOneCheckSequencePerAccount(t *testing.T) {
	v := payablesVillage(t)
	a := allowClaim(v, "2027-03-02T10:00", "Sugar River Asphalt", MustMoney("300.00"), "100-53300")
	v.do("treas", "2027-03-03T10:00", &CheckRun{On: MustDate("2027-03-03"), Account: "BOB", Claims: []string{a}, Signatures: []string{"sig-wells", "sig-treas"}})

	// An overpaid bill and its refund, approved.
	v.do("clerk", "2027-03-04T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "snow removal", BilledOn: MustDate("2027-03-04"), Principal: MustMoney("100.00")},
		{ID: "B-G3", Account: "100101", Parcel: "0601-141-2001", Description: "mowing", BilledOn: MustDate("2027-03-04"), Principal: MustMoney("50.00")},
	}})
	v.do("clerk", "2027-03-05T08:00", &DrawerOpen{DrawerID: "D-2", Float: MustMoney("0.00")})
	over := v.do("clerk", "2027-03-05T09:00", &WindowPayment{DrawerID: "D-2", BillID: "B-G2", Amount: MustMoney("130.00"), Tender: Cash, Tendered: MustMoney("130.00")})
	card := v.do("clerk", "2027-03-05T09:05", &WindowPayment{DrawerID: "D-2", BillID: "B-G3", Amount: MustMoney("60.00"), Tender: Cash, Tendered: MustMoney("60.00")})
	v.do("clerk", "2027-03-05T16:00", &DrawerClose{DrawerID: "D-2", CountedCash: MustMoney("190.00")})
	v.do("treas", "2027-03-05T16:30", &Deposit{DepositID: "DEP-2", Depository: "BOB", Drawers: []string{"D-2"}})
	overID, cardID := paymentCommand(t, v, "B-G2", over), paymentCommand(t, v, "B-G3", card)
	v.do("treas", "2027-03-06T09:00", &IssueRefund{Op: "approve", BillID: "B-G2", CommandID: overID})
	v.do("treas", "2027-03-06T09:00", &IssueRefund{Op: "approve", BillID: "B-G3", CommandID: cardID})

	refund := func(number string, sigs ...string) *IssueRefund {
		return &IssueRefund{Op: "check", BillID: "B-G2", CommandID: overID, CheckNumber: number, Account: "BOB", Payee: "Ana Gutierrez", Signatures: sigs}
	}
	// The auditor's case: a number the claims' run already used.
	v.refused("clerk", "2027-03-06T10:00", refund("5001", "sig-wells", "sig-treas"), ECONFLICT, "is number 5002, not 5001")
	v.refused("clerk", "2027-03-06T10:00", &IssueRefund{Op: "check", BillID: "B-G2", CommandID: overID, Payee: "Ana Gutierrez", Signatures: []string{"sig-wells", "sig-treas"}}, EINVALID, "Name the bank account")
	v.refused("clerk", "2027-03-06T10:00", refund("", "sig-treas"), EFORBIDDEN, "Held:")
	v.do("clerk", "2027-03-06T10:00", refund("", "sig-wells", "sig-treas"))
	st, _, _ := v.reads().RefundState(overID)
	if st.State != RefundPaid || st.CheckNumber != "5002" {
		t.Fatalf("refund state %+v, want paid by check 5002", st)
	}
	// Voided, the refund is owed again and its new check takes a new
	// number; 5002 is never drawn again.
	v.do("treas", "2027-03-07T10:00", &CheckVoid{Number: 5002, Reason: "payee moved"})
	if st, _, _ := v.reads().RefundState(overID); st.State != RefundApproved {
		t.Fatalf("after the void: %+v", st)
	}
	v.refused("clerk", "2027-03-08T10:00", refund("5002", "sig-wells", "sig-treas"), ECONFLICT, "is number 5003, not 5002")
	v.do("clerk", "2027-03-08T10:00", refund("5003", "sig-wells", "sig-treas"))
	// A refund back to the card draws no check.
	v.do("clerk", "2027-03-08T11:00", &IssueRefund{Op: "check", BillID: "B-G3", CommandID: cardID, CheckNumber: "card re_123"})

	b := allowClaim(v, "2027-03-09T10:00", "Badger Meter", MustMoney("40.00"), "WU-53700")
	v.do("treas", "2027-03-09T11:00", &CheckRun{On: MustDate("2027-03-09"), Account: "BOB", Claims: []string{b}, Signatures: []string{"sig-wells", "sig-treas"}})
	reg, err := v.reads().CheckRegister("2027-03")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, c := range reg {
		row := CheckID(c.Number) + " " + c.Account + " " + c.Payee
		if c.Refund != "" {
			row += " refund " + c.Bill
		}
		if c.Void != nil {
			row += " void"
		}
		rows = append(rows, row)
	}
	want := "00005001 BOB Sugar River Asphalt|00005002 BOB Ana Gutierrez refund B-G2 void|00005003 BOB Ana Gutierrez refund B-G2|00005004 BOB Badger Meter"
	if got := strings.Join(rows, "|"); got != want {
		t.Fatalf("register:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(reg[2].Purpose, "refund of the overpayment on bill B-G2") || !reg[2].Amount.Equal(MustMoney("30.00")) {
		t.Fatalf("refund check %+v", reg[2])
	}
	if tb, err := v.reads().TrialBalance(MustDate("2027-12-31")); err != nil || !tb.Balanced() {
		t.Fatalf("the books do not balance: %v", err)
	}
}

// paymentCommand returns the command id of the payment res posted on bill.
func paymentCommand(t *testing.T, v *village, bill string, _ Result) string {
	t.Helper()
	b, ok, err := loadBill(v.tx, bill, true)
	if err != nil || !ok || len(b.Payments) == 0 {
		t.Fatalf("bill %s: %v", bill, err)
	}
	return b.Payments[len(b.Payments)-1].CommandID
}

// TestChecksCarryTwoSignatures (§5.18): from ledger format 5 a run whose
// checks would carry one signature, or two without the treasurer's, is
// held whatever the amount, and nothing is numbered; a format 4 log
// replays its one-signature run.
func TestChecksCarryTwoSignatures(t *testing.T) {
	v := payablesVillage(t)
	v.do("clerk", "2027-03-01T09:00", &SignatureChange{Op: "approve", ID: "sig-clerk", Official: "Cleo Clerk", Office: "clerk", Form: "digital", Approval: "motion 2027-02-28 #2", ApprovedOn: MustDate("2027-02-28")})
	big := allowClaim(v, "2027-03-02T10:00", "Sugar River Asphalt", MustMoney("36900.00"), "100-53300")
	small := allowClaim(v, "2027-03-02T10:00", "Ace Hardware", MustMoney("12.00"), "100-53300")
	for _, row := range []struct {
		name string
		sigs []string
	}{{"one signature", []string{"sig-treas"}}, {"two without the treasurer", []string{"sig-wells", "sig-clerk"}}} {
		for _, cl := range []string{big, small} {
			t.Run("§5.18/"+row.name+"/"+cl, func(t *testing.T) {
				v.refused("treas", "2027-03-03T10:00", &CheckRun{On: MustDate("2027-03-03"), Account: "BOB", Claims: []string{cl}, Signatures: row.sigs}, EFORBIDDEN, "Held: the checks of this run may not be printed or released")
			})
		}
	}
	res := v.do("treas", "2027-03-03T10:05", &CheckRun{On: MustDate("2027-03-03"), Account: "BOB", Claims: []string{big}, Signatures: []string{"sig-clerk", "sig-treas"}})
	if run, _ := v.reads().CheckRun(res.Ref); len(run.Checks) != 1 || run.Checks[0] != 5001 {
		t.Fatalf("the held runs took numbers: %+v", run)
	}

	// Format 4: one signature was enough.
	v.doAt(4, "treas", "2027-03-03T10:06", &CheckStock{Next: 6001})
	v.doAt(4, "treas", "2027-03-03T10:06", &CheckRun{On: MustDate("2027-03-03"), Account: "General checking", Claims: []string{small}, Signatures: []string{"sig-treas"}})
}

// TestExpenseIsNoPayment (§5.07(3)): from ledger format 5 an expense
// that pays money out on its own, or against an order or a claim, is
// refused and pointed to the claim flow; the payroll of an employment
// stays; under format 4 an expense on its own is charged as before. The
// ledger reads the rules of format 5 here: from format 6 the kind is
// refused whole (payrollclaim_test.go).
func TestExpenseIsNoPayment(t *testing.T) {
	v := payablesVillage(t)
	v.tx.format = BooksFormat
	own := &Expense{Line: "100-53300", On: MustDate("2027-03-02"), Amount: MustMoney("250.00"), Payee: "Sugar River Asphalt", Description: "Patching"}
	v.refused("treas", "2027-03-02T10:00", own, EINVALID, "Enter it as a claim: every payment goes through the claim audit of §5.07(3)")
	cl := allowClaim(v, "2027-03-02T10:00", "Sugar River Asphalt", MustMoney("250.00"), "100-53300")
	against := *own
	against.Against = cl
	v.refused("treas", "2027-03-02T10:00", &against, EINVALID, "Enter it as a claim")

	emp := v.do("admin", "2027-03-03T09:00", &Employment{Line: "100-51400", Person: "Lee Park", Position: "Seasonal clerk", Amount: MustMoney("3000.00"), From: MustDate("2027-03-01"), Approval: "motion 2027-03-01 #4", ApprovedOn: MustDate("2027-03-01")}).Ref
	v.do("treas", "2027-03-31T09:00", &Expense{Line: "100-51400", On: MustDate("2027-03-31"), Amount: MustMoney("1000.00"), Payee: "Lee Park", Description: "March payroll", Against: emp})

	before := v.appropriation(2027, "100-53300").Expended
	v.doAt(4, "treas", "2027-03-02T10:00", own)
	if got := v.appropriation(2027, "100-53300").Expended.Sub(before); !got.Equal(MustMoney("250.00")) {
		t.Fatalf("format 4 expense charged %s", got)
	}
}
