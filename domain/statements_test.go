package domain

import (
	"slices"
	"testing"
)

// statementsVillage is payablesVillage (a 2027 budget for the general
// fund 100 and the water utility WU, an $800.00 general fund bill and a
// $300.00 water bill paid and deposited) carried through 2027:
//   - the chart classifies both funds' charges for services as Form CT
//     class 46300 and the streets line as 53300; the water distribution
//     line has no class;
//   - an amendment (§5.04) adds $15,000.00 to parks and $5,000.00 to the
//     property tax estimate;
//   - a $150.00 general fund bill is issued on April 1 and not paid;
//   - a $500.00 streets claim and a $200.00 water claim are allowed and
//     paid by one check run (§5.07, §5.18);
//   - a $2,000.00 order for salt is certified (§5.12(6)) and $1,200.00 of
//     it delivered and invoiced, leaving $800.00 encumbered.
func statementsVillage(t *testing.T) *village {
	v := payablesVillage(t)
	v.do("admin", "2027-02-10T09:00", &ChartChange{Accounts: []ChartAccount{
		{Code: "100-46100", Type: AccountRevenue, Name: "Charges for services", Fund: "100", Major: "Public charges for services", Sources: []string{SourceBills, SourceStatusLetters}, Class: "46300"},
		{Code: "WU-46100", Type: AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services", Class: "46300"},
		{Code: "100-53300", Type: AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works", Class: "53300"},
	}})
	vs, present := votes(5, 2, 0)
	v.do("clerk", "2027-03-24T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2027-03-24"), Votes: vs, Present: present, Purpose: "Playground",
		Changes: []AmendLine{{Account: "100-55200", Change: MustMoney("15000.00")}, {Account: "100-41110", Change: MustMoney("5000.00")}}})
	v.do("clerk", "2027-04-01T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "snow removal", BilledOn: MustDate("2027-04-01"), Principal: MustMoney("150.00")},
	}})
	gf := allowClaim(v, "2027-04-02T10:00", "Sugar River Asphalt", MustMoney("500.00"), "100-53300")
	wu := allowClaim(v, "2027-04-03T10:00", "Badger Meter", MustMoney("200.00"), "WU-53700")
	v.do("treas", "2027-04-05T10:00", &CheckRun{On: MustDate("2027-04-05"), Account: "BOB", Claims: []string{gf, wu}, Signatures: []string{"sig-wells", "sig-treas"}})
	o := v.do("admin", "2027-05-03T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Road salt", Category: CategorySupplies, Estimate: MustMoney("2000.00")}).Ref
	v.do("admin", "2027-05-04T10:00", &OrderChange{Op: OrderBidOp, ID: o, Bid: &OrderBid{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), Received: MustDate("2027-05-04")}})
	v.do("admin", "2027-05-05T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), On: MustDate("2027-05-05"), Reasons: "sole source under contract"}})
	v.do("treas", "2027-05-05T11:00", &CertifyFunds{Order: o})
	v.do("admin", "2027-05-05T12:00", &OrderChange{Op: OrderIssue, ID: o})
	v.do("admin", "2027-05-20T10:00", &OrderReceipt{Order: o, Delivery: Delivery{On: MustDate("2027-05-20"), Inspector: "Pat Works", Conforms: true, Invoice: "M-1", Invoiced: MustMoney("1200.00")}})
	return v
}

// sheetRow returns the amounts by fund and the total of the balance
// sheet's row whose caption is caption, in section.
func sheetRow(t *testing.T, bs BalanceSheet, section, caption string) ([]string, string) {
	t.Helper()
	for _, s := range bs.Sections {
		if s.Key != section {
			continue
		}
		for _, r := range s.Rows {
			if r.Caption == caption {
				var out []string
				for _, m := range r.Amounts {
					out = append(out, m.String())
				}
				return out, r.Total.String()
			}
		}
	}
	t.Fatalf("the balance sheet of %s has no row %q in %s: %+v", bs.AsOf, caption, section, bs.Sections)
	return nil, ""
}

