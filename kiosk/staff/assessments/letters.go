package assessments

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// showNoticeLetters serves the mail merge of a notice (§5.14(6)): one
// letter for every interested person of the district whose address is
// known, with the notice's text and the parcel's proposed assessment, as
// one PDF to print and mail. ?notice= names the notice (its command id);
// the latest by default.
func (m *Module) showNoticeLetters(w http.ResponseWriter, r *http.Request) {
	p, err := m.o.Reads().AssessmentProject(r.PathValue("project"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, ok := p.LastNotice()
	if id := r.URL.Query().Get("notice"); id != "" {
		ok = false
		for _, x := range p.Notices {
			if x.CommandID == id {
				n, ok = x, true
			}
		}
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.14(6)", "Project %s has no such notice.", p.ID))
		return
	}
	at := p.AdoptedOn
	var when domain.DateTime
	for _, s := range p.Steps {
		if s.CommandID == n.CommandID {
			when = s.At
		}
	}
	if when.IsZero() {
		when = domain.NewDateTime(at, 0, 0, 0)
	}
	sched, err := p.Schedule(m.o.Ledger().Params())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var letters []noticeLetter
	for _, id := range p.District {
		pc := m.parcelOf(id)
		if strings.TrimSpace(pc.Owner) == "" || strings.TrimSpace(pc.Address) == "" {
			continue
		}
		row, _ := sched.Row(id)
		letters = append(letters, noticeLetter{parcel: pc, row: row})
	}
	var buf bytes.Buffer
	if err := noticeLettersPDF(&buf, p, n, letters, when, m.o.Location()); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="notice-%s-%s.pdf"`, p.ID, n.NoticeOn))
	_, _ = w.Write(buf.Bytes())
}

// noticeLetter is one letter of a mail merge: the owner's parcel and its
// row of the schedule.
type noticeLetter struct {
	parcel domain.Parcel
	row    domain.ScheduleRow
}

// noticeLettersPDF writes the letters of a notice, one page each, on the
// village's letterhead. The PDF's dates are the notice's recording time,
// so the same notice always renders to the same bytes.
func noticeLettersPDF(out *bytes.Buffer, p domain.Project, n domain.Notice, letters []noticeLetter, when domain.DateTime, loc *time.Location) error {
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCreationDate(when.Time(loc))
	pdf.SetModificationDate(when.Time(loc))
	pdf.SetCatalogSort(true) // fonts in a fixed order, not a map's
	pdf.SetTitle("Notice of hearing on special assessments, project "+p.ID, false)
	pdf.SetAuthor("Village of Belleville, Clerk's office", false)
	pdf.SetMargins(20, 18, 20)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	para := func(s string) {
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, 5, tr(s), "", "L", false)
		pdf.Ln(2)
	}
	for _, l := range letters {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "B", 18)
		pdf.CellFormat(0, 9, tr("Village of Belleville"), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(0, 5, tr("Office of the Clerk · Belleville, Wisconsin 53508"), "", 1, "L", false, 0, "")
		pdf.SetDrawColor(29, 58, 95)
		pdf.SetLineWidth(0.6)
		y := pdf.GetY() + 2
		pdf.Line(20, y, 196, y)
		pdf.Ln(8)
		pdf.CellFormat(0, 5, tr(n.NoticeOn.String()), "", 1, "L", false, 0, "")
		pdf.Ln(3)
		pdf.CellFormat(0, 5, tr(l.parcel.Owner), "", 1, "L", false, 0, "")
		pdf.CellFormat(0, 5, tr(l.parcel.Address), "", 1, "L", false, 0, "")
		pdf.CellFormat(0, 5, tr("Belleville, Wisconsin 53508"), "", 1, "L", false, 0, "")
		pdf.Ln(6)
		pdf.SetFont("Helvetica", "B", 12)
		pdf.MultiCell(0, 6, tr("Notice of public hearing on proposed special assessments"), "", "L", false)
		pdf.Ln(2)
		para(fmt.Sprintf("The Village Board adopted preliminary resolution %s on %s declaring its intention to levy special assessments for: %s (project %s).", p.Number, p.AdoptedOn, p.Purpose, p.ID))
		para("The assessment district: " + p.Limits + ".")
		para(fmt.Sprintf("The report of the %s, with the plans and specifications, the estimate of the cost and the proposed assessment of every parcel, may be inspected at %s.", p.Officer, n.Inspection))
		para(fmt.Sprintf("The Village Board will hear all interested persons, their agents or attorneys concerning the matters contained in the preliminary resolution and the report on %s at %s.", n.HearingOn, n.HearingAt))
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(0, 6, tr("Your parcel "+l.parcel.ID), "B", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		row := func(k, v string) {
			pdf.CellFormat(110, 5.5, tr(k), "", 0, "L", false, 0, "")
			pdf.CellFormat(0, 5.5, tr(v), "", 1, "R", false, 0, "")
		}
		for i, line := range l.row.Lines {
			label := "Assessment of benefits: " + p.Improvements[i]
			if line.Separate {
				label += " (assessed separately: you objected to combining it)"
			}
			row(label, staff.Dollars(line.Assessment))
		}
		if l.row.Exempt {
			row("Exempt by law: the village pays this parcel's share", staff.Dollars(l.row.VillagePays))
		} else if l.row.VillagePays.IsPositive() {
			row("Corner lot deduction, paid by the village", staff.Dollars(l.row.VillagePays))
		}
		if l.row.Damages.IsPositive() {
			row("Damages awarded", staff.Dollars(l.row.Damages.Neg()))
		}
		pdf.SetFont("Helvetica", "B", 10)
		row("Proposed assessment", staff.Dollars(l.row.Net))
		if l.row.Compensation.IsPositive() {
			row("Compensation owed to you", staff.Dollars(l.row.Compensation))
		}
		pdf.Ln(4)
		installments := "The number of installments will be determined at the hearing."
		if p.Installments > 0 {
			installments = fmt.Sprintf("The assessment may be paid in %d installments.", p.Installments)
		}
		para(installments)
		pdf.SetFont("Helvetica", "", 8)
		pdf.MultiCell(0, 4, tr("Notice given under §5.14(6) of the Village of Belleville Code of Ordinances by "+n.Method+" on "+n.NoticeOn.String()+"; this copy is mailed to each interested person whose address is known."), "", "L", false)
	}
	if len(letters) == 0 {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, 5, tr("No owner of the district has a known address: no letter to mail."), "", "L", false)
	}
	return pdf.Output(out)
}
