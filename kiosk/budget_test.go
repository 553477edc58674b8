package kiosk_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/villagehall/appliance/domain"
)

// seedBudgets takes the fixture's village through two budget cycles with
// the domain's own rules (2026 adopted in 2025, 2027 adopted in 2026, then
// amended), proposes 2028 without adopting it, and buys road salt on the
// open market with the board's approval.
func seedBudgets(t *testing.T, l *fakeLedger) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	tx := &fakeTx{l: l, bills: map[string]domain.Bill{}, receipts: map[string]domain.Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	n := 0
	do := func(actor, at string, p domain.Payload) domain.Result {
		t.Helper()
		n++
		dt, err := domain.ParseDateTime(at)
		if err != nil {
			t.Fatal(err)
		}
		c := domain.Command{ID: fmt.Sprintf("budget-%d", n), Kind: p.Kind(), At: dt, Node: "hall-clerk", Seq: uint64(n), Actor: actor, Payload: p}
		res, err := domain.Apply(tx, c, uint64(1000+n), domain.DefaultParams())
		if err != nil {
			t.Fatalf("%s: %v", p.Kind(), err)
		}
		return res
	}
	m := domain.MustMoney
	do("setup", "2025-01-05T09:00", &domain.StaffUserChange{Op: domain.StaffAdd, Username: "admin", Name: "Ada Admin", Role: domain.RoleAdministrator, PasswordHash: "h"})
	do("setup", "2025-01-05T09:00", &domain.StaffUserChange{Op: domain.StaffAdd, Username: "treas", Name: "Tom Treasurer", Role: domain.RoleTreasurer, PasswordHash: "h"})
	do("admin", "2025-01-05T09:01", &domain.ChartChange{Source: "form", Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "PW", Type: domain.AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "PARKS", Type: domain.AccountCommission, Name: "Park commission", Fund: "100"},
		{Code: "100-41110", Type: domain.AccountRevenue, Name: "General property taxes", Fund: "100", Major: "Taxes"},
		{Code: "100-53300", Type: domain.AccountExpenditure, Name: "Streets", Fund: "100", Unit: "PW", Major: "Public works"},
		{Code: "100-55200", Type: domain.AccountExpenditure, Name: "Parks", Fund: "100", Unit: "PARKS", Major: "Culture, recreation and education"},
	}})
	var board []string
	for i := range 7 {
		id := fmt.Sprintf("member-%d", i)
		board = append(board, id)
		do("admin", "2025-01-05T09:02", &domain.BoardMember{ID: id, Name: "Member " + id, Seat: "trustee", From: domain.MustDate("2024-04-15")})
	}
	votes := func(ayes int) []domain.MemberVote {
		var vs []domain.MemberVote
		for i, id := range board {
			v := "aye"
			if i >= ayes {
				v = "nay"
			}
			vs = append(vs, domain.MemberVote{Member: id, Vote: v})
		}
		return vs
	}
	cycle := func(year int, streets, parks, taxes string, adopt bool) {
		before := year - 1
		at := func(md string) string { return fmt.Sprintf("%d-%s", before, md) }
		do("admin", at("10-01T10:00"), &domain.BudgetProposal{Year: year, Lines: []domain.BudgetLine{
			{Account: "100-41110", Amount: m(taxes)}, {Account: "100-53300", Amount: m(streets)}, {Account: "100-55200", Amount: m(parks)},
		}, Debts: []domain.Debt{{Description: "2019 promissory note", Outstanding: m("1200000.00"), DueInYear: m("150000.00")}},
			Balances: []domain.FundBalance{{Fund: "100", Beginning: m("410000.00")}},
			Sections: []domain.BudgetSection{{Title: "Levy limit", Body: "Within the limit of Wis. Stat. 66.0602."}}})
		if !adopt {
			return
		}
		do("admin", at("10-15T10:00"), &domain.BudgetNoticeChange{Year: year, BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: domain.MustDate(at("10-15")), Newspaper: "Belleville Recorder"}})
		do("admin", at("11-04T19:00"), &domain.BudgetHearingChange{Year: year, BudgetHearing: domain.BudgetHearing{On: domain.MustDate(at("11-04"))}})
		do("admin", at("11-04T20:00"), &domain.BudgetVoteChange{Year: year, Action: domain.BudgetAdopt, On: domain.MustDate(at("11-04")), Votes: votes(6), Present: 7})
	}
	cycle(2026, "80000.00", "60000.00", "1100000.00", true)
	cycle(2027, "90000.00", "66000.00", "1150000.00", true)
	do("admin", "2026-11-20T20:00", &domain.BudgetVoteChange{Year: 2027, Action: domain.BudgetAmend, On: domain.MustDate("2026-11-20"), Votes: votes(5), Present: 7,
		Changes: []domain.AmendLine{{Account: "100-55200", Change: m("4000.00")}}, Purpose: "playground equipment"})
	cycle(2028, "95000.00", "70000.00", "1200000.00", false)

	id := do("admin", "2026-06-01T09:00", &domain.OrderChange{Op: domain.OrderCreate, Line: "100-53300", Description: "Road salt, 60 tons", Category: domain.CategorySupplies, Estimate: m("4800.00")}).Ref
	for _, b := range []struct{ v, a string }{{"Compass Minerals", "4700.00"}, {"Morton Salt", "4650.00"}, {"Cargill", "4900.00"}} {
		do("admin", "2026-06-02T09:00", &domain.OrderChange{Op: domain.OrderBidOp, ID: id, Bid: &domain.OrderBid{Vendor: b.v, Amount: m(b.a), Received: domain.MustDate("2026-06-02")}})
	}
	do("admin", "2026-06-03T09:00", &domain.OrderChange{Op: domain.OrderAward, ID: id, Award: &domain.Award{Vendor: "Morton Salt", Amount: m("4650.00"), On: domain.MustDate("2026-06-03"),
		Reasons: "lowest responsible bidder", Vote: &domain.BudgetVoteRecord{On: domain.MustDate("2026-06-02"), Present: 7, Ayes: 6, Nays: 1}}})
	maps.Copy(l.records, tx.records)
	for k, v := range tx.index {
		l.index[k] = v
	}
}

