package domain

import (
	"strings"
	"testing"
)

// TestBudgetViewFromTheLedger: on a ledger without books (before ledger
// format 5), the receipts the ledger posts count in the actuals of the
// revenue account that collects them, and the proposed budget reads the
// current year's actuals, the estimates for the rest of the year and the
// summary of three budgets from them.
func TestBudgetViewFromTheLedger(t *testing.T) {
	v := adopted2027At(t, BooksFormat-1)
	// 2027 runs: a bill is paid, a status letter fee is paid, salt is
	// bought. Receipts of bills count under 100-46100 (it collects bills).
	v.do("clerk", "2027-01-04T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2027-01-04"), Principal: MustMoney("90.00")},
		{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", Description: "Tax", BilledOn: MustDate("2027-01-04"), Principal: MustMoney("50.00"), Revenue: "100-41110"},
	}})
	v.refused("clerk", "2027-01-04T09:01", &CreateBills{Bills: []NewBill{
		{ID: "B-3", Account: "100101", Parcel: "0601-141-2001", Description: "x", BilledOn: MustDate("2027-01-04"), Principal: MustMoney("1.00"), Revenue: "100-51400"},
	}}, EINVALID, "not an open revenue account")
	v.do("kiosk", "2027-02-10T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("90.00"), Tender: Card, Reference: "A1"})
	v.do("kiosk", "2027-03-10T10:00", &PayBill{BillID: "B-2", Amount: MustMoney("20.00"), Tender: Card, Reference: "A2"})
	// The wages: the payroll of an employment the board approved, the
	// one expense charged without a claim under ledger format 5
	// (§5.07(3), §5.12).
	emp := v.do("admin", "2027-01-04T09:30", &Employment{Line: "100-51400", Person: "Office staff", Position: "Administration", Amount: MustMoney("150000.00"), From: MustDate("2027-01-01"), Approval: "motion 2027-01-03 #4", ApprovedOn: MustDate("2027-01-03")}).Ref
	v.doAt(BooksFormat, "treas", "2027-04-15T10:00", &Expense{Line: "100-51400", On: MustDate("2027-04-15"), Amount: MustMoney("150000.00"), Payee: "Payroll", Description: "Q1 wages", Against: emp})

	// The 2028 budget, proposed in August 2027.
	v.do("admin", "2027-08-01T10:00", &Estimate{Year: 2028, Unit: "ADMIN", Lines: []EstimateLine{{Account: "100-51400", Prior: MustMoney("280000.00"), Current: MustMoney("310000.00"), Next: MustMoney("320000.00")}}})
	p := proposal2027()
	p.Year = 2028
	p.Lines[2].Amount = MustMoney("320000.00") // administration
	p.Lines[3].Amount = MustMoney("44000.00")  // streets
	v.do("admin", "2027-08-02T10:00", p)
	view, err := v.reads().BudgetView(2028, MustDate("2027-08-15"))
	if err != nil {
		t.Fatal(err)
	}
	if view.CurrentFrom != FromLedger || view.ActualMonths != 7 || view.ActualsThrough != MustDate("2027-07-31") || view.PrecedingFrom != FromEstimates {
		t.Fatalf("view: from %s, %d months through %s, preceding from %s", view.CurrentFrom, view.ActualMonths, view.ActualsThrough, view.PrecedingFrom)
	}
	line := func(code string) BudgetViewLine {
		for _, l := range view.Lines {
			if l.Account.Code == code {
				return l
			}
		}
		t.Fatalf("no line %s", code)
		return BudgetViewLine{}
	}
	if l := line("100-46100"); !l.Current.Equal(MustMoney("90.00")) || l.RestFrom != FromProjected || !l.Rest.Equal(MustMoney("64.29")) {
		t.Errorf("charges for services: current %s rest %s (%s)", l.Current, l.Rest, l.RestFrom)
	}
	if l := line("100-41110"); !l.Current.Equal(MustMoney("20.00")) {
		t.Errorf("taxes: current %s", l.Current)
	}
	if l := line("100-51400"); !l.Current.Equal(MustMoney("150000.00")) || l.RestFrom != FromEstimates || !l.Rest.Equal(MustMoney("160000.00")) ||
		!l.InEffect.Equal(MustMoney("300000.00")) || !l.Proposed.Equal(MustMoney("320000.00")) || !l.Preceding.Equal(MustMoney("280000.00")) {
		t.Errorf("administration: %+v", l)
	}
	// The summary: by major category, the budget in effect (2027) and
	// the proposed, with the change.
	var gg SummaryRow
	for _, r := range view.Summary.Expenditures {
		if r.Label == "General government" {
			gg = r
		}
	}
	if !gg.InEffect.Equal(MustMoney("300000.00")) || !gg.Proposed.Equal(MustMoney("320000.00")) || gg.Change != "+6.7%" || !gg.Preceding.IsZero() {
		t.Errorf("general government: %+v", gg)
	}
	if tot := view.Summary.TotalExpend; !tot.Proposed.Equal(MustMoney("944000.00")) || tot.Change != "+2.6%" {
		t.Errorf("total expenditures: %+v", tot)
	}
	if len(view.Summary.Sources) != 1 || !view.Summary.Sources[0].Proposed.Equal(MustMoney("25000.00")) {
		t.Errorf("other sources: %+v", view.Summary.Sources)
	}
	// The general fund: 410,000 + 1,020,000 + 25,000 − 944,000.
	if len(view.Funds) != 1 || !view.Funds[0].Ending.Equal(MustMoney("511000.00")) || !view.Funds[0].Surplus.Equal(MustMoney("101000.00")) {
		t.Errorf("fund projection: %+v", view.Funds)
	}
	if b := view.Summary.Balances[0]; !b.ProposedEnd.Equal(MustMoney("511000.00")) || !b.InEffectEnd.Equal(MustMoney("535000.00")) || b.Change != "-4.5%" {
		t.Errorf("balances: %+v", b)
	}
	// A returned check takes its receipt out of the actuals again.
	v.do("clerk", "2027-08-03T09:00", &CreateBills{Bills: []NewBill{{ID: "B-4", Account: "100101", Parcel: "0601-141-2001", Description: "Snow", BilledOn: MustDate("2027-08-03"), Principal: MustMoney("30.00")}}})
	v.do("clerk", "2027-08-03T10:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	pay := v.do("clerk", "2027-08-03T10:05", &WindowPayment{DrawerID: "D-1", BillID: "B-4", Amount: MustMoney("30.00"), Tender: Check, Tendered: MustMoney("30.00"), Reference: "chk 12"})
	acts, _ := v.reads().Actuals(2027)
	aug := func() Actual {
		for _, a := range acts {
			if a.Month == 8 && a.Account == "100-46100" {
				return a
			}
		}
		return Actual{}
	}
	if !aug().Receipts.Equal(MustMoney("30.00")) {
		t.Fatalf("august receipts: %+v", aug())
	}
	v.do("clerk", "2027-08-20T10:00", &ReturnCheck{BillID: "B-4", Receipt: pay.Receipt.Number, ReturnID: "RC-1", FeeBillID: "B-RC-1"})
	acts, _ = v.reads().Actuals(2027)
	if !aug().Receipts.IsZero() {
		t.Fatalf("august receipts after the returned check: %+v", aug())
	}
}

func TestPercentChange(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"100.00", "104.20", "+4.2%"}, {"100.00", "90.00", "-10.0%"}, {"0.00", "5.00", ""}, {"3.00", "3.00", "+0.0%"}, {"3.00", "4.00", "+33.3%"},
	} {
		if got := PercentChange(MustMoney(c.old), MustMoney(c.new)); got != c.want {
			t.Errorf("%s → %s: %q, want %q", c.old, c.new, got, c.want)
		}
	}
}

