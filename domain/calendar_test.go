package domain

import (
	"encoding/json"
	"testing"
)

func TestAddMonthsClamps(t *testing.T) {
	for _, tt := range []struct {
		from string
		n    int
		want string
	}{
		{"2026-01-31", 1, "2026-02-28"},
		{"2028-01-31", 1, "2028-02-29"},
		{"2026-01-31", 2, "2026-03-31"}, // from the original date, not chained
		{"2026-08-31", 6, "2027-02-28"},
		{"2027-08-31", 6, "2028-02-29"},
		{"2026-03-31", 1, "2026-04-30"},
		{"2026-12-15", 1, "2027-01-15"},
		{"2028-02-29", 12, "2029-02-28"},
		{"2026-03-31", -1, "2026-02-28"},
		{"2026-01-15", -13, "2024-12-15"},
		{"2026-04-30", 0, "2026-04-30"},
	} {
		if got := MustDate(tt.from).AddMonths(tt.n).String(); got != tt.want {
			t.Errorf("calendar/%s+%d months = %s, want %s", tt.from, tt.n, got, tt.want)
		}
	}
}

func TestBusinessDays(t *testing.T) {
	var hol []Date
	if err := json.Unmarshal([]byte(caseHolidays), &hol); err != nil {
		t.Fatal(err)
	}
	cal := NewCalendar(hol)
	for _, tt := range []struct {
		name, from string
		n          int
		want       string
	}{
		{"start day never counts", "2026-03-02", 1, "2026-03-03"},
		{"from a Friday", "2026-03-06", 1, "2026-03-09"},
		{"from a Saturday", "2026-03-07", 1, "2026-03-09"},
		{"over Thanksgiving", "2026-11-25", 1, "2026-11-30"},
		{"over Christmas", "2026-12-23", 2, "2026-12-29"},
		{"over New Year", "2026-12-31", 1, "2027-01-04"},
		{"Independence Day observed", "2026-07-02", 1, "2026-07-06"},
		{"fifteen", "2026-12-18", 15, "2027-01-13"},
	} {
		if got := cal.AddBusinessDays(MustDate(tt.from), tt.n).String(); got != tt.want {
			t.Errorf("calendar/%s: %s + %d business days = %s, want %s", tt.name, tt.from, tt.n, got, tt.want)
		}
	}
	if cal.IsBusinessDay(MustDate("2026-11-26")) || cal.IsBusinessDay(MustDate("2026-11-28")) || !cal.IsBusinessDay(MustDate("2026-11-25")) {
		t.Error("calendar/IsBusinessDay")
	}
	if got := cal.NextBusinessDay(MustDate("2026-11-26")).String(); got != "2026-11-30" {
		t.Errorf("calendar/NextBusinessDay = %s", got)
	}
}

func TestClockTimeJSON(t *testing.T) {
	var c ClockTime
	if err := json.Unmarshal([]byte(`"16:30"`), &c); err != nil || c.String() != "16:30" {
		t.Fatalf("calendar/clock %s, %v", c, err)
	}
	if b, _ := json.Marshal(c); string(b) != `"16:30"` {
		t.Errorf("calendar/clock marshal %s", b)
	}
	for _, in := range []string{`"4pm"`, `1630`, `"24:00"`, `""`} {
		if err := json.Unmarshal([]byte(in), &c); err == nil {
			t.Errorf("calendar/clock %s accepted", in)
		}
	}
}
