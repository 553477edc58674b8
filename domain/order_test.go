package domain

import "testing"

// boardVote is the board's vote at the meeting of on, as an award
// records it from ledger format 6 (§5.12(4)).
func boardVote(on string, present, ayes, nays int) *BudgetVoteRecord {
	return &BudgetVoteRecord{On: MustDate(on), Present: present, Ayes: ayes, Nays: nays}
}

// biddenOrder creates an order of estimate on 100-53300 at the start of
// March 2027 with the three bids of amounts (the first is the one the
// tests award), and returns its number.
func biddenOrder(v *village, what string, cat Category, estimate string, amounts ...string) string {
	v.t.Helper()
	id := v.do("admin", "2027-03-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: what, Category: cat, Estimate: MustMoney(estimate)}).Ref
	for i, a := range amounts {
		v.do("admin", "2027-03-02T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: []string{"Morton Salt", "Compass", "Cargill"}[i], Amount: MustMoney(a), Received: MustDate("2027-03-02")}})
	}
	return id
}

// publicRecord is the public record of order id, failing the test
// without one.
func publicRecord(v *village, id string) PublicPurchase {
	v.t.Helper()
	p, err := v.reads().Purchase(id)
	if err != nil {
		v.t.Fatalf("public record of %s: %v", id, err)
	}
	return p
}

// TestPublicRecordPaidOnlyByCheck (§5.12(5), §5.12(6), §5.07(4)): an
// award waits for the treasurer's certification before the public record
// calls it awarded; a delivery invoiced and a claim allowed are not a
// payment; what checks paid on the order's claims is what the record
// shows as paid, in part and then in full; a voided check is not paid.
func TestPublicRecordPaidOnlyByCheck(t *testing.T) {
	v := payablesVillage(t)
	o := biddenOrder(v, "Road salt", CategorySupplies, "4000.00", "4000.00", "4100.00", "4200.00")
	v.do("admin", "2027-03-03T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("4000.00"), On: MustDate("2027-03-03"), Vote: boardVote("2027-03-02", 6, 5, 1)}})
	want := func(step, standing, paid string) {
		t.Helper()
		p := publicRecord(v, o)
		if p.Standing != standing || !p.Paid.Equal(MustMoney(paid)) {
			t.Fatalf("%s: standing %q paid %s, want %q and %s", step, p.Standing, p.Paid, standing, paid)
		}
		all, err := v.reads().Purchases()
		if err != nil || len(all) != 1 || all[0].Standing != standing || !all[0].Paid.Equal(p.Paid) {
			t.Fatalf("%s: the list says %+v (%v)", step, all, err)
		}
	}
	want("awarded, not certified", StandingAwaitingFunds, "0.00")
	v.do("treas", "2027-03-03T11:00", &CertifyFunds{Order: o})
	want("certified", StandingAwarded, "0.00")
	v.do("admin", "2027-03-03T12:00", &OrderChange{Op: OrderIssue, ID: o})
	v.do("admin", "2027-03-10T10:00", &OrderReceipt{Order: o, Delivery: Delivery{On: MustDate("2027-03-10"), Inspector: "Pat Works", Conforms: true, Invoice: "M-1", Invoiced: MustMoney("2500.00")}})
	v.do("admin", "2027-03-20T10:00", &OrderReceipt{Order: o, Delivery: Delivery{On: MustDate("2027-03-20"), Inspector: "Pat Works", Conforms: true, Invoice: "M-2", Invoiced: MustMoney("1500.00"), Final: true}})
	want("delivered and invoiced, nothing paid", StandingAwarded, "0.00")

	claim := func(invoice, amount string) string {
		t.Helper()
		cl := v.do("admin", "2027-03-21T09:00", &ClaimChange{Op: ClaimEnter, Vendor: "Morton Salt", Invoice: invoice, InvoiceDate: MustDate("2027-03-20"), Amount: MustMoney(amount), Line: "100-53300", Order: o, Description: "Road salt"}).Ref
		for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, ""}, {"admin", CertifyConformity, "inspected on delivery"}, {"treas", CertifyValid, ""}} {
			v.do(x.who, "2027-03-21T10:00", &ClaimChange{Op: ClaimCertify, ID: cl, Certification: x.what, Basis: x.basis})
		}
		v.do("treas", "2027-03-21T10:30", &ClaimChange{Op: ClaimEndorse, ID: cl})
		return cl
	}
	first, second := claim("M-1", "2500.00"), claim("M-2", "1500.00")
	want("claims allowed, no check", StandingAwarded, "0.00")
	v.do("treas", "2027-03-22T10:00", &CheckRun{On: MustDate("2027-03-22"), Account: "BOB", Claims: []string{first}, Signatures: []string{"sig-wells", "sig-treas"}})
	want("one claim paid", StandingPaidInPart, "2500.00")
	run := v.do("treas", "2027-03-23T10:00", &CheckRun{On: MustDate("2027-03-23"), Account: "BOB", Claims: []string{second}, Signatures: []string{"sig-wells", "sig-treas"}})
	want("both paid", StandingPaid, "4000.00")
	r, err := v.reads().CheckRun(run.Ref)
	if err != nil {
		t.Fatal(err)
	}
	v.do("treas", "2027-03-24T10:00", &CheckVoid{Number: r.Checks[0], Reason: "lost in the mail"})
	want("the second check voided", StandingPaidInPart, "2500.00")
}

// TestCertificationRefused (§5.12(6)): from ledger format 6 the treasurer
// records the refusal to certify an award's funds, with the reason; the
// order stays awarded and unissued, and its public record says the funds
// were not certified, not that it was awarded. Refusals of the refusal
// change nothing; a ledger at format 5 takes no refusal.
func TestCertificationRefused(t *testing.T) {
	v := adopted2027(t)
	o := biddenOrder(v, "Plow truck", CategoryEquipment, "45000.00", "45000.00", "46000.00", "47000.00")
	v.do("admin", "2027-03-03T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("45000.00"), On: MustDate("2027-03-03"), Vote: boardVote("2027-03-02", 7, 7, 0)}})
	v.refused("treas", "2027-03-04T10:00", &CertifyFunds{Order: o}, ECONFLICT, "less than $45,000.00")
	v.refused("treas", "2027-03-04T10:00", &CertifyFunds{Order: o, Refuse: true}, EINVALID, "Say why")
	v.refused("treas", "2027-03-04T10:00", &CertifyFunds{Order: o, Reason: "short"}, EINVALID, "a refusal does")

	format5 := *v
	format5.tx = v.tx.clone()
	format5.tx.format = BooksFormat
	format5.refused("treas", "2027-03-04T10:00", &CertifyFunds{Order: o, Refuse: true, Reason: "funds not available"}, EINVALID, "from ledger format 6")

	v.do("treas", "2027-03-04T10:00", &CertifyFunds{Order: o, Refuse: true, Reason: "funds not available: $40,000.00 appropriated"})
	ord, err := v.reads().Order(o)
	if err != nil || ord.Status != OrderAwarded || ord.Refused == nil || ord.Refused.By != "treas" || !ord.Refused.Available.Equal(MustMoney("40000.00")) || !ord.Held.IsZero() {
		t.Fatalf("refused order: %+v %v", ord, err)
	}
	if a := v.appropriation(2027, "100-53300"); !a.Encumbered.IsZero() {
		t.Fatalf("a refusal encumbered %s", a.Encumbered)
	}
	p := publicRecord(v, o)
	if p.Standing != StandingFundsRefused || p.Refusal != "funds not available: $40,000.00 appropriated" || !p.Paid.IsZero() {
		t.Fatalf("public record: %+v", p)
	}
	v.refused("treas", "2027-03-05T10:00", &CertifyFunds{Order: o, Refuse: true, Reason: "again"}, ECONFLICT, "were refused")
	v.refused("admin", "2027-03-05T10:00", &OrderChange{Op: OrderIssue, ID: o}, ECONFLICT, "certify the funds")
	v.do("admin", "2027-03-05T11:00", &OrderChange{Op: OrderCancel, ID: o, Reason: "no funds"})
	if p := publicRecord(v, o); p.Standing != StandingCancelled {
		t.Fatalf("cancelled: %q", p.Standing)
	}
}

// TestBoardApprovalIsAVote (§5.12(4)): from ledger format 6 the board's
// approval of an award of 3,000.00 or more is the meeting's date and the
// vote, checked as the budget's votes are, with a quorum present and more
// ayes than nays; free text is refused. Refusals change nothing. A ledger
// at format 5 takes the free text as before and no vote; the public
// record shows either.
func TestBoardApprovalIsAVote(t *testing.T) {
	v := adopted2027(t)
	o := biddenOrder(v, "Road salt", CategorySupplies, "4000.00", "4000.00", "4100.00", "4200.00")
	award := func(vote *BudgetVoteRecord, text, on string) *OrderChange {
		aw := &Award{Vendor: "Morton Salt", Amount: MustMoney("4000.00"), On: MustDate("2027-03-03"), Vote: vote, BoardApproval: text}
		if on != "" {
			aw.BoardApprovedOn = MustDate(on)
		}
		return &OrderChange{Op: OrderAward, ID: o, Award: aw}
	}
	members := boardVote("2027-03-02", 6, 5, 1)
	members.Votes = []MemberVote{{Member: "trustee-a", Vote: "aye"}}
	for _, row := range []struct {
		name string
		p    *OrderChange
		code Code
		want string
	}{
		{"no approval", award(nil, "", ""), EINVALID, "record the meeting's date and the vote"},
		{"free text", award(nil, "motion 2027-03-02 #4", "2027-03-02"), EINVALID, "not as a description"},
		{"free text beside a vote", award(boardVote("2027-03-02", 6, 5, 1), "motion #4", ""), EINVALID, "not as a description"},
		{"a tie", award(boardVote("2027-03-02", 6, 3, 3), "", ""), EINVALID, "did not approve"},
		{"no quorum", award(boardVote("2027-03-02", 3, 3, 0), "", ""), EINVALID, "needs 4 members present"},
		{"more votes than present", award(boardVote("2027-03-02", 5, 4, 2), "", ""), EINVALID, "does not add up"},
		{"more present than the board", award(boardVote("2027-03-02", 8, 6, 2), "", ""), EINVALID, "board size (7)"},
		{"negative nays", award(boardVote("2027-03-02", 6, 5, -1), "", ""), EINVALID, "does not add up"},
		{"meeting after the award", award(boardVote("2027-03-04", 6, 5, 1), "", ""), EINVALID, "comes before the award"},
		{"meeting after today", award(boardVote("2027-03-06", 6, 5, 1), "", ""), EINVALID, "today or before"},
		{"meeting undated", award(&BudgetVoteRecord{Present: 6, Ayes: 5, Nays: 1}, "", ""), EINVALID, "date of the meeting"},
		{"members' votes", award(members, "", ""), EINVALID, "the count of the vote"},
	} {
		t.Run("§5.12(4)/"+row.name, func(t *testing.T) {
			v.refused("admin", "2027-03-05T10:00", row.p, row.code, row.want)
		})
	}

	format5 := *v
	format5.tx = v.tx.clone()
	format5.tx.format = BooksFormat
	t.Run("§5.12(4)/format 5 takes no vote", func(t *testing.T) {
		format5.refused("admin", "2027-03-03T10:00", award(boardVote("2027-03-02", 6, 5, 1), "", ""), EINVALID, "from ledger format 6")
		format5.refused("admin", "2027-03-03T10:00", award(nil, "", ""), EINVALID, "name the motion or resolution and its date")
	})
	t.Run("§5.12(4)/format 5 takes the free text", func(t *testing.T) {
		format5.do("admin", "2027-03-03T10:00", award(nil, "motion 2027-03-02 #4", "2027-03-02"))
		p := publicRecord(&format5, o)
		if p.BoardApproval != "motion 2027-03-02 #4" || p.Vote != nil {
			t.Fatalf("the free text on the record: %+v", p)
		}
	})

	// A quorum of four with 2 ayes, 1 nay and an abstention passes.
	v.do("admin", "2027-03-03T10:00", award(boardVote("2027-03-02", 4, 2, 1), "", ""))
	ord, err := v.reads().Order(o)
	if err != nil {
		t.Fatal(err)
	}
	got := ord.Award.Vote
	if got == nil || !got.Passed || got.Board != 7 || got.Required != 2 || got.By != "admin" || got.On != MustDate("2027-03-02") || ord.Award.BoardApproval != "" {
		t.Fatalf("the vote recorded: %+v", got)
	}
	if p := publicRecord(v, o); p.Vote == nil || p.Vote.Ayes != 2 || p.Vote.Nays != 1 || p.Vote.Present != 4 || p.BoardApproval != "" {
		t.Fatalf("the vote on the public record: %+v", p.Vote)
	}
}

// TestNoticeBeforeBids (§5.13(1)): from ledger format 6 a bid on an order
// expected to cost more than the class 2 threshold (materials and
// supplies, no exception) is refused until the notice's publication is
// recorded, its first insertion on or before the bid's receipt. Orders
// that need no notice take bids as before, and so does a ledger at format
// 5. Refusals change nothing.
func TestNoticeBeforeBids(t *testing.T) {
	v := adopted2027(t)
	order := func(what string, cat Category, estimate string, municipal bool) string {
		return v.do("admin", "2027-03-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53310", Description: what, Category: cat, Estimate: MustMoney(estimate), Municipal: municipal}).Ref
	}
	bid := func(id, vendor, on string) *OrderChange {
		return &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: vendor, Amount: MustMoney("170000.00"), Received: MustDate(on)}}
	}
	asphalt := order("Asphalt for S Vine St", CategoryMaterials, "180000.00", false)
	v.refused("admin", "2027-03-10T10:00", bid(asphalt, "Rock Road", "2027-03-10"), EINVALID, "record the publication of its class 2 notice before its bids")

	format5 := *v
	format5.tx = v.tx.clone()
	format5.tx.format = BooksFormat
	format5.do("admin", "2027-03-10T10:00", bid(asphalt, "Rock Road", "2027-03-10"))

	v.do("admin", "2027-03-18T10:00", &OrderChange{Op: OrderNotice, ID: asphalt, Notices: []Date{MustDate("2027-03-18"), MustDate("2027-03-11")}, BidsOpen: MustDate("2027-03-30")})
	v.refused("admin", "2027-03-18T10:00", bid(asphalt, "Rock Road", "2027-03-10"), EINVALID, "first published on 2027-03-11, after the bid of Rock Road was received on 2027-03-10")
	v.do("admin", "2027-03-18T10:00", bid(asphalt, "Rock Road", "2027-03-11"))
	v.do("admin", "2027-03-29T10:00", bid(asphalt, "Payne & Dolan", "2027-03-29"))

	// No class 2 notice needed: bids as before.
	for _, id := range []string{
		order("Patching mix", CategoryMaterials, "25000.00", false),
		order("Paver", CategoryEquipment, "90000.00", false),
		order("Gravel from the county", CategoryMaterials, "30000.00", true),
	} {
		v.do("admin", "2027-03-10T10:00", bid(id, "Rock Road", "2027-03-10"))
	}
}

