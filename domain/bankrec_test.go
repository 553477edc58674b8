package domain

import (
	"slices"
	"testing"
)

// bankDeposit bills amount on the general fund's line, takes it in cash
// at the window on day and deposits the drawer at BOB as slip id.
func bankDeposit(v *village, day, id, amount string) {
	v.t.Helper()
	v.do("clerk", day+"T08:00", &CreateBills{Bills: []NewBill{
		{ID: "B-" + id, Account: "100101", Parcel: "0601-141-2001", Description: "charges " + id, BilledOn: MustDate(day), Principal: MustMoney(amount)},
	}})
	v.do("clerk", day+"T08:30", &DrawerOpen{DrawerID: "D-" + id, Float: MustMoney("0.00")})
	v.do("clerk", day+"T09:00", &WindowPayment{DrawerID: "D-" + id, BillID: "B-" + id, Amount: MustMoney(amount), Tender: Cash, Tendered: MustMoney(amount)})
	v.do("clerk", day+"T16:00", &DrawerClose{DrawerID: "D-" + id, CountedCash: MustMoney(amount)})
	v.do("treas", day+"T16:30", &Deposit{DepositID: id, Depository: "BOB", Drawers: []string{"D-" + id}})
}

// bankMonth is payablesVillage (DEP-1, $1,100.00 at BOB on February 2)
// with a month of the treasury's work in March 2027: checks 5001-5003
// written on March 5 for $500.00, $200.00 and $75.00; check 5003 voided
// on March 12 and its claim paid again by check 5004; $650.00 deposited
// on March 10 (DEP-2) and $250.00 on March 30 (DEP-3); interest of $3.17
// the bank credited on March 31, entered on April 2 once the statement
// came.
func bankMonth(t *testing.T) *village {
	v := payablesVillage(t)
	v.do("admin", "2027-01-04T09:00", &ChartChange{Accounts: []ChartAccount{
		{Code: "100-48100", Type: AccountRevenue, Name: "Interest on deposits", Fund: "100", Major: "Miscellaneous revenue"},
	}})
	streets := allowClaim(v, "2027-03-01T10:00", "Sugar River Asphalt", MustMoney("500.00"), "100-53300")
	water := allowClaim(v, "2027-03-01T10:10", "Badger Meter", MustMoney("200.00"), "WU-53700")
	parks := allowClaim(v, "2027-03-01T10:20", "Sign Co", MustMoney("75.00"), "100-55200")
	run := func(on string, claims ...string) *CheckRun {
		return &CheckRun{On: MustDate(on), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}}
	}
	v.do("treas", "2027-03-05T10:00", run("2027-03-05", streets, water, parks))
	bankDeposit(v, "2027-03-10", "DEP-2", "650.00")
	v.do("treas", "2027-03-12T09:00", &CheckVoid{Number: 5003, Reason: "lost in the mail"})
	v.do("treas", "2027-03-12T10:00", run("2027-03-12", parks))
	bankDeposit(v, "2027-03-30", "DEP-3", "250.00")
	v.do("treas", "2027-04-02T09:00", &DepositoryInterest{Depository: "BOB", On: MustDate("2027-03-31"), Amount: MustMoney("3.17"), Revenue: "100-48100", Statement: "March"})
	return v
}

// marchStatement is the bank's statement of March as it came: checks
// 5001 and 5002 paid (5004 still out), DEP-1 credited by number, DEP-2
// by amount and day, DEP-3 not yet, and the interest. The bank's balance
// is 1,100.00 + 650.00 − 500.00 − 200.00 + 3.17.
func marchStatement() *BankStatement {
	return &BankStatement{Depository: "BOB", On: MustDate("2027-03-31"), Balance: MustMoney("1053.17"), Reference: "March 2027",
		Cleared:  []int{5001, 5002},
		Credited: []StatementCredit{{DepositID: "DEP-1"}, {Amount: MustMoney("650.00"), On: MustDate("2027-03-11")}}}
}

func wantMoney(t *testing.T, what string, got Money, want string) {
	t.Helper()
	if !got.Equal(MustMoney(want)) {
		t.Errorf("%s: %s, want %s", what, got, want)
	}
}

