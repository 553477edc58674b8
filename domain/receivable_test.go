package domain

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

func TestReceivableEdges(t *testing.T) {
	const rule = "5.10/receivable"
	rows := []ruleRow{
		{"§5.10", "paid on due date owes nothing",
			`{"billed_on":"2026-03-02","principal":"100.00","as_of":"2026-05-01","payments":[{"on":"2026-04-01","amount":"100.00"}]}`,
			map[string]any{"due_on": "2026-04-01", "interest": "0.00", "interest_months": 0, "status": "paid", "balance": "0.00"}, ""},
		{"§5.10", "month-end clamp due Jan 30",
			`{"billed_on":"2026-12-31","principal":"100.00","as_of":"2027-03-01"}`,
			map[string]any{"due_on": "2027-01-30", "interest_months": 2, "interest": "3.00", "next_interest_on": "2027-03-31"}, ""},
		{"§5.10", "month-end clamp day before month 2",
			`{"billed_on":"2026-12-31","principal":"100.00","as_of":"2027-02-28"}`,
			map[string]any{"interest_months": 1, "next_interest_on": "2027-03-01"}, ""},
		{"§5.10", "months counted from due date, not chained",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-03-31"}`,
			map[string]any{"due_on": "2026-01-31", "interest_months": 2, "next_interest_on": "2026-04-01"}, ""},
		{"§5.10", "leap year month starts Feb 29",
			`{"billed_on":"2027-12-29","principal":"100.00","as_of":"2028-02-29"}`,
			map[string]any{"due_on": "2028-01-28", "interest_months": 2, "interest": "3.00"}, ""},
		{"§5.10", "non-leap year month starts Mar 1",
			`{"billed_on":"2026-12-29","principal":"100.00","as_of":"2027-02-28"}`,
			map[string]any{"due_on": "2027-01-28", "interest_months": 1, "next_interest_on": "2027-03-01"}, ""},
		{"§5.10", "leap year due Jan 31 month 2 starts Mar 1",
			`{"billed_on":"2028-01-01","principal":"100.00","as_of":"2028-02-29"}`,
			map[string]any{"due_on": "2028-01-31", "interest_months": 1, "next_interest_on": "2028-03-01"}, ""},
		{"§5.10", "due Oct 31 cycle this year",
			`{"billed_on":"2026-10-01","principal":"100.00","as_of":"2026-11-01"}`,
			map[string]any{"due_on": "2026-10-31", "penalty_on": "2026-11-02", "tax_roll_on": "2026-11-15", "interest_months": 1}, ""},
		{"§5.10", "due Nov 1 cycle next year",
			`{"billed_on":"2026-10-02","principal":"100.00","as_of":"2026-12-02"}`,
			map[string]any{"due_on": "2026-11-01", "penalty_on": "2027-11-02", "tax_roll_on": "2027-11-15", "interest_months": 2, "penalty": "0.00", "status": "past_due"}, ""},
		{"§5.10", "due Dec 31 cycle next year",
			`{"billed_on":"2026-12-01","principal":"100.00","as_of":"2027-12-01"}`,
			map[string]any{"due_on": "2026-12-31", "tax_roll_on": "2027-11-15", "interest_months": 11, "penalty": "1.50", "status": "tax_roll"}, ""},
		{"§5.10", "month starting Nov 15 is charged",
			`{"billed_on":"2026-09-14","principal":"100.00","as_of":"2026-11-20"}`,
			map[string]any{"due_on": "2026-10-14", "interest_months": 2, "interest": "3.00", "penalty": "1.50", "balance": "104.50", "status": "tax_roll", "next_interest_on": nil}, ""},
		{"§5.10", "month starting Nov 16 is not charged",
			`{"billed_on":"2026-09-15","principal":"100.00","as_of":"2026-12-01"}`,
			map[string]any{"due_on": "2026-10-15", "interest_months": 1, "interest": "1.50", "penalty": "1.50", "balance": "103.00", "next_interest_on": nil}, ""},
		{"§5.10", "as of Nov 15 still past due",
			`{"billed_on":"2026-09-15","principal":"100.00","as_of":"2026-11-15"}`,
			map[string]any{"status": "past_due"}, ""},
		{"§5.10", "as of Nov 16 on the tax roll",
			`{"billed_on":"2026-09-15","principal":"100.00","as_of":"2026-11-16"}`,
			map[string]any{"status": "tax_roll"}, ""},
		{"§5.10", "paid Nov 1 no penalty",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-11-10","payments":[{"on":"2026-11-01","amount":"115.00"}]}`,
			map[string]any{"interest_months": 10, "interest": "15.00", "penalty": "0.00", "balance": "0.00", "status": "paid"}, ""},
		{"§5.10", "paid Nov 2 owes penalty posted first",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-11-10","payments":[{"on":"2026-11-02","amount":"115.00"}]}`,
			map[string]any{"interest_months": 10, "interest": "15.00", "penalty": "1.50", "balance": "1.50", "status": "past_due", "unpaid_principal": "1.50"}, ""},
		{"§5.10", "penalty not before Nov 2",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-11-01"}`,
			map[string]any{"penalty": "0.00", "interest_months": 10}, ""},
		{"§5.10", "payment on Nov 15 accepted",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-11-20","payments":[{"on":"2026-11-15","amount":"10.00"}]}`,
			map[string]any{"paid": "10.00", "status": "tax_roll"}, ""},
		{"§5.10", "payment on Nov 16 refused",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-11-20","payments":[{"on":"2026-11-16","amount":"10.00"}]}`,
			nil, ECONFLICT},
		{"§5.10", "payment after tax roll refused even when paid",
			`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-12-20","payments":[{"on":"2026-01-15","amount":"100.00"},{"on":"2026-12-01","amount":"5.00"}]}`,
			nil, ECONFLICT},
		{"§5.10", "payment on month's first day owes that month",
			`{"billed_on":"2026-03-02","principal":"100.00","as_of":"2026-05-02","payments":[{"on":"2026-04-02","amount":"100.00"}]}`,
			map[string]any{"interest": "1.52", "interest_months": 2, "balance": "1.52"}, ""},
		{"§5.10", "rounding half-up at .005",
			`{"billed_on":"2026-03-02","principal":"3.00","as_of":"2026-04-02"}`,
			map[string]any{"interest": "0.05", "balance": "3.05"}, ""},
		{"§5.10", "month counts when interest rounds to zero",
			`{"billed_on":"2026-03-02","principal":"0.30","as_of":"2026-05-02"}`,
			map[string]any{"interest": "0.00", "interest_months": 2, "balance": "0.30"}, ""},
		{"§5.10", "overpayment",
			`{"billed_on":"2026-05-01","principal":"40.00","as_of":"2026-05-20","payments":[{"on":"2026-05-10","amount":"55.00"}]}`,
			map[string]any{"paid": "55.00", "overpayment": "15.00", "balance": "0.00", "status": "paid", "next_interest_on": nil}, ""},
		{"§5.10", "current until due",
			`{"billed_on":"2026-05-01","principal":"40.00","as_of":"2026-05-31"}`,
			map[string]any{"status": "current", "next_interest_on": "2026-06-01"}, ""},
		{"§5.10", "as of billing day", `{"billed_on":"2026-05-01","principal":"40.00","as_of":"2026-05-01"}`, map[string]any{"status": "current"}, ""},
		{"§5.10", "principal zero", `{"billed_on":"2026-01-01","principal":"0.00","as_of":"2026-02-01"}`, nil, EINVALID},
		{"§5.10", "principal negative", `{"billed_on":"2026-01-01","principal":"-5.00","as_of":"2026-02-01"}`, nil, EINVALID},
		{"§5.10", "as of before billing", `{"billed_on":"2026-01-02","principal":"5.00","as_of":"2026-01-01"}`, nil, EINVALID},
		{"§5.10", "payment before billing", `{"billed_on":"2026-01-02","principal":"5.00","as_of":"2026-02-01","payments":[{"on":"2026-01-01","amount":"1"}]}`, nil, EINVALID},
		{"§5.10", "payment after as of", `{"billed_on":"2026-01-02","principal":"5.00","as_of":"2026-02-01","payments":[{"on":"2026-02-02","amount":"1"}]}`, nil, EINVALID},
		{"§5.10", "payment zero", `{"billed_on":"2026-01-02","principal":"5.00","as_of":"2026-02-01","payments":[{"on":"2026-01-05","amount":"0.00"}]}`, nil, EINVALID},
	}
	runRuleTable(t, rule, DefaultParams(), rows)
}

