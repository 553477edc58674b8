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
	_, errs := parseBillCSV(strings.NewReader("account,parcel,description,billed_on,amount\n100101,0601-141-2001,Weeds,2026-11-01,40.00\n100101,0601-141-2001,\"Snow,2026-11-01,30.00\n"))
	if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "Line 3: the line cannot be read as CSV.") {
		t.Fatalf("a bad line: %v", errs)
	}
}
