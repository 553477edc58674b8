package budget

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The budget summary (§5.02(5)) and the class 1 notice of the hearing
// (Wis. Stat. 65.90(3)): the page gives the hearing's day, time and place
// and shows the last day the notice may be published to meet the 15 days;
// the PDF is the notice with the summary, ready for the newspaper.

// noticeQuery reads the hearing of the notice from the query: its day
// (default: the hearing recorded, else four weeks from today), time and
// place.
func (m *Module) noticeQuery(r *http.Request, b domain.Budget) (hearing domain.Date, at, place string, err error) {
	q := r.URL.Query()
	at, place = q.Get("time"), q.Get("place")
	if at == "" {
		at = "6:30 p.m."
	}
	if place == "" {
		place = "Village Hall, 24 W Main St, Belleville"
	}
	switch {
	case q.Get("hearing") != "":
		hearing, err = staff.ParseDate("The day of the hearing", q.Get("hearing"))
	case b.Hearing != nil:
		hearing = b.Hearing.On
	default:
		hearing = m.o.Today().AddDays(28)
	}
	return hearing, at, place, err
}

func (m *Module) showSummary(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	bv, err := m.o.Reads().BudgetView(year, m.o.Today())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	hearing, at, place, err := m.noticeQuery(r, bv.Budget)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := summaryPageView{Summary: summaryOf(bv.Summary), Year: year, Hearing: hearing.String(), HearingLong: longDate(hearing), Time: at, Place: place,
		PublishBy: domain.LatestHearingNotice(hearing).String(), Status: string(bv.Budget.Status)}
	v.PublishLate = m.o.Today().After(domain.LatestHearingNotice(hearing)) && bv.Budget.Hearing == nil
	for _, n := range bv.Budget.Notices {
		if n.Purpose == "hearing" {
			v.Published = append(v.Published, n.Published.String()+" ("+n.Newspaper+")")
		}
	}
	v.PDF = fmt.Sprintf("/staff/budget/%d/summary.pdf?hearing=%s&time=%s&place=%s", year, hearing, urlq(at), urlq(place))
	m.o.Render(w, r, http.StatusOK, summaryPage(m.o.Frame(r, fmt.Sprintf("Budget summary %d", year)), v))
}

