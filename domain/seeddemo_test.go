package domain

import (
	"strings"
	"testing"
)

// seedWith returns a seed command whose history is steps, encoded and
// decoded as the log carries it.
func seedWith(t *testing.T, steps ...Command) Command {
	t.Helper()
	c := staffCmd(KindSeedDemo, "demo", "2026-11-29T10:00")
	c.Payload = &SeedDemo{History: steps}
	b, err := EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	if c, err = DecodeCommand(b); err != nil {
		t.Fatal(err)
	}
	return c
}

func step(n int, actor, at string, p Payload) Command {
	c := staffCmd(p.Kind(), actor, at)
	c.ID, c.Payload = "demo-history-"+string(rune('a'+n)), p
	return c
}

// TestSeedDemoHistory: the demo's history applies step by step with the
// rules of its kinds, and refuses what a demo has no business holding: a
// kind outside the budget and purchasing record, an account someone could
// sign in to, a step its rules refuse.
func TestSeedDemoHistory(t *testing.T) {
	agent := &StaffUserChange{Op: StaffAdd, Username: "demo.agent", Name: "Dana Agent", Role: RoleAdministrator, PasswordHash: LockedPassword}
	chart := &ChartChange{Source: "form", Accounts: []ChartAccount{{Code: "100", Type: AccountFund, Name: "General fund", General: true}}}

	tx := newStaffTx()
	res, err := Apply(tx, seedWith(t, step(0, "demo.setup", "2025-08-01T09:00", agent), step(1, "demo.agent", "2025-08-01T10:00", chart)), 1, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Note, "2 history steps") {
		t.Errorf("note %q", res.Note)
	}
	ch, err := ReadsOf(txRecords{tx}).Chart()
	if err != nil || len(ch.Accounts) != 1 || ch.Accounts[0].ChangedBy != "demo.agent" || ch.Accounts[0].Changed != mustDT("2025-08-01T10:00") {
		t.Fatalf("chart from the history: %+v, %v", ch, err)
	}

	for _, tc := range []struct {
		name  string
		steps []Command
		want  string
	}{
		{"a kind a demo may not hold", []Command{step(0, "demo.setup", "2025-08-01T09:00", &APITokenChange{Op: "issue", ID: "t1", Username: "demo.agent", SecretHash: strings.Repeat("a", 64)})}, "may not hold api_token"},
		{"an account with a password", []Command{step(0, "demo.setup", "2025-08-01T09:00", &StaffUserChange{Op: StaffAdd, Username: "boss", Name: "Boss", Role: RoleAdministrator, PasswordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA"})}, "only adds locked accounts"},
		{"a step the rules refuse", []Command{step(0, "demo.setup", "2025-08-01T09:00", agent),
			step(1, "demo.agent", "2025-08-02T09:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Salt", Category: CategorySupplies, Estimate: MustMoney("10.00")})}, "step 2 (order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(newStaffTx(), seedWith(t, tc.steps...), 1, DefaultParams())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
