package domain

import (
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// treasuryTx is a staff ledger with a chart: the general fund 100 with its
// interest revenue 100-48100, and a water utility fund 600 with 600-48100.
func treasuryTx(t *testing.T) *staffTx {
	t.Helper()
	tx := newStaffTx()
	c := staffCmd(KindChart, "admin", "2026-01-02T09:00")
	c.Payload = &ChartChange{Accounts: []ChartAccount{
		{Code: "100", Type: AccountFund, Name: "General fund", General: true},
		{Code: "100-48100", Type: AccountRevenue, Name: "Interest", Fund: "100", Major: "Miscellaneous revenue"},
		{Code: "600", Type: AccountFund, Name: "Water utility"},
		{Code: "600-48100", Type: AccountRevenue, Name: "Water interest", Fund: "600", Major: "Miscellaneous revenue"},
	}}
	if _, err := tx.run(t, c); err != nil {
		t.Fatal(err)
	}
	// The accounts whose role a rule reads (§5.08: the President's steps).
	for _, u := range []StaffUser{{Username: "admin", Role: RoleAdministrator}, {Username: "board1", Role: RoleBoard}, {Username: "president", Role: RolePresident}, {Username: "treasurer", Role: RoleTreasurer}} {
		if err := tx.Put(CollectionStaffUsers, u.Username, u); err != nil {
			t.Fatal(err)
		}
	}
	return tx
}

func mustRun(t *testing.T, tx *staffTx, c Command) Result {
	t.Helper()
	res, err := tx.run(t, c)
	if err != nil {
		t.Fatalf("%s: %v", c.Kind, err)
	}
	return res
}

// refused checks that c is refused with code and a message containing
// want, and that nothing in the ledger changed.
func refused(t *testing.T, tx *staffTx, c Command, code Code, want string) {
	t.Helper()
	before := tx.clone()
	_, err := tx.run(t, c)
	if ErrorCode(err) != code || !strings.Contains(ErrorMessage(err), want) {
		t.Fatalf("%s: got %v (%s), want %s containing %q", c.Kind, err, ErrorCode(err), code, want)
	}
	if len(before.records) != len(tx.records) || len(before.index) != len(tx.index) || len(before.receipts) != len(tx.receipts) {
		t.Fatalf("%s: a refused command changed the ledger", c.Kind)
	}
	for k, v := range before.records {
		if string(tx.records[k]) != string(v) {
			t.Fatalf("%s: a refused command changed %s", c.Kind, k)
		}
	}
}

func legal(actor, at string, p LegalClaimChange) Command {
	c := staffCmd(KindLegalClaim, actor, at)
	c.Payload = &p
	return c
}

func TestLegalClaimFromNoticeToDisallowance(t *testing.T) {
	tx := treasuryTx(t)
	mustRun(t, tx, legal("admin", "2026-03-02T10:00", LegalClaimChange{Op: LegalClaimFile, ID: "LC-1", Claimant: "Dana Roe", Address: "12 Oak St, Belleville WI 53508",
		Description: "Car damaged by a pothole on Main St", NoticeOn: MustDate("2026-03-01")}))
	l, _ := loadLegalClaim(tx, "LC-1")
	if _, ok, _ := l.Deadlines(DefaultParams()); ok {
		t.Fatal("a notice of circumstances alone starts no 120-day clock")
	}
	// The board cannot act on a notice without an itemized claim.
	refused(t, tx, legal("board1", "2026-03-03T10:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-1", Decision: LegalClaimDisallow, On: MustDate("2026-03-03"), Meeting: "Board 2026-03-03"}), EINVALID, "no itemized claim")
	// The attorney is the President's decision, after the President knows.
	refused(t, tx, legal("president", "2026-03-03T10:00", LegalClaimChange{Op: LegalClaimAttorney, ID: "LC-1", On: MustDate("2026-03-03"), Contact: true}), ECONFLICT, "Notify the Village President")
	// The administrator contacts the President; a board member who is not
	// the President records neither step, nor does the administrator
	// record the President's decision on the attorney.
	refused(t, tx, legal("board1", "2026-03-02T10:05", LegalClaimChange{Op: LegalClaimNotify, ID: "LC-1", On: MustDate("2026-03-02")}), EFORBIDDEN, "the administrator or the President records it")
	mustRun(t, tx, legal("admin", "2026-03-02T10:05", LegalClaimChange{Op: LegalClaimNotify, ID: "LC-1", On: MustDate("2026-03-02"), Note: "by phone"}))
	refused(t, tx, legal("president", "2026-03-02T10:06", LegalClaimChange{Op: LegalClaimNotify, ID: "LC-1", On: MustDate("2026-03-02")}), ECONFLICT, "was notified")
	for _, who := range []string{"board1", "admin", "treasurer", "nobody"} {
		refused(t, tx, legal(who, "2026-03-04T09:00", LegalClaimChange{Op: LegalClaimAttorney, ID: "LC-1", On: MustDate("2026-03-04"), Contact: true}), EFORBIDDEN, "only the President records it")
	}
	mustRun(t, tx, legal("president", "2026-03-04T09:00", LegalClaimChange{Op: LegalClaimAttorney, ID: "LC-1", On: MustDate("2026-03-04"), Contact: true}))
	if l, _ := loadLegalClaim(tx, "LC-1"); l.Attorney == nil || l.Attorney.By != "president" || !l.Contacted || l.President.By != "admin" {
		t.Fatalf("the President's steps: %+v %+v", l.President, l.Attorney)
	}
	refused(t, tx, legal("admin", "2026-04-01T09:00", LegalClaimChange{Op: LegalClaimItemize, ID: "LC-1", ClaimOn: MustDate("2026-02-01"), Amount: MustMoney("1200.00")}), EINVALID, "before the notice")
	mustRun(t, tx, legal("admin", "2026-04-01T09:00", LegalClaimChange{Op: LegalClaimItemize, ID: "LC-1", ClaimOn: MustDate("2026-03-31"), Amount: MustMoney("1200.00")}))
	l, _ = loadLegalClaim(tx, "LC-1")
	d, ok, err := l.Deadlines(DefaultParams())
	if err != nil || !ok || d.DeemedDisallowedOn.String() != "2026-07-29" || !d.SuitDeadline.IsZero() {
		t.Fatalf("deadlines after the itemized claim: %+v %v %v", d, ok, err)
	}
	// A disallowance dated before the claim is refused by the rule.
	refused(t, tx, legal("admin", "2026-04-14T20:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-1", Decision: LegalClaimDisallow, On: MustDate("2026-03-30"), Meeting: "Board 2026-04-14, motion 7"}), EINVALID, "cannot be served before the claim")
	refused(t, tx, legal("admin", "2026-04-14T20:00", LegalClaimChange{Op: LegalClaimNotice, ID: "LC-1", On: MustDate("2026-04-15"), Tracking: "9407"}), ECONFLICT, "not disallowed")
	refused(t, tx, legal("admin", "2026-04-14T20:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-1", Decision: "maybe", On: MustDate("2026-04-14"), Meeting: "m"}), EINVALID, "allow or disallow")
	mustRun(t, tx, legal("admin", "2026-04-14T20:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-1", Decision: LegalClaimDisallow, On: MustDate("2026-04-14"), Meeting: "Board 2026-04-14, motion 7"}))
	refused(t, tx, legal("admin", "2026-04-15T09:00", LegalClaimChange{Op: LegalClaimNotice, ID: "LC-1", On: MustDate("2026-04-15")}), EINVALID, "tracking number")
	refused(t, tx, legal("admin", "2026-04-15T09:00", LegalClaimChange{Op: LegalClaimNotice, ID: "LC-1", On: MustDate("2026-04-16"), Tracking: "9407"}), EINVALID, "on or before today")
	mustRun(t, tx, legal("admin", "2026-04-15T09:00", LegalClaimChange{Op: LegalClaimNotice, ID: "LC-1", On: MustDate("2026-04-15"), Tracking: "9407 1118 9876 5000 1234 56"}))
	l, _ = loadLegalClaim(tx, "LC-1")
	d, _, _ = l.Deadlines(DefaultParams())
	// Six calendar months from the service of the notice, not 180 days.
	if d.SuitDeadline.String() != "2026-10-15" || l.Open() || l.Tracking == "" || l.President.By != "admin" || !l.Contacted {
		t.Fatalf("after the notice: %+v %+v", d, l)
	}
	if claims, err := ReadsOf(txRecords{tx}).LegalClaims(); err != nil || len(claims) != 1 || claims[0].ID != "LC-1" {
		t.Fatalf("register: %v %v", claims, err)
	}
}

