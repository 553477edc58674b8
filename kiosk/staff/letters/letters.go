// Package letters is the back office's status letters (§5.11): the queue
// of requests by their ready-by date, the letter the clerk completes from
// the ledger's facts and their own answers, its delivery, the numbered
// letter as a PDF, and the start page's alerts for letters late or due
// today. It is a staff.Module; the rules are the domain's.
package letters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the status letters' part of the clerk's office.
type Module struct {
	o *staff.Office
	// emailing holds one e-mailing of a letter at a time on this node, so
	// that two presses of "send again" (or two clerks) send one e-mail:
	// the second finds the letter delivered, or its e-mail already queued.
	emailing sync.Mutex
	// queued is the letters whose e-mail this node queued and whose
	// delivery is not yet recorded (the record failed: no quorum, say), by
	// claim, with the address: sending again records the delivery without
	// queuing a second e-mail.
	queued map[string]string
}

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the status letters' routes, link and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/letters", staff.CapReadLetters, m.showLettersPage)
	o.Page("GET /staff/letters/new", staff.CapLetters, m.showRequestPage)
	o.Page("POST /staff/letters/new", staff.CapLetters, m.submitRequest)
	o.Page("POST /staff/letters/{claim}/email", staff.CapLetters, m.submitLetterEmail)
	o.API("POST /api/v1/status-letters", staff.CapLetters, m.apiRequestLetter)
	o.Page("GET /staff/letters/{claim}", staff.CapReadLetters, m.showLetterPage)
	o.Page("POST /staff/letters/{claim}/complete", staff.CapLetters, m.submitLetter)
	o.Page("POST /staff/letters/{claim}/deliver", staff.CapLetters, m.submitLetterDelivery)
	o.Page("GET /staff/letters/{claim}/letter.pdf", staff.CapReadLetters, m.showLetterPDF)
	o.Nav(staff.CapReadLetters, "Status letters", "/staff/letters")
	o.Alert(m.alerts)
	return nil
}

// alerts are the start page's alerts for the letters past their ready-by
// date and those due today, for the people who read the queue.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
	if !staff.Allowed(who.Role, staff.CapReadLetters) {
		return nil, nil
	}
	late, today, oldest, err := m.lettersDue()
	if err != nil {
		return nil, err
	}
	var out []staffview.Alert
	if late > 0 {
		out = append(out, staffview.Alert{TestID: "alert-letters-late", Text: fmt.Sprintf("%d status letter(s) are past their ready-by date (§5.11).", late), URL: "/staff/letters", Due: oldest.String(), Count: late})
	}
	if today > 0 {
		out = append(out, staffview.Alert{TestID: "alert-letters-today", Text: fmt.Sprintf("%d status letter(s) are due today.", today), URL: "/staff/letters", Due: m.o.Today().String(), Count: today})
	}
	return out, nil
}

