package domain

import "testing"

// TestHearingNoticeNamesItsDay: from ledger format 7 the notice of the
// hearing records the day it names, and the proposed budget is a copy for
// citizens from the notice's publication; at format 6 the notice is
// recorded as it always was, without the day. An amendment's notice
// names no hearing; a hearing before its notice is refused.
func TestHearingNoticeNamesItsDay(t *testing.T) {
	notice := func(hearing string) *BudgetNoticeChange {
		n := &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "hearing", Published: MustDate("2026-10-20"), Newspaper: "Belleville Recorder"}}
		if hearing != "" {
			n.HearingOn = MustDate(hearing)
		}
		return n
	}
	for _, c := range []struct {
		format int
		want   string
	}{{DocumentsFormat, "2026-11-04"}, {DocumentsFormat - 1, ""}} {
		v := newVillageAt(t, c.format)
		v.do("admin", "2026-10-01T10:00", proposal2027())
		b, _, _ := v.reads().Budget(2027)
		if public, _ := b.PublicOn(MustDate("2026-10-21")); public {
			t.Fatalf("format %d: a proposal without its notice is public", c.format)
		}
		if c.format == DocumentsFormat {
			v.refused("clerk", "2026-10-20T10:00", notice("2026-10-19"), EINVALID, "cannot be before the notice")
		}
		v.do("clerk", "2026-10-20T10:00", notice("2026-11-04"))
		b, _, _ = v.reads().Budget(2027)
		if got := b.Notices[0].HearingOn; got.String() != c.want && !(c.want == "" && got.IsZero()) {
			t.Errorf("format %d: the notice records the hearing on %v, want %q", c.format, got, c.want)
		}
		if public, hearing := b.PublicOn(MustDate("2026-10-19")); public || !hearing.IsZero() {
			t.Errorf("format %d: public the day before its notice: %v %v", c.format, public, hearing)
		}
		if public, hearing := b.PublicOn(MustDate("2026-10-20")); !public || (c.want != "" && hearing.String() != c.want) || (c.want == "" && !hearing.IsZero()) {
			t.Errorf("format %d: on the notice's day: public %v, hearing %v", c.format, public, hearing)
		}
	}
	v := adopted2027(t)
	vs, _ := votes(6, 0, 1)
	v.do("clerk", "2027-01-10T20:00", &BudgetVoteChange{Year: 2027, Action: BudgetAmend, On: MustDate("2027-01-10"), Votes: vs, Present: 6,
		Changes: []AmendLine{{Account: "100-55200", Change: MustMoney("5000.00")}}, Purpose: "playground"})
	v.refused("clerk", "2027-01-12T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "amendment", Amendment: 1, Published: MustDate("2027-01-12"),
		Newspaper: "Belleville Recorder", HearingOn: MustDate("2027-01-20")}}, EINVALID, "Only the notice of the hearing")
	b, _, _ := v.reads().Budget(2027)
	if public, hearing := b.PublicOn(MustDate("2027-01-12")); !public || hearing.String() != "2026-11-04" {
		t.Errorf("the adopted budget: public %v, hearing %v", public, hearing)
	}
}
