package kiosk

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
	"github.com/villagehall/appliance/kiosk/receipt"
	"github.com/villagehall/appliance/kiosk/view"
)

// Mailer queues an e-mail; it sends it when the relay answers, so a copy
// asked for while the node is offline goes out once it is back.
type Mailer interface {
	Enqueue(mail.Message) error
}

// submitReceiptEmail queues an e-mailed copy of a receipt to the address
// the resident typed. Only the visit that made the payment may (the same
// check as the receipt page); a bad address shows the receipt again with
// what is wrong, and nothing is queued. A visit sends one receipt to at
// most maxReceiptEmails addresses, each once: the kiosk is not a relay
// for whoever pays a cent. The address is used for this copy only: it is
// kept in the visit's memory, not with the receipt.
func (s *Server) submitReceiptEmail(w http.ResponseWriter, r *http.Request) {
	number := r.PathValue("number")
	if s.mail == nil || !s.mayShowReceipt(r, number) {
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
	typed := strings.TrimSpace(r.PostForm.Get("email"))
	p := s.catalog.Printer(langFrom(r.Context()))
	addr, err := mail.ParseAddress(typed)
	if err != nil {
		s.renderReceiptWith(w, r, http.StatusUnprocessableEntity, rc, &view.ReceiptEmail{Address: typed,
			Problem: &view.Problem{Message: p.T("receipt.email_bad", "address", typed), Suggestion: p.T("receipt.email_bad_hint")}})
		return
	}
	id := sessionFrom(r.Context())
	already, ok := s.sessions.mail(id, rc.Number, addr)
	if !ok {
		s.renderReceiptWith(w, r, http.StatusTooManyRequests, rc, &view.ReceiptEmail{Address: typed,
			Problem: &view.Problem{Message: p.T("receipt.email_limit", "count", fmt.Sprint(maxReceiptEmails)), Suggestion: p.T("receipt.email_limit_hint")}})
		return
	}
	if already {
		// A second tap, or the form sent again: the copy is on its way.
		s.renderReceiptWith(w, r, http.StatusOK, rc, &view.ReceiptEmail{Queued: addr})
		return
	}
	pg, v, err := s.receiptView(r, rc, nil)
	if err != nil {
		s.sessions.unmail(id, rc.Number, addr)
		s.fail(w, r, err)
		return
	}
	if err := s.mail.Enqueue(receipt.Email(pg, v, addr)); err != nil {
		s.sessions.unmail(id, rc.Number, addr)
		s.fail(w, r, fmt.Errorf("queue receipt e-mail: %w", err))
		return
	}
	s.log.Info("receipt e-mail queued", "receipt", rc.Number)
	s.renderReceiptWith(w, r, http.StatusOK, rc, &view.ReceiptEmail{Queued: addr})
}