// TestChartRules: the chart refers to funds and units it has, has one
// general fund, lets one account collect each source, and keeps an
// account's type once it has appropriations.
func TestChartRules(t *testing.T) {
	v := adopted2027(t)
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "200", Type: AccountFund, Name: "Debt service", General: true}}}, EINVALID, "Only one fund is the general fund")
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-52100", Type: AccountExpenditure, Name: "Police", Fund: "100", Unit: "POLICE", Major: "Public safety"}}}, EINVALID, "unit POLICE")
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-52100", Type: AccountExpenditure, Name: "Police", Fund: "ADMIN", Unit: "ADMIN", Major: "Public safety"}}}, EINVALID, "ADMIN is a department")
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-46200", Type: AccountRevenue, Name: "Fees", Fund: "100", Major: "Fees", Sources: []string{SourceBills}}}}, EINVALID, "collected by both")
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-53300", Type: AccountRevenue, Name: "Streets", Fund: "100", Major: "x"}}}, ECONFLICT, "has appropriations")
	v.refused("admin", "2027-01-02T10:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-53300", Type: AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works", Closed: true}}}, ECONFLICT, "cannot be closed")
	// Rows of an import name their row.
	c := staffCmd(KindChart, "admin", "2027-01-02T10:00")
	c.Payload = &ChartChange{Accounts: []ChartAccount{{Code: "X1", Type: AccountFund, Name: "x"}, {Code: "bad code", Type: AccountFund, Name: "y"}}}
	if err := c.Validate(); err == nil || !strings.Contains(ErrorMessage(err), "Row 2") {
		t.Fatalf("validate: %v", err)
	}
	// A department head heads a unit of the chart.
	v.refused("admin", "2027-01-02T10:00", &StaffUserChange{Op: StaffAdd, Username: "nohead", Name: "No Unit", Role: RoleDepartmentHead, Unit: "FIRE", PasswordHash: "h"}, EINVALID, `"FIRE" is not one`)
	v.refused("admin", "2027-01-02T10:00", &StaffUserChange{Op: StaffAdd, Username: "clerk2", Name: "Clerk Two", Role: RoleClerk, Unit: "PW", PasswordHash: "h"}, EINVALID, "Only a department head")
}

