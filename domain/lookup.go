package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Lookups the ledger answers from indexes of its own: parcels by the words
// of their owner's name, their address or their number, and the bills of a
// tax-roll year by where they stand. The words and the standing are
// defined here, once, so that the store keeping the indexes and the pages
// asking them agree on what a word is; a ledger without indexes (a test's)
// answers the same questions by walking its records (FilterParcels,
// FilterBills).

// ParcelField names the words of a parcel a lookup searches.
type ParcelField string

// The fields of a parcel that lookups search.
const (
	ParcelOwner   ParcelField = "owner"   // NameWords of the owner's name
	ParcelAddress ParcelField = "address" // AddressWords of the street address
	ParcelNumber  ParcelField = "number"  // the parcel id's letters and digits, one word (NumberWord)
)

// MaxParcelMatches bounds a parcel lookup that asks for no limit, or more.
const MaxParcelMatches = 500

// NameWords splits a name into lower-case words without accents: "Ana
// Gutiérrez" has the words "ana" and "gutierrez".
func NameWords(s string) []string {
	plain := strings.Map(func(r rune) rune {
		if r, ok := unaccented[r]; ok {
			return r
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return ' '
	}, s)
	return strings.Fields(plain)
}

var unaccented = map[rune]rune{
	'á': 'a', 'é': 'e', 'í': 'i', 'ó': 'o', 'ú': 'u', 'ü': 'u', 'ñ': 'n',
	'Á': 'a', 'É': 'e', 'Í': 'i', 'Ó': 'o', 'Ú': 'u', 'Ü': 'u', 'Ñ': 'n',
}

// AddressWords returns the words of an address as NormalizeAddress gives
// them: "141 W. Main Street" has "141", "w", "main" and "st".
func AddressWords(s string) []string { return strings.Fields(NormalizeAddress(s)) }

// NumberWord returns a parcel id's letters and digits, lower-cased: the
// one word a parcel's number is looked up by, so that "0601 141 2001"
// finds "0601-141-2001".
func NumberWord(id string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, id)
}

// Words returns the distinct words of a field of p, sorted.
func (p Parcel) Words(field ParcelField) []string {
	var words []string
	switch field {
	case ParcelOwner:
		words = NameWords(p.Owner)
	case ParcelAddress:
		words = AddressWords(p.Address)
	case ParcelNumber:
		if w := NumberWord(p.ID); w != "" {
			words = []string{w}
		}
	}
	slices.Sort(words)
	return slices.Compact(words)
}

// ParcelQuery asks for the parcels whose field has every one of Words:
// as a whole word, or with Prefix as the start of one ("gut" starts
// "gutierrez"). Words are in the field's own form (NameWords,
// AddressWords, NumberWord); a query without words matches nothing, so
// that no lookup lists every parcel. The answer is in parcel id order,
// at most Limit parcels (MaxParcelMatches when Limit is 0 or more).
type ParcelQuery struct {
	Field  ParcelField
	Words  []string
	Prefix bool
	Limit  int
}

// Bound returns the most parcels the query may answer with.
func (q ParcelQuery) Bound() int {
	if q.Limit <= 0 || q.Limit > MaxParcelMatches {
		return MaxParcelMatches
	}
	return q.Limit
}

