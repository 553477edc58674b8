// Package i18n holds the kiosk's message catalogue and formats amounts,
// dates and times for a resident's language. Every string a resident reads
// comes from the catalogue (messages/*.json, embedded), in English and
// Spanish; Load refuses a catalogue where one language lacks a key the
// other has, or where a translation drops or invents a placeholder.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
)

// Lang is a language the kiosk speaks, as a BCP 47 tag.
type Lang string

// The kiosk's languages.
const (
	English Lang = "en"
	Spanish Lang = "es"
)

// Default is the language a new resident sees first.
const Default = English

// Langs returns the languages the kiosk speaks, in the order the language
// switch lists them.
func Langs() []Lang { return []Lang{English, Spanish} }

// Parse returns the language tagged s ("en", "ES", "es-US").
func Parse(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s, _, _ = strings.Cut(s, "-")
	for _, l := range Langs() {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}

//go:embed messages/*.json
var files embed.FS

// placeholder matches "{name}" in a message.
var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// Catalog is the set of messages for every language.
type Catalog struct {
	msgs map[Lang]map[string]string
}

// Load reads the embedded catalogue and checks that every language has the
// same keys with the same placeholders.
func Load() (*Catalog, error) {
	c := &Catalog{msgs: make(map[Lang]map[string]string)}
	for _, l := range Langs() {
		b, err := files.ReadFile("messages/" + string(l) + ".json")
		if err != nil {
			return nil, fmt.Errorf("i18n: read %s catalogue: %w", l, err)
		}
		m := make(map[string]string)
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("i18n: parse %s catalogue: %w", l, err)
		}
		c.msgs[l] = m
	}
	ref := c.msgs[Default]
	for _, l := range Langs() {
		m := c.msgs[l]
		for _, k := range slices.Sorted(maps.Keys(ref)) {
			v, ok := m[k]
			if !ok || strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("i18n: %s catalogue lacks %q", l, k)
			}
			if !slices.Equal(placeholders(ref[k]), placeholders(v)) {
				return nil, fmt.Errorf("i18n: %s message %q has placeholders %v, %s has %v", l, k, placeholders(v), Default, placeholders(ref[k]))
			}
		}
		for k := range m {
			if _, ok := ref[k]; !ok {
				return nil, fmt.Errorf("i18n: %s catalogue has %q, which %s lacks", l, k, Default)
			}
		}
	}
	return c, nil
}

func placeholders(s string) []string {
	p := placeholder.FindAllString(s, -1)
	slices.Sort(p)
	return slices.Compact(p)
}

// Keys returns every message key, sorted.
func (c *Catalog) Keys() []string { return slices.Sorted(maps.Keys(c.msgs[Default])) }

// Printer returns the printer for language l; an unknown language prints in
// the default one.
func (c *Catalog) Printer(l Lang) Printer {
	if _, ok := c.msgs[l]; !ok {
		l = Default
	}
	return Printer{lang: l, msgs: c.msgs[l]}
}

// Printer formats messages, amounts and dates in one language. Its zero
// value prints every message as its key in brackets, which tests notice.
type Printer struct {
	lang Lang
	msgs map[string]string
}

// Lang returns the printer's language.
func (p Printer) Lang() Lang { return p.lang }

// T returns the message key with its placeholders filled from args, given
// as name, value pairs: T("pay.more_than", "balance", "$12.00"). A missing
// key prints as "[key]" so that it shows in tests rather than as a blank.
func (p Printer) T(key string, args ...string) string {
	s, ok := p.msgs[key]
	if !ok {
		return "[" + key + "]"
	}
	if len(args) == 0 {
		return s
	}
	pairs := make([]string, 0, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		pairs = append(pairs, "{"+args[i]+"}", args[i+1])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// Money formats an amount as US dollars with thousands separators,
// "$1,234.50", in both languages (Spanish in the United States writes
// dollars the same way).
func (p Printer) Money(m domain.Money) string {
	s := m.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := "$" + b.String() + "." + frac
	if neg {
		return "−" + out
	}
	return out
}

// Change formats an amount by which a figure changes, signed either way:
// "+$71,000.00", "−$5,000.00".
func (p Printer) Change(m domain.Money) string {
	if m.IsPositive() {
		return "+" + p.Money(m)
	}
	return p.Money(m)
}

// Date formats a date in words: "November 1, 2026" or "1 de noviembre de
// 2026".
func (p Printer) Date(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return p.T("format.date",
		"day", fmt.Sprint(d.Day()),
		"month", p.T(fmt.Sprintf("month.%d", int(d.Month()))),
		"year", fmt.Sprint(d.Year()))
}

// DayMonth formats a date without its year: "November 1" or "1 de
// noviembre".
func (p Printer) DayMonth(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return p.T("format.day_month",
		"day", fmt.Sprint(d.Day()),
		"month", p.T(fmt.Sprintf("month.%d", int(d.Month()))))
}

// Clock formats a time of day: "10:42 AM" in English, "10:42" in Spanish.
func (p Printer) Clock(t time.Time) string {
	if p.lang == Spanish {
		return t.Format("15:04")
	}
	return t.Format("3:04 PM")
}

// DateTime formats a moment: its date in words and its time of day.
func (p Printer) DateTime(t time.Time) string {
	return p.T("format.date_time", "date", p.Date(domain.DateOf(t)), "time", p.Clock(t))
}
