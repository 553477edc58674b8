package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// txRecords reads a staffTx as the pages read the replicated ledger.
type txRecords struct{ t *staffTx }

func (r txRecords) Get(collection, id string, v any) error {
	b, ok := r.t.records[collection+"/"+id]
	if !ok {
		return Errorf(ENOTFOUND, "", "no %s %q", collection, id)
	}
	return json.Unmarshal(b, v)
}

func (r txRecords) List(collection, prefix string, fn func(string, []byte) error) error {
	var keys []string
	for k := range r.t.records {
		if strings.HasPrefix(k, collection+"/"+prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(strings.TrimPrefix(k, collection+"/"), r.t.records[k]); err != nil {
			return err
		}
	}
	return nil
}

func (r txRecords) Keys(index, prefix string) ([]string, error) {
	var out []string
	for k := range r.t.index {
		if strings.HasPrefix(k, index+"/"+prefix) {
			out = append(out, strings.TrimPrefix(k, index+"/"))
		}
	}
	slices.Sort(out)
	return out, nil
}

// village is a ledger with the chart, the staff and the board of the
// budget tests.
type village struct {
	t  *testing.T
	tx *staffTx
}

func (v *village) reads() Reads { return ReadsOf(txRecords{v.tx}) }

// do applies a command of payload p by actor at time at ("2026-09-10T10:00")
// and fails the test if the ledger refuses it.
func (v *village) do(actor, at string, p Payload) Result {
	v.t.Helper()
	res, err := v.try(actor, at, p)
	if err != nil {
		v.t.Fatalf("%s by %s at %s: %v", p.Kind(), actor, at, err)
	}
	return res
}

func (v *village) try(actor, at string, p Payload) (Result, error) {
	v.t.Helper()
	c := staffCmd(p.Kind(), actor, at)
	c.Payload = p
	return v.tx.run(v.t, c)
}

// refused applies p and checks that it is refused with code, a message
// containing want, and no change to the ledger.
func (v *village) refused(actor, at string, p Payload, code Code, want string) {
	v.t.Helper()
	before := v.tx.clone()
	_, err := v.try(actor, at, p)
	if ErrorCode(err) != code || !strings.Contains(ErrorMessage(err), want) {
		v.t.Fatalf("%s: err = %v (%s), want %s containing %q", p.Kind(), err, ErrorCode(err), code, want)
	}
	if !maps2Equal(before.records, v.tx.records) {
		v.t.Fatalf("%s was refused but changed the ledger", p.Kind())
	}
}

func maps2Equal(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if string(b[k]) != string(x) {
			return false
		}
	}
	return true
}

func (v *village) appropriation(year int, line string) Appropriation {
	v.t.Helper()
	a, err := v.reads().Appropriation(year, line)
	if err != nil {
		v.t.Fatal(err)
	}
	return a
}

var board7 = []string{"president-wells", "trustee-ames", "trustee-berg", "trustee-cruz", "trustee-diaz", "trustee-eng", "trustee-fox"}

func newVillage(t *testing.T) *village { return newVillageAt(t, 0) }

