package replica

import "testing"

// TestHandOverStaysAtTheHall: the backup hands leadership to the clerk's
// node when it answers, to the kiosk when only the kiosk does (the
// clerk's node frozen or unplugged), and the kiosk never hands it to the
// backup.
func TestHandOverStaysAtTheHall(t *testing.T) {
	clerk := MemberView{ID: "hall-clerk", Suffrage: "Voter", State: "Follower", AppliedIndex: 2000, PreferLeader: true, AtHall: true}
	kiosk := MemberView{ID: "hall-kiosk", Suffrage: "Voter", State: "Follower", AppliedIndex: 2000, AtHall: true}
	backup := MemberView{ID: "annex-backup", Suffrage: "Voter", State: "Follower", AppliedIndex: 100}
	unreachable := func(m MemberView) MemberView { m.State, m.AppliedIndex = "unreachable", 0; return m }
	behind := func(m MemberView) MemberView { m.AppliedIndex = 2000 - handOverLag - 1; return m }
	for _, row := range []struct {
		name   string
		self   string
		atHall bool
		nodes  []MemberView
		want   string
	}{
		{"backup to the clerk", "annex-backup", false, []MemberView{clerk, kiosk}, "hall-clerk"},
		{"backup to the kiosk while the clerk is frozen", "annex-backup", false, []MemberView{unreachable(clerk), kiosk}, "hall-kiosk"},
		{"backup waits for a kiosk behind", "annex-backup", false, []MemberView{unreachable(clerk), behind(kiosk)}, ""},
		{"kiosk to the clerk", "hall-kiosk", true, []MemberView{clerk, backup}, "hall-clerk"},
		{"kiosk never to the backup", "hall-kiosk", true, []MemberView{unreachable(clerk), backup}, ""},
	} {
		t.Run(row.name, func(t *testing.T) {
			m, ok := handOverTo(ClusterView{Nodes: row.nodes}, row.self, row.atHall, 2000)
			if got := map[bool]string{true: m.ID}[ok]; got != row.want {
				t.Fatalf("hands over to %q, want %q", got, row.want)
			}
		})
	}
}
