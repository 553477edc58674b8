package main

import (
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk/staff"

	"github.com/villagehall/appliance/domain"
)

// TestResidentDemo checks the demo's tax bills on a few days of the year:
// every record is valid, both counties have bills, and the bills on the
// roll are special items of the property tax.
func TestResidentDemo(t *testing.T) {
	p := domain.DefaultParams()
	for _, day := range []string{"2026-11-29", "2027-01-12", "2026-06-01"} {
		t.Run(day, func(t *testing.T) {
			seed, err := demoData(domain.MustDate(day), p)
			if err != nil {
				t.Fatal(err)
			}
			counties := map[domain.County]int{}
			specials := 0
			for _, tb := range seed.TaxBills {
				if err := tb.Validate(); err != nil {
					t.Error(err)
				}
				if _, err := tb.Figures(p); err != nil {
					t.Error(err)
				}
				counties[tb.County]++
				for _, it := range tb.SpecialItems {
					if it.BillID != "" {
						specials++
					}
				}
			}
			if counties[domain.Dane] == 0 || counties[domain.Green] == 0 || specials == 0 {
				t.Errorf("counties %v, special charges %d", counties, specials)
			}
		})
	}
}

// TestDemoSpanishDescriptions loads the demo into a real node: its bills,
// its own and its history's, carry their Spanish descriptions, so a
// newcomer sees them on the kiosk's Spanish pages.
func TestDemoSpanishDescriptions(t *testing.T) {
	m := startMainAt(t, t.TempDir(), villageNow)
	bills, err := m.Node.BillsByAccount("100101")
	if err != nil || len(bills) < 3 {
		t.Fatalf("demo bills of 100101: %d %v", len(bills), err)
	}
	history := 0
	for _, b := range bills {
		if b.DescriptionES == "" || b.DescriptionES == b.Description {
			t.Errorf("demo bill %s (%s) has the Spanish description %q", b.ID, b.Description, b.DescriptionES)
		}
		if strings.Contains(b.ID, "-Q") { // the history's quarterly bills, B-2026-Q1-01
			history++
		}
	}
	if history == 0 {
		t.Error("no bill of the demo's history has a Spanish description")
	}
}

// TestDemoBudgetAndPurchasing loads the demo into a real node on a few days
// of the year and reads what its history made by the rules of its kinds:
// this year's budget adopted, appropriations charged by the orders, and
// the kiosk's purchasing records (open-market with bids, emergencies with
// invoice and explanation) coming from the orders, not from a list. The
// demo's officials cannot sign in.
func TestDemoBudgetAndPurchasing(t *testing.T) {
	for _, now := range []time.Time{villageNow, januaryNow, time.Date(2026, time.June, 1, 9, 0, 0, 0, villageNow.Location())} {
		t.Run(now.Format("2006-01-02"), func(t *testing.T) {
			m := startMainAt(t, t.TempDir(), now)
			reads := domain.ReadsOf(m.Node.FSM())
			b, ok, err := reads.Budget(now.Year())
			if err != nil || !ok || b.Status != domain.BudgetAdopted {
				t.Fatalf("this year's budget: %+v %v %v", b.Status, ok, err)
			}
			pub, err := reads.Purchases()
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[bool]int{}
			for _, pu := range pub {
				if err := pu.Validate(); err != nil {
					t.Error(err)
				}
				o, err := reads.Order(pu.ID)
				if err != nil {
					t.Fatalf("public record %s is not an order: %v", pu.ID, err)
				}
				if pu.Emergency && pu.Explanation == "" || !pu.Emergency && len(pu.Bids) < 3 || o.Award == nil {
					t.Errorf("record %s: %+v", pu.ID, pu)
				}
				kinds[pu.Emergency]++
			}
			if kinds[true] != 2 || kinds[false] != 3 {
				t.Fatalf("purchases: %d emergency, %d open market", kinds[true], kinds[false])
			}
			a, err := reads.Appropriation(now.Year(), "100-53300")
			if err != nil {
				t.Fatal(err)
			}
			if a.Expended.Add(a.Encumbered).IsZero() && len(a.Charges) == 0 && now.YearDay() > 40 {
				t.Errorf("streets appropriation has no charges: %+v", a)
			}
			users, err := reads.StaffUsers()
			if err != nil {
				t.Fatal(err)
			}
			demo := 0
			for _, u := range users {
				if strings.HasPrefix(u.Username, "demo.") {
					demo++
					if staff.CheckPassword(u.PasswordHash, "") || u.PasswordHash != domain.LockedPassword {
						t.Errorf("demo official %s can sign in: %q", u.Username, u.PasswordHash)
					}
				}
			}
			if demo != 4 {
				t.Errorf("%d demo officials", demo)
			}
		})
	}
}

