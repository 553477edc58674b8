package staff

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
)

// Report is a printed report of the office on US Letter: every page is
// headed with the village's name, the title of the part it is in and a
// line under it (the period), and footed with the report's name and
// "Page n of m". Its tables repeat their header on every page they run
// onto, right-align amounts, and fit every cell to its column, measuring
// the text in the font it is drawn in: a name too long for its column is
// cut short with "...", never drawn over the next one. Its content streams
// are left uncompressed, so its text stays searchable and a test can read
// where each word is.
type Report struct {
	PDF *fpdf.Fpdf
	// Tr translates text to the core fonts' code page; Fit and the tables
	// translate what they are given.
	Tr func(string) string
	// Left, Top, Right and Bottom are the margins; Width is the width
	// between the left and right ones.
	Left, Top, Right, Bottom, Width float64

	village, name   string
	title, subtitle string
	continued       bool
	table           *Table // the table being drawn, repeated on a new page
}

// The report's type: body text, a table's rows and its header.
const (
	reportFont = "Helvetica"
	// ReportSize is the point size of a table's text.
	ReportSize = 8.5
	// ReportLine is the height of a table's row, in millimetres.
	ReportLine = 5.0
)

// NewReport starts a report of the village (its name as it heads every
// page) named name (the document's title and the pages' footer), in
// orientation "P" or "L", dated stamp so the same figures render the same
// bytes.
func NewReport(village, name, orientation string, stamp time.Time) *Report {
	pdf := fpdf.New(orientation, "mm", "Letter", "")
	r := &Report{PDF: pdf, Tr: pdf.UnicodeTranslatorFromDescriptor(""), Left: 14, Top: 12, Right: 14, Bottom: 14, village: village, name: name}
	pdf.SetCompression(false)
	pdf.SetCreationDate(stamp)
	pdf.SetModificationDate(stamp)
	pdf.SetTitle(name, true)
	pdf.SetAuthor(village, true)
	pdf.SetMargins(r.Left, r.Top, r.Right)
	pdf.SetAutoPageBreak(false, r.Bottom)
	pdf.AliasNbPages("{nb}")
	w, _ := pdf.GetPageSize()
	r.Width = w - r.Left - r.Right
	pdf.SetHeaderFunc(r.header)
	pdf.SetFooterFunc(r.footer)
	return r
}

// Village returns the name of the village that heads every page of the
// office's printed reports: the letterhead's, else the built-in one.
func (o *Office) Village() string {
	if o.s.head.Name != "" {
		return o.s.head.Name
	}
	return "Village of Belleville"
}

// Part starts a part of the report on a page of its own, headed with
// title and subtitle (the period it covers).
func (r *Report) Part(title, subtitle string) {
	r.title, r.subtitle, r.continued, r.table = title, subtitle, false, nil
	r.PDF.AddPage()
}

func (r *Report) header() {
	pdf := r.PDF
	w, _ := pdf.GetPageSize()
	pdf.SetXY(r.Left, r.Top)
	pdf.SetFont(reportFont, "B", 13)
	pdf.CellFormat(r.Width, 6, r.Fit(r.village, r.Width), "", 1, "L", false, 0, "")
	if r.title != "" {
		title := r.title
		if r.continued {
			title += " (continued)"
		}
		pdf.SetFont(reportFont, "B", 11)
		pdf.CellFormat(r.Width, 5.5, r.Fit(title, r.Width), "", 1, "L", false, 0, "")
	}
	if r.subtitle != "" {
		pdf.SetFont(reportFont, "", 9.5)
		pdf.CellFormat(r.Width, 5, r.Fit(r.subtitle, r.Width), "", 1, "L", false, 0, "")
	}
	y := pdf.GetY() + 1.5
	pdf.SetDrawColor(29, 58, 95)
	pdf.SetLineWidth(0.5)
	pdf.Line(r.Left, y, w-r.Right, y)
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.2)
	pdf.SetY(y + 4)
	pdf.SetFont(reportFont, "", ReportSize)
}

func (r *Report) footer() {
	pdf := r.PDF
	_, h := pdf.GetPageSize()
	pdf.SetFont(reportFont, "", 8)
	half := r.Width / 2
	pdf.SetXY(r.Left, h-r.Bottom+4)
	pdf.CellFormat(half, 4, r.Fit(r.village+" - "+r.name, half), "", 0, "L", false, 0, "")
	pdf.CellFormat(half, 4, r.Tr("Page ")+strconv.Itoa(pdf.PageNo())+" of {nb}", "", 0, "R", false, 0, "")
}

