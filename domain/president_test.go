package domain

import (
	"strings"
	"testing"
)

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

// TestOnePresidentAtATime: from ledger format 3 a second enabled account
// cannot take the Village President's role; the office passes once its
// holder has another role or is disabled. Below format 3 the rule does
// not apply, so older logs replay as they applied.
func TestOnePresidentAtATime(t *testing.T) {
	step := func(tx Tx, at string, ch StaffUserChange) error {
		c := staffCmd(KindStaffUser, "admin", at)
		c.Payload = &ch
		_, err := Apply(tx, c, 3, DefaultParams())
		return err
	}
	add := func(user string, r Role) StaffUserChange {
		return StaffUserChange{Op: StaffAdd, Username: user, Name: "Person " + user, Role: r, PasswordHash: "$argon2id$x"}
	}
	tx := &staffFormatTx{staffTx: newStaffTx(), format: 3}
	if err := step(tx, "2026-04-01T09:00", add("pat", RolePresident)); err != nil {
		t.Fatal(err)
	}
	if err := step(tx, "2026-04-01T09:05", add("lee", RolePresident)); ErrorCode(err) != ECONFLICT || !strings.Contains(ErrorMessage(err), "Person pat (pat) is the Village President") {
		t.Fatalf("a second President added: %v", err)
	}
	if err := step(tx, "2026-04-01T09:06", add("lee", RoleBoard)); err != nil {
		t.Fatal(err)
	}
	if err := step(tx, "2026-04-01T09:07", StaffUserChange{Op: StaffRole, Username: "lee", Role: RolePresident}); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a board member made a second President: %v", err)
	}
	// The April election: Pat steps down to the board, Lee takes office.
	if err := step(tx, "2027-04-20T19:00", StaffUserChange{Op: StaffRole, Username: "pat", Role: RoleBoard}); err != nil {
		t.Fatal(err)
	}
	if err := step(tx, "2027-04-20T19:01", StaffUserChange{Op: StaffRole, Username: "lee", Role: RolePresident}); err != nil {
		t.Fatalf("the new President after the old stepped down: %v", err)
	}
	// A disabled President frees the office; enabling that account again
	// while another holds it is refused.
	if err := step(tx, "2027-05-01T09:00", StaffUserChange{Op: StaffDisable, Username: "lee"}); err != nil {
		t.Fatal(err)
	}
	if err := step(tx, "2027-05-01T09:01", StaffUserChange{Op: StaffRole, Username: "pat", Role: RolePresident}); err != nil {
		t.Fatalf("a President after the holder was disabled: %v", err)
	}
	if err := step(tx, "2027-05-01T09:02", StaffUserChange{Op: StaffEnable, Username: "lee"}); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a disabled President enabled beside another: %v", err)
	}

	old := &staffFormatTx{staffTx: newStaffTx(), format: 2}
	for i, u := range []string{"pat", "lee"} {
		if err := step(old, "2026-04-01T09:0"+string(rune('0'+i)), add(u, RolePresident)); err != nil {
			t.Fatalf("format 2 applies as it did: %v", err)
		}
	}
}

// TestOneBoardPresidentAtATime: from ledger format 3 two members' terms
// in the President's seat may not overlap; one that begins after the
// other's ends is taken.
func TestOneBoardPresidentAtATime(t *testing.T) {
	member := func(tx Tx, id string, from, to string) error {
		m := &BoardMember{ID: id, Name: "Member " + id, Seat: "president", From: MustDate(from)}
		if to != "" {
			m.To = MustDate(to)
		}
		c := staffCmd(KindBoardMember, "admin", "2026-04-01T09:00")
		c.Payload = m
		_, err := Apply(tx, c, 3, DefaultParams())
		return err
	}
	tx := &staffFormatTx{staffTx: newStaffTx(), format: 3}
	if err := member(tx, "president-kubly", "2023-04-15", "2027-04-19"); err != nil {
		t.Fatal(err)
	}
	if err := member(tx, "president-ames", "2027-04-01", ""); ErrorCode(err) != ECONFLICT || !strings.Contains(ErrorMessage(err), "Member president-kubly sits in the President's seat from 2023-04-15 to 2027-04-19") {
		t.Fatalf("an overlapping President: %v", err)
	}
	if err := member(tx, "president-ames", "2027-04-20", ""); err != nil {
		t.Fatalf("the next President: %v", err)
	}
	// Changing the sitting President's own record is not a second one.
	if err := member(tx, "president-kubly", "2023-04-15", "2027-04-18"); err != nil {
		t.Fatalf("the President's own term changed: %v", err)
	}
	old := &staffFormatTx{staffTx: newStaffTx(), format: 2}
	if err := member(old, "p1", "2023-04-15", ""); err != nil {
		t.Fatal(err)
	}
	if err := member(old, "p2", "2024-04-15", ""); err != nil {
		t.Fatalf("format 2 applies as it did: %v", err)
	}
}
