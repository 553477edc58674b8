package staff

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
)

// Every letter, notice and bill the office mails is laid out alike, for a
// standard No. 10 double-window envelope: the village's letterhead, which is
// also the return address, shows through the upper window; the
// addressee's name and address through the lower one; the date and the
// references (a bill's number, an account, the amount due) stand to the
// right of the address; the body runs below the first fold; a bill's
// remittance stub, to tear off and return with a check, takes the bottom
// third, below the second fold.

// Rect is a rectangle on a page, in millimetres from its top-left corner.
type Rect struct{ X, Y, W, H float64 }

// Contains reports whether the box from (x, top) to (right, bottom) lies
// inside r.
func (r Rect) Contains(x, top, right, bottom float64) bool {
	const e = 0.01
	return x >= r.X-e && right <= r.X+r.W+e && top >= r.Y-e && bottom <= r.Y+r.H+e
}

const inch = 25.4

// The windows of a standard No. 10 double-window envelope (9 1/2" x 4 1/8"),
// as they fall on a US Letter page tri-folded in thirds with its top
// third facing them. The envelope's address window is 4 1/2" x 1 1/8",
// 7/8" from its left edge and 1/2" from its bottom; its return window
// 3 1/2" x 1", 3/8" from its left edge and 5/8" from its top. The folded
// letter (11/3" tall) settles against the envelope's bottom and left
// edges, so the page's top edge is 4 1/8" - 11/3" = 0.458" below the
// envelope's top: the address window covers the page from 2.042" to
// 3.167" down, the return window from 0.167" to 1.167". What is printed
// in a window stays WindowInset inside it, so that a letter riding a
// little off those edges still shows all of it.
var (
	// AddressWindow is where the addressee's name and address show.
	AddressWindow = Rect{X: 7.0 / 8 * inch, Y: (4.125 - 0.5 - 1.125 - (4.125 - 11.0/3)) * inch, W: 4.5 * inch, H: 1.125 * inch}
	// ReturnWindow is where the village's name and hall address show.
	ReturnWindow = Rect{X: 3.0 / 8 * inch, Y: (0.625 - (4.125 - 11.0/3)) * inch, W: 3.5 * inch, H: 1 * inch}
)

// The letter's other measures, in millimetres.
const (
	// WindowInset is the space kept between a window's edge and the
	// text shown through it (1/8").
	WindowInset = inch / 8
	// LetterMargin is the left and right margin of the body.
	LetterMargin = 20.0
	// FoldOne and FoldTwo are where the page is folded in thirds; the
	// body starts below the first, a remittance stub below the second.
	FoldOne = 11.0 / 3 * inch
	FoldTwo = 22.0 / 3 * inch
	// letterBottom is the lowest a line of the body may reach without a
	// stub.
	letterBottom = 11*inch - 16
	letterFont   = "Helvetica"
	letterSize   = 10.0
	letterLine   = 5.0
	// refsX is where the date and the references start, right of the
	// address window.
	refsX = 7.0/8*inch + 4.5*inch + 6
)

// Letter is a PDF of one or more letters of the office (a batch for a
// mailing puts one letter on each page), on US Letter with the core
// Helvetica fonts, its streams uncompressed so its text stays searchable
// and a test can read where each word is.
type Letter struct {
	PDF *fpdf.Fpdf
	// Tr translates text to the core fonts' code page.
	Tr func(string) string
	// Width is the width of the body between the margins.
	Width float64

	head     Letterhead
	title    string // of the letter being written, for its continuation pages
	bottom   float64
	stub     *Stub
	inLetter bool
}

// Stub is a remittance stub: the bottom third of a bill, torn off along
// the second fold and returned with the payment. Rows are what the
// treasurer needs to post it (the bill's number, the account, the parcel,
// the due date, the amount due); PayTo says whom a check is made out to.
type Stub struct {
	Rows  [][2]string
	PayTo string
}

// LetterStart is the head of one letter: its date (the legal date the
// clerk chose), the addressee's lines as they go through the address
// window, the references beside it (label and value: "Bill",
// "B-2026-…"), and its heading.
type LetterStart struct {
	Date    domain.Date
	To      []string
	Refs    [][2]string
	Heading string
	// Stub, when set, is drawn on the bottom third of the letter's last
	// page, which the body never reaches.
	Stub *Stub
	// Public makes it a notice to the public (posted, or sent to the
	// newspaper) rather than a letter to mail: it has no addressee, so
	// To and Refs are not printed and no window is left for them; its
	// heading is centred right under the letterhead and the body follows.
	Public bool
}