// TestReceivableAllocations checks that payments apply in date order (same
// day in input order) while allocations come back in input order, and that
// the postings list every month and the penalty in date order.
func TestReceivableAllocations(t *testing.T) {
	in := ReceivableInput{
		BilledOn: MustDate("2026-05-01"), Principal: MustMoney("40.00"), AsOf: MustDate("2026-05-20"),
		Payments: []DatedAmount{
			{MustDate("2026-05-10"), MustMoney("40.00")},
			{MustDate("2026-05-01"), MustMoney("10.00")},
			{MustDate("2026-05-10"), MustMoney("1.00")},
		},
	}
	r, err := ComputeReceivable(in, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []Allocation{
		{Principal: MustMoney("30.00"), Overpayment: MustMoney("10.00")},
		{Principal: MustMoney("10.00")},
		{Overpayment: MustMoney("1.00")},
	}
	if !reflect.DeepEqual(mustJSON(t, r.Allocations), mustJSON(t, want)) {
		t.Errorf("allocations = %s, want %s", mustJSON(t, r.Allocations), mustJSON(t, want))
	}

	in = ReceivableInput{BilledOn: MustDate("2026-01-01"), Principal: MustMoney("100.00"), AsOf: MustDate("2026-12-01"),
		Payments: []DatedAmount{{MustDate("2026-03-01"), MustMoney("50.00")}}}
	r, err = ComputeReceivable(in, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	// Feb 1 and Mar 1 at 1.50; the payment of Mar 1 comes after that day's
	// posting: 3.00 interest, 47.00 principal; then 53.00 × 1.5% = 0.80 for
	// eight months; the penalty on Nov 2 is 0.80.
	if r.InterestMonths != 10 || r.Interest.String() != "9.40" || r.Penalty.String() != "0.80" {
		t.Fatalf("months %d interest %s penalty %s", r.InterestMonths, r.Interest, r.Penalty)
	}
	if a := r.Allocations[0]; a.Interest.String() != "3.00" || a.Principal.String() != "47.00" {
		t.Errorf("allocation %+v", a)
	}
	var last Date
	for i, ps := range r.Postings {
		if ps.On.Before(last) {
			t.Errorf("posting %d out of order", i)
		}
		last = ps.On
	}
	// Ten months, the last on Nov 1 on a base of 53.00, then the penalty.
	if len(r.Postings) != 11 || r.Postings[9].Month != 10 || r.Postings[9].Base.String() != "53.00" ||
		r.Postings[10].Kind != PostingPenalty || r.Postings[10].On != MustDate("2026-11-02") {
		t.Errorf("postings = %s", mustJSON(t, r.Postings))
	}
}

// TestReceivableRateInForce checks that each month uses the rate in force on
// the day it starts, and the penalty the rate in force on November 2.
func TestReceivableRateInForce(t *testing.T) {
	o, err := ParseParams("o.txt", []byte("2026-06-01 receivable_interest 0.02\n2026-11-02 receivable_penalty 0.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams().Merge(o)
	out, err := Evaluate("5.10/receivable", json.RawMessage(`{"billed_on":"2026-01-01","principal":"100.00","as_of":"2026-12-01"}`), p)
	if err != nil {
		t.Fatal(err)
	}
	r := out.(Receivable)
	// Feb–May at 1.50, Jun–Nov at 2.00; penalty 10.00.
	if r.Interest.String() != "18.00" || r.Penalty.String() != "10.00" {
		t.Fatalf("interest %s penalty %s", r.Interest, r.Penalty)
	}
}

// genReceivable draws a bill with up to six payments, all dated between the
// billing date and the earlier of the as-of date and the tax-roll date.
func genReceivable(t *rapid.T) ReceivableInput {
	base := MustDate("2025-01-01")
	in := ReceivableInput{
		BilledOn:  base.AddDays(rapid.IntRange(0, 1100).Draw(t, "billed")),
		Principal: Cents(rapid.Int64Range(1, 5_000_000).Draw(t, "principal")),
	}
	in.AsOf = in.BilledOn.AddDays(rapid.IntRange(0, 800).Draw(t, "as_of"))
	bare, err := ComputeReceivable(ReceivableInput{BilledOn: in.BilledOn, Principal: in.Principal, AsOf: in.AsOf}, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	last := in.AsOf
	if last.After(bare.TaxRollOn) {
		last = bare.TaxRollOn
	}
	span := in.BilledOn.DaysUntil(last)
	for range rapid.IntRange(0, 6).Draw(t, "payments") {
		in.Payments = append(in.Payments, DatedAmount{
			On:     in.BilledOn.AddDays(rapid.IntRange(0, span).Draw(t, "on")),
			Amount: Cents(rapid.Int64Range(1, in.Principal.Cents()+2000).Draw(t, "amount")),
		})
	}
	return in
}

// TestReceivableProperties checks the invariants of §5.10 on random bills:
// the balance is never negative; paid = applied + overpayment; the balance
// is principal + interest + penalty − applied; interest is the sum of its
// postings; nothing posts after the tax-roll date or the as-of date; an
// overpaid bill has nothing left to pay.
func TestReceivableProperties(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		in := genReceivable(t)
		r, err := ComputeReceivable(in, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Balance.IsNegative() || r.Overpayment.IsNegative() {
			t.Fatalf("balance %s overpayment %s", r.Balance, r.Overpayment)
		}
		var paid, applied, over Money
		for i, a := range r.Allocations {
			paid = paid.Add(in.Payments[i].Amount)
			if !a.Applied().Add(a.Overpayment).Equal(in.Payments[i].Amount) {
				t.Fatalf("payment %d of %s allocated %+v", i, in.Payments[i].Amount, a)
			}
			applied = applied.Add(a.Applied())
			over = over.Add(a.Overpayment)
		}
		if !r.Paid.Equal(paid) || !r.Paid.Equal(applied.Add(r.Overpayment)) || !over.Equal(r.Overpayment) {
			t.Fatalf("paid %s, applied %s, overpayment %s", r.Paid, applied, r.Overpayment)
		}
		if want := SumMoney(in.Principal, r.Interest, r.Penalty).Sub(applied); !r.Balance.Equal(want) {
			t.Fatalf("balance %s, want %s", r.Balance, want)
		}
		var interest Money
		months := 0
		for _, ps := range r.Postings {
			if ps.On.After(r.TaxRollOn) || ps.On.After(in.AsOf) || !ps.On.After(r.DueOn) {
				t.Fatalf("posting %+v outside (due %s, min(as of %s, tax roll %s)]", ps, r.DueOn, in.AsOf, r.TaxRollOn)
			}
			if ps.Kind == PostingInterest {
				interest = interest.Add(ps.Amount)
				months++
			}
		}
		if !interest.Equal(r.Interest) || months != r.InterestMonths {
			t.Fatalf("postings %s, interest %s in %d months", interest, r.Interest, r.InterestMonths)
		}
		if r.Overpayment.IsPositive() && !r.Balance.IsZero() {
			t.Fatalf("overpaid by %s with %s still owed", r.Overpayment, r.Balance)
		}
		if !r.NextInterestOn.IsZero() && (r.NextInterestOn.After(r.TaxRollOn) || !r.NextInterestOn.After(in.AsOf)) {
			t.Fatalf("next interest %s", r.NextInterestOn)
		}
	})
}

// TestReceivableTaxRollConflict checks that any payment dated after the
// tax-roll date is refused with ECONFLICT, whatever else the bill holds.
func TestReceivableTaxRollConflict(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		in := genReceivable(t)
		r, err := ComputeReceivable(in, p)
		if err != nil {
			t.Fatal(err)
		}
		late := r.TaxRollOn.AddDays(rapid.IntRange(1, 60).Draw(t, "late"))
		in.AsOf = late
		in.Payments = append(in.Payments, DatedAmount{On: late, Amount: MustMoney("1.00")})
		if _, err := ComputeReceivable(in, p); ErrorCode(err) != ECONFLICT {
			t.Fatalf("payment on %s after tax roll %s: %v", late, r.TaxRollOn, err)
		}
	})
}
