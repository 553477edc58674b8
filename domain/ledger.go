package domain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// County is one of the two counties the village lies in; the tax roll,
// settlements and exports are kept per county (Ch. 74).
type County string

// The village's counties.
const (
	Dane  County = "dane"
	Green County = "green"
)

// Valid reports whether c is one of the village's counties.
func (c County) Valid() bool { return c == Dane || c == Green }

// Title returns the county's name for people.
func (c County) Title() string {
	switch c {
	case Dane:
		return "Dane"
	case Green:
		return "Green"
	}
	return string(c)
}

// Parcel is a piece of real property in the village, identified like
// "0601-141-2001".
type Parcel struct {
	ID         string `json:"id"`
	Address    string `json:"address"`
	County     County `json:"county"`
	Owner      string `json:"owner"`
	Floodplain bool   `json:"floodplain,omitempty"`
	// Mailing is the owner's mailing address when it is not the parcel's
	// own (ledger format 7, mailing.go); zero when none is known.
	Mailing MailingAddress `json:"mailing,omitzero"`
}

// Account is a payer of village bills and the parcels it pays for.
type Account struct {
	Number  string   `json:"number"`
	Name    string   `json:"name"`
	Parcels []string `json:"parcels,omitempty"`
	// Mailing is where the account's bills are mailed (ledger format 7,
	// mailing.go); zero when they go to the parcel's owner.
	Mailing MailingAddress `json:"mailing,omitzero"`
}

// Tender is how a payment was made.
type Tender string

// Tenders the appliance takes.
const (
	Card  Tender = "card"
	Cash  Tender = "cash"
	Check Tender = "check"
)

// Valid reports whether t is a known tender.
func (t Tender) Valid() bool { return t == Card || t == Cash || t == Check }

// BillPayment is one payment posted to a bill.
type BillPayment struct {
	CommandID  string     `json:"command_id"`
	Receipt    string     `json:"receipt"`
	At         DateTime   `json:"at"` // intake time: the payment's legal date
	Amount     Money      `json:"amount"`
	Tender     Tender     `json:"tender"`
	Reference  string     `json:"reference,omitempty"`
	Allocation Allocation `json:"allocation"` // as allocated when it posted
	// Drawer is the window drawer a cash or check payment went into
	// (ledger format 2), so a returned check finds its drawer.
	Drawer string `json:"drawer,omitempty"`
}

// Bill is a village bill (a receivable under §5.10): a charge to an account
// for a parcel, billed on a date, with the payments posted to it. Its
// interest, penalty, balance and status are not stored: they depend on the
// day you ask, and ComputeReceivable derives them (see Bill.Figures).
type Bill struct {
	ID string `json:"id"`
	// Number is the bill's number for people, "2026-000123", given when
	// the bill is made at ledger format 7 (billnumber.go); empty for a
	// bill made before. Shown reads it.
	Number      string `json:"number,omitempty"`
	Account     string `json:"account"`
	Parcel      string `json:"parcel"`
	Description string `json:"description"`
	// DescriptionES is the description in Spanish when the village gave
	// one (ledger format 7), for the resident kiosk's Spanish pages; empty
	// shows the English one there too.
	DescriptionES string `json:"description_es,omitempty"`
	BilledOn      Date   `json:"billed_on"`
	Principal     Money  `json:"principal"`
	// Revenue is the revenue account of the chart the bill's receipts
	// belong to; empty counts them under the account collecting village
	// bills (chart.go).
	Revenue  string        `json:"revenue,omitempty"`
	Payments []BillPayment `json:"payments,omitempty"`
	// Reversed are the payments taken off the bill since they posted (a
	// returned check, §5.20), kept so that the figures as of a date before
	// the reversal count them as they stood then (ledger format 2).
	Reversed []ReversedPayment `json:"reversed,omitempty"`
	// Certified is what the November run recorded when it certified the
	// bill to the tax roll (§5.10, ledger format 2); nil while it is not
	// on the roll, whatever the calendar says.
	Certified *Certification `json:"certified,omitempty"`
	// Summary is, for a bill stored at ledger format 3, its §5.10 account
	// after its latest payment and where its payments are stored: its
	// record then holds no Payments (billpayments.go). Readers get the
	// Payments filled in (ReadBillPayments); nil for a bill stored the
	// old way, whose record holds them.
	Summary *BillSummary `json:"summary,omitempty"`
}

