package kiosk

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/view"
)

// The checkout. Everything a resident pays for by card at the kiosk is
// taken by one flow, whatever is paid:
//
//	the payable's own page makes a signed form (newForm) with a command id
//	→ the confirmation page (showCheckoutPage, or showCheckout in the
//	  answer to the payable's own form): the form verified, the payable
//	  read, its receipt if this command id already paid it, why it cannot
//	  be paid any more, or what will be charged
//	→ submitCheckout: the same checks, the ledger asked whether it takes
//	  the kind now (checkStamp), the checks again at the intake time, the
//	  card charged keyed by the command id (charge), the command stamped
//	  (ledger.NewCommand, which takes the receipt number) and submitted
//	  (record), and the receipt shown (showRecorded); or, when the ledger
//	  refuses it, the charge refunded (voidCharge).
//
// A payable is declared by a checkout value (below: billPayments in
// pay.go, letterFees in letter.go, taxPayments in propertytax.go) and the
// payable its load function reads. To add one, say the room tax or a
// special assessment, write in a file of its own:
//
//  1. a checkout: its command kind, the confirmation page's title, the
//     fields of its form (what is paid, signed in that order; the one its
//     routes carry as {id}, in path), its addresses (urls), what a kiosk
//     without a terminal answers (cardOff), and the details its receipt
//     adds (receipt);
//  2. a type implementing payable, which load reads from the ledger for a
//     verified form: the amount, whether a command id already paid it,
//     when to refuse it (refuse), its confirmation page (a view), the
//     command's payload and what the log names it by;
//  3. its routes in Server.Handler: its own page, which makes the form and
//     redirects to s.confirmURL(f) (or shows s.showCheckout); GET
//     …/confirm → s.showCheckoutPage(k); POST …/charge → s.submitCheckout(k);
//  4. its entry in checkouts (the receipt page finds it there by kind), its
//     confirmation page in view, and its words in both catalogues.
//
// The session binding, the signature, the receipt links, the card-off
// answer and the simulator panel then come with it.

// A checkout declares one kind of thing a resident pays for by card.
type checkout struct {
	// kind is the command a payment makes. It heads the form's signature,
	// so a form of one checkout never passes for another's.
	kind domain.Kind
	// title is the catalogue key of the confirmation page's title.
	title string
	// fields name what the form pays, in the order they are signed.
	fields []string
	// path is the field the routes carry as their {…} wildcard (the bill
	// id), read from the path, never from the form; "" for none.
	path string
	// load reads the payable a verified form names from the ledger, as of
	// now.
	load func(s *Server, f checkoutForm) (payable, error)
	// urls returns the checkout's addresses for a form (verified or not).
	urls func(f checkoutForm) checkoutURLs
	// cardOff answers every step of the checkout on a kiosk without a
	// card terminal, before anything else: what to pay at the clerk's
	// window instead (cardoff.go).
	cardOff func(s *Server, w http.ResponseWriter, r *http.Request)
	// receipt adds what the receipt page shows of the payable (a status
	// letter's claim, a tax bill's roll year) to v.
	receipt func(s *Server, l i18n.Lang, v *view.Receipt, rc domain.Receipt) error
}

// checkouts are the payables of the kiosk, which the receipt page looks
// receipts up in by kind.
var checkouts = []*checkout{billPayments, letterFees, taxPayments,
	roomTaxPayments,    // roomtax.go, §5.22
	assessmentPayments, // assessment.go, §5.14
	billCart,           // cart.go, §5.10: several bills, one charge
}

// checkoutOf returns the checkout of a receipt's kind; a receipt of no
// kind is a village bill's (domain.Receipt.Kind).
func checkoutOf(k domain.Kind) (*checkout, bool) {
	if k == "" {
		k = domain.KindPayBill
	}
	for _, c := range checkouts {
		if c.kind == k {
			return c, true
		}
	}
	return nil, false
}

// checkoutURLs are where the pages of one checkout are.
type checkoutURLs struct {
	confirm   string // the confirmation page's path (its query carries the form); "" if shown only in an answer
	charge    string // where the confirmation's form posts
	change    string // where the resident changes what to pay: the payable's own form
	back      string // the payable's page: where a refused form or a payment not recorded leads
	backLabel string // the catalogue key of the link to back
}

