package domain

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func rollCmd(parcels ...RollParcel) Command {
	c := staffCmd(KindParcelRoll, "jdoe", "2026-12-01T09:00")
	c.Payload = &ParcelRoll{Parcels: parcels, Source: "roll.csv"}
	return c
}

// TestParcelRollAddsUpdatesAndLinks: a roll adds the parcels the ledger
// does not hold, gives those it holds the roll's address and owner, keeps
// the parcels it leaves out, makes the accounts it names and adds each
// parcel to its account once, and records which command wrote a parcel.
func TestParcelRollAddsUpdatesAndLinks(t *testing.T) {
	tx := newStaffTx()
	tx.parcels["0601-141-2099"] = Parcel{ID: "0601-141-2099", Address: "99 Old Road", County: Dane, Owner: "Kept"}
	res, err := tx.run(t, rollCmd(
		RollParcel{ID: "0601-141-2001", Address: "141 W Main St", County: Dane, Owner: "Ana Gutierrez", Account: "100101", Line: 2},
		RollParcel{ID: "23026 0001.0000", Address: " 2 Pearl Street ", County: Green, Owner: "Bo Berg", Floodplain: true, Account: "100150", AccountName: "Berg household", Line: 3},
		RollParcel{ID: "23026 0002.0000", Address: "4 Pearl Street", County: Green, Owner: "Bo Berg", Account: "100150", Line: 4},
		RollParcel{ID: "0601-141-2003", Address: "3 Church St", County: Dane, Owner: "Cy Doe", Account: "100160", Line: 5},
	))
	if err != nil {
		t.Fatal(err)
	}
	if want := "parcel roll: 3 new, 1 changed, 0 unchanged; 2 accounts made or given parcels"; res.Note != want {
		t.Errorf("note %q, want %q", res.Note, want)
	}
	if p := tx.parcels["0601-141-2001"]; p.Owner != "Ana Gutierrez" || p.Address != "141 W Main St" {
		t.Errorf("updated parcel: %+v", p)
	}
	if p := tx.parcels["23026 0001.0000"]; p.Address != "2 Pearl Street" || p.County != Green || !p.Floodplain || p.Owner != "Bo Berg" {
		t.Errorf("new parcel: %+v", p)
	}
	if _, ok := tx.parcels["0601-141-2099"]; !ok {
		t.Error("a parcel left out of the roll was removed")
	}
	if a := tx.accounts["100101"]; !slices.Equal(a.Parcels, []string{"0601-141-2001"}) || a.Name != "Ana Gutierrez" {
		t.Errorf("existing account: %+v", a)
	}
	if a := tx.accounts["100150"]; a.Name != "Berg household" || !slices.Equal(a.Parcels, []string{"23026 0001.0000", "23026 0002.0000"}) {
		t.Errorf("new account: %+v", a)
	}
	if a := tx.accounts["100160"]; a.Name != "Cy Doe" {
		t.Errorf("an account without a name takes the owner's: %+v", a)
	}
	var o ParcelOrigin
	if ok, _ := tx.Get(CollectionParcelOrigins, "23026 0001.0000", &o); !ok || o.Source != "roll.csv" || o.Line != 3 || o.Actor != "jdoe" {
		t.Errorf("origin: %+v", o)
	}

	// The same roll again changes nothing; the county's next roll moves an
	// owner, and an account's own name stays the village's.
	before := tx.clone()
	res, err = tx.run(t, rollCmd(RollParcel{ID: "23026 0001.0000", Address: "2 Pearl Street", County: Green, Owner: "Bo Berg", Floodplain: true, Account: "100150", AccountName: "Someone else", Line: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Note, "parcel roll: 0 new, 0 changed, 1 unchanged; 0 accounts") {
		t.Errorf("unchanged roll: %q", res.Note)
	}
	if fmt.Sprint(tx.accounts) != fmt.Sprint(before.accounts) || fmt.Sprint(tx.parcels) != fmt.Sprint(before.parcels) {
		t.Error("an unchanged roll changed records")
	}
	if _, err := tx.run(t, rollCmd(RollParcel{ID: "23026 0001.0000", Address: "2 Pearl Street", County: Green, Owner: "Dee Eng", Line: 2})); err != nil {
		t.Fatal(err)
	}
	if p := tx.parcels["23026 0001.0000"]; p.Owner != "Dee Eng" || p.Floodplain {
		t.Errorf("the roll is the county's word on the parcel: %+v", p)
	}
}

// TestParcelRollRefusesABadLineWhole: a roll with any bad line changes
// nothing, and its errors name the lines.
func TestParcelRollRefusesABadLineWhole(t *testing.T) {
	good := RollParcel{ID: "0601-141-2005", Address: "5 Main", County: Dane, Owner: "Eve", Account: "100170", Line: 2}
	for _, c := range []struct {
		name string
		bad  RollParcel
		want string
	}{
		{"county", RollParcel{ID: "0601-141-2006", Address: "6 Main", County: "rock", Owner: "F", Line: 3}, `Line 3: the county "rock" is not Dane or Green.`},
		{"parcel number", RollParcel{ID: "0601/141", Address: "6 Main", County: Dane, Owner: "F", Line: 3}, `Line 3: the parcel number "0601/141"`},
		{"double space", RollParcel{ID: "23026  0001", Address: "6 Main", County: Green, Owner: "F", Line: 3}, "Line 3: the parcel number"},
		{"owner", RollParcel{ID: "0601-141-2006", Address: "6 Main", County: Dane, Line: 3}, "Line 3: the owner is missing."},
		{"address", RollParcel{ID: "0601-141-2006", County: Dane, Owner: "F", Line: 3}, "Line 3: the address is missing."},
		{"name without account", RollParcel{ID: "0601-141-2006", Address: "6 Main", County: Dane, Owner: "F", AccountName: "F", Line: 3}, "without an account number"},
		{"control character", RollParcel{ID: "0601-141-2006", Address: "6 Main\x1b[2J", County: Dane, Owner: "F", Line: 3}, "Line 3: the address"},
		{"twice", RollParcel{ID: "0601-141-2005", Address: "5 Main", County: Dane, Owner: "Eve", Line: 3}, "Line 3: the parcel 0601-141-2005 is already on line 2."},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := newStaffTx()
			before := tx.clone()
			_, err := tx.run(t, rollCmd(good, c.bad))
			if err == nil || !strings.Contains(ErrorMessage(err), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if fmt.Sprint(tx.parcels, tx.accounts, tx.records) != fmt.Sprint(before.parcels, before.accounts, before.records) {
				t.Fatal("a refused roll changed the ledger")
			}
		})
	}
	many := make([]RollParcel, MaxParcelsPerCommand+1)
	for i := range many {
		many[i] = RollParcel{ID: fmt.Sprintf("0601-141-%04d", i), Address: "x", County: Dane, Owner: "o", Line: i + 2}
	}
	if errs := CheckRoll(many); len(errs) == 0 || !strings.Contains(ErrorMessage(errs[0]), "split the roll") {
		t.Fatalf("a roll over the limit: %v", errs)
	}
	if errs := CheckRoll(nil); len(errs) != 1 {
		t.Fatalf("an empty roll: %v", errs)
	}
}

// TestPlanRollSaysWhatAnImportWouldDo: the dry run's plan names each
// line's change and what it does to accounts, as the rule then applies.
func TestPlanRollSaysWhatAnImportWouldDo(t *testing.T) {
	tx := newStaffTx()
	plan, err := PlanRoll([]RollParcel{
		{ID: "0601-141-2001", Address: "141 W Main St", County: Dane, Account: "100101"},
		{ID: "0601-141-2007", Address: "7 Main", County: Dane, Owner: "G", Account: "100180"},
		{ID: "0601-141-2008", Address: "8 Main", County: Dane, Owner: "G", Account: "100180"},
	}, tx)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, l := range plan {
		got = append(got, fmt.Sprintf("%s %s new-account=%v linked=%v", l.ID, l.Change, l.NewAccount, l.Linked))
	}
	want := []string{
		"0601-141-2001 unchanged new-account=false linked=false",
		"0601-141-2007 new new-account=true linked=true",
		"0601-141-2008 new new-account=false linked=true",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("plan:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestParcelRollIsTheClerksOffice: residents and the kiosk cannot send a
// roll, and a cluster below format 3 refuses it.
func TestParcelRollIsTheClerksOffice(t *testing.T) {
	d, ok := Kinds.Lookup(KindParcelRoll)
	if !ok {
		t.Fatal("parcel_roll is not in the table")
	}
	if d.Resident || d.Offline || Kinds.MayTake(NodeKiosk, KindParcelRoll) || !Kinds.MayTake(NodeClerk, KindParcelRoll) {
		t.Fatalf("descriptor: %+v", d)
	}
	if d.Permits(RoleAdministrator) || d.Permits(RoleAuditor) {
		t.Fatal("an administrator or an auditor may import a roll")
	}
	if !d.Permits(RoleClerk) || !d.Permits(RoleTreasurer) {
		t.Fatal("the clerk and the treasurer import rolls")
	}
	if Kinds.Since(KindParcelRoll) != 3 {
		t.Fatalf("since %d", Kinds.Since(KindParcelRoll))
	}
}