// NewLetter starts a PDF of letters headed with head (a zero field keeps
// the built-in text), titled title and dated stamp, so that the same
// letters render the same bytes.
func NewLetter(head Letterhead, title string, stamp time.Time) *Letter {
	pdf := fpdf.New("P", "mm", "Letter", "")
	l := &Letter{PDF: pdf, Tr: pdf.UnicodeTranslatorFromDescriptor(""), head: head.filled(), title: title}
	pdf.SetCompression(false)
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(stamp)
	pdf.SetModificationDate(stamp)
	pdf.SetTitle(title, true)
	pdf.SetAuthor(l.head.Name, true)
	pdf.SetMargins(LetterMargin, 14, LetterMargin)
	pdf.SetAutoPageBreak(false, 0)
	w, _ := pdf.GetPageSize()
	l.Width = w - 2*LetterMargin
	return l
}

// NewLetter starts a PDF of the office's letters on its letterhead.
func (o *Office) NewLetter(title string, stamp time.Time) *Letter {
	return NewLetter(o.Letterhead(), title, stamp)
}

// filled returns the letterhead with the built-in text where a field is
// empty.
func (h Letterhead) filled() Letterhead {
	if h.Name == "" {
		h.Name = "Village of Belleville"
	}
	if h.Address == "" {
		h.Address = "Office of the Clerk, Belleville, WI 53508"
	}
	return h
}

// AddressLines returns the hall's address as it is written on an
// envelope: the street, then the city line ("24 W Main St", "Belleville,
// WI 53508"), split at its first comma.
func (h Letterhead) AddressLines() []string {
	h = h.filled()
	street, city, ok := strings.Cut(h.Address, ",")
	if !ok {
		return []string{strings.TrimSpace(h.Address)}
	}
	return []string{strings.TrimSpace(street), strings.TrimSpace(city)}
}

// SiteCity returns the city line of an address in the village, from the
// hall's ("Belleville, WI 53508"): where a parcel's own address is.
func (h Letterhead) SiteCity() string {
	lines := h.AddressLines()
	return lines[len(lines)-1]
}

// VillageName returns the village's name as its letters print it.
func (h Letterhead) VillageName() string { return h.filled().Name }

// Start begins a letter on a new page.
func (l *Letter) Start(s LetterStart) {
	l.inLetter, l.stub = true, s.Stub
	l.bottom = letterBottom
	if s.Stub != nil {
		l.bottom = FoldTwo - 6
	}
	pdf := l.PDF
	pdf.AddPage()
	l.letterhead()
	if s.Public {
		l.startPublic(s)
		return
	}

	// The addressee, through the address window.
	x, y := AddressWindow.X+WindowInset, AddressWindow.Y+WindowInset
	room := AddressWindow.W - 2*WindowInset
	lines := s.To
	// Five lines fit; a longer address keeps its last line (the city).
	if n := int((AddressWindow.H - 2*WindowInset) / 4.3); len(lines) > n {
		lines = append(lines[:n-1:n-1], lines[len(lines)-1])
	}
	pdf.SetFont(letterFont, "", 10)
	for i, t := range lines {
		pdf.SetXY(x, y+float64(i)*4.3)
		pdf.CellFormat(room, 4.3, l.fit(t, room), "", 0, "L", false, 0, "")
	}

	// The date above the rule, the references right of the window.
	w, _ := pdf.GetPageSize()
	rw := w - LetterMargin - refsX
	pdf.SetFont(letterFont, "", 10)
	pdf.SetXY(refsX, ReturnWindow.Y+ReturnWindow.H-5.5)
	pdf.CellFormat(rw, 5, l.fit(LongDate(s.Date), rw), "", 0, "R", false, 0, "")
	y = AddressWindow.Y
	for _, r := range s.Refs {
		pdf.SetFont(letterFont, "B", 8)
		pdf.SetXY(refsX, y)
		pdf.CellFormat(rw, 3.5, l.fit(r[0], rw), "", 0, "L", false, 0, "")
		pdf.SetFont(letterFont, "", 9.5)
		pdf.SetXY(refsX, y+3.5)
		pdf.CellFormat(rw, 4.3, l.fit(r[1], rw), "", 0, "L", false, 0, "")
		y += 8.3
	}

	pdf.SetY(max(FoldOne-6, y+2))
	if s.Heading != "" {
		pdf.SetFont(letterFont, "B", 13)
		for _, t := range WrapText(pdf, l.Tr(s.Heading), l.Width) {
			pdf.SetX(LetterMargin)
			pdf.CellFormat(l.Width, 6.5, t, "", 1, "L", false, 0, "")
		}
		pdf.Ln(2)
	}
	pdf.SetFont(letterFont, "", letterSize)
}