// TestBalanceSheetByFund: as of December 31, 2027, each fund's assets
// (cash, the bill still owed) equal its liabilities (the delivery
// invoiced and not yet claimed) and fund balance, which is the year's
// revenues less expenditures not yet closed; the encumbrance of the salt
// order (budgetary, §5.12(6)) is on neither side. After the close
// (§5.05) the same figures stand in fund balance itself; and before it,
// as of a day of 2028, they are the earlier year's, not yet closed.
func TestBalanceSheetByFund(t *testing.T) {
	v := statementsVillage(t)
	bs, err := v.reads().BalanceSheet(MustDate("2027-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bs.Funds, []string{"100", "WU"}) {
		t.Fatalf("funds %v, want the general fund first", bs.Funds)
	}
	for _, c := range []struct {
		section, caption string
		funds            []string
		total            string
	}{
		{SectionAssets, "Cash in depositories", []string{"300.00", "100.00"}, "400.00"},
		{SectionAssets, "Village bills receivable", []string{"150.00", "0.00"}, "150.00"},
		{SectionLiabilities, "Invoices payable, claims not yet allowed", []string{"1200.00", "0.00"}, "1200.00"},
		{SectionLiabilities, "Vouchers payable", []string{"0.00", "0.00"}, "0.00"},
		{SectionFundBalance, "Net change this year, not yet closed", []string{"-750.00", "100.00"}, "-650.00"},
	} {
		funds, total := sheetRow(t, bs, c.section, c.caption)
		if !slices.Equal(funds, c.funds) || total != c.total {
			t.Errorf("%s: %v, total %s; want %v, %s", c.caption, funds, total, c.funds, c.total)
		}
	}
	for _, s := range bs.Sections {
		for _, r := range s.Rows {
			if r.Control.Budgetary() || slices.Contains(r.Accounts, "100-191") || slices.Contains(r.Accounts, "100-342") {
				t.Errorf("the budgetary pair is on the balance sheet: %+v", r)
			}
		}
		if s.Key == SectionDeferredOutflows && len(s.Rows) != 0 {
			t.Errorf("deferred outflows: %+v", s.Rows)
		}
	}
	want := map[string]FundPosition{
		"100": {Fund: "100", Assets: MustMoney("450.00"), Liabilities: MustMoney("1200.00"), FundBalance: MustMoney("-750.00")},
		"WU":  {Fund: "WU", Assets: MustMoney("100.00"), FundBalance: MustMoney("100.00")},
	}
	for f, w := range want {
		p, _ := bs.Position(f)
		if !p.Balanced() || !p.Assets.Equal(w.Assets) || !p.Liabilities.Equal(w.Liabilities) || !p.FundBalance.Equal(w.FundBalance) {
			t.Errorf("fund %s: %+v (difference %s), want %+v", f, p, p.Difference(), w)
		}
	}
	if !bs.Balanced() || !bs.Total.Assets.Equal(MustMoney("550.00")) || !bs.Total.FundBalance.Equal(MustMoney("-650.00")) {
		t.Errorf("all funds: %+v", bs.Total)
	}

	// Early in 2028, before the close: 2027's net change is an earlier
	// year's, and this year's is the bill of January 2.
	v.do("clerk", "2028-01-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G3", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2028-01-02"), Principal: MustMoney("50.00")},
	}})
	bs, err = v.reads().BalanceSheet(MustDate("2028-01-03"))
	if err != nil {
		t.Fatal(err)
	}
	if funds, _ := sheetRow(t, bs, SectionFundBalance, "Revenues less expenditures of years before 2028, not yet closed"); !slices.Equal(funds, []string{"-750.00", "100.00"}) {
		t.Errorf("earlier years not closed: %v", funds)
	}
	if funds, _ := sheetRow(t, bs, SectionFundBalance, "Net change this year, not yet closed"); !slices.Equal(funds, []string{"50.00", "0.00"}) {
		t.Errorf("this year's: %v", funds)
	}
	if !bs.Balanced() {
		t.Errorf("unbalanced early in 2028: %+v", bs.Positions)
	}

	// The close: the same figures, now in the funds' own balance.
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	bs, err = v.reads().BalanceSheet(MustDate("2027-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	if funds, _ := sheetRow(t, bs, SectionFundBalance, "Unassigned fund balance"); !slices.Equal(funds, []string{"-750.00", "100.00"}) {
		t.Errorf("fund balance after the close: %v", funds)
	}
	if funds, _ := sheetRow(t, bs, SectionFundBalance, "Net change this year, not yet closed"); !slices.Equal(funds, []string{"0.00", "0.00"}) {
		t.Errorf("not yet closed after the close: %v", funds)
	}
	if !bs.Balanced() {
		t.Errorf("unbalanced after the close: %+v", bs.Positions)
	}
}

// wantRow compares a statement row with figures: original, amendments,
// carried, final, actual, variance, encumbrances.
func wantRow(t *testing.T, r StatementRow, major string, figures ...string) {
	t.Helper()
	got := []string{r.Original.String(), r.Amendments.String(), r.Carried.String(), r.Final.String(), r.Actual.String(), r.Variance.String(), r.Encumbrances.String()}
	if r.Major != major || !slices.Equal(got, figures) {
		t.Errorf("row %q: %v, want %q %v", r.Major, got, major, figures)
	}
}

