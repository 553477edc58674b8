package domain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Bill numbers for people (ledger format 7, DocumentsFormat): a new bill
// gets "2026-000123", the year it is billed in and the next of that
// year's sequence, given where it is unique, in the replicated apply, from
// a counter of the year in the ledger. The bill's ID stays its key: URLs,
// payments and links name it; people read and type the number. Bills made
// before format 7 have none and show their ID.

// CollectionBillNumbers holds each year's counter of bill numbers (by
// "year-2026") and each number's bill (by the number, "2026-000123").
const CollectionBillNumbers = "bill-numbers"

// billNumberDigits is the length of a year's sequence: 999,999 bills a
// year.
const billNumberDigits = 6

// billNumberPattern is a bill number as people write it.
var billNumberPattern = regexp.MustCompile(`^(\d{4})-(\d{6})$`)

// billCounter is the last number given in a year.
type billCounter struct {
	Last int `json:"last"`
}

// billNumbered is the bill a number was given to.
type billNumbered struct {
	Bill string `json:"bill"`
}

// Shown is what people read as the bill's number: its number, or for a
// bill made before the ledger gave numbers, its ID.
func (b Bill) Shown() string {
	if b.Number != "" {
		return b.Number
	}
	return b.ID
}

// IsBillNumber reports whether s is written as a bill number,
// "2026-000123" (spaces around it aside).
func IsBillNumber(s string) bool { return billNumberPattern.MatchString(strings.TrimSpace(s)) }

// numberBill gives b the next number of the year it is billed in, from
// ledger format 7; below it b is stored as earlier releases stored it. It
// is called in the apply of every kind that makes a bill, so a number is
// given once, in log order, the same on every node.
func numberBill(tx Tx, b *Bill) error {
	if RulesFormat(tx) < DocumentsFormat {
		return nil
	}
	year := b.BilledOn.Year()
	key := "year-" + strconv.Itoa(year)
	var n billCounter
	if _, err := tx.Get(CollectionBillNumbers, key, &n); err != nil {
		return err
	}
	if n.Last >= 999999 {
		return Errorf(ECONFLICT, "", "The bill numbers of %d are used up.", year)
	}
	n.Last++
	b.Number = fmt.Sprintf("%d-%0*d", year, billNumberDigits, n.Last)
	if err := tx.Put(CollectionBillNumbers, key, n); err != nil {
		return err
	}
	return tx.Put(CollectionBillNumbers, b.Number, billNumbered{Bill: b.ID})
}

// BillNumbered returns the ID of the bill given number ("2026-000123");
// ok is false when no bill has it.
func (x Reads) BillNumbered(number string) (id string, ok bool, err error) {
	number = strings.TrimSpace(number)
	if !IsBillNumber(number) {
		return "", false, nil
	}
	rec, ok, err := get[billNumbered](x.r, CollectionBillNumbers, number)
	return rec.Bill, ok, err
}