// startPublic heads a notice to the public: its date above the rule,
// its heading centred under it.
func (l *Letter) startPublic(s LetterStart) {
	pdf := l.PDF
	w, _ := pdf.GetPageSize()
	rw := w - LetterMargin - refsX
	pdf.SetFont(letterFont, "", 10)
	pdf.SetXY(refsX, ReturnWindow.Y+ReturnWindow.H-5.5)
	pdf.CellFormat(rw, 5, l.fit(LongDate(s.Date), rw), "", 0, "R", false, 0, "")
	pdf.SetY(ReturnWindow.Y + ReturnWindow.H + 10)
	if s.Heading != "" {
		pdf.SetFont(letterFont, "B", 14)
		for _, t := range WrapText(pdf, l.Tr(s.Heading), l.Width) {
			pdf.SetX(LetterMargin)
			pdf.CellFormat(l.Width, 7, t, "", 1, "C", false, 0, "")
		}
		pdf.Ln(3)
	}
	pdf.SetFont(letterFont, "", letterSize)
}

// letterhead writes the village's name and hall address in the return
// window, its telephone and e-mail at the right, and a rule under them.
func (l *Letter) letterhead() {
	pdf := l.PDF
	w, _ := pdf.GetPageSize()
	x, y := ReturnWindow.X+WindowInset, ReturnWindow.Y+WindowInset
	room := ReturnWindow.W - 2*WindowInset
	pdf.SetFont(letterFont, "B", 12)
	pdf.SetXY(x, y)
	pdf.CellFormat(room, 5.5, l.fit(l.head.Name, room), "", 0, "L", false, 0, "")
	pdf.SetFont(letterFont, "", 9)
	for i, t := range l.head.AddressLines() {
		pdf.SetXY(x, y+5.5+float64(i)*4)
		pdf.CellFormat(room, 4, l.fit(t, room), "", 0, "L", false, 0, "")
	}
	rw := w - LetterMargin - refsX
	pdf.SetFont(letterFont, "", 8.5)
	for i, t := range []string{phoneLine(l.head.Phone), l.head.Email} {
		if t == "" {
			continue
		}
		pdf.SetXY(refsX, y+1+float64(i)*4)
		pdf.CellFormat(rw, 4, l.fit(t, rw), "", 0, "L", false, 0, "")
	}
	ry := ReturnWindow.Y + ReturnWindow.H + 3
	pdf.SetDrawColor(29, 58, 95)
	pdf.SetLineWidth(0.5)
	pdf.Line(LetterMargin, ry, w-LetterMargin, ry)
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.2)
}

func phoneLine(p string) string {
	if p == "" {
		return ""
	}
	return "Telephone " + p
}

// fit translates s and cuts it short with "..." so that it fits width w in
// the current font.
func (l *Letter) fit(s string, w float64) string {
	s = l.Tr(s)
	room := w - 2*l.PDF.GetCellMargin()
	if l.PDF.GetStringWidth(s) <= room {
		return s
	}
	for len(s) > 0 && l.PDF.GetStringWidth(s+"...") > room {
		s = strings.TrimRight(s[:len(s)-1], " ")
	}
	return s + "..."
}

// room makes sure h millimetres of the body fit on the page, going on to
// a continuation page of the same letter when they do not.
func (l *Letter) room(h float64) {
	if l.PDF.GetY()+h <= l.bottom {
		return
	}
	pdf := l.PDF
	pdf.AddPage()
	pdf.SetFont(letterFont, "B", 9)
	pdf.SetXY(LetterMargin, 14)
	pdf.CellFormat(l.Width, 5, l.fit(l.head.Name+" - "+l.title+" (continued)", l.Width), "", 1, "L", false, 0, "")
	pdf.SetY(24)
	pdf.SetFont(letterFont, "", letterSize)
}

// Para writes a paragraph of the body, wrapped at spaces.
func (l *Letter) Para(s string) { l.text(s, "", letterSize) }

// Strong writes a paragraph in bold.
func (l *Letter) Strong(s string) { l.text(s, "B", letterSize) }