// newVillageAt is newVillage on a ledger of format format (zero: the
// current one).
func newVillageAt(t *testing.T, format int) *village {
	v := &village{t: t, tx: newStaffTx()}
	v.tx.format = format
	for _, u := range []StaffUserChange{
		{Op: StaffAdd, Username: "admin", Name: "Ada Admin", Role: RoleAdministrator, PasswordHash: "h"},
		{Op: StaffAdd, Username: "treas", Name: "Tom Treasurer", Role: RoleTreasurer, PasswordHash: "h"},
		{Op: StaffAdd, Username: "clerk", Name: "Cleo Clerk", Role: RoleClerk, PasswordHash: "h"},
	} {
		v.do("setup", "2026-01-05T09:00", &u)
	}
	v.do("admin", "2026-01-05T09:00", &ChartChange{Source: "form", Accounts: []ChartAccount{
		{Code: "100", Type: AccountFund, Name: "General fund", General: true},
		{Code: "ADMIN", Type: AccountDepartment, Name: "Administration", Fund: "100"},
		{Code: "PW", Type: AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "PARKS", Type: AccountCommission, Name: "Park commission", Fund: "100"},
		{Code: "100-41110", Type: AccountRevenue, Name: "General property taxes", Fund: "100", Major: "Taxes"},
		{Code: "100-46100", Type: AccountRevenue, Name: "Charges for services", Fund: "100", Major: "Public charges for services", Sources: []string{SourceBills, SourceStatusLetters}},
		{Code: "100-51400", Type: AccountExpenditure, Name: "Administration", Fund: "100", Unit: "ADMIN", Major: "General government"},
		{Code: "100-53300", Type: AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works"},
		{Code: "100-53310", Type: AccountExpenditure, Name: "Street reconstruction", Fund: "100", Unit: "PW", Major: "Public works"},
		{Code: "100-55200", Type: AccountExpenditure, Name: "Parks", Fund: "100", Unit: "PARKS", Major: "Culture, recreation and education"},
	}})
	v.do("admin", "2026-01-05T09:05", &StaffUserChange{Op: StaffAdd, Username: "pwhead", Name: "Pat Works", Role: RoleDepartmentHead, Unit: "PW", PasswordHash: "h"})
	for i, id := range board7 {
		seat := "trustee"
		if i == 0 {
			seat = "president"
		}
		v.do("admin", "2026-01-05T09:10", &BoardMember{ID: id, Name: strings.ToUpper(id[strings.Index(id, "-")+1:][:1]) + id[strings.Index(id, "-")+2:], Seat: seat, From: MustDate("2025-04-15")})
	}
	return v
}

func votes(ayes, nays, absent int) ([]MemberVote, int) {
	var vs []MemberVote
	for i, id := range board7 {
		switch {
		case i < ayes:
			vs = append(vs, MemberVote{Member: id, Vote: "aye"})
		case i < ayes+nays:
			vs = append(vs, MemberVote{Member: id, Vote: "nay"})
		case i < ayes+nays+absent:
			vs = append(vs, MemberVote{Member: id, Vote: "absent"})
		}
	}
	return vs, ayes + nays
}

// proposal2027 is the budget the tests adopt.
func proposal2027() *BudgetProposal {
	return &BudgetProposal{Year: 2027,
		Lines: []BudgetLine{
			{Account: "100-41110", Amount: MustMoney("900000.00")},
			{Account: "100-46100", Amount: MustMoney("120000.00")},
			{Account: "100-51400", Amount: MustMoney("300000.00")},
			{Account: "100-53300", Amount: MustMoney("40000.00")},
			{Account: "100-53310", Amount: MustMoney("500000.00"), Continuing: true, Purpose: "Reconstruction of S Vine St"},
			{Account: "100-55200", Amount: MustMoney("80000.00")},
		},
		Debts:     []Debt{{Description: "2019 GO promissory note", Outstanding: MustMoney("1200000.00"), DueInYear: MustMoney("150000.00")}},
		Financing: []Financing{{Description: "Transfer from the water utility", Fund: "100", Amount: MustMoney("25000.00")}},
		Balances:  []FundBalance{{Fund: "100", Beginning: MustMoney("410000.00")}},
		Sections:  []BudgetSection{{Title: "Levy limit worksheet", Body: "The levy is within the limit of Wis. Stat. 66.0602."}},
	}
}

// adopted2027 takes the village through the cycle to an adopted 2027
// budget: estimates, proposal, notice, hearing, adoption.
func adopted2027(t *testing.T) *village { return adopted2027At(t, 0) }

// adopted2027At is adopted2027 on a ledger of format format (zero: the
// current one).
func adopted2027At(t *testing.T, format int) *village {
	v := newVillageAt(t, format)
	v.do("pwhead", "2026-09-10T10:00", &Estimate{Year: 2027, Unit: "PW", Lines: []EstimateLine{
		{Account: "100-53300", Prior: MustMoney("36000.00"), Current: MustMoney("38500.00"), Next: MustMoney("40000.00")},
		{Account: "100-53310", Prior: MustMoney("0.00"), Current: MustMoney("0.00"), Next: MustMoney("500000.00")},
	}})
	v.do("admin", "2026-10-01T10:00", proposal2027())
	v.do("clerk", "2026-10-20T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "hearing", Published: MustDate("2026-10-20"), Newspaper: "Belleville Recorder"}})
	v.do("clerk", "2026-11-04T20:00", &BudgetHearingChange{Year: 2027, BudgetHearing: BudgetHearing{On: MustDate("2026-11-04")}})
	vs, present := votes(5, 1, 1)
	v.do("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: vs, Present: present})
	return v
}

// TestBudgetCycle: estimates filed and tracked, the proposal, its hearing
// and notice, and the adoption by two thirds of those present, which makes
// the year's appropriations.
func TestBudgetCycle(t *testing.T) {
	v := newVillage(t)
	v.do("pwhead", "2026-09-10T10:00", &Estimate{Year: 2027, Unit: "PW", Lines: []EstimateLine{
		{Account: "100-53300", Prior: MustMoney("36000.00"), Current: MustMoney("38500.00"), Next: MustMoney("40000.00")},
	}})
	// A department head files for their own unit only.
	v.refused("pwhead", "2026-09-10T10:05", &Estimate{Year: 2027, Unit: "ADMIN", Lines: []EstimateLine{{Account: "100-51400", Next: MustMoney("1.00")}}}, EFORBIDDEN, "heads PW")
	// An estimate for a unit that does not exist.
	v.refused("admin", "2026-09-10T10:05", &Estimate{Year: 2027, Unit: "FIRE", Lines: []EstimateLine{{Account: "100-51400", Next: MustMoney("1.00")}}}, EINVALID, `"FIRE"`)
	// Another unit's account.
	v.refused("admin", "2026-09-10T10:05", &Estimate{Year: 2027, Unit: "ADMIN", Lines: []EstimateLine{{Account: "100-53300", Next: MustMoney("1.00")}}}, EINVALID, "belongs to PW")

	track, err := v.reads().EstimateTracker(2027, MustDate("2026-09-15"))
	if err != nil {
		t.Fatal(err)
	}
	late := func(track []EstimateStatus) (filed, lateUnits []string) {
		for _, s := range track {
			if s.Estimate != nil {
				filed = append(filed, s.Unit.Code)
			}
			if s.Late {
				lateUnits = append(lateUnits, s.Unit.Code)
			}
		}
		return
	}
	if f, l := late(track); !slices.Equal(f, []string{"PW"}) || len(l) != 0 {
		t.Fatalf("on September 15: filed %v late %v", f, l)
	}
	track, _ = v.reads().EstimateTracker(2027, MustDate("2026-09-16"))
	if f, l := late(track); !slices.Equal(f, []string{"PW"}) || !slices.Equal(l, []string{"ADMIN", "PARKS"}) {
		t.Fatalf("on September 16: filed %v late %v", f, l)
	}
	// A filing after the 15th is marked late; it replaces the first and
	// the history keeps both.
	v.do("pwhead", "2026-09-20T10:00", &Estimate{Year: 2027, Unit: "PW", Lines: []EstimateLine{
		{Account: "100-53300", Prior: MustMoney("36000.00"), Current: MustMoney("38500.00"), Next: MustMoney("41000.00")},
	}})
	hist, _ := v.reads().EstimateHistory(2027, "PW")
	if len(hist) != 2 || hist[0].Late || !hist[1].Late || hist[1].Version != 2 {
		t.Fatalf("history: %+v", hist)
	}

	v.do("admin", "2026-10-01T10:00", proposal2027())
	// A hearing needs its notice 15 days before.
	v.do("clerk", "2026-10-20T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "hearing", Published: MustDate("2026-10-20"), Newspaper: "Belleville Recorder"}})
	v.refused("clerk", "2026-11-03T20:00", &BudgetHearingChange{Year: 2027, BudgetHearing: BudgetHearing{On: MustDate("2026-11-03")}}, EINVALID, "on or before 2026-10-19")
	// No adoption before the hearing.
	vs, present := votes(6, 0, 1)
	v.refused("clerk", "2026-11-03T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-03"), Votes: vs, Present: present}, EINVALID, "after its hearing")
	v.do("clerk", "2026-11-04T20:00", &BudgetHearingChange{Year: 2027, BudgetHearing: BudgetHearing{On: MustDate("2026-11-04")}})

	// A vote with more ayes than members present.
	vs, _ = votes(6, 0, 1)
	v.refused("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: vs, Present: 5}, EINVALID, "6 ayes but only 5 members present")
	// A member who votes twice, and one who is not on the board.
	twice := append(slices.Clone(vs[:5]), MemberVote{Member: board7[0], Vote: "nay"})
	v.refused("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: twice, Present: 6}, EINVALID, "votes twice")
	v.refused("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: []MemberVote{{Member: "mayor-x", Vote: "aye"}}, Present: 1}, EINVALID, "not a member")

	// 3 ayes of 5 present is less than two thirds (4): the vote fails,
	// is recorded, and the budget stays proposed.
	vs, present = votes(3, 2, 2)
	v.do("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: vs, Present: present})
	b, _, _ := v.reads().Budget(2027)
	if b.Status != BudgetProposed || len(b.Votes) != 1 || b.Votes[0].Passed || b.Votes[0].Required != 4 {
		t.Fatalf("after a failed vote: status %s votes %+v", b.Status, b.Votes)
	}
	if _, ok, _ := v.reads().FiscalYear(2027); ok {
		t.Fatal("a failed vote made appropriations")
	}
	// 4 of 5 present passes.
	vs, present = votes(4, 1, 2)
	v.do("clerk", "2026-11-04T21:10", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: vs, Present: present})
	b, _, _ = v.reads().Budget(2027)
	if b.Status != BudgetAdopted || b.AdoptedOn != MustDate("2026-11-04") {
		t.Fatalf("after adoption: %+v", b)
	}
	if a := v.appropriation(2027, "100-53310"); !a.Amount().Equal(MustMoney("500000.00")) || !a.Continuing || a.Unit != "PW" {
		t.Fatalf("appropriation: %+v", a)
	}
	if _, err := v.reads().Appropriation(2027, "100-41110"); ErrorCode(err) != ENOTFOUND {
		t.Fatalf("a revenue line has an appropriation: %v", err)
	}
	// Frozen: no new proposal, no new estimates.
	v.refused("admin", "2026-11-05T10:00", proposal2027(), ECONFLICT, "only an amendment")
	v.refused("pwhead", "2026-11-05T10:00", &Estimate{Year: 2027, Unit: "PW", Lines: []EstimateLine{{Account: "100-53300", Next: MustMoney("1.00")}}}, ECONFLICT, "estimates are closed")
	versions, _ := v.reads().BudgetVersions(2027)
	if len(versions) != 5 || versions[0].Status != BudgetProposed || versions[len(versions)-1].Status != BudgetAdopted {
		t.Fatalf("versions: %d", len(versions))
	}
}

// TestBudgetAmendment: an amendment needs two thirds of the entire board,
// whoever is present, and may not come before the adoption; its notice is
// tracked.
func TestBudgetAmendment(t *testing.T) {
	v := adopted2027(t)
	change := []AmendLine{{Account: "100-55200", Change: MustMoney("15000.00")}}
	vs, present := votes(4, 0, 3)
	v.refused("clerk", "2026-11-05T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2026-11-01"), Votes: vs, Present: present, Changes: change, Purpose: "Playground"}, EINVALID, "before the adoption")
	// 4 of 7 ayes, all 4 present: fails (5 required), recorded, nothing else changes.
	v.do("clerk", "2027-03-10T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2027-03-10"), Votes: vs, Present: present, Changes: change, Purpose: "Playground"})
	if a := v.appropriation(2027, "100-55200"); !a.Amount().Equal(MustMoney("80000.00")) {
		t.Fatalf("a failed amendment changed the appropriation: %s", a.Amount())
	}
	b, _, _ := v.reads().Budget(2027)
	if last := b.Votes[len(b.Votes)-1]; last.Passed || last.Required != 5 || b.Amendments != 0 {
		t.Fatalf("failed amendment: %+v", last)
	}
	vs, present = votes(5, 2, 0)
	v.do("clerk", "2027-03-24T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2027-03-24"), Votes: vs, Present: present, Changes: change, Purpose: "Playground"})
	if a := v.appropriation(2027, "100-55200"); !a.Amount().Equal(MustMoney("95000.00")) || !a.Amended.Equal(MustMoney("15000.00")) {
		t.Fatalf("amended appropriation: %+v", a)
	}
	b, _, _ = v.reads().Budget(2027)
	if b.Amendments != 1 {
		t.Fatalf("amendments = %d", b.Amendments)
	}
	v.refused("clerk", "2027-03-25T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "amendment", Amendment: 2, Published: MustDate("2027-03-25"), Newspaper: "Belleville Recorder"}}, EINVALID, "no amendment 2")
	v.do("clerk", "2027-03-30T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "amendment", Amendment: 1, Published: MustDate("2027-03-30"), Newspaper: "Belleville Recorder"}})
	// No amendment may take an appropriation below what is committed.
	v.do("admin", "2027-04-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-55200", Description: "Mulch", Category: CategorySupplies, Estimate: MustMoney("2000.00")})
	orders, _ := v.reads().Orders(2027)
	id := orders[0].ID
	v.do("admin", "2027-04-02T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: "Mulch Co", Amount: MustMoney("1900.00"), Received: MustDate("2027-04-02")}})
	v.do("admin", "2027-04-03T10:00", &OrderChange{Op: OrderAward, ID: id, Award: &Award{Vendor: "Mulch Co", Amount: MustMoney("1900.00"), On: MustDate("2027-04-03"), Reasons: "only one bidder answered"}})
	v.do("treas", "2027-04-03T11:00", &CertifyFunds{Order: id})
	vs, present = votes(7, 0, 0)
	v.refused("clerk", "2027-04-10T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2027-04-10"), Votes: vs, Present: present, Changes: []AmendLine{{Account: "100-55200", Change: MustMoney("-94000.00")}}, Purpose: "cut"}, ECONFLICT, "below what is already spent and encumbered")
}