// TestPurchasingRecords: requisitions, surplus stock and the rules of
// purchasing with the board's approval.
func TestPurchasingRecords(t *testing.T) {
	v := adopted2027(t)
	rq := v.do("pwhead", "2027-01-05T10:00", &Requisition{Unit: "PW", Type: "estimate", Period: "2027 Q1", Category: CategorySupplies, Items: []RequisitionItem{{Description: "Cold patch", Quantity: 40, Estimated: MustMoney("800.00")}}}).Ref
	v.refused("pwhead", "2027-01-05T10:00", &Requisition{Unit: "ADMIN", Type: "requisition", Category: CategorySupplies, Items: []RequisitionItem{{Description: "Paper", Quantity: 1}}}, EFORBIDDEN, "heads PW")
	v.refused("pwhead", "2027-01-05T10:00", &Requisition{Unit: "PW", Type: "estimate", Category: CategorySupplies, Items: []RequisitionItem{{Description: "Paper", Quantity: 1}}}, EINVALID, "period")
	o := v.do("admin", "2027-01-06T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Cold patch", Category: CategorySupplies, Estimate: MustMoney("800.00"), Requisition: rq}).Ref
	if got, _ := v.reads().Order(o); got.Requisition != rq {
		t.Fatalf("order's requisition: %q", got.Requisition)
	}
	sr := v.do("pwhead", "2027-02-01T10:00", &SurplusChange{Op: "report", Unit: "PW", Items: []SurplusItem{{Description: "Old mower", Quantity: 1, Condition: "runs"}, {Description: "Traffic cones", Quantity: 30, Condition: "good"}}}).Ref
	v.refused("pwhead", "2027-02-02T10:00", &SurplusChange{Op: "transfer", Report: sr, Item: 1, To: "PARKS"}, EFORBIDDEN, "Purchasing Agent")
	v.do("admin", "2027-02-02T10:00", &SurplusChange{Op: "transfer", Report: sr, Item: 1, To: "PARKS"})
	v.refused("admin", "2027-02-03T10:00", &SurplusChange{Op: "sell", Report: sr, Item: 0, Sale: &SurplusSale{Authorization: "motion 2027-02-02 #5", Buyer: "Ann", Price: MustMoney("100.00"), On: MustDate("2027-02-03"),
		Bids: []OrderBid{{Vendor: "Ann", Amount: MustMoney("100.00")}, {Vendor: "Bob", Amount: MustMoney("150.00")}}}}, EINVALID, "highest bid")
	v.do("admin", "2027-02-03T10:00", &SurplusChange{Op: "sell", Report: sr, Item: 0, Sale: &SurplusSale{Authorization: "motion 2027-02-02 #5", Buyer: "Bob", Price: MustMoney("150.00"), On: MustDate("2027-02-03"),
		Bids: []OrderBid{{Vendor: "Ann", Amount: MustMoney("100.00")}, {Vendor: "Bob", Amount: MustMoney("150.00")}}}})
	v.refused("admin", "2027-02-04T10:00", &SurplusChange{Op: "transfer", Report: sr, Item: 0, To: "PARKS"}, ECONFLICT, "transferred or sold already")
	reports, _ := v.reads().SurplusReports(2027)
	if len(reports) != 1 || reports[0].Items[1].Transfer.To != "PARKS" || reports[0].Items[0].Sale.Buyer != "Bob" {
		t.Fatalf("surplus: %+v", reports)
	}

	v.do("admin", "2027-01-10T10:00", &PurchasingRulesChange{Op: "draft", Text: "1. Emergency purchases are reported within one business day."})
	v.refused("admin", "2027-01-10T10:00", &PurchasingRulesChange{Op: "approve", Version: 1, Approval: "motion", ApprovedOn: MustDate("2027-01-09")}, EINVALID, "drafted on 2027-01-10")
	v.do("admin", "2027-01-20T10:00", &PurchasingRulesChange{Op: "approve", Version: 1, Approval: "motion 2027-01-19 #2", ApprovedOn: MustDate("2027-01-19")})
	v.do("admin", "2027-06-01T10:00", &PurchasingRulesChange{Op: "draft", Text: "1. Emergency purchases are reported the same day."})
	vs, _ := v.reads().PurchasingRules()
	if in, ok := InForce(vs); len(vs) != 2 || !ok || in.Version != 1 {
		t.Fatalf("rules: %d versions, in force %+v", len(vs), in)
	}
}

