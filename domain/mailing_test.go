package domain

import (
	"slices"
	"strings"
	"testing"
)

var landlord = MailingAddress{Name: "Harbor Rentals LLC", Street: "PO Box 118", City: "Madison", State: "wi", ZIP: "53701-0118"}

// TestMailingAddressCheck: an address names someone, a street, a city, a
// state's two-letter code and a ZIP code; the zero address is "none".
func TestMailingAddressCheck(t *testing.T) {
	cases := []struct {
		name string
		a    MailingAddress
		want string // "" for accepted
	}{
		{"none", MailingAddress{}, ""},
		{"ZIP+4, state in lower case", landlord, ""},
		{"no name", MailingAddress{Street: "1 Main St", City: "Belleville", State: "WI", ZIP: "53508"}, "no name"},
		{"no street", MailingAddress{Name: "A", City: "Belleville", State: "WI", ZIP: "53508"}, "no street"},
		{"no city", MailingAddress{Name: "A", Street: "1 Main St", State: "WI", ZIP: "53508"}, "no city"},
		{"state spelled out", MailingAddress{Name: "A", Street: "1 Main St", City: "Belleville", State: "Wisconsin", ZIP: "53508"}, "two-letter code"},
		{"short ZIP", MailingAddress{Name: "A", Street: "1 Main St", City: "Belleville", State: "WI", ZIP: "5350"}, "ZIP code"},
		{"ZIP with letters", MailingAddress{Name: "A", Street: "1 Main St", City: "Belleville", State: "WI", ZIP: "53508-12a4"}, "ZIP code"},
		{"hidden character", MailingAddress{Name: "A\u202e", Street: "1 Main St", City: "Belleville", State: "WI", ZIP: "53508"}, "hidden character"},
		{"too long", MailingAddress{Name: strings.Repeat("x", 61), Street: "1 Main St", City: "Belleville", State: "WI", ZIP: "53508"}, "longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.a.Check("The mailing address")
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Check = %v, want %q", err, c.want)
			}
		})
	}
	if got := landlord.Clean().Lines(); !slices.Equal(got, []string{"Harbor Rentals LLC", "PO Box 118", "Madison, WI 53701-0118"}) {
		t.Errorf("lines %q", got)
	}
}

// TestMailingAddressKind: the clerk records an owner's mailing address on
// a parcel and on an account, and removes it; a change naming both or
// neither, an unknown parcel, or a bad address changes nothing. The kind
// exists from ledger format 7.
func TestMailingAddressKind(t *testing.T) {
	if KindMailingAddress.Since() != DocumentsFormat {
		t.Fatalf("mailing_address is taken from format %d, want %d", KindMailingAddress.Since(), DocumentsFormat)
	}
	tx := newStaffTx()
	change := func(p MailingAddressChange) (Result, error) {
		c := staffCmd(KindMailingAddress, "jdoe", "2026-12-01T09:00")
		c.Payload = &p
		return tx.run(t, c)
	}
	if _, err := change(MailingAddressChange{Parcel: "0601-141-2001", Address: landlord}); err != nil {
		t.Fatal(err)
	}
	if got := tx.parcels["0601-141-2001"].Mailing; got.State != "WI" || got.Name != "Harbor Rentals LLC" {
		t.Fatalf("parcel's mailing address %+v", got)
	}
	if _, err := change(MailingAddressChange{Account: "100101", Address: landlord}); err != nil {
		t.Fatal(err)
	}
	if got := tx.accounts["100101"].Mailing; got.IsZero() {
		t.Fatal("the account's mailing address was not recorded")
	}
	before := tx.clone()
	for _, bad := range []MailingAddressChange{
		{Address: landlord},
		{Parcel: "0601-141-2001", Account: "100101", Address: landlord},
		{Parcel: "0601-141-9999", Address: landlord},
		{Account: "100101", Address: MailingAddress{Name: "No street", City: "Madison", State: "WI", ZIP: "53701"}},
	} {
		if _, err := change(bad); err == nil {
			t.Errorf("%+v was taken", bad)
		}
	}
	if tx.parcels["0601-141-2001"] != before.parcels["0601-141-2001"] || tx.accounts["100101"].Mailing != before.accounts["100101"].Mailing {
		t.Fatal("a refused change changed the ledger")
	}
	if _, err := change(MailingAddressChange{Parcel: "0601-141-2001"}); err != nil {
		t.Fatal(err)
	}
	if !tx.parcels["0601-141-2001"].Mailing.IsZero() {
		t.Fatal("an empty address did not remove the parcel's")
	}
}

