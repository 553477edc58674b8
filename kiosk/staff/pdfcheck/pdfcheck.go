// Package pdfcheck reads the PDFs the product makes with fpdf and the core
// fonts, and finds in them what a reader of the printed page would
// stumble on: two pieces of text drawn over each other, text past the
// page's margins or off the page, a raw code where words belong
// ("first_paid"), and an amount without its thousands separators
// ("$70000.00") or cut short ("$1,2..."). The tests of every package that
// makes a PDF use it; it imports nothing of the product.
//
// It reads fpdf's own output: page contents whether compressed or not,
// each text drawn with "x y Td (text) Tj" in a core font set by "/Fn size
// Tf", its width measured with fpdf in that font and size.
package pdfcheck

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
)

// ptPerMM converts the PDF's points to the millimetres the product lays
// its pages out in.
const ptPerMM = 72 / 25.4

// Text is one text the page draws: a cell's contents, a line of a
// paragraph. Its box runs from X to Right across the page and from Top to
// Bottom down it, in millimetres from the page's top-left corner, the
// height being the font's from the top of its capitals to the bottom of
// its descenders; Baseline is where its letters sit. Its spaces at either
// end are not in the box.
type Text struct {
	Page                  int
	X, Right, Top, Bottom float64
	Baseline, Size        float64
	S                     string // as printed, in UTF-8
	Font                  string // the core font's name, "Helvetica-Bold"
	raw                   string // the bytes drawn, in the fonts' code page
}

// Page is one page: its size in millimetres and the texts drawn on it in
// the order they were drawn.
type Page struct {
	N             int
	Width, Height float64
	Texts         []Text
}

