package domain

import (
	"strings"
	"testing"
)

// The payroll of an employment is a claim from ledger format 6 (§5.07(3),
// §5.07(4), §5.16): entered naming the employment, certified, endorsed by
// the treasurer, paid by a check on the register.

// payrollEmployee records the board's employment of Lee Park against the
// administration line, $3,000.00 for the year, and returns its id.
func payrollEmployee(v *village) string {
	v.t.Helper()
	return v.do("admin", "2027-03-01T09:00", &Employment{Line: "100-51400", Person: "Lee Park", Position: "Seasonal clerk", Amount: MustMoney("3000.00"),
		From: MustDate("2027-03-01"), Approval: "motion 2027-02-28 #4", ApprovedOn: MustDate("2027-02-28")}).Ref
}

// payrollClaim enters a payroll claim of amount against employment emp on
// line, at at, and returns its id.
func payrollClaim(v *village, at, emp, line, amount, period string) string {
	v.t.Helper()
	return v.do("clerk", at, &ClaimChange{Op: ClaimEnter, Vendor: "Lee Park", Invoice: "payroll " + period, InvoiceDate: MustDate(at[:10]), Amount: MustMoney(amount),
		Line: line, Employment: emp, Description: "wages of " + period}).Ref
}

// certifyPayroll gives a payroll claim its four certifications, the
// authorization on the board's approval of the employment.
func certifyPayroll(v *village, at, id string) {
	v.t.Helper()
	for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, ""}, {"admin", CertifyConformity, "timesheets signed"}, {"treas", CertifyValid, ""}} {
		v.do(x.who, at, &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
	}
}

func payrollRun(on string, claims ...string) *CheckRun {
	return &CheckRun{On: MustDate(on), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}}
}

