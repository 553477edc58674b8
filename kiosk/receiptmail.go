package kiosk

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
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
// what is wrong, and nothing is queued. The address is used for this copy
// only: it is not stored with the receipt.
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
	pg, v, err := s.receiptView(r, rc, nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.mail.Enqueue(mail.Message{To: addr, Subject: p.T("receipt.email_subject", "number", rc.Number, "village", village(pg, v)), Body: receiptText(pg, v)}); err != nil {
		s.fail(w, r, fmt.Errorf("queue receipt e-mail: %w", err))
		return
	}
	s.log.Info("receipt e-mail queued", "receipt", rc.Number)
	s.renderReceiptWith(w, r, http.StatusOK, rc, &view.ReceiptEmail{Queued: addr})
}

func village(p view.Page, v view.Receipt) string {
	if v.Letterhead.Name != "" {
		return v.Letterhead.Name
	}
	return p.T("village.name")
}

// receiptText is the receipt as the e-mailed copy says it, in the page's
// language: the letterhead, what was paid, and who to ask.
func receiptText(p view.Page, v view.Receipt) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	line(village(p, v))
	if v.Letterhead.Address != "" {
		line(v.Letterhead.Address)
	}
	if v.Letterhead.Phone != "" {
		line(p.T("receipt.phone", "phone", v.Letterhead.Phone))
	}
	line("")
	line(p.T("receipt.number") + ": " + v.Number)
	line(p.T("receipt.time") + ": " + p.DateTime(v.At))
	line(p.T("receipt.status") + ": " + p.T("receipt.status_"+string(v.Status)))
	if v.BillID != "" {
		line(p.T("receipt.bill") + ": " + v.BillID)
	}
	if v.Parcel != "" {
		line(p.T("receipt.parcel") + ": " + v.Parcel)
	}
	tender := p.T("tender." + string(v.Tender))
	if v.Card != "" {
		tender += " " + v.Card
	}
	line(p.T("receipt.tender") + ": " + tender)
	line(p.T("receipt.amount") + ": " + p.Money(v.Amount))
	for _, l := range v.Lines {
		line("  " + p.T("receipt.bill") + " " + l.BillID + ": " + p.Money(l.Amount))
	}
	if !v.Letter() {
		line(p.T("receipt.balance") + " " + p.Money(v.Balance))
	}
	if v.QRLink != "" {
		line("")
		line(v.QRLink)
	}
	line("")
	switch l := v.Letterhead; {
	case l.Phone != "" && l.Email != "":
		line(p.T("receipt.questions_both", "phone", l.Phone, "email", l.Email, "number", v.Number))
	case l.Phone != "":
		line(p.T("receipt.questions_phone", "phone", l.Phone, "number", v.Number))
	case l.Email != "":
		line(p.T("receipt.questions_email", "email", l.Email, "number", v.Number))
	default:
		line(p.T("receipt.questions_window", "number", v.Number))
	}
	return b.String()
}
