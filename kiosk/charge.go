package kiosk

// The card charge and the recording of a payment, the steps every
// checkout (checkout.go) ends with.

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// charge asks the terminal for a card payment of amount keyed by the
// command id. It runs on the request's context with a deadline: a resident
// who walks away (the page's idle reset or another tap leaves the page, and
// the browser drops the request) ends it, and the terminal stops asking
// for the card; a card charged meanwhile still comes back as an approval,
// and everything after it runs on a context the browser cannot cancel.
// Only a demo kiosk (Config.Simulator, with a terminal whose outcome can
// be set) reads the form's "terminal" field, to choose the simulator's
// answer for this charge alone (keyed by its command id); anywhere else
// the field is never read, so a posted terminal=approve reaches no
// terminal. Callers check takesCards first.
func (s *Server) charge(r *http.Request, key string, amount domain.Money) (terminal.Approval, error) {
	if s.sim != nil {
		if o, ok := terminal.ParseOutcome(r.PostForm.Get("terminal")); ok {
			s.sim.SetOutcome(key, o)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), chargeTimeout)
	defer cancel()
	return s.terminal.Charge(ctx, key, amount)
}

// stampChecker is implemented by a ledger that can say, without taking a
// receipt number, whether it would stamp a command of kind k now (a clock
// it distrusts, a halted node). The kiosk asks before the card is charged
// and stamps the command only once the card is approved, so a declined or
// cancelled charge takes no receipt number and leaves no gap in the
// clerk's sequence.
type stampChecker interface {
	CheckStamp(k domain.Kind) error
}

// checkStamp says why the ledger would refuse to stamp a command of kind
// k now, if it would.
func (s *Server) checkStamp(k domain.Kind) error {
	if c, ok := s.ledger.(stampChecker); ok {
		return c.CheckStamp(k)
	}
	return nil
}

// refundCharge gives an approved charge back to the card because the
// ledger refused the payment it paid for (the bill was certified to the tax
// roll meanwhile, a race): nothing was recorded, so nothing may stay
// charged. The refund is keyed by the command id, so a retry refunds once.
func (s *Server) refundCharge(r *http.Request, a terminal.Approval, why string) (terminal.Refund, error) {
	ctx, cancel := detached(r, chargeTimeout)
	defer cancel()
	return s.terminal.Refund(ctx, terminal.RefundRequest{Key: a.Key + "-void", ChargeKey: a.Key, Reference: a.Reference, Amount: a.Amount, Reason: why})
}

// formatReader is implemented by a ledger that knows the replicated
// ledger's format (replica.Node).
type formatReader interface {
	LedgerFormat() int
}

// cardShown returns what a payment's command carries of the card that
// paid (its brand and last four digits, for the receipt), or nil: when the
// terminal gave none, or while the cluster's ledger is below the format
// that records it (domain.CardShownSince). A node of an earlier release
// refuses a payload field it does not know and halts on it, so the field
// enters the log only once every member applies it. A ledger that does not
// say its format is this build's.
func (s *Server) cardShown(a terminal.Approval) *domain.CardShown {
	if a.Card == nil || a.Card.Check() != nil {
		return nil
	}
	if f, ok := s.ledger.(formatReader); ok && f.LedgerFormat() < domain.CardShownSince {
		return nil
	}
	return &domain.CardShown{Brand: a.Card.Brand, Last4: a.Card.Last4}
}

// outcomes returns the simulator's outcomes, for its panel.
func outcomes() []string {
	var out []string
	for _, o := range terminal.Outcomes() {
		out = append(out, string(o))
	}
	return out
}

// record submits the command of a charged payment and waits a short while
// for it to post; past that the ledger answers with a provisional receipt
// and posts it later. The command id is the one the confirmation page
// fixed, so the ledger applies it once however often it arrives. A
// provisional answer without a receipt (a ledger that does not yet make
// one for this kind, and so cannot read it back either) gets the
// command's own provisional receipt, and readBack false: the caller shows
// it in its answer instead of redirecting to a receipt page the ledger
// cannot serve yet.
func (s *Server) record(r *http.Request, cmd domain.Command) (rc domain.Receipt, readBack bool, err error) {
	ctx, cancel := detached(r, submitWait)
	defer cancel()
	res, err := s.ledger.Submit(ctx, cmd)
	if err != nil {
		return domain.Receipt{}, false, fmt.Errorf("submit %s: %w", cmd.ID, err)
	}
	if res.Error != nil {
		return domain.Receipt{}, false, fmt.Errorf("submit %s: %w", cmd.ID, res.Error)
	}
	if res.Receipt == nil {
		if res.Index == 0 {
			if p := cmd.ProvisionalReceipt(); p != nil {
				return *p, false, nil
			}
		}
		return domain.Receipt{}, false, fmt.Errorf("submit %s: the ledger returned no receipt", cmd.ID)
	}
	return *res.Receipt, true, nil
}

// showRecorded leads to the receipt of a payment just recorded: a
// redirect to its page, or, when the ledger cannot read it back yet, the
// receipt itself in this answer.
func (s *Server) showRecorded(w http.ResponseWriter, r *http.Request, rc domain.Receipt, readBack bool) {
	if readBack {
		redirect(w, r, s.receiptURL(r, rc.Number))
		return
	}
	s.renderReceipt(w, r, rc)
}

// chargeError is a failure of the terminal other than its three outcomes
// (a broken connection, a context that ended): the charge may be retried
// with the same key.
type chargeError struct{ err error }

func (e chargeError) Error() string { return "card terminal: " + e.err.Error() }
func (e chargeError) Unwrap() error { return e.err }

// HTTPStatus is 502: the terminal failed us (kiosk/httperr).
func (chargeError) HTTPStatus() int { return http.StatusBadGateway }

func isTerminalOutcome(err error) bool {
	return errors.Is(err, terminal.ErrDeclined) || errors.Is(err, terminal.ErrTimeout) || errors.Is(err, terminal.ErrCancelled) || errors.Is(err, terminal.ErrUnavailable)
}