// TestPayrollIsAClaim (§5.07(3), §5.07(4), §5.16): the payroll of an
// employment is entered as a claim naming it, certified and endorsed like
// any claim; the endorsement charges the employment (expenditure against
// vouchers payable, the employment's encumbrance released by what it
// liquidated, the appropriation expended), and a check on the register
// pays it out of cash without charging it again. Beyond the employment's
// encumbrance the claim is expenditure from what is available; a void
// makes it owed again, still spent; a cancellation after the allowance
// gives the charge and the encumbrance back. The books' encumbrances are
// always the appropriation's.
func TestPayrollIsAClaim(t *testing.T) {
	v := payablesVillage(t)
	emp := payrollEmployee(v)
	tied := func(on string) map[string]Money {
		t.Helper()
		b := balances(t, v.tx, on)
		a := v.appropriation(2027, "100-51400")
		if !b["100-191"].Equal(a.Encumbered) || !b["100-342"].Equal(a.Encumbered) || !b["100-51400"].Equal(a.Expended) {
			t.Fatalf("on %s the books encumber %s and spent %s; the appropriation %s and %s", on, b["100-191"], b["100-51400"], a.Encumbered, a.Expended)
		}
		return b
	}
	employment := func() Employment {
		t.Helper()
		var e Employment
		if ok, err := v.tx.Get(CollectionEmployment, emp, &e); err != nil || !ok {
			t.Fatalf("employment %s: %v", emp, err)
		}
		return e
	}
	wantBooks(t, tied("2027-03-01"), map[string]string{"100-191": "3000.00", "100-111": "800.00"})

	id := payrollClaim(v, "2027-03-31T09:00", emp, "100-51400", "600.00", "March")
	certifyPayroll(v, "2027-03-31T10:00", id)
	cl, _ := v.reads().Claim(id)
	if cl.Status != ClaimCertified || cl.Employment != emp || !cl.Held.IsZero() {
		t.Fatalf("the certified payroll claim: %+v", cl)
	}
	if got := cl.Certifications[0].Basis; !strings.Contains(got, "employment "+emp+" holds $3,000.00") {
		t.Errorf("the funds certification's basis: %q", got)
	}
	if got := cl.Certifications[1].Basis; !strings.Contains(got, "motion 2027-02-28 #4") {
		t.Errorf("the authorization's basis: %q", got)
	}
	// Certified, nothing is charged yet: the employment still holds it.
	wantBooks(t, tied("2027-03-31"), map[string]string{"100-191": "3000.00", "100-51400": "0.00", "100-211": "0.00"})

	v.do("treas", "2027-03-31T11:00", &ClaimChange{Op: ClaimEndorse, ID: id})
	wantBooks(t, tied("2027-03-31"), map[string]string{"100-51400": "600.00", "100-211": "600.00", "100-191": "2400.00", "100-342": "2400.00", "100-111": "800.00"})
	if e := employment(); !e.Charged.Equal(MustMoney("600.00")) {
		t.Fatalf("the employment charged %s, want 600.00", e.Charged)
	}
	if cl, _ = v.reads().Claim(id); cl.Status != ClaimApproved || cl.Expense == "" {
		t.Fatalf("the endorsed payroll claim: %+v", cl)
	}

	v.do("treas", "2027-04-01T10:00", payrollRun("2027-04-01", id))
	wantBooks(t, tied("2027-04-01"), map[string]string{"100-51400": "600.00", "100-211": "0.00", "100-111": "200.00", "100-191": "2400.00"})
	if a := v.appropriation(2027, "100-51400"); !a.Expended.Equal(MustMoney("600.00")) {
		t.Fatalf("the check charged the payroll again: expended %s", a.Expended)
	}
	reg, err := v.reads().CheckRegister("2027-04")
	if err != nil || len(reg) != 1 {
		t.Fatalf("the register of April: %+v, %v", reg, err)
	}
	if ck := reg[0]; ck.Number != 5001 || ck.Payee != "Lee Park" || ck.Claim != id || ck.Line != "100-51400" || !ck.Amount.Equal(MustMoney("600.00")) || len(ck.Signatures) != 2 {
		t.Fatalf("the payroll check on the register: %+v", ck)
	}

	// Voided, the check is owed again and the payroll still spent; the
	// new check pays it without charging it twice.
	v.do("treas", "2027-04-02T09:00", &CheckVoid{Number: 5001, Reason: "misprinted"})
	wantBooks(t, tied("2027-04-02"), map[string]string{"100-51400": "600.00", "100-211": "600.00", "100-111": "800.00", "100-191": "2400.00"})
	if e := employment(); !e.Charged.Equal(MustMoney("600.00")) {
		t.Fatalf("the void changed the employment's charge: %s", e.Charged)
	}
	v.do("treas", "2027-04-02T10:00", payrollRun("2027-04-02", id))
	wantBooks(t, tied("2027-04-02"), map[string]string{"100-51400": "600.00", "100-211": "0.00", "100-111": "200.00"})

	// A claim beyond what the employment still holds: its $2,400.00
	// liquidated, the other $100.00 spent from what is available.
	over := payrollClaim(v, "2027-04-30T09:00", emp, "100-51400", "2500.00", "April")
	certifyPayroll(v, "2027-04-30T10:00", over)
	if cl, _ := v.reads().Claim(over); !strings.Contains(cl.Certifications[0].Basis, "$100.00 beyond it") {
		t.Errorf("the funds basis of a claim beyond the encumbrance: %q", cl.Certifications[0].Basis)
	}
	available := v.appropriation(2027, "100-51400").Available()
	v.do("treas", "2027-04-30T11:00", &ClaimChange{Op: ClaimEndorse, ID: over})
	wantBooks(t, tied("2027-04-30"), map[string]string{"100-51400": "3100.00", "100-211": "2500.00", "100-191": "0.00", "100-342": "0.00"})
	if got := available.Sub(v.appropriation(2027, "100-51400").Available()); !got.Equal(MustMoney("100.00")) {
		t.Fatalf("the claim beyond the encumbrance took %s of what was available, want 100.00", got)
	}

	// Cancelled after its allowance, unpaid: no longer owed nor spent,
	// and the employment holds its cost again.
	v.do("clerk", "2027-05-02T09:00", &ClaimChange{Op: ClaimCancel, ID: over, Reason: "entered for the wrong month"})
	wantBooks(t, tied("2027-05-02"), map[string]string{"100-51400": "600.00", "100-211": "0.00", "100-191": "2400.00", "100-342": "2400.00"})
	if e := employment(); !e.Charged.Equal(MustMoney("600.00")) {
		t.Fatalf("the cancelled claim left the employment charged %s", e.Charged)
	}
	if !v.appropriation(2027, "100-51400").Available().Equal(available) {
		t.Fatalf("the cancellation left %s available, want %s", v.appropriation(2027, "100-51400").Available(), available)
	}
}

// TestPayrollClaimBeyondTheAppropriation (§5.05, §5.07(3)(a)): what a
// payroll claim asks beyond its employment's encumbrance must be
// available in the appropriation, or its funds certification is refused
// and nothing changes.
func TestPayrollClaimBeyondTheAppropriation(t *testing.T) {
	v := payablesVillage(t)
	// The water line's $60,000.00: $59,500.00 held by the employment.
	emp := v.do("admin", "2027-03-01T09:00", &Employment{Line: "WU-53700", Person: "Ray Operator", Position: "Water operator", Amount: MustMoney("59500.00"),
		From: MustDate("2027-03-01"), Approval: "motion 2027-02-28 #5", ApprovedOn: MustDate("2027-02-28")}).Ref
	id := v.do("clerk", "2027-03-31T09:00", &ClaimChange{Op: ClaimEnter, Vendor: "Ray Operator", Invoice: "payroll 2027", InvoiceDate: MustDate("2027-03-31"), Amount: MustMoney("60000.01"),
		Line: "WU-53700", Employment: emp, Description: "wages"}).Ref
	v.refused("treas", "2027-03-31T10:00", &ClaimChange{Op: ClaimCertify, ID: id, Certification: CertifyFundsAvailable}, ECONFLICT,
		"has $500.00 available, less than the $500.01 the claim asks beyond it")
}

