package replica

import "testing"

// TestHandOverToANodeTrustedToLead: the backup hands leadership to the
// clerk's node when it answers, and never to the kiosk; the kiosk hands it
// to the clerk's node, else to the backup (the clerk's node frozen or
// unplugged), since the others take no snapshot nor change of membership
// from a kiosk.
func TestHandOverToANodeTrustedToLead(t *testing.T) {
	clerk := MemberView{ID: "hall-clerk", Suffrage: "Voter", State: "Follower", AppliedIndex: 2000, PreferLeader: true, AtHall: true}
	kiosk := MemberView{ID: "hall-kiosk", Suffrage: "Voter", State: "Follower", AppliedIndex: 2000, AtHall: true}
	backup := MemberView{ID: "annex-backup", Suffrage: "Voter", State: "Follower", AppliedIndex: 100}
	unreachable := func(m MemberView) MemberView { m.State, m.AppliedIndex = "unreachable", 0; return m }
	behind := func(m MemberView) MemberView { m.AppliedIndex = 2000 - handOverLag - 1; return m }
	caughtUp := func(m MemberView) MemberView { m.AppliedIndex = 2000 - handOverLag; return m }
	for _, row := range []struct {
		name  string
		self  string
		kiosk bool
		nodes []MemberView
		want  string
	}{
		{"backup to the clerk", "annex-backup", false, []MemberView{clerk, kiosk}, "hall-clerk"},
		{"backup never to the kiosk", "annex-backup", false, []MemberView{unreachable(clerk), kiosk}, ""},
		{"backup waits for the clerk behind", "annex-backup", false, []MemberView{behind(clerk), kiosk}, ""},
		{"kiosk to the clerk", "hall-kiosk", true, []MemberView{clerk, caughtUp(backup)}, "hall-clerk"},
		{"kiosk to the backup while the clerk is frozen", "hall-kiosk", true, []MemberView{unreachable(clerk), caughtUp(backup)}, "annex-backup"},
		{"kiosk waits for a backup behind", "hall-kiosk", true, []MemberView{unreachable(clerk), backup}, ""},
	} {
		t.Run(row.name, func(t *testing.T) {
			m, ok := handOverTo(ClusterView{Nodes: row.nodes}, row.self, row.kiosk, 2000)
			if got := map[bool]string{true: m.ID}[ok]; got != row.want {
				t.Fatalf("hands over to %q, want %q", got, row.want)
			}
		})
	}
}