// A payable is one thing to pay, as a verified form names it, read from the
// ledger for one request.
type payable interface {
	// amount is what the card is charged.
	amount() domain.Money
	// paidBy returns the receipt number of the payment command id made, if
	// the payable's records show one. A payable whose records are not kept
	// by command id answers false: the ledger answers a command id it has
	// seen with its first result, so the payment is still made once.
	paidBy(commandID string) (receipt string, ok bool)
	// refuse reports whether the payment cannot be taken at `at` as the
	// form names it (paid meanwhile, on the tax roll, after January 31, a
	// new fee), having shown the resident why and what to do instead.
	refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool
	// confirmation is the confirmation page, with the form c that charges
	// the card.
	confirmation(p view.Page, c chargeForm) (templ.Component, error)
	// payload is the command's payload once the card is approved with
	// reference ref; card is what the receipt shows of the card, or nil
	// (Server.cardShown).
	payload(ref string, card *domain.CardShown) domain.Payload
	// attrs name the payment in the log.
	attrs() []any
}

// chargeForm is what every confirmation page's form carries besides what
// is paid, and the page's links.
type chargeForm struct {
	action    string // where it posts
	change    string // the link to change what is paid
	commandID string
	signature string
	problem   *view.Problem // why the last charge did not go through
	simulator bool          // show the demo terminal panel
	outcomes  []string      // the simulator's outcomes, when simulator
}

// moment returns the village's date and time now, as a command's intake
// time is written.
func (s *Server) moment() domain.DateTime { return domain.DateTimeOf(s.now().In(s.loc)) }

// confirmURL returns the confirmation page of f. The URL carries the
// command id and the signature, so reloading the page or switching its
// language keeps the same command id: the payment it leads to is the same
// payment. The signature is for f's session: in another visit the URL is
// refused.
func (s *Server) confirmURL(f checkoutForm) string {
	q := url.Values{}
	for _, name := range f.checkout.fields {
		if name != f.checkout.path {
			q.Set(name, f.get(name))
		}
	}
	q.Set("cmd", f.commandID)
	q.Set("sig", s.signForm(f))
	return f.checkout.urls(f).confirm + "?" + q.Encode()
}

// showCheckoutPage returns the handler of a checkout's confirmation page,
// whose URL carries the signed form. A changed URL, or one of another
// visit, is refused. A payment that already went through leads to its
// receipt.
func (s *Server) showCheckoutPage(k *checkout) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.takesCards() {
			k.cardOff(s, w, r)
			return
		}
		f, ok := s.verifyForm(r, k, r.URL.Query(), "cmd")
		if !ok {
			s.refuseTampered(w, r, f)
			return
		}
		s.showCheckout(w, r, f)
	}
}

// showCheckout shows the confirmation of form f, before anything is
// charged: or the receipt of the payment it already made, or why it can
// no longer be made.
func (s *Server) showCheckout(w http.ResponseWriter, r *http.Request, f checkoutForm) {
	p, err := f.checkout.load(s, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc, ok := p.paidBy(f.commandID); ok {
		redirect(w, r, s.receiptURL(r, rc))
		return
	}
	if p.refuse(w, r, s.moment()) {
		return
	}
	s.renderCheckout(w, r, http.StatusOK, f, p, nil)
}

// renderCheckout shows the confirmation page of f, with problem when a
// charge did not go through.
func (s *Server) renderCheckout(w http.ResponseWriter, r *http.Request, status int, f checkoutForm, p payable, problem *view.Problem) {
	u := f.checkout.urls(f)
	self := u.change
	if u.confirm != "" {
		self = s.confirmURL(f)
	}
	c := chargeForm{action: u.charge, change: u.change, commandID: f.commandID, signature: s.signForm(f), problem: problem, simulator: s.sim != nil}
	if c.simulator {
		c.outcomes = outcomes()
	}
	page, err := p.confirmation(s.page(r, self, f.checkout.title), c)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, page)
}