// showLettersPage is the status letter queue (§5.11) by ready-by date,
// with letters past their date flagged.
func (m *Module) showLettersPage(w http.ResponseWriter, r *http.Request) {
	queue, err := m.o.Reads().StatusQueue(domain.Date{})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	all := r.URL.Query().Get("all") != ""
	today := m.o.Today()
	v := Letters{All: all, CanWork: staff.Allowed(m.o.Who(r).Role, staff.CapLetters)}
	for _, req := range queue {
		if !all && req.State == domain.StatusDelivered {
			continue
		}
		row := LetterRow{Claim: req.Claim, Parcel: req.Parcel, Address: req.Address, Requester: req.Requester, RequestedAt: req.RequestedAt.String(), ReadyBy: req.ReadyBy.String(), State: req.State,
			Delivery: howDelivered(req, false), Overdue: req.State == domain.StatusRequested && today.After(req.ReadyBy), DueToday: req.State == domain.StatusRequested && req.ReadyBy == today}
		if req.State == domain.StatusDelivered {
			if doc, err := m.o.Reads().StatusLetter(req.Claim); err == nil {
				row.Sent = doc.DeliveredAt.String()
			}
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, LettersPage(m.o.Frame(r, "Status letters"), v))
}

// lettersDue counts the requested letters past their ready-by date and
// those due today, and says the oldest ready-by date passed.
func (m *Module) lettersDue() (late, today int, oldest domain.Date, err error) {
	queue, err := m.o.Reads().StatusQueue(domain.Date{})
	if err != nil {
		return 0, 0, oldest, err
	}
	d := m.o.Today()
	for _, req := range queue {
		if req.State != domain.StatusRequested {
			continue
		}
		switch {
		case d.After(req.ReadyBy):
			late++
			if oldest.IsZero() || req.ReadyBy.Before(oldest) {
				oldest = req.ReadyBy
			}
		case d == req.ReadyBy:
			today++
		}
	}
	return late, today, oldest, nil
}

// letterFacts returns what the ledger holds about a parcel that a status
// letter states: its village bills still owed (special charges, and those
// certified to the tax roll), and its property tax bills.
func (m *Module) letterFacts(parcel string, asOf domain.Date) ([]domain.LetterLine, error) {
	var lines []domain.LetterLine
	bills, err := m.o.Ledger().BillsByParcel(parcel)
	if err != nil {
		return nil, err
	}
	p := m.o.Ledger().Params()
	for _, b := range bills {
		if b.BilledOn.After(asOf) {
			continue
		}
		fig, err := b.Figures(asOf, p)
		if err != nil {
			return nil, err
		}
		if fig.Balance.IsZero() {
			continue
		}
		topic := "Special charges"
		text := fmt.Sprintf("Bill %s, %s, billed %s: unpaid (%s)", b.Shown(), b.Description, b.BilledOn, fig.Status.Words())
		switch fig.Status {
		case domain.BillTaxRoll:
			// The date on the roll is the day the November run certified
			// the bill (Bill.Certified), not the day §5.10 names.
			text = fmt.Sprintf("Bill %s, %s: certified to the tax roll on %s as a special charge and lien", b.Shown(), b.Description, b.Certified.At.Date)
		case domain.BillRollPending:
			text = fmt.Sprintf("Bill %s, %s, billed %s: unpaid at the end of %s; certification to the tax roll pending", b.Shown(), b.Description, b.BilledOn, fig.TaxRollOn)
		}
		lines = append(lines, domain.LetterLine{Topic: topic, Text: text, Amount: fig.Balance})
	}
	taxes, err := m.o.Reads().TaxBillsOfParcel(parcel)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return nil, err
	}
	for _, t := range taxes {
		fig, err := t.Figures(p)
		if err != nil {
			return nil, err
		}
		// The special items on a tax bill are in its total: named in its
		// line, not listed again with their amounts (every amount once).
		text := fmt.Sprintf("%d property tax (%s County), %s", t.TaxYear, t.County.Title(), fig.Status.Words())
		if len(t.SpecialItems) > 0 {
			var items []string
			for _, it := range t.SpecialItems {
				items = append(items, it.Description+", "+staff.Dollars(it.Amount))
			}
			text += "; its total includes " + strings.Join(items, "; ")
		}
		lines = append(lines, domain.LetterLine{Topic: "Taxes", Text: text, Amount: fig.Balance})
	}
	// The parcel's special assessments, outstanding and deferred, and the
	// contemplated improvements whose district holds it (§5.14).
	more, err := m.o.Reads().AssessmentLetterLines(parcel, asOf)
	if err != nil {
		return nil, err
	}
	lines = append(lines, more...)
	if len(lines) == 0 {
		lines = append(lines, domain.LetterLine{Topic: "Special charges", Text: "No village bill is owed on this parcel.", Amount: domain.Cents(0)})
	}
	return lines, nil
}