// TestBudgetViewFromTheBooks: once the books are open, the budget's
// actuals are the books' postings to each line: bills issued, payments,
// claims allowed and paid by a check run, a delivery invoiced
// (§5.02(4)(e)), each line's actual the trial balance's balance of it for
// the months counted; and the summary's fund balances of the years that
// are over are the balance sheet's (§5.02(5)(d)). The close of the year
// leaves them as they were. The year the books opened in (2026, without
// the old books' trial balance) is not read from them.
func TestBudgetViewFromTheBooks(t *testing.T) {
	v := statementsVillage(t)
	p := proposal2027()
	p.Year = 2028
	p.Lines = append(p.Lines, BudgetLine{Account: "WU-53700", Amount: MustMoney("62000.00")})
	v.do("admin", "2027-08-02T10:00", p)

	tieToTrialBalance := func(view BudgetView, asOf string) {
		t.Helper()
		tb, err := v.reads().TrialBalance(MustDate(asOf))
		if err != nil {
			t.Fatal(err)
		}
		if !tb.Balanced() {
			t.Fatalf("trial balance of %s: debits %s, credits %s", asOf, tb.Debit, tb.Credit)
		}
		balance := map[string]Money{}
		for _, r := range tb.Rows {
			balance[r.Account.Code] = r.Balance()
		}
		for _, l := range view.Lines {
			if !l.Current.Equal(balance[l.Account.Code]) {
				t.Errorf("as of %s, %s: actual %s, the trial balance %s", asOf, l.Account.Code, l.Current, balance[l.Account.Code])
			}
		}
	}
	line := func(view BudgetView, code string) BudgetViewLine {
		t.Helper()
		for _, l := range view.Lines {
			if l.Account.Code == code {
				return l
			}
		}
		t.Fatalf("no line %s", code)
		return BudgetViewLine{}
	}

	// In August 2027: January to July.
	view, err := v.reads().BudgetView(2028, MustDate("2027-08-15"))
	if err != nil {
		t.Fatal(err)
	}
	if view.CurrentFrom != FromBooks || view.ActualMonths != 7 || view.PrecedingFrom != FromEstimates {
		t.Fatalf("view: current from %s (%d months), preceding from %s", view.CurrentFrom, view.ActualMonths, view.PrecedingFrom)
	}
	tieToTrialBalance(view, "2027-07-31")
	// Charges for services: both bills issued (800.00 paid, 150.00 not),
	// where the ledger's own actuals count the 800.00 received only.
	for code, want := range map[string]string{"100-46100": "950.00", "100-53300": "1700.00", "WU-53700": "200.00", "100-51400": "0.00"} {
		if l := line(view, code); !l.Current.Equal(MustMoney(want)) {
			t.Errorf("%s: actual %s, want %s", code, l.Current, want)
		}
	}

	// In January 2028: the whole of 2027, and its fund balances.
	view, err = v.reads().BudgetView(2028, MustDate("2028-01-10"))
	if err != nil {
		t.Fatal(err)
	}
	if view.ActualMonths != 12 || line(view, "100-46100").RestFrom != FromBooks {
		t.Fatalf("view: %d months, rest from %s", view.ActualMonths, line(view, "100-46100").RestFrom)
	}
	tieToTrialBalance(view, "2027-12-31")
	wantBalances := func() {
		t.Helper()
		end, err := v.reads().BalanceSheet(MustDate("2027-12-31"))
		if err != nil {
			t.Fatal(err)
		}
		start, err := v.reads().BalanceSheet(MustDate("2026-12-31"))
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range []string{"100", "WU"} {
			pe, _ := end.Position(f)
			ps, _ := start.Position(f)
			r := view.Summary.Balances[i]
			if !strings.HasPrefix(r.Label, f+" ") || !r.InEffect.Equal(ps.FundBalance) || !r.InEffectEnd.Equal(pe.FundBalance) || !r.Proposed.Equal(pe.FundBalance) {
				t.Errorf("fund %s: %+v, want in effect %s to %s, proposed from %s", f, r, ps.FundBalance, pe.FundBalance, pe.FundBalance)
			}
			if !view.Funds[i].Beginning.Equal(pe.FundBalance) {
				t.Errorf("fund %s projection: %+v", f, view.Funds[i])
			}
		}
		if r := view.Summary.Balances[0]; !r.InEffectEnd.Equal(MustMoney("-750.00")) {
			t.Errorf("general fund at the end of 2027: %s", r.InEffectEnd)
		}
	}
	wantBalances()

	// The close of 2027 changes none of it.
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	view, err = v.reads().BudgetView(2028, MustDate("2028-01-10"))
	if err != nil {
		t.Fatal(err)
	}
	// (December 30: the close's entry of December 31 brings the lines to
	// zero in the trial balance.)
	tieToTrialBalance(view, "2027-12-30")
	if l := line(view, "100-53300"); !l.Current.Equal(MustMoney("1700.00")) {
		t.Errorf("streets after the close: %s", l.Current)
	}
	wantBalances()
}

