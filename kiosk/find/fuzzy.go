package find

import (
	"slices"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// Street words as residents type them, misspelt or abbreviated their own
// way, and the form domain.NormalizeAddress gives them.
var streetWords = map[string]string{
	"street": "st", "avenue": "ave", "road": "rd", "drive": "dr", "lane": "ln",
	"court": "ct", "place": "pl", "boulevard": "blvd", "circle": "cir",
	"highway": "hwy", "parkway": "pkwy", "terrace": "ter", "trail": "trl",
	"west": "w", "east": "e", "north": "n", "south": "s",
}

// extraAbbreviations are spellings NormalizeAddress does not know.
var extraAbbreviations = map[string]string{
	"strt": "st", "stt": "st", "ave": "ave", "avn": "ave", "avnue": "ave", "rod": "rd",
	"drv": "dr", "drve": "dr", "ln": "ln", "crt": "ct", "hiway": "hwy", "hway": "hwy",
	"wst": "w", "est": "e", "nrth": "n", "sth": "s",
}

// normalizeTolerant is domain.NormalizeAddress that also reads misspelt
// street words ("Stret", "Avenu", "Wst") as the word they almost are.
func normalizeTolerant(s string) []string {
	words := strings.Fields(domain.NormalizeAddress(s))
	for i, w := range words {
		if a, ok := extraAbbreviations[w]; ok {
			words[i] = a
			continue
		}
		if len(w) < 4 {
			continue
		}
		for full, abbr := range streetWords {
			if distance(w, full) <= 1 {
				words[i] = abbr
				break
			}
		}
	}
	return words
}

// tolerance is how many edits a word of n letters may be off by and still
// match: none for short words (a house number, "st", "w"), one up to six
// letters, two from seven.
func tolerance(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 7:
		return 1
	}
	return 2
}

// fuzzyAddressMatches reports whether a query names an address despite
// typos: the query has a house number, every number in it is a number of
// the address exactly (a typo in a number would name another house), and
// every other word is a word of the address within tolerance, or the start
// of one (at least four letters).
func fuzzyAddressMatches(query []string, address string) bool {
	if len(query) < 2 || address == "" {
		return false
	}
	words := normalizeTolerant(address)
	hasNumber := false
	for _, q := range query {
		if q[0] >= '0' && q[0] <= '9' {
			hasNumber = true
			if !slices.Contains(words, q) {
				return false
			}
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool {
			return w == q || distance(q, w) <= tolerance(len(w)) || (len(q) >= 4 && strings.HasPrefix(w, q))
		}) {
			return false
		}
	}
	return hasNumber
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbouring
// letters ("Mian" for "Main") each count one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 {
		return len(rb)
	}
	if len(rb) == 0 {
		return len(ra)
	}
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

// Parcels returns the parcels q names: by parcel id (dashes and spaces
// optional) or by street address; when nothing matches exactly, by an
// address despite typos and odd abbreviations (Near).
func Parcels(l Ledger, q string) ([]domain.Parcel, error) {
	parcels, err := exactCandidates(l, q)
	if err != nil {
		return nil, err
	}
	key := compact(q)
	addr := strings.Fields(domain.NormalizeAddress(q))
	var out []domain.Parcel
	for _, pc := range parcels {
		if (key != "" && compact(pc.ID) == key) || addressMatches(addr, pc.Address) {
			out = append(out, pc)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return Near(l, q)
}

// Near returns the parcels whose address q names despite typos and odd
// abbreviations (fuzzyAddressMatches), in id order. A typo in a house
// number would name another house, so every number of q must be a word
// of the address: the candidates are the parcels the address index has
// under q's numbers, and only they are scored.
func Near(l Ledger, q string) ([]domain.Parcel, error) {
	query := normalizeTolerant(q)
	numbers := houseNumbers(query)
	if len(numbers) == 0 {
		return nil, nil
	}
	candidates, err := l.FindParcels(domain.ParcelQuery{Field: domain.ParcelAddress, Words: numbers})
	if err != nil {
		return nil, err
	}
	var out []domain.Parcel
	for _, pc := range candidates {
		if fuzzyAddressMatches(query, pc.Address) {
			out = append(out, pc)
		}
	}
	return out, nil
}
