package letters

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// showRequestPage is the form to take a status letter request at the
// window, with the fee and the dates of a request made now.
func (m *Module) showRequestPage(w http.ResponseWriter, r *http.Request) {
	f := RequestForm{CommandID: newCommandID()}
	m.requestPage(w, r, http.StatusOK, f)
}

// requestPage shows the request form with today's terms, the clerk's
// open drawer and whether the node takes cards.
func (m *Module) requestPage(w http.ResponseWriter, r *http.Request, status int, f RequestForm) {
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: domain.DateTimeOf(m.o.Now().In(m.o.Location()))}, m.o.Ledger().Params())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f.Fee, f.ReceivedOn, f.ReadyBy = sl.Fee.String(), sl.ReceivedOn.String(), sl.ReadyBy.String()
	if d, ok, err := m.o.Reads().OpenDrawer(m.o.Who(r).Username); err != nil {
		m.o.Fail(w, r, err)
		return
	} else if ok {
		f.Drawer = d.ID
	}
	f.Card = m.o.CardTerminal() != nil
	m.o.Render(w, r, status, RequestPage(m.o.Frame(r, "Status letter request"), f))
}

// newCommandID is a fresh id for a form's command: a card charged for it
// is keyed by it, so sending the form again charges nothing more.
func newCommandID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// validCommandID reports whether a form's command id is one the page
// made (hex, of a sane length).
func validCommandID(id string) bool {
	if len(id) < 8 || len(id) > 40 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// feeBillID numbers the bill of a fee paid by check or billed on account
// from the command's id, so that the same request sent again (a retry of
// the API with its command id) is the same command and answers with its
// first result.
func feeBillID(c *domain.Command) string {
	sum := sha256.Sum256([]byte(c.ID))
	return fmt.Sprintf("B-%d-SL-%s", c.At.Date.Year(), hex.EncodeToString(sum[:6]))
}

// letterRequest is a request as a form or the API gives it, before it is
// checked.
type letterRequest struct {
	Parcel, Requester, Contact, Email, ClosingOn, Delivery, MailTo, Payment, Reference, Account, Fee string
}

// payload checks what can be checked before anything is charged (a card
// is charged before the command is submitted) and returns the command's
// payload; the ledger checks it all again. Each error is a sentence the
// clerk or the API's client can act on.
func (m *Module) payload(in letterRequest) (*domain.OfficeStatusLetter, error) {
	name, contact, err := domain.CheckStatusRequester(in.Requester, in.Contact)
	if err != nil {
		return nil, err
	}
	p := &domain.OfficeStatusLetter{Parcel: strings.TrimSpace(in.Parcel), Requester: name, Contact: contact, Delivery: in.Delivery, MailTo: strings.TrimSpace(in.MailTo),
		Payment: in.Payment, Reference: strings.TrimSpace(in.Reference), Account: strings.TrimSpace(in.Account)}
	if p.Delivery == "" {
		p.Delivery = domain.DeliverEmail
	}
	if strings.TrimSpace(in.Email) != "" || p.Delivery == domain.DeliverEmail {
		if p.Email, err = domain.CheckEmail(in.Email); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(in.ClosingOn) != "" {
		if p.ClosingOn, err = staff.ParseDate("The closing date", strings.TrimSpace(in.ClosingOn)); err != nil {
			return nil, err
		}
	}
	if p.Parcel == "" {
		return nil, domain.Errorf(domain.EINVALID, "§5.11", "The parcel number is required.")
	}
	if _, err := m.o.Ledger().Parcel(p.Parcel); err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return nil, domain.Errorf(domain.ENOTFOUND, "§5.11", "There is no parcel %q.", p.Parcel)
		}
		return nil, err
	}
	if p.Fee, err = staff.ParseAmount("The fee", in.Fee); err != nil {
		return nil, err
	}
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: domain.DateTimeOf(m.o.Now().In(m.o.Location()))}, m.o.Ledger().Params())
	if err != nil {
		return nil, err
	}
	if !p.Fee.Equal(sl.Fee) {
		return nil, domain.Errorf(domain.ECONFLICT, "§5.11", "The status letter fee today is %s, not %s.", sl.Fee, p.Fee)
	}
	switch p.Payment {
	case domain.PayCheck:
		if p.Reference == "" {
			return nil, domain.Errorf(domain.EINVALID, "§5.11", "The check number is required.")
		}
		fallthrough
	case domain.PayAccount:
		if p.Account == "" {
			return nil, domain.Errorf(domain.EINVALID, "§5.11", "Name the requester's village account: a check or a bill on account is recorded on it.")
		}
		if _, err := m.o.Ledger().Account(p.Account); err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				return nil, domain.Errorf(domain.ENOTFOUND, "§5.11", "There is no account %q.", p.Account)
			}
			return nil, err
		}
	case domain.PayCard:
		if p.Account != "" {
			return nil, domain.Errorf(domain.EINVALID, "§5.11", "A fee paid by card is not billed to an account; leave the account empty.")
		}
	default:
		return nil, domain.Errorf(domain.EINVALID, "§5.11", "Choose how the fee is paid: card, check or on account.")
	}
	return p, p.Check()
}

