package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A DerivedIndex finds the records of one collection by what they hold
// (the checks written in a month), where the collection's ids do not say
// it. Its keys follow from each record alone (Keys), so a store may keep
// the index beside the records and write it with them, and build it again
// from them: the replicated store keeps every DerivedIndex on each node,
// outside the replicated ledger (a change of the indexes needs no ledger
// format, and the nodes index their records again when they open). Reads
// go through derived, which reads the index where Records keeps it
// (RecordsDerived) and walks the collection otherwise, with the same
// answer.
type DerivedIndex struct {
	Name       string
	Collection string
	// Keys returns a record's keys in the index, from its JSON: text
	// without a zero byte or a newline, scanned by prefix.
	Keys func(raw []byte) ([]string, error)
}

// IndexChecksByMonth finds the checks written in a month: its keys are
// "YYYY-MM" of the check's date (CheckRecord.On), so that the monthly
// register reads one month's checks, not every check ever written.
const IndexChecksByMonth = "checks-by-month"

// IndexRoomTaxReturnsBy finds operators' quarterly returns by the year
// of their quarter ("period/YYYY": a year's export), by the year of each
// payment made on them ("paid/YYYY": a year's collections) and by each
// payment's command id (RoomTaxPaymentKey), so that none of those reads
// walks every return of every year.
const IndexRoomTaxReturnsBy = "room-tax-returns-by"

// RoomTaxPaymentKey is a room tax payment's key in IndexRoomTaxReturnsBy:
// a digest of its command id, which may hold any character and which no
// other id's key starts with.
func RoomTaxPaymentKey(commandID string) string {
	sum := sha256.Sum256([]byte(commandID))
	return "command/" + hex.EncodeToString(sum[:16])
}

func roomTaxReturnKeys(raw []byte) ([]string, error) {
	var r struct {
		Period   Quarter `json:"period"`
		Payments []struct {
			CommandID string   `json:"command_id"`
			At        DateTime `json:"at"`
		} `json:"payments"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	keys := []string{fmt.Sprintf("period/%04d", r.Period.Year)}
	for _, p := range r.Payments {
		keys = append(keys, fmt.Sprintf("paid/%04d", p.At.Date.Year()), RoomTaxPaymentKey(p.CommandID))
	}
	return keys, nil
}

// IndexClaimsByStatus finds the claims by their status (Claim.Status), so
// that the checks page reads the approved claims a run may pay, not every
// claim of two years.
const IndexClaimsByStatus = "claims-by-status"

var derivedIndexes = []DerivedIndex{
	{Name: IndexClaimsByStatus, Collection: CollectionClaims, Keys: func(raw []byte) ([]string, error) {
		var c struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return []string{c.Status}, nil
	}},
	{Name: IndexRoomTaxReturnsBy, Collection: CollectionRoomTaxReturns, Keys: roomTaxReturnKeys},
	{Name: IndexChecksByMonth, Collection: CollectionChecks, Keys: func(raw []byte) ([]string, error) {
		var ck struct {
			On Date `json:"on"`
		}
		if err := json.Unmarshal(raw, &ck); err != nil {
			return nil, err
		}
		on := ck.On.String()
		if len(on) < len("YYYY-MM") {
			return nil, nil // undated: in no month
		}
		return []string{on[:len("YYYY-MM")]}, nil
	}},
}

// DerivedIndexes returns every DerivedIndex the domain reads through.
func DerivedIndexes() []DerivedIndex { return slices.Clone(derivedIndexes) }

// RecordsDerived is Records that keeps the DerivedIndexes itself.
type RecordsDerived interface {
	// Derived calls fn with the id and JSON of each record of the
	// collection of index (a DerivedIndex's name) that has a key starting
	// with prefix, in the order of those keys, then of the ids (a record
	// with several such keys comes once for each), from one read of the
	// store, until fn returns an error.
	Derived(index, prefix string, fn func(id string, raw []byte) error) error
}

// derived calls fn with each record of ix's collection having a key that
// starts with prefix, in key then id order, until fn returns an error:
// from r's own index when it keeps one (RecordsDerived), else from a walk
// of the collection.
func derived(r Records, ix DerivedIndex, prefix string, fn func(id string, raw []byte) error) error {
	if rd, ok := r.(RecordsDerived); ok {
		return rd.Derived(ix.Name, prefix, fn)
	}
	type hit struct {
		key, id string
		raw     []byte
	}
	var hits []hit
	err := r.List(ix.Collection, "", func(id string, raw []byte) error {
		keys, err := ix.Keys(raw)
		if err != nil {
			return err
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			if strings.HasPrefix(k, prefix) {
				hits = append(hits, hit{k, id, slices.Clone(raw)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, h := range hits {
		if err := fn(h.id, h.raw); err != nil {
			return err
		}
	}
	return nil
}

// allDerived decodes each record derived yields, keeping those keep
// accepts (nil: all); a record that comes under several keys is decoded
// once.
func allDerived[T any](r Records, index, prefix string, keep func(T) bool) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	err := derived(r, derivedIndex(index), prefix, func(id string, raw []byte) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if keep == nil || keep(v) {
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// derivedIndex returns the DerivedIndex named name; it panics on a name
// no index has, a programming error.
func derivedIndex(name string) DerivedIndex {
	for _, ix := range derivedIndexes {
		if ix.Name == name {
			return ix
		}
	}
	panic("domain: no derived index " + name)
}
