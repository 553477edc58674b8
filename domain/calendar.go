package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Date is a calendar date in the village (America/Chicago). It has no time
// of day and no zone: the village's dates are what the ordinance counts.
// The zero Date is "no date".
type Date struct {
	y int
	m time.Month
	d int
}

// NewDate returns the date y-m-d; it normalises out-of-range days the way
// time.Date does, so NewDate(2026, 2, 30) is March 2.
func NewDate(y int, m time.Month, d int) Date {
	return dateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}

// DateOf returns the calendar date of t as read on t's own clock. Callers pass
// times already in the village's zone.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

func dateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate parses "2026-04-01". It refuses other layouts and impossible
// dates ("2026-02-30") with an EINVALID error.
func ParseDate(s string) (Date, error) {
	if d, ok := parseDateFast(s); ok {
		return d, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return Date{}, Errorf(EINVALID, "", "The date %q is not a real date written as YYYY-MM-DD.", s)
	}
	return dateOf(t), nil
}

// MustDate is ParseDate for literals in code and tests.
func MustDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func (d Date) time() time.Time { return time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// Year returns the year.
func (d Date) Year() int { return d.y }

// Month returns the month.
func (d Date) Month() time.Month { return d.m }

// Day returns the day of the month.
func (d Date) Day() int { return d.d }

// Weekday returns the day of the week.
func (d Date) Weekday() time.Weekday { return d.time().Weekday() }

// String returns "2026-04-01", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return string(appendDate(make([]byte, 0, 10), d))
}

// AddDays returns the date n days after d (before, for negative n).
func (d Date) AddDays(n int) Date { return dateOf(d.time().AddDate(0, 0, n)) }

// AddMonths returns the date n calendar months after d: the same day of the
// month, clamped to the last day of a shorter month (Jan 31 + 1 month is
// Feb 28, or Feb 29 in a leap year). RULES.md asks that each step be counted
// from the original date, never chained, which callers get by always passing
// the original d. time.AddDate normalises instead (Jan 31 + 1 month = Mar 3)
// and is not used for months anywhere in this package.
func (d Date) AddMonths(n int) Date {
	total := d.y*12 + int(d.m-1) + n
	y, m := total/12, time.Month(total%12+1)
	if total < 0 && total%12 != 0 {
		y, m = (total-11)/12, time.Month((total%12+12)%12+1)
	}
	day := d.d
	if last := DaysIn(y, m); day > last {
		day = last
	}
	return Date{y, m, day}
}

// DaysIn returns the number of days in month m of year y.
func DaysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// LastOfMonth returns the last day of d's month.
func (d Date) LastOfMonth() Date { return Date{d.y, d.m, DaysIn(d.y, d.m)} }

// FirstOfNextMonth returns the first day of the month after d's.
func (d Date) FirstOfNextMonth() Date { return Date{d.y, d.m, 1}.AddMonths(1) }

// Compare returns −1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d.y != o.y:
		return cmpInt(d.y, o.y)
	case d.m != o.m:
		return cmpInt(int(d.m), int(o.m))
	default:
		return cmpInt(d.d, o.d)
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Before reports whether d is strictly before o.
func (d Date) Before(o Date) bool { return d.Compare(o) < 0 }

// After reports whether d is strictly after o.
func (d Date) After(o Date) bool { return d.Compare(o) > 0 }

// DaysUntil returns the number of days from d to o (negative if o is before d).
func (d Date) DaysUntil(o Date) int {
	return int(o.time().Sub(d.time()).Hours() / 24)
}

// MarshalJSON writes the date as "2026-04-01", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := appendDate(append(make([]byte, 0, 12), '"'), d)
	return append(b, '"'), nil
}

// UnmarshalJSON reads "2026-04-01"; null leaves the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*d = Date{}
		return nil
	}
	s, err := unquote(b)
	if err != nil {
		return Errorf(EINVALID, "", "A date must be a string like \"2026-04-01\".")
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// DateTime is a local wall-clock moment in the village, to the second:
// a command's intake time, a request's time of day. Like Date it carries no
// zone; adapters convert from time.Time in America/Chicago.
type DateTime struct {
	Date
	sec int // seconds since midnight
}

// NewDateTime returns the moment h:m:s on date d.
func NewDateTime(d Date, h, m, s int) DateTime { return DateTime{d, h*3600 + m*60 + s} }

// DateTimeOf returns the wall-clock moment of t on t's own clock. Callers
// pass times already in the village's zone.
func DateTimeOf(t time.Time) DateTime {
	return DateTime{DateOf(t), t.Hour()*3600 + t.Minute()*60 + t.Second()}
}

// ParseDateTime parses "2026-11-24T16:45" or "2026-11-24T16:45:30".
func ParseDateTime(s string) (DateTime, error) {
	if dt, ok := parseDateTimeFast(s); ok {
		return dt, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return DateTimeOf(t), nil
		}
	}
	return DateTime{}, Errorf(EINVALID, "", "The time %q is not written as YYYY-MM-DDTHH:MM.", s)
}