// submitRequest takes a request at the window: the fee by card on the
// window's terminal (charged once the request is found good), by check
// into the clerk's open drawer, or billed on account. A problem shows the
// form again with what is wrong; nothing is charged or recorded.
func (m *Module) submitRequest(w http.ResponseWriter, r *http.Request) {
	f := RequestForm{CommandID: m.o.Form(r, "command_id"), Parcel: m.o.Form(r, "parcel"), Requester: m.o.Form(r, "requester"), Contact: m.o.Form(r, "contact"),
		Email: m.o.Form(r, "email"), ClosingOn: m.o.Form(r, "closing_on"), Delivery: m.o.Form(r, "delivery"), MailTo: m.o.Form(r, "mail_to"),
		Payment: m.o.Form(r, "payment"), CheckNumber: m.o.Form(r, "check_number"), Account: m.o.Form(r, "account")}
	again := func(err error) {
		st, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		f.Error = msg
		m.requestPage(w, r, st, f)
	}
	if !validCommandID(f.CommandID) {
		f.CommandID = newCommandID()
		again(domain.Errorf(domain.EINVALID, "", "The form expired; check it and send it again."))
		return
	}
	ref := ""
	if f.Payment == domain.PayCheck {
		ref = f.CheckNumber
	}
	p, err := m.payload(letterRequest{Parcel: f.Parcel, Requester: f.Requester, Contact: f.Contact, Email: f.Email, ClosingOn: f.ClosingOn, Delivery: f.Delivery, MailTo: f.MailTo,
		Payment: f.Payment, Reference: ref, Account: f.Account, Fee: m.o.Form(r, "fee")})
	if err != nil {
		again(err)
		return
	}
	// The same form sent again (a double click, a retry) is the request
	// it made: its letter, never a second charge.
	if claim, ok, err := m.letterOf("win-" + f.CommandID); err != nil || ok {
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		m.o.Redirect(w, r, "/staff/letters/"+claim)
		return
	}
	var charged *terminal.Approval
	switch p.Payment {
	case domain.PayCheck:
		d, ok, err := m.o.Reads().OpenDrawer(m.o.Who(r).Username)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		if !ok {
			again(domain.Errorf(domain.ECONFLICT, "", "Open a drawer at the window before taking a check."))
			return
		}
		p.DrawerID = d.ID
	case domain.PayCard:
		cards := m.o.CardTerminal()
		if cards == nil {
			again(domain.Errorf(domain.EINVALID, "", "This node has no card terminal; take a check or bill the account."))
			return
		}
		// The ledger is asked whether it takes the kind now (its format,
		// a clock it trusts) before any money moves.
		if err := m.o.CanRecord(domain.KindOfficeStatusLetter); err != nil {
			again(err)
			return
		}
		a, err := cards.Charge(r.Context(), "win-"+f.CommandID, p.Fee)
		if err != nil {
			msg := "The card was not charged: " + err.Error() + "."
			if errors.Is(err, terminal.ErrDeclined) {
				msg = "The card was declined; nothing was charged."
			}
			again(domain.Errorf(domain.ECONFLICT, "", "%s", msg))
			return
		}
		p.Reference, p.Card = a.Reference, a.Card
		charged = &a
	}
	res, err := m.o.SubmitWith(r, domain.KindOfficeStatusLetter, func(c *domain.Command) {
		c.ID = "win-" + f.CommandID
		if p.Payment != domain.PayCard {
			p.BillID = feeBillID(c)
		}
		c.Payload = p
	})
	if err != nil && charged != nil {
		why, refunded := m.chargeNotRecorded(r, *charged, err)
		if !refunded {
			m.o.Fail(w, r, why)
			return
		}
		f.CommandID = newCommandID()
		again(why)
		return
	}
	if err != nil {
		again(err)
		return
	}
	m.o.Redirect(w, r, "/staff/letters/"+res.Ref)
}

