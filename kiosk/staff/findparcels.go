package staff

import (
	"slices"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// FindParcels returns the parcels a clerk's search q names, in id order,
// at most limit of them, and whether more match: the parcel numbered q
// (with or without its dashes), and those whose field (the address, the
// owner's name, or each field given) has every word of q whole or as the
// start of a word, so "gut" finds Ana Gutiérrez and "141 main" finds 141 W
// Main St. It reads the ledger's word indexes (domain.ParcelQuery), never
// every parcel.
func FindParcels(l domain.Ledger, q string, limit int, fields ...domain.ParcelField) ([]domain.Parcel, bool, error) {
	var out []domain.Parcel
	if pc, err := l.Parcel(q); err == nil {
		out = append(out, pc)
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return nil, false, err
	}
	queries := []domain.ParcelQuery{{Field: domain.ParcelNumber, Words: []string{domain.NumberWord(q)}}}
	for _, f := range fields {
		var words []string
		switch f {
		case domain.ParcelOwner:
			words = domain.NameWords(q)
		case domain.ParcelAddress:
			words = domain.AddressWords(q)
		}
		queries = append(queries, domain.ParcelQuery{Field: f, Words: words, Prefix: true, Limit: limit + 1})
	}
	for _, pq := range queries {
		found, err := l.FindParcels(pq)
		if err != nil {
			return nil, false, err
		}
		out = append(out, found...)
	}
	slices.SortFunc(out, func(a, b domain.Parcel) int { return strings.Compare(a.ID, b.ID) })
	out = slices.CompactFunc(out, func(a, b domain.Parcel) bool { return a.ID == b.ID })
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}