// Certification is a bill's certification to the tax roll as the ledger
// recorded it: the cycle year, when the November run certified it (the
// date on the roll), the command, and the amount certified.
type Certification struct {
	Year    int      `json:"year"`
	At      DateTime `json:"at"`
	Command string   `json:"command"`
	Amount  Money    `json:"amount"`
}

// receivableInput is the bill's §5.10 input as the ledger holds it: its
// place on the tax roll is the ledger's (ReceivableInput.Ledger).
// Clone returns a copy of b that shares nothing a change to either can
// reach: its payments, reversals, certification and summary are copied.
// Money and dates are values no method changes in place.
func (b Bill) Clone() Bill {
	b.Payments = slices.Clone(b.Payments)
	b.Reversed = slices.Clone(b.Reversed)
	if b.Certified != nil {
		c := *b.Certified
		b.Certified = &c
	}
	if b.Summary != nil {
		s := *b.Summary
		s.Removed = slices.Clone(s.Removed)
		b.Summary = &s
	}
	return b
}

func (b Bill) receivableInput(asOf Date) ReceivableInput {
	in := ReceivableInput{BilledOn: b.BilledOn, Principal: b.Principal, AsOf: asOf, Ledger: true}
	if b.Certified != nil {
		in.CertifiedOn = b.Certified.At.Date
	}
	return in
}

// ReversedPayment is a payment taken off its bill.
type ReversedPayment struct {
	BillPayment
	ReversedOn Date   `json:"reversed_on"`
	ReturnID   string `json:"return_id,omitempty"` // the returned check's record
}

// Figures returns the bill's §5.10 figures as of a date, counting only
// what the ledger had recorded by the end of that day: the payments dated
// on or before it, and a payment reversed after it as it stood then. A
// status letter, an audit or a dispute asks what was owed on a past date;
// a later payment, or a later returned check, does not change that answer.
// A date before the bill was billed is taken as its billing date.
func (b Bill) Figures(asOf Date, p *Params) (Receivable, error) {
	if !b.allPayments() {
		return Receivable{}, fmt.Errorf("bill %s: figures asked of a bill read without its payments", b.ID)
	}
	if asOf.Before(b.BilledOn) {
		asOf = b.BilledOn
	}
	in := b.receivableInput(asOf)
	for _, pay := range b.Payments {
		if !pay.At.Date.After(asOf) {
			in.Payments = append(in.Payments, DatedAmount{On: pay.At.Date, Amount: pay.Amount})
		}
	}
	for _, r := range b.Reversed {
		if !r.At.Date.After(asOf) && r.ReversedOn.After(asOf) {
			in.Payments = append(in.Payments, DatedAmount{On: r.At.Date, Amount: r.Amount})
		}
	}
	return ComputeReceivable(in, p)
}

// postingFigures returns the figures of the bill with every payment it
// holds, as of asOf or of its latest payment if later, with one
// allocation per payment in the order of b.Payments: what posting a
// payment needs (the payment's allocation, the balance after it). The
// ledger has posted payments this way since its first release, so every
// node computes the same allocations for the same log. A bill read
// without its payments (loadBill) continues its account from its summary
// over the payments b.Payments holds, which must all continue it
// (Bill.continues): the same allocations and balance, Postings only those
// after the summary.
func (b Bill) postingFigures(asOf Date, p *Params) (Receivable, error) {
	if asOf.Before(b.BilledOn) {
		asOf = b.BilledOn
	}
	// As the first release did: a payment dated after asOf moves the
	// computation's date to it, the last such payment in b.Payments' order.
	end := asOf
	for _, pay := range b.Payments {
		if pay.At.Date.After(asOf) {
			end = pay.At.Date
		}
	}
	if !b.allPayments() && b.Summary.Latest.After(end) {
		end = b.Summary.Latest
	}
	r, _, err := b.account(end, p)
	return r, err
}

// account returns the bill's figures as of asOf (not before any payment
// it counts) and its account right after its latest payment, as its
// summary keeps it. A bill read without its payments continues its
// account from its summary over b.Payments, which must all continue it.
func (b Bill) account(asOf Date, p *Params) (Receivable, BillSummary, error) {
	in := b.receivableInput(asOf)
	var from *BillSummary
	if !b.allPayments() {
		from = b.Summary
	}
	for _, pay := range b.Payments {
		if from != nil && !b.continues(pay.At.Date, p) {
			return Receivable{}, BillSummary{}, fmt.Errorf("bill %s: a payment dated %s cannot continue its account from %s", b.ID, pay.At.Date, from.Latest)
		}
		in.Payments = append(in.Payments, DatedAmount{On: pay.At.Date, Amount: pay.Amount})
	}
	return computeReceivable(in, p, from)
}