// Small writes a paragraph in small type (a note under the body).
func (l *Letter) Small(s string) { l.text(s, "", 8) }

func (l *Letter) text(s, style string, size float64) {
	pdf := l.PDF
	pdf.SetFont(letterFont, style, size)
	lh := size * 0.5
	for _, t := range WrapText(pdf, l.Tr(s), l.Width-2*pdf.GetCellMargin()) {
		l.room(lh)
		// A continuation page sets its own heading's type: the lines
		// were wrapped for the paragraph's.
		pdf.SetFont(letterFont, style, size)
		pdf.SetX(LetterMargin)
		pdf.CellFormat(l.Width, lh, t, "", 1, "L", false, 0, "")
	}
	pdf.Ln(1.8)
	pdf.SetFont(letterFont, "", letterSize)
}

// Heading writes a bold heading of a part of the body.
func (l *Letter) Heading(s string) {
	l.room(6 + 2*letterLine)
	pdf := l.PDF
	pdf.Ln(1)
	pdf.SetFont(letterFont, "B", 11)
	pdf.SetX(LetterMargin)
	pdf.CellFormat(l.Width, 6, l.fit(s, l.Width), "", 1, "L", false, 0, "")
	pdf.SetFont(letterFont, "", letterSize)
}

// Figures writes label and amount lines (an amount right-aligned in a
// column of its own); a row whose label starts with "=" is a total, in
// bold and ruled above.
func (l *Letter) Figures(rows [][2]string) {
	pdf := l.PDF
	aw := 40.0
	lw := l.Width - aw
	for _, r := range rows {
		label, total := strings.CutPrefix(r[0], "=")
		l.room(letterLine)
		style := ""
		if total {
			style = "B"
			y := pdf.GetY()
			pdf.Line(LetterMargin+lw+2, y, LetterMargin+l.Width, y)
		}
		pdf.SetFont(letterFont, style, letterSize)
		pdf.SetX(LetterMargin)
		pdf.CellFormat(lw, letterLine, l.fit(label, lw), "", 0, "L", false, 0, "")
		pdf.CellFormat(aw, letterLine, l.fit(r[1], aw), "", 1, "R", false, 0, "")
	}
	pdf.SetFont(letterFont, "", letterSize)
	pdf.Ln(2)
}

// Table writes a table of the body: its header, then its rows, each cell
// fitted to its column; the last row is a total when total is set. The
// header is repeated on a continuation page.
func (l *Letter) Table(cols []Column, rows [][]string, total bool) {
	pdf := l.PDF
	head := func() {
		pdf.SetFont(letterFont, "B", 8.5)
		pdf.SetFillColor(230, 234, 240)
		x := LetterMargin
		y := pdf.GetY()
		for _, c := range cols {
			align := "L"
			if c.Amount {
				align = "R"
			}
			pdf.SetXY(x, y)
			pdf.CellFormat(c.Width, 5.5, l.fit(c.Title, c.Width), "", 0, align, true, 0, "")
			x += c.Width
		}
		pdf.SetY(y + 5.5)
	}
	l.room(5.5 + 2*4.8)
	head()
	for i, row := range rows {
		if pdf.GetY()+4.8 > l.bottom {
			l.room(4.8)
			head()
		}
		style := ""
		if total && i == len(rows)-1 {
			style = "B"
		}
		pdf.SetFont(letterFont, style, 8.5)
		x, y := LetterMargin, pdf.GetY()
		for j, c := range cols {
			s := ""
			if j < len(row) {
				s = row[j]
			}
			align := "L"
			if c.Amount {
				align = "R"
				if style == "B" {
					pdf.Line(x+1, y+0.2, x+c.Width, y+0.2)
				}
			}
			pdf.SetXY(x, y)
			pdf.CellFormat(c.Width, 4.8, l.fit(s, c.Width), "", 0, align, false, 0, "")
			x += c.Width
		}
		pdf.SetY(y + 4.8)
	}
	pdf.SetFont(letterFont, "", letterSize)
	pdf.Ln(3)
}

// Sign writes the closing: the office that sends the letter.
func (l *Letter) Sign(who string) {
	l.room(3 * letterLine)
	l.PDF.Ln(3)
	l.Para(who + ", " + l.head.Name)
}

// End ends the letter being written: its stub, if it has one, on the
// bottom third of its last page.
func (l *Letter) End() {
	if l.inLetter && l.stub != nil {
		l.drawStub(*l.stub)
	}
	l.inLetter, l.stub = false, nil
}

