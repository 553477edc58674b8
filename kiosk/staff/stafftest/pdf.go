package stafftest

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/kiosk/staff"
)

// Word is one text object of an uncompressed fpdf page, as a test reads
// it: where its box lies (millimetres from the page's top-left corner,
// measured with fpdf in the font and size it was set in) and what it says.
type Word struct {
	Page                  int
	X, Right, Top, Bottom float64
	Baseline              float64
	S                     string
}

var (
	pdfOps     = regexp.MustCompile(`BT /F(\w+) ([0-9.]+) Tf ET|BT ([0-9.]+) ([0-9.]+) Td \((.*?)\) ?Tj ET`)
	pdfFontRes = regexp.MustCompile(`/F(\w+) (\d+) 0 R`)
	pdfFontObj = regexp.MustCompile(`(\d+) 0 obj\s*<</Type /Font\s*/BaseFont /([A-Za-z-]+)`)
	pdfUnesc   = strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`)
)

// PDFPages reads the text of each page of an uncompressed US Letter PDF
// that fpdf wrote with the core Helvetica fonts. A font that is not
// Helvetica fails the test.
func PDFPages(t testing.TB, pdf string) [][]Word {
	t.Helper()
	if !strings.HasPrefix(pdf, "%PDF-") {
		t.Fatalf("not a PDF: %.80q", pdf)
	}
	objFont := map[string]string{}
	for _, m := range pdfFontObj.FindAllStringSubmatch(pdf, -1) {
		objFont[m[1]] = m[2]
	}
	style := map[string]string{}
	for _, m := range pdfFontRes.FindAllStringSubmatch(pdf, -1) {
		switch objFont[m[2]] {
		case "Helvetica":
			style[m[1]] = ""
		case "Helvetica-Bold":
			style[m[1]] = "B"
		case "Helvetica-Oblique":
			style[m[1]] = "I"
		}
	}
	meter := fpdf.New("P", "mm", "Letter", "")
	meter.AddPage()
	const k = 72 / 25.4
	const height = 279.4
	var pages [][]Word
	rest := pdf
	size := 10.0
	for {
		i := strings.Index(rest, "stream\n")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "endstream")
		body := rest[i+len("stream\n") : i+j]
		rest = rest[i+j+len("endstream"):]
		if !strings.Contains(body, "Tj ET") {
			continue
		}
		var page []Word
		for _, m := range pdfOps.FindAllStringSubmatch(body, -1) {
			if m[1] != "" {
				st, ok := style[m[1]]
				if !ok {
					t.Fatalf("font F%s is not Helvetica", m[1])
				}
				size, _ = strconv.ParseFloat(m[2], 64)
				meter.SetFont("Helvetica", st, size)
				continue
			}
			x, _ := strconv.ParseFloat(m[3], 64)
			y, _ := strconv.ParseFloat(m[4], 64)
			s := pdfUnesc.Replace(m[5])
			base := height - y/k
			page = append(page, Word{Page: len(pages) + 1, X: x / k, Right: x/k + meter.GetStringWidth(s), Baseline: base,
				Top: base - 0.72*size/k, Bottom: base + 0.21*size/k, S: s})
		}
		pages = append(pages, page)
	}
	return pages
}

// PageText returns a page's text, one text object a line.
func PageText(page []Word) string {
	var b strings.Builder
	for _, w := range page {
		b.WriteString(w.S + "\n")
	}
	return b.String()
}

var (
	rawCode      = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`)
	ungrouped    = regexp.MustCompile(`\$\d{4,}`)
	doublePeriod = regexp.MustCompile(`[ap]\.m\.\.`)
)

// CheckLetter fails the test when a word of a page of the office's
// letters lies outside the printable page (8 mm from each edge), when two
// words overlap, when an amount is cut short or written without its
// thousands separators, when a raw code of the program (snake_case) is
// printed, or when a time ends a sentence with two periods ("p.m..").
func CheckLetter(t testing.TB, pages [][]Word) {
	t.Helper()
	if len(pages) == 0 {
		t.Fatal("the PDF has no page with text")
	}
	for n, page := range pages {
		for i, a := range page {
			s := strings.TrimSpace(a.S)
			if s == "" {
				continue
			}
			if a.X < 8 || a.Right > 215.9-8 || a.Top < 4 || a.Bottom > 279.4-8 {
				t.Errorf("page %d: %q (%.1f-%.1f mm across, %.1f-%.1f down) is outside the printable page", n+1, s, a.X, a.Right, a.Top, a.Bottom)
			}
			if strings.Contains(s, "$") && strings.Contains(s, "...") {
				t.Errorf("page %d: an amount is cut short: %q", n+1, s)
			}
			if ungrouped.MatchString(s) {
				t.Errorf("page %d: an amount without thousands separators: %q", n+1, s)
			}
			if m := rawCode.FindString(s); m != "" {
				t.Errorf("page %d: a raw code %q is printed: %q", n+1, m, s)
			}
			if doublePeriod.MatchString(s) {
				t.Errorf("page %d: a time ends a sentence with two periods: %q", n+1, s)
			}
			for _, c := range page[i+1:] {
				if strings.TrimSpace(c.S) == "" {
					continue
				}
				if a.X < c.Right-0.01 && c.X < a.Right-0.01 && a.Top < c.Bottom-0.01 && c.Top < a.Bottom-0.01 {
					t.Errorf("page %d: %q and %q overlap", n+1, s, c.S)
				}
			}
		}
	}
}

// InWindow fails the test unless every line of want is printed on page,
// one text object each, in order, and each lies inside r (an envelope's
// window).
func InWindow(t testing.TB, page []Word, r staff.Rect, want []string) {
	t.Helper()
	from := 0
	for _, line := range want {
		found := false
		for i := from; i < len(page); i++ {
			w := page[i]
			if strings.TrimSpace(w.S) != line {
				continue
			}
			found, from = true, i+1
			if !r.Contains(w.X, w.Top, w.Right, w.Bottom) {
				t.Errorf("%q (%.1f-%.1f mm across, %.1f-%.1f down) is outside the window %+v", line, w.X, w.Right, w.Top, w.Bottom, r)
			}
			break
		}
		if !found {
			t.Errorf("%q is not printed (in order) on the page:\n%s", line, PageText(page))
		}
	}
}

// GetPDF asks for path as c and returns the status, the content type and
// the body.
func (c *Client) GetPDF(path string) (int, string, string) {
	c.H.T.Helper()
	resp, err := c.HTTP.Get(c.H.Srv.URL + path)
	if err != nil {
		c.H.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
