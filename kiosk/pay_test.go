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

// TestReadAmountInSpanish: the Spanish page shows amounts as the English
// one does ("$1,234.50", dollars in the United States) and reads them so,
// and reads the comma-decimal way too ("12,50", "1.234,50"). Exactly:
// with both marks, the last one is the decimal mark and the other groups
// thousands; with one mark, it is the decimal mark when it comes once and
// is not followed by exactly three digits, and it groups thousands
// otherwise ("1.250", "1,250", "1.234.567"). Spaces group thousands too.
// Groups are of three digits after a first of one to three; the decimal
// mark never appears in the whole part. A resident's "12,50" never
// becomes $1,250.00.
func TestReadAmountInSpanish(t *testing.T) {
	balance := domain.MustMoney("1250.00")
	for _, tc := range []struct {
		typed, want, problem string
	}{
		{"12,50", "12.50", ""},
		{"12.50", "12.50", ""},
		{"1,00", "1.00", ""},
		{"1.00", "1.00", ""},
		{"1,5", "1.50", ""},
		{"1.5", "1.50", ""},
		{"$ 1.234,50", "1234.50", ""},
		{"$1,234.50", "1234.50", ""},
		{"1 234,50", "1234.50", ""},
		{"1 234.50", "1234.50", ""},
		{"1\u00a0234", "1234.00", ""},
		{"1.250", "1250.00", ""},
		{"1,250", "1250.00", ""},
		{"188", "188.00", ""},
		{"$188.79", "188.79", ""},
		{"12,345", "", "pay.error.too_much"},
		{"12.345,678", "", "pay.error.cents"},
		{"12,3456", "", "pay.error.cents"},
		{"12.3456", "", "pay.error.cents"},
		{"12,5,0", "", "pay.error.format"},
		{"1.234.56", "", "pay.error.format"},
		{"1,234,56", "", "pay.error.format"},
		{"1,23,456", "", "pay.error.format"},
		{"1.2345,60", "", "pay.error.format"},
		{"12,", "", "pay.error.format"},
		{"12.", "", "pay.error.format"},
		{",50", "", "pay.error.format"},
		{"0,00", "", "pay.error.zero"},
		{"1.250,01", "", "pay.error.too_much"},
		{"1,250.01", "", "pay.error.too_much"},
	} {
		m, p := readAmount(tc.typed, balance, i18n.Spanish)
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
	if got := typedAmount(domain.MustMoney("188.79")); got != "188.79" {
		t.Errorf("the pre-filled amount in Spanish is %q, not as the page shows amounts", got)
	}
}

// FuzzReadAmount checks that any typed text either is refused with a
// message and a suggestion or is an amount of whole cents above zero and
// at most the balance.
func FuzzReadAmount(f *testing.F) {
	for _, s := range []string{"12.34", "$1,000", "1e3", "-0", "0.001", " ", "９", "12..3", "$$5", "12,50", "1.234,50", "1 234", "1,,0",
		"1,234.56", "1.234.56", "1,234", "1.234", "12.345,6", "1 234,5"} {
		f.Add(s)
	}
	balance := domain.MustMoney("500.00")
	f.Fuzz(func(t *testing.T, typed string) {
		// Spanish reads whatever English reads, as the same amount, and
		// reads the comma-decimal way as the period-decimal one: swapping
		// every comma and period never changes what is read.
		en, ep := readAmount(typed, balance, i18n.English)
		es, sp := readAmount(typed, balance, i18n.Spanish)
		if ep.msg == "" && (sp.msg != "" || !es.Equal(en)) {
			t.Fatalf("%q: English reads %s, Spanish %s (%s)", typed, en, es, sp.msg)
		}
		swapped := strings.Map(func(r rune) rune {
			switch r {
			case ',':
				return '.'
			case '.':
				return ','
			}
			return r
		}, typed)
		if sw, swp := readAmount(swapped, balance, i18n.Spanish); swp.msg != sp.msg || !sw.Equal(es) {
			t.Fatalf("%q reads %s (%s) in Spanish, %q reads %s (%s)", typed, es, sp.msg, swapped, sw, swp.msg)
		}
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
			if again, p := readAmount(typedAmount(m), balance, lang); p.msg != "" || !again.Equal(m) {
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