func TestLegalClaimRefusals(t *testing.T) {
	tx := treasuryTx(t)
	for _, row := range []struct {
		name string
		p    LegalClaimChange
		want string
	}{
		{"no claimant", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Description: "x", ClaimOn: MustDate("2026-03-01"), Amount: MustMoney("1.00")}, "claimant"},
		{"no date", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Claimant: "A", Description: "x"}, "Give the day"},
		{"future", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Claimant: "A", Description: "x", ClaimOn: MustDate("2026-04-01"), Amount: MustMoney("1.00")}, "after today"},
		{"claim without amount", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Claimant: "A", Description: "x", ClaimOn: MustDate("2026-03-01")}, "more than $0.00"},
		{"bad id", LegalClaimChange{Op: LegalClaimFile, ID: "LC 2", Claimant: "A", Description: "x", ClaimOn: MustDate("2026-03-01"), Amount: MustMoney("1.00")}, "malformed"},
	} {
		t.Run("§5.08/"+row.name, func(t *testing.T) {
			refused(t, tx, legal("admin", "2026-03-02T10:00", row.p), EINVALID, row.want)
		})
	}
	mustRun(t, tx, legal("admin", "2026-03-02T10:00", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Claimant: "A", Description: "x", ClaimOn: MustDate("2026-03-01"), Amount: MustMoney("500.00")}))
	refused(t, tx, legal("admin", "2026-03-02T10:00", LegalClaimChange{Op: LegalClaimFile, ID: "LC-2", Claimant: "A", Description: "x", ClaimOn: MustDate("2026-03-01"), Amount: MustMoney("500.00")}), ECONFLICT, "already exists")
	refused(t, tx, legal("admin", "2026-03-10T20:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-2", Decision: LegalClaimAllow, Allowed: MustMoney("600.00"), On: MustDate("2026-03-10"), Meeting: "m"}), EINVALID, "at most the claim")
	mustRun(t, tx, legal("admin", "2026-03-10T20:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-2", Decision: LegalClaimAllow, Allowed: MustMoney("450.00"), On: MustDate("2026-03-10"), Meeting: "m"}))
	refused(t, tx, legal("admin", "2026-03-11T09:00", LegalClaimChange{Op: LegalClaimNotice, ID: "LC-2", On: MustDate("2026-03-11"), Tracking: "1"}), ECONFLICT, "not disallowed")
	refused(t, tx, legal("admin", "2026-03-11T09:00", LegalClaimChange{Op: LegalClaimDecide, ID: "LC-2", Decision: LegalClaimDisallow, On: MustDate("2026-03-11"), Meeting: "m"}), ECONFLICT, "already allowed")
	refused(t, tx, legal("admin", "2026-03-11T09:00", LegalClaimChange{Op: LegalClaimNotify, ID: "LC-9", On: MustDate("2026-03-11")}), ENOTFOUND, "no legal claim")
	if d, ok := Kinds.Lookup(KindLegalClaim); !ok || d.Permits(RoleClerk) || d.Permits(RoleTreasurer) || !d.Permits(RoleAdministrator) || !d.Permits(RoleBoard) || !d.Permits(RolePresident) {
		t.Fatal("legal claims are the administrator's and the board's, the President's among them")
	}
}

