package bills

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestBillFileReadsLikeRolls: the bill import reads its file as the
// parcel roll's does (OpenCSV; kiosk/staff/parcels tests the rest), and
// stops at a line that is not CSV with its line number.
func TestBillFileReadsLikeRolls(t *testing.T) {
	_, errs := parseBillCSV(strings.NewReader("account,parcel,description,billed_on,amount\n100101,0601-141-2001,Weeds,2026-11-01,40.00\n100101,0601-141-2001,\"Snow,2026-11-01,30.00\n"), true)
	if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "Line 3: the line cannot be read as CSV.") {
		t.Fatalf("a bad line: %v", errs)
	}
}

// TestBillFileSpanishDescription: the optional description_es column gives
// a bill its Spanish description, trimmed; a file without the column, or a
// line that leaves it empty, gives none. Before the ledger records them
// (format 7), a line that gives one is an error naming the line, and a
// Spanish description too long or with a hidden character is refused
// like the English one.
func TestBillFileSpanishDescription(t *testing.T) {
	file := "account,parcel,description,description_es,billed_on,amount\n" +
		"100101,0601-141-2001,\"Weed cutting, 2 hours\",\" Corte de maleza, 2 horas \",2026-11-01,40.00\n" +
		"100102,0601-141-2002,Sidewalk snow removal,,2026-11-01,30.00\n"
	bills, errs := parseBillCSV(strings.NewReader(file), true)
	if len(errs) != 0 || len(bills) != 2 {
		t.Fatalf("bills %v, errors %v", bills, errs)
	}
	if bills[0].DescriptionES != "Corte de maleza, 2 horas" || bills[0].Description != "Weed cutting, 2 hours" || bills[1].DescriptionES != "" {
		t.Errorf("descriptions: %q/%q, %q", bills[0].Description, bills[0].DescriptionES, bills[1].DescriptionES)
	}
	if bills, errs := parseBillCSV(strings.NewReader("account,parcel,description,billed_on,amount\n100101,0601-141-2001,Weeds,2026-11-01,40.00\n"), true); len(errs) != 0 || bills[0].DescriptionES != "" {
		t.Errorf("a file without the column: %v %v", bills, errs)
	}

	_, errs = parseBillCSV(strings.NewReader(file), false)
	if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "Line 2: Spanish descriptions can be imported once every node of the cluster runs ledger format 7") {
		t.Errorf("at format 6: %v", errs)
	}
	for _, c := range []struct{ es, want string }{
		{strings.Repeat("é", domain.MaxDescriptionES+1), "Line 2: the Spanish description is longer than 200 characters."},
		{"Corte\u202e de maleza", "Line 2: the Spanish description contains a hidden character (U+202E"},
	} {
		_, errs := parseBillCSV(strings.NewReader("account,parcel,description,billed_on,amount,description_es\n100101,0601-141-2001,Weeds,2026-11-01,40.00,"+c.es+"\n"), true)
		if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), c.want) {
			t.Errorf("%q: %v, want %q", c.es, errs, c.want)
		}
	}
}
