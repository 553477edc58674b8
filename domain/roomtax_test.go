package domain

import (
	"testing"

	"pgregory.net/rapid"
)

func TestRoomTaxEdges(t *testing.T) {
	rows := []ruleRow{
		{"§5.22", "Q1 due Apr 30", `{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-30","payments":[{"on":"2026-04-30","amount":"70.00"}],"as_of":"2026-06-30"}`,
			map[string]any{"due_on": "2026-04-30", "effective_due_on": "2026-04-30", "tax": "70.00", "interest": "0.00", "late_filing_fee": "0.00", "balance": "0.00", "delinquent": false}, ""},
		{"§5.22", "Q4 due Jan 31 next year", `{"period":"2026-Q4","gross_receipts":"0","filed_on":"2027-01-31","as_of":"2027-01-31"}`,
			map[string]any{"due_on": "2027-01-31", "tax": "0.00"}, ""},
		{"§5.22", "Q2 due Jul 31", `{"period":"2026-Q2","gross_receipts":"0","as_of":"2026-07-01"}`, map[string]any{"due_on": "2026-07-31"}, ""},
		{"§5.22", "Q3 due Oct 31", `{"period":"2026-Q3","gross_receipts":"0","as_of":"2026-07-01"}`, map[string]any{"due_on": "2026-10-31"}, ""},
		{"§5.22", "interest from the day after due: paid May 31 one month",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","payments":[{"on":"2026-05-31","amount":"70.00"}],"as_of":"2026-06-30"}`,
			map[string]any{"interest": "0.70", "balance": "0.70", "delinquent": true}, ""},
		{"§5.22", "interest paid May 20 one month not two",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","payments":[{"on":"2026-05-20","amount":"70.00"}],"as_of":"2026-06-30"}`,
			map[string]any{"interest": "0.70", "delinquent": false}, ""},
		{"§5.22", "interest paid Jun 1 two months",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","payments":[{"on":"2026-06-01","amount":"70.00"}],"as_of":"2026-06-30"}`,
			map[string]any{"interest": "1.40", "balance": "1.40", "delinquent": true}, ""},
		{"§5.22", "delinquency deadline exactly 30 days after due",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","payments":[{"on":"2026-05-30","amount":"70.00"}],"as_of":"2026-06-30"}`,
			map[string]any{"delinquent": false}, ""},
		{"§5.22", "as of the deadline not yet delinquent",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","as_of":"2026-05-30"}`,
			map[string]any{"delinquent": false, "interest": "0.70"}, ""},
		{"§5.22", "as of the day after the deadline delinquent",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-20","as_of":"2026-05-31"}`,
			map[string]any{"delinquent": true}, ""},
		{"§5.22", "late return delinquent from due date, later payment does not clear",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-05-05","payments":[{"on":"2026-05-05","amount":"70.00"}],"as_of":"2026-06-01"}`,
			map[string]any{"delinquent": true, "late_filing_fee": "100.00", "interest": "0.70", "balance": "100.70"}, ""},
		{"§5.22", "payments apply to tax before the fee",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-05-05","payments":[{"on":"2026-04-25","amount":"70.00"}],"as_of":"2026-06-01"}`,
			map[string]any{"interest": "0.00", "late_filing_fee": "100.00", "balance": "100.00", "delinquent": false}, ""},
		{"§5.22", "never filed owes the fee after due",
			`{"period":"2026-Q1","gross_receipts":"1000.00","as_of":"2026-05-01"}`,
			map[string]any{"late_filing_fee": "100.00", "interest": "0.70", "balance": "170.70", "delinquent": true}, ""},
		{"§5.22", "not filed on the due date no fee yet",
			`{"period":"2026-Q1","gross_receipts":"1000.00","as_of":"2026-04-30"}`,
			map[string]any{"late_filing_fee": "0.00", "interest": "0.00", "delinquent": false, "balance": "70.00"}, ""},
		{"§5.22", "filed on the due date no fee",
			`{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-30","as_of":"2026-05-01"}`,
			map[string]any{"late_filing_fee": "0.00"}, ""},
		{"§5.22", "extension moves the due date",
			`{"period":"2026-Q1","gross_receipts":"1000.00","extended_to":"2026-05-30","filed_on":"2026-05-30","as_of":"2026-06-01"}`,
			map[string]any{"effective_due_on": "2026-05-30", "late_filing_fee": "0.00", "interest": "1.40"}, ""}, // B May 31 + 1 = Jun 30 < E Jul 1
		{"§5.22", "extension past one clamped month", `{"period":"2026-Q1","gross_receipts":"1","extended_to":"2026-05-31","as_of":"2026-06-01"}`, nil, EINVALID},
		{"§5.22", "extension on the due date", `{"period":"2026-Q1","gross_receipts":"1","extended_to":"2026-04-30","as_of":"2026-06-01"}`, nil, EINVALID},
		{"§5.22", "extension to Feb 29 in a leap year", `{"period":"2027-Q4","gross_receipts":"1","extended_to":"2028-02-29","as_of":"2028-03-01"}`,
			map[string]any{"due_on": "2028-01-31", "effective_due_on": "2028-02-29"}, ""},
		{"§5.22", "extension to Mar 1 in a leap year", `{"period":"2027-Q4","gross_receipts":"1","extended_to":"2028-03-01","as_of":"2028-03-01"}`, nil, EINVALID},
		{"§5.22", "extension to Mar 1 in a common year", `{"period":"2026-Q4","gross_receipts":"1","extended_to":"2027-03-01","as_of":"2027-03-01"}`, nil, EINVALID},
		{"§5.22", "interest months from a clamped start",
			`{"period":"2027-Q4","gross_receipts":"1000.00","extended_to":"2028-02-29","filed_on":"2028-02-29","as_of":"2028-04-01"}`,
			map[string]any{"interest": "1.40"}, ""}, // B = Mar 1, E = May 1: two months
		{"§5.22", "tax rounding half-up at .005", `{"period":"2026-Q1","gross_receipts":"1.50","as_of":"2026-04-01"}`, map[string]any{"tax": "0.11"}, ""},
		{"§5.22", "interest rounding half-up at .005",
			`{"period":"2026-Q1","gross_receipts":"7.14","filed_on":"2026-04-20","as_of":"2026-05-15"}`,
			map[string]any{"tax": "0.50", "interest": "0.01", "balance": "0.51"}, ""},
		{"§5.22", "exemptions valid and rejected",
			`{"period":"2026-Q1","gross_receipts":"1000.00","as_of":"2026-04-01","exempt_sales":[
				{"amount":"100.00","entity":"federal","billed_to_entity":true,"document":"purchase_order"},
				{"amount":"100.00","entity":"nonprofit","billed_to_entity":true,"document":"certificate_number"},
				{"amount":"100.00","entity":"local_government","billed_to_entity":true},
				{"amount":"100.00","entity":"state","billed_to_entity":true,"document":"letter"},
				{"amount":"100.00","entity":"nonprofit","billed_to_entity":true,"document":"purchase_order"},
				{"amount":"100.00","entity":"state","document":"purchase_order"}]}`,
			map[string]any{"exempt_sales": "200.00", "rejected_exemptions": []int{2, 3, 4, 5}, "taxable_receipts": "800.00", "tax": "56.00"}, ""},
		{"§5.22", "exemptions equal to gross", `{"period":"2026-Q1","gross_receipts":"100.00","as_of":"2026-06-01","filed_on":"2026-04-01","exempt_sales":[{"amount":"100.00","entity":"state","billed_to_entity":true,"document":"purchase_order"}]}`,
			map[string]any{"tax": "0.00", "delinquent": false, "balance": "0.00"}, ""},
		{"§5.22", "exemptions above gross", `{"period":"2026-Q1","gross_receipts":"99.99","as_of":"2026-06-01","exempt_sales":[{"amount":"100.00","entity":"state","billed_to_entity":true,"document":"purchase_order"}]}`, nil, EINVALID},
		{"§5.22", "rejected exemptions above gross are fine", `{"period":"2026-Q1","gross_receipts":"99.99","as_of":"2026-04-01","exempt_sales":[{"amount":"100.00","entity":"state","billed_to_entity":false,"document":"purchase_order"}]}`,
			map[string]any{"tax": "7.00", "rejected_exemptions": []int{0}}, ""},
		{"§5.22", "unknown entity", `{"period":"2026-Q1","gross_receipts":"1","as_of":"2026-06-01","exempt_sales":[{"amount":"1","entity":"tribal","billed_to_entity":true,"document":"purchase_order"}]}`, nil, EINVALID},
		{"§5.22", "overpayment", `{"period":"2026-Q1","gross_receipts":"1000.00","filed_on":"2026-04-01","payments":[{"on":"2026-04-01","amount":"100.00"}],"as_of":"2026-06-01"}`,
			map[string]any{"paid": "100.00", "overpayment": "30.00", "balance": "0.00"}, ""},
		{"§5.22", "period Q5", `{"period":"2026-Q5","gross_receipts":"1","as_of":"2026-06-01"}`, nil, EINVALID},
		{"§5.22", "period without year", `{"period":"Q1","gross_receipts":"1","as_of":"2026-06-01"}`, nil, EINVALID},
		{"§5.22", "payment zero", `{"period":"2026-Q1","gross_receipts":"1","as_of":"2026-06-01","payments":[{"on":"2026-05-01","amount":"0"}]}`, nil, EINVALID},
		{"§5.22", "payment after as of", `{"period":"2026-Q1","gross_receipts":"1","as_of":"2026-06-01","payments":[{"on":"2026-06-02","amount":"1"}]}`, nil, EINVALID},
		{"§5.22", "filed after as of", `{"period":"2026-Q1","gross_receipts":"1","as_of":"2026-06-01","filed_on":"2026-06-02"}`, nil, EINVALID},
		{"§5.22", "negative gross", `{"period":"2026-Q1","gross_receipts":"-1","as_of":"2026-06-01"}`, nil, EINVALID},
	}
	runRuleTable(t, "5.22/room-tax-return", DefaultParams(), rows)
}

