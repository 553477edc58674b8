package domain

import "testing"

func TestReturnedCheckEdges(t *testing.T) {
	in := func(on, amount string) string {
		return `{"returned_on":"` + on + `","check_amount":"` + amount + `","fee_schedule":` + caseFees + `}`
	}
	runRuleTable(t, "5.20/returned-check", DefaultParams(), []ruleRow{
		{"§5.20", "day before new fee", in("2026-06-30", "212.50"), map[string]any{"fee": "25.00", "owed": "237.50"}, ""},
		{"§5.20", "new fee on its effective date", in("2026-07-01", "212.50"), map[string]any{"fee": "30.00", "owed": "242.50"}, ""},
		{"§5.20", "default schedule", `{"returned_on":"2027-01-01","check_amount":"1.00"}`, map[string]any{"fee": "30.00", "owed": "31.00"}, ""},
		{"§5.20", "latest row not first", `{"returned_on":"2027-01-01","check_amount":"1.00","fee_schedule":[{"effective":"2026-01-01","status_letter":"1","returned_check":"20"},{"effective":"2020-01-01","status_letter":"1","returned_check":"10"}]}`,
			map[string]any{"fee": "20.00"}, ""},
		{"§5.20", "before any fee", in("2024-12-31", "1.00"), nil, EINVALID},
		{"§5.20", "negative check", in("2026-07-01", "-1.00"), nil, EINVALID},
		{"§5.20", "negative fee", `{"returned_on":"2027-01-01","check_amount":"1.00","fee_schedule":[{"effective":"2026-01-01","status_letter":"1","returned_check":"-20"}]}`, nil, EINVALID},
	})
}
