package domain

import (
	"strings"
	"testing"
)

func weeds(id string) *SpecialCharge {
	return &SpecialCharge{ChargeID: id, BillID: "B-" + id, Category: ChargeWeeds, Account: "200101", Parcel: district()[0], Reference: "Work order 2026-114",
		Items: []ChargeItem{{Description: "Mowing, 2 hours", Amount: MustMoney("120.00")}}}
}

// TestSpecialCharges (§5.14(13)): a weed charge is billed to the property
// served as a §5.10 bill, recorded as a charge of its category; never in
// installments; never to an account that does not hold the parcel.
func TestSpecialCharges(t *testing.T) {
	p := &project{t: t, tx: newDistrictTx()}
	bad := weeds("SC-1")
	bad.Installments = 3
	p.refused(KindSpecialCharge, "2026-08-03T09:00", bad, EINVALID, "not payable in installments")
	bad = weeds("SC-1")
	bad.Account = "200102"
	p.refused(KindSpecialCharge, "2026-08-03T09:00", bad, EINVALID, "does not hold parcel")
	bad = weeds("SC-1")
	bad.Category = "parking"
	p.refused(KindSpecialCharge, "2026-08-03T09:00", bad, EINVALID, "not a special charge")
	bad = weeds("SC-1")
	bad.Notice = "RN-1"
	p.refused(KindSpecialCharge, "2026-08-03T09:00", bad, EINVALID, "Only street, sidewalk")
	p.must(KindSpecialCharge, "pclerk", "2026-08-03T09:00", weeds("SC-1"))
	b := p.tx.bills["B-SC-1"]
	if b.Account != "200101" || b.Principal.String() != "120.00" || b.BilledOn != MustDate("2026-08-03") || !strings.Contains(b.Description, "weed elimination") {
		t.Fatalf("the bill: %+v", b)
	}
	charges, err := ReadsOf(txRecords{p.tx}).SpecialChargesOfParcel(district()[0])
	if err != nil || len(charges) != 1 || charges[0].What != ChargeWeeds || ChargeTitle(charges[0].What) != "Special charge: weed elimination (§5.14(13))" {
		t.Fatalf("charges: %+v %v", charges, err)
	}
	if acct, _ := ReadsOf(txRecords{p.tx}).ChargesOfAccount("200101"); len(acct) != 1 {
		t.Fatalf("the account's charges: %+v", acct)
	}
	// Unpaid, it goes on the tax roll like any §5.10 bill.
	if it, ok, err := NovemberItem(b, "certify", 2026, DefaultParams()); err != nil || !ok || !it.Balance.IsPositive() {
		t.Fatalf("the unpaid charge in the November run: %+v %v %v", it, ok, err)
	}
}

// TestRepairChargeNotice (§5.14(13), 5.14/repair-notice): a sidewalk
// repair charge needs its notice published or posted 20 days and mailed
// 10 days before the hearing, and the hearing's decision to do the work.
func TestRepairChargeNotice(t *testing.T) {
	p := &project{t: t, tx: newDistrictTx()}
	repair := func() *SpecialCharge {
		c := weeds("SC-2")
		c.Category, c.Notice, c.Items = ChargeSidewalk, "RN-1", []ChargeItem{{Description: "Replace 12 ft of walk", Amount: MustMoney("336.00")}}
		return c
	}
	c := repair()
	c.Notice = ""
	p.refused(KindSpecialCharge, "2026-09-01T09:00", c, EINVALID, "needs its notice and hearing first")
	n := &RepairNoticeCmd{Op: "notice", ID: "RN-1", Category: ChargeSidewalk, Parcels: district()[:3], Description: "Replace broken sidewalk on Pearl Street", Method: NoticePublication, Newspaper: "Belleville Recorder",
		PublishedOn: MustDate("2026-08-05"), MailedOn: MustDate("2026-08-10"), HearingOn: MustDate("2026-08-24"), HearingAt: "Village hall, 7:00 pm"}
	p.refused(KindRepairNotice, "2026-08-10T09:00", n, EINVALID, "by 2026-08-04 (20 days before)")
	n.PublishedOn, n.MailedOn = MustDate("2026-08-04"), MustDate("2026-08-15")
	p.refused(KindRepairNotice, "2026-08-15T09:00", n, EINVALID, "mailed by 2026-08-14 (10 days before)")
	n.MailedOn = MustDate("2026-08-14")
	n.Category = ChargeWeeds
	p.refused(KindRepairNotice, "2026-08-14T09:00", n, EINVALID, "not one")
	n.Category, n.Method, n.Places = ChargeSidewalk, NoticePosting, []string{"Village hall", "Library"}
	p.refused(KindRepairNotice, "2026-08-14T09:00", n, EINVALID, "3 places")
	n.Places = append(n.Places, "Post office")
	res := p.must(KindRepairNotice, "pclerk", "2026-08-14T09:00", n)
	if !strings.Contains(res.Note, "3 copies mailed") {
		t.Fatalf("notice: %s", res.Note)
	}
	p.refused(KindSpecialCharge, "2026-08-20T09:00", repair(), ECONFLICT, "has not decided")
	p.refused(KindRepairNotice, "2026-08-25T09:00", &RepairNoticeCmd{Op: "hearing", ID: "RN-1", HeldOn: MustDate("2026-08-25"), Decision: RepairPerform}, EINVALID, "new notice")
	p.must(KindRepairNotice, "pclerk", "2026-08-24T21:00", &RepairNoticeCmd{Op: "hearing", ID: "RN-1", HeldOn: MustDate("2026-08-24"), Decision: RepairPerform})
	c = repair()
	c.Parcel, c.Account = district()[5], "200106"
	p.refused(KindSpecialCharge, "2026-09-01T09:00", c, EINVALID, "was not given of sidewalk on parcel")
	p.must(KindSpecialCharge, "pclerk", "2026-09-01T09:00", repair())
	if b := p.tx.bills["B-SC-2"]; !strings.Contains(b.Description, "sidewalk repair") || !strings.Contains(b.Description, "notice RN-1") {
		t.Fatalf("the repair bill: %+v", b)
	}
}
