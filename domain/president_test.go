package domain

import "testing"

// TestPresidentRole checks the Village President's role: a board member's
// powers besides its own (§5.08), given to accounts from ledger format 2
// only, so a format 1 log that named it replays refused.
func TestPresidentRole(t *testing.T) {
	for _, row := range []struct {
		r, as Role
		want  bool
	}{
		{RolePresident, RolePresident, true},
		{RolePresident, RoleBoard, true},
		{RoleBoard, RolePresident, false},
		{RolePresident, RoleAdministrator, false},
		{RoleClerk, RoleClerk, true},
	} {
		if got := row.r.Is(row.as); got != row.want {
			t.Errorf("%s.Is(%s) = %v, want %v", row.r, row.as, got, row.want)
		}
	}
	if !RolePresident.Valid() || RolePresident.Title() != "Village President" {
		t.Fatalf("the President's role: valid %v, title %q", RolePresident.Valid(), RolePresident.Title())
	}
	// A kind the board may issue, the President may (the assessment
	// board's resolutions, legal claims); one the board may not, neither.
	if d, _ := Kinds.Lookup(KindAssessmentFinal); !d.Permits(RolePresident) {
		t.Fatal("the President acts on the board's kinds")
	}
	if d, _ := Kinds.Lookup(KindCountySettlement); d.Permits(RolePresident) {
		t.Fatal("the President does not settle with the county")
	}

	add := func() Command {
		c := staffCmd(KindStaffUser, "admin", "2026-11-02T09:00")
		c.Payload = &StaffUserChange{Op: StaffAdd, Username: "pres", Name: "Pat President", Role: RolePresident, PasswordHash: "$argon2id$x"}
		return c
	}
	old := &staffFormatTx{staffTx: newStaffTx(), format: 1}
	if _, err := Apply(old, add(), 3, DefaultParams()); ErrorCode(err) != EINVALID {
		t.Fatalf("a President added at format 1: %v, want invalid", err)
	}
	tx := &staffFormatTx{staffTx: newStaffTx(), format: 2}
	if _, err := Apply(tx, add(), 3, DefaultParams()); err != nil {
		t.Fatalf("a President added at format 2: %v", err)
	}
	var u StaffUser
	if ok, _ := tx.Get(CollectionStaffUsers, "pres", &u); !ok || u.Role != RolePresident {
		t.Fatalf("the President's account: %+v", u)
	}
	// The presidency changes hands as a role does.
	ch := staffCmd(KindStaffUser, "admin", "2027-04-20T19:00")
	ch.Payload = &StaffUserChange{Op: StaffRole, Username: "pres", Role: RoleBoard}
	if _, err := Apply(tx, ch, 4, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if tx.Get(CollectionStaffUsers, "pres", &u); u.Role != RoleBoard {
		t.Fatalf("after the role change: %+v", u)
	}
}
