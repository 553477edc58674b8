package domain

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"
)

// The short paths of codec.go must give exactly what the general code
// gave before them: the bytes every replica writes and hashes, and the
// values and errors it reads. Each property below compares the two on
// random input, including the shapes that must fall back.

// refParseDate is ParseDate as it was: time.Parse only.
func refParseDate(s string) (Date, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return Date{}, Errorf(EINVALID, "", "The date %q is not a real date written as YYYY-MM-DD.", s)
	}
	return dateOf(t), nil
}

// refParseDateTime is ParseDateTime as it was.
func refParseDateTime(s string) (DateTime, error) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return DateTimeOf(t), nil
		}
	}
	return DateTime{}, Errorf(EINVALID, "", "The time %q is not written as YYYY-MM-DDTHH:MM.", s)
}

// dateText draws text shaped like a date, often a real one, sometimes
// one field out of range or out of shape.
func dateText(rt *rapid.T, label string) string {
	// Month ends and leap years most of the time, where a date check errs.
	y := rapid.OneOf(rapid.IntRange(0, 9999), rapid.SampledFrom([]int{1900, 2000, 2024, 2026, 2100})).Draw(rt, label+" year")
	m := rapid.OneOf(rapid.IntRange(0, 13), rapid.SampledFrom([]int{2, 4, 12})).Draw(rt, label+" month")
	d := rapid.OneOf(rapid.IntRange(0, 32), rapid.IntRange(28, 31)).Draw(rt, label+" day")
	return rapid.SampledFrom([]string{
		fmt.Sprintf("%04d-%02d-%02d", y, m, d),
		fmt.Sprintf("%04d-%d-%02d", y, m, d),
		fmt.Sprintf("%d-%02d-%02d", y, m, d),
		fmt.Sprintf("%04d/%02d/%02d", y, m, d),
		fmt.Sprintf("%04d-%02d-%02d ", y, m, d),
		fmt.Sprintf("+%03d-%02d-%02d", y%1000, m, d),
	}).Draw(rt, label)
}

func TestParseDateAsTimeParse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.OneOf(rapid.Custom(func(rt *rapid.T) string { return dateText(rt, "date") }),
			rapid.StringMatching(`[0-9+\- ]{0,12}`)).Draw(rt, "text")
		got, gerr := ParseDate(s)
		want, werr := refParseDate(s)
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			rt.Fatalf("ParseDate(%q) = %v, %v; time.Parse gives %v, %v", s, got, gerr, want, werr)
		}
	})
}

func TestParseDateTimeAsTimeParse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := rapid.IntRange(0, 25).Draw(rt, "hour")
		mi := rapid.IntRange(0, 61).Draw(rt, "minute")
		sec := rapid.IntRange(0, 61).Draw(rt, "second")
		date := dateText(rt, "date")
		s := rapid.SampledFrom([]string{
			fmt.Sprintf("%sT%02d:%02d", date, h, mi),
			fmt.Sprintf("%sT%02d:%02d:%02d", date, h, mi, sec),
			fmt.Sprintf("%sT%d:%02d", date, h, mi),
			fmt.Sprintf("%sT%02d:%02d:%02d.5", date, h, mi, sec),
			fmt.Sprintf("%s %02d:%02d", date, h, mi),
			fmt.Sprintf("%sT%02d:%02d:%d", date, h, mi, sec),
		}).Draw(rt, "text")
		got, gerr := ParseDateTime(s)
		want, werr := refParseDateTime(s)
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			rt.Fatalf("ParseDateTime(%q) = %v, %v; time.Parse gives %v, %v", s, got, gerr, want, werr)
		}
	})
}

