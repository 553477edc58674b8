package main

import (
	"fmt"
	"time"

	"github.com/villagehall/appliance/domain"
)

// demoHistory is the demo's budget and purchasing record as the commands
// the office would have given, dated in the past: the chart of accounts,
// the officials and the board, the budget cycles of last year and this
// year (estimates, proposal, notice, hearing, adoption), and this
// season's purchases (open-market orders with their bids and the board's
// approval, emergency purchases with invoice and explanation), each
// certified, issued and delivered. The seed applies them with the rules of
// their kinds, so the kiosk's purchasing records and public budget are
// what the rules made of them. Deterministic in today.
func demoHistory(today domain.Date) []domain.Command {
	h := &history{}
	y := today.Year()
	start := domain.NewDate(y-2, time.August, 1)

	for _, u := range []domain.StaffUserChange{
		{Username: "demo.agent", Name: "Dana Agent (demo)", Role: domain.RoleAdministrator},
		{Username: "demo.treasurer", Name: "Terry Treasurer (demo)", Role: domain.RoleTreasurer},
		{Username: "demo.clerk", Name: "Casey Clerk (demo)", Role: domain.RoleClerk},
	} {
		u.Op, u.PasswordHash = domain.StaffAdd, domain.LockedPassword
		h.add("demo.setup", start, 9, &u)
	}
	h.add("demo.agent", start, 10, &domain.ChartChange{Source: "form", Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "ADMIN", Type: domain.AccountDepartment, Name: "Administration", Fund: "100"},
		{Code: "PW", Type: domain.AccountDepartment, Name: "Public works", Fund: "100"},
		{Code: "PARKS", Type: domain.AccountCommission, Name: "Park and recreation commission", Fund: "100"},
		{Code: "100-41110", Type: domain.AccountRevenue, Name: "General property taxes", Fund: "100", Major: "Taxes"},
		{Code: "100-43410", Type: domain.AccountRevenue, Name: "State shared revenue", Fund: "100", Major: "Intergovernmental revenues"},
		{Code: "100-46100", Type: domain.AccountRevenue, Name: "Charges for services", Fund: "100", Major: "Public charges for services",
			Sources: []string{domain.SourceBills, domain.SourceStatusLetters}},
		{Code: "100-51400", Type: domain.AccountExpenditure, Name: "Administration", Fund: "100", Unit: "ADMIN", Major: "General government"},
		{Code: "100-53300", Type: domain.AccountExpenditure, Name: "Streets and water mains", Fund: "100", Unit: "PW", Major: "Public works"},
		{Code: "100-55200", Type: domain.AccountExpenditure, Name: "Parks", Fund: "100", Unit: "PARKS", Major: "Culture, recreation and education"},
	}})
	h.add("demo.agent", start, 11, &domain.StaffUserChange{Op: domain.StaffAdd, Username: "demo.works", Name: "Pat Works (demo)",
		Role: domain.RoleDepartmentHead, Unit: "PW", PasswordHash: domain.LockedPassword})
	board := []string{"president-kubly", "trustee-ace", "trustee-bauer", "trustee-dahl", "trustee-engel", "trustee-frey", "trustee-gerber"}
	for i, id := range board {
		seat := "trustee"
		if i == 0 {
			seat = "president"
		}
		h.add("demo.agent", start, 12, &domain.BoardMember{ID: id, Name: demoMemberName(id), Seat: seat, From: domain.NewDate(y-3, time.April, 15)})
	}

	// Last year's budget and this year's, each adopted the November before.
	for i, year := range []int{y - 1, y} {
		before := year - 1
		grow := domain.MustRate(fmt.Sprintf("1.0%d", 2*i)) // this year's is 2% above last year's
		money := func(s string) domain.Money { return domain.MustMoney(s).MulRate(grow) }
		h.add("demo.works", domain.NewDate(before, time.September, 10), 10, &domain.Estimate{Year: year, Unit: "PW", Lines: []domain.EstimateLine{
			{Account: "100-53300", Prior: money("81200.00"), Current: money("84500.00"), Next: money("86000.00")},
		}})
		h.add("demo.agent", domain.NewDate(before, time.October, 1), 10, &domain.BudgetProposal{Year: year,
			Lines: []domain.BudgetLine{
				{Account: "100-41110", Amount: money("1180000.00")},
				{Account: "100-43410", Amount: money("212000.00")},
				{Account: "100-46100", Amount: money("96000.00")},
				{Account: "100-51400", Amount: money("402000.00")},
				{Account: "100-53300", Amount: money("86000.00")},
				{Account: "100-55200", Amount: money("64000.00")},
			},
			Debts:     []domain.Debt{{Description: "2019 general obligation promissory note", Outstanding: money("1200000.00"), DueInYear: domain.MustMoney("150000.00")}},
			Financing: []domain.Financing{{Description: "Transfer from the water utility (PILOT)", Fund: "100", Amount: domain.MustMoney("25000.00")}},
			Balances:  []domain.FundBalance{{Fund: "100", Beginning: domain.MustMoney("410000.00")}},
			Sections:  []domain.BudgetSection{{Title: "Levy limit", Body: "The levy is within the limit of Wis. Stat. 66.0602."}},
		})
		published := domain.NewDate(before, time.October, 16)
		hearing := domain.NewDate(before, time.November, 10)
		h.add("demo.clerk", published, 10, &domain.BudgetNoticeChange{Year: year,
			BudgetNotice: domain.BudgetNotice{Purpose: "hearing", Published: published, Newspaper: "Belleville Recorder", HearingOn: hearing}})
		h.add("demo.clerk", hearing, 19, &domain.BudgetHearingChange{Year: year, BudgetHearing: domain.BudgetHearing{On: hearing}})
		var votes []domain.MemberVote
		for j, id := range board {
			v := "aye"
			if j == len(board)-1 {
				v = "absent"
			}
			votes = append(votes, domain.MemberVote{Member: id, Vote: v})
		}
		h.add("demo.clerk", hearing, 20, &domain.BudgetVoteChange{Year: year, Action: domain.BudgetAdopt, On: hearing, Votes: votes, Present: len(board) - 1})
	}

	// This season's purchases, relative to today.
	m := domain.MustMoney
	for _, p := range []demoPurchase{
		{ago: 120, line: "100-51400", what: "Village hall furnace repair", cat: domain.CategoryContractualServices,
			emergency: "The furnace at village hall stopped during a cold snap; the offices and the polling place could not open without heat.",
			bids:      []domain.Bid{{Vendor: "Allied Heating & Cooling", Amount: m("865.50")}}, invoice: "AHC-20417"},
		{ago: 98, line: "100-55200", what: "Playground mulch, Community Park", cat: domain.CategoryMaterials,
			bids:  []domain.Bid{{Vendor: "Belleville Feed & Seed", Amount: m("1525.00")}, {Vendor: "New Glarus Landscape", Amount: m("1460.00")}, {Vendor: "Sugar River Supply", Amount: m("1610.00")}},
			award: 1, invoice: "NGL-5521"},
		{ago: 64, line: "100-55200", what: "Zero-turn mower for the parks", cat: domain.CategoryEquipment,
			bids:    []domain.Bid{{Vendor: "Sugar River Implement", Amount: m("2780.00")}, {Vendor: "Green County Outdoor", Amount: m("2945.00")}, {Vendor: "Badger Turf Supply", Amount: m("2810.00")}},
			invoice: "SRI-3307"},
		{ago: 40, line: "100-53300", what: "Water main break repair, S Vine St", cat: domain.CategoryContractualServices,
			emergency: "A water main broke under South Vine Street on a Saturday night. Twelve homes were without water until it was repaired; waiting for bids would have left them without water for days.",
			bids:      []domain.Bid{{Vendor: "Badger State Plumbing", Amount: m("2140.00")}}, invoice: "BSP-88213"},
		{ago: 21, line: "100-53300", what: "Road salt, 120 tons for the winter", cat: domain.CategorySupplies,
			bids:  []domain.Bid{{Vendor: "Compass Minerals", Amount: m("9840.00")}, {Vendor: "Morton Salt", Amount: m("10320.00")}, {Vendor: "Cargill Deicing", Amount: m("10116.00")}},
			board: true, notice: true},
	} {
		h.purchase(today, p)
	}
	return h.steps
}

