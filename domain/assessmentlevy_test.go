package domain

import (
	"fmt"
	"strings"
	"testing"
)

// levied runs a small project to its levy: two parcels of one front foot
// each sharing 2,000.00 of sewer, three installments at 5%, the first due
// October 31, 2026; levied July 20, 2026.
func levied(t *testing.T) *project {
	t.Helper()
	return leviedAfter(t, nil)
}

// leviedAfter is levied, with setup run on the ledger first.
func leviedAfter(t *testing.T, setup func(*project)) *project {
	t.Helper()
	p := &project{t: t, tx: newDistrictTx(), id: "SA-2026-09"}
	if setup != nil {
		setup(p)
	}
	ids := district()[:2]
	p.must(KindAssessmentPreliminary, "board1", "2026-06-02T09:00", &AssessmentPreliminary{Project: p.id, Number: "2026-50", AdoptedOn: MustDate("2026-06-01"), Purpose: "Sewer lateral replacement",
		Basis: BasisPolicePower, Improvements: []string{"Sewer"}, District: ids, Limits: "101 and 103 Pearl Street", Installments: 3, Officer: "Public works director"})
	p.must(KindAssessmentReport, "engineer", "2026-06-15T09:00", &AssessmentReport{Project: p.id, FiledOn: MustDate("2026-06-15"), Documents: []Document{{Name: "plan.txt", Data: []byte("plan")}},
		Costs:     []CostItem{{Improvement: "Sewer", Category: CostDirect, Description: "Laterals", Amount: MustMoney("2000.00")}},
		Parcels:   []ReportParcel{{Parcel: ids[0], Units: MustUnits("1")}, {Parcel: ids[1], Units: MustUnits("1")}},
		Benefited: "The laterals serve these two properties only."})
	p.must(KindAssessmentNotice, "pclerk", "2026-06-20T09:00", notice(p.id))
	p.must(KindAssessmentHearing, "board1", "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionApprove})
	p.must(KindAssessmentFinal, "board1", "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-55", AdoptedOn: MustDate("2026-07-14"), InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")})
	p.must(KindAssessmentPublish, "pclerk", "2026-07-16T09:00", &AssessmentPublish{Project: p.id, PublishedOn: MustDate("2026-07-16"), Publication: "Belleville Recorder"})
	p.must(KindAssessmentLevy, "treas", "2026-07-20T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-20")})
	return p
}

func (p *project) assessment(i int) Assessment {
	p.t.Helper()
	a, err := getAssessment(p.tx, AssessmentID(p.id, district()[i]))
	if err != nil {
		p.t.Fatal(err)
	}
	return a
}

func pay(id, option, amount string) *PayAssessment {
	return &PayAssessment{AssessmentID: id, Option: option, Amount: MustMoney(amount), Tender: Card, Reference: "SIM-1"}
}

// TestInstallmentsWithInterest: 1,000.00 in three yearly installments at
// 5%: 333.34, 333.33 and 333.33 of principal; the second bears a year's
// interest on 666.66 (33.33) and the third on 333.33 (16.67), each owed
// from the day after the installment before fell due. Paid in full before
// the first is due, the assessment costs no interest.
func TestInstallmentsWithInterest(t *testing.T) {
	p := levied(t)
	a := p.assessment(0)
	want := []struct{ due, principal, interest, from string }{
		{"2026-10-31", "333.34", "0.00", ""},
		{"2027-10-31", "333.33", "33.33", "2026-11-01"},
		{"2028-10-31", "333.33", "16.67", "2027-11-01"},
	}
	for i, w := range want {
		in := a.Installments[i]
		if in.DueOn.String() != w.due || in.Principal.String() != w.principal || in.Interest.String() != w.interest || (w.from != "" && in.InterestFrom.String() != w.from) {
			t.Fatalf("installment %d: %+v, want %+v", i+1, in, w)
		}
	}
	f := a.Figures(MustDate("2026-08-10"))
	if full, ok := f.Option(PayInFull); !ok || full.String() != "1000.00" {
		t.Fatalf("in full on August 10: %s %v", full, ok)
	}
	if next, ok := f.Option(PayInstallment); !ok || next.String() != "333.34" || f.Deferred.String() != "1000.00" {
		t.Fatalf("the next installment on August 10: %s %v (deferred %s)", next, ok, f.Deferred)
	}
	if f := a.Figures(MustDate("2026-11-02")); f.Status != "past_due" || f.Installments[0].Status != InstallmentPastDue || f.Payable.String() != "1033.33" {
		t.Fatalf("on November 2: %+v", f)
	}
	if f := a.Figures(MustDate("2026-11-16")); f.Status != "tax_roll" || f.Installments[0].Status != InstallmentTaxRoll || f.Payable.String() != "699.99" || f.OnTaxRoll.String() != "333.34" {
		t.Fatalf("on November 16: %+v", f)
	}
}