// TestAppropriationControl: an order is drawn against one appropriation,
// certified (encumbered) by the treasurer before it is issued, and
// refused when more than is available; its delivery charges the
// appropriation; the record of §5.16 lists it.
func TestAppropriationControl(t *testing.T) {
	v := adopted2027(t)
	// Before the year begins there is no appropriation to draw on for 2026.
	v.refused("admin", "2026-12-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Salt", Category: CategorySupplies, Estimate: MustMoney("100.00")}, EINVALID, "no appropriation for 100-53300 in 2026")

	create := func(at, line, what string, est string, cat Category) string {
		r := v.do("admin", at, &OrderChange{Op: OrderCreate, Line: line, Description: what, Category: cat, Estimate: MustMoney(est)})
		return r.Ref
	}
	bid := func(id, vendor, amount, on string) {
		v.do("admin", on+"T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: vendor, Amount: MustMoney(amount), Received: MustDate(on)}})
	}
	salt := create("2027-01-10T10:00", "100-53300", "Road salt, 60 tons", "4800.00", CategorySupplies)
	if salt != "PO-2027-0001" {
		t.Fatalf("order number %q", salt)
	}
	bid(salt, "Compass Minerals", "4700.00", "2027-01-11")
	bid(salt, "Morton Salt", "4650.00", "2027-01-12")
	// Board approval from 3,000.00.
	v.refused("admin", "2027-01-13T10:00", &OrderChange{Op: OrderAward, ID: salt, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("4650.00"), On: MustDate("2027-01-13"), Reasons: "two bidders"}}, EINVALID, "board's approval")
	v.refused("admin", "2027-01-13T10:00", &OrderChange{Op: OrderAward, ID: salt, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("4650.00"), On: MustDate("2027-01-13")}}, EINVALID, "at least three bids")
	v.do("admin", "2027-01-13T10:00", &OrderChange{Op: OrderAward, ID: salt, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("4650.00"), On: MustDate("2027-01-13"), Reasons: "only two suppliers deliver here", Vote: boardVote("2027-01-12", 7, 6, 1)}})
	// A second award, and a bid after the award.
	v.refused("admin", "2027-01-14T10:00", &OrderChange{Op: OrderAward, ID: salt, Award: &Award{Vendor: "Compass Minerals", Amount: MustMoney("4700.00"), On: MustDate("2027-01-14")}}, ECONFLICT, "awarded on 2027-01-13")
	v.refused("admin", "2027-01-14T10:00", &OrderChange{Op: OrderBidOp, ID: salt, Bid: &OrderBid{Vendor: "Late Salt", Amount: MustMoney("1.00"), Received: MustDate("2027-01-14")}}, ECONFLICT, "no bid is taken after the award")
	// Not issued before the treasurer certifies the funds.
	v.refused("admin", "2027-01-14T10:00", &OrderChange{Op: OrderIssue, ID: salt}, ECONFLICT, "certify the funds")
	v.do("treas", "2027-01-14T11:00", &CertifyFunds{Order: salt})
	v.refused("treas", "2027-01-14T11:05", &CertifyFunds{Order: salt}, ECONFLICT, "is certified")
	a := v.appropriation(2027, "100-53300")
	if !a.Encumbered.Equal(MustMoney("4650.00")) || !a.Available().Equal(MustMoney("35350.00")) {
		t.Fatalf("after certification: encumbered %s available %s", a.Encumbered, a.Available())
	}
	v.do("admin", "2027-01-14T12:00", &OrderChange{Op: OrderIssue, ID: salt})
	o, _ := v.reads().Order(salt)
	if o.Status != OrderIssued || o.Certified.By != "treas" || o.Issued.By != "admin" || !o.Certified.Available.Equal(MustMoney("40000.00")) {
		t.Fatalf("issued order: %+v", o)
	}

	// An order over what is available is refused at the certification,
	// before it is issued.
	plow := create("2027-02-01T10:00", "100-53300", "Snow plow blade", "36000.00", CategoryEquipment)
	bid(plow, "Plow A", "36000.00", "2027-02-02")
	bid(plow, "Plow B", "36500.00", "2027-02-02")
	bid(plow, "Plow C", "37000.00", "2027-02-02")
	v.do("admin", "2027-02-03T10:00", &OrderChange{Op: OrderAward, ID: plow, Award: &Award{Vendor: "Plow A", Amount: MustMoney("36000.00"), On: MustDate("2027-02-03"), Vote: boardVote("2027-02-02", 7, 6, 1)}})
	v.refused("treas", "2027-02-03T11:00", &CertifyFunds{Order: plow}, ECONFLICT, "has $35,350.00 available, less than $36,000.00")
	v.refused("admin", "2027-02-03T12:00", &OrderChange{Op: OrderIssue, ID: plow}, ECONFLICT, "certify the funds")
	v.do("admin", "2027-02-04T10:00", &OrderChange{Op: OrderCancel, ID: plow, Reason: "no funds; to next year's budget"})

	// The delivery of the salt: inspected, invoiced for less, with a test
	// of a sample charged to the same appropriation; the final delivery
	// releases the rest of the encumbrance.
	v.refused("admin", "2027-01-20T10:00", &OrderReceipt{Order: salt, Delivery: Delivery{On: MustDate("2027-01-20"), Inspector: "Pat Works", Conforms: true, Invoiced: MustMoney("4600.00")}}, EINVALID, "invoice number")
	v.do("admin", "2027-01-20T10:00", &OrderReceipt{Order: salt, Delivery: Delivery{On: MustDate("2027-01-20"), Inspector: "Pat Works", Conforms: true, Invoice: "M-99812", Invoiced: MustMoney("4600.00"),
		Tests: []TestCharge{{Description: "chloride content of a sample", Cost: MustMoney("85.00")}}, Final: true}})
	a = v.appropriation(2027, "100-53300")
	if !a.Encumbered.IsZero() || !a.Expended.Equal(MustMoney("4685.00")) || !a.Available().Equal(MustMoney("35315.00")) {
		t.Fatalf("after delivery: encumbered %s expended %s available %s", a.Encumbered, a.Expended, a.Available())
	}
	var types []string
	for _, ch := range a.Charges {
		types = append(types, ch.Type+":"+ch.Ref)
	}
	if want := []string{"order:" + salt, "expense:EXP-2027-00001", "expense:EXP-2027-00002"}; !slices.Equal(types, want) {
		t.Fatalf("the record of the appropriation: %v, want %v", types, want)
	}
	// The books hold 2027 whole: its actuals are theirs, and from ledger
	// format 6 the ledger keeps no count of its own beside them.
	acts, _ := v.reads().YearActuals(2027)
	if acts.From != FromBooks || len(acts.Months) != 1 || acts.Months[0].Account != "100-53300" || acts.Months[0].Month != 1 || !acts.Months[0].Expended.Equal(MustMoney("4685.00")) {
		t.Fatalf("actuals: %+v", acts)
	}
	if old, _ := v.reads().Actuals(2027); len(old) != 0 {
		t.Fatalf("the ledger's own actuals at format 6: %+v", old)
	}
	// The public record of the order.
	pub, _ := v.reads().Purchases()
	if len(pub) != 2 || pub[0].ID != plow || pub[1].ID != salt || pub[1].Invoice != "M-99812" || len(pub[1].Bids) != 2 {
		t.Fatalf("public records: %+v", pub)
	}

	// §5.16: an employment needs the board's approval and available money.
	v.refused("admin", "2027-03-01T10:00", &Employment{Line: "100-51400", Person: "Sam Seasonal", Position: "Seasonal clerk", Amount: MustMoney("6000.00"), From: MustDate("2027-05-01")}, EINVALID, "board's approval")
	v.refused("admin", "2027-03-01T10:00", &Employment{Line: "100-51400", Person: "Sam Seasonal", Position: "Seasonal clerk", Amount: MustMoney("300000.01"), From: MustDate("2027-05-01"), Approval: "motion 2027-02-20 #7", ApprovedOn: MustDate("2027-02-20")}, ECONFLICT, "less than $300,000.01")
	emp := v.do("admin", "2027-03-01T10:00", &Employment{Line: "100-51400", Person: "Sam Seasonal", Position: "Seasonal clerk", Amount: MustMoney("6000.00"), From: MustDate("2027-05-01"), Approval: "motion 2027-02-20 #7", ApprovedOn: MustDate("2027-02-20")}).Ref
	// The payroll charged as an expense, as a ledger at format 5 does.
	v.doAt(BooksFormat, "treas", "2027-05-31T10:00", &Expense{Line: "100-51400", On: MustDate("2027-05-31"), Amount: MustMoney("1500.00"), Payee: "Sam Seasonal", Description: "May wages", Against: emp})
	a = v.appropriation(2027, "100-51400")
	if !a.Encumbered.Equal(MustMoney("4500.00")) || !a.Expended.Equal(MustMoney("1500.00")) {
		t.Fatalf("employment: encumbered %s expended %s", a.Encumbered, a.Expended)
	}
}

