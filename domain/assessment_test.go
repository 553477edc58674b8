package domain

import (
	"math/big"
	"sort"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"
)

func TestApportionEdges(t *testing.T) {
	share := func(parcel, assessment, village string) map[string]any {
		return map[string]any{"parcel": parcel, "assessment": assessment, "village_pays": village}
	}
	rows := []ruleRow{
		{"§5.14", "thirds leftover cent to the first", `{"total_cost":"100.00","parcels":[{"id":"a","units":"1"},{"id":"b","units":"1"},{"id":"c","units":"1"}]}`,
			map[string]any{"assessments": []any{share("a", "33.34", "0.00"), share("b", "33.33", "0.00"), share("c", "33.33", "0.00")}}, ""},
		{"§5.14", "ties to the earlier parcel", `{"total_cost":"0.02","parcels":[{"id":"a","units":"1"},{"id":"b","units":"1"},{"id":"c","units":"1"}]}`,
			map[string]any{"assessments": []any{share("a", "0.01", "0.00"), share("b", "0.01", "0.00"), share("c", "0.00", "0.00")}}, ""},
		{"§5.14", "largest remainder not the first", `{"total_cost":"1.00","parcels":[{"id":"a","units":"1"},{"id":"b","units":"4"},{"id":"c","units":"1"}]}`,
			map[string]any{"assessments": []any{share("a", "0.17", "0.00"), share("b", "0.67", "0.00"), share("c", "0.16", "0.00")}}, ""},
		{"§5.14", "remainders compared exactly", `{"total_cost":"0.01","parcels":[{"id":"a","units":"333333"},{"id":"b","units":"333334"},{"id":"c","units":"333333"}]}`,
			map[string]any{"assessments": []any{share("a", "0.00", "0.00"), share("b", "0.01", "0.00"), share("c", "0.00", "0.00")}}, ""},
		{"§5.14", "fractional units", `{"total_cost":"100.00","parcels":[{"id":"a","units":"0.5"},{"id":"b","units":1.5}]}`,
			map[string]any{"assessments": []any{share("a", "25.00", "0.00"), share("b", "75.00", "0.00")}}, ""},
		{"§5.14", "exempt parcel paid by the village", `{"total_cost":"90.00","parcels":[{"id":"a","units":"1"},{"id":"b","units":"2","exempt":true}]}`,
			map[string]any{"assessments": []any{share("a", "30.00", "0.00"), share("b", "0.00", "60.00")}, "village_pays": "60.00"}, ""},
		{"§5.14", "zero-unit parcel", `{"total_cost":"10.00","parcels":[{"id":"a","units":"0"},{"id":"b","units":"2"}]}`,
			map[string]any{"assessments": []any{share("a", "0.00", "0.00"), share("b", "10.00", "0.00")}}, ""},
		{"§5.14", "no parcels", `{"total_cost":"10.00","parcels":[]}`, nil, EINVALID},
		{"§5.14", "units sum to zero", `{"total_cost":"10.00","parcels":[{"id":"a","units":"0"}]}`, nil, EINVALID},
		{"§5.14", "negative units", `{"total_cost":"10.00","parcels":[{"id":"a","units":"-1"},{"id":"b","units":"2"}]}`, nil, EINVALID},
		{"§5.14", "units with exponent", `{"total_cost":"10.00","parcels":[{"id":"a","units":"1e2"}]}`, nil, EINVALID},
		{"§5.14", "repeated parcel", `{"total_cost":"10.00","parcels":[{"id":"a","units":"1"},{"id":"a","units":"1"}]}`, nil, EINVALID},
		{"§5.14", "negative cost", `{"total_cost":"-10.00","parcels":[{"id":"a","units":"1"}]}`, nil, EINVALID},
	}
	runRuleTable(t, "5.14/apportion", DefaultParams(), rows)
}