func (m *Module) showSummaryPDF(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	bv, err := m.o.Reads().BudgetView(year, m.o.Today())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	hearing, at, place, err := m.noticeQuery(r, bv.Budget)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	dated, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := SummaryPDF(&buf, bv, hearing, at, place, dated, bv.Budget.Changed.Time(m.o.Location())); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="budget-%d-notice.pdf"`, year))
	_, _ = w.Write(buf.Bytes())
}

// SummaryPDF writes the class 1 notice of the hearing on the budget of
// bv's year, with its summary (§5.02(5)), dated dated (the notice's legal
// date, which the clerk chooses): the same budget version, hearing and
// date render the same bytes (the PDF's own dates are the version's
// change).
func SummaryPDF(out *bytes.Buffer, bv domain.BudgetView, hearing domain.Date, at, place string, dated domain.Date, stamp time.Time) error {
	s := bv.Summary
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCompression(false) // its text stays searchable, as the office's other notices
	pdf.SetCreationDate(stamp)
	pdf.SetModificationDate(stamp)
	pdf.SetTitle(fmt.Sprintf("Notice of budget hearing %d", s.Year), false)
	pdf.SetAuthor("Village of Belleville", false)
	pdf.SetMargins(18, 16, 18)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetFont("Helvetica", "B", 14)
	pdf.CellFormat(0, 7, tr("VILLAGE OF BELLEVILLE"), "", 1, "C", false, 0, "")
	pdf.CellFormat(0, 7, tr(fmt.Sprintf("NOTICE OF PUBLIC HEARING ON THE PROPOSED %d BUDGET", s.Year)), "", 1, "C", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.Ln(2)
	pdf.CellFormat(0, 5, tr("Dated "+staff.LongDate(dated)), "", 1, "R", false, 0, "")
	pdf.MultiCell(0, 5, tr(staff.Sentence(fmt.Sprintf("NOTICE IS HEREBY GIVEN that the Village Board of the Village of Belleville will hold a public hearing on the proposed %d budget on %s at %s at %s", s.Year, longDate(hearing), at, place))+" "+
		"The proposed budget in detail is available for inspection at the Village Hall and on the kiosk there during regular office hours. The following is a summary of the proposed budget (Wis. Stat. 65.90; Village Code §5.02(5))."), "", "J", false)
	pdf.Ln(3)
	widths := []float64{70, 30, 30, 30, 20}
	header := func(title string) {
		pdf.SetFont("Helvetica", "B", 9)
		pdf.SetFillColor(230, 234, 240)
		for i, h := range []string{title, fmt.Sprintf("%d budget", s.Year-2), fmt.Sprintf("%d budget", s.Year-1), fmt.Sprintf("%d proposed", s.Year), "% change"} {
			align := "R"
			if i == 0 {
				align = "L"
			}
			pdf.CellFormat(widths[i], 6, tr(h), "1", 0, align, true, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 9)
	}
	row := func(r domain.SummaryRow, bold bool) {
		if bold {
			pdf.SetFont("Helvetica", "B", 9)
		}
		cells := []string{r.Label, dollars(r.Preceding), dollars(r.InEffect), dollars(r.Proposed), r.Change}
		for i, c := range cells {
			align := "R"
			if i == 0 {
				align = "L"
			}
			pdf.CellFormat(widths[i], 5.5, tr(c), "1", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 9)
	}
	table := func(title string, rows []domain.SummaryRow, total *domain.SummaryRow) {
		header(title)
		for _, r := range rows {
			row(r, false)
		}
		if total != nil {
			row(*total, true)
		}
		pdf.Ln(3)
	}
	table("Revenues by major source", s.Revenues, &s.TotalRevenue)
	table("Expenditures by major category", s.Expenditures, &s.TotalExpend)
	if len(s.Sources) > 0 {
		table("Other financing sources", s.Sources, nil)
	}
	if len(s.Uses) > 0 {
		table("Other financing uses", s.Uses, nil)
	}
	// Each fund's balances take two rows, the beginning of the year and
	// its end, so that every amount has a column of its own.
	header("Fund balances")
	for _, b := range s.Balances {
		row(domain.SummaryRow{Label: b.Label + ", beginning of year", Preceding: b.Preceding, InEffect: b.InEffect, Proposed: b.Proposed}, false)
		row(domain.SummaryRow{Label: b.Label + ", end of year", Preceding: b.PrecedingEnd, InEffect: b.InEffectEnd, Proposed: b.ProposedEnd, Change: b.Change}, false)
	}
	pdf.SetFont("Helvetica", "", 9)
	pdf.Ln(3)
	if len(bv.Budget.Debts) > 0 {
		pdf.SetFont("Helvetica", "B", 9)
		pdf.CellFormat(0, 5.5, tr("Existing indebtedness"), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 9)
		for _, d := range bv.Budget.Debts {
			pdf.CellFormat(0, 5, tr(fmt.Sprintf("%s: %s outstanding, %s due in %d", d.Description, dollars(d.Outstanding), dollars(d.DueInYear), s.Year)), "", 1, "L", false, 0, "")
		}
		pdf.Ln(2)
	}
	pdf.MultiCell(0, 5, tr(fmt.Sprintf("Publish as a class 1 notice at least 15 days before the hearing: on or before %s.", domain.LatestHearingNotice(hearing))), "", "L", false)
	pdf.Ln(6)
	pdf.CellFormat(0, 5, tr("Village Clerk, Village of Belleville"), "", 1, "L", false, 0, "")
	return pdf.Output(out)
}