// submitCheckout returns the handler that takes the payment a
// confirmation page showed: it checks the form's signature, asks the
// ledger whether it takes the kind now (checkStamp), charges the card
// through the terminal keyed by the id the page fixed, then stamps the
// checkout's command (ledger.NewCommand: its receipt number) with that id
// and the intake time taken before the charge, submits it and shows the
// receipt.
//
// The command id was fixed when the confirmation page was made, so a double
// tap or a browser retry is the same payment: the taps are taken one at a
// time, the terminal returns the first approval and the ledger the first
// result, and the card is charged once. A decline, a timeout or a cancel at
// the terminal comes back to the confirmation page with a plain message,
// nothing submitted and no receipt number taken; a terminal that cannot
// take cards sends the resident to the window. A payment the ledger
// refuses once the card is charged is refunded through the terminal
// (voidCharge). Once the card is charged the rest runs on a context the
// browser cannot cancel. A kiosk without a terminal charges nothing and
// submits nothing: it says where to pay instead.
func (s *Server) submitCheckout(k *checkout) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.takesCards() {
			k.cardOff(s, w, r)
			return
		}
		f, ok := s.verifyForm(r, k, r.PostForm, "command_id")
		if !ok {
			s.refuseTampered(w, r, f)
			return
		}
		// One checkout of a command id at a time: a double tap waits for
		// the first and then finds its receipt.
		if !s.paying.lock(r.Context(), f.commandID) {
			return // the browser left
		}
		defer s.paying.unlock(f.commandID)
		p, err := k.load(s, f)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if rc, ok := p.paidBy(f.commandID); ok {
			redirect(w, r, s.receiptURL(r, rc))
			return
		}
		if rf, ok := s.voided.get(f.commandID); ok {
			s.showRefunded(w, r, k, f, rf, "")
			return
		}
		if p.refuse(w, r, s.moment()) {
			return
		}

		// The ledger is asked whether it takes this kind now (a clock it
		// distrusts refuses before any money moves), then the payment is
		// checked once more at its intake time, which fixes its legal date
		// (and a status letter's fee). The command is stamped, and takes
		// its receipt number, only once the card is approved: a declined,
		// timed-out or cancelled charge leaves no gap in this node's
		// receipt sequence.
		if err := s.checkStamp(k.kind); err != nil {
			s.fail(w, r, fmt.Errorf("new %s command: %w", k.kind, err))
			return
		}
		at := s.moment()
		if p.refuse(w, r, at) {
			return
		}

		approval, err := s.charge(r, f.commandID, p.amount())
		if err != nil {
			if !isTerminalOutcome(err) {
				err = chargeError{err}
			}
			attrs := append([]any{"kind", k.kind, "command", f.commandID, "amount", p.amount(), "err", err}, p.attrs()...)
			if errors.Is(err, terminal.ErrUnavailable) {
				// The processor is unreachable, refuses the keys, or the
				// amount is beyond what a card may pay here: the detail
				// is for the staff; the resident goes to the window.
				s.log.Warn("card payments unavailable", attrs...)
				s.cards.recheck()
				k.cardOff(s, w, r)
				return
			}
			s.log.Info("card not charged", attrs...)
			status, msg, hint := errorStatus(err)
			t := s.catalog.Printer(langFrom(r.Context()))
			pr := &view.Problem{Message: t.T(msg), Suggestion: t.T(hint, "ref", shortRef(f.commandID))}
			if reason := terminal.DeclineReason(err); reason != "" && t.Lang() == i18n.English {
				pr.Message += " " + reason
			}
			s.renderCheckout(w, r, status, f, p, pr)
			return
		}

		cmd, err := s.ledger.NewCommand(k.kind, "kiosk")
		if err == nil {
			cmd.ID, cmd.At = f.commandID, at
			cmd.Payload = p.payload(approval.Reference, s.cardShown(approval))
		}
		var rc domain.Receipt
		readBack := false
		if err == nil {
			rc, readBack, err = s.record(r, cmd)
		}
		if err != nil {
			var refused *domain.Error
			if errors.As(err, &refused) {
				// The ledger refused the payment (a bill certified
				// meanwhile, a node that stopped taking payments): nothing
				// is recorded, so the card is refunded.
				s.voidCharge(w, r, k, f, p, approval, refused)
				return
			}
			// Not known to be refused (it may still post from the outbox):
			// the clerk resolves it with the approval reference.
			s.log.Error("card charged but payment not recorded",
				append([]any{"kind", k.kind, "command", f.commandID, "amount", p.amount(), "approval", approval.Reference, "err", err}, p.attrs()...)...)
			u := k.urls(f)
			s.showProblem(w, r, http.StatusBadGateway, "charge.not_recorded", "charge.not_recorded_hint", u.back, u.backLabel, "ref", approval.Reference)
			return
		}
		s.log.Info("payment taken", append([]any{"kind", k.kind, "receipt", rc.Number, "status", rc.Status, "command", rc.CommandID, "amount", rc.Amount, "approval", approval.Reference}, p.attrs()...)...)
		s.showRecorded(w, r, rc, readBack)
	}
}