// TestFundStatement: the general fund's 2027 statement puts the budget
// (adopted, amended, final) beside the books' actuals, by major source
// and category, with the encumbrance of the salt order; its actuals are
// the trial balance's revenue and expenditure balances of the year; its
// fund balance runs from the start of the year to the balance sheet's at
// the end. The water utility's budget estimates no revenue: actuals only.
// The close of the year changes none of it, and 2028 starts where 2027
// ended.
func TestFundStatement(t *testing.T) {
	v := statementsVillage(t)
	st, err := v.reads().FundStatement(2027, "100")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Adopted || !st.RevenueBudget || len(st.Revenues) != 2 || len(st.Expenditures) != 3 {
		t.Fatalf("statement: %+v", st)
	}
	wantRow(t, st.Revenues[0], "Taxes", "900000.00", "5000.00", "0.00", "905000.00", "0.00", "-905000.00", "0.00")
	wantRow(t, st.Revenues[1], "Public charges for services", "120000.00", "0.00", "0.00", "120000.00", "950.00", "-119050.00", "0.00")
	wantRow(t, st.TotalRevenues, "Total revenues", "1020000.00", "5000.00", "0.00", "1025000.00", "950.00", "-1024050.00", "0.00")
	wantRow(t, st.Expenditures[0], "General government", "300000.00", "0.00", "0.00", "300000.00", "0.00", "300000.00", "0.00")
	wantRow(t, st.Expenditures[1], "Public works", "540000.00", "0.00", "0.00", "540000.00", "1700.00", "538300.00", "800.00")
	wantRow(t, st.Expenditures[2], "Culture, recreation and education", "80000.00", "15000.00", "0.00", "95000.00", "0.00", "95000.00", "0.00")
	wantRow(t, st.TotalExpenditures, "Total expenditures", "920000.00", "15000.00", "0.00", "935000.00", "1700.00", "933300.00", "800.00")
	if !slices.Equal(st.Expenditures[1].Accounts, []string{"100-53300", "100-53310"}) {
		t.Errorf("public works sums %v", st.Expenditures[1].Accounts)
	}
	if !st.Beginning.IsZero() || !st.NetChange.Equal(MustMoney("-750.00")) || !st.OtherChanges.IsZero() || !st.Ending.Equal(MustMoney("-750.00")) {
		t.Errorf("fund balance: beginning %s, net change %s, other %s, ending %s", st.Beginning, st.NetChange, st.OtherChanges, st.Ending)
	}

	// The actuals are the trial balance's, fund by fund (the books
	// opened in 2026 and nothing posted before 2027).
	tb, err := v.reads().TrialBalance(MustDate("2027-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := v.reads().BalanceSheet(MustDate("2027-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fund := range []string{"100", "WU"} {
		st, err := v.reads().FundStatement(2027, fund)
		if err != nil {
			t.Fatal(err)
		}
		var rev, exp Money
		for _, r := range tb.Rows {
			switch {
			case r.Account.Fund != fund:
			case r.Account.Type == AccountRevenue:
				rev = rev.Add(r.Balance())
			case r.Account.Type == AccountExpenditure:
				exp = exp.Add(r.Balance())
			}
		}
		if !st.TotalRevenues.Actual.Equal(rev) || !st.TotalExpenditures.Actual.Equal(exp) {
			t.Errorf("fund %s: actuals %s and %s, the trial balance %s and %s", fund, st.TotalRevenues.Actual, st.TotalExpenditures.Actual, rev, exp)
		}
		if p, _ := bs.Position(fund); !st.Ending.Equal(p.FundBalance) {
			t.Errorf("fund %s ends at %s, the balance sheet has %s", fund, st.Ending, p.FundBalance)
		}
	}

	wu, err := v.reads().FundStatement(2027, "WU")
	if err != nil {
		t.Fatal(err)
	}
	if wu.RevenueBudget || !wu.Adopted || len(wu.Revenues) != 1 || len(wu.Expenditures) != 1 {
		t.Fatalf("the water utility: %+v", wu)
	}
	wantRow(t, wu.Revenues[0], "Charges for services", "0.00", "0.00", "0.00", "0.00", "300.00", "300.00", "0.00")
	wantRow(t, wu.Expenditures[0], "Utilities", "60000.00", "0.00", "0.00", "60000.00", "200.00", "59800.00", "0.00")

	// The close changes nothing of 2027's statement.
	v.do("clerk", "2028-01-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G3", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2028-01-02"), Principal: MustMoney("50.00")},
	}})
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	after, err := v.reads().FundStatement(2027, "100")
	if err != nil {
		t.Fatal(err)
	}
	wantRow(t, after.TotalRevenues, "Total revenues", "1020000.00", "5000.00", "0.00", "1025000.00", "950.00", "-1024050.00", "0.00")
	wantRow(t, after.TotalExpenditures, "Total expenditures", "920000.00", "15000.00", "0.00", "935000.00", "1700.00", "933300.00", "800.00")
	if !after.Ending.Equal(MustMoney("-750.00")) || !after.OtherChanges.IsZero() {
		t.Errorf("after the close: ending %s, other %s", after.Ending, after.OtherChanges)
	}

	// 2028 has no budget of its own: the salt order's encumbrance and
	// the continuing street reconstruction were carried to it (§5.05),
	// and its fund balance starts where 2027's ended.
	next, err := v.reads().FundStatement(2028, "100")
	if err != nil {
		t.Fatal(err)
	}
	if next.Adopted || next.RevenueBudget || len(next.Expenditures) != 1 {
		t.Fatalf("2028: %+v", next)
	}
	wantRow(t, next.Expenditures[0], "Public works", "0.00", "0.00", "500800.00", "500800.00", "0.00", "500800.00", "800.00")
	if !next.Beginning.Equal(MustMoney("-750.00")) || !next.NetChange.Equal(MustMoney("50.00")) || !next.Ending.Equal(MustMoney("-700.00")) {
		t.Errorf("2028: beginning %s, net change %s, ending %s", next.Beginning, next.NetChange, next.Ending)
	}

	if _, err := v.reads().FundStatement(2027, "PW"); ErrorCode(err) != ENOTFOUND {
		t.Errorf("a department as the fund: %v", err)
	}
}