// TestAssessmentPayments: the next installment by card at the kiosk, the
// rest in full in cash at the window into the cashier's drawer; an
// overpayment is a refund due under §5.07(1); the window takes no card,
// the kiosk no cash; a payment before the levy is refused.
func TestAssessmentPayments(t *testing.T) {
	p := levied(t)
	id := AssessmentID(p.id, district()[0])
	p.refused(KindPayAssessment, "2026-08-10T10:00", &PayAssessment{AssessmentID: id, Option: PayInstallment, Amount: MustMoney("333.34"), Tender: Cash}, EINVALID, "window")
	p.refused(KindPayAssessment, "2026-08-10T10:00", pay("SA-2026-09~0601-141-3005", PayInstallment, "333.34"), ENOTFOUND, "no special assessment")
	p.refused(KindPayAssessment, "2026-08-10T10:00", pay(id, "some", "333.34"), EINVALID, "option")
	res := p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(id, PayInstallment, "333.34"))
	if rc := res.Receipt; rc == nil || rc.Kind != KindPayAssessment || rc.BillID != id || rc.Allocation.Principal.String() != "333.34" || rc.Balance.String() != "666.66" {
		t.Fatalf("kiosk receipt: %+v", res.Receipt)
	}
	a := p.assessment(0)
	if a.Installments[0].ClosedOn != MustDate("2026-08-10") || a.Figures(MustDate("2026-08-10")).NextN != 2 {
		t.Fatalf("after the first installment: %+v", a.Installments[0])
	}

	// The window: a drawer, then the rest in full in cash.
	p.must(KindDrawerOpen, "pclerk", "2026-08-12T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("100.00")})
	win := &WindowAssessmentPayment{DrawerID: "D-1", AssessmentID: id, Option: PayInFull, Amount: MustMoney("666.66"), Tender: Card}
	p.refusedBy("pclerk", KindWindowAssessmentPayment, "2026-08-12T09:00", win, EINVALID, "cash or checks")
	win.Tender, win.Tendered = Cash, MustMoney("600.00")
	p.refusedBy("pclerk", KindWindowAssessmentPayment, "2026-08-12T09:00", win, EINVALID, "less than the payment")
	win.Tendered = MustMoney("700.00")
	c := staffCmd(KindWindowAssessmentPayment, "other", "2026-08-12T09:00")
	c.Payload = win
	if _, err := p.tx.run(t, c); ErrorCode(err) != EFORBIDDEN {
		t.Fatalf("another cashier's drawer: %v", err)
	}
	res = p.must(KindWindowAssessmentPayment, "pclerk", "2026-08-12T09:00", win)
	if res.Note != "change due 33.34" || res.Receipt.Balance.String() != "0.00" {
		t.Fatalf("window: %+v", res)
	}
	var d Drawer
	p.tx.Get(CollectionDrawers, "D-1", &d)
	if len(d.Payments) != 1 || d.Payments[0].BillID != id || !p.tx.index[IndexUndeposited+"/"+d.OpenedAt.Date.String()+"/D-1"] {
		t.Fatalf("drawer: %+v", d)
	}
	if f := p.assessment(0).Figures(MustDate("2026-08-12")); f.Status != "paid" || f.Paid.String() != "1000.00" {
		t.Fatalf("paid off: %+v", f)
	}

	// A payment replayed offline after it was paid off: an overpayment.
	res = p.must(KindPayAssessment, "kiosk", "2026-08-11T10:00", pay(id, PayInstallment, "333.33"))
	if res.Refund == nil || res.Refund.Amount.String() != "333.33" || res.Refund.RefundBy != MustDate("2026-09-01") || len(p.tx.refunds) != 1 {
		t.Fatalf("overpayment: %+v", res.Refund)
	}
	// The refund queue approves it and records its check (issue_refund).
	p.must(KindIssueRefund, "treas", "2026-08-13T09:00", &IssueRefund{Op: "approve", BillID: id, CommandID: res.Refund.CommandID})
	// The check is drawn on the checking account, numbered from its
	// stock, with two signatures (§5.07(4), §5.18).
	p.must(KindDepository, "treas", "2026-08-14T08:00", &DepositoryChange{Op: DepositoryDesignate, ID: "CHK", Name: "General checking", Institution: "Bank of Belleville", Resolution: "2026-01", From: MustDate("2026-01-01"), Number: "000555000111"})
	p.must(KindCheckStock, "treas", "2026-08-14T08:01", &CheckStock{Next: 10442, Account: "CHK"})
	for _, s := range []SignatureChange{
		{Op: "approve", ID: "sig-pres", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion", ApprovedOn: MustDate("2026-01-05")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion", ApprovedOn: MustDate("2026-01-05")},
	} {
		p.must(KindSignature, "treas", "2026-08-14T08:02", &s)
	}
	p.must(KindIssueRefund, "pclerk", "2026-08-14T09:00", &IssueRefund{Op: "check", BillID: id, CommandID: res.Refund.CommandID, CheckNumber: "10442", Account: "CHK", Payee: "Owner 1", Signatures: []string{"sig-pres", "sig-treas"}})
	var st RefundState
	if p.tx.Get(CollectionRefundStates, res.Refund.CommandID, &st); st.State != RefundPaid || st.Amount.String() != "333.33" {
		t.Fatalf("refund state: %+v", st)
	}
	p.refused(KindIssueRefund, "2026-08-14T09:00", &IssueRefund{Op: "approve", BillID: id, CommandID: "nope"}, ENOTFOUND, "no bill")

	// Before the levy: refused.
	p.refused(KindPayAssessment, "2026-07-19T10:00", pay(AssessmentID(p.id, district()[1]), PayInstallment, "333.34"), EINVALID, "before the levy")
}

