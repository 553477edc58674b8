package domain

import "testing"

func TestPurchaseEdges(t *testing.T) {
	ordinary := func(amount, avail, category string, extra ...string) string {
		s := `{"amount":"` + amount + `","available_appropriation":"` + avail + `","category":"` + category + `"`
		for _, e := range extra {
			s += "," + e
		}
		return s + "}"
	}
	direct := map[string]any{"emergency_direct_purchase": true, "board_approval_required": false, "competitive_bids_required": false,
		"funds_certified": true, "may_order": true, "public_record": "emergency_invoice_and_explanation", "class2_notice_required": false}
	rows := []ruleRow{
		{"§5.12", "board approval under 3000.00", ordinary("2999.99", "5000", "supplies"), map[string]any{"board_approval_required": false, "competitive_bids_required": true}, ""},
		{"§5.12", "board approval at 3000.00", ordinary("3000.00", "5000", "supplies"), map[string]any{"board_approval_required": true}, ""},
		{"§5.12", "funds certified at exactly the amount", ordinary("3000.00", "3000.00", "equipment"), map[string]any{"funds_certified": true, "may_order": true}, ""},
		{"§5.12", "funds short by a cent", ordinary("3000.00", "2999.99", "equipment"), map[string]any{"funds_certified": false, "may_order": false}, ""},
		{"§5.12", "overspent appropriation", ordinary("1.00", "-50.00", "equipment"), map[string]any{"funds_certified": false}, ""},
		{"§5.12", "purchasing agent emergency under 2500.00", ordinary("2499.99", "0", "equipment", `"emergency":true`), direct, ""},
		{"§5.12", "purchasing agent emergency at 2500.00", ordinary("2500.00", "0", "equipment", `"emergency":true`),
			map[string]any{"emergency_direct_purchase": false, "competitive_bids_required": true, "funds_certified": false, "may_order": false, "public_record": "open_market_purchase_and_bids"}, ""},
		{"§5.12", "department head emergency under 500.00", ordinary("499.99", "0", "supplies", `"emergency":true`, `"buyer":"department_head"`), direct, ""},
		{"§5.12", "department head emergency at 500.00", ordinary("500.00", "0", "supplies", `"emergency":true`, `"buyer":"department_head"`),
			map[string]any{"emergency_direct_purchase": false}, ""},
		{"§5.12", "repairs as contractual services emergency", ordinary("1200.00", "0", "contractual_services", `"emergency":true`), direct, ""},
		{"§5.12", "not an emergency under the limit", ordinary("100.00", "0", "supplies"), map[string]any{"emergency_direct_purchase": false, "may_order": false}, ""},
		{"§5.13", "class 2 at 25000.00 no", ordinary("25000.00", "90000", "materials"), map[string]any{"class2_notice_required": false, "award_basis": "most_advantageous"}, ""},
		{"§5.13", "class 2 at 25000.01 yes", ordinary("25000.01", "90000", "supplies"), map[string]any{"class2_notice_required": true, "award_basis": "lowest_responsible_bidder"}, ""},
		{"§5.13", "class 2 not for equipment", ordinary("80000.00", "90000", "equipment"), map[string]any{"class2_notice_required": false}, ""},
		{"§5.13", "class 2 not for services", ordinary("80000.00", "90000", "contractual_services"), map[string]any{"class2_notice_required": false}, ""},
		{"§5.13", "class 2 not with a municipality", ordinary("40000.00", "90000", "supplies", `"counterparty_municipal":true`), map[string]any{"class2_notice_required": false}, ""},
		{"§5.13", "class 2 not for own work", ordinary("40000.00", "90000", "materials", `"village_own_work":true`), map[string]any{"class2_notice_required": false}, ""},
		{"§5.13", "class 2 not in a declared emergency", ordinary("40000.00", "90000", "materials", `"emergency_resolution":true`), map[string]any{"class2_notice_required": false}, ""},
		{"§5.13", "emergency over the limit still class 2", ordinary("28568.93", "9737.30", "materials", `"emergency":true`, `"buyer":"department_head"`),
			map[string]any{"class2_notice_required": true, "emergency_direct_purchase": false}, ""},
		{"§5.12", "unknown category", ordinary("10.00", "90", "furniture"), nil, EINVALID},
		{"§5.12", "unknown buyer", ordinary("10.00", "90", "supplies", `"buyer":"mayor"`), nil, EINVALID},
		{"§5.12", "negative amount", ordinary("-10.00", "90", "supplies"), nil, EINVALID},
		{"§5.12", "appropriation required", `{"amount":"100.00","category":"supplies"}`, nil, EINVALID},
	}
	runRuleTable(t, "5.12/purchase", DefaultParams(), rows)
}