func TestInterestMonths(t *testing.T) {
	for _, tt := range []struct {
		due, paid string
		want      int
	}{
		{"2026-04-30", "2026-05-01", 1},
		{"2026-04-30", "2026-05-31", 1},
		{"2026-04-30", "2026-06-01", 2},
		{"2026-01-31", "2026-02-28", 1},
		{"2026-01-31", "2026-03-01", 2},
		{"2026-05-30", "2026-05-31", 1},  // B May 31, E Jun 1
		{"2026-05-30", "2026-06-30", 2},  // B May 31 + 1 = Jun 30 < Jul 1
		{"2026-01-30", "2026-02-15", 2},  // B Jan 31 + 1 = Feb 28 < Mar 1
		{"2026-12-31", "2027-12-31", 12}, // B Jan 1, E Jan 1 next year
	} {
		if got := interestMonths(MustDate(tt.due), MustDate(tt.paid)); got != tt.want {
			t.Errorf("§5.22/interestMonths(%s, %s) = %d, want %d", tt.due, tt.paid, got, tt.want)
		}
	}
}

// TestRoomTaxProperties checks on random returns that the balance and the
// overpayment are never negative nor both positive, that they settle tax +
// fee + interest against what was paid, and that interest is never charged
// when everything was paid on time.
func TestRoomTaxProperties(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		q := Quarter{rapid.IntRange(2025, 2027).Draw(t, "year"), rapid.IntRange(1, 4).Draw(t, "q")}
		in := RoomTaxInput{Period: q, GrossReceipts: Cents(rapid.Int64Range(0, 10_000_000).Draw(t, "gross"))}
		start := q.Last().AddDays(1)
		in.AsOf = start.AddDays(rapid.IntRange(0, 400).Draw(t, "as_of"))
		span := start.DaysUntil(in.AsOf)
		if rapid.Bool().Draw(t, "filed") {
			in.FiledOn = start.AddDays(rapid.IntRange(0, span).Draw(t, "filed_on"))
		}
		for range rapid.IntRange(0, 4).Draw(t, "payments") {
			in.Payments = append(in.Payments, DatedAmount{
				On:     start.AddDays(rapid.IntRange(0, span).Draw(t, "on")),
				Amount: Cents(rapid.Int64Range(1, 800_000).Draw(t, "amount")),
			})
		}
		r, err := ComputeRoomTaxReturn(in, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Balance.IsNegative() || r.Overpayment.IsNegative() || r.Balance.IsPositive() && r.Overpayment.IsPositive() {
			t.Fatalf("balance %s overpayment %s", r.Balance, r.Overpayment)
		}
		if got, want := r.Balance.Sub(r.Overpayment), SumMoney(r.Tax, r.LateFilingFee, r.Interest).Sub(r.Paid); !got.Equal(want) {
			t.Fatalf("balance − overpayment = %s, want %s", got, want)
		}
		var onTime Money
		for _, pay := range in.Payments {
			if !pay.On.After(r.EffectiveDueOn) {
				onTime = onTime.Add(pay.Amount)
			}
		}
		if !onTime.LessThan(r.Tax) && !r.Interest.IsZero() {
			t.Fatalf("tax %s paid on time (%s) but interest %s", r.Tax, onTime, r.Interest)
		}
	})
}