func depositoryCmd(at string, p DepositoryChange) Command {
	c := staffCmd(KindDepository, "treasurer", at)
	c.Payload = &p
	return c
}

// drawerToBank opens, fills and closes a drawer, ready to deposit.
func drawerToBank(t *testing.T, tx *staffTx, id string) {
	t.Helper()
	open := staffCmd(KindDrawerOpen, "clerk", "2026-11-02T08:00")
	open.Payload = &DrawerOpen{DrawerID: id, Float: MustMoney("100.00")}
	mustRun(t, tx, open)
	closeC := staffCmd(KindDrawerClose, "clerk", "2026-11-02T15:00")
	closeC.Payload = &DrawerClose{DrawerID: id, CountedCash: MustMoney("150.00")}
	mustRun(t, tx, closeC)
}

func TestDepositsOnlyToDesignatedDepositories(t *testing.T) {
	tx := treasuryTx(t)
	drawerToBank(t, tx, "D-1")
	dep := staffCmd(KindDeposit, "treasurer", "2026-11-02T16:00")
	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "FIRST", Drawers: []string{"D-1"}}
	refused(t, tx, dep, EINVALID, "not a public depository designated")

	refused(t, tx, depositoryCmd("2026-11-02T15:10", DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", From: MustDate("2026-01-01")}), EINVALID, "resolution")
	refused(t, tx, depositoryCmd("2026-11-02T15:10", DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-05-01"), To: MustDate("2026-04-01")}), EINVALID, "before it begins")
	mustRun(t, tx, depositoryCmd("2026-11-02T15:10", DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville general account", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")}))
	mustRun(t, tx, depositoryCmd("2026-11-02T15:11", DepositoryChange{Op: DepositoryDesignate, ID: "OLD", Name: "Old Savings", Institution: "Old Savings Bank", Resolution: "2020-02", From: MustDate("2020-01-01")}))
	refused(t, tx, depositoryCmd("2026-11-02T15:12", DepositoryChange{Op: DepositoryDesignate, ID: "OLD", Name: "x", Institution: "x", Resolution: "x", From: MustDate("2020-01-01")}), ECONFLICT, "designated already")
	mustRun(t, tx, depositoryCmd("2026-11-02T15:12", DepositoryChange{Op: DepositoryEnd, ID: "OLD", Resolution: "2026-40", To: MustDate("2026-11-01")}))
	refused(t, tx, depositoryCmd("2026-11-02T15:13", DepositoryChange{Op: DepositoryEnd, ID: "OLD", Resolution: "2026-41", To: MustDate("2026-11-30")}), ECONFLICT, "was ended")

	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "OLD", Drawers: []string{"D-1"}}
	refused(t, tx, dep, EINVALID, "ended on 2026-11-01")
	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}}
	mustRun(t, tx, dep)
	var slip DepositSlip
	tx.Get(CollectionDeposits, "DEP-1", &slip)
	if slip.Depository != "BOB" || slip.DepositoryName != "Bank of Belleville general account" || slip.Total.String() != "50.00" {
		t.Fatalf("slip = %+v", slip)
	}
	on, err := ReadsOf(txRecords{tx}).DepositoriesOn(MustDate("2026-11-02"))
	if err != nil || len(on) != 1 || on[0].ID != "BOB" {
		t.Fatalf("designated on 2026-11-02: %v %v", on, err)
	}
}

// TestDepositAtFormatOneNamesAnyBank: a log written before the rule
// replays with the answers it had.
func TestDepositAtFormatOneNamesAnyBank(t *testing.T) {
	tx := &staffFormatTx{staffTx: treasuryTx(t), format: 1}
	drawerToBank(t, tx.staffTx, "D-1")
	dep := staffCmd(KindDeposit, "treasurer", "2026-11-02T16:00")
	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "Some bank", Drawers: []string{"D-1"}}
	if _, err := Apply(tx, dep, 9, DefaultParams()); err != nil {
		t.Fatalf("a format 1 deposit: %v", err)
	}
}