// answerFrom joins the texts of the lines of a topic, for an answer the
// clerk would otherwise type ("" when there are none).
func answerFrom(lines []domain.LetterLine, topic string) string {
	var out []string
	for _, l := range lines {
		if l.Topic == topic {
			out = append(out, l.Text+" ("+staff.Dollars(l.Amount)+")")
		}
	}
	return strings.Join(out, "\n")
}

// showLetterPage is a request with, until it is written, the facts the
// letter will state; once written, the letter.
func (m *Module) showLetterPage(w http.ResponseWriter, r *http.Request) {
	m.letterPage(w, r, http.StatusOK, LetterForm{})
}

func (m *Module) letterPage(w http.ResponseWriter, r *http.Request, status int, f LetterForm) {
	req, err := m.o.Reads().StatusRequest(r.PathValue("claim"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	v := Letter{Claim: req.Claim, Parcel: req.Parcel, Address: req.Address, Requester: req.Requester, Contact: req.Contact, RequestedAt: req.RequestedAt.String(), ReadyBy: req.ReadyBy.String(), State: req.State, Fee: req.Fee.String(), CanWork: staff.Allowed(who.Role, staff.CapLetters), Form: f,
		ReceivedOn: req.ReceivedOn.String(), HowDelivered: howDelivered(req, true), Email: req.Email, Paid: howPaid(req),
		CanEmail: req.HowDelivered() == domain.DeliverEmail && req.Email != "" && m.o.Mail() != nil}
	if !req.ClosingOn.IsZero() {
		v.ClosingOn = req.ClosingOn.String()
	}
	if req.Payment == domain.PayCheck {
		v.CheckReceipt = req.Claim
	}
	if req.State == domain.StatusRequested {
		asOf := m.o.Today()
		lines, err := m.letterFacts(req.Parcel, asOf)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, l := range lines {
			v.Lines = append(v.Lines, LetterLine{Topic: l.Topic, Text: l.Text, Amount: l.Amount.String()})
		}
		v.AsOf = asOf.String()
		if v.Form.Deferred == "" {
			v.Form.Deferred = answerFrom(lines, "Deferred assessments")
		}
		if v.Form.Improvements == "" {
			v.Form.Improvements = answerFrom(lines, "Contemplated improvements")
		}
		if v.Form.Floodplain == "" {
			if pc, err := m.o.Ledger().Parcel(req.Parcel); err == nil {
				v.Form.Floodplain = "Not in a mapped floodplain."
				if pc.Floodplain {
					v.Form.Floodplain = "In the mapped floodplain (floodplain zoning applies)."
				}
			}
		}
	} else {
		doc, err := m.o.Reads().StatusLetter(req.Claim)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		v.Number, v.AsOf, v.Delivery, v.DeliveredAt = doc.Number, doc.AsOf.String(), doc.Delivery, doc.DeliveredAt.String()
		for _, l := range doc.Lines {
			v.Lines = append(v.Lines, LetterLine{Topic: l.Topic, Text: l.Text, Amount: l.Amount.String()})
		}
	}
	m.o.Render(w, r, status, LetterPage(m.o.Frame(r, "Status letter "+req.Claim), v))
}

// submitLetter completes a letter: the ledger's facts as of today, and the
// clerk's answers for what the ledger does not hold.
func (m *Module) submitLetter(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	f := LetterForm{AssessmentChanges: m.o.Form(r, "assessment_changes"), Deferred: m.o.Form(r, "deferred"), Improvements: m.o.Form(r, "improvements"), Floodplain: m.o.Form(r, "floodplain"), Violations: m.o.Form(r, "violations"), Notes: m.o.Form(r, "notes")}
	req, err := m.o.Reads().StatusRequest(claim)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	asOf := m.o.Today()
	lines, err := m.letterFacts(req.Parcel, asOf)
	if err == nil {
		_, err = m.o.SubmitWith(r, domain.KindStatusLetter, func(c *domain.Command) {
			c.Payload = &domain.StatusLetterWork{Op: "complete", Claim: claim, AsOf: asOf, Lines: lines, AssessmentChanges: f.AssessmentChanges, Deferred: f.Deferred, Improvements: f.Improvements, Floodplain: f.Floodplain, Violations: f.Violations, Notes: f.Notes}
		})
	}
	if err != nil {
		if st, msg, _ := m.o.FormError(err); st == http.StatusUnprocessableEntity || st == http.StatusConflict {
			f.Error = msg
			m.letterPage(w, r, st, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	// A letter asked for by e-mail goes out as soon as it is written.
	if req.HowDelivered() == domain.DeliverEmail && req.Email != "" && m.o.Mail() != nil {
		if err := m.emailLetter(r, claim); err != nil && !errors.Is(err, errEmailed) {
			m.o.Log().Warn("a completed status letter was not e-mailed", "claim", claim, "err", err)
			m.letterPage(w, r, http.StatusOK, LetterForm{Error: "The letter is written, but it was not e-mailed: " + domain.ErrorMessage(err) + " Send it again below."})
			return
		}
	}
	m.o.Redirect(w, r, "/staff/letters/"+claim)
}

// submitLetterEmail e-mails a written letter to the address its request
// gave: after a completion whose e-mail did not go out.
func (m *Module) submitLetterEmail(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	if err := m.emailLetter(r, claim); err != nil && !errors.Is(err, errEmailed) {
		if st, msg, ok := m.o.FormError(err); ok {
			m.letterPage(w, r, st, LetterForm{Error: msg})
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/letters/"+claim)
}

// howDelivered says how a request's letter goes out, for the queue
// (short) or the letter's page (with the postal address).
func howDelivered(req domain.StatusRequest, long bool) string {
	switch req.HowDelivered() {
	case domain.DeliverEmail:
		return "E-mail to " + req.Email
	case domain.DeliverMail:
		if long {
			return "Mail to " + strings.ReplaceAll(req.MailTo, "\n", ", ")
		}
		return "Mail"
	}
	return "Pick up"
}

// howPaid says how a request's fee was paid.
func howPaid(req domain.StatusRequest) string {
	switch {
	case req.Payment == domain.PayAccount:
		return "billed on account " + req.Account + ", bill " + req.BillID
	case req.Tender == domain.Check:
		return "check " + req.Reference + " (bill " + req.BillID + ", account " + req.Account + ")"
	case req.Tender == domain.Card:
		return "card, approval " + req.Reference
	}
	return string(req.Tender)
}

// submitLetterDelivery records how a written letter went to its
// requester.
func (m *Module) submitLetterDelivery(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	_, err := m.o.SubmitWith(r, domain.KindStatusLetter, func(c *domain.Command) {
		c.Payload = &domain.StatusLetterWork{Op: "deliver", Claim: claim, Delivery: m.o.Form(r, "delivery"), DeliveryNote: m.o.Form(r, "delivery_note")}
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/letters/"+claim)
}

// showLetterPDF serves the numbered letter as a PDF on the village's
// letterhead.
func (m *Module) showLetterPDF(w http.ResponseWriter, r *http.Request) {
	doc, err := m.o.Reads().StatusLetter(r.PathValue("claim"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	buf, err := m.letterBytes(doc)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.pdf"`, doc.Number))
	_, _ = w.Write(buf.Bytes())
}

// letterBytes renders a numbered letter as the PDF the office serves and
// e-mails: with the parcel's owner of record, signed by the person who
// completed it, by name and office, never by username.
func (m *Module) letterBytes(doc domain.StatusLetterDoc) (*bytes.Buffer, error) {
	owner := ""
	if pc, err := m.o.Ledger().Parcel(doc.Parcel); err == nil {
		owner = pc.Owner
	}
	signer := letterSigner{Name: doc.CompletedBy}
	if u, err := m.o.Reads().StaffUser(doc.CompletedBy); err == nil {
		signer = letterSigner{Name: u.Name, Title: officialTitle(u.Role)}
	}
	var buf bytes.Buffer
	if err := letterPDF(&buf, doc, owner, signer, m.o.Location()); err != nil {
		return nil, err
	}
	return &buf, nil
}

// letterSigner is who signs a status letter: the name and office of the
// staff member who completed it.
type letterSigner struct{ Name, Title string }

// officialTitle is the office a role signs for (the ordinance's names).
func officialTitle(r domain.Role) string {
	switch r {
	case domain.RoleClerk:
		return "Village Clerk"
	case domain.RoleTreasurer:
		return "Village Finance Director/Treasurer"
	case domain.RoleAdministrator:
		return "Village Administrator"
	}
	return r.Title()
}

// letterPDF writes a statement of real property status (§5.11). The PDF's
// creation date is the letter's completion time, so the same letter always
// renders to the same bytes. The records are a table whose rows never
// split across a page; each of the clerk's answers is a block of its own
// under its heading; the closing statement and the signature stay
// together, on a new page only when they do not fit; amounts are grouped
// by thousands; every page names the letter and its page number.
func letterPDF(out *bytes.Buffer, doc domain.StatusLetterDoc, owner string, signer letterSigner, loc *time.Location) error {
	const (
		left, right, top, bottom = 20.0, 20.0, 18.0, 18.0
		lineH                    = 5.0
	)
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCompression(false) // a short letter; its text stays searchable
	pdf.SetCreationDate(doc.CompletedAt.Time(loc))
	pdf.SetModificationDate(doc.CompletedAt.Time(loc))
	pdf.SetTitle("Statement of real property status "+doc.Number, false)
	pdf.SetAuthor("Village of Belleville, Clerk's office", false)
	pdf.SetMargins(left, top, right)
	pdf.SetAutoPageBreak(true, bottom)
	pdf.AliasNbPages("{nb}")
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pageW, pageH := pdf.GetPageSize()
	width := pageW - left - right
	pdf.SetFooterFunc(func() {
		pdf.SetY(-bottom + 4)
		pdf.SetFont("Helvetica", "", 8)
		pdf.CellFormat(0, 4, tr(fmt.Sprintf("Statement of real property status %s · page %d of {nb}", doc.Number, pdf.PageNo())), "", 0, "C", false, 0, "")
	})
	// room makes sure h millimetres fit on the page, starting a new one
	// when they do not.
	room := func(h float64) {
		if pdf.GetY()+h > pageH-bottom {
			pdf.AddPage()
		}
	}
	pdf.AddPage()

	// Letterhead.
	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 9, tr("Village of Belleville"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 5, tr("Office of the Clerk · Belleville, Wisconsin 53508"), "", 1, "L", false, 0, "")
	pdf.SetDrawColor(29, 58, 95)
	pdf.SetLineWidth(0.6)
	y := pdf.GetY() + 2
	pdf.Line(left, y, pageW-right, y)
	pdf.SetLineWidth(0.2)
	pdf.Ln(6)

	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(0, 7, tr("Statement of Real Property Status (§5.11)"), "", 1, "L", false, 0, "")
	field := func(k, v string) {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(38, lineH, tr(k), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, lineH, tr(v), "", "L", false)
	}
	field("Letter number", doc.Number)
	field("As of", doc.AsOf.String())
	field("Claim", doc.Claim)
	field("Parcel", doc.Parcel)
	field("Address", doc.Address)
	if owner != "" {
		field("Owner of record", owner)
	}
	if doc.County != "" {
		field("County", doc.County.Title())
	}
	field("Requested by", doc.Requester+" ("+doc.Contact+")")
	pdf.Ln(3)

	section := func(title string) {
		room(7 + 2*lineH) // a heading never ends a page
		pdf.SetFont("Helvetica", "B", 11)
		pdf.CellFormat(0, 7, tr(title), "B", 1, "L", false, 0, "")
		pdf.Ln(1)
	}
	// The records: topic, text and amount in columns of their own; a row
	// is as tall as its longest column and moves whole to the next page.
	section("From the village's records")
	const topicW, amountW = 44.0, 30.0
	textW := width - topicW - amountW
	for _, l := range doc.Lines {
		pdf.SetFont("Helvetica", "B", 10)
		topic := staff.WrapText(pdf, tr(l.Topic), topicW-2)
		pdf.SetFont("Helvetica", "", 10)
		text := staff.WrapText(pdf, tr(l.Text), textW-2)
		rows := max(len(topic), len(text), 1)
		room(float64(rows)*lineH + 1.5)
		y := pdf.GetY()
		pdf.SetFont("Helvetica", "B", 10)
		for i, t := range topic {
			pdf.SetXY(left, y+float64(i)*lineH)
			pdf.CellFormat(topicW, lineH, t, "", 0, "L", false, 0, "")
		}
		pdf.SetFont("Helvetica", "", 10)
		for i, t := range text {
			pdf.SetXY(left+topicW, y+float64(i)*lineH)
			pdf.CellFormat(textW, lineH, t, "", 0, "L", false, 0, "")
		}
		pdf.SetXY(left+topicW+textW, y)
		pdf.CellFormat(amountW, lineH, tr(staff.Dollars(l.Amount)), "", 0, "R", false, 0, "")
		pdf.SetY(y + float64(rows)*lineH + 1.5)
	}
	pdf.Ln(3)

	// The clerk's answers: each under its own heading, indented, with
	// space between, so no answer runs into the records above it or into
	// the next answer.
	// The closing statement and the signature stay together, and the
	// last answer goes with them: a signature never stands alone.
	closing := tr("This statement reports the village's records as of the date above. It is made under §5.11 of the Village of Belleville Code of Ordinances.")
	pdf.SetFont("Helvetica", "", 10)
	tail := 4 + float64(len(staff.WrapText(pdf, closing, width)))*lineH + 14 + 3*lineH
	section("Stated by the clerk")
	var answers []struct{ k, v string }
	for _, f := range []struct{ k, v string }{
		{"Changes in assessments", doc.AssessmentChanges},
		{"Deferred assessments", doc.Deferred},
		{"Contemplated improvements", doc.Improvements},
		{"Floodplain status", doc.Floodplain},
		{"Building and health code violations", doc.Violations},
		{"Notes", doc.Notes},
	} {
		if f.v != "" {
			answers = append(answers, f)
		}
	}
	for i, f := range answers {
		pdf.SetFont("Helvetica", "", 10)
		answer := staff.WrapText(pdf, tr(f.v), width-8)
		need := lineH + float64(min(len(answer), 3))*lineH
		if i == len(answers)-1 && len(answer) <= 3 {
			need += 2.5 + tail
		}
		room(need)
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(0, lineH, tr(f.k), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		for _, a := range answer {
			room(lineH)
			pdf.SetX(left + 6)
			pdf.CellFormat(width-6, lineH, a, "", 1, "L", false, 0, "")
		}
		pdf.Ln(2.5)
	}

	pdf.SetFont("Helvetica", "", 10)
	room(tail)
	pdf.Ln(4)
	pdf.MultiCell(0, lineH, closing, "", "L", false)
	pdf.Ln(14)
	pdf.CellFormat(80, lineH, "", "T", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "B", 10)
	name := signer.Name
	if signer.Title != "" {
		name += ", " + signer.Title
	}
	pdf.CellFormat(0, lineH, tr(name), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, lineH, tr("Completed on "+doc.CompletedAt.Date.String()), "", 1, "L", false, 0, "")
	return pdf.Output(out)
}
