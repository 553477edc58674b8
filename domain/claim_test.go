package domain

import "testing"

func TestLegalClaimEdges(t *testing.T) {
	runRuleTable(t, "5.08/legal-claim", DefaultParams(), []ruleRow{
		{"§5.08", "120 days", `{"served_on":"2026-10-15"}`, map[string]any{"deemed_disallowed_on": "2027-02-12"}, ""},
		{"§5.08", "120 days across a leap day", `{"served_on":"2028-01-01"}`, map[string]any{"deemed_disallowed_on": "2028-04-30"}, ""},
		{"§5.08", "120 days in a common year", `{"served_on":"2027-01-01"}`, map[string]any{"deemed_disallowed_on": "2027-05-01"}, ""},
		{"§5.08", "six months clamped to Feb 28", `{"served_on":"2026-08-31","disallowance_served_on":"2026-08-31"}`, map[string]any{"suit_deadline": "2027-02-28"}, ""},
		{"§5.08", "six months clamped to Feb 29", `{"served_on":"2027-08-01","disallowance_served_on":"2027-08-31"}`, map[string]any{"suit_deadline": "2028-02-29"}, ""},
		{"§5.08", "six months not 180 days", `{"served_on":"2026-01-15","disallowance_served_on":"2026-01-15"}`, map[string]any{"suit_deadline": "2026-07-15"}, ""},
		{"§5.08", "disallowance before claim", `{"served_on":"2026-10-15","disallowance_served_on":"2026-10-14"}`, nil, EINVALID},
	})
	out, err := ComputeLegalClaim(LegalClaimInput{ServedOn: MustDate("2026-10-15")}, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustJSON(t, out)); got != `{"deemed_disallowed_on":"2027-02-12"}` {
		t.Errorf("§5.08/suit deadline absent: %s", got)
	}
}