// TestActualCostLower (§5.14(10)): the actual cost is 1,500.00, below the
// 2,000.00 levied: both assessments fall to 750.00 by 5.14/adjust,
// without notice; the owner who paid in full is refunded 250.00 with the
// §5.07(1) clock; the other's unpaid installments carry the rest.
func TestActualCostLower(t *testing.T) {
	p := levied(t)
	a0, a1 := AssessmentID(p.id, district()[0]), AssessmentID(p.id, district()[1])
	p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(a0, PayInFull, "1000.00"))
	p.must(KindPayAssessment, "kiosk", "2026-08-10T10:05", pay(a1, PayInstallment, "333.34"))
	ch := &AssessmentChangeCmd{Op: ChangeActualCost, Project: p.id, On: MustDate("2026-09-15"), Reason: "Bids came in low", ActualCost: MustMoney("2500.00")}
	p.refused(KindAssessmentChange, "2026-09-15T20:00", ch, EINVALID, "not less than")
	ch.ActualCost = MustMoney("1500.00")
	res := p.must(KindAssessmentChange, "board1", "2026-09-15T20:00", ch)
	if res.Refund == nil || res.Refund.Amount.String() != "250.00" || res.Refund.BillID != a0 || res.Refund.RefundBy != MustDate("2026-10-06") {
		t.Fatalf("the refund: %+v", res.Refund)
	}
	want, err := AdjustAssessments(AdjustInput{ActualCost: MustMoney("1500.00"), Assessments: []LeviedAssessment{{ID: a0, Amount: MustMoney("1000.00"), Paid: MustMoney("1000.00")}, {ID: a1, Amount: MustMoney("1000.00"), Paid: MustMoney("333.34")}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range []Assessment{p.assessment(0), p.assessment(1)} {
		if !a.Amount.Equal(want.Assessments[i].Amount) || len(a.Changes) != 1 || !a.Changes[0].Refund.Equal(want.Assessments[i].Refund) {
			t.Fatalf("assessment %d: %s %+v, want %+v", i, a.Amount, a.Changes, want.Assessments[i])
		}
	}
	b := p.assessment(1)
	if b.Installments[1].Principal.String() != "208.33" || b.Installments[2].Principal.String() != "208.33" || b.Installments[1].Interest.String() != "20.83" || b.Installments[2].Interest.String() != "10.42" {
		t.Fatalf("the rest spread over the open installments: %+v", b.Installments)
	}
	if f := p.assessment(0).Figures(MustDate("2026-09-15")); f.Status != "paid" {
		t.Fatalf("the paid-off assessment: %+v", f)
	}
	// An amendment needs notice, and the board acts 10 to 40 days after it.
	am := &AssessmentChangeCmd{Op: ChangeAmend, Project: p.id, On: MustDate("2026-09-20"), Reason: "Change order", Costs: []CostItem{{Improvement: "Sewer", Category: CostDirect, Description: "Laterals", Amount: MustMoney("1800.00")}}}
	p.refused(KindAssessmentChange, "2026-09-20T20:00", am, EINVALID, "notice date is required")
	am.NoticeOn = MustDate("2026-09-15")
	p.refused(KindAssessmentChange, "2026-09-20T20:00", am, EINVALID, "10 to 40 days")
}

// TestCancelledAssessments: a cancellation, after notice, refunds
// everything paid, and the project ends.
func TestCancelledAssessments(t *testing.T) {
	p := levied(t)
	a0 := AssessmentID(p.id, district()[0])
	p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(a0, PayInstallment, "333.34"))
	p.must(KindAssessmentChange, "board1", "2026-09-15T20:00", &AssessmentChangeCmd{Op: ChangeCancel, Project: p.id, On: MustDate("2026-09-15"), NoticeOn: MustDate("2026-09-01"), Reason: "The work is abandoned"})
	if pr := p.get(); pr.Stage != StageCancelled || !pr.Changes[0].Refunds.Equal(MustMoney("333.34")) {
		t.Fatalf("after the cancellation: %+v", pr.Changes)
	}
	if a := p.assessment(0); !a.Cancelled || a.Figures(MustDate("2026-11-20")).Outstanding.String() != "0.00" || len(a.RollItems(2026)) != 0 {
		t.Fatalf("cancelled assessment: %+v", a.Figures(MustDate("2026-11-20")))
	}
	res := p.must(KindPayAssessment, "kiosk", "2026-09-16T10:00", pay(a0, PayInstallment, "333.34"))
	if res.Refund == nil || res.Refund.Amount.String() != "333.34" {
		t.Fatalf("a payment on a cancelled assessment is refunded: %+v", res)
	}
}

// TestAppeals (§5.14(11)): an appeal is taken within 90 days of the final
// resolution's publication; the assessment stays payable; the appeal is
// dismissed only on default in payment.
func TestAppeals(t *testing.T) {
	p := levied(t)
	a0 := AssessmentID(p.id, district()[0])
	p.refused(KindAssessmentAppeal, "2026-10-20T09:00", &AssessmentAppeal{Op: AppealFile, AssessmentID: a0, On: MustDate("2026-10-15"), Reference: "Dane County Circuit Court 26-CV-1"}, EINVALID, "2026-10-14")
	p.must(KindAssessmentAppeal, "pclerk", "2026-08-01T09:00", &AssessmentAppeal{Op: AppealFile, AssessmentID: a0, On: MustDate("2026-08-01"), Reference: "Dane County Circuit Court 26-CV-1"})
	p.refused(KindAssessmentAppeal, "2026-08-01T09:01", &AssessmentAppeal{Op: AppealFile, AssessmentID: a0, On: MustDate("2026-08-01"), Reference: "again"}, ECONFLICT, "already under appeal")
	p.refused(KindAssessmentAppeal, "2026-10-30T09:00", &AssessmentAppeal{Op: AppealDismiss, AssessmentID: a0, On: MustDate("2026-10-30")}, ECONFLICT, "on default only")
	p.must(KindAssessmentAppeal, "pclerk", "2026-11-05T09:00", &AssessmentAppeal{Op: AppealDismiss, AssessmentID: a0, On: MustDate("2026-11-05")})
	if a := p.assessment(0); a.Appeals[0].State != AppealDismissed {
		t.Fatalf("appeal: %+v", a.Appeals)
	}
}

// TestInstallmentsToTheTaxRoll (§5.14(12)): the November run certifies the
// installments unpaid at the end of November 15 with the bills, as a
// delinquent tax; the village takes no more payment on them.
func TestInstallmentsToTheTaxRoll(t *testing.T) {
	p := levied(t)
	a0, a1 := AssessmentID(p.id, district()[0]), AssessmentID(p.id, district()[1])
	p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(a0, PayInstallment, "333.34"))
	items, err := ReadsOf(txRecords{p.tx}).AssessmentRollItems(2026)
	if err != nil || len(items) != 1 || items[0].BillID != a1+"#1" || items[0].Balance.String() != "333.34" || items[0].Installment != 1 {
		t.Fatalf("roll items: %+v %v", items, err)
	}
	if len(p.assessment(1).RollItems(2025)) != 0 {
		t.Fatal("an installment due in 2026 belongs on the 2025 roll")
	}
	p.must(KindNovemberRun, "treas", "2026-11-02T09:00", &NovemberStep{Op: "penalties", Year: 2026})
	p.refused(KindNovemberRun, "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Assessments: []string{a0 + "#1"}}, ECONFLICT, "does not belong")
	p.refused(KindNovemberRun, "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Assessments: []string{"nonsense"}}, EINVALID, "does not name an installment")
	res := p.must(KindNovemberRun, "treas", "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Assessments: []string{a1 + "#1"}})
	if !strings.Contains(res.Note, "333.34") {
		t.Fatalf("certify: %s", res.Note)
	}
	var run NovemberRun
	p.tx.Get(CollectionNovemberRuns, "2026", &run)
	if it := runLine(t, p.tx, 2026, "certify", a1+"#1"); run.Lines("certify") != 1 || it.Assessment != a1 || it.County != Green || it.Account != "" {
		t.Fatalf("the run: %+v, its line %+v", run, it)
	}
	b := p.assessment(1)
	if b.Installments[0].TaxRollYear != 2026 || len(b.RollItems(2026)) != 0 {
		t.Fatalf("after certification: %+v", b.Installments[0])
	}
	// A payment now goes to the next installment (its interest owed
	// since November 1), never to the one on the roll.
	res = p.must(KindPayAssessment, "kiosk", "2026-11-17T10:00", pay(a1, PayInstallment, "366.66"))
	if al := res.Receipt.Allocation; al.Interest.String() != "33.33" || al.Principal.String() != "333.33" {
		t.Fatalf("payment after the roll: %+v", al)
	}
	if f := p.assessment(1).Figures(MustDate("2026-11-17")); f.OnTaxRoll.String() != "333.34" || f.Status != "tax_roll" {
		t.Fatalf("figures: %+v", f)
	}
	// Changes of assessments with installments on the roll go to the county.
	p.refused(KindAssessmentChange, "2026-11-20T20:00", &AssessmentChangeCmd{Op: ChangeActualCost, Project: p.id, On: MustDate("2026-11-20"), Reason: "Final cost", ActualCost: MustMoney("1000.00")}, ECONFLICT, "county")
}

// TestAssessmentLetterLines (§5.11): a status letter states a parcel's
// outstanding and deferred assessments and the contemplated improvements
// whose district holds it.
func TestAssessmentLetterLines(t *testing.T) {
	p := levied(t)
	q := &project{t: t, tx: p.tx, id: "SA-2027-01"}
	q.must(KindAssessmentPreliminary, "board1", "2026-08-02T09:00", &AssessmentPreliminary{Project: q.id, Number: "2026-60", AdoptedOn: MustDate("2026-08-01"), Purpose: "Pearl Street lighting",
		Basis: BasisBenefit, Improvements: []string{"Lights"}, District: district()[:4], Limits: "Pearl Street", Installments: 1, Officer: "Administrator"})
	lines, err := ReadsOf(txRecords{p.tx}).AssessmentLetterLines(district()[0], MustDate("2026-08-05"))
	if err != nil || len(lines) != 3 {
		t.Fatalf("letter lines: %+v %v", lines, err)
	}
	if lines[0].Topic != "Special assessments" || lines[0].Amount.String() != "1000.00" || lines[1].Topic != "Deferred assessments" || lines[1].Amount.String() != "1000.00" ||
		lines[2].Topic != "Contemplated improvements" || !strings.Contains(lines[2].Text, "SA-2027-01") {
		t.Fatalf("letter lines: %+v", lines)
	}
	if lines, _ := ReadsOf(txRecords{p.tx}).AssessmentLetterLines(district()[5], MustDate("2026-08-05")); len(lines) != 0 {
		t.Fatalf("a parcel outside both districts: %+v", lines)
	}
}

// leviedWithExempt runs a project of three parcels of one front foot each
// sharing 3,000.00 of sewer to its levy at a ledger format; the third
// parcel is exempt, so its 1,000.00 share is the village's own
// (§5.14(5)(a)).
func leviedWithExempt(t *testing.T, format int) *project {
	t.Helper()
	p := &project{t: t, tx: newDistrictTx(), id: "SA-2026-11"}
	p.tx.format = format
	ids := district()[:3]
	p.must(KindAssessmentPreliminary, "board1", "2026-06-02T09:00", &AssessmentPreliminary{Project: p.id, Number: "2026-60", AdoptedOn: MustDate("2026-06-01"), Purpose: "Sewer lateral replacement",
		Basis: BasisPolicePower, Improvements: []string{"Sewer"}, District: ids, Limits: "101 to 105 Pearl Street", Installments: 3, Officer: "Public works director"})
	p.must(KindAssessmentReport, "engineer", "2026-06-15T09:00", &AssessmentReport{Project: p.id, FiledOn: MustDate("2026-06-15"), Documents: []Document{{Name: "plan.txt", Data: []byte("plan")}},
		Costs:     []CostItem{{Improvement: "Sewer", Category: CostDirect, Description: "Laterals", Amount: MustMoney("3000.00")}},
		Parcels:   []ReportParcel{{Parcel: ids[0], Units: MustUnits("1")}, {Parcel: ids[1], Units: MustUnits("1")}, {Parcel: ids[2], Units: MustUnits("1"), Exempt: true}},
		Benefited: "The laterals serve these three properties only."})
	p.must(KindAssessmentNotice, "pclerk", "2026-06-20T09:00", notice(p.id))
	p.must(KindAssessmentHearing, "board1", "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionApprove})
	p.must(KindAssessmentFinal, "board1", "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-65", AdoptedOn: MustDate("2026-07-14"), InterestRate: MustRate("0.045"), FirstDueOn: MustDate("2026-10-31")})
	p.must(KindAssessmentPublish, "pclerk", "2026-07-16T09:00", &AssessmentPublish{Project: p.id, PublishedOn: MustDate("2026-07-16"), Publication: "Belleville Recorder"})
	p.must(KindAssessmentLevy, "treas", "2026-07-20T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-20")})
	return p
}

// TestActualCostLowerReducesTheVillagesShare (§5.14(10)): the actual cost
// of 2,400.00 is below the 3,000.00 the levy spread (two owners' 1,000.00
// and the village's 1,000.00 for the exempt parcel), so every share falls
// by a fifth, the village's too; the owner who paid in full is owed 200.00
// back. A format-6 ledger compared the cost with the owners'
// assessments alone, and replays so.
func TestActualCostLowerReducesTheVillagesShare(t *testing.T) {
	p := leviedWithExempt(t, DocumentsFormat)
	var pr Project
	if p.tx.Get(CollectionAssessmentProjects, p.id, &pr); pr.VillagePays().String() != "1000.00" {
		t.Fatalf("the village's share as levied: %s", pr.VillagePays())
	}
	a0 := AssessmentID(p.id, district()[0])
	paid := p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(a0, PayInFull, "1000.00"))
	res := p.must(KindAssessmentChange, "board1", "2026-09-15T20:00", &AssessmentChangeCmd{Op: ChangeActualCost, Project: p.id, On: MustDate("2026-09-15"), Reason: "Bids came in low", ActualCost: MustMoney("2400.00")})
	if res.Refund == nil || res.Refund.Amount.String() != "200.00" || res.Refund.BillID != a0 {
		t.Fatalf("the refund: %+v (paid by %s)", res.Refund, paid.Receipt.Number)
	}
	if rec, ok, err := ReadsOf(txRecords{p.tx}).AssessmentRefund(res.Refund.CommandID); err != nil || !ok || !strings.Contains(rec.Reason, "paid by receipt "+paid.Receipt.Number) {
		t.Fatalf("the refund's record does not name the receipt that paid: %+v %v", rec, err)
	}
	for i := range 2 {
		if a := p.assessment(i); a.Amount.String() != "800.00" {
			t.Fatalf("assessment %d: %s, want 800.00", i, a.Amount)
		}
	}
	p.tx.Get(CollectionAssessmentProjects, p.id, &pr)
	ch := pr.Changes[len(pr.Changes)-1]
	if pr.VillagePays().String() != "800.00" || ch.VillageBefore.String() != "1000.00" || ch.VillageAfter.String() != "800.00" || !strings.Contains(pr.Steps[len(pr.Steps)-1].Summary, "village's own share 1000.00 → 800.00") {
		t.Fatalf("the village's share after the reduction: %s (%+v; %q)", pr.VillagePays(), ch, pr.Steps[len(pr.Steps)-1].Summary)
	}
	// A cost below the owners' assessments but not below the whole cost
	// the levy spread reduces nothing.
	p2 := leviedWithExempt(t, DocumentsFormat)
	p2.refused(KindAssessmentChange, "2026-09-15T20:00", &AssessmentChangeCmd{Op: ChangeActualCost, Project: p2.id, On: MustDate("2026-09-15"), Reason: "Final cost", ActualCost: MustMoney("3000.00")}, EINVALID, "village's own share")

	old := leviedWithExempt(t, ReconciledFormat)
	old.must(KindAssessmentChange, "board1", "2026-09-15T20:00", &AssessmentChangeCmd{Op: ChangeActualCost, Project: old.id, On: MustDate("2026-09-15"), Reason: "Bids came in low", ActualCost: MustMoney("1600.00")})
	pr = Project{}
	old.tx.Get(CollectionAssessmentProjects, old.id, &pr)
	if pr.VillagePays().String() != "1000.00" || !pr.Changes[0].VillageAfter.IsZero() || old.assessment(0).Amount.String() != "800.00" {
		t.Fatalf("format 6: the village's share %s, the owner's %s", pr.VillagePays(), old.assessment(0).Amount)
	}
}

