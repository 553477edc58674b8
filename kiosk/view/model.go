// Package view holds the kiosk's templ components and the view models they
// render. A view model carries what a page shows, already computed by the
// domain and mapped by a handler; components only lay it out and pick the
// words from the message catalogue through the embedded i18n.Printer.
//
// Every element a test needs to find carries a data-testid attribute; tests
// select on those, never on classes or text.
package view

import (
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
)

// Page is what every screen shares: the language and its printer, the
// language switch, the consistency banner, the CSRF token for its forms and
// the idle timer.
type Page struct {
	i18n.Printer
	Title  string     // the page's title, already translated
	Langs  []LangLink // the language switch, one link per language
	Banner *Banner    // nil when the records are current
	CSRF   string     // the token every POST form carries
	Idle   Idle       // zero: no idle timer (the start screen)
	Home   bool       // the start screen, which needs no "start over" link
	CSS    string     // the stylesheet's URL
	JS     string     // the script's URL
	Icon   string     // the favicon's URL
	// StartsOver: the page's own first action starts over, so the header
	// does not offer it a second time.
	StartsOver bool
}

// LangLink is one entry of the language switch.
type LangLink struct {
	Lang    i18n.Lang
	Label   string // the language's own name: "English", "Español"
	URL     string // this page in that language
	Current bool
}

// Banner says that the records shown may not be current.
type Banner struct {
	Offline bool      // no leader reachable: payments queue on this node
	AsOf    time.Time // last contact with the leader, in the village's zone; zero if never
	Pending int       // payments taken here that have not posted yet
}

// Idle configures the idle timer: after Seconds without a touch the kiosk
// returns to URL, warning Warn seconds before.
type Idle struct {
	Seconds int
	Warn    int
	URL     string
}

// Problem is an error shown to a resident: what is wrong and what to do.
type Problem struct {
	Message    string
	Suggestion string
}

// Start is the start screen.
type Start struct {
	FindURL string
	Menu    []Menu // the other things a resident can do here
	CardOff bool   // this kiosk takes no card payments today
}

// CardOff tells a resident that this kiosk takes no card payments today (it
// has no card terminal) and how to pay at the clerk's window instead: the
// amounts to pay there and what to bring. Its words are already
// translated, as a Problem's are.
type CardOff struct {
	Amounts   []Due    // what to pay at the window
	Bring     []string // what to bring
	BackURL   string   // on a page of its own: where to go back to
	BackLabel string
}

// Due is an amount to pay and what it is for.
type Due struct {
	Label  string
	Amount domain.Money
}

// Find is the search screen and, when a search found several things, its
// results.
type Find struct {
	Query     string
	Suggested bool // Groups are near matches of a query that matched nothing exactly
	Problem   *Problem
	Groups    []Group
	Action    string
	// DidYouMean are addresses the ledger holds that a query matching
	// nothing was a few letters away from, each with its search.
	DidYouMean []Link
}

// Link is a labelled address on the kiosk.
type Link struct {
	Label, URL string
}

// Group is a set of bills found together: an account's, a parcel's.
type Group struct {
	Kind     string // "account", "parcel" or "bill"
	Key      string // the account number or parcel id
	Title    string // already translated: "Account 1001"
	Subtitle string // a name or an address
	URL      string
	Bills    []BillRow
	// Assessments are a parcel's special assessments (§5.14), paid like
	// its bills.
	Assessments []AssessmentRow
	// Due is what the group's bills that take a payment today owe
	// together (§5.10); zero when none does.
	Due domain.Money
	// PayAll offers to pay those bills together, one offer per account
	// with two or more of them (a payment of several bills is of one
	// account); none when the kiosk takes no cards.
	PayAll []PayAll
}

// PayAll is a link to pay several bills of an account with one charge.
type PayAll struct {
	URL   string
	Label string // already translated: "Pay 3 bills together: $412.30"
}

// BillRow is one bill in a list, with its figures as of today.
type BillRow struct {
	ID string
	// Shown is the bill's number for people ("2026-000123"), or its ID
	// for a bill made before the ledger gave numbers.
	Shown       string
	Description string
	Account     string
	Parcel      string
	Address     string
	BilledOn    domain.Date
	DueOn       domain.Date
	Status      domain.BillStatus
	Balance     domain.Money
	URL         string
}

// Number is the bill's number as people read it: Shown, else the ID.
func (b BillRow) Number() string {
	if b.Shown != "" {
		return b.Shown
	}
	return b.ID
}

// BillNumber is the paid bill's number as people read it: BillShown,
// else the bill's ID.
func (r Receipt) BillNumber() string {
	if r.BillShown != "" {
		return r.BillShown
	}
	return r.BillID
}

// Next names what happens next to a bill, so the page can say it in plain
// words.
type Next string

// What can happen next to a bill.
const (
	NextPayBy        Next = "pay_by"        // not yet due: no interest if paid by the due date
	NextInterest     Next = "interest"      // past due: monthly interest, then the penalty and the tax roll
	NextAfterPenalty Next = "after_penalty" // the penalty posted: the tax roll is next
	NextPaid         Next = "paid"
	NextTaxRoll      Next = "tax_roll"
	NextRollPending  Next = "tax_roll_pending" // past November 15, not yet certified: still payable
)