// voidCharge refunds the charge of a payment the ledger refused and tells
// the resident plainly: not recorded, the money is back on the card. A
// refund that fails leaves the charge for the clerk, with the approval
// reference, and is logged as an error.
func (s *Server) voidCharge(w http.ResponseWriter, r *http.Request, k *checkout, f checkoutForm, p payable, a terminal.Approval, refused *domain.Error) {
	attrs := append([]any{"kind", k.kind, "command", f.commandID, "amount", a.Amount, "approval", a.Reference, "refused", refused.Message}, p.attrs()...)
	rf, err := s.refundCharge(r, a, "the ledger refused the payment: "+refused.Message)
	if err != nil {
		s.log.Error("card charged, payment refused by the ledger, and the refund failed", append(attrs, "err", err)...)
		u := k.urls(f)
		s.showProblem(w, r, http.StatusBadGateway, "charge.not_recorded", "charge.not_recorded_hint", u.back, u.backLabel, "ref", a.Reference)
		return
	}
	s.voided.add(f.commandID, rf)
	s.log.Warn("payment refused by the ledger; the card was refunded", append(attrs, "refund", rf.Reference)...)
	s.showRefunded(w, r, k, f, rf, refused.Message)
}

// showRefunded tells the resident that a payment was not recorded and its
// charge went back to the card.
func (s *Server) showRefunded(w http.ResponseWriter, r *http.Request, k *checkout, f checkoutForm, rf terminal.Refund, why string) {
	pg := s.page(r, problemSelf(r), "title.error")
	u := k.urls(f)
	pr := view.Problem{
		Message:    pg.T("charge.refunded", "amount", pg.Money(rf.Amount), "ref", rf.Reference),
		Suggestion: pg.T("charge.refunded_hint"),
	}
	if why != "" && pg.Lang() == i18n.English {
		pr.Message += " " + why
	}
	s.render(w, r, http.StatusConflict, view.ErrorPage(pg, view.Error{Status: http.StatusConflict, Problem: pr, BackURL: u.back, BackLabel: pg.T(u.backLabel)}))
}

// refuseTampered answers a checkout form whose signature does not match:
// nothing is charged or recorded.
func (s *Server) refuseTampered(w http.ResponseWriter, r *http.Request, f checkoutForm) {
	s.log.Warn("refused a changed payment form", "kind", f.checkout.kind, "path", r.URL.Path)
	u := f.checkout.urls(f)
	s.showProblem(w, r, http.StatusBadRequest, "error.tampered", "error.tampered_hint", u.back, u.backLabel)
}

// shortRef is the reference a resident quotes to the office for a charge
// whose outcome is unknown (the reader did not answer): the last eight
// characters of its command id, in capitals. The id is a UUIDv7, whose
// first characters are its time in milliseconds, shared by every command
// of the same minute; its last ones are random, 32 bits, so two charges of
// one day practically never share them. Ungrouped, it is a substring of
// the command id as the office sees it (the processor's metadata, the
// card reconciliation's lines, the journal, whose search matches any
// part of a command id, case aside).
func shortRef(commandID string) string {
	return strings.ToUpper(commandID[max(0, len(commandID)-8):])
}