// TestPublicBudget: the kiosk shows the adopted budgets, newest first,
// each with its summary beside the budget in effect; a budget only
// proposed is not a public copy yet.
func TestPublicBudget(t *testing.T) {
	h := newHarness(t)
	seedBudgets(t, h.ledger)

	start := h.get("/")
	if href, _ := start.doc.Find(`[data-testid="start-budget"]`).Attr("href"); href != "/budget" {
		t.Fatalf("start page links the budget at %q", href)
	}
	list := h.get("/budget")
	h.expect(list, http.StatusOK)
	var years []string
	list.doc.Find(`[data-testid="budget-row"]`).Each(func(_ int, s *goquery.Selection) { years = append(years, s.AttrOr("data-year", "")) })
	if strings.Join(years, ",") != "2027,2026" {
		t.Fatalf("adopted budgets listed: %v", years)
	}

	p := h.get("/budget/2027")
	h.expect(p, http.StatusOK)
	if got := p.text("budget-appropriated"); got != "$160,000.00" {
		t.Errorf("appropriated %q (90,000 streets + 66,000 parks + 4,000 amended)", got)
	}
	if got := p.text("budget-revenue"); got != "$1,150,000.00" {
		t.Errorf("revenue %q", got)
	}
	if !strings.Contains(p.text("budget-adopted"), "6 for, 1 against") || !strings.Contains(p.text("budget-adopted"), "Amended 1 times") {
		t.Errorf("adoption %q", p.text("budget-adopted"))
	}
	// The amendment is a change to the parks line, added to it once: the
	// line is 66,000 + 4,000, not 4,000 (a new total) nor 74,000 (counted
	// twice), and the amendment shows its change signed.
	parks := p.doc.Find(`[data-testid="budget-line"][data-account="100-55200"]`)
	if parks.Length() != 1 || !strings.Contains(parks.Text(), "$70,000.00") {
		t.Errorf("the amended parks line: %q", parks.Text())
	}
	change := p.doc.Find(`[data-testid="budget-amendment"] [data-testid="amendment-change"][data-account="100-55200"]`)
	if p.count("budget-amendment") != 1 || !strings.Contains(change.Text(), "Parks") || !strings.Contains(change.Text(), "+$4,000.00") ||
		!strings.Contains(p.text("budget-amendment"), "playground equipment") {
		t.Errorf("the amendment: %q", p.text("budget-amendment"))
	}
	// The summary: 2027 beside 2026 in effect, with the change.
	row := p.doc.Find(`[data-testid="summary-expenditures"] [data-testid="summary-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "Public works")
	})
	if !strings.Contains(row.Text(), "$80,000.00") || !strings.Contains(row.Text(), "$90,000.00") || !strings.Contains(row.Text(), "+12.5%") {
		t.Errorf("public works summary row %q", row.Text())
	}
	if p.text("summary-expenditures-total") != "$160,000.00" || p.count("budget-unit") != 2 || p.count("budget-section") != 1 || p.count("budget-debts") != 1 {
		t.Errorf("total %q, units %d, sections %d", p.text("summary-expenditures-total"), p.count("budget-unit"), p.count("budget-section"))
	}
	es := h.get("/budget/2027?lang=es")
	if !strings.Contains(es.text("budget-title"), "Presupuesto de 2027") {
		t.Errorf("Spanish title %q", es.text("budget-title"))
	}
	for _, path := range []string{"/budget/2028", "/budget/2031", "/budget/twenty", "/budget/99999"} {
		h.expect(h.get(path), http.StatusNotFound)
	}

	// The order's public record shows the board's approval and the reasons.
	po := h.get("/purchases/PO-2026-0001")
	h.expect(po, http.StatusOK)
	if !strings.Contains(po.text("purchase-board"), "2 de junio de 2026: 6 a favor, 1 en contra, 7 miembros presentes") || !strings.Contains(po.text("purchase-reasons"), "lowest responsible") || po.text("purchase-vendor") != "Morton Salt" {
		t.Errorf("order record: board %q reasons %q vendor %q", po.text("purchase-board"), po.text("purchase-reasons"), po.text("purchase-vendor"))
	}
}