// staffFormatTx is a staff ledger at a given ledger format.
type staffFormatTx struct {
	*staffTx
	format int
}

func (t *staffFormatTx) LedgerFormat() int { return t.format }

func TestInterestCreditedAsReceipts(t *testing.T) {
	tx := treasuryTx(t)
	mustRun(t, tx, depositoryCmd("2026-11-02T15:10", DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")}))
	in := staffCmd(KindDepositoryInterest, "treasurer", "2026-11-30T10:00")
	in.Payload = &DepositoryInterest{Depository: "BOB", On: MustDate("2026-11-30"), Amount: MustMoney("0.00"), Revenue: "100-48100"}
	refused(t, tx, in, EINVALID, "more than $0.00")
	in.Payload = &DepositoryInterest{Depository: "BOB", On: MustDate("2026-11-30"), Amount: MustMoney("41.17"), Revenue: "100"}
	refused(t, tx, in, EINVALID, "revenue account")
	in.Payload = &DepositoryInterest{Depository: "NOPE", On: MustDate("2026-11-30"), Amount: MustMoney("41.17"), Revenue: "100-48100"}
	refused(t, tx, in, ENOTFOUND, "no depository")
	in.Payload = &DepositoryInterest{Depository: "BOB", On: MustDate("2026-11-30"), Amount: MustMoney("41.17"), Revenue: "100-48100", Statement: "Nov statement"}
	res := mustRun(t, tx, in)
	if res.Receipt == nil || res.Receipt.Kind != KindDepositoryInterest || res.Receipt.Amount.String() != "41.17" || tx.receipts[res.Receipt.Number].Account != "100-48100" {
		t.Fatalf("interest receipt = %+v", res.Receipt)
	}
	actuals, err := ReadsOf(txRecords{tx}).Actuals(2026)
	if err != nil {
		t.Fatal(err)
	}
	if got := actualReceipts(actuals, "100-48100"); got != "41.17" {
		t.Fatalf("actuals of 100-48100 = %s", got)
	}
}

func actualReceipts(as []Actual, account string) string {
	sum := Cents(0)
	for _, a := range as {
		if a.Account == account {
			sum = sum.Add(a.Receipts)
		}
	}
	return sum.String()
}

func investmentCmd(at string, p InvestmentChange) Command {
	c := staffCmd(KindInvestment, "treasurer", at)
	c.Payload = &p
	return c
}

func TestInvestmentRegister(t *testing.T) {
	tx := treasuryTx(t)
	cd := InvestmentChange{Op: InvestmentBuy, ID: "INV-1", Security: "12-month CD", Institution: "Bank of Belleville", Ground: "time-deposit", Fund: "600",
		Amount: MustMoney("250000.00"), PurchasedOn: MustDate("2026-01-05"), MaturesOn: MustDate("2026-12-20"), Rate: "4.10"}
	for _, row := range []struct {
		name string
		edit func(*InvestmentChange)
		want string
	}{
		{"no legal ground", func(p *InvestmentChange) { p.Ground = "" }, "needs its legal ground"},
		{"a security with no legal ground", func(p *InvestmentChange) { p.Ground = "crypto" }, "is not a legal ground"},
		{"time deposit over 3 years", func(p *InvestmentChange) { p.MaturesOn = MustDate("2029-01-06") }, "at most 3 years"},
		{"rated security over 7 years", func(p *InvestmentChange) { p.Ground, p.MaturesOn = "rated", MustDate("2033-01-06") }, "66.0603(1m)(a)4. allows a term of at most 7 years"},
		{"a ground written from memory, not in the statute", func(p *InvestmentChange) { p.Ground = "own-bonds" }, "is not a legal ground"},
		{"the National Housing Act reading of 219.05", func(p *InvestmentChange) { p.Ground = "nha" }, "is not a legal ground"},
		{"maturity before purchase", func(p *InvestmentChange) { p.MaturesOn = MustDate("2026-01-01") }, "after the purchase"},
		{"bad rate", func(p *InvestmentChange) { p.Rate = "4,1%" }, "not a yearly percentage"},
		{"no fund", func(p *InvestmentChange) { p.Fund = "100-48100" }, "not an open fund"},
		{"no amount", func(p *InvestmentChange) { p.Amount = Money{} }, "more than $0.00"},
	} {
		t.Run("§5.09/"+row.name, func(t *testing.T) {
			p := cd
			row.edit(&p)
			refused(t, tx, investmentCmd("2026-11-02T10:00", p), EINVALID, row.want)
		})
	}
	mustRun(t, tx, investmentCmd("2026-11-02T10:00", cd))
	refused(t, tx, investmentCmd("2026-11-02T10:01", cd), ECONFLICT, "already exists")
	lgip := cd
	lgip.ID, lgip.Security, lgip.Ground, lgip.Fund, lgip.MaturesOn = "INV-2", "LGIP shares", "lgip", "100", MustDate("2027-06-30")
	mustRun(t, tx, investmentCmd("2026-11-02T10:02", lgip))

	reads := ReadsOf(txRecords{tx})
	soon, err := reads.MaturingBy(MustDate("2026-11-02").AddDays(30))
	if err != nil || len(soon) != 0 {
		t.Fatalf("maturing by 2026-12-02: %v %v", soon, err)
	}
	soon, _ = reads.MaturingBy(MustDate("2026-11-25").AddDays(30))
	if len(soon) != 1 || soon[0].ID != "INV-1" {
		t.Fatalf("maturing by 2026-12-25: %v", soon)
	}

	// Interest goes to a revenue account of the investment's own fund.
	in := staffCmd(KindInvestmentInterest, "treasurer", "2026-11-03T10:00")
	in.Payload = &InvestmentInterest{Investment: "INV-1", On: MustDate("2026-11-03"), Amount: MustMoney("850.00"), Revenue: "100-48100"}
	refused(t, tx, in, EINVALID, "belongs to fund 100")
	in.Payload = &InvestmentInterest{Investment: "INV-1", On: MustDate("2026-11-03"), Amount: MustMoney("850.00"), Revenue: "600-48100"}
	if res := mustRun(t, tx, in); res.Receipt == nil || res.Receipt.Kind != KindInvestmentInterest {
		t.Fatalf("interest receipt = %+v", res.Receipt)
	}
	actuals, _ := reads.Actuals(2026)
	if got := actualReceipts(actuals, "600-48100"); got != "850.00" {
		t.Fatalf("actuals of 600-48100 = %s", got)
	}
	if got := actualReceipts(actuals, "100-48100"); got != "0.00" {
		t.Fatalf("actuals of 100-48100 = %s", got)
	}

	mustRun(t, tx, investmentCmd("2026-11-04T10:00", InvestmentChange{Op: InvestmentRedeem, ID: "INV-1", RedeemedOn: MustDate("2026-11-04")}))
	refused(t, tx, investmentCmd("2026-11-04T10:01", InvestmentChange{Op: InvestmentRedeem, ID: "INV-1", RedeemedOn: MustDate("2026-11-04")}), ECONFLICT, "was redeemed")
	soon, _ = reads.MaturingBy(MustDate("2026-12-31"))
	all, _ := reads.Investments()
	if len(soon) != 0 || len(all) != 2 || all[0].ID != "INV-2" || all[1].Interest.String() != "850.00" {
		t.Fatalf("after the redemption: soon %v, register %v", soon, all)
	}
}

func TestCountySettlement(t *testing.T) {
	tx := treasuryTx(t)
	bill := func(id, parcel string, county County, general, special string) {
		b := TaxBill{ID: id, Parcel: parcel, County: county, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"), GeneralTax: MustMoney(general)}
		if special != "" {
			b.SpecialItems = []TaxItem{{Description: "Sidewalk", Amount: MustMoney(special)}}
		}
		if err := PutTaxBill(tx, b); err != nil {
			t.Fatal(err)
		}
	}
	bill("T1", "0601-141-2001", Dane, "3000.00", "200.00")
	bill("T2", "0601-141-2002", Dane, "2000.00", "")
	bill("T3", "2301-001-0001", Green, "1000.00", "")
	pay := func(id, at, option, amount string) {
		c := staffCmd(KindPayPropertyTax, "", at)
		c.Payload = &PayPropertyTax{TaxBillID: id, Option: TaxOption(option), Amount: MustMoney(amount), Tender: Card}
		mustRun(t, tx, c)
	}
	pay("T1", "2026-12-15T10:00", "first_installment", "1700.00") // 200 specials + 1500 general
	pay("T2", "2027-01-20T10:00", "full", "2000.00")
	pay("T3", "2026-12-20T10:00", "full", "1000.00")

	reads := ReadsOf(txRecords{tx})
	jan, err := reads.Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-16"))
	if err != nil {
		t.Fatal(err)
	}
	if jan.Collected.String() != "1500.00" || jan.Due.String() != "1500.00" || jan.Apportioned || jan.Specials.String() != "200.00" || len(jan.Lines) != 1 || !jan.PastDue || jan.DueOn.String() != "2027-01-15" {
		t.Fatalf("Dane January = %+v", jan)
	}
	feb, _ := reads.Settlement(Dane, 2026, SettleFebruary, MustDate("2027-01-16"))
	if feb.Collected.String() != "2000.00" || feb.PastDue || feb.DueOn.String() != "2027-02-20" {
		t.Fatalf("Dane February = %+v", feb)
	}
	late, _ := reads.SettlementsPastDue(MustDate("2027-01-16"))
	if len(late) != 2 || late[0].County != Dane || late[1].County != Green {
		t.Fatalf("past due on 2027-01-16: %+v", late)
	}

	settle := func(at string, p CountySettlement) Command {
		c := staffCmd(KindCountySettlement, "treasurer", at)
		c.Payload = &p
		return c
	}
	sd := func(amount, ref string) CountySettlement {
		return CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville-sd", PaidOn: MustDate("2027-01-14"), Amount: MustMoney(amount), Reference: ref}
	}
	// No settlement before the roll's apportionment is recorded.
	refused(t, tx, settle("2027-01-14T10:00", sd("600.00", "W-1")), ECONFLICT, "apportionment of the 2026 Dane roll is not recorded")
	if err := reads.CheckSettlementPayment(sd("600.00", "W-1"), MustDate("2027-01-14")); ErrorCode(err) != ECONFLICT {
		t.Fatalf("the pages' check before the apportionment: %v", err)
	}
	// Dane's roll: 5,000.00 of general tax; Green's: 1,000.00.
	mustRun(t, tx, levyCmd("2026-12-12T09:00", daneLevy()))
	jan, _ = reads.Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-16"))
	// 1,500.00 collected: county 300.00, village 450.00, school 675.00, college 75.00.
	want := map[string]string{"dane": "300.00", "belleville": "450.00", "belleville-sd": "675.00", "madison-college": "75.00"}
	if !jan.Apportioned || len(jan.Shares) != 4 || jan.VillageShare.String() != "450.00" || jan.Due.String() != "1050.00" || jan.Unsettled.String() != "1050.00" || !jan.PastDue {
		t.Fatalf("Dane January apportioned = %+v", jan)
	}
	for _, sh := range jan.Shares {
		if sh.Share.String() != want[sh.Jurisdiction] || sh.Retained != (sh.Kind == JurisdictionVillage) {
			t.Fatalf("share of %s = %s (retained %v), want %s", sh.Jurisdiction, sh.Share, sh.Retained, want[sh.Jurisdiction])
		}
	}
	refused(t, tx, settle("2027-01-14T10:00", CountySettlement{County: "rock", TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "dane", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("300.00"), Reference: "W-1"}), EINVALID, "not a county")
	refused(t, tx, settle("2027-01-14T10:00", CountySettlement{County: Dane, TaxYear: 2026, Period: "march", Jurisdiction: "dane", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("300.00"), Reference: "W-1"}), EINVALID, "not a settlement period")
	refused(t, tx, settle("2027-01-14T10:00", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "dane", PaidOn: MustDate("2027-01-15"), Amount: MustMoney("300.00"), Reference: "W-1"}), EINVALID, "on or before today")
	refused(t, tx, settle("2027-01-14T10:00", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "dane", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("300.00")}), EINVALID, "reference")
	refused(t, tx, settle("2027-01-14T10:00", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "oregon-sd", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("300.00"), Reference: "W-1"}), EINVALID, "not a taxing jurisdiction of the 2026 Dane roll")
	// Before ledger format 6 the village's own share is not recorded.
	old := tx.clone()
	old.format = BooksFormat
	refused(t, old, settle("2027-01-14T10:00", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("450.00"), Reference: "W-1"}), EINVALID, "keeps its own share")
	// The ledger bounds a payment by what the levy leaves (2,250.00 for
	// the school district); the pages by the share of the period left.
	refused(t, tx, settle("2027-01-14T10:00", sd("2250.01", "W-1")), EINVALID, "more than it levied")
	if err := reads.CheckSettlementPayment(sd("675.01", "W-1"), MustDate("2027-01-14")); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "675.00 is left to pay") {
		t.Fatalf("the pages' check of a payment above the share: %v", err)
	}
	if err := reads.CheckSettlementPayment(sd("675.00", "W-1"), MustDate("2027-01-14")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, tx, settle("2027-01-14T10:00", sd("675.00", "W-1")))
	refused(t, tx, settle("2027-01-14T10:01", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "dane", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("1.00"), Reference: "W-1"}), ECONFLICT, "recorded already")
	// Once a share is paid, the apportionment stays as it was.
	refused(t, tx, levyCmd("2027-01-14T11:00", daneLevy()), ECONFLICT, "can no longer change")
	mustRun(t, tx, settle("2027-01-14T10:02", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "dane", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("300.00"), Reference: "W-2"}))
	jan, _ = reads.Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-16"))
	if jan.Unsettled.String() != "75.00" || !jan.PastDue || jan.Paid.String() != "975.00" || jan.Payments[0].Jurisdiction != "belleville-sd" {
		t.Fatalf("Dane January with the college unpaid = %+v", jan)
	}
	mustRun(t, tx, settle("2027-01-14T10:03", CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "madison-college", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("75.00"), Reference: "W-3"}))
	jan, _ = reads.Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-16"))
	if !jan.Unsettled.IsZero() || jan.PastDue || jan.Paid.String() != "1050.00" {
		t.Fatalf("Dane January after payment = %+v", jan)
	}
	// From ledger format 6 the village records its own share as kept: no
	// reference (no money moves), at most its share of the period, and
	// not counted as paid out.
	kept := CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville", PaidOn: MustDate("2027-01-14"), Amount: MustMoney("450.01")}
	if err := reads.CheckSettlementPayment(kept, MustDate("2027-01-14")); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "450.00 is left to record") {
		t.Fatalf("the pages' check of the village's share above it: %v", err)
	}
	kept.Amount = MustMoney("450.00")
	if res := mustRun(t, tx, settle("2027-01-14T10:04", kept)); !strings.Contains(res.Note, "450.00 of the village's share kept") {
		t.Errorf("note: %q", res.Note)
	}
	jan, _ = reads.Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-16"))
	if !jan.Kept.Equal(MustMoney("450.00")) || jan.Paid.String() != "1050.00" || !jan.Unsettled.IsZero() || jan.Payments[len(jan.Payments)-1].Reference != "kept 2027-01-14" {
		t.Fatalf("Dane January with the village's share kept = %+v", jan)
	}
	if err := reads.CheckSettlementPayment(CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville", PaidOn: MustDate("2027-01-15"), Amount: MustMoney("0.01")}, MustDate("2027-01-15")); ErrorCode(err) != EINVALID {
		t.Fatalf("the village's share kept twice: %v", err)
	}
	late, _ = reads.SettlementsPastDue(MustDate("2027-01-16"))
	if len(late) != 1 || late[0].County != Green || late[0].Apportioned || late[0].Due.String() != "1000.00" {
		t.Fatalf("past due after Dane paid: %+v", late)
	}
}

