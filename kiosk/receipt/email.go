package receipt

import (
	"strings"

	"github.com/villagehall/appliance/kiosk/mail"
	"github.com/villagehall/appliance/kiosk/view"
)

// Email is the e-mailed copy of receipt v to address to, in the page's
// language: the village's name in the subject; the letterhead, what was
// paid, the QR code's link and who to ask in the body (Text).
func Email(p view.Page, v view.Receipt, to string) mail.Message {
	return mail.Message{To: to, Subject: p.T("receipt.email_subject", "number", v.Number, "village", village(p, v)), Body: Text(p, v)}
}

// village names the village: the letterhead's name, else the catalogue's.
func village(p view.Page, v view.Receipt) string {
	if v.Letterhead.Name != "" {
		return v.Letterhead.Name
	}
	return p.T("village.name")
}

// Text is receipt v as the e-mailed copy says it, in the page's
// language: the letterhead, what was paid, and who to ask.
func Text(p view.Page, v view.Receipt) string {
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
	line(p.T(v.TimeLabel()) + ": " + p.DateTime(v.At))
	line(p.T("receipt.status") + ": " + p.T("receipt.status_"+string(v.Status)))
	if v.BillID != "" {
		line(p.T("receipt.bill") + ": " + v.BillID + described(v.Description))
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
		line("  " + p.T("receipt.bill") + " " + l.BillID + described(l.Description) + ": " + p.Money(l.Amount))
	}
	if !v.Letter() {
		line(p.T("receipt.balance") + " " + p.Money(v.Balance))
	} else {
		// One received day, the one §5.11 counts from, and when and
		// where the letter is to be had.
		line(p.T("receipt.claim_lead") + " " + v.Number)
		line(p.T("receipt.letter_received_ready", "received", p.Date(v.ReceivedOn), "date", p.Date(v.ReadyBy)))
		line(p.T("receipt.letter_pickup", "date", p.Date(v.ReadyBy)))
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

// described writes what a bill is for after its number (" · Weed
// cutting", in the page's language as the receipt holds it), "" for none.
func described(what string) string {
	if what == "" {
		return ""
	}
	return " · " + what
}
