package domain

import (
	"strings"
	"testing"
)

// TestClaimsAndCheckRuns: a claim is paid only after its four
// certifications, each by whom the rule allows; a check run numbers its
// checks from the stock, charges the appropriation and records the
// signatures used; a withdrawn signature is refused; a void reopens the
// claim and gives its charge back; the board reviews the month.
func TestClaimsAndCheckRuns(t *testing.T) {
	v := adopted2027(t)
	m := MustMoney

	v.do("treas", "2027-01-04T09:00", &APPolicyChange{Text: "Claims are paid twice a month after the four certifications.", AdoptedBy: "motion 2027-01-03 #2", ReviewedOn: MustDate("2027-01-03")})
	v.refused("treas", "2027-01-04T09:00", &APPolicyChange{Text: "x", AdoptedBy: "m", ReviewedOn: MustDate("2026-12-01")}, EINVALID, "cannot be dated before")
	pol, ok, _ := v.reads().APPolicy()
	if !ok || pol.Version != 1 || pol.ReviewDue != MustDate("2028-01-03") {
		t.Fatalf("policy %+v", pol)
	}
	for _, s := range []SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2027-01-03 #5", ApprovedOn: MustDate("2027-01-03")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2027-01-03 #5", ApprovedOn: MustDate("2027-01-03")},
	} {
		v.do("clerk", "2027-01-04T09:05", &s)
	}
	v.refused("clerk", "2027-01-04T09:06", &SignatureChange{Op: "approve", ID: "sig-x", Official: "A Trustee", Office: "trustee", Form: "facsimile", Approval: "m", ApprovedOn: MustDate("2027-01-03")}, EINVALID, "not of \"trustee\"")
	v.refused("treas", "2027-01-04T09:10", &CheckStock{Next: 5001}, EINVALID, "Name the bank account")
	v.do("treas", "2027-01-04T09:08", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "General checking", Institution: "Bank of Belleville", Resolution: "2027-01", From: MustDate("2027-01-01")})
	v.refused("treas", "2027-01-04T09:10", &CheckStock{Next: 5001, Account: "BOB"}, EINVALID, "Record the bank's number of account BOB")
	v.do("treas", "2027-01-04T09:09", &DepositoryChange{Op: DepositoryNumber, ID: "BOB", Number: "000123456789"})
	v.do("treas", "2027-01-04T09:10", &CheckStock{Next: 5001, Account: "BOB"})

	// A claim without an order: street patching.
	enter := &ClaimChange{Op: ClaimEnter, Vendor: "Sugar River Asphalt", Invoice: "SRA-1", InvoiceDate: MustDate("2027-03-01"), Amount: m("1200.00"), Line: "100-53300", Description: "Pothole patching, Hale St"}
	a := v.do("clerk", "2027-03-02T10:00", enter).Ref
	if a != "CL-2027-0001" {
		t.Fatalf("claim number %q", a)
	}
	dup := *enter
	dup.Vendor = "sugar  river asphalt"
	v.refused("clerk", "2027-03-02T10:01", &dup, ECONFLICT, "already claim CL-2027-0001")
	run := func(on string, claims ...string) *CheckRun {
		return &CheckRun{On: MustDate(on), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}}
	}
	v.refused("treas", "2027-03-02T11:00", run("2027-03-02", a), ECONFLICT, "lacks the funds, authorized, conformity, valid certification(s)")
	certify := func(what, basis string) *ClaimChange {
		return &ClaimChange{Op: ClaimCertify, ID: a, Certification: what, Basis: basis}
	}
	v.refused("pwhead", "2027-03-02T11:00", certify(CertifyFundsAvailable, ""), EFORBIDDEN, "not the department_head's")
	v.refused("clerk", "2027-03-02T11:00", certify(CertifyAuthorized, "x"), EFORBIDDEN, "not the clerk's")
	v.do("treas", "2027-03-02T11:00", certify(CertifyFundsAvailable, ""))
	if ap := v.appropriation(2027, "100-53300"); !ap.Encumbered.Equal(m("1200.00")) {
		t.Fatalf("the funds certification encumbers: %s", ap.Encumbered)
	}
	v.refused("treas", "2027-03-02T11:01", certify(CertifyFundsAvailable, ""), ECONFLICT, "already certified funds")
	v.refused("pwhead", "2027-03-02T11:05", certify(CertifyAuthorized, ""), EINVALID, "what authorized it")
	v.do("pwhead", "2027-03-02T11:05", certify(CertifyAuthorized, "work order 17 of the public works department"))
	v.do("admin", "2027-03-02T11:10", certify(CertifyConformity, "patches seen done on Hale St, March 1"))
	v.do("treas", "2027-03-02T11:15", &ClaimChange{Op: ClaimCertify, ID: a, Certification: CertifyValid, Proof: "signed delivery tickets 4411-4413"})
	v.refused("treas", "2027-03-02T11:16", &ClaimChange{Op: ClaimCertify, ID: a, Certification: CertifyValid}, ECONFLICT, "there is no fifth")
	// The four certifications are what the treasurer's endorsement rests
	// on: no check pays the claim before it (§5.07(3)).
	if cl, _ := v.reads().Claim(a); cl.Status != ClaimCertified || cl.Endorsement != nil {
		t.Fatalf("certified claim %+v", cl)
	}
	v.refused("treas", "2027-03-02T11:17", run("2027-03-02", a), ECONFLICT, "certified but not endorsed")
	v.refused("pwhead", "2027-03-02T11:18", &ClaimChange{Op: ClaimEndorse, ID: a}, EFORBIDDEN, "Only the Finance Director/Treasurer")
	v.refused("admin", "2027-03-02T11:18", &ClaimChange{Op: ClaimEndorse, ID: a}, EFORBIDDEN, "Only the Finance Director/Treasurer")
	v.do("treas", "2027-03-02T11:20", &ClaimChange{Op: ClaimEndorse, ID: a, Note: "all four determined"})
	v.refused("treas", "2027-03-02T11:21", &ClaimChange{Op: ClaimEndorse, ID: a}, ECONFLICT, "was endorsed by treas")
	cl, _ := v.reads().Claim(a)
	if cl.Endorsement == nil || len(cl.Endorsement.Endorses) != 4 || cl.Endorsement.Endorses[1].By != "pwhead" || cl.Endorsement.Role != RoleTreasurer {
		t.Fatalf("endorsement %+v", cl.Endorsement)
	}
	if cl.Status != ClaimApproved || len(cl.Certifications) != 4 || cl.Certifications[1].By != "pwhead" || cl.Certifications[3].Proof == "" {
		t.Fatalf("approved claim %+v", cl)
	}

	// A claim against an order: only what its deliveries invoiced.
	r := v.do("pwhead", "2027-03-03T07:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Hydraulic hose", Category: CategoryMaterials, Estimate: m("480.00"), Emergency: true, Explanation: "The plow's hose burst."})
	hose := &ClaimChange{Op: ClaimEnter, Vendor: "Farm & Fleet", Invoice: "FF-1", InvoiceDate: MustDate("2027-03-03"), Amount: m("480.00"), Line: "100-53300", Order: r.Ref, Description: "Hydraulic hose"}
	v.refused("pwhead", "2027-03-03T07:10", hose, ECONFLICT, "record the delivery first")
	v.do("pwhead", "2027-03-03T07:30", &OrderChange{Op: OrderAward, ID: r.Ref, Award: &Award{Vendor: "Farm & Fleet", Amount: m("480.00"), On: MustDate("2027-03-03")}})
	v.do("pwhead", "2027-03-03T08:00", &OrderReceipt{Order: r.Ref, Delivery: Delivery{On: MustDate("2027-03-03"), Inspector: "Pat Works", Conforms: true, Invoice: "FF-1", Invoiced: m("480.00"), Final: true}})
	b := v.do("pwhead", "2027-03-03T08:10", hose).Ref
	extra := *hose
	extra.Invoice, extra.Amount = "FF-2", m("1.00")
	v.refused("pwhead", "2027-03-03T08:11", &extra, ECONFLICT, "$0.00 invoiced on its deliveries and not yet claimed")
	for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"pwhead", CertifyAuthorized, ""}, {"pwhead", CertifyConformity, "inspected on delivery"}, {"treas", CertifyValid, ""}} {
		v.do(x.who, "2027-03-03T09:00", &ClaimChange{Op: ClaimCertify, ID: b, Certification: x.what, Basis: x.basis})
	}
	v.do("treas", "2027-03-03T09:05", &ClaimChange{Op: ClaimEndorse, ID: b})
	before := v.appropriation(2027, "100-53300")

	// The run: checks 5001 and 5002; the claim without an order is
	// charged now, the order's was charged at its delivery.
	res := v.do("treas", "2027-03-05T10:00", run("2027-03-05", a, b))
	cr, err := v.reads().CheckRun(res.Ref)
	if err != nil || len(cr.Checks) != 2 || cr.Checks[0] != 5001 || cr.Checks[1] != 5002 || !cr.Total.Equal(m("1680.00")) || cr.By != "treas" {
		t.Fatalf("run %+v %v", cr, err)
	}
	after := v.appropriation(2027, "100-53300")
	if !after.Expended.Sub(before.Expended).Equal(m("1200.00")) || !before.Encumbered.Sub(after.Encumbered).Equal(m("1200.00")) {
		t.Fatalf("the run charged %s and released %s", after.Expended.Sub(before.Expended), before.Encumbered.Sub(after.Encumbered))
	}
	sigs, _ := v.reads().Signatures()
	if len(sigs) != 2 || len(sigs[0].Uses) != 1 || sigs[0].Uses[0] != cr.ID {
		t.Fatalf("signature uses %+v", sigs)
	}
	v.refused("treas", "2027-03-05T10:05", run("2027-03-05", a), ECONFLICT, "was paid by check 00005001")

	// A withdrawn signature may not be used from the day of withdrawal.
	v.do("clerk", "2027-03-10T09:00", &SignatureChange{Op: "withdraw", ID: "sig-treas", Approval: "motion 2027-03-09 #3", WithdrawOn: MustDate("2027-03-10")})

	// The first check is voided (lost in the mail): the claim is payable
	// again and its charge comes back; the new check has a new number.
	v.do("treas", "2027-03-12T09:00", &CheckVoid{Number: 5001, Reason: "lost in the mail; stop payment placed"})
	v.refused("treas", "2027-03-12T09:01", &CheckVoid{Number: 5001, Reason: "again"}, ECONFLICT, "was voided")
	if ap := v.appropriation(2027, "100-53300"); !ap.Expended.Equal(before.Expended) || !ap.Encumbered.Equal(before.Encumbered) {
		t.Fatalf("after the void: expended %s encumbered %s", ap.Expended, ap.Encumbered)
	}
	v.refused("treas", "2027-03-12T10:00", run("2027-03-12", a), EFORBIDDEN, "withdrawn by the board on 2027-03-10")
	v.do("clerk", "2027-03-12T10:30", &SignatureChange{Op: "approve", ID: "sig-treas-2", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2027-03-11 #1", ApprovedOn: MustDate("2027-03-11")})
	v.do("treas", "2027-03-12T11:00", &CheckRun{On: MustDate("2027-03-12"), Account: "BOB", Claims: []string{a}, Signatures: []string{"sig-wells", "sig-treas-2"}})
	cl, _ = v.reads().Claim(a)
	if cl.Check != CheckID(5003) || len(cl.Voided) != 1 || cl.Status != ClaimPaid {
		t.Fatalf("claim after the void and the new check: %+v", cl)
	}
	v.refused("treas", "2027-03-12T11:05", &CheckStock{Next: 5003, Account: "BOB"}, EINVALID, "above the last one issued (5003)")

	// The month's register and the board's review.
	reg, _ := v.reads().CheckRegister("2027-03")
	var nums []string
	for _, c := range reg {
		n := CheckID(c.Number)
		if c.Void != nil {
			n += " void"
		}
		nums = append(nums, n)
	}
	if strings.Join(nums, ",") != "00005001 void,00005002,00005003" {
		t.Fatalf("register %v", nums)
	}
	if reg, _ := v.reads().CheckRegister("2027-02"); len(reg) != 0 {
		t.Fatalf("the month before the checks lists %d", len(reg))
	}
	if _, err := v.reads().CheckRegister("2027-3"); ErrorCode(err) != EINVALID {
		t.Fatalf("a month not like YYYY-MM: %v", err)
	}
	v.refused("clerk", "2027-03-31T19:00", &RegisterReview{Month: "2027-03", On: MustDate("2027-03-31"), Motion: "m"}, EINVALID, "after the month ends")
	v.do("clerk", "2027-04-05T19:30", &RegisterReview{Month: "2027-03", On: MustDate("2027-04-05"), Motion: "motion 2027-04-05 #2"})
	v.refused("clerk", "2027-04-05T19:31", &RegisterReview{Month: "2027-03", On: MustDate("2027-04-05"), Motion: "again"}, ECONFLICT, "reviewed the register")

	// A cancelled claim gives back what it encumbered.
	c := v.do("clerk", "2027-04-06T10:00", &ClaimChange{Op: ClaimEnter, Vendor: "Sign Co", Invoice: "77", InvoiceDate: MustDate("2027-04-06"), Amount: m("300.00"), Line: "100-53300", Description: "Street signs"}).Ref
	v.do("treas", "2027-04-06T10:05", &ClaimChange{Op: ClaimCertify, ID: c, Certification: CertifyFundsAvailable})
	held := v.appropriation(2027, "100-53300").Encumbered
	v.refused("clerk", "2027-04-06T10:10", &ClaimChange{Op: ClaimCancel, ID: c}, EINVALID, "why")
	v.do("clerk", "2027-04-06T10:10", &ClaimChange{Op: ClaimCancel, ID: c, Reason: "billed the county by mistake"})
	if got := v.appropriation(2027, "100-53300").Encumbered; !held.Sub(got).Equal(m("300.00")) {
		t.Fatalf("cancel released %s", held.Sub(got))
	}
	v.refused("treas", "2027-04-06T10:15", &ClaimChange{Op: ClaimCertify, ID: c, Certification: CertifyValid}, ECONFLICT, "is cancelled")
}