func levyCmd(at string, p LevyApportionment) Command {
	c := staffCmd(KindLevyApportionment, "treasurer", at)
	c.Payload = &p
	return c
}

// daneLevy is the 2026 Dane roll of TestCountySettlement: 5,000.00 of
// general tax, 20% the county's, 30% the village's, 45% the school
// district's, 5% the technical college's.
func daneLevy() LevyApportionment {
	return LevyApportionment{County: Dane, TaxYear: 2026, ReceivedOn: MustDate("2026-12-10"), Total: MustMoney("5000.00"), Shares: []LevyShare{
		{Jurisdiction: "dane", Name: "Dane County", Kind: JurisdictionCounty, Levy: MustMoney("1000.00")},
		{Jurisdiction: "belleville", Name: "Village of Belleville", Kind: JurisdictionVillage, Levy: MustMoney("1500.00")},
		{Jurisdiction: "belleville-sd", Name: "Belleville School District", Kind: JurisdictionSchool, Levy: MustMoney("2250.00")},
		{Jurisdiction: "madison-college", Name: "Madison Area Technical College", Kind: JurisdictionTechnicalCollege, Levy: MustMoney("250.00")},
	}}
}

// TestLevyApportionmentRefusals: each bad apportionment is refused with a
// clear error and changes nothing; the pages' check compares the total
// with the roll's bills.
func TestLevyApportionmentRefusals(t *testing.T) {
	tx := treasuryTx(t)
	for _, row := range []struct {
		name string
		edit func(*LevyApportionment)
		want string
	}{
		{"levies that do not add up to the roll's total", func(a *LevyApportionment) { a.Shares[2].Levy = MustMoney("2249.99") }, "add up to 4999.99, not the roll's general property tax of 5000.00"},
		{"no county", func(a *LevyApportionment) { a.County = "rock" }, "not a county"},
		{"no day received", func(a *LevyApportionment) { a.ReceivedOn = Date{} }, "the day the roll was received"},
		{"received after today", func(a *LevyApportionment) { a.ReceivedOn = MustDate("2026-12-13") }, "on or before today"},
		{"no total", func(a *LevyApportionment) { a.Total = Money{} }, "more than $0.00"},
		{"no jurisdictions", func(a *LevyApportionment) { a.Shares = nil }, "List the taxing jurisdictions"},
		{"a jurisdiction twice", func(a *LevyApportionment) { a.Shares[3].Jurisdiction = "dane" }, "listed twice"},
		{"no name", func(a *LevyApportionment) { a.Shares[0].Name = " " }, "needs its name"},
		{"bad code", func(a *LevyApportionment) { a.Shares[0].Jurisdiction = "dane county" }, "needs a code"},
		{"unknown kind", func(a *LevyApportionment) { a.Shares[3].Kind = "library" }, "not a kind of taxing jurisdiction"},
		{"negative levy", func(a *LevyApportionment) {
			a.Shares[3].Levy, a.Shares[2].Levy = MustMoney("0.00").Sub(MustMoney("1.00")), MustMoney("2501.00")
		}, "cannot be negative"},
		{"no village", func(a *LevyApportionment) { a.Shares[1].Kind = JurisdictionSpecial }, "lists it 0 times"},
		{"two villages", func(a *LevyApportionment) { a.Shares[3].Kind = JurisdictionVillage }, "lists it 2 times"},
		{"no county levy", func(a *LevyApportionment) { a.Shares[0].Kind = JurisdictionState }, "the county's levy"},
	} {
		t.Run("§5.17/"+row.name, func(t *testing.T) {
			a := daneLevy()
			a.Shares = append([]LevyShare(nil), a.Shares...)
			row.edit(&a)
			refused(t, tx, levyCmd("2026-12-12T09:00", a), EINVALID, row.want)
		})
	}
	reads := ReadsOf(txRecords{tx})
	if err := reads.CheckLevyApportionment(daneLevy(), MustDate("2026-12-12")); ErrorCode(err) != ECONFLICT || !strings.Contains(ErrorMessage(err), "no tax bills of the 2026 Dane roll") {
		t.Fatalf("an apportionment before the roll: %v", err)
	}
	for _, b := range []TaxBill{
		{ID: "T1", Parcel: "0601-141-2001", County: Dane, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"), GeneralTax: MustMoney("3000.00")},
		{ID: "T2", Parcel: "0601-141-2002", County: Dane, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"), GeneralTax: MustMoney("1999.00")},
	} {
		if err := PutTaxBill(tx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := reads.CheckLevyApportionment(daneLevy(), MustDate("2026-12-12")); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "carry 4999.00 of general property tax, not 5000.00") {
		t.Fatalf("an apportionment of another roll: %v", err)
	}
	// Recorded twice before any share is paid: the second replaces the first.
	mustRun(t, tx, levyCmd("2026-12-12T09:00", daneLevy()))
	mustRun(t, tx, levyCmd("2026-12-12T09:05", daneLevy()))
	if ap, ok, err := reads.LevyApportionment(Dane, 2026); err != nil || !ok || ap.Revision != 2 || ap.By != "treasurer" {
		t.Fatalf("the roll's apportionment: %+v %v %v", ap, ok, err)
	}
	if d, _ := Kinds.Lookup(KindLevyApportionment); !d.Permits(RoleTreasurer) || !d.Permits(RoleClerk) || d.Permits(RoleBoard) || d.Permits(RoleAdministrator) {
		t.Fatal("the apportionment is the treasurer's or the clerk's to record")
	}
}

// TestShareOutRounding pins the rounding rule: shares rounded down to the
// cent, the cents left over to the largest remainders, ties to the
// jurisdiction listed first.
func TestShareOutRounding(t *testing.T) {
	a := LevyApportionment{Shares: []LevyShare{{Levy: MustMoney("1.00")}, {Levy: MustMoney("1.00")}, {Levy: MustMoney("1.00")}}}
	for _, row := range []struct{ amount, want string }{
		{"0.01", "0.01 0.00 0.00"}, // one cent, three equal remainders: the first
		{"0.02", "0.01 0.01 0.00"}, // two cents: the first two
		{"100.00", "33.34 33.33 33.33"},
		{"0.00", "0.00 0.00 0.00"},
	} {
		got := a.ShareOut(MustMoney(row.amount))
		if s := got[0].String() + " " + got[1].String() + " " + got[2].String(); s != row.want {
			t.Errorf("%s shared as %s, want %s", row.amount, s, row.want)
		}
	}
	// The larger remainder wins over the earlier place: 10.00 by 1:2
	// is 3.333… and 6.666…; the cent goes to the second.
	b := LevyApportionment{Shares: []LevyShare{{Levy: MustMoney("1.00")}, {Levy: MustMoney("2.00")}}}
	if got := b.ShareOut(MustMoney("10.00")); got[0].String() != "3.33" || got[1].String() != "6.67" {
		t.Errorf("10.00 by 1:2 = %v", got)
	}
	// A jurisdiction that levies nothing gets nothing.
	c := LevyApportionment{Shares: []LevyShare{{Levy: MustMoney("0.00")}, {Levy: MustMoney("3.00")}}}
	if got := c.ShareOut(MustMoney("0.05")); !got[0].IsZero() || got[1].String() != "0.05" {
		t.Errorf("0.05 with a zero levy = %v", got)
	}
}

// TestInvestmentGroundsAreThoseOf509 checks the closed list against the
// two sections §5.09 cites: every ground rests on 66.0603(1m) or on
// 219.05, codes are unique, and the only term limits are the statute's
// (time deposits 3 years, rated securities 7).
func TestInvestmentGroundsAreThoseOf509(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range InvestmentGrounds() {
		if seen[g.Code] {
			t.Errorf("ground %q listed twice", g.Code)
		}
		seen[g.Code] = true
		if !strings.HasPrefix(g.Statute, "Wis. Stat. 66.0603(1m)(") && g.Statute != "Wis. Stat. 219.05" {
			t.Errorf("ground %q cites %q, not a section §5.09 names", g.Code, g.Statute)
		}
		want := map[string]int{"time-deposit": 3, "rated": 7}[g.Code]
		if g.MaxYears != want {
			t.Errorf("ground %q: term limit %d years, want %d", g.Code, g.MaxYears, want)
		}
	}
	if !seen["219.05"] || !seen["lgip"] {
		t.Errorf("grounds %v: 219.05 and the pooled fund (66.0603(1m)(c)) are both legal under §5.09", seen)
	}
}

// TestShareOutSumsExactly is the property of the settlement's shares:
// whatever the levies and the collection, the shares add up to the
// collection to the cent, none is negative, and each is within a cent of
// its exact proportion.
func TestShareOutSumsExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "jurisdictions")
		a := LevyApportionment{}
		total := int64(0)
		for i := range n {
			c := rapid.Int64Range(0, 5_000_000_00).Draw(t, "levy")
			if i == n-1 && total+c == 0 {
				c = 1
			}
			total += c
			a.Shares = append(a.Shares, LevyShare{Levy: Cents(c)})
		}
		collected := rapid.Int64Range(0, total).Draw(t, "collected")
		sum := int64(0)
		for i, sh := range a.ShareOut(Cents(collected)) {
			c := sh.Cents()
			if c < 0 {
				t.Fatalf("share %d negative: %s", i, sh)
			}
			// exact share = collected × levy / total; c is its floor or floor+1.
			exact := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(collected), big.NewInt(a.Shares[i].Levy.Cents())), big.NewInt(total))
			floor := new(big.Int).Quo(exact.Num(), exact.Denom())
			if c != floor.Int64() && c != floor.Int64()+1 {
				t.Fatalf("share %d = %d cents, exact %s", i, c, exact.FloatString(4))
			}
			sum += c
		}
		if sum != collected {
			t.Fatalf("shares add up to %d cents, not %d", sum, collected)
		}
	})
}