// chargeNotRecorded settles a request whose fee was charged on the card
// but which the ledger did not record, and says what happened. A refusal
// gives the charge back to the card (refunded): the form is shown again,
// under a new command id so that the request corrected is a new one. A
// request not known to be refused (it may still post from this node's
// outbox) keeps its charge, and the clerk is told not to charge again.
func (m *Module) chargeNotRecorded(r *http.Request, a terminal.Approval, err error) (why error, refunded bool) {
	var refused *domain.Error
	if _, known, kerr := m.letterOf(a.Key); kerr != nil || known {
		// The terminal answered for a command the ledger holds: its
		// charge is that letter's, never refunded for this request.
		return domain.Errorf(domain.ECONFLICT, "§5.11", "This form was already used for a request: start a new one from the letters queue."), false
	}
	if !errors.As(err, &refused) || refused.Code == domain.EUNAVAILABLE {
		m.o.Log().Error("status letter fee charged at the window but not recorded", "command", a.Key, "approval", a.Reference, "err", err)
		return domain.Errorf(domain.EUNAVAILABLE, "§5.11", "The card was charged (approval %s) but the request is not confirmed yet: it is recorded when the network returns. Do not charge again; the letters queue shows it once recorded.", a.Reference), false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), refundTimeout)
	defer cancel()
	if _, rerr := m.o.CardTerminal().Refund(ctx, terminal.RefundRequest{Key: a.Key + "-void", ChargeKey: a.Key, Reference: a.Reference, Amount: a.Amount, Reason: "the ledger refused the request: " + refused.Message}); rerr != nil {
		m.o.Log().Error("status letter fee charged, request refused, refund failed", "command", a.Key, "approval", a.Reference, "refused", refused.Message, "err", rerr)
		return domain.Errorf(domain.ECONFLICT, refused.Section, "%s The card was charged (approval %s) and the refund failed: refund it from the card reconciliation before charging again.", refused.Message, a.Reference), true
	}
	m.o.Log().Warn("status letter request refused; the card was refunded", "command", a.Key, "approval", a.Reference, "refused", refused.Message)
	return domain.Errorf(refused.Code, refused.Section, "%s The %s charged was given back to the card.", refused.Message, staff.Dollars(a.Amount)), true
}

// letterOf finds the status letter a command made, by the command's id.
func (m *Module) letterOf(commandID string) (claim string, ok bool, err error) {
	queue, err := m.o.Reads().StatusQueue(domain.Date{})
	if err != nil {
		return "", false, err
	}
	for _, q := range queue {
		if q.CommandID == commandID {
			return q.Claim, true, nil
		}
	}
	return "", false, nil
}

// refundTimeout bounds the terminal's refund of a charge the ledger
// refused, even when the clerk's browser has gone.
const refundTimeout = 30 * time.Second

// apiRequest is the body of POST /api/v1/status-letters: a title
// company's system asks for a letter, e-mailed to it, its fee billed on
// its village account. The fee, when sent, must be the fee in force (a
// client that shows one to its user learns when it changed).
type apiRequest struct {
	CommandID string        `json:"command_id"`
	Parcel    string        `json:"parcel"`
	Requester string        `json:"requester"`
	Contact   string        `json:"contact"`
	Email     string        `json:"email"`
	ClosingOn string        `json:"closing_on,omitempty"`
	Delivery  string        `json:"delivery,omitempty"` // "email" (the default), "pickup" or "mail"
	MailTo    string        `json:"mail_to,omitempty"`
	Account   string        `json:"account"`
	Fee       *domain.Money `json:"fee,omitempty"`
}

// apiAnswer answers a request taken through the API.
type apiAnswer struct {
	Claim      string `json:"claim"`
	ReceivedOn string `json:"received_on"`
	ReadyBy    string `json:"ready_by"`
	Fee        string `json:"fee"`
	Delivery   string `json:"delivery"`
	Email      string `json:"email,omitempty"`
	BillID     string `json:"bill_id"`
}

// apiRequestLetter takes a status letter request through the API, for the
// holder of a staff token whose role takes letters. Its fee is billed on
// the requester's account: there is no card or check at a distance. The
// same command id sent again answers with the first request.
func (m *Module) apiRequestLetter(w http.ResponseWriter, r *http.Request) {
	var in apiRequest
	if err := m.o.DecodeJSON(w, r, &in, "a status letter request"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if strings.TrimSpace(in.CommandID) == "" || len(in.CommandID) > 60 {
		m.o.WriteAPIError(w, domain.Errorf(domain.EINVALID, "", "command_id is required (at most 60 characters); make it unique, and send the same one when you retry."))
		return
	}
	fee := ""
	if in.Fee != nil {
		fee = in.Fee.String()
	} else if sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: domain.DateTimeOf(m.o.Now().In(m.o.Location()))}, m.o.Ledger().Params()); err == nil {
		fee = sl.Fee.String()
	}
	p, err := m.payload(letterRequest{Parcel: in.Parcel, Requester: in.Requester, Contact: in.Contact, Email: in.Email, ClosingOn: in.ClosingOn, Delivery: in.Delivery, MailTo: in.MailTo,
		Payment: domain.PayAccount, Account: in.Account, Fee: fee})
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitWith(r, domain.KindOfficeStatusLetter, func(c *domain.Command) {
		c.ID = "api-" + in.CommandID
		p.BillID = feeBillID(c)
		c.Payload = p
	})
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	req, err := m.o.Reads().StatusRequest(res.Ref)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, apiAnswer{Claim: req.Claim, ReceivedOn: req.ReceivedOn.String(), ReadyBy: req.ReadyBy.String(), Fee: req.Fee.String(), Delivery: req.HowDelivered(), Email: req.Email, BillID: req.BillID})
}