// demoPurchase is one purchase of the demo's season: bought ago days
// before today, an emergency when emergency explains it (one bid: the
// invoice), else on the open market from bids (award names the winner;
// board when the board approved it, from 3,000.00; notice when a class 1
// notice was published that day, as Wis. Stat. 62.15 asks of materials
// and supplies over 5,000.00), delivered and invoiced when invoice is set.
type demoPurchase struct {
	ago       int
	line      string
	what      string
	cat       domain.Category
	emergency string
	bids      []domain.Bid
	award     int
	board     bool
	notice    bool
	invoice   string
}

// history numbers the demo's steps and the orders it creates.
type history struct {
	steps  []domain.Command
	orders map[int]int // orders created in a year
}

func (h *history) add(actor string, on domain.Date, hour int, p domain.Payload) {
	n := len(h.steps) + 1
	h.steps = append(h.steps, domain.Command{ID: fmt.Sprintf("demo-history-%03d", n), Kind: p.Kind(), Node: "demo", Seq: uint64(n),
		Actor: actor, At: domain.NewDateTime(on, hour, n%60, 0), Payload: p})
}

// purchase adds the steps of one purchase: created, bid, awarded and
// certified on its day, issued, and delivered three days later when that
// is before today.
func (h *history) purchase(today domain.Date, p demoPurchase) {
	on := today.AddDays(-p.ago)
	if h.orders == nil {
		h.orders = map[int]int{}
	}
	h.orders[on.Year()]++
	id := fmt.Sprintf("PO-%d-%04d", on.Year(), h.orders[on.Year()])
	win := p.bids[p.award]
	h.add("demo.agent", on, 8, &domain.OrderChange{Op: domain.OrderCreate, Line: p.line, Description: p.what, Category: p.cat,
		Estimate: win.Amount, Emergency: p.emergency != "", Explanation: p.emergency})
	award := &domain.Award{Vendor: win.Vendor, Amount: win.Amount, On: on}
	if p.notice {
		// The day bids open is given too, which a ledger before format 6
		// asks of every notice.
		h.add("demo.agent", on, 8, &domain.OrderChange{Op: domain.OrderNotice, ID: id, Notices: []domain.Date{on}, BidsOpen: on})
	}
	if p.emergency == "" {
		for _, b := range p.bids {
			h.add("demo.agent", on, 9, &domain.OrderChange{Op: domain.OrderBidOp, ID: id, Bid: &domain.OrderBid{Vendor: b.Vendor, Amount: b.Amount, Received: on}})
		}
		if p.board {
			award.Vote = &domain.BudgetVoteRecord{On: on, Present: 7, Ayes: 6, Nays: 1}
		}
	}
	h.add("demo.agent", on, 10, &domain.OrderChange{Op: domain.OrderAward, ID: id, Award: award})
	if p.emergency == "" {
		h.add("demo.treasurer", on, 11, &domain.CertifyFunds{Order: id})
		h.add("demo.agent", on, 12, &domain.OrderChange{Op: domain.OrderIssue, ID: id})
	}
	if delivered := on.AddDays(3); p.invoice != "" && delivered.Before(today) {
		h.add("demo.agent", delivered, 14, &domain.OrderReceipt{Order: id, Delivery: domain.Delivery{On: delivered, Inspector: "Pat Works",
			Conforms: true, Invoice: p.invoice, Invoiced: win.Amount, Final: true}})
	}
}

// demoMemberName makes "Kubly" of "president-kubly".
func demoMemberName(id string) string {
	for i := range id {
		if id[i] == '-' {
			return string(id[i+1]-'a'+'A') + id[i+2:]
		}
	}
	return id
}
