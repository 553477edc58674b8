package kiosk

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/view"
)

// submitCharge takes the payment the confirmation page showed: it checks the
// form's signature, stamps a pay_bill command (ledger.NewCommand) with the
// id the page fixed, charges the card through the terminal keyed by that
// id, submits the command to the ledger and shows the receipt.
//
// The command id was fixed when the confirmation page was made, so a double
// tap or a browser retry is the same payment: the terminal returns the
// first approval and the ledger the first result, and the card is charged
// once. A decline, a timeout or a cancel at the terminal comes back to the
// confirmation page with a plain message and nothing submitted. Once the
// card is charged the rest runs on a context the browser cannot cancel. A
// kiosk without a terminal charges nothing and submits nothing: it says
// where to pay instead.
func (s *Server) submitCharge(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showBillCardOff(w, r, r.PathValue("id"))
		return
	}
	f, ok := s.verify(r, r.PathValue("id"), r.PostForm.Get("amount"), r.PostForm.Get("command_id"), r.PostForm.Get("sig"))
	if !ok {
		s.refuseTampered(w, r)
		return
	}
	b, err := s.ledger.Bill(f.BillID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc, ok := paidBy(b, f.CommandID); ok {
		redirect(w, r, s.receiptURL(r, rc))
		return
	}
	rows := s.rows()
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !payable(fig) || f.Amount.GreaterThan(fig.Balance) {
		s.renderConfirm(w, r, http.StatusConflict, b, f, nil)
		return
	}

	// The command is stamped before the card is charged, so that a ledger
	// that refuses to take payments now (a clock it distrusts) refuses
	// before any money moves. A refused charge leaves a gap in this node's
	// receipt sequence, which only needs to be unique.
	cmd, err := s.ledger.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		s.fail(w, r, fmt.Errorf("new pay_bill command: %w", err))
		return
	}
	cmd.ID = f.CommandID

	approval, err := s.charge(r, f.CommandID, f.Amount)
	if err != nil {
		if !isTerminalOutcome(err) {
			err = chargeError{err}
		}
		status, msg, hint := errorStatus(err)
		s.log.Info("card not charged", "bill", f.BillID, "command", f.CommandID, "amount", f.Amount, "err", err)
		p := s.page(r, s.confirmURL(f), "title.confirm")
		s.renderConfirm(w, r, status, b, f, &view.Problem{Message: p.T(msg), Suggestion: p.T(hint)})
		return
	}

	cmd.Payload = &domain.PayBill{BillID: f.BillID, Amount: f.Amount, Tender: domain.Card, Reference: approval.Reference}
	rc, readBack, err := s.record(r, cmd)
	if err != nil {
		s.log.Error("card charged but payment not recorded",
			"bill", f.BillID, "command", f.CommandID, "amount", f.Amount, "approval", approval.Reference, "err", err)
		s.showProblem(w, r, http.StatusBadGateway, "charge.not_recorded", "charge.not_recorded_hint", billURL(f.BillID), "pay.back", "ref", approval.Reference)
		return
	}
	s.log.Info("payment taken", "receipt", rc.Number, "status", rc.Status, "bill", rc.BillID, "command", rc.CommandID, "amount", rc.Amount, "approval", approval.Reference)
	s.showRecorded(w, r, rc, readBack)
}

// charge asks the terminal for a card payment of amount keyed by the
// command id, on a context the browser cannot cancel. Only a demo kiosk
// (Config.Simulator, with a terminal whose outcome can be set) reads the
// form's "terminal" field, to choose the simulator's answer; anywhere else
// the field is never read, so a posted terminal=approve reaches no
// terminal. Callers check takesCards first.
func (s *Server) charge(r *http.Request, key string, amount domain.Money) (terminal.Approval, error) {
	if s.sim != nil {
		if o, ok := terminal.ParseOutcome(r.PostForm.Get("terminal")); ok {
			s.sim.SetNext(o)
		}
	}
	ctx, cancel := detached(r, chargeTimeout)
	defer cancel()
	return s.terminal.Charge(ctx, key, amount)
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

func isTerminalOutcome(err error) bool {
	return errors.Is(err, terminal.ErrDeclined) || errors.Is(err, terminal.ErrTimeout) || errors.Is(err, terminal.ErrCancelled)
}
