package domain

import "testing"

func TestRefundEdges(t *testing.T) {
	in := func(paid, amountPaid, amountDue string) string {
		return `{"paid_on":"` + paid + `","amount_paid":"` + amountPaid + `","amount_due":"` + amountDue + `","holidays":` + caseHolidays + `}`
	}
	rows := []ruleRow{
		{"§5.07(1)", "over Christmas and New Year", in("2026-12-18", "2500.00", "2212.37"), map[string]any{"refund": "287.63", "refund_by": "2027-01-13"}, ""},
		{"§5.07(1)", "no excess no date", in("2026-03-02", "100.00", "100.00"), map[string]any{"refund": "0.00", "refund_by": nil}, ""},
		{"§5.07(1)", "underpaid no refund", in("2026-03-02", "99.99", "100.00"), map[string]any{"refund": "0.00", "refund_by": nil}, ""},
		{"§5.07(1)", "one cent", in("2026-03-02", "100.01", "100.00"), map[string]any{"refund": "0.01", "refund_by": "2026-03-23"}, ""},
		{"§5.07(1)", "paid on a Saturday", in("2026-03-07", "2.00", "1.00"), map[string]any{"refund_by": "2026-03-27"}, ""},
		{"§5.07(1)", "over Thanksgiving", in("2026-11-20", "2.00", "1.00"), map[string]any{"refund_by": "2026-12-15"}, ""},
		{"§5.07(1)", "negative", in("2026-03-07", "-2.00", "1.00"), nil, EINVALID},
	}
	runRuleTable(t, "5.07/refund", DefaultParams(), rows)
}