// TestActualsFromTheBooksAlone: in a year the books hold whole, a ledger
// at format 5 still counts each receipt and expense in its own actuals,
// as it always did, and from format 6 it counts none; either way the
// budget's actuals of that year are the books' (§5.02(4)(e)).
func TestActualsFromTheBooksAlone(t *testing.T) {
	for _, row := range []struct {
		name   string
		format int
		counts bool // the ledger's own actuals are written
	}{
		{"format 5 counts as before", BooksFormat, true},
		{"format 6 counts nothing", ReconciledFormat, false},
	} {
		t.Run("§5.02(4)/"+row.name, func(t *testing.T) {
			// The books opened on 2026-01-05: they hold 2027 whole.
			v := adopted2027At(t, row.format)
			v.do("clerk", "2027-01-04T09:00", &CreateBills{Bills: []NewBill{
				{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2027-01-04"), Principal: MustMoney("90.00")},
			}})
			v.do("kiosk", "2027-01-20T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("60.00"), Tender: Card, Reference: "A1"})
			emp := v.do("admin", "2027-01-04T09:30", &Employment{Line: "100-51400", Person: "Office staff", Position: "Administration", Amount: MustMoney("150000.00"), From: MustDate("2027-01-01"), Approval: "motion 2027-01-03 #4", ApprovedOn: MustDate("2027-01-03")}).Ref
			if row.format < ReconciledFormat {
				v.do("treas", "2027-04-15T10:00", &Expense{Line: "100-51400", On: MustDate("2027-04-15"), Amount: MustMoney("37500.00"), Payee: "Payroll", Description: "Q1 wages", Against: emp})
			} else {
				// From format 6 the payroll is a claim naming the
				// employment, charged when the treasurer endorses it.
				id := v.do("clerk", "2027-04-15T10:00", &ClaimChange{Op: ClaimEnter, Vendor: "Payroll", Invoice: "Q1", InvoiceDate: MustDate("2027-04-15"), Amount: MustMoney("37500.00"), Line: "100-51400", Employment: emp, Description: "Q1 wages"}).Ref
				for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, "motion of the board"}, {"admin", CertifyConformity, "work done"}, {"treas", CertifyValid, ""}} {
					v.do(x.who, "2027-04-15T10:00", &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
				}
				v.do("treas", "2027-04-15T10:00", &ClaimChange{Op: ClaimEndorse, ID: id})
			}

			acts, err := v.reads().Actuals(2027)
			if err != nil {
				t.Fatal(err)
			}
			if row.counts {
				want := []Actual{
					{Year: 2027, Month: 1, Account: "100-46100", Receipts: MustMoney("60.00")},
					{Year: 2027, Month: 4, Account: "100-51400", Expended: MustMoney("37500.00")},
				}
				if len(acts) != len(want) {
					t.Fatalf("the ledger's actuals: %+v, want %+v", acts, want)
				}
				for i, w := range want {
					a := acts[i]
					if a.Month != w.Month || a.Account != w.Account || !a.Receipts.Equal(w.Receipts) || !a.Expended.Equal(w.Expended) {
						t.Errorf("the ledger's actual %d: %+v, want %+v", i, a, w)
					}
				}
			} else if len(acts) != 0 {
				t.Fatalf("format 6 wrote the ledger's own actuals: %+v", acts)
			}
			// The appropriation's own figures (§5.05) are kept either way.
			if a := v.appropriation(2027, "100-51400"); !a.Expended.Equal(MustMoney("37500.00")) || !a.Encumbered.Equal(MustMoney("112500.00")) {
				t.Errorf("the appropriation: expended %s, encumbered %s", a.Expended, a.Encumbered)
			}

			p := proposal2027()
			p.Year = 2028
			v.do("admin", "2027-08-02T10:00", p)
			view, err := v.reads().BudgetView(2028, MustDate("2027-08-15"))
			if err != nil {
				t.Fatal(err)
			}
			if view.CurrentFrom != FromBooks {
				t.Fatalf("current year from %s", view.CurrentFrom)
			}
			ch, _ := v.reads().Chart()
			books, err := v.reads().LineActivity(ch.linesAll(), 2027, view.ActualsThrough)
			if err != nil {
				t.Fatal(err)
			}
			year, err := v.reads().YearActuals(2027)
			if err != nil || year.From != FromBooks {
				t.Fatalf("year actuals from %s: %v", year.From, err)
			}
			for _, l := range view.Lines {
				if !l.Current.Equal(books[l.Account.Code]) {
					t.Errorf("%s: actual %s, the books %s", l.Account.Code, l.Current, books[l.Account.Code])
				}
				r, e := year.Total(l.Account.Code)
				if !r.Add(e).Equal(books[l.Account.Code]) {
					t.Errorf("%s: the year's actuals %s and %s, the books %s", l.Account.Code, r, e, books[l.Account.Code])
				}
			}
			// The bill counts when issued, in full: the books' basis.
			for code, want := range map[string]string{"100-46100": "90.00", "100-51400": "37500.00"} {
				if got := books[code]; !got.Equal(MustMoney(want)) {
					t.Errorf("%s in the books: %s, want %s", code, got, want)
				}
			}
		})
	}
}

// TestActualsOfTheYearTheBooksOpened: the books opened on 2026-01-05 and
// the old books' trial balance was not imported, so they miss 2026's first
// days. The ledger keeps counting 2026 in its own actuals to the year's
// end, also once the format is raised to 6, and the budget reads 2026
// from them whole: a bill issued before the raise and paid after it counts
// once, when paid. 2027, which the books hold whole, is counted by the
// books alone. Once the trial balance is imported 2026 is the books' too.
func TestActualsOfTheYearTheBooksOpened(t *testing.T) {
	v := newVillageAt(t, BooksFormat)
	v.do("clerk", "2026-04-20T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2026-04-20"), Principal: MustMoney("90.00")},
		{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", Description: "Snow", BilledOn: MustDate("2026-04-20"), Principal: MustMoney("40.00")},
	}})
	v.do("kiosk", "2026-04-25T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("90.00"), Tender: Card, Reference: "A1"})
	// The cluster's format is raised to 6.
	v.tx.format = ReconciledFormat
	v.do("kiosk", "2026-05-12T10:00", &PayBill{BillID: "B-2", Amount: MustMoney("40.00"), Tender: Card, Reference: "A2"})
	v.do("clerk", "2027-01-11T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-3", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2027-01-11"), Principal: MustMoney("25.00")},
	}})
	v.do("kiosk", "2027-01-20T10:00", &PayBill{BillID: "B-3", Amount: MustMoney("25.00"), Tender: Card, Reference: "A3"})

	acts2026, _ := v.reads().Actuals(2026)
	var received Money
	for _, a := range acts2026 {
		received = received.Add(a.Receipts)
	}
	if !received.Equal(MustMoney("130.00")) {
		t.Fatalf("2026's own actuals: %+v, want 130.00 received", acts2026)
	}
	if acts2027, _ := v.reads().Actuals(2027); len(acts2027) != 0 {
		t.Fatalf("2027's own actuals at format 6: %+v", acts2027)
	}

	v.do("admin", "2026-10-01T10:00", proposal2027())
	view, err := v.reads().BudgetView(2027, MustDate("2026-12-15"))
	if err != nil {
		t.Fatal(err)
	}
	line := func(view BudgetView, code string) BudgetViewLine {
		t.Helper()
		for _, l := range view.Lines {
			if l.Account.Code == code {
				return l
			}
		}
		t.Fatalf("no line %s", code)
		return BudgetViewLine{}
	}
	if l := line(view, "100-46100"); view.CurrentFrom != FromLedger || !l.Current.Equal(MustMoney("130.00")) {
		t.Errorf("2026 in the 2027 budget: from %s, charges for services %s, want the ledger's 130.00", view.CurrentFrom, l.Current)
	}
	if y, _ := v.reads().YearActuals(2026); y.From != FromLedger {
		t.Errorf("2026's actuals from %s", y.From)
	}
	y, _ := v.reads().YearActuals(2027)
	if r, _ := y.Total("100-46100"); y.From != FromBooks || !r.Equal(MustMoney("25.00")) {
		t.Errorf("2027's actuals from %s: %s", y.From, r)
	}

	// The old books' trial balance of January 5 carries 2026's revenue
	// before the books opened; with it, the books hold 2026 whole.
	v.do("treas", "2026-12-20T09:00", &BooksOpening{Source: "import old-books.csv",
		Accounts: []ChartAccount{
			{Code: "100-101", Type: AccountAsset, Name: "General checking", Fund: "100", Control: ControlCash},
			{Code: "100-341", Type: AccountFundBalance, Name: "Unassigned fund balance", Fund: "100", Control: ControlFundBalance},
		},
		Lines: []OpeningLine{
			{Line: 2, Account: "100-101", Fund: "100", Debit: MustMoney("1000.00")},
			{Line: 3, Account: "100-46100", Fund: "100", Credit: MustMoney("5.00")},
			{Line: 4, Account: "100-341", Fund: "100", Credit: MustMoney("995.00")},
		}})
	if y, _ := v.reads().YearActuals(2026); y.From != FromBooks {
		t.Errorf("2026's actuals after the import from %s", y.From)
	}
	view, err = v.reads().BudgetView(2027, MustDate("2026-12-21"))
	if err != nil {
		t.Fatal(err)
	}
	// The books: the two bills issued and the old books' 5.00.
	if l := line(view, "100-46100"); view.CurrentFrom != FromBooks || !l.Current.Equal(MustMoney("135.00")) {
		t.Errorf("2026 after the import: from %s, charges for services %s, want the books' 135.00", view.CurrentFrom, l.Current)
	}
	// From the import on, 2026 is no longer counted by the ledger.
	before := len(acts2026)
	v.do("clerk", "2026-12-21T09:00", &CreateBills{Bills: []NewBill{{ID: "B-4", Account: "100101", Parcel: "0601-141-2001", Description: "Snow", BilledOn: MustDate("2026-12-21"), Principal: MustMoney("10.00")}}})
	v.do("kiosk", "2026-12-21T10:00", &PayBill{BillID: "B-4", Amount: MustMoney("10.00"), Tender: Card, Reference: "A4"})
	if acts, _ := v.reads().Actuals(2026); len(acts) != before {
		t.Errorf("2026's own actuals after the import: %+v", acts)
	}
}
