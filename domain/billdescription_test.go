package domain

import (
	"strings"
	"testing"
)

// spanishBill is a new bill with a description in both languages.
func spanishBill(id, es string) NewBill {
	return NewBill{ID: id, Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting, 2 hours", DescriptionES: es,
		BilledOn: MustDate("2026-06-15"), Principal: MustMoney("120.00"), Line: 2}
}

// TestBillDescriptionES: from ledger format 7 a bill keeps the Spanish
// description it was created with (trimmed); a ledger of format 6 refuses
// a command that carries one and writes nothing, and makes the same bill
// without one as it always did; a Spanish description too long or with a
// hidden character is refused at any format.
func TestBillDescriptionES(t *testing.T) {
	v := newVillage(t)
	v.do("clerk", "2026-06-15T09:00", &CreateBills{Source: "bills.csv", Bills: []NewBill{spanishBill("B-ES-1", "  Corte de maleza, 2 horas "), spanishBill("B-ES-2", "")}})
	if b, _, _ := v.tx.Bill("B-ES-1"); b.DescriptionES != "Corte de maleza, 2 horas" || b.Description != "Weed cutting, 2 hours" {
		t.Errorf("bill at format 7: %q / %q", b.Description, b.DescriptionES)
	}
	if b, _, _ := v.tx.Bill("B-ES-2"); b.DescriptionES != "" {
		t.Errorf("bill given no Spanish description has %q", b.DescriptionES)
	}

	old := newVillageAt(t, DocumentsFormat-1)
	old.refused("clerk", "2026-06-15T09:00", &CreateBills{Bills: []NewBill{spanishBill("B-ES-1", "Corte de maleza")}}, EINVALID,
		"Line 2: the ledger records Spanish descriptions of bills only from ledger format 7")
	old.do("clerk", "2026-06-15T09:00", &CreateBills{Bills: []NewBill{spanishBill("B-ES-1", "")}})
	if b, ok, _ := old.tx.Bill("B-ES-1"); !ok || b.DescriptionES != "" {
		t.Errorf("format-6 bill: %v %+v", ok, b)
	}

	for _, tc := range []struct{ name, es, want string }{
		{"too long", strings.Repeat("ñ", MaxDescriptionES+1), "Line 2: the Spanish description is longer than 200 characters"},
		{"control character", "Corte\x1bde maleza", "Line 2: the Spanish description contains a hidden character (U+001B"},
		{"text-direction control", "Corte de maleza \u202e00.021", "Line 2: the Spanish description contains a hidden character (U+202E"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v.refused("clerk", "2026-06-16T09:00", &CreateBills{Bills: []NewBill{spanishBill("B-ES-3", tc.es)}}, EINVALID, tc.want)
		})
	}
	v.do("clerk", "2026-06-16T09:00", &CreateBills{Bills: []NewBill{spanishBill("B-ES-4", strings.Repeat("ñ", MaxDescriptionES))}})
}

// TestSeedDemoDescriptionES: the demo's bills, its own and its history's,
// keep their Spanish descriptions on a ledger of format 7; a ledger of
// format 6 loads them without, writing no field it did not write before.
func TestSeedDemoDescriptionES(t *testing.T) {
	seed := func(format int) *staffTx {
		tx := newStaffTx()
		tx.format = format
		clerk := &StaffUserChange{Op: StaffAdd, Username: "demo.clerk", Name: "Demo Clerk", Role: RoleClerk, PasswordHash: LockedPassword}
		c := seedWith(t, step(0, "demo.setup", "2026-01-05T09:00", clerk),
			step(1, "demo.clerk", "2026-06-15T09:00", &CreateBills{Source: "form", Bills: []NewBill{spanishBill("B-H-1", "Corte de maleza")}}))
		s := c.Payload.(*SeedDemo)
		s.Parcels = []Parcel{{ID: "0601-141-2001", Address: "141 W Main St", County: Dane, Owner: "Ana Gutierrez"}}
		s.Accounts = []Account{{Number: "100101", Name: "Ana Gutierrez", Parcels: []string{"0601-141-2001"}}}
		s.Bills = []Bill{{ID: "B-S-1", Account: "100101", Parcel: "0601-141-2001", Description: "Culvert cleaning", DescriptionES: "Limpieza de alcantarilla",
			BilledOn: MustDate("2026-03-02"), Principal: MustMoney("210.00")}}
		if _, err := Apply(tx, c, 1, DefaultParams()); err != nil {
			t.Fatalf("format %d: %v", format, err)
		}
		return tx
	}
	now := seed(0)
	for id, want := range map[string]string{"B-S-1": "Limpieza de alcantarilla", "B-H-1": "Corte de maleza"} {
		if b, ok, _ := now.Bill(id); !ok || b.DescriptionES != want {
			t.Errorf("format 7: bill %s %v has %q, want %q", id, ok, b.DescriptionES, want)
		}
	}
	old := seed(DocumentsFormat - 1)
	for _, id := range []string{"B-S-1", "B-H-1"} {
		if b, ok, _ := old.Bill(id); !ok || b.DescriptionES != "" {
			t.Errorf("format 6: bill %s %v has %q", id, ok, b.DescriptionES)
		}
	}
	for k, rec := range old.records {
		if strings.Contains(string(rec), "description_es") {
			t.Errorf("format 6 wrote description_es in %s", k)
		}
	}
}
