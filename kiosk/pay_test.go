package kiosk

import (
	"testing"

	"github.com/villagehall/appliance/domain"
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
		{"twelve", "", "pay.error.format"},
		{"0", "", "pay.error.zero"},
		{"0.00", "", "pay.error.zero"},
		{"1234.51", "", "pay.error.too_much"},
	} {
		m, p := readAmount(tc.typed, balance)
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

// FuzzReadAmount checks that any typed text either is refused with a
// message and a suggestion or is an amount of whole cents above zero and
// at most the balance.
func FuzzReadAmount(f *testing.F) {
	for _, s := range []string{"12.34", "$1,000", "1e3", "-0", "0.001", " ", "９", "12..3", "$$5"} {
		f.Add(s)
	}
	balance := domain.MustMoney("500.00")
	f.Fuzz(func(t *testing.T, typed string) {
		m, p := readAmount(typed, balance)
		if p.msg != "" {
			if p.hint == "" {
				t.Fatalf("%q: message without suggestion", typed)
			}
			return
		}
		if !m.IsPositive() || m.GreaterThan(balance) {
			t.Fatalf("%q: accepted %s", typed, m)
		}
		if m2, err := domain.ParseMoney(m.String()); err != nil || !m2.Equal(m) {
			t.Fatalf("%q: accepted %s, which does not read back", typed, m)
		}
	})
}