var (
	objHead   = regexp.MustCompile(`(\d+) 0 obj\s*`)
	lengthKey = regexp.MustCompile(`/Length (\d+)`)
	mediaBox  = regexp.MustCompile(`/MediaBox \[\s*(-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+)\s*\]`)
	contents  = regexp.MustCompile(`/Contents (\d+) 0 R`)
	fontRes   = regexp.MustCompile(`/F(\w+) (\d+) 0 R`)
	baseFont  = regexp.MustCompile(`/Type /Font\s*/BaseFont /([A-Za-z-]+)`)
	textOps   = regexp.MustCompile(`BT /F(\w+) (-?[0-9.]+) Tf ET|BT (-?[0-9.]+) (-?[0-9.]+) Td \(((?:\\.|[^\\)])*)\) ?Tj ET`)
	pageType  = regexp.MustCompile(`/Type /Page[^s]`)
	unescape  = strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`, `\r`, "\r")
)

// coreFonts are the core fonts fpdf measures, by the names a PDF gives
// them: the family and style to measure a text in.
var coreFonts = map[string][2]string{
	"Helvetica": {"Helvetica", ""}, "Helvetica-Bold": {"Helvetica", "B"}, "Helvetica-Oblique": {"Helvetica", "I"}, "Helvetica-BoldOblique": {"Helvetica", "BI"},
	"Times-Roman": {"Times", ""}, "Times-Bold": {"Times", "B"}, "Times-Italic": {"Times", "I"}, "Times-BoldItalic": {"Times", "BI"},
	"Courier": {"Courier", ""}, "Courier-Bold": {"Courier", "B"}, "Courier-Oblique": {"Courier", "I"}, "Courier-BoldOblique": {"Courier", "BI"},
}

type object struct {
	dict   string
	stream []byte
}

// objects splits a PDF into its numbered objects, taking each stream by
// its declared length so that binary data is never read as structure.
func objects(pdf []byte) (map[string]object, []string, error) {
	objs := map[string]object{}
	var order []string
	pos := 0
	for {
		loc := objHead.FindSubmatchIndex(pdf[pos:])
		if loc == nil {
			break
		}
		num := string(pdf[pos+loc[2] : pos+loc[3]])
		start := pos + loc[1]
		end := bytes.Index(pdf[start:], []byte("endobj"))
		if end < 0 {
			return nil, nil, fmt.Errorf("object %s has no end", num)
		}
		o := object{dict: string(pdf[start : start+end])}
		if s := bytes.Index(pdf[start:], []byte("stream")); s >= 0 && s < end {
			o.dict = string(pdf[start : start+s])
			m := lengthKey.FindStringSubmatch(o.dict)
			if m == nil {
				return nil, nil, fmt.Errorf("object %s has a stream of no length", num)
			}
			n, _ := strconv.Atoi(m[1])
			data := start + s + len("stream")
			if data < len(pdf) && pdf[data] == '\r' {
				data++
			}
			if data < len(pdf) && pdf[data] == '\n' {
				data++
			}
			if data+n > len(pdf) {
				return nil, nil, fmt.Errorf("object %s's stream runs past the file", num)
			}
			o.stream = pdf[data : data+n]
			after := bytes.Index(pdf[data+n:], []byte("endobj"))
			if after < 0 {
				return nil, nil, fmt.Errorf("object %s has no end", num)
			}
			end = data + n + after - start
		}
		objs[num] = o
		order = append(order, num)
		pos = start + end + len("endobj")
	}
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("not a PDF: no objects")
	}
	return objs, order, nil
}

// Read reads the pages of a PDF fpdf made with the core fonts.
func Read(pdf []byte) ([]Page, error) {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, fmt.Errorf("not a PDF: it begins %.20q", pdf)
	}
	objs, order, err := objects(pdf)
	if err != nil {
		return nil, err
	}
	fontOf := map[string]string{} // object number → base font
	var defBox string
	for _, num := range order {
		d := objs[num].dict
		if m := baseFont.FindStringSubmatch(d); m != nil {
			fontOf[num] = m[1]
		}
		if strings.Contains(d, "/Type /Pages") {
			if m := mediaBox.FindString(d); m != "" {
				defBox = m
			}
		}
	}
	fonts := map[string]string{} // resource name → base font
	for _, num := range order {
		d := objs[num].dict
		if !strings.Contains(d, "/Font") || strings.Contains(d, "/Type /Font") {
			continue
		}
		for _, m := range fontRes.FindAllStringSubmatch(d, -1) {
			if f, ok := fontOf[m[2]]; ok {
				fonts[m[1]] = f
			}
		}
	}
	meter := fpdf.New("P", "mm", "Letter", "")
	meter.AddPage()
	toUTF8 := decoder()
	var pages []Page
	for _, num := range order {
		d := objs[num].dict
		if !pageType.MatchString(d + " ") {
			continue
		}
		box := defBox
		if m := mediaBox.FindString(d); m != "" {
			box = m
		}
		mb := mediaBox.FindStringSubmatch(box)
		if mb == nil {
			return nil, fmt.Errorf("page %d has no size", len(pages)+1)
		}
		w, _ := strconv.ParseFloat(mb[3], 64)
		h, _ := strconv.ParseFloat(mb[4], 64)
		p := Page{N: len(pages) + 1, Width: w / ptPerMM, Height: h / ptPerMM}
		c := contents.FindStringSubmatch(d)
		if c == nil {
			pages = append(pages, p)
			continue
		}
		co := objs[c[1]]
		body := co.stream
		if strings.Contains(co.dict, "/FlateDecode") {
			r, err := zlib.NewReader(bytes.NewReader(body))
			if err != nil {
				return nil, fmt.Errorf("page %d: %w", p.N, err)
			}
			if body, err = io.ReadAll(r); err != nil {
				return nil, fmt.Errorf("page %d: %w", p.N, err)
			}
		}
		font, size := "", 0.0
		for _, m := range textOps.FindAllStringSubmatch(string(body), -1) {
			if m[1] != "" {
				f, ok := fonts[m[1]]
				fs, core := coreFonts[f]
				if !ok || !core {
					return nil, fmt.Errorf("page %d: font F%s (%q) is not a core font", p.N, m[1], f)
				}
				font = f
				size, _ = strconv.ParseFloat(m[2], 64)
				meter.SetFont(fs[0], fs[1], size)
				continue
			}
			if font == "" {
				return nil, fmt.Errorf("page %d: text drawn before any font is set", p.N)
			}
			x, _ := strconv.ParseFloat(m[3], 64)
			y, _ := strconv.ParseFloat(m[4], 64)
			raw := unescape.Replace(m[5])
			trimmed := strings.TrimLeft(raw, " ")
			lead := meter.GetStringWidth(raw[:len(raw)-len(trimmed)])
			trimmed = strings.TrimRight(trimmed, " ")
			left := x/ptPerMM + lead
			base := (h - y) / ptPerMM
			sz := size / ptPerMM
			p.Texts = append(p.Texts, Text{
				Page: p.N, X: left, Right: left + meter.GetStringWidth(trimmed),
				Top: base - 0.72*sz, Bottom: base + 0.21*sz, Baseline: base, Size: size,
				S: toUTF8(trimmed), Font: font, raw: raw,
			})
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("the PDF has no pages")
	}
	return pages, nil
}

// decoder returns a function from the core fonts' code page (Windows-1252,
// fpdf's "cp1252") to UTF-8.
func decoder() func(string) string {
	high := []rune{'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
		0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ'}
	return func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c < 0x80:
				b.WriteByte(c)
			case c < 0xA0 && high[c-0x80] != 0:
				b.WriteRune(high[c-0x80])
			default:
				b.WriteRune(rune(c))
			}
		}
		return b.String()
	}
}

// Line returns the texts of page on the baseline of its first text that
// reads caption (spaces at its ends aside), left to right; nil when no
// text reads it.
func Line(page []Text, caption string) []Text {
	var at *Text
	for i := range page {
		if page[i].S == caption {
			at = &page[i]
			break
		}
	}
	if at == nil {
		return nil
	}
	var on []Text
	for _, t := range page {
		if t.Page == at.Page && abs(t.Baseline-at.Baseline) < 0.5 {
			on = append(on, t)
		}
	}
	for i := 1; i < len(on); i++ {
		for j := i; j > 0 && on[j].X < on[j-1].X; j-- {
			on[j], on[j-1] = on[j-1], on[j]
		}
	}
	return on
}

// Strings returns what texts say, in order.
func Strings(texts []Text) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = t.S
	}
	return out
}

// String returns what the page says, one text a line.
func (p Page) String() string {
	var b strings.Builder
	for _, t := range p.Texts {
		b.WriteString(t.S + "\n")
	}
	return b.String()
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