// Room makes sure h millimetres fit above the bottom margin, going on to
// a new page of the same part when they do not (with the header of the
// table being drawn); it reports whether it did.
func (r *Report) Room(h float64) bool {
	_, ph := r.PDF.GetPageSize()
	if r.PDF.GetY()+h <= ph-r.Bottom {
		return false
	}
	r.continued = true
	r.PDF.AddPage()
	if r.table != nil {
		r.table.head()
	}
	return true
}

// Fit translates s and cuts it short with "..." so that it fits in a cell
// of width w in the current font, the cell's padding left.
func (r *Report) Fit(s string, w float64) string {
	s = r.Tr(s)
	room := w - 2*r.PDF.GetCellMargin()
	if r.PDF.GetStringWidth(s) <= room {
		return s
	}
	for len(s) > 0 && r.PDF.GetStringWidth(s+"...") > room {
		s = strings.TrimRight(s[:len(s)-1], " ")
	}
	return s + "..."
}

// Text writes a paragraph across the page, wrapped at spaces.
func (r *Report) Text(s string, size float64, style string) {
	r.PDF.SetFont(reportFont, style, size)
	lh := size * 0.55
	for _, l := range WrapText(r.PDF, r.Tr(s), r.Width) {
		r.Room(lh)
		r.PDF.SetX(r.Left)
		r.PDF.CellFormat(r.Width, lh, l, "", 1, "L", false, 0, "")
	}
}

// Heading writes a bold heading, on a new page when it and two rows
// after it do not fit.
func (r *Report) Heading(s string) {
	r.table = nil
	r.Room(7 + 3*ReportLine)
	r.PDF.SetFont(reportFont, "B", 10)
	r.PDF.SetX(r.Left)
	r.PDF.CellFormat(r.Width, 7, r.Fit(s, r.Width), "", 1, "L", false, 0, "")
	r.PDF.SetFont(reportFont, "", ReportSize)
}

// AmountWidth is the width of a column that holds every one of amounts
// and its title's longest word, in the tables' font, padding included.
func (r *Report) AmountWidth(title string, amounts ...string) float64 {
	r.PDF.SetFont(reportFont, "B", ReportSize)
	w := 0.0
	for _, word := range strings.Fields(r.Tr(title)) {
		w = max(w, r.PDF.GetStringWidth(word))
	}
	r.PDF.SetFont(reportFont, "", ReportSize)
	for _, a := range amounts {
		w = max(w, r.PDF.GetStringWidth(r.Tr(a)))
	}
	r.PDF.SetFont(reportFont, "B", ReportSize)
	for _, a := range amounts {
		w = max(w, r.PDF.GetStringWidth(r.Tr(a)))
	}
	r.PDF.SetFont(reportFont, "", ReportSize)
	return w + 2*r.PDF.GetCellMargin() + 2
}

// Column is one column of a table: its title (wrapped over as many lines
// as it needs), its width in millimetres, and whether it holds amounts,
// right-aligned.
type Column struct {
	Title  string
	Width  float64
	Amount bool
}

// Table is a table being drawn; its header is repeated on every page it
// runs onto.
type Table struct {
	r    *Report
	cols []Column
}

// Table starts a table with cols, drawing its header.
func (r *Report) Table(cols []Column) *Table {
	t := &Table{r: r, cols: cols}
	r.table = nil
	r.Room(t.headHeight() + 2*ReportLine)
	r.table = t
	t.head()
	return t
}

func (t *Table) titles() [][]string {
	pdf := t.r.PDF
	pdf.SetFont(reportFont, "B", ReportSize)
	out := make([][]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = WrapText(pdf, t.r.Tr(c.Title), c.Width-2*pdf.GetCellMargin())
	}
	return out
}

func (t *Table) headHeight() float64 {
	n := 1
	for _, l := range t.titles() {
		n = max(n, len(l))
	}
	return float64(n)*4 + 1.5
}