// TestDemoBooks loads the demo on a few days of the year and reads what
// its treasury year posted: the trial balance is balanced and tied to
// the balance sheet, this year's budget reads last year's actuals from
// the books with revenue on the line that collects the bills, the claims
// were paid by check, and the statements have revenues and expenditures.
func TestDemoBooks(t *testing.T) {
	for _, now := range []time.Time{villageNow, januaryNow, time.Date(2026, time.June, 1, 9, 0, 0, 0, villageNow.Location())} {
		t.Run(now.Format("2006-01-02"), func(t *testing.T) {
			m := startMainAt(t, t.TempDir(), now)
			reads := domain.ReadsOf(m.Node.FSM())
			today := domain.DateOf(now)
			tb, err := reads.TrialBalance(today)
			if err != nil {
				t.Fatal(err)
			}
			if !tb.Balanced() || tb.Debit.IsZero() {
				t.Fatalf("trial balance: debits %s, credits %s", tb.Debit, tb.Credit)
			}
			// The entries tie to the days' totals: the history's steps,
			// which share the seed's log index, keep an entry each.
			entries, err := reads.BookEntries(domain.NewDate(2000, 1, 1), today, "100-112")
			if err != nil {
				t.Fatal(err)
			}
			var sum domain.TrialBalanceRow
			for _, e := range entries {
				for _, l := range e.Lines {
					if l.Account == "100-112" {
						sum.Debit, sum.Credit = sum.Debit.Add(l.Debit), sum.Credit.Add(l.Credit)
					}
				}
			}
			for _, r := range tb.Rows {
				if r.Account.Code == "100-112" && (!r.Debit.Equal(sum.Debit) || !r.Credit.Equal(sum.Credit)) {
					t.Errorf("100-112: the entries hold %s/%s, the trial balance %s/%s", sum.Debit, sum.Credit, r.Debit, r.Credit)
				}
			}
			bs, err := reads.BalanceSheet(today)
			if err != nil || !bs.Balanced() {
				t.Fatalf("balance sheet: %+v %v", bs.Positions, err)
			}
			view, err := reads.BudgetView(now.Year(), today)
			if err != nil {
				t.Fatal(err)
			}
			if view.CurrentFrom != domain.FromBooks || view.ActualMonths != 12 {
				t.Fatalf("budget %d: actuals from %s, %d months", now.Year(), view.CurrentFrom, view.ActualMonths)
			}
			var revenue, spent domain.Money
			for _, l := range view.Lines {
				if l.Account.Type == domain.AccountRevenue {
					revenue = revenue.Add(l.Current)
				} else {
					spent = spent.Add(l.Current)
				}
			}
			if !revenue.IsPositive() || !spent.IsPositive() {
				t.Errorf("budget %d: revenue actuals %s, expenditure actuals %s", now.Year(), revenue, spent)
			}
			t.Logf("budget %d: %s of revenue and %s of expenditure in %d, from the %s; trial balance %s", now.Year(), revenue, spent, view.CurrentYear, view.CurrentFrom, tb.Debit)
			claims, err := reads.Claims(now.Year() - 1)
			if err != nil {
				t.Fatal(err)
			}
			paid := 0
			for _, c := range claims {
				if c.Status == domain.ClaimPaid {
					paid++
				}
			}
			if paid != 12 {
				t.Errorf("%d of last year's %d claims paid", paid, len(claims))
			}
			st, err := reads.FundStatement(now.Year()-1, "100")
			if err != nil {
				t.Fatal(err)
			}
			if !st.TotalRevenues.Actual.IsPositive() || !st.TotalExpenditures.Actual.IsPositive() {
				t.Errorf("statement of %d: revenues %s, expenditures %s", st.Year, st.TotalRevenues.Actual, st.TotalExpenditures.Actual)
			}
			// The cash is all at SRB, and last month's statement of SRB
			// reconciles with the books (§5.06).
			cash, err := reads.CashByDepository(today)
			if err != nil || !cash.Ties() || len(cash.NotPlaced) != 0 || !cash.Placed.Equal(cash.Books) || !cash.Books.IsPositive() {
				t.Errorf("cash by depository: %+v, %v", cash, err)
			}
			stmts, err := reads.BankStatements("SRB")
			if end := domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1); end.AddDays(3).Before(today) {
				if err != nil || len(stmts) != 1 || stmts[0].On != end {
					t.Fatalf("SRB's statements: %+v, %v; want the one of %s", stmts, err, end)
				}
				rec, err := reads.Reconciliation("SRB", end)
				if err != nil || !rec.Reconciled() || len(rec.Statement.Cleared) == 0 || len(rec.Statement.Credited) == 0 {
					t.Errorf("SRB's reconciliation of %s: difference %s, %d checks paid, %d deposits credited, %v", end, rec.Difference(), len(rec.Statement.Cleared), len(rec.Statement.Credited), err)
				}
			} else if len(stmts) != 0 {
				t.Errorf("a statement of SRB recorded in the future: %+v", stmts)
			}
		})
	}
}