// TestPayrollClaimRefused (§5.16, §5.07(3)): a claim names an employment
// of its own line, one the board approved and that was not cancelled,
// never with an order too, and only from ledger format 6; each wrong one
// is refused and changes nothing.
func TestPayrollClaimRefused(t *testing.T) {
	v := payablesVillage(t)
	emp := payrollEmployee(v)
	gone := v.do("admin", "2027-03-01T09:05", &Employment{Line: "100-51400", Person: "Sam Seasonal", Position: "Seasonal clerk", Amount: MustMoney("500.00"),
		From: MustDate("2027-03-01"), Approval: "motion 2027-02-28 #4", ApprovedOn: MustDate("2027-02-28")}).Ref
	var e Employment
	if _, err := v.tx.Get(CollectionEmployment, gone, &e); err != nil {
		t.Fatal(err)
	}
	// No command cancels an employment yet; the record says it.
	e.Cancelled = true
	if err := v.tx.Put(CollectionEmployment, gone, e); err != nil {
		t.Fatal(err)
	}
	claim := func(line, employment, order string) *ClaimChange {
		return &ClaimChange{Op: ClaimEnter, Vendor: "Lee Park", Invoice: "payroll March", InvoiceDate: MustDate("2027-03-31"), Amount: MustMoney("600.00"),
			Line: line, Employment: employment, Order: order, Description: "wages of March"}
	}
	for _, row := range []struct {
		section, name string
		format        int
		p             *ClaimChange
		code          Code
		want          string
	}{
		{"§5.16", "another line's employment", 0, claim("100-53300", emp, ""), EINVALID, "Employment " + emp + " is drawn against 100-51400, not 100-53300"},
		{"§5.16", "a cancelled employment", 0, claim("100-51400", gone, ""), ECONFLICT, "Employment " + gone + " was cancelled"},
		{"§5.16", "an unknown employment", 0, claim("100-51400", "EMP-2027-099", ""), ENOTFOUND, `There is no employment "EMP-2027-099"`},
		{"§5.07(3)", "an order and an employment", 0, claim("100-51400", emp, "PO-2027-0001"), EINVALID, "not both"},
		{"§5.07(3)", "before ledger format 6", BooksFormat, claim("100-51400", emp, ""), EINVALID, "only from ledger format 6"},
	} {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			v.tx.format = row.format
			defer func() { v.tx.format = 0 }()
			v.refused("clerk", "2027-03-31T09:00", row.p, row.code, row.want)
		})
	}

	// An employment cancelled after its claim was entered: the claim is
	// neither certified nor endorsed against it.
	id := payrollClaim(v, "2027-03-31T09:00", emp, "100-51400", "600.00", "March")
	var open Employment
	if _, err := v.tx.Get(CollectionEmployment, emp, &open); err != nil {
		t.Fatal(err)
	}
	open.Cancelled = true
	if err := v.tx.Put(CollectionEmployment, emp, open); err != nil {
		t.Fatal(err)
	}
	v.refused("treas", "2027-03-31T10:00", &ClaimChange{Op: ClaimCertify, ID: id, Certification: CertifyFundsAvailable}, ECONFLICT, "was cancelled")
}

// TestPayrollExpenseRefusedFromFormat6 (§5.07(3)): from ledger format 6
// the `expense` kind is refused whatever it is against, the message
// naming the claim to enter instead, and nothing changes; a ledger at
// format 5 still charges the payroll expense and pays it out of cash.
func TestPayrollExpenseRefusedFromFormat6(t *testing.T) {
	v := payablesVillage(t)
	emp := payrollEmployee(v)
	payroll := &Expense{Line: "100-51400", On: MustDate("2027-03-31"), Amount: MustMoney("600.00"), Payee: "Lee Park", Description: "March payroll", Against: emp}
	v.refused("treas", "2027-03-31T09:00", payroll, EINVALID, "enter the payroll as a claim naming the employment (EMP-…)")
	v.refused("treas", "2027-03-31T09:00", &Expense{Line: "100-53300", On: MustDate("2027-03-31"), Amount: MustMoney("60.00"), Payee: "Ace Hardware", Description: "Nails"}, EINVALID, "enter the payroll as a claim")

	v.doAt(BooksFormat, "treas", "2027-03-31T09:00", payroll)
	var e Employment
	if _, err := v.tx.Get(CollectionEmployment, emp, &e); err != nil || !e.Charged.Equal(MustMoney("600.00")) {
		t.Fatalf("format 5: the payroll expense charged the employment %s (%v)", e.Charged, err)
	}
	wantBooks(t, balances(t, v.tx, "2027-03-31"), map[string]string{"100-51400": "600.00", "100-111": "200.00", "100-211": "0.00", "100-191": "2400.00"})
	if reg, _ := v.reads().CheckRegister("2027-03"); len(reg) != 0 {
		t.Fatalf("format 5: the payroll expense drew a check: %+v", reg)
	}
}
