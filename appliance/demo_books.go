package main

import (
	"fmt"
	"time"

	"github.com/villagehall/appliance/domain"
)

// demoQuarterly is one account's water and sewer charge for a quarter of
// the demo's activity, before the quarter's small variation.
var demoQuarterly = []string{"138.40", "92.75", "181.20", "104.60", "87.15", "246.30", "121.90", "129.45", "99.80", "498.25"}

// demoClaim is a claim of the demo's activity: a vendor's invoice on a
// line, allowed and paid by the quarter's check run.
type demoClaim struct {
	vendor, line, what, amount string
}

// demoClaims are the claims of each quarter.
var demoClaims = []demoClaim{
	{"Alliant Energy", "100-53300", "Street lights", "612.40"},
	{"Quill Office Supply", "100-51400", "Office supplies", "184.35"},
	{"Sugar River Sanitation", "100-55200", "Portable toilets, Community Park", "265.00"},
}

// addBooksDemo adds to the demo's history a year and more of the
// treasury's work, so that the books, their statements and the budget's
// actuals have something to show: the depository designated with its
// account number and check stock, the two signatures of §5.18, then, each
// quarter of last year and of this year until today, water and sewer
// bills issued on the demo's accounts, paid at the window twenty days
// later into a drawer that is closed and deposited the same day (§5.06),
// three claims entered, certified, endorsed by the treasurer (§5.07(3))
// and paid by a check run (§5.07(4), §5.18), and now and then a status
// letter's fee (§5.11). Every step applies with its kind's rules, as the
// office would have given it; what would fall on or after today is left
// out, so the latest bills are still open. Deterministic in today.
func (h *history) addBooksDemo(today domain.Date, accounts []domain.Account, p *domain.Params) error {
	y := today.Year()
	setup := domain.NewDate(y-1, time.January, 2)
	if !setup.Before(today) {
		return nil
	}
	h.add("demo.treasurer", setup, 9, &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "SRB", Name: "Sugar River Bank, village checking",
		Institution: "Sugar River Bank", Resolution: fmt.Sprintf("%d-01", y-1), From: domain.NewDate(y-1, time.January, 1), Number: "004417720031"})
	h.add("demo.treasurer", setup, 10, &domain.CheckStock{Next: 3001, Account: "SRB"})
	approval, approvedOn := fmt.Sprintf("motion of the organizational meeting %d-01-02, item 5", y-1), setup
	for _, s := range []domain.SignatureChange{
		{Op: "approve", ID: "sig-demo-president", Official: "Kubly", Office: "president", Form: "facsimile", Approval: approval, ApprovedOn: approvedOn},
		{Op: "approve", ID: "sig-demo-treasurer", Official: "Terry Treasurer (demo)", Office: "treasurer", Form: "digital", Approval: approval, ApprovedOn: approvedOn},
	} {
		h.add("demo.clerk", setup, 11, &s)
	}

	claims := map[int]int{}
	var bank demoBank
quarters:
	for _, year := range []int{y - 1, y} {
		for q := range 4 {
			billed := domain.NewDate(year, time.Month(1+3*q), 5)
			if !billed.Before(today) {
				break quarters
			}
			tag := fmt.Sprintf("%d-Q%d", year, q+1)
			bills := &domain.CreateBills{Source: "form"}
			for i, a := range accounts {
				amount := domain.MustMoney(demoQuarterly[i%len(demoQuarterly)]).Add(domain.Cents(int64(137 * ((q + i) % 5))))
				bills.Bills = append(bills.Bills, domain.NewBill{ID: fmt.Sprintf("B-%s-%02d", tag, i+1), Account: a.Number, Parcel: a.Parcels[0],
					Description: fmt.Sprintf("Water and sewer, quarter %d of %d", q+1, year), DescriptionES: fmt.Sprintf("Agua y alcantarillado, trimestre %d de %d", q+1, year),
					BilledOn: billed, Principal: amount})
			}
			h.add("demo.clerk", billed, 9, bills)

			if paid := billed.AddDays(20); paid.Before(today) {
				h.window(paid, "D-"+tag, "DEP-"+tag, bills.Bills)
				bank.deposit(paid, "DEP-"+tag, bills.Bills)
			}
			if run := billed.AddDays(28); run.Before(today) {
				var ids []string
				for _, c := range demoClaims {
					claims[year]++
					id := fmt.Sprintf("CL-%d-%04d", year, claims[year])
					h.claim(billed.AddDays(25), id, c, tag)
					ids = append(ids, id)
				}
				h.add("demo.treasurer", run, 10, &domain.CheckRun{On: run, Account: "SRB", Claims: ids, Signatures: []string{"sig-demo-president", "sig-demo-treasurer"}})
				bank.checkRun(run)
			}
			if q%2 == 1 {
				on := billed.AddDays(9)
				if !on.Before(today) {
					continue
				}
				at := domain.NewDateTime(on, 14, 5, 0)
				sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: at}, p)
				if err != nil {
					return fmt.Errorf("demo status letter %s: %w", tag, err)
				}
				h.add("kiosk", on, 14, &domain.RequestStatusLetter{Parcel: accounts[q].Parcels[0], Requester: "Badger Title Co.", Contact: "closings@badgertitle.example",
					Fee: sl.Fee, Tender: domain.Card, Reference: "approval " + tag, Card: &domain.CardShown{Brand: "visa", Last4: "4242"}})
			}
		}
	}
	bank.statement(h, today)
	return nil
}