// latestPayment returns the date of b's latest payment, or its billing
// date if it has none.
func (b Bill) latestPayment() Date {
	d := b.BilledOn
	if !b.allPayments() && b.Summary.Latest.After(d) {
		d = b.Summary.Latest
	}
	for _, pay := range b.Payments {
		if pay.At.Date.After(d) {
			d = pay.At.Date
		}
	}
	return d
}

// ReceiptStatus says whether a receipt's payment has posted to the
// replicated ledger.
type ReceiptStatus string

// Receipt statuses.
const (
	Posted      ReceiptStatus = "posted"      // applied by the ledger on a quorum
	Provisional ReceiptStatus = "provisional" // recorded on this node; posts when the network returns
)

// Receipt is what a payer is given. Its number is made where the payment is
// taken, "<node>-<per-node sequence>", so numbers never collide even when a
// node takes payments offline; a posted receipt also carries the index of
// the log entry that applied it.
type Receipt struct {
	Number     string        `json:"number"`
	Kind       Kind          `json:"kind,omitempty"` // what was paid for; empty: a village bill (pay_bill)
	CommandID  string        `json:"command_id"`
	Status     ReceiptStatus `json:"status"`
	BillID     string        `json:"bill_id"`
	Account    string        `json:"account"`
	Parcel     string        `json:"parcel"`
	Payer      string        `json:"payer,omitempty"`
	At         DateTime      `json:"at"`
	Amount     Money         `json:"amount"`
	Tender     Tender        `json:"tender"`
	Reference  string        `json:"reference,omitempty"`
	Card       *CardShown    `json:"card,omitempty"` // the card that paid, from ledger format 3 (card.go)
	Allocation Allocation    `json:"allocation"`
	Balance    Money         `json:"balance"` // the bill's balance right after this payment
	Node       string        `json:"node"`
	Index      uint64        `json:"index,omitempty"` // log index that posted it
	// Lines are the bills of a payment of several (pay_bills), each with
	// its part of Amount, its allocation and its balance after; Allocation
	// and Balance are then their sums, and BillID is empty.
	Lines []ReceiptLine `json:"lines,omitempty"`
}

// RefundDue is an overpayment the village owes back (§5.07(1)): the excess
// of an amount paid over the amount due is refunded within the number of
// business days the parameters give (15 by default).
type RefundDue struct {
	CommandID string   `json:"command_id"`
	Receipt   string   `json:"receipt"`
	BillID    string   `json:"bill_id"`
	Account   string   `json:"account"`
	PaidAt    DateTime `json:"paid_at"`
	Amount    Money    `json:"amount"`
	RefundBy  Date     `json:"refund_by"`
}

// Tx is the view of the ledger that applying a command needs: reads and
// writes of records inside one atomic transaction. The replicated store
// implements it on a Badger transaction; tests implement it on maps. A
// missing record is (zero, false, nil), never an error.
type Tx interface {
	Bill(id string) (Bill, bool, error)
	PutBill(b Bill) error
	Parcel(id string) (Parcel, bool, error)
	PutParcel(p Parcel) error
	Account(number string) (Account, bool, error)
	PutAccount(a Account) error
	PutReceipt(r Receipt) error
	PutRefundDue(r RefundDue) error
	// Empty reports whether the ledger holds no parcels, accounts or bills.
	Empty() (bool, error)

	// Records of other kinds live in named collections, so that a new kind
	// of record needs no change to the stores. Get decodes the record id of
	// collection into v and reports whether it exists; Put writes v (as
	// JSON). Index adds key to a named index (a sorted set of keys scanned
	// by prefix, e.g. "2026-12-01/claim-17" in "letters-by-ready-date");
	// Unindex removes it.
	Get(collection, id string, v any) (bool, error)
	Put(collection, id string, v any) error
	Index(index, key string) error
	Unindex(index, key string) error
}

// CollectionExceptions is the collection of commands the ledger refused,
// by command id: among them offline payments replayed after their premise
// changed. The clerk resolves them; nothing refused is dropped silently.
const CollectionExceptions = "exceptions"

// Exception is a refused command with the reason.
type Exception struct {
	Index   uint64  `json:"index"` // the log entry that refused it
	Command Command `json:"command"`
	Error   *Error  `json:"error"`
}

