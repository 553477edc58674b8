package domain

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Money is an amount in US dollars, held exactly to the cent. The zero
// value is $0.00. Money never passes through a float.
//
// An amount is held as its cents in an int64, which every amount the
// ledger takes fits (ParseSignedMoney takes at most twelve whole digits),
// so that adding, comparing and writing amounts allocates nothing: the
// ledger adds and writes dozens of them in each payment. An amount whose
// cents would not fit (a sum past about 92 quadrillion dollars) is held as
// a decimal instead, so no arithmetic ever overflows. The form is
// canonical: cents whenever they fit, so two equal amounts the ledger can
// hold are equal values (compare others with Equal).
type Money struct {
	c   int64            // the amount in cents, when big is nil
	big *decimal.Decimal // the amount, to the cent, when its cents do not fit c
}

// hundred is used to convert between dollars and cents.
var hundred = decimal.NewFromInt(100)

// Cents returns the amount of c cents.
func Cents(c int64) Money { return Money{c: c} }

// fromDecimal returns the amount d, which has at most two decimals, in
// its canonical form.
func fromDecimal(d decimal.Decimal) Money {
	if c := d.Shift(2).BigInt(); c.IsInt64() {
		return Money{c: c.Int64()}
	}
	d = d.Round(2)
	return Money{big: &d}
}

// dec returns the amount as a decimal.
func (m Money) dec() decimal.Decimal {
	if m.big != nil {
		return *m.big
	}
	return decimal.New(m.c, -2)
}

// ParseMoney parses a non-negative amount written as plain digits with at
// most two decimals ("12", "12.3", "12.34"). It refuses exponents ("1e3"),
// signs, more than two decimals ("12.345") and anything else with an
// EINVALID error that says what is wrong.
func ParseMoney(s string) (Money, error) {
	m, err := ParseSignedMoney(s)
	if err != nil {
		return Money{}, err
	}
	if m.IsNegative() {
		return Money{}, Errorf(EINVALID, "", "The amount %q is negative; it must be zero or more.", s)
	}
	return m, nil
}

// ParseSignedMoney is ParseMoney that also accepts a leading minus sign, for
// the few places where a negative amount means something (an adjustment, a
// reversal).
func ParseSignedMoney(s string) (Money, error) {
	t := strings.TrimSpace(s)
	digits := strings.TrimPrefix(t, "-")
	if digits == "" {
		return Money{}, Errorf(EINVALID, "", "An amount is required.")
	}
	whole, frac, hasPoint := strings.Cut(digits, ".")
	if whole == "" && frac == "" {
		return Money{}, Errorf(EINVALID, "", "The amount %q is not a number.", s)
	}
	if hasPoint && frac == "" {
		return Money{}, Errorf(EINVALID, "", "The amount %q ends with a decimal point; write it like 12.50.", s)
	}
	if !allDigits(whole) || !allDigits(frac) {
		return Money{}, Errorf(EINVALID, "", "The amount %q is not a plain number of dollars and cents, like 12.50.", s)
	}
	if len(frac) > 2 {
		return Money{}, Errorf(EINVALID, "", "The amount %q has more than two decimals; amounts are in whole cents.", s)
	}
	if len(whole) > 12 {
		return Money{}, Errorf(EINVALID, "", "The amount %q is too large.", s)
	}
	// At most 12 whole digits and 2 decimals: the cents fit an int64, and
	// decimal.New(cents, -2) is the same decimal that parsing the text and
	// rounding it to the cent gives.
	var cents int64
	for i := 0; i < len(whole); i++ {
		cents = cents*10 + int64(whole[i]-'0')
	}
	for i := 0; i < 2; i++ {
		cents *= 10
		if i < len(frac) {
			cents += int64(frac[i] - '0')
		}
	}
	if len(t) > 0 && t[0] == '-' {
		cents = -cents
	}
	return Cents(cents), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MustMoney is ParseSignedMoney for amounts written in code and tests; it
// panics on a malformed literal.
func MustMoney(s string) Money {
	m, err := ParseSignedMoney(s)
	if err != nil {
		panic(err)
	}
	return m
}

// MoneyFromDecimal rounds d half-up (away from zero) to the cent.
func MoneyFromDecimal(d decimal.Decimal) Money { return fromDecimal(d.Round(2)) }

// Decimal returns the amount as a decimal.
func (m Money) Decimal() decimal.Decimal { return m.dec() }

// Cents returns the amount in cents (wrapped, for an amount whose cents do
// not fit an int64).
func (m Money) Cents() int64 {
	if m.big == nil {
		return m.c
	}
	return m.big.Mul(hundred).IntPart()
}

// String returns the amount with exactly two decimals, like "101.50".
func (m Money) String() string { return string(m.appendTo(make([]byte, 0, 24))) }

// appendTo appends the amount as String writes it.
func (m Money) appendTo(b []byte) []byte {
	// Written from the cents directly, as StringFixed(2) would write them.
	if m.big == nil {
		return appendCents(b, m.c)
	}
	return append(b, m.big.StringFixed(2)...)
}

// appendCents appends c cents as dollars with two decimals ("-0.05").
func appendCents(b []byte, c int64) []byte {
	u := uint64(c)
	if c < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/100, 10)
	return append(b, '.', byte('0'+u%100/10), byte('0'+u%10))
}