func TestDateStringsAsSprintf(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		// NewDate normalises, so any year the arithmetic can reach,
		// negative and five-digit ones included.
		d := NewDate(rapid.IntRange(-20000, 20000).Draw(rt, "year"), time.Month(rapid.IntRange(1, 12).Draw(rt, "month")), rapid.IntRange(1, 31).Draw(rt, "day"))
		sec := rapid.IntRange(0, 86399).Draw(rt, "second")
		dt := DateTime{d, sec}
		if want := fmt.Sprintf("%04d-%02d-%02d", d.y, int(d.m), d.d); d.String() != want {
			rt.Fatalf("Date.String() = %q, want %q", d.String(), want)
		}
		if want := fmt.Sprintf("%sT%02d:%02d:%02d", d.String(), sec/3600, sec/60%60, sec%60); dt.String() != want {
			rt.Fatalf("DateTime.String() = %q, want %q", dt.String(), want)
		}
		for _, v := range []any{d, dt} {
			got, _ := json.Marshal(v)
			want, _ := json.Marshal(fmt.Sprint(v))
			if string(got) != string(want) {
				rt.Fatalf("json.Marshal(%v) = %s, want %s", v, got, want)
			}
		}
	})
	if got, _ := json.Marshal(struct{ D Date }{}); string(got) != `{"D":null}` {
		t.Fatalf("zero date: %s", got)
	}
	if (DateTime{sec: 60}).String() != "" {
		t.Fatal("a time on no date writes a string")
	}
}

// refParseSignedMoney is ParseSignedMoney's conversion as it was, after
// the same checks: decimal's parser, rounded to the cent.
func refParseSignedMoney(s string) (decimal.Decimal, error) {
	if _, err := ParseSignedMoney(s); err != nil {
		return decimal.Decimal{}, err
	}
	d, derr := decimal.NewFromString(strings.TrimSpace(s))
	if derr != nil {
		return decimal.Decimal{}, derr
	}
	return d.Round(2), nil
}

func TestMoneyCodecAsDecimal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.StringMatching(`-?[0-9]{0,13}(\.[0-9]{0,3})?`).Draw(rt, "amount")
		got, gerr := ParseSignedMoney(s)
		want, werr := refParseSignedMoney(s)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			rt.Fatalf("ParseSignedMoney(%q): error %v, decimal gives %v", s, gerr, werr)
		}
		if gerr == nil && (!got.Decimal().Equal(want) || got.big != nil) {
			rt.Fatalf("ParseSignedMoney(%q) = %v (%+v), decimal gives %v", s, got.Decimal(), got, want)
		}

		// Any decimal, to the cent or not, in or out of int64.
		coef := rapid.OneOf(rapid.Int64(), rapid.Int64Range(-1000, 1000)).Draw(rt, "coefficient")
		exp := rapid.Int32Range(-6, 3).Draw(rt, "exponent")
		d := decimal.New(coef, exp)
		if rapid.Bool().Draw(rt, "to the cent") {
			d = decimal.New(coef, -2) // as the ledger holds amounts
		}
		if rapid.Bool().Draw(rt, "big") {
			d = d.Mul(decimal.New(1, 10))
		}
		m := MoneyFromDecimal(d)
		if m.String() != d.StringFixed(2) {
			rt.Fatalf("MoneyFromDecimal(%v×10^%d).String() = %q, StringFixed(2) = %q", d.Coefficient(), d.Exponent(), m.String(), d.StringFixed(2))
		}
		b, _ := json.Marshal(m)
		if w, _ := json.Marshal(d.StringFixed(2)); string(b) != string(w) {
			rt.Fatalf("json.Marshal(money) = %s, want %s", b, w)
		}
	})
}

// TestUnquoteAsJSON: the short path of reading a JSON string agrees with
// encoding/json on every literal it takes, and leaves the rest to it.
func TestUnquoteAsJSON(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		inner := rapid.StringOf(rapid.RuneFrom([]rune{'0', '9', '-', '.', 'T', ':', '"', '\\', 'u', ' ', '\t', 'é', 0x7f, 0x1f})).Draw(rt, "inner")
		b := []byte(`"` + inner + `"`)
		var want string
		werr := json.Unmarshal(b, &want)
		got, gerr := unquote(b)
		if (gerr == nil) != (werr == nil) || got != want {
			rt.Fatalf("unquote(%q) = %q, %v; encoding/json gives %q, %v", b, got, gerr, want, werr)
		}
	})
	// Through the types, a string with escapes is read as encoding/json
	// reads it.
	var d Date
	if err := json.Unmarshal([]byte(`"2026-04-0\u0031"`), &d); err != nil || d != MustDate("2026-04-01") {
		t.Fatalf("escaped date: %v %v", d, err)
	}
	var m Money
	if err := json.Unmarshal([]byte(`"12.3\u0034"`), &m); err != nil || m.String() != "12.34" {
		t.Fatalf("escaped amount: %v %v", m, err)
	}
}
