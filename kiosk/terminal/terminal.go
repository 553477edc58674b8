// Package terminal is the kiosk's side of the card payment terminal. Card
// data never touches the appliance: the terminal takes the card, talks to the
// processor and returns an approval reference or a reason it did not charge.
//
// A charge is keyed by the id of the pay_bill command it pays for, so a
// retried request (a double tap, a browser retry, a restart between the
// charge and the ledger write) asks the terminal for the same charge again
// and the card is charged once.
package terminal

import (
	"context"
	"net/http"

	"github.com/villagehall/appliance/domain"
)

// Terminal charges a card.
type Terminal interface {
	// Charge asks the resident for a card and charges amount to it. key
	// identifies the charge: a second call with a key that was approved
	// returns the first approval and charges nothing. It returns ErrDeclined,
	// ErrTimeout or ErrCancelled (possibly wrapped) when no money moved, and
	// honours ctx.
	Charge(ctx context.Context, key string, amount domain.Money) (Approval, error)
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
}

// Reasons a charge did not happen. In each case the card was not charged and
// the resident may try again with the same key.
var (
	ErrDeclined  error = outcome{"terminal: card declined", http.StatusPaymentRequired}
	ErrTimeout   error = outcome{"terminal: no answer in time", http.StatusGatewayTimeout}
	ErrCancelled error = outcome{"terminal: cancelled at the terminal", http.StatusPaymentRequired}
)