// Add returns m + o.
func (m Money) Add(o Money) Money {
	if m.big == nil && o.big == nil {
		if s := m.c + o.c; (s > m.c) == (o.c > 0) {
			return Money{c: s}
		}
	}
	return fromDecimal(m.dec().Add(o.dec()))
}

// Sub returns m − o.
func (m Money) Sub(o Money) Money {
	if m.big == nil && o.big == nil {
		if s := m.c - o.c; (s < m.c) == (o.c > 0) {
			return Money{c: s}
		}
	}
	return fromDecimal(m.dec().Sub(o.dec()))
}

// Neg returns −m.
func (m Money) Neg() Money {
	if m.big == nil && m.c != math.MinInt64 {
		return Money{c: -m.c}
	}
	return fromDecimal(m.dec().Neg())
}

// Cmp compares m and o: −1 if m < o, 0 if equal, +1 if m > o.
func (m Money) Cmp(o Money) int {
	if m.big == nil && o.big == nil {
		return cmp.Compare(m.c, o.c)
	}
	return m.dec().Cmp(o.dec())
}

// Equal reports whether m and o are the same amount.
func (m Money) Equal(o Money) bool { return m.Cmp(o) == 0 }

// LessThan reports whether m < o.
func (m Money) LessThan(o Money) bool { return m.Cmp(o) < 0 }

// GreaterThan reports whether m > o.
func (m Money) GreaterThan(o Money) bool { return m.Cmp(o) > 0 }

// IsZero reports whether m is $0.00.
func (m Money) IsZero() bool { return m.big == nil && m.c == 0 }

// IsNegative reports whether m < 0.
func (m Money) IsNegative() bool {
	if m.big == nil {
		return m.c < 0
	}
	return m.big.IsNegative()
}

// IsPositive reports whether m > 0.
func (m Money) IsPositive() bool {
	if m.big == nil {
		return m.c > 0
	}
	return m.big.IsPositive()
}

// Min returns the smaller of m and o.
func (m Money) Min(o Money) Money {
	if m.Cmp(o) <= 0 {
		return m
	}
	return o
}

// Max returns the larger of m and o.
func (m Money) Max(o Money) Money {
	if m.Cmp(o) >= 0 {
		return m
	}
	return o
}

// MulRate returns m × r rounded to the cent half-up (away from zero, never
// banker's rounding), as RULES.md requires of every posted amount.
func (m Money) MulRate(r Rate) Money { return fromDecimal(m.dec().Mul(r.d).Round(2)) }

