package kiosk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/receipt"
	"github.com/villagehall/appliance/kiosk/view"
)

// Receipt links. A receipt shows what was paid and, for a
// status letter, who asked; receipt numbers are sequential, so at a public
// kiosk a number alone must show nothing. A receipt's link is
// /receipt/{number}?t={token}, the token an HMAC of the session id and the
// number under a key of its own; the page shows the receipt only when the
// request's live session was granted it (receiptURL) and the token is that
// session's, compared in constant time. Everything else (no token, another
// session's token, a session ended by the idle reset or Done, or expired,
// or from before a restart, a number that does not exist) gets one and the
// same 404 page, which does not tell whether the number exists. So the
// next resident cannot press Back or retype the address to see it.
//
// The printed receipt carries the number, which is what the clerk's window
// finds a payment by, and never the token: the page's body does not hold
// it, and the print style leaves no page margin for the browser to print
// the address in.

// receiptURL returns the link to receipt number for this request's session
// and grants the session that receipt. It is the one place a receipt link
// is made. Call it only where the request proves its session made the
// payment: right after recording it, from a payment form signed for this
// session (a second tap, a retry, the Back button within the visit), or
// from the receipt page itself.
func (s *Server) receiptURL(r *http.Request, number string) string {
	id := sessionFrom(r.Context())
	s.sessions.grant(id, number)
	return "/receipt/" + url.PathEscape(number) + "?" + url.Values{"t": {s.receiptToken(id, number)}}.Encode()
}

func (s *Server) receiptToken(session, number string) string {
	return mac(s.keys.receipt, session, number)
}

// mayShowReceipt reports whether the request carries its session's token
// for a receipt that session was granted.
func (s *Server) mayShowReceipt(r *http.Request, number string) bool {
	id, t := sessionFrom(r.Context()), r.URL.Query().Get("t")
	return id != "" && t != "" && equal(t, s.receiptToken(id, number)) && s.sessions.holds(id, number)
}

// showReceiptPage shows a receipt, on screen and printable on 80 mm paper:
// its number, intake time, what was paid, the amount, how it was applied,
// the balance left and whether it has posted or is provisional. The ledger
// reads back provisional receipts from this node's outbox, so a payment
// taken offline shows too. A status letter's receipt is its claim: the
// claim number and the day the letter is ready; a property tax receipt
// names the roll year, county and installment. Only the visit that made
// the payment sees it, through its link (see receiptURL).
func (s *Server) showReceiptPage(w http.ResponseWriter, r *http.Request) {
	number := r.PathValue("number")
	if !s.mayShowReceipt(r, number) {
		s.showReceiptNotFound(w, r, number)
		return
	}
	rc, err := s.ledger.Receipt(number)
	if err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			s.showReceiptNotFound(w, r, number)
			return
		}
		s.fail(w, r, err)
		return
	}
	s.renderReceipt(w, r, rc)
}

// showReceiptNotFound answers every receipt the request may not see, and
// every one that does not exist, alike.
func (s *Server) showReceiptNotFound(w http.ResponseWriter, r *http.Request, number string) {
	s.showProblem(w, r, http.StatusNotFound, "receipt.error.none", "receipt.error.none_hint", "/", "layout.start_over", "number", number)
}

// renderReceipt shows rc: from its page, or in the answer to the charge
// that made it when the ledger cannot read it back yet.
func (s *Server) renderReceipt(w http.ResponseWriter, r *http.Request, rc domain.Receipt) {
	s.renderReceiptWith(w, r, http.StatusOK, rc, nil)
}

// renderReceiptWith shows rc with status, and the e-mail form in the
// state email (nil: a fresh form, when the node has a mail relay).
func (s *Server) renderReceiptWith(w http.ResponseWriter, r *http.Request, status int, rc domain.Receipt, email *view.ReceiptEmail) {
	p, v, err := s.receiptView(r, rc, email)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, view.ReceiptPage(p, v))
}

// receiptView is rc as its page shows it.
func (s *Server) receiptView(r *http.Request, rc domain.Receipt, email *view.ReceiptEmail) (view.Page, view.Receipt, error) {
	self := s.receiptURL(r, rc.Number)
	p := s.page(r, self, "title.receipt", "number", rc.Number)
	v := view.Receipt{
		Number:     rc.Number,
		Kind:       rc.Kind,
		Status:     rc.Status,
		At:         rc.At.Time(s.loc),
		BillID:     rc.BillID,
		Account:    rc.Account,
		Parcel:     rc.Parcel,
		Amount:     rc.Amount,
		Tender:     rc.Tender,
		Reference:  rc.Reference,
		Allocation: rc.Allocation,
		Balance:    rc.Balance,
		Node:       rc.Node,
		Index:      rc.Index,
		DoneURL:    "/reset",
	}
	if c := rc.Card; c != nil {
		if b := c.BrandName(); b != "" {
			v.Card = p.T("receipt.card", "brand", b, "last4", c.Last4)
		} else {
			v.Card = p.T("receipt.card_digits", "last4", c.Last4)
		}
	}
	if k, ok := checkoutOf(rc.Kind); ok {
		if err := k.receipt(s, p.Lang(), &v, rc); err != nil {
			return p, v, err
		}
	}
	// The QR code's link proves itself with the number's HMAC under the
	// receipt key in a purpose of its own, so it never passes for a
	// session's receipt token, and the number alone opens nothing.
	if err := receipt.Letterhead(&v, s.village, mac(s.keys.receipt, "public receipt", rc.Number)); err != nil {
		return p, v, err
	}
	if s.mail != nil {
		if email == nil {
			email = &view.ReceiptEmail{}
		}
		path, query, _ := strings.Cut(self, "?")
		email.Action = path + "/email?" + query
		v.Email = email
	}
	return p, v, nil
}
