package domain

import (
	"encoding/json"
	"testing"
)

func TestParseMoney(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"12", "12.00"},
		{"12.3", "12.30"},
		{"12.34", "12.34"},
		{"0", "0.00"},
		{"0.05", "0.05"},
		{"999999999999.99", "999999999999.99"},
		{" 7.50 ", "7.50"},
	} {
		m, err := ParseMoney(tt.in)
		if err != nil || m.String() != tt.want {
			t.Errorf("money/accept %q = %s, %v; want %s", tt.in, m, err, tt.want)
		}
	}
	for _, in := range []string{"1e3", "12.345", "-1", "-0.01", "", " ", "abc", ".", "1.", "+1", "1,000.00", "$1", "0x10", "1 000", "NaN", "Inf", "1.2.3", "1000000000000"} {
		if m, err := ParseMoney(in); err == nil {
			t.Errorf("money/reject %q = %s, want an error", in, m)
		} else if ErrorCode(err) != EINVALID {
			t.Errorf("money/reject %q: code %s", in, ErrorCode(err))
		}
	}
	if m, err := ParseSignedMoney("-1.50"); err != nil || m.String() != "-1.50" {
		t.Errorf("money/signed -1.50 = %s, %v", m, err)
	}
}

func TestMoneyRoundingHalfUp(t *testing.T) {
	for _, tt := range []struct{ amount, rate, want string }{
		{"3.00", "0.015", "0.05"},   // 0.045: half-up, not banker's 0.04
		{"1.00", "0.005", "0.01"},   // 0.005
		{"0.50", "0.01", "0.01"},    // 0.005
		{"1.50", "0.07", "0.11"},    // 0.105: banker's would give 0.10
		{"100.01", "0.5", "50.01"},  // 50.005
		{"0.33", "0.015", "0.00"},   // 0.00495
		{"-1.00", "0.005", "-0.01"}, // away from zero
		{"123.45", "0.015", "1.85"}, // 1.85175
	} {
		got := MustMoney(tt.amount).MulRate(MustRate(tt.rate))
		if got.String() != tt.want {
			t.Errorf("money/%s×%s = %s, want %s", tt.amount, tt.rate, got, tt.want)
		}
	}
}

func TestMoneyJSON(t *testing.T) {
	var v struct{ A, B Money }
	if err := json.Unmarshal([]byte(`{"A":"12.5","B":7}`), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"A":"12.50","B":"7.00"}` {
		t.Errorf("money/json = %s", b)
	}
	for _, in := range []string{`{"A":1e3}`, `{"A":"1e3"}`, `{"A":null}`, `{"A":true}`, `{"A":"12.345"}`, `{"A":[1]}`} {
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("money/json %s: no error", in)
		}
	}
}

// FuzzParseMoney checks that parsing never panics and that what it accepts
// is a non-negative amount to the cent that survives a round trip through
// its string and its JSON.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"0", "12.34", "1e3", "12.345", "-1", "", "abc", ".", "1.", "999999999999.99", " 1 ", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMoney(s)
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("%q: error %v is not EINVALID", s, err)
			}
			return
		}
		if m.IsNegative() {
			t.Fatalf("%q parsed negative: %s", s, m)
		}
		back, err := ParseMoney(m.String())
		if err != nil || !back.Equal(m) {
			t.Fatalf("%q → %s → %s, %v", s, m, back, err)
		}
		if !Cents(m.Cents()).Equal(m) {
			t.Fatalf("%q is not a whole number of cents: %s", s, m)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var j Money
		if err := json.Unmarshal(b, &j); err != nil || !j.Equal(m) {
			t.Fatalf("%q: JSON %s → %s, %v", s, b, j, err)
		}
	})
}

// TestDollarsAndChange: amounts for people carry their thousands
// separators; a change is signed either way, with a minus sign.
func TestDollarsAndChange(t *testing.T) {
	for _, c := range []struct{ in, dollars, change string }{
		{"0.00", "$0.00", "$0.00"},
		{"5.10", "$5.10", "+$5.10"},
		{"999.99", "$999.99", "+$999.99"},
		{"1000.00", "$1,000.00", "+$1,000.00"},
		{"71000.00", "$71,000.00", "+$71,000.00"},
		{"-5000.00", "-$5,000.00", "−$5,000.00"},
		{"1234567.89", "$1,234,567.89", "+$1,234,567.89"},
		{"-100000.00", "-$100,000.00", "−$100,000.00"},
	} {
		m := MustMoney(c.in)
		if got := m.Dollars(); got != c.dollars {
			t.Errorf("%s.Dollars() = %q, want %q", c.in, got, c.dollars)
		}
		if got := m.Change(); got != c.change {
			t.Errorf("%s.Change() = %q, want %q", c.in, got, c.change)
		}
	}
}

// TestDollarsInMessagesOfFormat7: the rules' messages print amounts with
// separators from DocumentsFormat; a ledger of format 6 keeps the words
// it was written with, since refusals are kept in the journal.
func TestDollarsInMessagesOfFormat7(t *testing.T) {
	m := MustMoney("70000.00")
	if got := dollarsIn(formatTx{newResidentTx(), DocumentsFormat}, m); got != "$70,000.00" {
		t.Errorf("format 7: %q", got)
	}
	if got := dollarsIn(formatTx{newResidentTx(), DocumentsFormat - 1}, m); got != "$70000.00" {
		t.Errorf("format 6: %q", got)
	}
}
