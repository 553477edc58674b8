package domain

import (
	"fmt"
	"strings"
	"testing"
)

// district is the twelve parcels of Pearl Street: the tenth is a church
// (exempt by law), the twelfth a corner lot.
func district() []string {
	var out []string
	for i := range 12 {
		out = append(out, fmt.Sprintf("0601-141-3%03d", i+1))
	}
	return out
}

// newDistrictTx is a ledger holding the district's parcels, each with its
// owner's account.
func newDistrictTx() *staffTx {
	tx := newStaffTx()
	for i, id := range district() {
		tx.parcels[id] = Parcel{ID: id, Address: fmt.Sprintf("%d Pearl St", 100+2*i), County: []County{Dane, Green}[i%2], Owner: fmt.Sprintf("Owner %d", i+1)}
		tx.accounts[fmt.Sprintf("2001%02d", i+1)] = Account{Number: fmt.Sprintf("2001%02d", i+1), Name: fmt.Sprintf("Owner %d", i+1), Parcels: []string{id}}
	}
	return tx
}

// project drives one project through its steps.
type project struct {
	t  *testing.T
	tx *staffTx
	id string
}

func (p *project) do(kind Kind, actor, at string, payload Payload) (Result, error) {
	p.t.Helper()
	c := staffCmd(kind, actor, at)
	c.Payload = payload
	return p.tx.run(p.t, c)
}

func (p *project) must(kind Kind, actor, at string, payload Payload) Result {
	p.t.Helper()
	res, err := p.do(kind, actor, at, payload)
	if err != nil {
		p.t.Fatalf("%s at %s: %v", kind, at, err)
	}
	return res
}

// refused checks that a step is refused with code and a message holding
// want, and changes nothing.
func (p *project) refused(kind Kind, at string, payload Payload, code Code, want string) {
	p.t.Helper()
	p.refusedBy("admin", kind, at, payload, code, want)
}

func (p *project) refusedBy(actor string, kind Kind, at string, payload Payload, code Code, want string) {
	p.t.Helper()
	before := fmt.Sprint(p.tx.records, p.tx.bills, p.tx.refunds)
	_, err := p.do(kind, actor, at, payload)
	if ErrorCode(err) != code || !strings.Contains(ErrorMessage(err), want) {
		p.t.Fatalf("%s at %s: %v (%s), want %s with %q", kind, at, err, ErrorCode(err), code, want)
	}
	if after := fmt.Sprint(p.tx.records, p.tx.bills, p.tx.refunds); after != before {
		p.t.Fatalf("a refused %s changed the ledger", kind)
	}
}

func (p *project) get() Project {
	p.t.Helper()
	pr, err := getProject(p.tx, p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	return pr
}

func preliminary(id string) *AssessmentPreliminary {
	return &AssessmentPreliminary{Project: id, Number: "2026-31", AdoptedOn: MustDate("2026-06-01"), Purpose: "Reconstruct Pearl Street with a new sanitary sewer",
		Basis: BasisBenefit, Improvements: []string{"Sanitary sewer", "Street"}, District: district(), Limits: "Both sides of Pearl Street from Main Street to Vine Street",
		Installments: 0, Officer: "Village Engineer"}
}

// reportParcels are the report's parcels: 66 front feet each, the fifth
// 80; the tenth exempt; the twelfth a corner lot of 150 feet whose long
// side is 100, with a deduction of 75 (floored at 100); 500.00 damages on
// the third (a strip taken for the sidewalk).
func reportParcels() []ReportParcel {
	var out []ReportParcel
	for i, id := range district() {
		rp := ReportParcel{Parcel: id, Units: MustUnits("66"), Damages: Cents(0)}
		switch i {
		case 2:
			rp.Damages = MustMoney("500.00")
		case 4:
			rp.Units = MustUnits("80")
		case 9:
			rp.Units, rp.Exempt = MustUnits("100"), true
		case 11:
			rp.Units, rp.Corner = MustUnits("150"), &CornerLot{LongSide: MustUnits("100"), Deduction: MustUnits("75")}
		}
		out = append(out, rp)
	}
	return out
}

func reportCosts() []CostItem {
	return []CostItem{
		{Improvement: "Sanitary sewer", Category: CostDirect, Description: "Sewer main and laterals", Amount: MustMoney("60000.00")},
		{Improvement: "Sanitary sewer", Category: CostEngineering, Description: "Design and inspection", Amount: MustMoney("6000.00")},
		{Improvement: "Street", Category: CostDirect, Description: "Pavement, curb and gutter", Amount: MustMoney("33000.00")},
	}
}

func report(id string) *AssessmentReport {
	return &AssessmentReport{Project: id, FiledOn: MustDate("2026-06-15"), Documents: []Document{{Name: "plans.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4 plans")}},
		Costs: reportCosts(), Parcels: reportParcels()}
}

