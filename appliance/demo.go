package main

import (
	"fmt"
	"time"

	"github.com/villagehall/appliance/domain"
)

// demoData returns the demo records for a ledger opened on day today:
// parcels in both counties, accounts, and about twenty village bills in
// every state a clerk meets (current, past due, paid, partly paid, on the
// tax roll), each described in English and in Spanish (the resident
// kiosk's Spanish pages show the Spanish; a ledger below format 7 loads
// the bills without it). Dates are set relative to today so the states
// hold whenever the demo is loaded. It is deterministic in today.
func demoData(today domain.Date, p *domain.Params) (*domain.SeedDemo, error) {
	streets := []struct {
		addr   string
		county domain.County
		owner  string
		flood  bool
	}{
		{"141 W Main St", domain.Dane, "Ana Gutierrez", false},
		{"22 S Vine St", domain.Dane, "Robert Lindqvist", false},
		{"108 Pearl St", domain.Dane, "Karen Oyelaran", true},
		{"17 E Church St", domain.Dane, "Tom & Jean Hefty", false},
		{"305 Hale St", domain.Green, "Luis Ramirez", false},
		{"9 Park St", domain.Green, "Belleville Feed & Seed LLC", false},
		{"64 River St", domain.Dane, "Marie Duerst", true},
		{"210 Frederick St", domain.Green, "Dale Schultz", false},
		{"33 Union St", domain.Dane, "Priya Natarajan", false},
		{"412 Harrison St", domain.Green, "Sugar River Apartments LLC", false},
	}
	seed := &domain.SeedDemo{}
	for i, s := range streets {
		id := fmt.Sprintf("0601-141-%04d", 2001+i)
		seed.Parcels = append(seed.Parcels, domain.Parcel{ID: id, Address: s.addr, County: s.county, Owner: s.owner, Floodplain: s.flood})
		seed.Accounts = append(seed.Accounts, domain.Account{Number: fmt.Sprintf("%06d", 100101+i), Name: s.owner, Parcels: []string{id}})
	}
	// The tax-roll bills belong to the last cycle year whose November 15 has
	// passed: billed in March and June of that year.
	rollYear := today.Year()
	if !today.After(domain.NewDate(rollYear, time.November, 15)) {
		rollYear--
	}
	type spec struct {
		acct      int
		what      string
		es        string // what, in Spanish, for the kiosk's Spanish pages
		billedOn  domain.Date
		principal string
		paidDays  int    // days after billing of one payment (0: none)
		paid      string // amount of that payment
	}
	ago := func(days int) domain.Date { return today.AddDays(-days) }
	specs := []spec{
		{0, "Water and sewer, last quarter", "Agua y alcantarillado, último trimestre", ago(10), "142.37", 0, ""},
		{1, "Water and sewer, last quarter", "Agua y alcantarillado, último trimestre", ago(10), "96.10", 0, ""},
		{2, "Water and sewer, last quarter", "Agua y alcantarillado, último trimestre", ago(10), "188.55", 0, ""},
		{3, "Sidewalk snow removal", "Retiro de nieve de la acera", ago(20), "75.00", 0, ""},
		{4, "Weed cutting, 1.5 hours", "Corte de maleza, 1.5 horas", ago(25), "90.00", 0, ""},
		{5, "False alarm response", "Respuesta a una falsa alarma", ago(45), "150.00", 0, ""},
		{6, "Brush pickup, two loads", "Recolección de ramas, dos cargas", ago(44), "60.00", 0, ""},
		{7, "Water and sewer, previous quarter", "Agua y alcantarillado, trimestre anterior", ago(35), "131.20", 0, ""},
		{8, "Tree removal, village crew", "Retiro de árbol, cuadrilla de la villa", ago(50), "420.00", 0, ""},
		{0, "Water and sewer, previous quarter", "Agua y alcantarillado, trimestre anterior", ago(100), "139.92", 20, "139.92"},
		{1, "Water and sewer, previous quarter", "Agua y alcantarillado, trimestre anterior", ago(100), "94.40", 25, "94.40"},
		{9, "Water and sewer, previous quarter", "Agua y alcantarillado, trimestre anterior", ago(40), "512.68", 2, "512.68"},
		{3, "Sidewalk repair, 12 ft", "Reparación de acera, 12 pies", ago(45), "336.00", 25, "150.00"},
		{9, "Dumpster enclosure inspection", "Inspección del cercado de contenedores", ago(46), "85.00", 40, "40.00"},
		{2, "Culvert cleaning", "Limpieza de alcantarilla", domain.NewDate(rollYear, time.March, 2), "210.00", 0, ""},
		{6, "Weed cutting, 2 hours", "Corte de maleza, 2 horas", domain.NewDate(rollYear, time.June, 15), "120.00", 0, ""},
		{8, "Water and sewer, spring quarter", "Agua y alcantarillado, trimestre de primavera", domain.NewDate(rollYear, time.April, 1), "160.25", 60, "60.00"},
		{4, "Building permit reinspection", "Nueva inspección del permiso de construcción", ago(5), "55.00", 0, ""},
		{5, "Water and sewer, last quarter", "Agua y alcantarillado, último trimestre", ago(10), "311.90", 0, ""},
		{7, "Special charge: lead service line", "Cargo especial: tubería de servicio de plomo", ago(30), "1250.00", 0, ""},
	}
	for i, s := range specs {
		acct := seed.Accounts[s.acct]
		b := domain.Bill{
			ID:            fmt.Sprintf("B-%d-%04d", s.billedOn.Year(), 101+i),
			Account:       acct.Number,
			Parcel:        acct.Parcels[0],
			Description:   s.what,
			DescriptionES: s.es,
			BilledOn:      s.billedOn,
			Principal:     domain.MustMoney(s.principal),
		}
		if s.paidDays > 0 {
			on := s.billedOn.AddDays(s.paidDays)
			b.Payments = []domain.BillPayment{{
				CommandID: fmt.Sprintf("demo-payment-%d", i),
				Receipt:   fmt.Sprintf("demo-%06d", i),
				At:        domain.NewDateTime(on, 10, 15, 0),
				Amount:    domain.MustMoney(s.paid),
				Tender:    domain.Check,
				Reference: fmt.Sprintf("check %d", 1040+i),
			}}
			fig, err := b.Figures(on, p)
			if err != nil {
				return nil, fmt.Errorf("demo bill %s: %w", b.ID, err)
			}
			b.Payments[0].Allocation = fig.Allocations[0]
		}
		seed.Bills = append(seed.Bills, b)
	}
	if err := addResidentDemo(seed, today, p); err != nil {
		return nil, err
	}
	return seed, nil
}
