package kiosk

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
)

func TestReadAmount(t *testing.T) {
	balance := domain.MustMoney("1234.50")
	for _, tc := range []struct {
		typed, want, problem string
	}{
		{"12", "12.00", ""},
		{" 12.3 ", "12.30", ""},
		{"$12.34", "12.34", ""},
		{"$ 1,234.50", "1234.50", ""},
		{"0.01", "0.01", ""},
		{"", "", "pay.error.required"},
		{" $ ", "", "pay.error.required"},
		{"12.345", "", "pay.error.cents"},
		{"1e3", "", "pay.error.format"},
		{"-5", "", "pay.error.format"},
		{"12.", "", "pay.error.format"},
		{"12,34.5.6", "", "pay.error.format"},
		{"12,50", "", "pay.error.separator"},
		{"1,00", "", "pay.error.separator"},
		{"1,,234", "", "pay.error.separator"},
		{",123", "", "pay.error.separator"},
		{"1.234,50", "", "pay.error.format"},
		{"twelve", "", "pay.error.format"},
		{"0", "", "pay.error.zero"},
		{"0.00", "", "pay.error.zero"},
		{"1234.51", "", "pay.error.too_much"},
	} {
		m, p := readAmount(tc.typed, balance, i18n.English)
		if p.msg != tc.problem {
			t.Errorf("%q: problem %q, want %q", tc.typed, p.msg, tc.problem)
			continue
		}
		if tc.problem == "" && m.String() != tc.want {
			t.Errorf("%q: %s, want %s", tc.typed, m, tc.want)
		}
		if (p.msg == "") != (p.hint == "") {
			t.Errorf("%q: a message without a suggestion", tc.typed)
		}
	}
}

// TestReadAmountInSpanish: a comma before the cents, periods or spaces
// between thousands; the English way is refused with the reason, never
// read as thousands (issue: "12,50" on a $1,250.00 bill became $1,250.00).
func TestReadAmountInSpanish(t *testing.T) {
	balance := domain.MustMoney("1250.00")
	for _, tc := range []struct {
		typed, want, problem string
	}{
		{"12,50", "12.50", ""},
		{"1,00", "1.00", ""},
		{"1,5", "1.50", ""},
		{"$ 1.234,50", "1234.50", ""},
		{"1 234,50", "1234.50", ""},
		{"1\u00a0234", "1234.00", ""},
		{"1.250", "1250.00", ""},
		{"188", "188.00", ""},
		{"12.50", "", "pay.error.separator"},
		{"1.00", "", "pay.error.separator"},
		{"12,345", "", "pay.error.cents"},
		{"12,5,0", "", "pay.error.format"},
		{"1,234.50", "", "pay.error.format"},
		{"12,", "", "pay.error.format"},
		{"0,00", "", "pay.error.zero"},
		{"1.250,01", "", "pay.error.too_much"},
	} {
		m, p := readAmount(tc.typed, balance, i18n.Spanish)
		if p.msg != tc.problem {
			t.Errorf("%q: problem %q, want %q", tc.typed, p.msg, tc.problem)
			continue
		}
		if tc.problem == "" && m.String() != tc.want {
			t.Errorf("%q: %s, want %s", tc.typed, m, tc.want)
		}
	}
	if got := typedAmount(domain.MustMoney("188.79"), i18n.Spanish); got != "188,79" {
		t.Errorf("the pre-filled amount in Spanish is %q", got)
	}
}

// FuzzReadAmount checks that any typed text either is refused with a
// message and a suggestion or is an amount of whole cents above zero and
// at most the balance.
func FuzzReadAmount(f *testing.F) {
	for _, s := range []string{"12.34", "$1,000", "1e3", "-0", "0.001", " ", "９", "12..3", "$$5", "12,50", "1.234,50", "1 234", "1,,0"} {
		f.Add(s)
	}
	balance := domain.MustMoney("500.00")
	f.Fuzz(func(t *testing.T, typed string) {
		for _, lang := range i18n.Langs() {
			m, p := readAmount(typed, balance, lang)
			if p.msg != "" {
				if p.hint == "" {
					t.Fatalf("%q (%s): message without suggestion", typed, lang)
				}
				continue
			}
			if !m.IsPositive() || m.GreaterThan(balance) {
				t.Fatalf("%q (%s): accepted %s", typed, lang, m)
			}
			if m2, err := domain.ParseMoney(m.String()); err != nil || !m2.Equal(m) {
				t.Fatalf("%q (%s): accepted %s, which does not read back", typed, lang, m)
			}
			// What the resident would see typed back reads as the same
			// amount, and the digits typed are the amount's digits: no
			// mark was silently taken for another.
			if again, p := readAmount(typedAmount(m, lang), balance, lang); p.msg != "" || !again.Equal(m) {
				t.Fatalf("%q (%s): %s typed back reads %s (%s)", typed, lang, m, again, p.msg)
			}
			typedDigits := strings.TrimLeft(onlyDigits(typed), "0")
			read := strings.TrimLeft(onlyDigits(m.String()), "0")
			if !strings.HasPrefix(read, typedDigits) || strings.Trim(read[len(typedDigits):], "0") != "" {
				t.Fatalf("%q (%s): read as %s", typed, lang, m)
			}
		}
	})
}

func onlyDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