// TestFundStatementOtherChanges: the opening entry of books opened in a
// year credits fund balance with the bills then open; the statement shows
// it apart from the net change, and still ends at the balance sheet's
// fund balance.
func TestFundStatementOtherChanges(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	c := staffCmd(KindChart, "admin", "2026-04-01T09:00")
	c.Payload = booksChart()
	if _, err := Apply(billLister{tx}, c, 8, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	booksRun(t, tx, KindCreateBills, "clerk", "2026-05-01T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-05-01"), Principal: MustMoney("20.00")},
	}})
	st, err := ReadsOf(txRecords{tx}).FundStatement(2026, "GF")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := ReadsOf(txRecords{tx}).BalanceSheet(MustDate("2026-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := bs.Position("GF")
	if st.Adopted || !st.NetChange.Equal(MustMoney("20.00")) || !st.OtherChanges.Equal(MustMoney("80.00")) || !st.Ending.Equal(MustMoney("100.00")) || !p.FundBalance.Equal(st.Ending) || !p.Balanced() {
		t.Fatalf("net change %s, other %s, ending %s; the balance sheet %+v", st.NetChange, st.OtherChanges, st.Ending, p)
	}
}

// TestFormCT: 2027's revenues and expenditures by the Department of
// Revenue's classification, summed across accounts and funds of one
// class; the water distribution line, which has none, is listed on its
// own under unclassified; the totals include it.
func TestFormCT(t *testing.T) {
	v := statementsVillage(t)
	ct, err := v.reads().FormCT(2027)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Revenues) != 1 || ct.Revenues[0].Class != "46300" || !ct.Revenues[0].Amount.Equal(MustMoney("1250.00")) ||
		!slices.Equal(ct.Revenues[0].Accounts, []string{"100-46100", "WU-46100"}) || !slices.Equal(ct.Revenues[0].Funds, []string{"100", "WU"}) {
		t.Errorf("revenues: %+v", ct.Revenues)
	}
	if len(ct.Expenditures) != 1 || ct.Expenditures[0].Class != "53300" || !ct.Expenditures[0].Amount.Equal(MustMoney("1700.00")) {
		t.Errorf("expenditures: %+v", ct.Expenditures)
	}
	if len(ct.Unclassified) != 1 || !slices.Equal(ct.Unclassified[0].Accounts, []string{"WU-53700"}) || ct.Unclassified[0].Type != AccountExpenditure || !ct.Unclassified[0].Amount.Equal(MustMoney("200.00")) {
		t.Errorf("unclassified: %+v", ct.Unclassified)
	}
	if !ct.TotalRevenues.Equal(MustMoney("1250.00")) || !ct.TotalExpenditures.Equal(MustMoney("1900.00")) {
		t.Errorf("totals: %s, %s", ct.TotalRevenues, ct.TotalExpenditures)
	}
	// The close of the year leaves the year's figures as they were.
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	if again, err := v.reads().FormCT(2027); err != nil || !again.TotalRevenues.Equal(MustMoney("1250.00")) || !again.TotalExpenditures.Equal(MustMoney("1900.00")) {
		t.Errorf("after the close: %+v, %v", again, err)
	}
}