func (t *Table) head() {
	pdf := t.r.PDF
	titles := t.titles()
	h := t.headHeight()
	y := pdf.GetY()
	x := t.r.Left
	pdf.SetFillColor(230, 234, 240)
	pdf.Rect(x, y, t.width(), h, "F")
	for i, c := range t.cols {
		align := "L"
		if c.Amount {
			align = "R"
		}
		// The title's lines sit at the bottom of the header, over the
		// column's figures.
		top := y + h - 0.75 - float64(len(titles[i]))*4
		for j, l := range titles[i] {
			pdf.SetXY(x, top+float64(j)*4)
			pdf.CellFormat(c.Width, 4, l, "", 0, align, false, 0, "")
		}
		x += c.Width
	}
	pdf.SetY(y + h)
	pdf.SetFont(reportFont, "", ReportSize)
}

func (t *Table) width() float64 {
	w := 0.0
	for _, c := range t.cols {
		w += c.Width
	}
	return w
}

// Row draws a row of cells, one a column, each fitted to its column.
func (t *Table) Row(cells ...string) { t.row(cells, "") }

// Subhead draws a bold caption across the table, over the rows it
// heads; it goes on to the next page with the first of them.
func (t *Table) Subhead(s string) {
	pdf := t.r.PDF
	t.r.Room(2*ReportLine + 1)
	pdf.SetFont(reportFont, "B", ReportSize)
	pdf.SetX(t.r.Left)
	pdf.CellFormat(t.width(), ReportLine, t.r.Fit(s, t.width()), "", 1, "L", false, 0, "")
	pdf.SetFont(reportFont, "", ReportSize)
}

// Total draws a row of totals in bold, its amounts ruled above.
func (t *Table) Total(cells ...string) { t.row(cells, "total") }

// Final draws the last total of a table: bold, ruled above and twice
// below.
func (t *Table) Final(cells ...string) { t.row(cells, "final") }

func (t *Table) row(cells []string, kind string) {
	pdf := t.r.PDF
	t.r.Room(ReportLine + 1)
	style := ""
	if kind != "" {
		style = "B"
	}
	pdf.SetFont(reportFont, style, ReportSize)
	y := pdf.GetY()
	x := t.r.Left
	for i, c := range t.cols {
		s := ""
		if i < len(cells) {
			s = cells[i]
		}
		align := "L"
		if c.Amount {
			align = "R"
		}
		pdf.SetXY(x, y)
		pdf.CellFormat(c.Width, ReportLine, t.r.Fit(s, c.Width), "", 0, align, false, 0, "")
		if kind != "" && c.Amount {
			pdf.Line(x+1, y+0.3, x+c.Width-0.5, y+0.3)
			if kind == "final" {
				pdf.Line(x+1, y+ReportLine-0.2, x+c.Width-0.5, y+ReportLine-0.2)
				pdf.Line(x+1, y+ReportLine+0.4, x+c.Width-0.5, y+ReportLine+0.4)
			}
		}
		x += c.Width
	}
	pdf.SetY(y + ReportLine)
	if kind == "final" {
		pdf.SetY(y + ReportLine + 1)
	}
	pdf.SetFont(reportFont, "", ReportSize)
}

// End ends the table; a page break after it repeats no header.
func (t *Table) End() {
	t.r.table = nil
	t.r.PDF.Ln(3)
}

// Output writes the report.
func (r *Report) Output(out *bytes.Buffer) error { return r.PDF.Output(out) }

// Pages is the number of pages so far.
func (r *Report) Pages() int { return r.PDF.PageNo() }

// Accounting writes an amount the way a financial statement prints it:
// "$1,234.56", a negative one in parentheses, "($20.00)".
func Accounting(m domain.Money) string {
	if m.IsNegative() {
		return "(" + Dollars(m.Neg()) + ")"
	}
	return Dollars(m)
}

// WrapText breaks s, already translated to the core fonts' code page,
// into lines no wider than w in the current font: at spaces, and inside a
// word only when the word alone is wider than a line. (fpdf's SplitText
// reads runes and cannot take translated text.)
func WrapText(pdf *fpdf.Fpdf, s string, w float64) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for pdf.GetStringWidth(word) > w {
				if line != "" {
					lines, line = append(lines, line), ""
				}
				n := len(word) - 1
				for n > 1 && pdf.GetStringWidth(word[:n]) > w {
					n--
				}
				lines, word = append(lines, word[:n]), word[n:]
			}
			switch {
			case line == "":
				line = word
			case pdf.GetStringWidth(line+" "+word) <= w:
				line += " " + word
			default:
				lines, line = append(lines, line), word
			}
		}
		lines = append(lines, line)
	}
	return lines
}
