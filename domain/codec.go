package domain

import (
	"encoding/json"
	"strconv"
	"time"
)

// The ledger's records carry many dates, times and amounts, and every
// replica decodes and encodes them at each command it applies. Their JSON
// methods take the short paths below for the forms the ledger itself
// writes, and fall back to the general code for anything else, so the
// bytes written and the values read are exactly those of the general code
// (codec_test.go compares them).

// appendPadded appends v in decimal, zero-padded to width digits, as
// fmt's %0*d does (a minus sign counts in the width).
func appendPadded(b []byte, v, width int) []byte {
	if v < 0 {
		b = append(b, '-')
		width--
		// -v overflows only for the smallest int, which no date holds;
		// strconv handles it below without padding.
		if v == -v {
			return strconv.AppendInt(b[:len(b)-1], int64(v), 10)
		}
		v = -v
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(v), 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// appendDate appends d as "2026-04-01" (the year as %04d).
func appendDate(b []byte, d Date) []byte {
	b = appendPadded(b, d.y, 4)
	b = append(b, '-')
	b = appendPadded(b, int(d.m), 2)
	b = append(b, '-')
	return appendPadded(b, d.d, 2)
}

// unquoteSimple returns the text of a JSON string literal that holds only
// printable ASCII and no escapes; ok is false for anything else, which the
// caller decodes with encoding/json.
func unquoteSimple(b []byte) (s string, ok bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	for _, c := range inner {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(inner), true
}

// unquote reads a JSON string literal: the short path, or encoding/json.
func unquote(b []byte) (string, error) {
	if s, ok := unquoteSimple(b); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// twoDigits reads s[i:i+2] as two ASCII digits.
func twoDigits(s string, i int) (int, bool) {
	a, b := s[i], s[i+1]
	if a < '0' || a > '9' || b < '0' || b > '9' {
		return 0, false
	}
	return int(a-'0')*10 + int(b-'0'), true
}

// parseDateFast reads exactly "YYYY-MM-DD" naming a real date, which is
// what time.Parse accepts for the layout "2006-01-02" when given ten
// characters of that shape; anything else reports ok false and goes to
// time.Parse.
func parseDateFast(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, false
	}
	hi, ok1 := twoDigits(s, 0)
	lo, ok2 := twoDigits(s, 2)
	m, ok3 := twoDigits(s, 5)
	d, ok4 := twoDigits(s, 8)
	if !ok1 || !ok2 || !ok3 || !ok4 || m < 1 || m > 12 || d < 1 {
		return Date{}, false
	}
	y := hi*100 + lo
	if d > daysInMonth(y, time.Month(m)) {
		return Date{}, false
	}
	return Date{y, time.Month(m), d}, true
}

// daysInMonth returns the number of days of month m of year y.
func daysInMonth(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseDateTimeFast reads exactly "YYYY-MM-DDTHH:MM" or
// "YYYY-MM-DDTHH:MM:SS" with two-digit fields in range; anything else
// (one-digit hours, fractional seconds, which time.Parse also takes)
// reports ok false and goes to time.Parse.
func parseDateTimeFast(s string) (DateTime, bool) {
	if (len(s) != 16 && len(s) != 19) || s[10] != 'T' || s[13] != ':' {
		return DateTime{}, false
	}
	d, ok := parseDateFast(s[:10])
	if !ok {
		return DateTime{}, false
	}
	h, ok1 := twoDigits(s, 11)
	mi, ok2 := twoDigits(s, 14)
	if !ok1 || !ok2 || h > 23 || mi > 59 {
		return DateTime{}, false
	}
	sec := 0
	if len(s) == 19 {
		v, ok := twoDigits(s, 17)
		if s[16] != ':' || !ok || v > 59 {
			return DateTime{}, false
		}
		sec = v
	}
	return DateTime{d, h*3600 + mi*60 + sec}, true
}
