package domain

import (
	"strings"
	"testing"
)

func TestStatusLetterEdges(t *testing.T) {
	in := func(at string, extra ...string) string {
		s := `{"requested_at":"` + at + `","holidays":` + caseHolidays + `,"fee_schedule":` + caseFees
		for _, e := range extra {
			s += "," + e
		}
		return s + "}"
	}
	rows := []ruleRow{
		{"§5.11", "closing time exactly 16:30 is next day", in("2026-06-30T16:30"),
			map[string]any{"received_on": "2026-07-01", "ready_by": "2026-07-06", "fee": "35.00"}, ""},
		{"§5.11", "a second before closing is same day", in("2026-06-30T16:29:59"),
			map[string]any{"received_on": "2026-06-30", "ready_by": "2026-07-02", "fee": "35.00"}, ""},
		{"§5.11", "fee by request date not received date", in("2026-06-30T17:00"),
			map[string]any{"received_on": "2026-07-01", "fee": "35.00"}, ""},
		{"§5.11", "new fee on its effective date", in("2026-07-01T08:00"), map[string]any{"fee": "45.00"}, ""},
		{"§5.11", "holiday Thanksgiving", in("2026-11-26T10:00"),
			map[string]any{"received_on": "2026-11-30", "ready_by": "2026-12-02"}, ""},
		{"§5.11", "day before Thanksgiving after closing", in("2026-11-25T16:30"),
			map[string]any{"received_on": "2026-11-30", "ready_by": "2026-12-02"}, ""},
		{"§5.11", "Sunday", in("2026-03-01T09:00"), map[string]any{"received_on": "2026-03-02", "ready_by": "2026-03-04"}, ""},
		{"§5.11", "Friday after closing", in("2026-03-06T16:31"), map[string]any{"received_on": "2026-03-09", "ready_by": "2026-03-11"}, ""},
		{"§5.11", "Christmas week 2027", in("2027-12-22T10:00"), map[string]any{"received_on": "2027-12-22", "ready_by": "2027-12-28"}, ""},
		{"§5.11", "closes_at earlier", in("2026-06-30T13:00", `"closes_at":"12:00"`), map[string]any{"received_on": "2026-07-01"}, ""},
		{"§5.11", "closes_at default 16:30", `{"requested_at":"2026-06-30T16:30"}`, map[string]any{"received_on": "2026-07-01", "fee": "35.00"}, ""},
		{"§5.11", "no holidays in the case list", `{"requested_at":"2026-11-26T10:00","holidays":[]}`, map[string]any{"received_on": "2026-11-26"}, ""},
		{"§5.11", "no fee in force", `{"requested_at":"2024-06-30T10:00","fee_schedule":` + caseFees + `}`, nil, EINVALID},
		{"§5.11", "bad closes_at", in("2026-06-30T13:00", `"closes_at":"4pm"`), nil, EINVALID},
		{"§5.11", "bad requested_at", `{"requested_at":"2026-06-30 13:00"}`, nil, EINVALID},
	}
	runRuleTable(t, "5.11/status-letter", DefaultParams(), rows)
	if strings.Count(caseHolidays, "-") != 32 {
		t.Fatal("caseHolidays garbled")
	}
}
