package domain

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"
)

// drawMoney draws an amount in either form: cents near zero, anywhere in
// an int64 or at its edges, or past an int64 (held as a decimal); its
// decimal, the reference the operations are checked against, comes with
// it.
func drawMoney(rt *rapid.T, label string) (Money, decimal.Decimal) {
	cents := rapid.OneOf(
		rapid.Int64Range(-100_000, 100_000),
		rapid.Int64(),
		rapid.SampledFrom([]int64{0, 1, -1, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 / 2, math.MinInt64 / 2}),
	).Draw(rt, label+" cents")
	d := decimal.New(cents, -2)
	if rapid.IntRange(0, 3).Draw(rt, label+" past int64") == 0 {
		d = d.Mul(decimal.New(1, rapid.Int32Range(1, 12).Draw(rt, label+" scale")))
	}
	return MoneyFromDecimal(d), d
}

// canonical fails rt unless m is held as cents whenever its cents fit an
// int64, and as a decimal to the cent otherwise.
func canonical(rt *rapid.T, what string, m Money) {
	if m.big == nil {
		return
	}
	if m.big.Shift(2).BigInt().IsInt64() {
		rt.Fatalf("%s = %v is held as a decimal though its cents fit an int64", what, m.big)
	}
	if !m.big.Shift(2).IsInteger() {
		rt.Fatalf("%s = %v is not to the cent", what, m.big)
	}
}

// TestMoneyAsDecimal checks every operation on Money against the same
// operation on shopspring/decimal, which Money held before it kept cents:
// sums, differences and products past an int64 included, and every
// result in its canonical form.
func TestMoneyAsDecimal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a, da := drawMoney(rt, "a")
		b, db := drawMoney(rt, "b")
		canonical(rt, "a", a)
		if !a.Decimal().Equal(da) {
			rt.Fatalf("MoneyFromDecimal(%v).Decimal() = %v", da, a.Decimal())
		}
		same := func(op string, got Money, want decimal.Decimal) {
			rt.Helper()
			canonical(rt, op, got)
			if !got.Decimal().Equal(want) {
				rt.Fatalf("%s = %v, decimal gives %v", op, got.Decimal(), want)
			}
			if got.String() != want.StringFixed(2) {
				rt.Fatalf("%s.String() = %q, decimal gives %q", op, got.String(), want.StringFixed(2))
			}
			j, _ := json.Marshal(got)
			if w, _ := json.Marshal(want.StringFixed(2)); string(j) != string(w) {
				rt.Fatalf("json of %s = %s, want %s", op, j, w)
			}
			var back Money
			if len(want.Truncate(0).Abs().String()) <= 12 {
				if err := json.Unmarshal(j, &back); err != nil || !back.Equal(got) || back.big != nil {
					rt.Fatalf("%s read back from %s: %+v, %v", op, j, back, err)
				}
			}
		}
		same("a+b", a.Add(b), da.Add(db))
		same("a-b", a.Sub(b), da.Sub(db))
		same("-a", a.Neg(), da.Neg())
		n := rapid.OneOf(rapid.Int64Range(-1000, 1000), rapid.Int64(), rapid.SampledFrom([]int64{math.MinInt64, -1, 0, 1, math.MaxInt64})).Draw(rt, "n")
		same("a×n", a.MulInt(n), da.Mul(decimal.NewFromInt(n)))
		r := Rate{decimal.New(rapid.Int64Range(0, 1_000_000).Draw(rt, "rate"), -rapid.Int32Range(0, 8).Draw(rt, "rate places"))}
		same("a×r", a.MulRate(r), da.Mul(r.d).Round(2))
		same("sum", SumMoney(a, b, a), da.Add(db).Add(da))

		c := da.Cmp(db)
		if a.Cmp(b) != c || a.Equal(b) != (c == 0) || a.LessThan(b) != (c < 0) || a.GreaterThan(b) != (c > 0) {
			rt.Fatalf("comparing %v and %v: Cmp %d, Equal %v, LessThan %v, GreaterThan %v; decimal's Cmp %d", da, db, a.Cmp(b), a.Equal(b), a.LessThan(b), a.GreaterThan(b), c)
		}
		if a.big == nil && b.big == nil && (a == b) != (c == 0) {
			rt.Fatalf("%v == %v is %v, decimal's Cmp %d: equal amounts held as cents must be equal values", da, db, a == b, c)
		}
		if min, max := a.Min(b), a.Max(b); !min.Decimal().Equal(decimal.Min(da, db)) || !max.Decimal().Equal(decimal.Max(da, db)) {
			rt.Fatalf("Min, Max of %v and %v: %v, %v", da, db, min.Decimal(), max.Decimal())
		}
		if a.IsZero() != da.IsZero() || a.IsNegative() != da.IsNegative() || a.IsPositive() != da.IsPositive() {
			rt.Fatalf("%v: IsZero %v, IsNegative %v, IsPositive %v", da, a.IsZero(), a.IsNegative(), a.IsPositive())
		}
		if a.Cents() != da.Mul(decimal.NewFromInt(100)).IntPart() {
			rt.Fatalf("%v.Cents() = %d, decimal gives %d", da, a.Cents(), da.Mul(decimal.NewFromInt(100)).IntPart())
		}
	})
}

// TestZeroMoney: the zero value is $0.00 in every respect, and equal to
// an amount figured to zero.
func TestZeroMoney(t *testing.T) {
	var z Money
	if z.String() != "0.00" || !z.IsZero() || z.IsNegative() || z.IsPositive() || z.Cents() != 0 || z.Dollars() != "$0.00" {
		t.Fatalf("zero Money: %q %v %v %v %d %q", z.String(), z.IsZero(), z.IsNegative(), z.IsPositive(), z.Cents(), z.Dollars())
	}
	if got := MustMoney("12.34").Sub(Cents(1234)); got != z {
		t.Fatalf("12.34 − 12.34 = %+v, want the zero value", got)
	}
	huge := MoneyFromDecimal(decimal.New(math.MaxInt64, 0))
	if got := huge.Sub(huge); got != z {
		t.Fatalf("a decimal amount less itself = %+v, want the zero value", got)
	}
}