func TestAdjustEdges(t *testing.T) {
	adj := func(parcel, amount, refund string) map[string]any {
		return map[string]any{"parcel": parcel, "amount": amount, "refund": refund}
	}
	rows := []ruleRow{
		{"§5.14(10)", "reduced in proportion with refund", `{"actual_cost":"90000.00","assessments":[{"id":"a","amount":"40000.00","paid":"40000.00"},{"id":"b","amount":"35000.00","paid":"0"},{"id":"c","amount":"25000.00","paid":"10000.00"}]}`,
			map[string]any{"reduced": true, "assessments": []any{adj("a", "36000.00", "4000.00"), adj("b", "31500.00", "0.00"), adj("c", "22500.00", "0.00")}}, ""},
		{"§5.14(10)", "actual equal to levied not reduced", `{"actual_cost":"100.00","assessments":[{"id":"a","amount":"60.00"},{"id":"b","amount":"40.00","paid":"50.00"}]}`,
			map[string]any{"reduced": false, "assessments": []any{adj("a", "60.00", "0.00"), adj("b", "40.00", "10.00")}}, ""},
		{"§5.14(10)", "one cent below levied", `{"actual_cost":"99.99","assessments":[{"id":"a","amount":"50.00"},{"id":"b","amount":"50.00"}]}`,
			map[string]any{"reduced": true, "assessments": []any{adj("a", "50.00", "0.00"), adj("b", "49.99", "0.00")}}, ""},
		{"§5.14(10)", "actual zero", `{"actual_cost":"0","assessments":[{"id":"a","amount":"50.00","paid":"50.00"}]}`,
			map[string]any{"reduced": true, "assessments": []any{adj("a", "0.00", "50.00")}}, ""},
		{"§5.14(10)", "no assessments", `{"actual_cost":"1","assessments":[]}`, nil, EINVALID},
		{"§5.14(10)", "negative paid", `{"actual_cost":"1","assessments":[{"id":"a","amount":"5","paid":"-1"}]}`, nil, EINVALID},
	}
	runRuleTable(t, "5.14/adjust", DefaultParams(), rows)
}

func TestHearingDates(t *testing.T) {
	runRuleTable(t, "5.14/hearing-window", DefaultParams(), []ruleRow{
		{"§5.14(4)", "across the year end", `{"notice_on":"2026-12-20"}`, map[string]any{"earliest_hearing": "2026-12-30", "latest_hearing": "2027-01-29"}, ""},
		{"§5.14(4)", "leap day", `{"notice_on":"2028-02-19"}`, map[string]any{"earliest_hearing": "2028-02-29", "latest_hearing": "2028-03-30"}, ""},
		{"§5.14(4)", "common year", `{"notice_on":"2027-02-19"}`, map[string]any{"earliest_hearing": "2027-03-01", "latest_hearing": "2027-03-31"}, ""},
		{"§5.14(4)", "missing", `{}`, nil, EINVALID},
	})
	runRuleTable(t, "5.14/repair-notice", DefaultParams(), []ruleRow{
		{"§5.14(13)", "early March", `{"hearing_on":"2027-03-01"}`, map[string]any{"publish_or_post_by": "2027-02-09", "mail_by": "2027-02-19"}, ""},
		{"§5.14(13)", "leap day", `{"hearing_on":"2028-03-10"}`, map[string]any{"publish_or_post_by": "2028-02-19", "mail_by": "2028-02-29"}, ""},
		{"§5.14(13)", "across the year", `{"hearing_on":"2027-01-05"}`, map[string]any{"publish_or_post_by": "2026-12-16", "mail_by": "2026-12-26"}, ""},
	})
}

