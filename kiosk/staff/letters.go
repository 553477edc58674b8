package staff

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// showLettersPage is the status letter queue (§5.11) by ready-by date,
// with letters past their date flagged.
func (s *Server) showLettersPage(w http.ResponseWriter, r *http.Request) {
	queue, err := s.reads.StatusQueue(domain.Date{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	all := r.URL.Query().Get("all") != ""
	today := s.today()
	v := view.Letters{All: all}
	for _, req := range queue {
		if !all && req.State == domain.StatusDelivered {
			continue
		}
		v.Rows = append(v.Rows, view.LetterRow{Claim: req.Claim, Parcel: req.Parcel, Address: req.Address, Requester: req.Requester, RequestedAt: req.RequestedAt.String(), ReadyBy: req.ReadyBy.String(), State: req.State,
			Overdue: req.State == domain.StatusRequested && today.After(req.ReadyBy), DueToday: req.State == domain.StatusRequested && req.ReadyBy == today})
	}
	s.render(w, r, http.StatusOK, view.LettersPage(s.page(r, "Status letters"), v))
}

// lettersDue counts the requested letters past their ready-by date and
// those due today.
func (s *Server) lettersDue() (late, today int, err error) {
	queue, err := s.reads.StatusQueue(domain.Date{})
	if err != nil {
		return 0, 0, err
	}
	d := s.today()
	for _, req := range queue {
		if req.State != domain.StatusRequested {
			continue
		}
		switch {
		case d.After(req.ReadyBy):
			late++
		case d == req.ReadyBy:
			today++
		}
	}
	return late, today, nil
}

// letterFacts returns what the ledger holds about a parcel that a status
// letter states: its village bills still owed (special charges, and those
// certified to the tax roll), and its property tax bills.
func (s *Server) letterFacts(parcel string, asOf domain.Date) ([]domain.LetterLine, error) {
	var lines []domain.LetterLine
	bills, err := s.ledger.BillsByParcel(parcel)
	if err != nil {
		return nil, err
	}
	p := s.ledger.Params()
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
		text := fmt.Sprintf("Bill %s, %s, billed %s: unpaid (%s)", b.ID, b.Description, b.BilledOn, fig.Status)
		switch fig.Status {
		case domain.BillTaxRoll:
			// The date on the roll is the day the November run certified
			// the bill (Bill.Certified), not the day §5.10 names.
			text = fmt.Sprintf("Bill %s, %s: certified to the tax roll on %s as a special charge and lien", b.ID, b.Description, b.Certified.At.Date)
		case domain.BillRollPending:
			text = fmt.Sprintf("Bill %s, %s, billed %s: unpaid at the end of %s; certification to the tax roll pending", b.ID, b.Description, b.BilledOn, fig.TaxRollOn)
		}
		lines = append(lines, domain.LetterLine{Topic: topic, Text: text, Amount: fig.Balance})
	}
	taxes, err := s.reads.TaxBillsOfParcel(parcel)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return nil, err
	}
	for _, t := range taxes {
		fig, err := t.Figures(p)
		if err != nil {
			return nil, err
		}
		lines = append(lines, domain.LetterLine{Topic: "Taxes", Text: fmt.Sprintf("%d property tax (%s County), %s", t.TaxYear, t.County.Title(), fig.Status), Amount: fig.Balance})
		for _, it := range t.SpecialItems {
			lines = append(lines, domain.LetterLine{Topic: "Special assessments", Text: fmt.Sprintf("On the %d tax bill: %s", t.TaxYear, it.Description), Amount: it.Amount})
		}
	}
	// The parcel's special assessments, outstanding and deferred, and the
	// contemplated improvements whose district holds it (§5.14).
	more, err := s.reads.AssessmentLetterLines(parcel, asOf)
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
			out = append(out, l.Text+" ($"+l.Amount.String()+")")
		}
	}
	return strings.Join(out, "\n")
}

func (s *Server) showLetterPage(w http.ResponseWriter, r *http.Request) {
	s.letterPage(w, r, http.StatusOK, view.LetterForm{})
}