// Bill is the bill detail screen: today's amount due broken down and what
// happens next.
type Bill struct {
	BillRow
	Today          domain.Date
	Principal      domain.Money
	Interest       []Charge // one per month of interest posted
	Penalty        *Charge  // nil until the November penalty posts
	Payments       []Payment
	Paid           domain.Money
	PenaltyOn      domain.Date
	TaxRollOn      domain.Date
	CertifiedOn    domain.Date // the day the November run certified it to the tax roll (zero: not certified)
	NextInterestOn domain.Date
	InterestRate   string // "1.5%"
	PenaltyRate    string // "1.5%"
	Next           Next
	Payable        bool
	CardOff        *CardOff // payable, but not by card at this kiosk: where to pay instead
	PayURL         string
	AccountURL     string
	PayAll         *PayAll // the account's payable bills paid together, when there are two or more
	TaxURL         string  // the parcel's property tax bills, where a bill on the roll is paid
	Section        string  // the ordinance section cited: "§5.10"
}

// LastUnpaidDay returns the last day the bill can be paid before the
// penalty posts: the day before PenaltyOn.
func (b Bill) LastUnpaidDay() domain.Date { return b.PenaltyOn.AddDays(-1) }

// Charge is one posting to a bill: a month of interest or the penalty.
type Charge struct {
	Month  int // 1-based; interest only
	On     domain.Date
	Base   domain.Money // the unpaid principal it was computed on
	Amount domain.Money
}

// Payment is one payment already posted to a bill.
type Payment struct {
	On      domain.Date
	Amount  domain.Money
	Receipt string
}

// Pay is the form where a resident chooses how much to pay.
type Pay struct {
	Bill    BillRow
	Amount  string // as typed, for a re-render
	Full    string // the balance as the page's language types it
	Problem *Problem
	Action  string
	BackURL string
}

// Confirm is the screen shown before the card is charged: the amount, how
// it will be applied and what remains. Its form carries the command id and
// a signature over the bill, amount and command id.
type Confirm struct {
	Bill       BillRow
	Amount     domain.Money
	Allocation domain.Allocation
	Remaining  domain.Money
	CommandID  string
	Signature  string
	Action     string
	ChangeURL  string
	Problem    *Problem // why the last charge did not go through
	Simulator  bool     // show the demo terminal panel
	Outcomes   []string // the simulator's outcomes, when Simulator
}

// Receipt is the receipt screen, printable on 80 mm paper.
type Receipt struct {
	Number string
	Status domain.ReceiptStatus
	At     time.Time
	BillID string
	// BillShown is the paid bill's number for people (its ID for an
	// older bill); empty when the bill is not read.
	BillShown   string
	Description string
	Account     string
	Parcel      string
	Amount      domain.Money
	Tender      domain.Tender
	Reference   string
	Allocation  domain.Allocation
	Balance     domain.Money
	Node        string
	Index       uint64
	DoneURL     string
	BillURL     string
	// Letterhead is the village's name, address and telephone, printed
	// at the top and, as where questions go, at the foot.
	Letterhead Letterhead
	// QR is a QR code (a data: URL of a PNG) that opens QRLink, the
	// receipt on the village's public site; empty when none is configured.
	QR, QRLink string
	// Card is the card's brand and last four digits as the terminal gives
	// them ("Visa •••• 4242"); empty when it gives none.
	Card string
	// Email is the form to e-mail a copy; nil when the node has no relay.
	Email *ReceiptEmail
	// Lines are the bills of a payment of several (Cart), each with its
	// part, its allocation and its balance after.
	Lines []ReceiptLine

	// Kind says what was paid for: a village bill (empty), a status
	// letter's fee, or property tax.
	Kind domain.Kind
	// A status letter's claim: where, for whom, received and ready by.
	Address    string
	Requester  string
	ReceivedOn domain.Date
	ReadyBy    domain.Date
	// Property tax: the roll year, the county and the option paid.
	TaxYear int
	County  string
	Option  domain.TaxOption
}

// Letterhead is the village as a receipt names it. Empty fields are left
// off; an empty Name is the catalogue's village name.
type Letterhead struct {
	Name, Address, Phone, Email string
}

// ReceiptEmail is the receipt's "e-mail me a copy" form and its outcome.
type ReceiptEmail struct {
	Action  string // POST: the address to send a copy to
	Address string // as typed
	Queued  string // the address a copy was queued for, after sending the form
	Problem *Problem
}

// Letter reports whether the receipt is for a status letter's fee.
func (r Receipt) Letter() bool { return r.Kind == domain.KindRequestStatusLetter }

// TimeLabel is the catalogue key that names the receipt's time: when the
// payment was received, or, on a status letter's receipt, when the
// request was made (its "received" day is the one §5.11 counts from).
func (r Receipt) TimeLabel() string {
	if r.Letter() {
		return "receipt.time_letter"
	}
	return "receipt.time"
}

// Tax reports whether the receipt is for a property tax payment.
func (r Receipt) Tax() bool { return r.Kind == domain.KindPayPropertyTax }

// Provisional reports whether the receipt's payment has not posted yet.
func (r Receipt) Provisional() bool { return r.Status == domain.Provisional }

// Error is an error screen.
type Error struct {
	Status    int
	Problem   Problem
	BackURL   string
	BackLabel string
}
