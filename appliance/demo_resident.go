package main

import (
	"fmt"
	"time"

	"github.com/villagehall/appliance/domain"
)

// addResidentDemo adds what the resident kiosk shows besides village
// bills: a property tax bill for every parcel on the roll of the last
// cycle year whose November 15 has passed (issued December 1 of that year;
// the special items are the village bills certified to the roll that
// year), last year's bills with their first installment paid, the
// budget and purchasing history (demo_budget.go) the kiosk's public
// records read, and the treasury's year that the books post (demo_books.go). Deterministic in today.
func addResidentDemo(seed *domain.SeedDemo, today domain.Date, p *domain.Params) error {
	rollYear := today.Year()
	if !today.After(domain.NewDate(rollYear, time.November, 15)) {
		rollYear--
	}
	// The roll year's November run, as the treasurer gave it: the
	// penalties on November 2 and the certification on December 1 (today,
	// if that is still to come). A bill is on the roll because the run
	// certified it, not because November 15 passed (§5.10).
	certifyOn := domain.NewDate(rollYear, time.December, 1)
	if certifyOn.After(today) {
		certifyOn = today
	}
	penalties := &domain.NovemberStep{Op: "penalties", Year: rollYear}
	certify := &domain.NovemberStep{Op: "certify", Year: rollYear}
	specials := map[string][]domain.TaxItem{}
	for _, b := range seed.Bills {
		if _, ok, err := domain.NovemberItem(b, "penalties", rollYear, p); err != nil {
			return fmt.Errorf("demo bill %s: %w", b.ID, err)
		} else if ok {
			penalties.Bills = append(penalties.Bills, b.ID)
		}
		it, ok, err := domain.NovemberItemOn(b, "certify", rollYear, certifyOn, p)
		if err != nil {
			return fmt.Errorf("demo bill %s: %w", b.ID, err)
		}
		if !ok {
			continue
		}
		certify.Bills = append(certify.Bills, b.ID)
		specials[b.Parcel] = append(specials[b.Parcel], domain.TaxItem{Description: "Special charge: " + b.Description, Amount: it.Balance, BillID: b.ID})
	}
	for i, pc := range seed.Parcels {
		// General tax from about 1,800 to 6,000; one parcel (a vacant lot)
		// under the 100.00 installment threshold.
		general := domain.Cents(int64(180000 + (i*73129)%420000))
		if i == 6 {
			general = domain.MustMoney("86.40")
		}
		cur := domain.TaxBill{
			ID: domain.TaxBillID(rollYear, pc.ID), Parcel: pc.ID, County: pc.County, TaxYear: rollYear,
			IssuedOn: domain.NewDate(rollYear, time.December, 1), GeneralTax: general, SpecialItems: specials[pc.ID],
		}
		if i == 3 {
			cur.SpecialItems = append(cur.SpecialItems, domain.TaxItem{Description: "Special assessment: sidewalk replacement, installment 2 of 5", Amount: domain.MustMoney("412.60")})
		}
		seed.TaxBills = append(seed.TaxBills, cur)

		prev := domain.TaxBill{
			ID: domain.TaxBillID(rollYear-1, pc.ID), Parcel: pc.ID, County: pc.County, TaxYear: rollYear - 1,
			IssuedOn: domain.NewDate(rollYear-1, time.December, 1), GeneralTax: general.MulRate(domain.MustRate("0.97")),
		}
		f, err := prev.Figures(p)
		if err != nil {
			return fmt.Errorf("demo tax bill %s: %w", prev.ID, err)
		}
		opt, amount := domain.TaxFirstInstallment, f.FirstInstallment
		if i%3 == 0 || !f.InstallmentsAllowed {
			opt, amount = domain.TaxFull, f.Total
		}
		prev.Payments = []domain.TaxPayment{{
			CommandID: fmt.Sprintf("demo-tax-%d", i), Receipt: fmt.Sprintf("demo-tax-%06d", i),
			At:     domain.NewDateTime(domain.NewDate(rollYear, time.January, 20+i%8), 10, 30, 0),
			Amount: amount, Option: opt, Tender: domain.Check, Reference: fmt.Sprintf("check %d", 2210+i),
			Allocation: domain.TaxAllocation{GeneralTax: amount},
		}}
		seed.TaxBills = append(seed.TaxBills, prev)
	}

	seed.History = demoHistory(today)
	h := &history{steps: seed.History}
	if err := h.addBooksDemo(today, seed.Accounts, p); err != nil {
		return err
	}
	h.add("demo.treasurer", domain.PenaltyDay(rollYear), 9, penalties)
	h.add("demo.treasurer", certifyOn, 9, certify)
	seed.History = h.steps
	return nil
}