// ClockTime is a time of day such as an office's closing time, in minutes
// since midnight.
type ClockTime int

// ParseClockTime parses "16:30".
func ParseClockTime(s string) (ClockTime, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, Errorf(EINVALID, "", "The time of day %q is not written as HH:MM.", s)
	}
	return ClockTime(t.Hour()*60 + t.Minute()), nil
}

// String returns "16:30".
func (c ClockTime) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// Clock returns the time of day of dt, to the minute.
func (dt DateTime) Clock() ClockTime { return ClockTime(dt.sec / 60) }

// Seconds returns the seconds since midnight.
func (dt DateTime) Seconds() int { return dt.sec }

// String returns "2026-11-24T16:45:30", or "" for the zero DateTime.
func (dt DateTime) String() string {
	if dt.IsZero() {
		return ""
	}
	return string(appendDateTime(make([]byte, 0, 19), dt))
}

// appendDateTime appends dt as "2026-11-24T16:45:30".
func appendDateTime(b []byte, dt DateTime) []byte {
	b = appendDate(b, dt.Date)
	b = append(b, 'T')
	b = appendPadded(b, dt.sec/3600, 2)
	b = append(b, ':')
	b = appendPadded(b, dt.sec/60%60, 2)
	b = append(b, ':')
	return appendPadded(b, dt.sec%60, 2)
}

// Compare returns −1, 0 or +1 as dt is before, equal to or after o.
func (dt DateTime) Compare(o DateTime) int {
	if c := dt.Date.Compare(o.Date); c != 0 {
		return c
	}
	return cmpInt(dt.sec, o.sec)
}

// Before reports whether dt is strictly before o.
func (dt DateTime) Before(o DateTime) bool { return dt.Compare(o) < 0 }

// After reports whether dt is strictly after o.
func (dt DateTime) After(o DateTime) bool { return dt.Compare(o) > 0 }

// Time returns dt as a time.Time on loc's clock.
func (dt DateTime) Time(loc *time.Location) time.Time {
	return time.Date(dt.y, dt.m, dt.d, 0, 0, dt.sec, 0, loc)
}

// MarshalJSON writes the moment as "2026-11-24T16:45:30", or null.
func (dt DateTime) MarshalJSON() ([]byte, error) {
	if dt.IsZero() {
		return []byte("null"), nil
	}
	b := appendDateTime(append(make([]byte, 0, 21), '"'), dt)
	return append(b, '"'), nil
}

// UnmarshalJSON reads "2026-11-24T16:45" or "2026-11-24T16:45:30"; null
// leaves the zero DateTime.
func (dt *DateTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*dt = DateTime{}
		return nil
	}
	s, err := unquote(b)
	if err != nil {
		return Errorf(EINVALID, "", "A time must be a string like \"2026-11-24T16:45\".")
	}
	v, err := ParseDateTime(s)
	if err != nil {
		return err
	}
	*dt = v
	return nil
}

// Calendar knows the village's business days: Monday to Friday and not a
// village holiday. The holiday list is configuration, not code.
type Calendar struct {
	holidays map[Date]bool
}

// NewCalendar returns a calendar with the given holidays.
func NewCalendar(holidays []Date) Calendar {
	c := Calendar{holidays: make(map[Date]bool, len(holidays))}
	for _, h := range holidays {
		c.holidays[h] = true
	}
	return c
}

// Holidays returns the holidays in date order.
func (c Calendar) Holidays() []Date {
	out := make([]Date, 0, len(c.holidays))
	for d := range c.holidays {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// IsHoliday reports whether d is a village holiday.
func (c Calendar) IsHoliday(d Date) bool { return c.holidays[d] }

// IsBusinessDay reports whether d is Monday to Friday and not a holiday.
func (c Calendar) IsBusinessDay(d Date) bool {
	switch d.Weekday() {
	case time.Saturday, time.Sunday:
		return false
	}
	return !c.holidays[d]
}

// NextBusinessDay returns the first business day on or after d.
func (c Calendar) NextBusinessDay(d Date) Date {
	for !c.IsBusinessDay(d) {
		d = d.AddDays(1)
	}
	return d
}

// AddBusinessDays returns the n-th business day after d; d itself never
// counts, whether or not it is a business day (RULES.md: "the day of payment
// itself does not count"). n must be at least 1.
func (c Calendar) AddBusinessDays(d Date, n int) Date {
	for n > 0 {
		d = d.AddDays(1)
		if c.IsBusinessDay(d) {
			n--
		}
	}
	return d
}

// MarshalJSON writes the time of day as "16:30".
func (c ClockTime) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// UnmarshalJSON reads a time of day written "16:30".
func (c *ClockTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return Errorf(EINVALID, "", "A time of day must be a string like \"16:30\".")
	}
	v, err := ParseClockTime(s)
	if err != nil {
		return err
	}
	*c = v
	return nil
}