// TestPurchaseThresholdOnDate checks that a dated purchase uses the
// thresholds in force that day, and an undated one the latest.
func TestPurchaseThresholdOnDate(t *testing.T) {
	o, err := ParseParams("o.txt", []byte("2027-01-01 board_approval_threshold 5000.00\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams().Merge(o)
	runRuleTable(t, "5.12/purchase", p, []ruleRow{
		{"§5.12", "old threshold", `{"amount":"4000.00","category":"supplies","available_appropriation":"9000","on":"2026-12-31"}`, map[string]any{"board_approval_required": true}, ""},
		{"§5.12", "new threshold", `{"amount":"4000.00","category":"supplies","available_appropriation":"9000","on":"2027-01-01"}`, map[string]any{"board_approval_required": false}, ""},
		{"§5.12", "undated latest", `{"amount":"4000.00","category":"supplies","available_appropriation":"9000"}`, map[string]any{"board_approval_required": false}, ""},
	})
}

// TestClass1NoticeRequired: the class1_notice_threshold parameter (Wis.
// Stat. 62.15(1)) read with the scope of §5.13: materials and supplies
// strictly over 5,000.00 up to where the class 2 notice takes over, not
// with another municipality, for the village's own work, in an emergency
// declared by resolution, or for an emergency purchase under the limit.
func TestClass1NoticeRequired(t *testing.T) {
	p := DefaultParams()
	in := func(amount string, cat Category) PurchaseInput {
		return PurchaseInput{Amount: MustMoney(amount), Category: cat, AvailableAppropriation: MustMoney("90000.00")}
	}
	with := func(x PurchaseInput, f func(*PurchaseInput)) PurchaseInput { f(&x); return x }
	for _, row := range []struct {
		section, name string
		in            PurchaseInput
		want          bool
	}{
		{"62.15", "at 5000.00", in("5000.00", CategorySupplies), false},
		{"62.15", "at 5000.01", in("5000.01", CategorySupplies), true},
		{"62.15", "materials at 25000.00", in("25000.00", CategoryMaterials), true},
		{"§5.13", "over 25000.00 is class 2", in("25000.01", CategoryMaterials), false},
		{"§5.13", "not for equipment", in("9000.00", CategoryEquipment), false},
		{"§5.13", "not for services", in("9000.00", CategoryContractualServices), false},
		{"§5.13(3)", "not with a municipality", with(in("9000.00", CategorySupplies), func(x *PurchaseInput) { x.CounterpartyMunicipal = true }), false},
		{"§5.13(4)", "not in a declared emergency", with(in("9000.00", CategorySupplies), func(x *PurchaseInput) { x.EmergencyResolution = true }), false},
		{"§5.13(5)", "not for own work", with(in("9000.00", CategorySupplies), func(x *PurchaseInput) { x.VillageOwnWork = true }), false},
		{"§5.12(7)", "emergency over the limit still needs it", with(in("9000.00", CategorySupplies), func(x *PurchaseInput) { x.Emergency = true }), true},
	} {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			got, err := Class1NoticeRequired(row.in, p)
			if err != nil || got != row.want {
				t.Fatalf("got %v (%v), want %v", got, err, row.want)
			}
		})
	}
	if _, err := Class1NoticeRequired(in("9000.00", "furniture"), p); ErrorCode(err) != EINVALID {
		t.Fatalf("an unknown category: %v", err)
	}
}
