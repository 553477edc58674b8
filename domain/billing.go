package domain

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CollectionBillOrigins holds, for each bill the clerk's office created,
// the command that created it: id: bill id → BillOrigin.
const CollectionBillOrigins = "bill-origins"

// NewBill is one village bill to create (§5.10). Line is its line in an
// imported file (0 when typed in), so that errors can name it.
type NewBill struct {
	ID          string `json:"id"`
	Account     string `json:"account"`
	Parcel      string `json:"parcel"`
	Description string `json:"description"`
	// DescriptionES is the description in Spanish, when the village gives
	// one, which the resident kiosk shows on its Spanish pages (ledger
	// format 7, DocumentsFormat: a node sends it only once the ledger is
	// at that format, and a ledger below it refuses it).
	DescriptionES string `json:"description_es,omitempty"`
	BilledOn      Date   `json:"billed_on"`
	Principal     Money  `json:"principal"`
	Line          int    `json:"line,omitempty"`
	// Revenue is the revenue account of the chart its receipts belong to
	// (optional; chart.go).
	Revenue string `json:"revenue,omitempty"`
}

// CreateBills creates one or more bills at once: all of them or, when one
// is refused, none.
type CreateBills struct {
	Bills  []NewBill `json:"bills"`
	Source string    `json:"source,omitempty"` // "form" or the imported file's name
}

// BillOrigin records who created a bill and with which command.
type BillOrigin struct {
	BillID    string   `json:"bill_id"`
	CommandID string   `json:"command_id"`
	Actor     string   `json:"actor"`
	At        DateTime `json:"at"`
	Source    string   `json:"source,omitempty"`
	Line      int      `json:"line,omitempty"`
}

// MaxBillsPerCommand bounds an import, so that one log entry stays small.
const MaxBillsPerCommand = 2000

// MaxDescriptionES bounds a bill's Spanish description, in characters: a
// line of a kiosk's bill list and of a receipt, like the English ones the
// office writes.
const MaxDescriptionES = 200

// where names a bill in an error: its import line, else its id.
func (nb NewBill) where() string {
	if nb.Line > 0 {
		return fmt.Sprintf("Line %d: ", nb.Line)
	}
	return ""
}

// Check validates the parts of a new bill that need no ledger: an id, an
// account, a parcel, a description, a billing date and a principal above
// zero (§5.10 bills are for a positive principal).
func (nb NewBill) Check() error {
	w := nb.where()
	switch {
	case nb.ID == "" || len(nb.ID) > 64 || strings.ContainsAny(nb.ID, "/ "):
		return Errorf(EINVALID, "", "%sthe bill needs an id without spaces or slashes.", w)
	case strings.TrimSpace(nb.Account) == "":
		return Errorf(EINVALID, "", "%sthe account number is missing.", w)
	case strings.TrimSpace(nb.Parcel) == "":
		return Errorf(EINVALID, "", "%sthe parcel is missing.", w)
	case strings.TrimSpace(nb.Description) == "":
		return Errorf(EINVALID, "", "%sthe description is missing.", w)
	case nb.BilledOn.IsZero():
		return Errorf(EINVALID, "", "%sthe billing date is missing.", w)
	case !nb.Principal.IsPositive():
		return Errorf(EINVALID, sectionReceivable, "%sthe amount must be more than $0.00.", w)
	case utf8.RuneCountInString(strings.TrimSpace(nb.DescriptionES)) > MaxDescriptionES:
		return Errorf(EINVALID, "", "%sthe Spanish description is longer than %d characters.", w, MaxDescriptionES)
	}
	return nil
}

// BillReader is what checking a new bill against the ledger reads.
type BillReader interface {
	BillExists(id string) (bool, error)
	AccountExists(number string) (bool, error)
	ParcelExists(id string) (bool, error)
}

