// Package search reads what a resident or a clerk types into a search box:
// the spellings of a bill number, the addresses a mistyped address almost
// names, and an owner's name. It holds no data: the callers pass what the
// ledger holds, and decide who may search by what (the public kiosk never
// searches by owner name; the clerk's window does).
package search

import (
	"slices"
	"strings"
	"unicode"

	"github.com/villagehall/appliance/domain"
)

// BillIDs returns the bill numbers q may be, best first: as typed, and the
// village's form B-YYYY-NNNN read from its letters and digits, so that
// "B 2026 0113", "b20260113" and "2026-0113" all name B-2026-0113. A
// property tax bill's number (T2026-0601-141-2001) is also read without
// its dashes or with spaces.
func BillIDs(q string) []string {
	q = strings.TrimSpace(q)
	var out []string
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	add(q)
	add(strings.ToUpper(q))
	key := strings.ToUpper(compact(q))
	digits := strings.TrimPrefix(key, "B")
	if len(digits) == 8 && allDigits(digits) {
		add("B-" + digits[:4] + "-" + digits[4:])
	}
	if t := strings.TrimPrefix(key, "T"); len(t) == 4+11 && allDigits(t) {
		add("T" + t[:4] + "-" + t[4:8] + "-" + t[8:11] + "-" + t[11:])
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// compact keeps only the letters and digits of s, lower-cased.
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// maxEdits is how far a typed address may be from a held one and still be
// offered: two edits (letters inserted, deleted, changed or swapped), and
// never more than a quarter of the address's letters.
const maxEdits = 2

// Suggest returns the addresses of those given that q, a street address
// that matched none of them, most likely meant: the ones with the same
// house number that are the fewest edits away, within maxEdits ("305 hail
// st" → "305 Hall St", over "305 Hale St" two edits away). A typo in the
// house number would name another house, so the number must be exact;
// a query without one suggests nothing.
func Suggest(q string, addresses []string) []string {
	query := domain.NormalizeAddress(q)
	number := houseNumber(query)
	if number == "" {
		return nil
	}
	best := maxEdits + 1
	var out []string
	for _, a := range addresses {
		norm := domain.NormalizeAddress(a)
		if houseNumber(norm) != number || norm == query {
			continue
		}
		d := distance(query, norm)
		if d > maxEdits || 4*d > len(norm) {
			continue
		}
		switch {
		case d < best:
			best, out = d, []string{a}
		case d == best && !slices.Contains(out, a):
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// houseNumber returns the first word of a normalized address when it is
// a number.
func houseNumber(norm string) string {
	first, _, _ := strings.Cut(norm, " ")
	if allDigits(first) {
		return first
	}
	return ""
}

// OwnerMatches reports whether q names owner: every word of q (at least
// one, each of two letters or more) is a word of the owner's name, or the
// start of one, ignoring case and accents ("gutierrez ana" and "Ana
// Gutiérrez" name "Ana Gutierrez"). Only the clerk's office searches this
// way; the public kiosk never does.
func OwnerMatches(q, owner string) bool {
	query, words := domain.NameWords(q), domain.NameWords(owner)
	if len(query) == 0 || len(words) == 0 {
		return false
	}
	for _, w := range query {
		if len([]rune(w)) < 2 || !slices.ContainsFunc(words, func(o string) bool { return strings.HasPrefix(o, w) }) {
			return false
		}
	}
	return true
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbouring
// letters each count one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
