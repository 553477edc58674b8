// Package terminal is the kiosk's side of the card payment terminal. Card
// data never touches the appliance: the terminal takes the card, talks to the
// processor and returns an approval reference or a reason it did not charge.
//
// A charge is keyed by the id of the pay_bill command it pays for, so a
// retried request (a double tap, a browser retry, a restart between the
// charge and the ledger write) asks the terminal for the same charge again
// and the card is charged once. A refund is keyed by its own id likewise.
//
// Two terminals implement the interface: the Simulator (development, demos,
// tests) and the Stripe Terminal driver in the stripe sub-package (a smart
// reader on the hall's LAN, driven from the server through Stripe's API).
package terminal

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/villagehall/appliance/domain"
)

// Terminal charges a card, gives money back to it, and stops a charge the
// resident walked away from.
type Terminal interface {
	// Charge asks the resident for a card and charges amount to it. key
	// identifies the charge: a second call with a key that was approved
	// returns the first approval and charges nothing. It returns ErrDeclined,
	// ErrTimeout or ErrCancelled (possibly wrapped) when no money moved,
	// ErrUnavailable when the terminal or its processor cannot take cards
	// now, and honours ctx: when ctx ends the terminal stops asking for the
	// card (and answers with the approval if the card was charged already).
	Charge(ctx context.Context, key string, amount domain.Money) (Approval, error)
	// Refund gives r.Amount of an approved charge back to its card. r.Key
	// identifies the refund: a second call with the same key refunds
	// nothing more and returns the first refund.
	Refund(ctx context.Context, r RefundRequest) (Refund, error)
	// Cancel stops the charge of key if it is still waiting at the
	// terminal (the resident walked away or pressed Cancel on the screen);
	// that Charge call then returns ErrCancelled. No charge in progress is
	// not an error.
	Cancel(ctx context.Context, key string) error
	// Capabilities says what the terminal can do.
	Capabilities() Capabilities
}

// Capabilities are what a terminal declares about itself.
type Capabilities struct {
	// StoreAndForward is a terminal that approves a card while its
	// processor is unreachable and sends the charge on later, at the
	// village's risk (the node's offline card limit bounds that risk). A
	// cloud-driven reader cannot: without the internet it takes no cards.
	StoreAndForward bool
}

// Checker is implemented by terminals that can say whether they can take a
// card now (the reader is online, the processor answers, the keys are
// right). The kiosk asks before it offers card payments.
type Checker interface {
	Check(ctx context.Context) error
}

// Statement is implemented by terminals whose processor keeps an account
// of the money it moved: the daily card reconciliation reads it.
type Statement interface {
	// Transactions returns the processor's balance transactions created in
	// [from, to): charges, refunds, fees and payouts.
	Transactions(ctx context.Context, from, to time.Time) ([]Transaction, error)
}

// Transaction is one movement of the village's money at the processor.
type Transaction struct {
	ID        string       // the processor's id of the movement
	Type      string       // "charge", "refund", "payout", "adjustment", …
	Created   time.Time    // when the processor made it
	Amount    domain.Money // gross: positive for a charge, negative for a refund or payout
	Fee       domain.Money // the processor's fee (positive)
	Net       domain.Money // Amount − Fee
	CommandID string       // the ledger command it belongs to (the charge's or refund's metadata), or ""
	Source    string       // the processor's id of the charge, refund or payout
}

// outcome is a charge that did not happen, with the HTTP status a page
// answers it with (kiosk/httperr.Statuser).
type outcome struct {
	msg    string
	status int
}

func (o outcome) Error() string   { return o.msg }
func (o outcome) HTTPStatus() int { return o.status }

// Approval is the terminal's answer to an approved charge. It holds no card
// data beyond what a receipt may print.
type Approval struct {
	Key       string       // the charge's key: the pay_bill command id
	Reference string       // the processor's approval reference, printed on the receipt
	Amount    domain.Money // the amount charged
	// Card is the card's brand and last four digits, printed on the
	// receipt; nil when the terminal did not give them (or gave what
	// domain.CardShown.Check refuses). Never logged.
	Card *domain.CardShown
}

// CardOf returns the card brand and last4 describe, or nil when they are
// not a brand and four digits (domain.CardShown.Check): a terminal
// reports only what a receipt may print, and an approval stands without
// it.
func CardOf(brand, last4 string) *domain.CardShown {
	c := &domain.CardShown{Brand: brand, Last4: last4}
	if c.Brand == "" {
		c.Brand = "unknown"
	}
	if c.Check() != nil {
		return nil
	}
	return c
}

// RefundRequest asks for money back on an approved charge.
type RefundRequest struct {
	Key       string       // the refund's own key (its command id): a retry refunds once
	ChargeKey string       // the key the charge was made with
	Reference string       // the charge's approval reference
	Amount    domain.Money // how much goes back, at most what the charge still holds
	Reason    string       // why, for the processor's records ("ledger refused the payment")
}

// Refund is the terminal's answer to a refund it made.
type Refund struct {
	Key       string
	Reference string // the processor's refund reference
	Amount    domain.Money
}

// Reasons a charge did not happen. In each case the card was not charged and
// the resident may try again with the same key.
var (
	ErrDeclined  error = outcome{"terminal: card declined", http.StatusPaymentRequired}
	ErrTimeout   error = outcome{"terminal: no answer in time", http.StatusGatewayTimeout}
	ErrCancelled error = outcome{"terminal: cancelled at the terminal", http.StatusPaymentRequired}
	// ErrUnavailable is a terminal that cannot take cards now: the
	// processor is unreachable, refuses the keys, does not know the
	// reader, or answers what cannot be read. The resident pays at the
	// clerk's window; the wrapped detail is for the staff's log.
	ErrUnavailable error = outcome{"terminal: card payments unavailable", http.StatusServiceUnavailable}
)

// Declined is a decline with the processor's reason in plain words ("The
// card has insufficient funds."). It is ErrDeclined for errors.Is.
type Declined struct{ Reason string }

func (d Declined) Error() string {
	if d.Reason == "" {
		return ErrDeclined.Error()
	}
	return ErrDeclined.Error() + ": " + d.Reason
}

// Is makes a Declined an ErrDeclined.
func (d Declined) Is(target error) bool { return target == ErrDeclined }

// HTTPStatus is ErrDeclined's.
func (Declined) HTTPStatus() int { return http.StatusPaymentRequired }

// DeclineReason returns the processor's plain reason for a decline in err,
// or "".
func DeclineReason(err error) string {
	var d Declined
	if errors.As(err, &d) {
		return d.Reason
	}
	return ""
}