// TestApportionProperties checks, on random districts, that the shares sum
// exactly to the cost and equal a reference largest-remainder computation on
// exact fractions (math/big.Rat), ties to the earlier parcel.
func TestApportionProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 25).Draw(t, "parcels")
		cost := Cents(rapid.Int64Range(0, 100_000_000_00).Draw(t, "cents"))
		in := ApportionInput{TotalCost: cost}
		for i := range n {
			milli := rapid.Int64Range(0, 2_000_000).Draw(t, "milliunits")
			if i == 0 && milli == 0 {
				milli = 1
			}
			in.Parcels = append(in.Parcels, DistrictParcel{
				ID:     "p" + strconv.Itoa(i),
				Units:  decimal.New(milli, -3),
				Exempt: rapid.Bool().Draw(t, "exempt"),
			})
		}
		r, err := Apportion(in, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		var sum, village Money
		for i, s := range r.Assessments {
			sum = sum.Add(s.Assessment).Add(s.VillagePays)
			village = village.Add(s.VillagePays)
			if in.Parcels[i].Exempt && !s.Assessment.IsZero() || !in.Parcels[i].Exempt && !s.VillagePays.IsZero() {
				t.Fatalf("parcel %d: %+v", i, s)
			}
		}
		if !sum.Equal(cost) {
			t.Fatalf("shares sum to %s, cost %s", sum, cost)
		}
		if !village.Equal(r.VillagePays) {
			t.Fatalf("village pays %s, shares say %s", r.VillagePays, village)
		}
		want := referenceShares(cost, in.Parcels)
		for i, s := range r.Assessments {
			if got := s.Assessment.Add(s.VillagePays); got.Cents() != want[i] {
				t.Fatalf("parcel %d: %s, reference %d cents", i, got, want[i])
			}
		}
	})
}

// referenceShares is largest remainder written directly on big.Rat.
func referenceShares(cost Money, parcels []DistrictParcel) []int64 {
	total := new(big.Rat)
	units := make([]*big.Rat, len(parcels))
	for i, pc := range parcels {
		units[i], _ = new(big.Rat).SetString(pc.Units.String())
		total.Add(total, units[i])
	}
	cents := new(big.Rat).SetInt64(cost.Cents())
	out := make([]int64, len(parcels))
	frac := make([]*big.Rat, len(parcels))
	left := cost.Cents()
	for i, u := range units {
		exact := new(big.Rat).Quo(new(big.Rat).Mul(cents, u), total)
		fl := new(big.Int).Quo(exact.Num(), exact.Denom())
		out[i] = fl.Int64()
		left -= out[i]
		frac[i] = new(big.Rat).Sub(exact, new(big.Rat).SetInt(fl))
	}
	idx := make([]int, len(parcels))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return frac[idx[a]].Cmp(frac[idx[b]]) > 0 })
	for _, i := range idx[:left] {
		out[i]++
	}
	return out
}

// TestAdjustProperties checks that a reduction always sums to the actual
// cost, never raises an assessment, and refunds exactly what was paid above
// the new amount.
func TestAdjustProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "assessments")
		var in AdjustInput
		var levied Money
		for i := range n {
			amt := Cents(rapid.Int64Range(0, 10_000_000).Draw(t, "amount"))
			in.Assessments = append(in.Assessments, LeviedAssessment{
				ID: "p" + strconv.Itoa(i), Amount: amt, Paid: Cents(rapid.Int64Range(0, 10_000_000).Draw(t, "paid")),
			})
			levied = levied.Add(amt)
		}
		in.ActualCost = Cents(rapid.Int64Range(0, levied.Cents()+100).Draw(t, "actual"))
		r, err := AdjustAssessments(in, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		if r.Reduced != in.ActualCost.LessThan(levied) {
			t.Fatalf("reduced = %v, actual %s levied %s", r.Reduced, in.ActualCost, levied)
		}
		var sum Money
		for i, a := range r.Assessments {
			sum = sum.Add(a.Amount)
			if a.Amount.GreaterThan(in.Assessments[i].Amount) {
				t.Fatalf("assessment %d raised from %s to %s", i, in.Assessments[i].Amount, a.Amount)
			}
			if want := in.Assessments[i].Paid.Sub(a.Amount).Max(Money{}); !a.Refund.Equal(want) {
				t.Fatalf("refund %d = %s, want %s", i, a.Refund, want)
			}
		}
		if r.Reduced && !sum.Equal(in.ActualCost) || !r.Reduced && !sum.Equal(levied) {
			t.Fatalf("amounts sum to %s; actual %s levied %s", sum, in.ActualCost, levied)
		}
	})
}
