package domain

import (
	"strings"
	"testing"
)

// wantBalances checks accounts' balances on their normal side.
func wantBalances(t *testing.T, got map[string]Money, want map[string]string) {
	t.Helper()
	for code, w := range want {
		if !got[code].Equal(MustMoney(w)) {
			t.Errorf("account %s: %s, want %s (all: %v)", code, got[code], w, got)
		}
	}
}

// TestBooksOfRoomTax follows a return through the books (§5.22): filed on
// time, paid in part at the kiosk, amended down after its due date (so
// interest runs on what is unpaid), then overpaid at the window. After each
// event the receivable is the rule's balance, revenue its tax, fee and
// interest, refunds payable its overpayment; the deposit takes the
// window's money out of the room tax fund's undeposited receipts.
func TestBooksOfRoomTax(t *testing.T) {
	tx := newStaffTx()
	for _, u := range []StaffUser{{Username: "treas", Role: RoleTreasurer}, {Username: "innkeeper", Role: RoleHotelOperator}} {
		if err := tx.Put(CollectionStaffUsers, u.Username, u); err != nil {
			t.Fatal(err)
		}
	}
	ch := booksChart()
	ch.Accounts = append(ch.Accounts,
		ChartAccount{Code: "RT", Type: AccountFund, Name: "Room tax fund"},
		ChartAccount{Code: "RT-41300", Type: AccountRevenue, Name: "Room tax", Fund: "RT", Major: "Taxes", Sources: []string{SourceRoomTax}})
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", ch)
	booksRun(t, tx, KindRoomTaxOperator, "treas", "2026-01-05T09:00", &RoomTaxOperatorChange{Op: OperatorRegister, ID: "belle-inn", LegalName: "Belle Inn LLC",
		Establishments: []Establishment{{Name: "Belle Inn", Address: "12 Vine St"}}, SellersPermit: "456-1027384756-02", Contact: "Ann Belle"})
	booksRun(t, tx, KindRoomTaxOperator, "treas", "2026-01-05T09:01", &RoomTaxOperatorChange{Op: OperatorLink, ID: "belle-inn", Login: "innkeeper"})

	booksRun(t, tx, KindRoomTaxFile, "innkeeper", "2026-04-20T09:00", &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 1},
		GrossReceipts: MustMoney("10000.00"), Signer: "Ann Belle", Capacity: "owner", Year: &RoomTaxYear{Basis: YearCalendar, EndMonth: 12}})
	wantBalances(t, balances(t, tx, "2026-04-20"), map[string]string{"RT-122": "700.00", "RT-41300": "700.00"})

	booksRun(t, tx, KindPayRoomTax, "kiosk", "2026-04-25T10:00", &PayRoomTax{Return: "belle-inn_2026-Q1", Amount: MustMoney("500.00"), Reference: "SIM-1"})
	wantBalances(t, balances(t, tx, "2026-04-25"), map[string]string{"RT-122": "200.00", "RT-112": "500.00", "RT-41300": "700.00"})

	// Amended down on May 10: tax 630.00, 130.00 unpaid after April 30
	// bears a month's interest (1.30).
	booksRun(t, tx, KindRoomTaxAmend, "innkeeper", "2026-05-10T09:00", &AmendRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 1},
		GrossReceipts: MustMoney("9000.00"), Signer: "Ann Belle", Capacity: "owner", Reason: "a cancelled group booking"})
	wantBalances(t, balances(t, tx, "2026-05-10"), map[string]string{"RT-122": "131.30", "RT-41300": "631.30"})

	// Paid 200.00 at the window on June 2: two months' interest (2.60),
	// owed 632.60, paid 700.00, 67.40 owed back.
	booksRun(t, tx, KindDrawerOpen, "treas", "2026-06-02T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	booksRun(t, tx, KindRoomTaxWindowPayment, "treas", "2026-06-02T09:00", &RoomTaxWindowPayment{Return: "belle-inn_2026-Q1", DrawerID: "D-1",
		Amount: MustMoney("200.00"), Tender: Cash, Tendered: MustMoney("200.00")})
	fig, err := ReadsOf(txRecords{tx}).RoomTaxReturn("belle-inn_2026-Q1")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := fig.Figures(MustDate("2026-06-02"), DefaultParams())
	if f.Overpayment.String() != "67.40" || f.Interest.String() != "2.60" {
		t.Fatalf("the rule's figures: %+v", f)
	}
	wantBalances(t, balances(t, tx, "2026-06-02"), map[string]string{"RT-122": "0.00", "RT-212": "67.40", "RT-112": "700.00", "RT-41300": "632.60"})

	booksRun(t, tx, KindDrawerClose, "treas", "2026-06-02T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("200.00")})
	booksRun(t, tx, KindDepository, "treas", "2026-06-02T16:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	booksRun(t, tx, KindDeposit, "treas", "2026-06-02T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	wantBalances(t, balances(t, tx, "2026-06-30"), map[string]string{"RT-112": "500.00", "RT-111": "200.00", "GF-112": "0.00"})
}

// TestBooksOfSpecialAssessments: a levy of 2,000.00 is revenue and
// receivable of the special assessments fund (§5.14(5)); the first
// installment paid at the kiosk and the rest at the window take the
// principal off the receivable; the window's money is deposited out of
// that fund's undeposited receipts.
func TestBooksOfSpecialAssessments(t *testing.T) {
	p := leviedAfter(t, func(p *project) {
		ch := booksChart()
		ch.Accounts = append(ch.Accounts,
			ChartAccount{Code: "SA", Type: AccountFund, Name: "Special assessments fund"},
			ChartAccount{Code: "SA-48200", Type: AccountRevenue, Name: "Special assessments", Fund: "SA", Major: "Special assessments", Sources: []string{SourceAssessments}})
		p.must(KindChart, "admin", "2026-01-02T09:00", ch)
	})
	wantBalances(t, balances(t, p.tx, "2026-07-20"), map[string]string{"SA-123": "2000.00", "SA-48200": "2000.00"})

	id := AssessmentID(p.id, district()[0])
	p.must(KindPayAssessment, "kiosk", "2026-08-10T10:00", pay(id, PayInstallment, "333.34"))
	p.must(KindDrawerOpen, "pclerk", "2026-08-12T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	p.must(KindWindowAssessmentPayment, "pclerk", "2026-08-12T09:00", &WindowAssessmentPayment{DrawerID: "D-1", AssessmentID: id, Option: PayInFull,
		Amount: MustMoney("666.66"), Tender: Cash, Tendered: MustMoney("666.66")})
	wantBalances(t, balances(t, p.tx, "2026-08-12"), map[string]string{"SA-123": "1000.00", "SA-112": "1000.00", "SA-48200": "2000.00"})

	p.must(KindDrawerClose, "pclerk", "2026-08-12T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("666.66")})
	p.must(KindDepository, "treas", "2026-08-12T16:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	p.must(KindDeposit, "treas", "2026-08-12T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	wantBalances(t, balances(t, p.tx, "2026-08-31"), map[string]string{"SA-112": "333.34", "SA-111": "666.66", "GF-112": "0.00"})
}

// settlementVillage is booksChart with an administration line, two bills
// paid by card on March 10 (130.00 of water, overpaying, and 80.00 of
// the general fund) and a designated depository.
func settlementVillage(t *testing.T) *staffTx {
	t.Helper()
	tx := newStaffTx()
	ch := booksChart()
	ch.Accounts = append(ch.Accounts,
		ChartAccount{Code: "ADMIN", Type: AccountDepartment, Name: "Administration", Fund: "GF"},
		ChartAccount{Code: "51400", Type: AccountExpenditure, Name: "Administration", Fund: "GF", Unit: "ADMIN", Major: "General government"},
		ChartAccount{Code: "59200", Type: AccountExpenditure, Name: "Transfers to other funds", Fund: "GF", Unit: "ADMIN", Major: "Other financing uses"})
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", ch)
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T10:00", &PayBill{BillID: "B-W1", Amount: MustMoney("130.00"), Tender: Card, Reference: "SIM-1"})
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T11:00", &PayBill{BillID: "B-G1", Amount: MustMoney("80.00"), Tender: Card, Reference: "SIM-2"})
	booksRun(t, tx, KindDepository, "treasurer", "2026-03-11T16:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	return tx
}

// TestBooksOfCardSettlement (§5.06): the processor deposits March 10's
// 210.00 of card receipts less a 5.00 fee. Each fund's card receipts
// move from undeposited to cash; the fee is the named line's expenditure,
// out of its fund's cash. A day is settled once; a fee needs its line; a
// deposit above the day's receipts is refused.
func TestBooksOfCardSettlement(t *testing.T) {
	tx := settlementVillage(t)
	wantBalances(t, balances(t, tx, "2026-03-10"), map[string]string{"WU-112": "130.00", "GF-112": "80.00"})
	for _, bad := range []struct {
		name string
		p    CardSettlement
		code Code
	}{
		{"fee without its line", CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00")}, EINVALID},
		{"more than the day's receipts", CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("210.01"), FeeAccount: "51400"}, EINVALID},
		{"a revenue line for the fee", CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00"), FeeAccount: "48000"}, EINVALID},
		{"no designated depository", CardSettlement{Day: MustDate("2026-03-10"), Depository: "XYZ", Deposited: MustMoney("205.00"), FeeAccount: "51400"}, EINVALID},
		{"a day without card receipts", CardSettlement{Day: MustDate("2026-03-09"), Depository: "BOB", Deposited: MustMoney("0.00")}, ECONFLICT},
	} {
		c := staffCmd(KindCardSettlement, "treasurer", "2026-03-12T10:00")
		p := bad.p
		c.Payload = &p
		if _, err := tryRun(tx, c); ErrorCode(err) != bad.code {
			t.Errorf("§5.06/%s: %v, want %s", bad.name, err, bad.code)
		}
	}
	res := booksRun(t, tx, KindCardSettlement, "treasurer", "2026-03-12T10:00", &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00"), FeeAccount: "51400", Reference: "po_1"})
	if res.Note != "card receipts of 2026-03-10 settled: 205.00 deposited, fee 5.00" {
		t.Errorf("note: %q", res.Note)
	}
	wantBalances(t, balances(t, tx, "2026-03-12"), map[string]string{
		"WU-112": "0.00", "WU-1010": "130.00", "GF-112": "0.00", "GF-111": "75.00", "51400": "5.00",
	})
	c := staffCmd(KindCardSettlement, "treasurer", "2026-03-13T10:00")
	c.Payload = &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00"), FeeAccount: "51400"}
	if _, err := tryRun(tx, c); ErrorCode(err) != ECONFLICT || !strings.Contains(ErrorMessage(err), "settled on 2026-03-12") {
		t.Errorf("a day settled twice: %v", err)
	}
}

// TestBooksOfFundTransfer (§5.05): 50.00 from the general fund to the
// water utility by resolution: transfers out and cash down in one,
// cash and transfers in (the standard line, added) up in the other.
func TestBooksOfFundTransfer(t *testing.T) {
	tx := settlementVillage(t)
	booksRun(t, tx, KindCardSettlement, "treasurer", "2026-03-12T10:00", &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("210.00")})
	for _, bad := range []FundTransfer{
		{From: "GF", To: "GF", Amount: MustMoney("50.00"), Resolution: "2026-12", Purpose: "x", OutAccount: "59200"},
		{From: "GF", To: "WU", Amount: MustMoney("50.00"), Purpose: "x", OutAccount: "59200"},
		{From: "GF", To: "WU", Amount: MustMoney("50.00"), Resolution: "2026-12", Purpose: "x"},
		{From: "GF", To: "WU", Amount: MustMoney("50.00"), Resolution: "2026-12", Purpose: "x", OutAccount: "48000"},
		{From: "GF", To: "WU", Amount: MustMoney("0.00"), Resolution: "2026-12", Purpose: "x", OutAccount: "59200"},
		{From: "GF", To: "XX", Amount: MustMoney("50.00"), Resolution: "2026-12", Purpose: "x", OutAccount: "59200"},
	} {
		c := staffCmd(KindFundTransfer, "treasurer", "2026-03-13T10:00")
		p := bad
		c.Payload = &p
		if _, err := tryRun(tx, c); ErrorCode(err) != EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}
	booksRun(t, tx, KindFundTransfer, "treasurer", "2026-03-13T10:00", &FundTransfer{From: "GF", To: "WU", Amount: MustMoney("50.00"), Resolution: "2026-12", Purpose: "share of the meter project", OutAccount: "59200"})
	wantBalances(t, balances(t, tx, "2026-03-13"), map[string]string{
		"GF-111": "30.00", "59200": "50.00", "WU-1010": "180.00", "WU-4910": "50.00",
	})
}

// TestLateCardReceiptsSettleApart (§5.06): a kiosk that took a card
// payment offline on March 10 delivers it after the day was settled. From
// ledger format 6 it is the day's late receipt, in receipts not yet
// deposited until the processor's later deposit of it is settled by a
// further settlement, which moves only it (and its own fee); a day with
// nothing late is settled once. At format 5 the late receipt stays
// undeposited, as that format's books kept it.
func TestLateCardReceiptsSettleApart(t *testing.T) {
	late := func(tx *staffTx) {
		booksRun(t, tx, KindCardSettlement, "treasurer", "2026-03-12T10:00", &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("205.00"), FeeAccount: "51400"})
		booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T15:00", &PayBill{BillID: "B-G1", Amount: MustMoney("20.00"), Tender: Card, Reference: "SIM-3"})
	}
	tx := settlementVillage(t)
	late(tx)
	wantBalances(t, balances(t, tx, "2026-03-13"), map[string]string{"GF-112": "20.00", "GF-111": "75.00"})
	d, _, err := ReadsOf(txRecords{tx}).CardDay(MustDate("2026-03-10"))
	if err != nil || !d.LateTotal().Equal(MustMoney("20.00")) || !d.Total().Equal(MustMoney("230.00")) {
		t.Fatalf("the day after the late receipt: late %s, total %s, %v", d.LateTotal(), d.Total(), err)
	}
	c := staffCmd(KindCardSettlement, "treasurer", "2026-03-14T10:00")
	c.Payload = &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("20.01"), FeeAccount: "51400"}
	if _, err := tryRun(tx, c); ErrorCode(err) != EINVALID {
		t.Errorf("a later deposit above the late receipts: %v", err)
	}
	res := booksRun(t, tx, KindCardSettlement, "treasurer", "2026-03-14T10:00", &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("19.50"), FeeAccount: "51400", Reference: "po_2"})
	if res.Note != "late card receipts of 2026-03-10 settled: 19.50 deposited, fee 0.50" {
		t.Errorf("note: %q", res.Note)
	}
	wantBalances(t, balances(t, tx, "2026-03-14"), map[string]string{"GF-112": "0.00", "GF-111": "94.50", "51400": "5.50", "WU-1010": "130.00"})
	if d, _, _ := ReadsOf(txRecords{tx}).CardDay(MustDate("2026-03-10")); !d.LateTotal().IsZero() || len(d.Later) != 1 || !d.Later[0].Funds["GF"].Equal(MustMoney("20.00")) || d.Settled.CommandID == d.Later[0].CommandID {
		t.Errorf("the day after the further settlement: %+v", d)
	}
	c = staffCmd(KindCardSettlement, "treasurer", "2026-03-15T10:00")
	c.Payload = &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("1.00"), FeeAccount: "51400"}
	if _, err := tryRun(tx, c); ErrorCode(err) != ECONFLICT {
		t.Errorf("a third settlement with nothing late: %v", err)
	}

	old := settlementVillage(t)
	old.format = BooksFormat
	late(old)
	c = staffCmd(KindCardSettlement, "treasurer", "2026-03-14T10:00")
	c.Payload = &CardSettlement{Day: MustDate("2026-03-10"), Depository: "BOB", Deposited: MustMoney("20.00")}
	if _, err := tryRun(old, c); ErrorCode(err) != ECONFLICT {
		t.Errorf("format 5: a further settlement was taken: %v", err)
	}
	wantBalances(t, balances(t, old, "2026-03-14"), map[string]string{"GF-112": "20.00"})
}