// demoBank is what the demo's history put in and took out of SRB, for
// the bank statement of last month.
type demoBank struct {
	deposits []demoBankItem
	checks   []demoBankItem
	next     int // the next check number of the stock
}

// demoBankItem is a deposit or a check of the demo.
type demoBankItem struct {
	on     domain.Date
	id     string
	number int
	amount domain.Money
}

func (b *demoBank) deposit(on domain.Date, id string, bills []domain.NewBill) {
	var sum domain.Money
	for _, x := range bills {
		sum = sum.Add(x.Principal)
	}
	b.deposits = append(b.deposits, demoBankItem{on: on, id: id, amount: sum})
}

func (b *demoBank) checkRun(on domain.Date) {
	if b.next == 0 {
		b.next = 3001
	}
	for _, c := range demoClaims {
		b.checks = append(b.checks, demoBankItem{on: on, number: b.next, amount: domain.MustMoney(c.amount)})
		b.next++
	}
}

// statement adds SRB's statement of the last day of last month, recorded
// three days later when that is before today: the bank credited every
// deposit made two days or more before the statement and paid every
// check written a week or more before it, so the rest are in transit or
// outstanding and the account reconciles.
func (b *demoBank) statement(h *history, today domain.Date) {
	on := domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1)
	if !on.AddDays(3).Before(today) {
		return
	}
	s := &domain.BankStatement{Depository: "SRB", On: on, Balance: domain.Cents(0), Reference: fmt.Sprintf("SRB statement %d-%02d", on.Year(), on.Month())}
	for _, d := range b.deposits {
		if !d.on.After(on.AddDays(-2)) {
			s.Credited = append(s.Credited, domain.StatementCredit{DepositID: d.id})
			s.Balance = s.Balance.Add(d.amount)
		}
	}
	for _, c := range b.checks {
		if !c.on.After(on.AddDays(-7)) {
			s.Cleared = append(s.Cleared, c.number)
			s.Balance = s.Balance.Sub(c.amount)
		}
	}
	h.add("demo.treasurer", on.AddDays(3), 9, s)
}

// window adds a day at the clerk's window: drawer opened, bills paid in
// full (every third by check, the rest in cash), the drawer closed with
// the count it should have and deposited in the designated depository.
func (h *history) window(on domain.Date, drawer, deposit string, bills []domain.NewBill) {
	h.add("demo.clerk", on, 8, &domain.DrawerOpen{DrawerID: drawer, Float: domain.Money{}})
	var cash, checks domain.Money
	n := 0
	for i, b := range bills {
		pay := &domain.WindowPayment{DrawerID: drawer, BillID: b.ID, Amount: b.Principal, Tender: domain.Cash, Tendered: b.Principal}
		if i%3 == 0 {
			pay.Tender, pay.Reference = domain.Check, fmt.Sprintf("check %d", 3100+i)
			checks = checks.Add(b.Principal)
			n++
		} else {
			cash = cash.Add(b.Principal)
		}
		h.add("demo.clerk", on, 10, pay)
	}
	h.add("demo.clerk", on, 16, &domain.DrawerClose{DrawerID: drawer, CountedCash: cash, CountedChecks: checks, CheckCount: n})
	h.add("demo.treasurer", on, 16, &domain.Deposit{DepositID: deposit, Depository: "SRB", Drawers: []string{drawer}})
}

// claim adds a claim entered on on, given the four certifications of
// §5.07(3) and the treasurer's endorsement, which allows it; id is the
// number the ledger will give it.
func (h *history) claim(on domain.Date, id string, c demoClaim, tag string) {
	h.add("demo.clerk", on, 9, &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: c.vendor, Invoice: c.vendor[:3] + "-" + tag, InvoiceDate: on.AddDays(-3),
		Amount: domain.MustMoney(c.amount), Line: c.line, Description: c.what})
	for _, x := range []struct{ who, what, basis string }{
		{"demo.treasurer", domain.CertifyFundsAvailable, ""},
		{"demo.agent", domain.CertifyAuthorized, "standing order of the board"},
		{"demo.agent", domain.CertifyConformity, "service received"},
		{"demo.treasurer", domain.CertifyValid, ""},
	} {
		h.add(x.who, on, 10, &domain.ClaimChange{Op: domain.ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
	}
	h.add("demo.treasurer", on, 11, &domain.ClaimChange{Op: domain.ClaimEndorse, ID: id})
}