// TestEmergencyPurchases: a buyer buys directly in an emergency under
// their limit, the certification waived; over it, the ordinary rules
// apply.
func TestEmergencyPurchases(t *testing.T) {
	v := adopted2027(t)
	// The department head: under 500.00.
	r := v.do("pwhead", "2027-02-10T07:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Hydraulic hose for the plow", Category: CategoryMaterials, Estimate: MustMoney("480.00"), Emergency: true, Explanation: "The plow's hose burst during a storm."})
	v.do("pwhead", "2027-02-10T07:30", &OrderChange{Op: OrderAward, ID: r.Ref, Award: &Award{Vendor: "Farm & Fleet", Amount: MustMoney("480.00"), On: MustDate("2027-02-10")}})
	o, _ := v.reads().Order(r.Ref)
	if o.Status != OrderCertified || o.Award.Basis != "emergency" || o.Buyer != BuyerDepartmentHead {
		t.Fatalf("emergency order: %+v", o)
	}
	v.do("pwhead", "2027-02-10T08:00", &OrderReceipt{Order: r.Ref, Delivery: Delivery{On: MustDate("2027-02-10"), Inspector: "Pat Works", Conforms: true, Invoice: "FF-1", Invoiced: MustMoney("480.00"), Final: true}})
	pub, _ := v.reads().Purchase(r.Ref)
	if !pub.Emergency || pub.Invoice != "FF-1" || pub.Explanation == "" {
		t.Fatalf("the emergency's public record: %+v", pub)
	}
	// 600.00 is over the department head's limit.
	r = v.do("pwhead", "2027-02-11T07:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Pump", Category: CategoryEquipment, Estimate: MustMoney("600.00"), Emergency: true, Explanation: "Flooded lift station."})
	v.refused("pwhead", "2027-02-11T07:30", &OrderChange{Op: OrderAward, ID: r.Ref, Award: &Award{Vendor: "Pumps Inc", Amount: MustMoney("600.00"), On: MustDate("2027-02-11")}}, EFORBIDDEN, "only under $500.00")
	// The Purchasing Agent: under 2,500.00 directly; 2,500.00 needs bids.
	r = v.do("admin", "2027-02-12T07:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Furnace repair", Category: CategoryContractualServices, Estimate: MustMoney("2500.00"), Emergency: true, Explanation: "No heat in the garage at -20F."})
	v.refused("admin", "2027-02-12T07:30", &OrderChange{Op: OrderAward, ID: r.Ref, Award: &Award{Vendor: "HVAC Co", Amount: MustMoney("2500.00"), On: MustDate("2027-02-12")}}, EINVALID, "no bids")
	v.do("admin", "2027-02-12T07:40", &OrderChange{Op: OrderAward, ID: r.Ref, Award: &Award{Vendor: "HVAC Co", Amount: MustMoney("2499.99"), On: MustDate("2027-02-12")}})
	// A department head does not take bids or buy outside an emergency.
	v.refused("pwhead", "2027-02-13T07:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Cones", Category: CategorySupplies, Estimate: MustMoney("100.00")}, EFORBIDDEN, "requisition")
	v.refused("pwhead", "2027-02-13T07:00", &OrderChange{Op: OrderCreate, Line: "100-51400", Description: "Toner", Category: CategorySupplies, Estimate: MustMoney("100.00"), Emergency: true, Explanation: "x"}, EFORBIDDEN, "heads PW")
}

