package pdfcheck_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/kiosk/staff/pdfcheck"
)

// letter makes a one-page Letter PDF with 20 mm side margins, compressed
// or not, drawing what draw draws after a heading.
func letter(t *testing.T, compress bool, draw func(pdf *fpdf.Fpdf, tr func(string) string)) []byte {
	t.Helper()
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCompression(compress)
	pdf.SetMargins(20, 18, 20)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetFont("Helvetica", "B", 14)
	pdf.CellFormat(0, 8, tr("Village of Belleville – notice"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	draw(pdf, tr)
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadsWhereTextIs: the reader finds each text where fpdf drew it,
// measured in its font, compressed or not, and reads the code page back.
func TestReadsWhereTextIs(t *testing.T) {
	for _, compress := range []bool{false, true} {
		pdf := letter(t, compress, func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.SetXY(50, 100)
			pdf.CellFormat(60, 6, "Amount due", "", 0, "L", false, 0, "")
			pdf.SetFont("Helvetica", "BI", 12)
			pdf.CellFormat(40, 6, "$1,234.56", "", 0, "R", false, 0, "")
		})
		pages, err := pdfcheck.Read(pdf)
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) != 1 || math.Abs(pages[0].Width-215.9) > 0.1 || math.Abs(pages[0].Height-279.4) > 0.1 {
			t.Fatalf("compress %v: pages %+v", compress, pages)
		}
		texts := pages[0].Texts
		if got := pdfcheck.Strings(texts); !slices.Equal(got, []string{"Village of Belleville – notice", "Amount due", "$1,234.56"}) {
			t.Fatalf("compress %v: %q", compress, got)
		}
		meter := fpdf.New("P", "mm", "Letter", "")
		meter.AddPage()
		meter.SetFont("Helvetica", "", 10)
		a := texts[1]
		if math.Abs(a.X-(50+meter.GetCellMargin())) > 0.05 || math.Abs(a.Right-a.X-meter.GetStringWidth("Amount due")) > 0.05 || a.Top > 103 || a.Bottom < 103 || a.Size != 10 || a.Font != "Helvetica" {
			t.Errorf("compress %v: %+v", compress, a)
		}
		meter.SetFont("Helvetica", "BI", 12)
		b := texts[2]
		if math.Abs(b.Right-(150-meter.GetCellMargin())) > 0.05 || b.Font != "Helvetica-BoldOblique" {
			t.Errorf("compress %v: %+v", compress, b)
		}
		if line := pdfcheck.Strings(pdfcheck.Line(texts, "Amount due")); !slices.Equal(line, []string{"Amount due", "$1,234.56"}) {
			t.Errorf("the line of the amount: %q", line)
		}
	}
	if _, err := pdfcheck.Read([]byte("<html>")); err == nil {
		t.Error("reads HTML as a PDF")
	}
}

// TestCheckFindsEachProblem: a clean letter has none; each flaw, drawn
// alone into it, is found as its kind and nothing else is.
func TestCheckFindsEachProblem(t *testing.T) {
	layout := pdfcheck.Layout{Left: 20, Right: 20}
	clean := letter(t, false, func(pdf *fpdf.Fpdf, tr func(string) string) {
		pdf.MultiCell(0, 5, tr("The balance of $70,000.00 is past due since March 1; the first installment was paid. Bill 2026-000123, parcel 0601-141-2001."), "", "L", false)
		pdf.CellFormat(100, 6, "Fund balance, end of year", "", 0, "L", false, 0, "")
		pdf.CellFormat(75.9, 6, "$1,234,567.89", "", 1, "R", false, 0, "")
		pdf.CellFormat(100, 6, "Change", "", 0, "L", false, 0, "")
		pdf.CellFormat(75.9, 6, tr("–$5,000.00"), "", 1, "R", false, 0, "")
	})
	if problems, err := pdfcheck.Problems(clean, layout); err != nil || len(problems) != 0 {
		t.Fatalf("a clean letter: %v %v", problems, err)
	}
	for _, c := range []struct {
		name, kind, text string
		draw             func(pdf *fpdf.Fpdf, tr func(string) string)
	}{
		{"overlap", pdfcheck.Overlap, "Fund balances", func(pdf *fpdf.Fpdf, tr func(string) string) {
			// The caption's cell is narrower than the caption: the amount
			// right-aligned in the next cell is drawn over its end.
			pdf.CellFormat(30, 6, "Fund balances at the beginning of the year", "", 0, "L", false, 0, "")
			pdf.CellFormat(40, 6, "$410,000.00", "", 1, "R", false, 0, "")
		}},
		{"overlap of lines", pdfcheck.Overlap, "first line", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.SetFont("Helvetica", "", 14)
			pdf.CellFormat(0, 2, "first line", "", 1, "L", false, 0, "")
			pdf.CellFormat(0, 2, "second line", "", 1, "L", false, 0, "")
		}},
		{"past the right margin", pdfcheck.Margin, "$1,000.00", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.CellFormat(150, 6, "Total", "", 0, "L", false, 0, "")
			pdf.CellFormat(40, 6, "$1,000.00", "", 1, "R", false, 0, "")
		}},
		{"off the page", pdfcheck.Margin, "footer", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.SetAutoPageBreak(false, 0)
			pdf.SetXY(20, 277)
			pdf.CellFormat(50, 6, "footer", "", 0, "L", false, 0, "")
		}},
		{"raw code", pdfcheck.RawCode, "first_paid", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.CellFormat(0, 6, "Status: first_paid", "", 1, "L", false, 0, "")
		}},
		{"raw code in a sentence", pdfcheck.RawCode, "past_due", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.MultiCell(0, 5, "The bill is past_due and the first installment is unpaid.", "", "L", false)
		}},
		{"amount without separators", pdfcheck.Amount, "$70000.00", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.CellFormat(0, 6, "The amount $70000.00 exceeds the appropriation.", "", 1, "L", false, 0, "")
		}},
		{"bare amount without separators", pdfcheck.Amount, "137000.00", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.CellFormat(0, 6, "Parks: 137000.00", "", 1, "L", false, 0, "")
		}},
		{"amount cut short", pdfcheck.Amount, "$1,2...", func(pdf *fpdf.Fpdf, tr func(string) string) {
			pdf.CellFormat(0, 6, "$1,2...", "", 1, "L", false, 0, "")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			problems, err := pdfcheck.Problems(letter(t, true, c.draw), layout)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) == 0 {
				t.Fatal("no problem found")
			}
			for _, p := range problems {
				if p.Kind != c.kind || p.Page != 1 || !strings.Contains(p.What, c.text) {
					t.Errorf("%s, want a %s naming %q", p, c.kind, c.text)
				}
			}
		})
	}
}

// TestAssertFails: Assert fails the test it is given for a bad PDF and
// for what is not one, and passes a clean one.
func TestAssertFails(t *testing.T) {
	bad := letter(t, false, func(pdf *fpdf.Fpdf, tr func(string) string) {
		pdf.CellFormat(0, 6, "Owed: $70000.00", "", 1, "L", false, 0, "")
	})
	for _, c := range []struct {
		pdf  []byte
		fail bool
	}{{bad, true}, {[]byte("not a pdf"), true}, {letter(t, false, func(*fpdf.Fpdf, func(string) string) {}), false}} {
		rec := &recorder{}
		pdfcheck.Assert(rec, "notice", c.pdf, pdfcheck.Layout{Left: 20, Right: 20})
		if rec.failed != c.fail || c.fail && !strings.HasPrefix(rec.msg, "notice: ") {
			t.Errorf("%.20q: failed %v %q, want failed %v", c.pdf, rec.failed, rec.msg, c.fail)
		}
	}
}

type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = fmtS(format, args...)
}

func fmtS(format string, args ...any) string { return fmt.Sprintf(format, args...) }