// CheckNewBills validates bills against the ledger as applying them would:
// each on its own (Check), ids unique in the batch and new to the ledger,
// accounts and parcels known. It returns every error found, in input
// order, so that an import's dry run lists them all.
func CheckNewBills(bills []NewBill, r BillReader) []error {
	var errs []error
	seen := map[string]int{}
	for _, nb := range bills {
		if err := nb.Check(); err != nil {
			errs = append(errs, err)
			continue
		}
		w := nb.where()
		if prev, dup := seen[nb.ID]; dup {
			errs = append(errs, Errorf(EINVALID, "", "%sthe bill id %s is already used on line %d.", w, nb.ID, prev))
			continue
		}
		seen[nb.ID] = nb.Line
		if ok, err := r.BillExists(nb.ID); err != nil {
			return append(errs, err)
		} else if ok {
			errs = append(errs, Errorf(ECONFLICT, "", "%sthere is already a bill %s.", w, nb.ID))
			continue
		}
		if ok, err := r.AccountExists(nb.Account); err != nil {
			return append(errs, err)
		} else if !ok {
			errs = append(errs, Errorf(EINVALID, "", "%sthere is no account %s.", w, nb.Account))
			continue
		}
		if ok, err := r.ParcelExists(nb.Parcel); err != nil {
			return append(errs, err)
		} else if !ok {
			errs = append(errs, Errorf(EINVALID, "", "%sthere is no parcel %s.", w, nb.Parcel))
		}
	}
	return errs
}

// txBillReader reads a Tx for CheckNewBills.
type txBillReader struct{ tx Tx }

func (r txBillReader) BillExists(id string) (bool, error) {
	_, ok, err := r.tx.Bill(id)
	return ok, err
}

func (r txBillReader) AccountExists(n string) (bool, error) {
	_, ok, err := r.tx.Account(n)
	return ok, err
}

func (r txBillReader) ParcelExists(id string) (bool, error) {
	_, ok, err := r.tx.Parcel(id)
	return ok, err
}

// applyCreateBills creates every bill of the command, or none: the first
// error refuses the whole command, so a bad import changes nothing. A
// Spanish description is recorded only from ledger format 7
// (DocumentsFormat): a command carrying one at an earlier format is
// refused, so a format-6 ledger replays as it was written.
func applyCreateBills(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*CreateBills)
	if len(in.Bills) == 0 {
		return Errorf(EINVALID, "", "There are no bills to create.")
	}
	if len(in.Bills) > MaxBillsPerCommand {
		return Errorf(EINVALID, "", "At most %d bills can be created at once.", MaxBillsPerCommand)
	}
	if RulesFormat(tx) < DocumentsFormat {
		for _, nb := range in.Bills {
			if nb.DescriptionES != "" {
				return Errorf(EINVALID, "", "%sthe ledger records Spanish descriptions of bills only from ledger format %d.", nb.where(), DocumentsFormat)
			}
		}
	}
	if errs := CheckNewBills(in.Bills, txBillReader{tx}); len(errs) > 0 {
		return errs[0]
	}
	for _, nb := range in.Bills {
		if nb.Revenue != "" {
			chart, err := loadChart(tx)
			if err != nil {
				return err
			}
			if a, ok := chart.Account(nb.Revenue); !ok || a.Type != AccountRevenue || a.Closed {
				return Errorf(EINVALID, sectionChart, "%sthe revenue account %q is not an open revenue account of the chart.", nb.where(), nb.Revenue)
			}
		}
		b := Bill{ID: nb.ID, Account: nb.Account, Parcel: nb.Parcel, Description: strings.TrimSpace(nb.Description), DescriptionES: strings.TrimSpace(nb.DescriptionES), BilledOn: nb.BilledOn, Principal: nb.Principal, Revenue: nb.Revenue}
		if err := numberBill(tx, &b); err != nil {
			return err
		}
		if err := tx.PutBill(b); err != nil {
			return err
		}
		o := BillOrigin{BillID: nb.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: in.Source, Line: nb.Line}
		if err := tx.Put(CollectionBillOrigins, nb.ID, o); err != nil {
			return err
		}
	}
	res.Note = fmt.Sprintf("created %d bills", len(in.Bills))
	return nil
}

// KindCreateBills creates village bills (a form or an import).
const KindCreateBills Kind = "create_bills"

// Kind names the payload's kind.
func (*CreateBills) Kind() Kind { return KindCreateBills }

var createBillsKind = &Descriptor{
	Kind:    KindCreateBills,
	Section: sectionReceivable,
	Roles:   []Role{RoleClerk, RoleTreasurer},
	New:     func() Payload { return new(CreateBills) },
	Apply:   func(tx Tx, c Command, _ Env, res *Result) error { return applyCreateBills(tx, c, res) },
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		in := c.Payload.(*CreateBills)
		billLines(l, tx, billIDs(in.Bills))
		return fmt.Sprintf("%d bills issued", len(in.Bills))
	},
}

func billIDs(bills []NewBill) []string {
	ids := make([]string, len(bills))
	for i, b := range bills {
		ids[i] = b.ID
	}
	return ids
}