// Matches reports whether p answers q.
func (q ParcelQuery) Matches(p Parcel) bool {
	if len(q.Words) == 0 {
		return false
	}
	have := p.Words(q.Field)
	for _, w := range q.Words {
		if w == "" {
			return false
		}
		if !slices.ContainsFunc(have, func(h string) bool { return h == w || q.Prefix && strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// FilterParcels answers q over the parcels given, in id order: what a
// ledger without indexes does, and what the indexed answer must equal.
func FilterParcels(parcels []Parcel, q ParcelQuery) []Parcel {
	var out []Parcel
	for _, p := range parcels {
		if q.Matches(p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Parcel) int { return strings.Compare(a.ID, b.ID) })
	if n := q.Bound(); len(out) > n {
		out = out[:n]
	}
	return out
}

// BillStanding is where a bill stands by what the ledger has recorded,
// whatever the day: unlike BillStatus, which moves with the calendar
// (current, past due), it changes only when the bill's record does, so the
// ledger can keep its bills indexed by it.
type BillStanding string

// The standings of a bill.
const (
	// BillOpen is a bill with a balance after its latest payment.
	BillOpen BillStanding = "open"
	// BillSettled is a bill its payments paid in full: with no principal
	// left no interest or penalty posts (§5.10), so it stays paid until a
	// payment is taken back (a returned check, §5.20).
	BillSettled BillStanding = "paid"
	// BillCertified is a bill the November run certified to the tax
	// roll (Bill.Certified), paid or not.
	BillCertified BillStanding = "certified"
)

// BillStandings are the standings of a bill, in the order lookups list them.
var BillStandings = []BillStanding{BillOpen, BillSettled, BillCertified}

// Standing returns where b stands (BillStanding). A bill stored at ledger
// format 3 answers from its summary; one stored the old way computes its
// account as of its latest payment with p. A bill certified before
// ledger format 2 has no Certified of its own and stands open or paid.
func (b Bill) Standing(p *Params) (BillStanding, error) {
	if b.Certified != nil {
		return BillCertified, nil
	}
	if s := b.Summary; s != nil && !s.all {
		if s.UnpaidPrincipal.IsZero() && s.UnpaidInterest.IsZero() && s.UnpaidPenalty.IsZero() {
			return BillSettled, nil
		}
		return BillOpen, nil
	}
	fig, err := b.Figures(b.latestPayment(), p)
	if err != nil {
		return "", err
	}
	if fig.Balance.IsZero() {
		return BillSettled, nil
	}
	return BillOpen, nil
}

// RollYear returns the bill's cycle year: the year whose November run
// takes it, the year of its due date if that falls in January to October,
// else the next (ComputeReceivable). The due date counts the
// receivable_due_days in force on the billing date, as the bill's own
// figures do.
func (b Bill) RollYear(p *Params) (int, error) {
	v := p.At(b.BilledOn)
	if err := v.require(sectionReceivable, b.BilledOn, "receivable_due_days"); err != nil {
		return 0, err
	}
	due := b.BilledOn.AddDays(v.ReceivableDueDays)
	y := due.Year()
	if due.Month() >= time.November {
		y++
	}
	return y, nil
}

// MaxBillPage bounds a page of a bill lookup that asks for no limit, or
// more.
const MaxBillPage = 1000

// BillQuery asks for a page of the bills of a tax-roll year (RollYear)
// that stand as one of Standings (every standing when empty), in bill id
// order, those after the id After (the cursor: the last id of the page
// before; empty for the first page), at most Limit (MaxBillPage when 0 or
// more). The bills come with their payments, unless Bare.
type BillQuery struct {
	Year      int
	Standings []BillStanding
	After     string
	Limit     int
	// Bare asks for the bills as their records hold them: a bill stored
	// at ledger format 3 comes with its summary and without its payments
	// (what NovemberItemOn needs of most bills), one stored the old way
	// with the payments its record holds.
	Bare bool
}

// Bound returns the most bills a page of q may hold.
func (q BillQuery) Bound() int {
	if q.Limit <= 0 || q.Limit > MaxBillPage {
		return MaxBillPage
	}
	return q.Limit
}

// Takes reports whether the query asks for bills standing as s.
func (q BillQuery) Takes(s BillStanding) bool {
	return len(q.Standings) == 0 || slices.Contains(q.Standings, s)
}

// FilterBills answers q over the bills given, with the parameters their
// year and standing are computed with: what a ledger without indexes does.
func FilterBills(bills []Bill, q BillQuery, p *Params) ([]Bill, error) {
	var out []Bill
	for _, b := range bills {
		if b.ID <= q.After {
			continue
		}
		y, err := b.RollYear(p)
		if err != nil {
			return nil, fmt.Errorf("bill %s: %w", b.ID, err)
		}
		if y != q.Year {
			continue
		}
		s, err := b.Standing(p)
		if err != nil {
			return nil, fmt.Errorf("bill %s: %w", b.ID, err)
		}
		if q.Takes(s) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b Bill) int { return strings.Compare(a.ID, b.ID) })
	if n := q.Bound(); len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// FigureNovemberBills answers NovemberBills over the bills given, each
// with its payments: what a ledger without indexes does.
func FigureNovemberBills(bills []Bill, year int, on Date, p *Params, fn func(NovemberBill) error) error {
	var of []Bill
	for _, b := range bills {
		y, err := b.RollYear(p)
		if err != nil {
			return fmt.Errorf("bill %s: %w", b.ID, err)
		}
		if y == year {
			of = append(of, b)
		}
	}
	slices.SortFunc(of, func(a, b Bill) int { return strings.Compare(a.ID, b.ID) })
	for _, b := range of {
		s, err := b.Standing(p)
		if err != nil {
			return fmt.Errorf("bill %s: %w", b.ID, err)
		}
		nb, err := NovemberBillOf(b, s, year, on, p)
		if err != nil {
			return fmt.Errorf("bill %s: %w", b.ID, err)
		}
		if err := fn(nb); err != nil {
			return err
		}
	}
	return nil
}

// ParcelCountiesOf answers ParcelCounties over the parcels given (those
// in a county the village's rolls know): what a ledger without indexes
// does.
func ParcelCountiesOf(parcels []Parcel) map[string]County {
	out := make(map[string]County, len(parcels))
	for _, p := range parcels {
		if p.County.Valid() {
			out[p.ID] = p.County
		}
	}
	return out
}