// TestClass1Notice (§5.13(1), Wis. Stat. 62.15(1)): from ledger format 6
// a contract for materials or supplies over the class1_notice_threshold,
// up to the class 2 threshold, is awarded only after a class 1 notice (one
// insertion, no day of opening) published on or before the award. Format
// 5 awards it without, and records no notice without the day bids open.
func TestClass1Notice(t *testing.T) {
	v := adopted2027(t)
	o := biddenOrder(v, "Road salt", CategorySupplies, "20000.00", "20000.00", "20500.00", "21000.00")
	award := func(on string) *OrderChange {
		return &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("20000.00"), On: MustDate(on), Vote: boardVote("2027-03-02", 7, 6, 1)}}
	}
	v.refused("admin", "2027-03-06T10:00", award("2027-03-04"), EINVALID, "needs a class 1 notice before it is let")

	format5 := *v
	format5.tx = v.tx.clone()
	format5.tx.format = BooksFormat
	format5.refused("admin", "2027-03-03T10:00", &OrderChange{Op: OrderNotice, ID: o, Notices: []Date{MustDate("2027-03-03")}}, EINVALID, "the day bids are opened")
	format5.do("admin", "2027-03-04T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("20000.00"), On: MustDate("2027-03-04"), BoardApproval: "motion", BoardApprovedOn: MustDate("2027-03-02")}})

	v.refused("admin", "2027-03-05T10:00", &OrderChange{Op: OrderNotice, ID: o, Notices: []Date{{}}}, EINVALID, "the date of each of its insertions")
	v.do("admin", "2027-03-05T10:00", &OrderChange{Op: OrderNotice, ID: o, Notices: []Date{MustDate("2027-03-05")}})
	v.refused("admin", "2027-03-06T10:00", award("2027-03-04"), EINVALID, "published on 2027-03-05, after the award on 2027-03-04")
	v.do("admin", "2027-03-06T10:00", award("2027-03-05"))

	// Equipment, and supplies at the threshold itself, need none.
	for _, x := range []struct {
		cat    Category
		amount string
	}{{CategoryEquipment, "20000.00"}, {CategorySupplies, "5000.00"}} {
		id := biddenOrder(v, "Other", x.cat, x.amount, x.amount, "20500.00", "21000.00")
		v.do("admin", "2027-03-06T10:00", &OrderChange{Op: OrderAward, ID: id, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney(x.amount), On: MustDate("2027-03-06"), Vote: boardVote("2027-03-02", 7, 6, 1)}})
	}
}

