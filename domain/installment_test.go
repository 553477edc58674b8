package domain

import "testing"

func TestFirstInstallmentEdges(t *testing.T) {
	runRuleTable(t, "ch74/first-installment", DefaultParams(), []ruleRow{
		{"Ch. 74", "threshold exactly 100.00", `{"tax_year":2026,"general_tax":"100.00"}`,
			map[string]any{"installments_allowed": true, "first_installment": "50.00", "second_installment": "50.00", "first_due_on": "2027-01-31", "second_due_on": "2027-07-31"}, ""},
		{"Ch. 74", "under the threshold", `{"tax_year":2026,"general_tax":"99.99","special_items":"50.00"}`,
			map[string]any{"installments_allowed": false, "total": "149.99", "first_installment": "149.99", "second_installment": "0.00", "second_due_on": nil}, ""},
		{"Ch. 74", "half rounded half-up at .005", `{"tax_year":2026,"general_tax":"100.01"}`,
			map[string]any{"first_installment": "50.01", "second_installment": "50.00"}, ""},
		{"Ch. 74", "special items all in the first", `{"tax_year":2027,"general_tax":"200.00","special_items":"10.00"}`,
			map[string]any{"first_installment": "110.00", "second_installment": "100.00", "total": "210.00", "first_due_on": "2028-01-31"}, ""},
		{"Ch. 74", "special items do not count toward the threshold", `{"tax_year":2026,"general_tax":"24.60","special_items":"1120.32"}`,
			map[string]any{"installments_allowed": false, "first_installment": "1144.92"}, ""},
		{"Ch. 74", "negative tax", `{"tax_year":2026,"general_tax":"-1"}`, nil, EINVALID},
		{"Ch. 74", "negative special items", `{"tax_year":2026,"general_tax":"1","special_items":"-1"}`, nil, EINVALID},
		{"Ch. 74", "bad year", `{"tax_year":0,"general_tax":"1"}`, nil, EINVALID},
	})
}