// TestParcelRollMailingAddressByFormat: at ledger format 7 a roll line's
// mailing address is recorded on the parcel and on the account the line
// makes, and a later line without one keeps it; at format 6 a roll
// carrying one is refused whole, while a roll without one applies as it
// always did and writes the same records.
func TestParcelRollMailingAddressByFormat(t *testing.T) {
	line := RollParcel{ID: "0601-141-2050", Address: "50 Pearl St", County: Dane, Owner: "Harbor Rentals LLC", Account: "200950", Mailing: landlord, Line: 2}

	tx := newStaffTx()
	tx.format = ReconciledFormat
	before := tx.clone()
	if _, err := tx.run(t, rollCmd(line)); err == nil || !strings.Contains(err.Error(), "Line 2: ") {
		t.Fatalf("a mailing address at format 6: %v", err)
	}
	if len(tx.parcels) != len(before.parcels) || len(tx.accounts) != len(before.accounts) {
		t.Fatal("a refused roll changed the ledger")
	}
	plain := line
	plain.Mailing = MailingAddress{}
	if _, err := tx.run(t, rollCmd(plain)); err != nil {
		t.Fatal(err)
	}
	b := mustJSON(t, tx.parcels[line.ID])
	if strings.Contains(string(b), "mailing") {
		t.Fatalf("a format-6 parcel's record names a mailing address: %s", b)
	}

	tx = newStaffTx()
	if _, err := tx.run(t, rollCmd(line)); err != nil {
		t.Fatal(err)
	}
	if got := tx.parcels[line.ID].Mailing; got != landlord.Clean() {
		t.Fatalf("parcel's mailing address %+v", got)
	}
	if got := tx.accounts["200950"].Mailing; got != landlord.Clean() {
		t.Fatalf("the new account's mailing address %+v", got)
	}
	res, err := tx.run(t, rollCmd(plain))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Note, "parcel roll: 0 new, 0 changed, 1 unchanged") || tx.parcels[line.ID].Mailing != landlord.Clean() {
		t.Fatalf("a line without a mailing address: %q %+v", res.Note, tx.parcels[line.ID].Mailing)
	}
	moved := line
	moved.Mailing.Street = "PO Box 200"
	if res, err := tx.run(t, rollCmd(moved)); err != nil || !strings.Contains(res.Note, "1 changed") {
		t.Fatalf("a new mailing address: %v %q", err, res.Note)
	}
	if tx.accounts["200950"].Mailing.Street != "PO Box 118" {
		t.Fatal("a roll changed an existing account's mailing address")
	}
	bad := line
	bad.Mailing.ZIP = "ABCDE"
	if errs := CheckRoll([]RollParcel{bad}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "Line 2: the mailing address") {
		t.Fatalf("a bad ZIP: %v", errs)
	}
}

// TestMailTo: a bill goes to the account's mailing address, else the
// parcel owner's, else the parcel in the village.
func TestMailTo(t *testing.T) {
	pc := Parcel{ID: "p", Address: "10 Main St", Owner: "Ana Gutierrez"}
	a := Account{Number: "100101", Name: "Ana Gutierrez"}
	if got := MailTo(a, pc, "Belleville, WI 53508"); !slices.Equal(got, []string{"Ana Gutierrez", "10 Main St", "Belleville, WI 53508"}) {
		t.Errorf("site: %q", got)
	}
	pc.Mailing = landlord.Clean()
	if got := MailTo(a, pc, "Belleville, WI 53508"); got[0] != "Harbor Rentals LLC" {
		t.Errorf("owner's: %q", got)
	}
	a.Mailing = MailingAddress{Name: "Ana Gutierrez", Street: "1 Elm St", City: "Verona", State: "WI", ZIP: "53593"}
	if got := MailTo(a, pc, "Belleville, WI 53508"); got[1] != "1 Elm St" {
		t.Errorf("account's: %q", got)
	}
}