// drawStub draws the remittance stub below the second fold, with a dashed
// line to tear along.
func (l *Letter) drawStub(s Stub) {
	pdf := l.PDF
	w, _ := pdf.GetPageSize()
	pdf.SetLineWidth(0.3)
	pdf.SetDashPattern([]float64{2, 1.5}, 0)
	pdf.Line(8, FoldTwo, w-8, FoldTwo)
	pdf.SetDashPattern([]float64{}, 0)
	pdf.SetLineWidth(0.2)
	pdf.SetFont(letterFont, "", 7.5)
	pdf.SetXY(LetterMargin, FoldTwo+1)
	pdf.CellFormat(l.Width, 3.5, l.fit("Tear off along this line and return this part with your payment.", l.Width), "", 0, "C", false, 0, "")

	top := FoldTwo + 8
	half := l.Width/2 - 4
	pdf.SetFont(letterFont, "B", 11)
	pdf.SetXY(LetterMargin, top)
	pdf.CellFormat(half, 6, l.fit("Remittance - "+l.head.Name, half), "", 0, "L", false, 0, "")
	pdf.SetFont(letterFont, "", 9)
	y := top + 8
	for _, t := range WrapText(pdf, l.Tr(s.PayTo), half-2*pdf.GetCellMargin()) {
		pdf.SetXY(LetterMargin, y)
		pdf.CellFormat(half, 4.3, t, "", 0, "L", false, 0, "")
		y += 4.3
	}
	y += 2
	pdf.SetFont(letterFont, "B", 9)
	pdf.SetXY(LetterMargin, y)
	pdf.CellFormat(half, 4.3, l.fit("Mail to:", half), "", 0, "L", false, 0, "")
	pdf.SetFont(letterFont, "", 9)
	for _, t := range append([]string{l.head.Name}, l.head.AddressLines()...) {
		y += 4.3
		pdf.SetXY(LetterMargin, y)
		pdf.CellFormat(half, 4.3, l.fit(t, half), "", 0, "L", false, 0, "")
	}

	x := LetterMargin + half + 8
	lw, vw := 30.0, half-30
	y = top
	for _, r := range append(s.Rows, [2]string{"Amount enclosed", "$ ______________"}) {
		pdf.SetFont(letterFont, "B", 9)
		pdf.SetXY(x, y)
		pdf.CellFormat(lw, 6, l.fit(r[0], lw), "", 0, "L", false, 0, "")
		pdf.SetFont(letterFont, "", 10)
		pdf.CellFormat(vw, 6, l.fit(r[1], vw), "B", 0, "R", false, 0, "")
		y += 7
	}
}

// Output writes the PDF; a letter still open is ended first.
func (l *Letter) Output(out *bytes.Buffer) error {
	l.End()
	if l.PDF.PageNo() == 0 {
		l.PDF.AddPage()
		l.letterhead()
	}
	return l.PDF.Output(out)
}

// Pages is the number of pages so far.
func (l *Letter) Pages() int { return l.PDF.PageNo() }

// ServePDF writes a PDF answer named filename (its letters, digits,
// dashes and dots kept), shown in the browser to print.
func ServePDF(w http.ResponseWriter, filename string, pdf []byte) {
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, FileSafe(filename)))
	_, _ = w.Write(pdf)
}

// FileSafe keeps the letters, digits, dashes and dots of a name, for a
// file name in a header.
func FileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// LongDate writes a date as a letter is dated: "October 1, 2026".
func LongDate(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).Format("January 2, 2006")
}

// Sentence ends s with a period unless it already ends with one (or a
// question or exclamation mark): a time written "6:30 p.m." at the end of
// a sentence takes no second period.
func Sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// LetterDate reads the legal date of a letter from the query's "date"
// (YYYY-MM-DD), default today on the office's clock.
func (o *Office) LetterDate(r *http.Request) (domain.Date, error) {
	s := strings.TrimSpace(r.URL.Query().Get("date"))
	if s == "" {
		return o.Today(), nil
	}
	return ParseDate("The date of the letter", s)
}

// ClockText writes a time of day as a letter does: "4:30 p.m.", "9:00
// a.m." (end a sentence after it with Sentence, not a second period).
func ClockText(c domain.ClockTime) string {
	h, m := int(c)/60, int(c)%60
	half := "a.m."
	if h >= 12 {
		half = "p.m."
	}
	if h = h % 12; h == 0 {
		h = 12
	}
	return fmt.Sprintf("%d:%02d %s", h, m, half)
}