// MulInt returns m × n.
func (m Money) MulInt(n int64) Money {
	if m.big == nil {
		if hi, lo := bits.Mul64(abs64(m.c), abs64(n)); hi == 0 && lo <= math.MaxInt64 {
			p := int64(lo)
			if (m.c < 0) != (n < 0) {
				p = -p
			}
			return Money{c: p}
		}
	}
	return fromDecimal(m.dec().Mul(decimal.NewFromInt(n)))
}

// abs64 returns |v| as a uint64 (|MinInt64| included).
func abs64(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

// SumMoney adds amounts.
func SumMoney(ms ...Money) Money {
	var t Money
	for _, m := range ms {
		t = t.Add(m)
	}
	return t
}

// MarshalJSON writes the amount as a string with two decimals. Like a
// Date's and a DateTime's, its text needs no escape in JSON (digits, a
// sign, a point), so it is written between quotes as it is.
func (m Money) MarshalJSON() ([]byte, error) {
	b := m.appendTo(append(make([]byte, 0, 26), '"'))
	return append(b, '"'), nil
}

// UnmarshalJSON reads a signed amount from a JSON string ("12.34") or a plain
// JSON number without exponent (12.34). Callers that forbid negatives check
// the sign themselves, with the rule's own message.
func (m *Money) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return Errorf(EINVALID, "", "An amount is required.")
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		var err error
		if s, err = unquote(b); err != nil {
			return Errorf(EINVALID, "", "The amount is not a string or number.")
		}
	} else {
		s = string(b)
	}
	v, err := ParseSignedMoney(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Rate is a multiplier such as 0.015 (1.5%) held exactly on a decimal.
type Rate struct {
	d decimal.Decimal
}

// ParseRate parses a rate written as a plain decimal ("0.015"); a trailing
// percent sign divides by 100 ("1.5%").
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSuffix(t, "%")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(t, "-"), ".")
	if t == "" || (whole == "" && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return Rate{}, Errorf(EINVALID, "", "The rate %q is not a plain decimal like 0.015 or 1.5%%.", s)
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return Rate{}, Errorf(EINVALID, "", "The rate %q is not a number.", s)
	}
	if d.IsNegative() {
		return Rate{}, Errorf(EINVALID, "", "The rate %q is negative.", s)
	}
	if pct {
		d = d.Div(hundred)
	}
	return Rate{d}, nil
}

// MustRate is ParseRate for literals in code and tests.
func MustRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// Decimal returns the rate as a decimal.
func (r Rate) Decimal() decimal.Decimal { return r.d }

// String returns the rate as a plain decimal, like "0.015".
func (r Rate) String() string { return r.d.String() }

// Percent returns the rate as a percentage for people, like "1.5%".
func (r Rate) Percent() string { return r.d.Mul(hundred).String() + "%" }

// MarshalJSON writes the rate as a string.
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// UnmarshalJSON reads a rate from a JSON string or number.
func (r *Rate) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return Errorf(EINVALID, "", "The rate is not a string or number.")
		}
	} else {
		s = string(b)
	}
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Dollars writes the amount for people: "$1,234.56", "-$20.00".
func (m Money) Dollars() string {
	s := m.String()
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	b := make([]byte, 0, len(s)+len(whole)/3+2)
	if neg {
		b = append(b, '-')
	}
	b = append(b, '$')
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, whole[i])
	}
	return string(append(append(b, '.'), frac...))
}

// Change writes an amount by which a figure changes, signed either way:
// "+$71,000.00", "−$5,000.00" (a minus sign, not a hyphen), "$0.00".
func (m Money) Change() string {
	switch {
	case m.IsPositive():
		return "+" + m.Dollars()
	case m.IsNegative():
		return "−" + m.Neg().Dollars()
	}
	return m.Dollars()
}

// dollarsIn writes an amount for a message of the rules applied inside
// tx: with its thousands separators from DocumentsFormat; in a ledger
// before it, as the rules first wrote it ("$70000.00"). A refusal's words
// are kept in the replicated journal, so a format-6 ledger replays them
// exactly as they were written.
func dollarsIn(tx Tx, m Money) string {
	if RulesFormat(tx) >= DocumentsFormat {
		return m.Dollars()
	}
	return "$" + m.String()
}