// TestReconciliationOfAMonth reconciles March at BOB (§5.06): the book
// balance of March 31 is every deposit less every check not voided; the
// bank's balance with DEP-3 in transit added and check 5004 outstanding
// taken off is the book balance with the interest the bank credited on
// March 31 and the books posted on April 2. A bank charge the books do
// not have is the difference.
func TestReconciliationOfAMonth(t *testing.T) {
	v := bankMonth(t)
	charged := &village{t: t, tx: v.tx.clone()}
	v.do("treas", "2027-04-03T09:00", marchStatement())

	r, err := v.reads().Reconciliation("BOB", MustDate("2027-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	// 1,100 + 650 + 250 − 500 − 200 − 75 + 75 − 75.
	wantMoney(t, "book balance", r.Book, "1225.00")
	wantMoney(t, "bank balance", r.Bank, "1053.17")
	wantMoney(t, "posted later", r.PostedLaterTotal, "3.17")
	wantMoney(t, "outstanding checks", r.OutstandingTotal, "75.00")
	wantMoney(t, "deposits in transit", r.InTransitTotal, "250.00")
	wantMoney(t, "adjusted bank balance", r.AdjustedBank(), "1228.17")
	wantMoney(t, "adjusted book balance", r.AdjustedBook(), "1228.17")
	if !r.Reconciled() {
		t.Errorf("difference %s, want a reconciled account", r.Difference())
	}
	if len(r.Outstanding) != 1 || r.Outstanding[0].Check != 5004 {
		t.Errorf("outstanding: %+v, want check 5004 alone (5003 was voided, 5001 and 5002 paid)", r.Outstanding)
	}
	if len(r.InTransit) != 1 || r.InTransit[0].DepositID != "DEP-3" {
		t.Errorf("in transit: %+v, want DEP-3 alone (DEP-2 was credited by its amount)", r.InTransit)
	}
	if len(r.PostedLater) != 1 || r.PostedLater[0].Kind != KindDepositoryInterest || r.PostedLater[0].BankDate != MustDate("2027-03-31") {
		t.Errorf("posted later: %+v, want the interest of March 31", r.PostedLater)
	}
	if len(r.Unmatched) != 0 {
		t.Errorf("unmatched credits: %+v", r.Unmatched)
	}

	// A bank charge of $12.00 the books do not have is the difference.
	s := marchStatement()
	s.Balance = MustMoney("1041.17")
	charged.do("treas", "2027-04-03T09:00", s)
	r, err = charged.reads().Reconciliation("BOB", MustDate("2027-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	wantMoney(t, "the difference of a bank charge", r.Difference(), "-12.00")

	// April: 5004 and DEP-3 clear; nothing is outstanding any more.
	v.do("treas", "2027-05-03T09:00", &BankStatement{Depository: "BOB", On: MustDate("2027-04-30"), Balance: MustMoney("1228.17"),
		Cleared: []int{5004}, Credited: []StatementCredit{{DepositID: "DEP-3"}}})
	r, err = v.reads().Reconciliation("BOB", MustDate("2027-04-30"))
	if err != nil {
		t.Fatal(err)
	}
	wantMoney(t, "April's book balance", r.Book, "1228.17")
	if !r.Reconciled() || len(r.Outstanding) != 0 || len(r.InTransit) != 0 || len(r.PostedLater) != 0 {
		t.Errorf("April: difference %s, outstanding %+v, in transit %+v, posted later %+v", r.Difference(), r.Outstanding, r.InTransit, r.PostedLater)
	}
	// March reads as it did.
	r, err = v.reads().Reconciliation("BOB", MustDate("2027-03-31"))
	if err != nil || !r.Reconciled() || len(r.Outstanding) != 1 {
		t.Errorf("March after April's statement: %+v, %v", r, err)
	}
	stmts, err := v.reads().BankStatements("BOB")
	if err != nil || len(stmts) != 2 || stmts[0].On != MustDate("2027-03-31") || stmts[0].By != "treas" {
		t.Errorf("the statements: %+v, %v", stmts, err)
	}
}

// TestCashByDepositoryTiesToTheBooks: the cash placed in each depository
// and the cash no record places (an investment, whose register names no
// depository) add up to the trial balance's cash of every fund.
func TestCashByDepositoryTiesToTheBooks(t *testing.T) {
	v := bankMonth(t)
	v.do("treas", "2027-03-15T10:00", &InvestmentChange{Op: InvestmentBuy, ID: "INV-1", Security: "LGIP deposit", Institution: "State of Wisconsin Investment Board",
		Ground: "lgip", Fund: "100", Amount: MustMoney("100.00"), PurchasedOn: MustDate("2027-03-15"), MaturesOn: MustDate("2027-09-15"), Rate: "4.25"})
	for _, day := range []string{"2027-02-28", "2027-03-12", "2027-03-31", "2027-04-02"} {
		c, err := v.reads().CashByDepository(MustDate(day))
		if err != nil {
			t.Fatal(err)
		}
		b := balances(t, v.tx, day)
		books := b["100-111"].Add(b["WU-111"])
		if !c.Books.Equal(books) {
			t.Errorf("%s: the books' cash %s, the trial balance's %s", day, c.Books, books)
		}
		if !c.Ties() || !c.Placed.Add(c.NotPlacedTotal).Equal(books) {
			t.Errorf("%s: placed %s and not placed %s do not make the books' %s", day, c.Placed, c.NotPlacedTotal, books)
		}
	}
	c, err := v.reads().CashByDepository(MustDate("2027-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Depository.ID != "BOB" {
		t.Fatalf("rows: %+v", c.Rows)
	}
	wantMoney(t, "BOB on March 31", c.Rows[0].Balance, "1225.00")
	wantMoney(t, "BOB's money in", c.Rows[0].In, "2075.00")
	wantMoney(t, "BOB's money out", c.Rows[0].Out, "850.00")
	wantMoney(t, "not placed", c.NotPlacedTotal, "-100.00")
	wantMoney(t, "the difference", c.Difference(), "-100.00")
	if len(c.NotPlaced) != 1 || c.NotPlaced[0].Kind != KindInvestment {
		t.Errorf("not placed: %+v, want the investment", c.NotPlaced)
	}
	// The interest entered on April 2 is the books' on April 2.
	c, err = v.reads().CashByDepository(MustDate("2027-04-02"))
	if err != nil {
		t.Fatal(err)
	}
	wantMoney(t, "BOB on April 2", c.Rows[0].Balance, "1228.17")
}

// TestBankStatementRefusals: each statement the ledger refuses, with the
// ledger unchanged (§5.06).
func TestBankStatementRefusals(t *testing.T) {
	v := bankMonth(t)
	v.do("treas", "2027-01-04T09:20", &DepositoryChange{Op: DepositoryDesignate, ID: "SRB", Name: "Sugar River Bank", Institution: "Sugar River Bank", Resolution: "2027-02", From: MustDate("2027-01-01"), Number: "004417720031"})
	v.do("treas", "2027-04-03T09:00", marchStatement())
	april := func(edit func(*BankStatement)) *BankStatement {
		s := &BankStatement{Depository: "BOB", On: MustDate("2027-04-30"), Balance: MustMoney("1228.17")}
		edit(s)
		return s
	}
	for _, row := range []struct {
		section, name string
		at            string
		p             *BankStatement
		code          Code
		want          string
	}{
		{"§5.06", "unknown depository", "2027-05-03T09:00", april(func(s *BankStatement) { s.Depository = "XYZ" }), ENOTFOUND, `There is no depository "XYZ"`},
		{"§5.06", "check never written", "2027-05-03T09:00", april(func(s *BankStatement) { s.Cleared = []int{9999} }), EINVALID, "No check 9999 was written on BOB's account"},
		{"§5.06", "check of another depository", "2027-05-03T09:00", april(func(s *BankStatement) { s.Depository, s.Cleared = "SRB", []int{5004} }), EINVALID, "No check 5004 was written on SRB's account"},
		{"§5.06", "check cleared twice across statements", "2027-05-03T09:00", april(func(s *BankStatement) { s.Cleared = []int{5004, 5001} }), ECONFLICT, "Check 5001 cleared on the statement of BOB dated 2027-03-31 already"},
		{"§5.06", "check listed twice", "2027-05-03T09:00", april(func(s *BankStatement) { s.Cleared = []int{5004, 5004} }), EINVALID, "Check 5004 is listed twice"},
		{"§5.06", "voided check", "2027-05-03T09:00", april(func(s *BankStatement) { s.Cleared = []int{5003} }), ECONFLICT, "Check 5003 was voided on 2027-03-12"},
		{"§5.06", "dated before the previous statement", "2027-05-03T09:00", april(func(s *BankStatement) { s.On = MustDate("2027-02-28") }), ECONFLICT, "comes before it"},
		{"§5.06", "dated as the previous statement", "2027-05-03T09:00", april(func(s *BankStatement) { s.On = MustDate("2027-03-31") }), ECONFLICT, "is recorded already"},
		{"§5.06", "dated after today", "2027-04-29T09:00", april(func(*BankStatement) {}), EINVALID, "after today (2027-04-29)"},
		{"§5.06", "no date", "2027-05-03T09:00", april(func(s *BankStatement) { s.On = Date{} }), EINVALID, "Give the statement's date"},
		{"§5.06", "unknown deposit", "2027-05-03T09:00", april(func(s *BankStatement) { s.Credited = []StatementCredit{{DepositID: "DEP-9"}} }), ENOTFOUND, `There is no deposit "DEP-9"`},
		{"§5.06", "deposit credited twice", "2027-05-03T09:00", april(func(s *BankStatement) { s.Credited = []StatementCredit{{DepositID: "DEP-1"}} }), ECONFLICT, "Deposit DEP-1 was credited on the statement dated 2027-03-31"},
		{"§5.06", "deposit of another depository", "2027-05-03T09:00", april(func(s *BankStatement) { s.Depository, s.Credited = "SRB", []StatementCredit{{DepositID: "DEP-3"}} }), EINVALID, "Deposit DEP-3 went to BOB, not to SRB"},
		{"§5.06", "credit by amount without its day", "2027-05-03T09:00", april(func(s *BankStatement) { s.Credited = []StatementCredit{{Amount: MustMoney("250.00")}} }), EINVALID, "by its amount"},
	} {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			w := &village{t: t, tx: v.tx.clone()}
			w.refused("treas", row.at, row.p, row.code, row.want)
		})
	}

	// Only the treasurer records a statement: the treasurer keeps the
	// depositories (§5.06).
	if bankStatementKind.Permits(RoleClerk) || !bankStatementKind.Permits(RoleTreasurer) {
		t.Error("bank_statement must be the treasurer's alone")
	}
}

// TestBankStatementFromReconciledFormat: the kind is new in format 6, so
// no cluster at format 5 proposes or applies it and a format-5 ledger
// replays as it did.
func TestBankStatementFromReconciledFormat(t *testing.T) {
	if !slices.Contains(Kinds.Descriptors(), bankStatementKind) || Kinds.Since(KindBankStatement) != ReconciledFormat {
		t.Errorf("bank_statement is in the table from format %d, want %d", Kinds.Since(KindBankStatement), ReconciledFormat)
	}
}

// TestCashByDepositoryPlacesEachKind: a card settlement, a deposit, a
// refund check and its void, a deposited check returned unpaid and
// interest each land at the depository their records name, and the
// depository's balance ties to the books' cash of both funds (§5.06).
func TestCashByDepositoryPlacesEachKind(t *testing.T) {
	tx := settlementVillage(t)
	booksRun(t, tx, KindCardSettlement, "treasurer", "2026-03-12T10:00", &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00"), FeeAccount: "51400", Reference: "po_1"})
	booksRun(t, tx, KindDepository, "treasurer", "2026-03-12T10:05", &DepositoryChange{Op: DepositoryNumber, ID: "BOB", Number: "000123456789"})
	booksRun(t, tx, KindCheckStock, "treasurer", "2026-03-12T10:10", &CheckStock{Next: 5001, Account: "BOB"})
	for _, s := range []SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2026-03-02 #5", ApprovedOn: MustDate("2026-03-02")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2026-03-02 #5", ApprovedOn: MustDate("2026-03-02")},
	} {
		booksRun(t, tx, KindSignature, "clerk", "2026-03-12T10:15", &s)
	}
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-13T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W2", Account: "100101", Parcel: "0601-141-2001", Description: "water Q2", BilledOn: MustDate("2026-03-13"), Principal: MustMoney("60.00"), Revenue: "46100"},
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "brush pickup", BilledOn: MustDate("2026-03-13"), Principal: MustMoney("40.00")},
	}})
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-03-16T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	over := booksRun(t, tx, KindWindowPayment, "clerk", "2026-03-16T09:00", &WindowPayment{DrawerID: "D-1", BillID: "B-W2", Amount: MustMoney("65.00"), Tender: Check, Reference: "2001"})
	booksRun(t, tx, KindWindowPayment, "clerk", "2026-03-16T09:30", &WindowPayment{DrawerID: "D-1", BillID: "B-G2", Amount: MustMoney("40.00"), Tender: Cash, Tendered: MustMoney("40.00")})
	booksRun(t, tx, KindDrawerClose, "clerk", "2026-03-16T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("40.00"), CountedChecks: MustMoney("65.00"), CheckCount: 1})
	booksRun(t, tx, KindDeposit, "treasurer", "2026-03-16T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	booksRun(t, tx, KindIssueRefund, "treasurer", "2026-03-17T09:00", &IssueRefund{Op: "approve", BillID: "B-W2", CommandID: over.CommandID})
	booksRun(t, tx, KindIssueRefund, "clerk", "2026-03-18T09:00", &IssueRefund{Op: "check", BillID: "B-W2", CommandID: over.CommandID, Account: "BOB", Payee: "Ana Gutierrez", Signatures: []string{"sig-wells", "sig-treas"}})
	booksRun(t, tx, KindCheckVoid, "treasurer", "2026-03-19T09:00", &CheckVoid{Number: 5001, Reason: "the check came back"})
	booksRun(t, tx, KindReturnCheck, "treasurer", "2026-03-20T10:00", &ReturnCheck{ReturnID: "RC-1", BillID: "B-W2", Receipt: over.Receipt.Number, FeeBillID: "B-FEE-1"})
	booksRun(t, tx, KindDepositoryInterest, "treasurer", "2026-03-31T15:00", &DepositoryInterest{Depository: "BOB", On: MustDate("2026-03-31"), Amount: MustMoney("0.42"), Revenue: "48000"})

	c, err := ReadsOf(txRecords{tx}).CashByDepository(MustDate("2026-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	b := balances(t, tx, "2026-03-31")
	if len(c.NotPlaced) != 0 || len(c.Rows) != 1 || !c.Ties() {
		t.Fatalf("not placed %+v, rows %+v", c.NotPlaced, c.Rows)
	}
	// 205.00 settled + 105.00 deposited − 5.00 refund + 5.00 void
	// − 65.00 returned + 0.42 interest.
	wantMoney(t, "BOB", c.Rows[0].Balance, "245.42")
	wantMoney(t, "the books' cash", c.Books, b["GF-111"].Add(b["WU-1010"]).String())
	wantMoney(t, "placed", c.Placed, c.Books.String())
	moves, err := ReadsOf(txRecords{tx}).cashMovements(MustDate("2026-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]bool{}
	for _, m := range moves {
		if m.Depository != "BOB" {
			t.Errorf("a movement not at BOB: %+v", m)
		}
		kinds[m.Kind] = true
	}
	for _, k := range []Kind{KindCardSettlement, KindDeposit, KindIssueRefund, KindCheckVoid, KindReturnCheck, KindDepositoryInterest} {
		if !kinds[k] {
			t.Errorf("no movement of %s: %+v", k, moves)
		}
	}
}