// Records is the read side of the named collections, for pages and
// exports. A missing record is an ENOTFOUND *Error.
type Records interface {
	Get(collection, id string, v any) error
	// List calls fn with the raw JSON of every record of collection whose
	// id starts with prefix, in id order, until fn returns an error.
	List(collection, prefix string, fn func(id string, raw []byte) error) error
	// Keys returns the keys of index that start with prefix, in order.
	Keys(index, prefix string) ([]string, error)
}

// RecordsFrom is Records that can also start a listing at an id: the
// replicated store seeks to it, so that a read of a few days of a
// collection keyed by date ("<date>/<index>", CollectionBookEntries)
// reads those days, not the years before them. Reads use it when the
// Records they are given has it (listFrom), and walk past the earlier ids
// otherwise.
type RecordsFrom interface {
	// ListFrom calls fn with the raw JSON of every record of collection
	// whose id starts with prefix and is not before from, in id order,
	// until fn returns an error.
	ListFrom(collection, prefix, from string, fn func(id string, raw []byte) error) error
}

// Ledger is what the kiosk and the staff pages need of the replicated
// ledger: submit a command and read records. The sync layer implements it;
// the kiosk declares nothing about Raft or Badger.
type Ledger interface {
	// Submit records cmd durably on this node and has it applied by the
	// cluster. It returns the posted result, or a provisional one when the
	// cluster does not answer within ctx (the command stays queued and posts
	// later), or the domain's *Error when the ledger refuses it.
	Submit(ctx context.Context, cmd Command) (Result, error)
	// NewCommand returns a command of kind k stamped with a fresh id, this
	// node's id, the next receipt sequence and the intake time.
	NewCommand(k Kind, actor string) (Command, error)
	Bill(id string) (Bill, error)
	BillsByAccount(number string) ([]Bill, error)
	BillsByParcel(id string) ([]Bill, error)
	Parcel(id string) (Parcel, error)
	Parcels() ([]Parcel, error)
	Account(number string) (Account, error)
	Receipt(number string) (Receipt, error)
	Params() *Params
	Consistency() Consistency
	Records
	Lookups
}

// Lookups are the questions a ledger answers from indexes it keeps, so
// that a page finds a parcel or a year's bills without reading them all
// (lookup.go).
type Lookups interface {
	// FindParcels returns the parcels q names, in id order, at most
	// q.Bound() of them.
	FindParcels(q ParcelQuery) ([]Parcel, error)
	// BillsOfYear returns a page of the bills q names, in id order, with
	// their payments.
	BillsOfYear(q BillQuery) ([]Bill, error)
	// NovemberBills calls fn, in id order, with the part of every bill of
	// the tax-roll year (of every standing) in the year's November run
	// on day on (NovemberBillOf), until fn returns an error.
	NovemberBills(year int, on Date, fn func(NovemberBill) error) error
	// ParcelCounties returns the county of every parcel in one
	// (County.Valid), by parcel id.
	ParcelCounties() (map[string]County, error)
}

// Consistency says how fresh a read is, so every page can say so honestly.
type Consistency struct {
	Level       string    `json:"level"` // "current", "replica" or "offline"
	LastContact time.Time `json:"last_contact,omitzero"`
	Pending     int       `json:"pending"` // local commands not yet posted
}

// Consistency levels.
const (
	Current = "current" // verified with the leader
	Replica = "replica" // a follower's copy, as of its last contact
	Offline = "offline" // no leader reachable; local commands are queued
)

// NormalizeAddress reduces a street address to a comparable form: lower
// case, punctuation dropped, common suffixes abbreviated ("Street" → "st"),
// so "141 W. Main Street" and "141 w main st" match.
func NormalizeAddress(s string) string {
	repl := map[string]string{
		"street": "st", "str": "st", "avenue": "ave", "av": "ave", "road": "rd", "drive": "dr",
		"lane": "ln", "court": "ct", "place": "pl", "boulevard": "blvd", "circle": "cir",
		"highway": "hwy", "parkway": "pkwy", "terrace": "ter", "trail": "trl",
		"west": "w", "east": "e", "north": "n", "south": "s",
	}
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i, f := range fields {
		if r, ok := repl[f]; ok {
			fields[i] = r
		}
	}
	return strings.Join(fields, " ")
}

// SortBills orders bills by billing date, then id: an account's history.
func SortBills(bills []Bill) {
	sort.Slice(bills, func(i, j int) bool {
		if c := bills[i].BilledOn.Compare(bills[j].BilledOn); c != 0 {
			return c < 0
		}
		return bills[i].ID < bills[j].ID
	})
}
