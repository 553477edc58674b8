// Package find looks up what a resident types into the kiosk's search box
// in the ledger: a bill number, an account number, a parcel id or a street
// address, and, when nothing matches exactly, the addresses the words
// almost name (fuzzy.go). It reads the ledger through Ledger, knows
// nothing of HTTP or pages, and never searches by, nor returns, an
// owner's name: the kiosk is public. The kiosk's find page, status letter
// form and property tax search show what it finds; package search reads
// the spellings it tries.
package find

import (
	"slices"
	"strings"
	"unicode"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/search"
)

// Ledger is what a search reads of the ledger (domain.Ledger has it):
// parcels come from the ledger's word indexes (domain.ParcelQuery), never
// from a walk of them all.
type Ledger interface {
	Bill(id string) (domain.Bill, error)
	Account(number string) (domain.Account, error)
	FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error)
}

// Matches is what a search found, by kind.
type Matches struct {
	Bills    []domain.Bill
	Accounts []domain.Account
	Parcels  []domain.Parcel
}

// Count returns how many records matched, of every kind.
func (m Matches) Count() int { return len(m.Bills) + len(m.Accounts) + len(m.Parcels) }

// Search looks q up as a bill's number for people ("2026-000123"), its
// ID, an account number, a parcel id and a
// street address, tolerantly: surrounding space is trimmed, case is
// ignored, a bill number may be typed with spaces or without its "B-"
// ("B 2026 0113", "2026-0113"), a parcel id matches with or without its dashes and an address
// matches through domain.NormalizeAddress ("141 w main street" finds
// "141 W. Main St"). An address must include the house number, so a
// street name alone does not list a whole street's bills.
func Search(l Ledger, q string) (Matches, error) {
	var m Matches
	seen := make(map[string]bool)
	ids := search.BillIDs(q)
	// A bill's number for people ("2026-000123", ledger format 7) names
	// its ID in the ledger's records, when the ledger has them.
	if r, ok := l.(domain.Records); ok && domain.IsBillNumber(q) {
		id, found, err := domain.ReadsOf(r).BillNumbered(q)
		if err != nil {
			return m, err
		}
		if found {
			ids = append([]string{id}, ids...)
		}
	}
	for _, v := range ids {
		b, err := l.Bill(v)
		if found, err := present(err); err != nil {
			return m, err
		} else if found && !seen["b"+b.ID] {
			seen["b"+b.ID] = true
			m.Bills = append(m.Bills, b)
		}
	}
	for _, v := range spellings(q) {
		a, err := l.Account(v)
		if found, err := present(err); err != nil {
			return m, err
		} else if found && !seen["a"+a.Number] {
			seen["a"+a.Number] = true
			m.Accounts = append(m.Accounts, a)
		}
	}
	parcels, err := exactCandidates(l, q)
	if err != nil {
		return m, err
	}
	key := compact(q)
	addr := strings.Fields(domain.NormalizeAddress(q))
	for _, pc := range parcels {
		if (key != "" && compact(pc.ID) == key) || addressMatches(addr, pc.Address) {
			if !seen["p"+pc.ID] {
				seen["p"+pc.ID] = true
				m.Parcels = append(m.Parcels, pc)
			}
		}
	}
	return m, nil
}

// exactCandidates returns, in id order, the parcels whose number is q's
// letters and digits or whose address has every word of q: the only ones
// that can match q exactly (the parcel id and addressMatches tests).
func exactCandidates(l Ledger, q string) ([]domain.Parcel, error) {
	var out []domain.Parcel
	if key := domain.NumberWord(q); key != "" {
		byNumber, err := l.FindParcels(domain.ParcelQuery{Field: domain.ParcelNumber, Words: []string{key}})
		if err != nil {
			return nil, err
		}
		out = append(out, byNumber...)
	}
	if addr := domain.AddressWords(q); len(addr) >= 2 {
		byAddress, err := l.FindParcels(domain.ParcelQuery{Field: domain.ParcelAddress, Words: addr})
		if err != nil {
			return nil, err
		}
		out = append(out, byAddress...)
	}
	slices.SortFunc(out, func(a, b domain.Parcel) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b domain.Parcel) bool { return a.ID == b.ID }), nil
}

// houseNumbers returns the words of a query that are numbers: an address
// it names, exactly or despite typos, has each of them as a word
// (addressMatches, fuzzyAddressMatches, search.Suggest), so the ledger's
// address index finds every candidate from them.
func houseNumbers(words []string) []string {
	var out []string
	for _, w := range words {
		if w != "" && w[0] >= '0' && w[0] <= '9' {
			out = append(out, w)
		}
	}
	return out
}

// present turns a lookup's error into found or not; only errors other than
// "not found" are errors.
func present(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		return false, nil
	}
	return false, err
}

// spellings returns the ways a resident may have typed an exact key: as
// typed, upper and lower case, and without inner spaces.
func spellings(q string) []string {
	q = strings.TrimSpace(q)
	var out []string
	for _, v := range []string{q, strings.ToUpper(q), strings.ToLower(q), strings.Join(strings.Fields(q), "")} {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// compact keeps only the letters and digits of s, lower-cased: parcel ids
// compare this way, so "0601141 2001" finds "0601-141-2001".
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// addressMatches reports whether every word of the normalized query is a
// word of the address and the query names a house number.
func addressMatches(query []string, address string) bool {
	if len(query) < 2 || address == "" {
		return false
	}
	hasNumber := false
	words := strings.Fields(domain.NormalizeAddress(address))
	for _, q := range query {
		if q[0] >= '0' && q[0] <= '9' {
			hasNumber = true
		}
		if !slices.Contains(words, q) {
			return false
		}
	}
	return hasNumber
}

// Suggest returns the addresses the ledger holds that q, which matched
// nothing, is a few letters away from ("305 hail st": "305 Hall St"),
// best first (search.Suggest). It looks at addresses only: the public
// kiosk never searches by, nor shows, an owner's name.
func Suggest(l Ledger, q string) ([]string, error) {
	// search.Suggest offers only addresses with q's house number, its
	// first word: those are the candidates.
	words := domain.AddressWords(q)
	if len(words) == 0 || len(houseNumbers(words[:1])) == 0 {
		return nil, nil
	}
	parcels, err := l.FindParcels(domain.ParcelQuery{Field: domain.ParcelAddress, Words: words[:1]})
	if err != nil {
		return nil, err
	}
	addresses := make([]string, 0, len(parcels))
	for _, pc := range parcels {
		addresses = append(addresses, pc.Address)
	}
	return search.Suggest(q, addresses), nil
}
