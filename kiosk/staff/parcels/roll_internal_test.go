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

// TestRollFileReadsMailingAddress: the mail_ columns make the owner's
// mailing address of a line; a line without them has none; before the
// ledger records mailing addresses (format 7) a line that gives one is an
// error naming the line, and the node sends none.
func TestRollFileReadsMailingAddress(t *testing.T) {
	file := "parcel,address,county,owner,mail_name,mail_street,mail_city,mail_state,mail_zip\n" +
		"0601-141-2001,1 Main,Dane,Ana,Harbor Rentals LLC,PO Box 118,Madison,wi,53701\n" +
		"0601-141-2002,2 Main,Dane,Bo,,,,,\n"
	parcels, errs := parseRoll(strings.NewReader(file), true)
	if len(errs) != 0 || len(parcels) != 2 {
		t.Fatalf("roll: %+v %v", parcels, errs)
	}
	want := domain.MailingAddress{Name: "Harbor Rentals LLC", Street: "PO Box 118", City: "Madison", State: "WI", ZIP: "53701"}
	if parcels[0].Mailing != want || !parcels[1].Mailing.IsZero() {
		t.Fatalf("mailing addresses: %+v %+v", parcels[0].Mailing, parcels[1].Mailing)
	}
	parcels, errs = parseRoll(strings.NewReader(file), false)
	if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "Line 2: mailing addresses can be imported once") {
		t.Fatalf("at format 6: %v", errs)
	}
	for _, p := range parcels {
		if !p.Mailing.IsZero() {
			t.Fatalf("a mailing address would be sent at format 6: %+v", p)
		}
	}
}