// TestNoticeClass (§5.13(1), Wis. Stat. 62.15(1)): which notice an order
// needs, from what it is expected to cost (the award once it is made),
// its category and the grounds on which §5.13 does not apply.
func TestNoticeClass(t *testing.T) {
	on := MustDate("2027-02-01")
	rows := []struct {
		section, name string
		o             Order
		want          int
	}{
		{"5.13(1)", "materials over the class 2 threshold", Order{Category: CategoryMaterials, Estimate: MustMoney("25000.01")}, 2},
		{"5.13(1)", "supplies at the class 2 threshold take the class 1 notice", Order{Category: CategorySupplies, Estimate: MustMoney("25000.00")}, 1},
		{"62.15(1)", "supplies just over the class 1 threshold", Order{Category: CategorySupplies, Estimate: MustMoney("5000.01")}, 1},
		{"62.15(1)", "supplies at the class 1 threshold need none", Order{Category: CategorySupplies, Estimate: MustMoney("5000.00")}, 0},
		{"5.13(1)", "equipment needs none", Order{Category: CategoryEquipment, Estimate: MustMoney("90000.00")}, 0},
		{"5.13(3)", "a contract with another municipality needs none", Order{Category: CategoryMaterials, Estimate: MustMoney("90000.00"), Municipal: true}, 0},
		{"5.13(5)", "the village's own work needs none", Order{Category: CategoryMaterials, Estimate: MustMoney("90000.00"), OwnWork: true}, 0},
		{"5.13(4)", "an emergency declared by resolution needs none", Order{Category: CategoryMaterials, Estimate: MustMoney("90000.00"), EmergencyResolution: "2027-3"}, 0},
		{"5.13(4)", "the emergency declared over", Order{Category: CategoryMaterials, Estimate: MustMoney("90000.00"), EmergencyResolution: "2027-3", EmergencyEnded: MustDate("2027-01-15")}, 2},
		{"62.15(1)", "the award's amount decides once it is made", Order{Category: CategorySupplies, Estimate: MustMoney("30000.00"), Award: &Award{Amount: MustMoney("24000.00")}}, 1},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			got, err := row.o.NoticeClass(on, DefaultParams())
			if err != nil || got != row.want {
				t.Fatalf("class %d, %v; want %d", got, err, row.want)
			}
		})
	}
	if _, err := (Order{Category: "gravel", Estimate: MustMoney("1.00")}).NoticeClass(on, DefaultParams()); err == nil {
		t.Fatal("an unknown category is not an error")
	}
}