// TestDueForRoll (§5.14(12)): the installments the next tax roll takes
// if they stay unpaid — the one falling due by November 15, then past
// due until the end of that day; later installments are not yet owed, an
// installment past the roll's day is on the roll, a closed one or a
// cancelled assessment owes nothing.
func TestDueForRoll(t *testing.T) {
	inst := func(n int, due string) Installment {
		return Installment{N: n, DueOn: MustDate(due), Principal: MustMoney("100.00"), Interest: Cents(0), PrincipalPaid: Cents(0), InterestPaid: Cents(0), TaxRollAmount: Cents(0)}
	}
	a := Assessment{ID: "SA~1", Installments: []Installment{inst(1, "2026-10-31"), inst(2, "2027-10-31"), inst(3, "2027-12-01")}}
	paid := a
	paid.Installments = []Installment{inst(1, "2026-10-31"), inst(2, "2027-10-31")}
	paid.Installments[0].ClosedOn = MustDate("2026-10-20")
	cancelled := a
	cancelled.Cancelled = true
	rows := []struct {
		section, name string
		a             Assessment
		on            string
		want          []int
		status        string
	}{
		{"5.14(12)", "falling due before the roll", a, "2026-10-01", []int{1}, InstallmentDue},
		{"5.14(12)", "past due until the roll", a, "2026-11-02", []int{1}, InstallmentPastDue},
		{"5.14(12)", "past due on the roll's day", a, "2026-11-15", []int{1}, InstallmentPastDue},
		{"5.14(12)", "on the roll the day after; the next year's is owed", a, "2026-11-16", []int{2}, InstallmentDue},
		{"5.14(12)", "due after November 15 goes on the next year's roll", a, "2027-11-20", []int{3}, InstallmentDue},
		{"5.14(12)", "a paid installment owes nothing", paid, "2026-11-02", nil, ""},
		{"5.14(12)", "a cancelled assessment owes nothing", cancelled, "2026-11-02", nil, ""},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			var got []int
			for _, x := range row.a.DueForRoll(MustDate(row.on)) {
				got = append(got, x.N)
				if x.Status != row.status {
					t.Errorf("installment %d is %s, want %s", x.N, x.Status, row.status)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(row.want) {
				t.Fatalf("installments %v, want %v", got, row.want)
			}
		})
	}
	if d := InstallmentRollDay(MustDate("2026-11-16")); d != MustDate("2027-11-15") {
		t.Fatalf("an installment due November 16 goes on the roll of %s", d)
	}
}