// TestBooksOfInstallmentsOnTheTaxRoll (§5.14(12)): from ledger format 6
// an installment the November run extends on the tax roll moves from
// special assessments receivable to due from the county, its unpaid
// interest to revenue; the county's collection of it with the property
// tax takes it off due from the county. Nothing else moves.
func TestBooksOfInstallmentsOnTheTaxRoll(t *testing.T) {
	p := leviedAfter(t, func(p *project) {
		ch := booksChart()
		ch.Accounts = append(ch.Accounts,
			ChartAccount{Code: "SA", Type: AccountFund, Name: "Special assessments fund"},
			ChartAccount{Code: "SA-48200", Type: AccountRevenue, Name: "Special assessments", Fund: "SA", Major: "Special assessments", Sources: []string{SourceAssessments}})
		p.must(KindChart, "admin", "2026-01-02T09:00", ch)
	})
	a1 := AssessmentID(p.id, district()[1])
	items, err := ReadsOf(txRecords{p.tx}).AssessmentRollItems(2026)
	if err != nil || len(items) == 0 {
		t.Fatalf("roll items: %+v %v", items, err)
	}
	var it RunItem
	for _, x := range items {
		if x.Assessment == a1 {
			it = x
		}
	}
	before := balances(t, p.tx, "2026-11-15")
	p.must(KindNovemberRun, "treas", "2026-11-02T09:00", &NovemberStep{Op: "penalties", Year: 2026})
	p.must(KindNovemberRun, "treas", "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Assessments: []string{it.BillID}})
	var run NovemberRun
	if _, err := p.tx.Get(CollectionNovemberRuns, "2026", &run); err != nil || run.Lines("certify") != 1 {
		t.Fatalf("the run: %+v, %v", run, err)
	}
	it = runLine(t, p.tx, 2026, "certify", it.BillID) // as certified, with its parcel's county
	after := balances(t, p.tx, "2026-11-30")
	interest := it.Balance.Sub(it.Principal)
	if !after["SA-132"].Equal(it.Balance) || !after["SA-123"].Equal(before["SA-123"].Sub(it.Principal)) || !after["SA-48200"].Equal(before["SA-48200"].Add(interest)) {
		t.Fatalf("installment %s (%s: principal %s) on the roll: due from county %s, receivable %s → %s, revenue %s → %s",
			it.BillID, it.Balance, it.Principal, after["SA-132"], before["SA-123"], after["SA-123"], before["SA-48200"], after["SA-48200"])
	}
	tb := TaxBill{ID: TaxBillID(2026, it.Parcel), Parcel: it.Parcel, County: it.County, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"),
		GeneralTax:   MustMoney("1000.00"),
		SpecialItems: []TaxItem{{Description: it.Description, Amount: it.Balance, BillID: it.BillID}}}
	if err := PutTaxBill(p.tx, tb); err != nil {
		t.Fatal(err)
	}
	p.must(KindPayPropertyTax, "kiosk", "2026-12-15T10:00", &PayPropertyTax{TaxBillID: tb.ID, Option: TaxFull, Amount: MustMoney("1000.00").Add(it.Balance), Tender: Card, Reference: "SIM-9"})
	collected := balances(t, p.tx, "2026-12-31")
	if !collected["SA-132"].IsZero() || !collected["SA-112"].Equal(after["SA-112"].Add(it.Balance)) || !collected["SA-48200"].Equal(after["SA-48200"]) {
		t.Errorf("collected with the property tax: due from county %s, undeposited %s, revenue %s", collected["SA-132"], collected["SA-112"], collected["SA-48200"])
	}
}