func notice(id string) *AssessmentNotice {
	return &AssessmentNotice{Project: id, Method: NoticePosting, Places: []string{"Village hall", "Public library", "Post office"}, NoticeOn: MustDate("2026-06-20"), MailedOn: MustDate("2026-06-20"),
		Inspection: "Village hall, weekdays 8:00 to 16:30", HearingOn: MustDate("2026-07-07"), HearingAt: "Village hall, 7:00 pm"}
}

// TestAssessmentProjectSteps carries a project through every step in
// order and checks each refusal of a step out of order, or with bad
// input, on the way: nothing refused changes the ledger.
func TestAssessmentProjectSteps(t *testing.T) {
	p := &project{t: t, tx: newDistrictTx(), id: "SA-2026-01"}

	// The preliminary resolution.
	bad := preliminary(p.id)
	bad.District = append(bad.District, "0601-999-0000")
	p.refused(KindAssessmentPreliminary, "2026-06-02T09:00", bad, EINVALID, "no parcel")
	bad = preliminary("SA 2026")
	p.refused(KindAssessmentPreliminary, "2026-06-02T09:00", bad, EINVALID, "letters, digits and dashes")
	bad = preliminary(p.id)
	bad.Basis = "whim"
	p.refused(KindAssessmentPreliminary, "2026-06-02T09:00", bad, EINVALID, "basis")
	bad = preliminary(p.id)
	bad.AdoptedOn = MustDate("2026-06-03")
	p.refused(KindAssessmentPreliminary, "2026-06-02T09:00", bad, EINVALID, "after today")
	// Steps before there is a project.
	p.refused(KindAssessmentReport, "2026-06-02T09:00", report(p.id), ENOTFOUND, "no special assessment project")
	p.must(KindAssessmentPreliminary, "board1", "2026-06-02T09:00", preliminary(p.id))
	p.refused(KindAssessmentPreliminary, "2026-06-02T09:01", preliminary(p.id), ECONFLICT, "already exists")
	if pr := p.get(); pr.Stage != StagePreliminary || len(pr.Steps) != 1 || pr.Steps[0].On != MustDate("2026-06-01") || !pr.Contemplated() {
		t.Fatalf("after the preliminary resolution: %+v", pr)
	}

	// Out of order: notice, hearing, final resolution, levy before the report.
	p.refused(KindAssessmentNotice, "2026-06-20T09:00", notice(p.id), ECONFLICT, "report is filed")
	p.refused(KindAssessmentHearing, "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionApprove}, ECONFLICT, "after its notice")
	p.refused(KindAssessmentFinal, "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-40", AdoptedOn: MustDate("2026-07-14"), Installments: 5, InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")}, ECONFLICT, "final resolution follows")
	p.refused(KindAssessmentLevy, "2026-07-20T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-20")}, ECONFLICT, "levied after the final resolution")

	// The report: a parcel outside the district, one missing, units that
	// sum to zero, a report dated before the resolution, no plans.
	r := report(p.id)
	r.Parcels = append(r.Parcels, ReportParcel{Parcel: "0601-141-2001", Units: MustUnits("10")})
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, EINVALID, "outside the district")
	r = report(p.id)
	r.Parcels = r.Parcels[1:]
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, EINVALID, "says nothing of parcel 0601-141-3001")
	r = report(p.id)
	for i := range r.Parcels {
		r.Parcels[i].Units, r.Parcels[i].Corner = MustUnits("0"), nil
	}
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, EINVALID, "units add up to zero")
	r = report(p.id)
	r.FiledOn = MustDate("2026-05-30")
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, ECONFLICT, "before the project's latest step")
	r = report(p.id)
	r.Documents = nil
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, EINVALID, "plans and specifications")
	r = report(p.id)
	r.Costs[0].Improvement = "Water main"
	p.refused(KindAssessmentReport, "2026-06-15T09:00", r, EINVALID, "not an improvement")
	p.must(KindAssessmentReport, "engineer", "2026-06-15T09:00", report(p.id))
	pr := p.get()
	if pr.Stage != StageReported || pr.Report == nil || len(pr.Report.Documents) != 1 || pr.Report.Documents[0].Size != len("%PDF-1.4 plans") {
		t.Fatalf("after the report: %+v", pr.Report)
	}
	doc, err := ReadsOf(txRecords{p.tx}).AssessmentDocument(pr.Report.Documents[0].ID)
	if err != nil || string(doc.Data) != "%PDF-1.4 plans" || doc.SHA256 != pr.Report.Documents[0].SHA256 {
		t.Fatalf("the plans: %+v %v", doc, err)
	}

	// The notice: a hearing outside 10–40 days, two posting places, mailed
	// after the hearing.
	n := notice(p.id)
	n.HearingOn = MustDate("2026-06-25")
	p.refused(KindAssessmentNotice, "2026-06-20T09:00", n, EINVALID, "10 to 40 days after it, from 2026-06-30 to 2026-07-30")
	n = notice(p.id)
	n.HearingOn = MustDate("2026-07-31")
	p.refused(KindAssessmentNotice, "2026-06-20T09:00", n, EINVALID, "41 days after the notice")
	n = notice(p.id)
	n.Places = n.Places[:2]
	p.refused(KindAssessmentNotice, "2026-06-20T09:00", n, EINVALID, "not less than 3 public places")
	n = notice(p.id)
	n.Method, n.Places = NoticePublication, nil
	p.refused(KindAssessmentNotice, "2026-06-20T09:00", n, EINVALID, "newspaper")
	p.must(KindAssessmentNotice, "pclerk", "2026-06-20T10:00", notice(p.id))
	if pr := p.get(); pr.Stage != StageNoticed || pr.Notices[0].Mailed != 12 {
		t.Fatalf("after the notice: %+v", pr.Notices)
	}

	// Owners: a waiver of a parcel outside the district; an objection to
	// one improvement of the combined assessment.
	p.refused(KindAssessmentOwner, "2026-06-22T09:00", &AssessmentOwner{Op: OwnerWaive, Project: p.id, Parcel: "0601-141-2001", SignedOn: MustDate("2026-06-22"), Signer: "Ana Gutierrez"}, EINVALID, "outside the district")
	p.refused(KindAssessmentOwner, "2026-06-22T09:00", &AssessmentOwner{Op: OwnerObject, Project: p.id, Parcel: district()[6], Improvement: "Water main", SignedOn: MustDate("2026-06-22"), Signer: "Owner 7"}, EINVALID, "not an improvement")
	p.must(KindAssessmentOwner, "pclerk", "2026-06-22T09:00", &AssessmentOwner{Op: OwnerObject, Project: p.id, Parcel: district()[6], Improvement: "Street", SignedOn: MustDate("2026-06-22"), Signer: "Owner 7"})
	p.refused(KindAssessmentOwner, "2026-06-22T09:05", &AssessmentOwner{Op: OwnerObject, Project: p.id, Parcel: district()[6], Improvement: "Street", SignedOn: MustDate("2026-06-22"), Signer: "Owner 7"}, ECONFLICT, "already objected")

	// The hearing: outside the window of the notice; a re-referral
	// without directions; then a modification of one parcel.
	p.refused(KindAssessmentHearing, "2026-06-29T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-06-29"), Action: ActionApprove}, EINVALID, "10 to 40 days")
	p.refused(KindAssessmentHearing, "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionRerefer}, EINVALID, "directions")
	p.refused(KindAssessmentHearing, "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionModify, Parcels: []ReportParcel{{Parcel: "0601-141-2001", Units: MustUnits("70")}}}, EINVALID, "outside the district")
	mod := reportParcels()[0]
	mod.Units = MustUnits("70")
	p.must(KindAssessmentHearing, "board1", "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionModify, Parcels: []ReportParcel{mod}})
	pr = p.get()
	if pr.Stage != StageApproved || !pr.Report.Parcels[0].Units.Decimal().Equal(MustUnits("70").Decimal()) || len(pr.Hearings) != 1 {
		t.Fatalf("after the modification: %+v", pr.Hearings)
	}

	// The final resolution: installments were left to the hearing, so it
	// sets them; the levy waits for its publication.
	p.refused(KindAssessmentFinal, "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-40", AdoptedOn: MustDate("2026-07-14"), InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")}, EINVALID, "sets it, 1 to 30")
	p.must(KindAssessmentFinal, "board1", "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-40", AdoptedOn: MustDate("2026-07-14"), Installments: 5, InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")})
	p.refused(KindAssessmentLevy, "2026-07-15T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-15")}, ECONFLICT, "published")
	p.must(KindAssessmentPublish, "pclerk", "2026-07-16T09:00", &AssessmentPublish{Project: p.id, PublishedOn: MustDate("2026-07-16"), Publication: "Belleville Recorder"})
	if pr := p.get(); pr.Stage != StageFinal || pr.Final.AppealBy != MustDate("2026-10-14") {
		t.Fatalf("after publication: %+v", pr.Final)
	}
	p.refused(KindAssessmentLevy, "2026-11-02T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-11-01")}, EINVALID, "after the first installment fell due")
	p.must(KindAssessmentLevy, "treas", "2026-07-20T09:00", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-20")})
	p.refused(KindAssessmentLevy, "2026-07-20T09:01", &AssessmentLevy{Project: p.id, LeviedOn: MustDate("2026-07-20")}, ECONFLICT, "assessments levied")

	pr = p.get()
	if pr.Stage != StageLevied || pr.Contemplated() {
		t.Fatalf("after the levy: %s", pr.Stage)
	}
	checkLevy(t, p.tx, pr)
}

// checkLevy checks the levy against the rules it must come from: each
// improvement's shares are 5.14/apportion's, the exempt church and the
// corner deduction are paid by the village, the damages are netted, the
// objected improvement is separate, and the installments add up.
func checkLevy(t *testing.T, tx *staffTx, pr Project) {
	t.Helper()
	ids := district()
	units := []string{"70", "66", "66", "66", "80", "66", "66", "66", "66", "100", "66", "100"}
	in := ApportionInput{TotalCost: MustMoney("66000.00")}
	for i, id := range ids {
		in.Parcels = append(in.Parcels, DistrictParcel{ID: id, Units: MustUnits(units[i]).Decimal(), Exempt: i == 9})
	}
	in.Parcels = append(in.Parcels, DistrictParcel{ID: "corner deduction " + ids[11], Units: MustUnits("50").Decimal(), Exempt: true})
	sewer, err := Apportion(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.TotalCost = MustMoney("33000.00")
	street, _ := Apportion(in, nil)
	total := Cents(0)
	for i, id := range ids {
		var a Assessment
		ok, _ := tx.Get(CollectionAssessments, AssessmentID(pr.ID, id), &a)
		want := sewer.Assessments[i].Assessment.Add(street.Assessments[i].Assessment)
		if i == 2 {
			want = want.Sub(MustMoney("500.00"))
		}
		if i == 9 {
			if ok {
				t.Errorf("the exempt parcel was levied: %+v", a)
			}
			continue
		}
		if !ok || !a.Amount.Equal(want) {
			t.Fatalf("parcel %s levied %s, want %s (%v)", id, a.Amount, want, ok)
		}
		if a.Lines[1].Separate != (i == 6) {
			t.Errorf("parcel %s street line separate %v", id, a.Lines[1].Separate)
		}
		sum := Cents(0)
		for _, in := range a.Installments {
			sum = sum.Add(in.Principal)
		}
		if len(a.Installments) != 5 || !sum.Equal(a.Amount) || a.Installments[4].DueOn != MustDate("2030-10-31") {
			t.Fatalf("installments of %s: %+v", id, a.Installments)
		}
		total = total.Add(a.Amount)
	}
	church := sewer.Assessments[9].VillagePays.Add(street.Assessments[9].VillagePays)
	corner := sewer.Assessments[12].VillagePays.Add(street.Assessments[12].VillagePays)
	if !pr.Levy.Levied.Equal(total) || !pr.Levy.VillagePays.Equal(church.Add(corner)) || !total.Add(church).Add(corner).Add(MustMoney("500.00")).Equal(MustMoney("99000.00")) {
		t.Fatalf("levy %+v: total %s, village pays %s + %s", pr.Levy, total, church, corner)
	}
	if !corner.IsPositive() {
		t.Fatal("the corner deduction is not paid by the village")
	}
}

// TestWaivedProject: when every owner waives notice and hearing in
// writing (§5.14(14)(b)), the final resolution follows the report; one
// owner short, it does not.
func TestWaivedProject(t *testing.T) {
	p := &project{t: t, tx: newDistrictTx(), id: "SA-2026-02"}
	pre := preliminary(p.id)
	pre.District, pre.Installments, pre.Improvements = district()[:3], 1, []string{"Sanitary sewer"}
	p.must(KindAssessmentPreliminary, "board1", "2026-06-02T09:00", pre)
	r := report(p.id)
	r.Parcels, r.Costs = reportParcels()[:3], reportCosts()[:2]
	p.must(KindAssessmentReport, "engineer", "2026-06-15T09:00", r)
	final := &AssessmentFinal{Project: p.id, Number: "2026-41", AdoptedOn: MustDate("2026-06-20"), InterestRate: MustRate("0"), FirstDueOn: MustDate("2026-10-31")}
	p.refused(KindAssessmentOwner, "2026-06-16T09:00", &AssessmentOwner{Op: OwnerObject, Project: p.id, Parcel: district()[0], Improvement: "Sanitary sewer", SignedOn: MustDate("2026-06-16"), Signer: "Owner 1"}, EINVALID, "one improvement")
	for i, id := range district()[:2] {
		p.must(KindAssessmentOwner, "pclerk", fmt.Sprintf("2026-06-1%dT09:00", 6+i), &AssessmentOwner{Op: OwnerWaive, Project: p.id, Parcel: id, SignedOn: MustDate("2026-06-16"), Signer: "Owner"})
	}
	p.refused(KindAssessmentFinal, "2026-06-20T20:00", final, ECONFLICT, "waiver of notice and hearing by every owner")
	p.must(KindAssessmentOwner, "pclerk", "2026-06-19T09:00", &AssessmentOwner{Op: OwnerWaive, Project: p.id, Parcel: district()[2], SignedOn: MustDate("2026-06-19"), Signer: "Owner 3"})
	p.must(KindAssessmentFinal, "board1", "2026-06-20T20:00", final)
	if pr := p.get(); !pr.Final.Waived || pr.Final.Installments != 1 || pr.Stage != StageAdopted {
		t.Fatalf("waived final resolution: %+v", pr.Final)
	}
}

// TestRereferredReport: a re-referral sends the report back to the
// officer; a new report, notice and hearing follow.
func TestRereferredReport(t *testing.T) {
	p := &project{t: t, tx: newDistrictTx(), id: "SA-2026-03"}
	p.must(KindAssessmentPreliminary, "board1", "2026-06-02T09:00", preliminary(p.id))
	p.must(KindAssessmentReport, "engineer", "2026-06-15T09:00", report(p.id))
	p.must(KindAssessmentNotice, "pclerk", "2026-06-20T09:00", notice(p.id))
	p.must(KindAssessmentHearing, "board1", "2026-07-07T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-07-07"), Action: ActionRerefer, Directions: "Assess the street by lot area."})
	p.refused(KindAssessmentFinal, "2026-07-14T20:00", &AssessmentFinal{Project: p.id, Number: "2026-40", AdoptedOn: MustDate("2026-07-14"), Installments: 5, InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")}, ECONFLICT, "re-referred")
	r := report(p.id)
	r.FiledOn = MustDate("2026-07-20")
	p.must(KindAssessmentReport, "engineer", "2026-07-20T09:00", r)
	if pr := p.get(); pr.Stage != StageReported || pr.Reports != 2 || pr.Report.Documents[0].ID != "SA-2026-03~2~1" {
		t.Fatalf("the second report: %+v", pr)
	}
	// The new report needs its own notice before a hearing.
	p.refused(KindAssessmentHearing, "2026-08-05T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-08-05"), Action: ActionApprove}, ECONFLICT, "after its notice")
	n := notice(p.id)
	n.NoticeOn, n.MailedOn, n.HearingOn = MustDate("2026-07-22"), MustDate("2026-07-22"), MustDate("2026-08-05")
	p.must(KindAssessmentNotice, "pclerk", "2026-07-22T09:00", n)
	p.must(KindAssessmentHearing, "board1", "2026-08-05T20:00", &AssessmentHearing{Project: p.id, HeldOn: MustDate("2026-08-05"), Action: ActionDisapprove})
	if pr := p.get(); pr.Stage != StageDisapproved || pr.Contemplated() {
		t.Fatalf("after the disapproval: %s", pr.Stage)
	}
	p.refused(KindAssessmentFinal, "2026-08-12T20:00", &AssessmentFinal{Project: p.id, Number: "2026-45", AdoptedOn: MustDate("2026-08-12"), Installments: 5, InterestRate: MustRate("0.05"), FirstDueOn: MustDate("2026-10-31")}, ECONFLICT, "disapproved")
}
