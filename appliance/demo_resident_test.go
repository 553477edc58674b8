package main

import (
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestResidentDemo checks the demo's tax bills and purchasing records on a
// few days of the year: every record is valid, both counties have bills,
// the bills on the roll are special items of the property tax, and there
// are open-market and emergency purchases.
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
			kinds := map[bool]int{}
			for _, pu := range seed.Purchases {
				if err := pu.Validate(); err != nil {
					t.Error(err)
				}
				kinds[pu.Emergency]++
			}
			if kinds[true] == 0 || kinds[false] == 0 {
				t.Errorf("purchases %v", kinds)
			}
		})
	}
}