// TestPublicContract: materials over 25,000.00 need a class 2 notice
// that qualifies before bids open, and go to the lowest responsible
// bidder unless reasons are given; another municipality is an exception.
func TestPublicContract(t *testing.T) {
	v := adopted2027(t)
	id := v.do("admin", "2027-03-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53310", Description: "Asphalt for S Vine St", Category: CategoryMaterials, Estimate: MustMoney("180000.00")}).Ref
	// The bids are taken as a ledger before format 6 took them, before
	// the notice is recorded (from format 6 they wait for it:
	// TestNoticeBeforeBids), so that the award meets each defect of the
	// notice below.
	for _, b := range []struct{ vendor, amount string }{{"Payne & Dolan", "172000.00"}, {"Rock Road", "169500.00"}, {"Wolf Paving", "175000.00"}} {
		v.doAt(BooksFormat, "admin", "2027-03-29T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: b.vendor, Amount: MustMoney(b.amount), Received: MustDate("2027-03-29")}})
	}
	award := func(vendor, amount, reasons string) *OrderChange {
		return &OrderChange{Op: OrderAward, ID: id, Award: &Award{Vendor: vendor, Amount: MustMoney(amount), On: MustDate("2027-04-06"), Reasons: reasons, Vote: boardVote("2027-04-05", 7, 6, 1)}}
	}
	v.refused("admin", "2027-04-06T10:00", award("Rock Road", "169500.00", ""), EINVALID, "needs a class 2 notice")
	// One insertion is not enough; two in the same week do not qualify.
	v.do("admin", "2027-03-02T10:00", &OrderChange{Op: OrderNotice, ID: id, Notices: []Date{MustDate("2027-03-11")}, BidsOpen: MustDate("2027-03-30")})
	v.refused("admin", "2027-04-06T10:00", award("Rock Road", "169500.00", ""), EINVALID, "the first by 2027-03-16 and the second by 2027-03-23")
	v.do("admin", "2027-03-02T10:05", &OrderChange{Op: OrderNotice, ID: id, Notices: []Date{MustDate("2027-03-11"), MustDate("2027-03-12")}, BidsOpen: MustDate("2027-03-30")})
	v.refused("admin", "2027-04-06T10:00", award("Rock Road", "169500.00", ""), EINVALID, "does not qualify")
	v.do("admin", "2027-03-02T10:10", &OrderChange{Op: OrderNotice, ID: id, Notices: []Date{MustDate("2027-03-11"), MustDate("2027-03-18")}, BidsOpen: MustDate("2027-03-30")})
	// A bid after the bids opened is refused.
	v.refused("admin", "2027-03-31T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: "Late Paving", Amount: MustMoney("100000.00"), Received: MustDate("2027-03-31")}}, EINVALID, "after the bids were opened")
	// Passing over the lowest bidder needs reasons.
	v.refused("admin", "2027-04-06T10:00", award("Payne & Dolan", "172000.00", ""), EINVALID, "lowest responsible bidder")
	v.do("admin", "2027-04-06T10:00", award("Rock Road", "169500.00", ""))
	o, _ := v.reads().Order(id)
	if o.Award.Basis != AwardLowestResponsibleBidder || !o.Rule.Class2NoticeRequired {
		t.Fatalf("award: %+v rule %+v", o.Award, o.Rule)
	}
	// Another municipality: §5.13 does not apply.
	m := v.do("admin", "2027-03-01T11:00", &OrderChange{Op: OrderCreate, Line: "100-53310", Description: "Gravel from the county", Category: CategoryMaterials, Estimate: MustMoney("30000.00"), Municipal: true}).Ref
	for _, b := range []string{"Dane County Highway"} {
		v.do("admin", "2027-03-02T10:00", &OrderChange{Op: OrderBidOp, ID: m, Bid: &OrderBid{Vendor: b, Amount: MustMoney("30000.00"), Received: MustDate("2027-03-02")}})
	}
	v.do("admin", "2027-03-03T10:00", &OrderChange{Op: OrderAward, ID: m, Award: &Award{Vendor: "Dane County Highway", Amount: MustMoney("30000.00"), On: MustDate("2027-03-03"), Reasons: "intergovernmental agreement", Vote: boardVote("2027-03-02", 7, 6, 1)}})
	pub, _ := v.reads().Purchase(m)
	if !strings.Contains(pub.Ground, "§5.13(3)") {
		t.Fatalf("ground: %q", pub.Ground)
	}
}

// TestYearEndClose: on or after the last day of the year, unencumbered
// balances lapse to the general fund; open orders and continuing
// appropriations carry forward; nothing more is drawn on a closed year.
func TestYearEndClose(t *testing.T) {
	v := adopted2027(t)
	id := v.do("admin", "2027-11-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Salt for the winter", Category: CategorySupplies, Estimate: MustMoney("2000.00")}).Ref
	v.do("admin", "2027-11-02T10:00", &OrderChange{Op: OrderBidOp, ID: id, Bid: &OrderBid{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), Received: MustDate("2027-11-02")}})
	v.do("admin", "2027-11-03T10:00", &OrderChange{Op: OrderAward, ID: id, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), On: MustDate("2027-11-03"), Reasons: "sole source under contract"}})
	v.do("treas", "2027-11-03T11:00", &CertifyFunds{Order: id})
	v.do("admin", "2027-11-03T12:00", &OrderChange{Op: OrderIssue, ID: id})
	v.payClaim("2027-06-30T10:00", "Rock Road", MustMoney("120000.00"), "100-53310")

	v.refused("treas", "2027-12-30T16:00", &YearEndClose{Year: 2027}, EINVALID, "on or after its last day, 2027-12-31")
	plan, err := v.reads().YearEndPreview(2027)
	if err != nil {
		t.Fatal(err)
	}
	line := func(p YearEndPlan, code string) YearEndLine {
		for _, l := range p.Lines {
			if l.Line == code {
				return l
			}
		}
		t.Fatalf("no line %s in %+v", code, p)
		return YearEndLine{}
	}
	if l := line(plan, "100-53300"); !l.Lapsed.Equal(MustMoney("38000.00")) || !l.Carried.Equal(MustMoney("2000.00")) {
		t.Fatalf("streets: %+v", l)
	}
	if l := line(plan, "100-53310"); !l.Lapsed.IsZero() || !l.Carried.Equal(MustMoney("380000.00")) {
		t.Fatalf("continuing: %+v", l)
	}
	if !plan.Lapsed.Equal(MustMoney("418000.00")) || plan.GeneralFund != "100" {
		t.Fatalf("plan: lapsed %s to %s", plan.Lapsed, plan.GeneralFund)
	}
	v.do("treas", "2027-12-31T16:00", &YearEndClose{Year: 2027})
	fy, _, _ := v.reads().FiscalYear(2027)
	if !fy.Closed || fy.Close == nil || !fy.Close.Lapsed.Equal(plan.Lapsed) {
		t.Fatalf("closed year: %+v", fy)
	}
	v.refused("treas", "2028-01-02T10:00", &YearEndClose{Year: 2027}, ECONFLICT, "was closed")
	// The order carried: it is paid from 2028.
	o, _ := v.reads().Order(id)
	if o.Year != 2028 {
		t.Fatalf("order year %d", o.Year)
	}
	next := v.appropriation(2028, "100-53300")
	if !next.Carried.Equal(MustMoney("2000.00")) || !next.Encumbered.Equal(MustMoney("2000.00")) || !next.Available().IsZero() {
		t.Fatalf("carried appropriation: %+v", next)
	}
	if c := v.appropriation(2028, "100-53310"); !c.Continuing || !c.Available().Equal(MustMoney("380000.00")) {
		t.Fatalf("continuing carried: %+v", c)
	}
	v.do("admin", "2028-01-10T10:00", &OrderReceipt{Order: id, Delivery: Delivery{On: MustDate("2028-01-10"), Inspector: "Pat Works", Conforms: true, Invoice: "M-1", Invoiced: MustMoney("2000.00"), Final: true}})
	if a := v.appropriation(2028, "100-53300"); !a.Expended.Equal(MustMoney("2000.00")) || !a.Encumbered.IsZero() {
		t.Fatalf("paid from the carried appropriation: %+v", a)
	}
	// An expense against the closed year is refused.
	late := staffCmd(KindExpense, "treas", "2028-01-11T10:00")
	late.Payload = &Expense{Line: "100-51400", On: MustDate("2027-12-15"), Amount: MustMoney("10.00"), Payee: "x", Description: "late invoice"}
	if _, err := runAtFormat(t, v.tx, 4, late); ErrorCode(err) != ECONFLICT || !strings.Contains(ErrorMessage(err), "books are closed") {
		t.Fatalf("an expense in the closed year: %v", err)
	}
	// The continuing appropriation ends when its works are done.
	v.do("admin", "2028-06-30T10:00", &AppropriationEnd{Year: 2028, Line: "100-53310", On: MustDate("2028-06-30"), Reason: "accomplished"})
	if c := v.appropriation(2028, "100-53310"); !c.Closed || !c.Lapsed.Equal(MustMoney("380000.00")) {
		t.Fatalf("ended: %+v", c)
	}
}
