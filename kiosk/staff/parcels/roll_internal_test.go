package parcels

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestRollFileReads: the roll import takes a header in any order (a
// spreadsheet's byte-order mark and capitals included), skips blank lines
// and names a missing column, as the bill import does (staff.OpenCSV).
func TestRollFileReads(t *testing.T) {
	parcels, errs := parseRollCSV(strings.NewReader("\ufeffOwner,County,Parcel,Address\nAna,Dane,0601-141-2001,1 Main\n\n,,,\nBo,green,23026 0001.0000,2 Main\n"))
	if len(errs) != 0 || len(parcels) != 2 || parcels[0].Owner != "Ana" || parcels[1].County != domain.Green || parcels[1].Line != 5 {
		t.Fatalf("roll: %+v %v", parcels, errs)
	}
	if _, errs := parseRollCSV(strings.NewReader("parcel,address,owner\n")); len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), `Line 1: the header has no column "county"`) {
		t.Fatalf("missing column: %v", errs)
	}
	if _, errs := parseRollCSV(strings.NewReader("")); len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "Line 1: the file has no header line (parcel,address,county,owner,") {
		t.Fatalf("empty file: %v", errs)
	}
}