func (s *Server) letterPage(w http.ResponseWriter, r *http.Request, status int, f view.LetterForm) {
	req, err := s.reads.StatusRequest(r.PathValue("claim"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr, _ := principalFrom(r.Context())
	v := view.Letter{Claim: req.Claim, Parcel: req.Parcel, Address: req.Address, Requester: req.Requester, Contact: req.Contact, RequestedAt: req.RequestedAt.String(), ReadyBy: req.ReadyBy.String(), State: req.State, Fee: req.Fee.String(), CanWork: Allowed(pr.user.Role, CapLetters), Form: f}
	if req.State == domain.StatusRequested {
		asOf := s.today()
		lines, err := s.letterFacts(req.Parcel, asOf)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, l := range lines {
			v.Lines = append(v.Lines, view.LetterLine{Topic: l.Topic, Text: l.Text, Amount: l.Amount.String()})
		}
		v.AsOf = asOf.String()
		if v.Form.Deferred == "" {
			v.Form.Deferred = answerFrom(lines, "Deferred assessments")
		}
		if v.Form.Improvements == "" {
			v.Form.Improvements = answerFrom(lines, "Contemplated improvements")
		}
		if v.Form.Floodplain == "" {
			if pc, err := s.ledger.Parcel(req.Parcel); err == nil {
				v.Form.Floodplain = "Not in a mapped floodplain."
				if pc.Floodplain {
					v.Form.Floodplain = "In the mapped floodplain (floodplain zoning applies)."
				}
			}
		}
	} else {
		doc, err := s.reads.StatusLetter(req.Claim)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.Number, v.AsOf, v.Delivery, v.DeliveredAt = doc.Number, doc.AsOf.String(), doc.Delivery, doc.DeliveredAt.String()
		for _, l := range doc.Lines {
			v.Lines = append(v.Lines, view.LetterLine{Topic: l.Topic, Text: l.Text, Amount: l.Amount.String()})
		}
	}
	s.render(w, r, status, view.LetterPage(s.page(r, "Status letter "+req.Claim), v))
}

// submitLetter completes a letter: the ledger's facts as of today, and the
// clerk's answers for what the ledger does not hold.
func (s *Server) submitLetter(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	f := view.LetterForm{AssessmentChanges: formValue(r, "assessment_changes"), Deferred: formValue(r, "deferred"), Improvements: formValue(r, "improvements"), Floodplain: formValue(r, "floodplain"), Violations: formValue(r, "violations"), Notes: formValue(r, "notes")}
	req, err := s.reads.StatusRequest(claim)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	asOf := s.today()
	lines, err := s.letterFacts(req.Parcel, asOf)
	if err == nil {
		_, err = s.submit(r, domain.KindStatusLetter, func(c *domain.Command) {
			c.Payload = &domain.StatusLetterWork{Op: "complete", Claim: claim, AsOf: asOf, Lines: lines, AssessmentChanges: f.AssessmentChanges, Deferred: f.Deferred, Improvements: f.Improvements, Floodplain: f.Floodplain, Violations: f.Violations, Notes: f.Notes}
		})
	}
	if err != nil {
		if st := errorStatus(err); st == http.StatusUnprocessableEntity || st == http.StatusConflict {
			f.Error = domain.ErrorMessage(err)
			s.letterPage(w, r, st, f)
			return
		}
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/letters/"+claim)
}

func (s *Server) submitLetterDelivery(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	_, err := s.submit(r, domain.KindStatusLetter, func(c *domain.Command) {
		c.Payload = &domain.StatusLetterWork{Op: "deliver", Claim: claim, Delivery: formValue(r, "delivery"), DeliveryNote: formValue(r, "delivery_note")}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/letters/"+claim)
}

// showLetterPDF serves the numbered letter as a PDF on the village's
// letterhead.
func (s *Server) showLetterPDF(w http.ResponseWriter, r *http.Request) {
	doc, err := s.reads.StatusLetter(r.PathValue("claim"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	owner := ""
	if pc, err := s.ledger.Parcel(doc.Parcel); err == nil {
		owner = pc.Owner
	}
	var buf bytes.Buffer
	if err := letterPDF(&buf, doc, owner, s.loc); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.pdf"`, doc.Number))
	_, _ = w.Write(buf.Bytes())
}

// letterPDF writes a statement of real property status (§5.11). The PDF's
// creation date is the letter's completion time, so the same letter always
// renders to the same bytes.
func letterPDF(out *bytes.Buffer, doc domain.StatusLetterDoc, owner string, loc *time.Location) error {
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCreationDate(doc.CompletedAt.Time(loc))
	pdf.SetModificationDate(doc.CompletedAt.Time(loc))
	pdf.SetTitle("Statement of real property status "+doc.Number, false)
	pdf.SetAuthor("Village of Belleville, Clerk's office", false)
	pdf.SetMargins(20, 18, 20)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")

	// Letterhead.
	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 9, tr("Village of Belleville"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 5, tr("Office of the Clerk · Belleville, Wisconsin 53508"), "", 1, "L", false, 0, "")
	pdf.SetDrawColor(29, 58, 95)
	pdf.SetLineWidth(0.6)
	y := pdf.GetY() + 2
	pdf.Line(20, y, 196, y)
	pdf.Ln(7)

	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(0, 7, tr("Statement of Real Property Status (§5.11)"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	field := func(k, v string) {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(38, 5.5, tr(k), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, 5.5, tr(v), "", "L", false)
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
	pdf.Ln(4)

	section := func(title string) {
		pdf.SetFont("Helvetica", "B", 11)
		pdf.CellFormat(0, 7, tr(title), "B", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
	}
	section("From the village's records")
	for _, l := range doc.Lines {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(45, 5.5, tr(l.Topic), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		x, y := pdf.GetX(), pdf.GetY()
		pdf.MultiCell(100, 5.5, tr(l.Text), "", "L", false)
		after := pdf.GetY()
		pdf.SetXY(x+100, y)
		pdf.CellFormat(0, 5.5, "$"+l.Amount.String(), "", 0, "R", false, 0, "")
		pdf.SetY(after)
	}
	pdf.Ln(3)
	section("Stated by the clerk")
	for _, f := range []struct{ k, v string }{
		{"Changes in assessments", doc.AssessmentChanges},
		{"Deferred assessments", doc.Deferred},
		{"Contemplated improvements", doc.Improvements},
		{"Floodplain status", doc.Floodplain},
		{"Building and health code violations", doc.Violations},
		{"Notes", doc.Notes},
	} {
		if f.v == "" {
			continue
		}
		pdf.SetFont("Helvetica", "B", 10)
		pdf.MultiCell(0, 5.5, tr(f.k), "", "L", false)
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, 5.5, tr(f.v), "", "L", false)
		pdf.Ln(1)
	}
	pdf.Ln(8)
	pdf.MultiCell(0, 5, tr("This statement reports the village's records as of the date above. It is made under §5.11 of the Village of Belleville Code of Ordinances."), "", "L", false)
	pdf.Ln(12)
	pdf.CellFormat(80, 5, "", "T", 1, "L", false, 0, "")
	pdf.CellFormat(0, 5, tr(fmt.Sprintf("Village Clerk · prepared by %s on %s", doc.CompletedBy, doc.CompletedAt.Date)), "", 1, "L", false, 0, "")
	return pdf.Output(out)
}
