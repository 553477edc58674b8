package pdfcheck

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Layout is what a document's pages keep clear: the margins at the left
// and right that no text crosses (the page's own layout, in millimetres)
// and the border along every edge of the page that no text enters, which
// a printer cannot print on.
type Layout struct {
	Left, Right float64
	// Edge is the unprintable border; zero means a quarter inch.
	Edge float64
}

// The kinds of problem Check finds.
const (
	Overlap = "overlap"  // two texts drawn over each other
	Margin  = "margin"   // a text past a side margin or into the page's edge
	RawCode = "raw code" // a snake_case word where words belong
	Amount  = "amount"   // a dollar amount without separators, or cut short
)

// Problem is one thing a reader of the printed page would stumble on.
type Problem struct {
	Page int
	Kind string
	What string
}

func (p Problem) String() string { return fmt.Sprintf("page %d: %s: %s", p.Page, p.Kind, p.What) }

var (
	// rawCode is a word of lowercase letters joined by underscores: an
	// identifier of the code ("first_paid"), never English.
	rawCode = regexp.MustCompile(`(?:^|[^A-Za-z0-9_@./-])([a-z]+(?:_[a-z]+)+)(?:$|[^A-Za-z0-9_@])`)
	// bareAmount is an amount of a thousand or more written without its
	// separators: "$70000.00", "-$1000", "70000.00".
	bareAmount = regexp.MustCompile(`\$\s?[-−–]?\d{4,}|(?:^|[^\d,.])\d{4,}\.\d\d(?:$|[^\d])`)
)

// Check finds the problems of pages laid out to l.
func Check(pages []Page, l Layout) []Problem {
	edge := l.Edge
	if edge == 0 {
		edge = 6.35
	}
	const slack = 0.05 // mm: fpdf writes coordinates to a hundredth of a point
	var out []Problem
	add := func(page int, kind, format string, args ...any) {
		out = append(out, Problem{Page: page, Kind: kind, What: fmt.Sprintf(format, args...)})
	}
	for _, p := range pages {
		for i, a := range p.Texts {
			if a.S == "" {
				continue
			}
			left, right := max(l.Left, edge), p.Width-max(l.Right, edge)
			switch {
			case a.X < left-slack || a.Right > right+slack:
				add(p.N, Margin, "%q runs from %.1f to %.1f mm across, outside the margins (%.1f to %.1f)", a.S, a.X, a.Right, left, right)
			case a.Top < edge-slack || a.Bottom > p.Height-edge+slack:
				add(p.N, Margin, "%q runs from %.1f to %.1f mm down a page %.1f mm high, into its edge", a.S, a.Top, a.Bottom, p.Height)
			}
			if m := rawCode.FindStringSubmatch(a.S); m != nil {
				add(p.N, RawCode, "%q prints the code %q where words belong", a.S, m[1])
			}
			if m := bareAmount.FindString(a.S); m != "" {
				add(p.N, Amount, "%q prints an amount without its thousands separators (%s)", a.S, strings.TrimSpace(m))
			}
			if strings.Contains(a.S, "$") && strings.Contains(a.S, "...") {
				add(p.N, Amount, "%q: an amount cut short", a.S)
			}
			for _, b := range p.Texts[i+1:] {
				if b.S == "" {
					continue
				}
				across := min(a.Right, b.Right) - max(a.X, b.X)
				down := min(a.Bottom, b.Bottom) - max(a.Top, b.Top)
				if across > slack && down > 0.2 {
					add(p.N, Overlap, "%q and %q are drawn over each other (%.1f mm across, %.1f mm down)", a.S, b.S, across, down)
				}
			}
		}
	}
	return out
}

// Problems reads pdf and checks it.
func Problems(pdf []byte, l Layout) ([]Problem, error) {
	pages, err := Read(pdf)
	if err != nil {
		return nil, err
	}
	return Check(pages, l), nil
}

// Assert fails t, naming the document, for each problem of pdf, or when
// it is not a PDF this package reads.
func Assert(t testing.TB, name string, pdf []byte, l Layout) {
	t.Helper()
	problems, err := Problems(pdf, l)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	for _, p := range problems {
		t.Errorf("%s: %s", name, p)
	}
}
