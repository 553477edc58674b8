package letters

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
)

// errEmailed is emailLetter's answer for a letter already delivered by
// e-mail to the address its request gave: a second press of the button,
// which sends nothing and shows the letter as the first press left it.
var errEmailed = errors.New("the letter is already e-mailed")

// emailLetter e-mails a written letter, as a PDF, to the address its
// request gave, then records it as delivered by e-mail, at that time, to
// that address. The message is queued on disk before it is recorded
// (kiosk/mail), and goes out when the relay answers. A letter gets one
// e-mail from this node however often it is asked: the steps run one
// letter at a time, a letter found delivered by e-mail is errEmailed, and
// one whose e-mail is queued but whose delivery record failed is only
// recorded.
func (m *Module) emailLetter(r *http.Request, claim string) error {
	q := m.o.Mail()
	if q == nil {
		return domain.Errorf(domain.EUNAVAILABLE, "", "This node has no mail relay; record the delivery by hand.")
	}
	m.emailing.Lock()
	defer m.emailing.Unlock()
	req, err := m.o.Reads().StatusRequest(claim)
	if err != nil {
		return err
	}
	if req.HowDelivered() != domain.DeliverEmail || req.Email == "" {
		return domain.Errorf(domain.EINVALID, "§5.11", "The letter for claim %s was not asked for by e-mail.", claim)
	}
	if req.State == domain.StatusDelivered {
		if doc, err := m.o.Reads().StatusLetter(claim); err == nil && doc.Delivery == domain.DeliverEmail {
			return errEmailed
		}
	}
	if req.State != domain.StatusCompleted {
		return domain.Errorf(domain.ECONFLICT, "§5.11", "The letter for claim %s is %s, not written and waiting to go out.", claim, req.State)
	}
	if m.queued[claim] != req.Email {
		doc, err := m.o.Reads().StatusLetter(claim)
		if err != nil {
			return err
		}
		pdf, err := m.letterBytes(doc)
		if err != nil {
			return err
		}
		if err := q.Enqueue(letterMail(m.o.Letterhead().Name, req, doc, pdf.Bytes())); err != nil {
			return fmt.Errorf("queue the letter's e-mail: %w", err)
		}
		if m.queued == nil {
			m.queued = map[string]string{}
		}
		m.queued[claim] = req.Email
	}
	_, err = m.o.SubmitWith(r, domain.KindStatusLetter, func(c *domain.Command) {
		c.Payload = &domain.StatusLetterWork{Op: "deliver", Claim: claim, Delivery: domain.DeliverEmail, DeliveryNote: "e-mailed as a PDF to " + req.Email}
	})
	if err == nil {
		delete(m.queued, claim)
	}
	return err
}

// letterMail is the e-mail that carries a letter to its requester: what
// it is, about which parcel, as of when, and the PDF.
func letterMail(village string, req domain.StatusRequest, doc domain.StatusLetterDoc, pdf []byte) mail.Message {
	if village == "" {
		village = "Village of Belleville"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s,\n\n", req.Requester)
	fmt.Fprintf(&b, "Attached is the statement of real property status %s (§5.11) for parcel %s", doc.Number, doc.Parcel)
	if doc.Address != "" {
		fmt.Fprintf(&b, ", %s", doc.Address)
	}
	fmt.Fprintf(&b, ", as of %s.\n", doc.AsOf)
	fmt.Fprintf(&b, "You asked for it on %s (claim %s)", req.RequestedAt.Date, req.Claim)
	if !req.ClosingOn.IsZero() {
		fmt.Fprintf(&b, " for a closing on %s", req.ClosingOn)
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(&b, "%s, Clerk's office\n", village)
	return mail.Message{
		To:          req.Email,
		Subject:     fmt.Sprintf("Statement of real property status %s, parcel %s", doc.Number, doc.Parcel),
		Body:        b.String(),
		Attachments: []mail.Attachment{{Name: doc.Number + ".pdf", ContentType: "application/pdf", Data: pdf}},
	}
}
