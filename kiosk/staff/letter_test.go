package staff_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestLetterLayout: a letter puts the village's name and hall address in
// the envelope's return window and the addressee's lines in its address
// window (a sixth line dropped, the city kept), prints its date, runs a
// long body onto a continuation page whose lines stay above the stub,
// and draws the stub on the last page below the second fold; no two
// words overlap and none leaves the page.
func TestLetterLayout(t *testing.T) {
	head := staff.Letterhead{Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508", Phone: "(608) 424-3341"}
	l := staff.NewLetter(head, "Statement of account", time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC))
	to := []string{"Harbor Rentals LLC", "Attn: Accounts Payable", "PO Box 118", "Suite 4", "Floor 2", "Madison, WI 53701-0118"}
	l.Start(staff.LetterStart{Date: domain.MustDate("2026-10-01"), To: to, Refs: [][2]string{{"Account", "100101"}, {"Amount due", "$12,345.67"}},
		Heading: "Statement of account", Stub: &staff.Stub{Rows: [][2]string{{"Account", "100101"}, {"Amount due", "$12,345.67"}}, PayTo: "Make checks payable to the Village of Belleville."}})
	var rows [][]string
	for i := range 60 {
		rows = append(rows, []string{fmt.Sprintf("B-2026-%04d", i), "Water and sewer, third quarter, a description longer than its column", "$1,234.56"})
	}
	l.Table([]staff.Column{{Title: "Bill", Width: 40}, {Title: "For", Width: 95, Amount: false}, {Title: "Balance", Width: 40.9, Amount: true}}, rows, false)
	l.Para("Pay at the kiosk in the village hall, at the clerk's window, or by mail.")
	var buf bytes.Buffer
	if err := l.Output(&buf); err != nil {
		t.Fatal(err)
	}
	pages := stafftest.PDFPages(t, buf.String())
	if len(pages) < 2 {
		t.Fatalf("sixty rows fit on %d page", len(pages))
	}
	stafftest.CheckLetter(t, pages)
	stafftest.InWindow(t, pages[0], staff.ReturnWindow, []string{"Village of Belleville", "24 W Main St", "Belleville, WI 53508"})
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Harbor Rentals LLC", "Attn: Accounts Payable", "PO Box 118", "Suite 4", "Madison, WI 53701-0118"})
	if strings.Contains(stafftest.PageText(pages[0]), "Floor 2") {
		t.Error("a sixth address line was printed outside the window")
	}
	if !strings.Contains(stafftest.PageText(pages[0]), "October 1, 2026") {
		t.Error("the letter is not dated")
	}
	for n, p := range pages {
		stub := false
		for _, w := range p {
			if strings.HasPrefix(w.S, "Tear off") {
				stub = true
			}
		}
		if stub != (n == len(pages)-1) {
			t.Errorf("page %d: stub %v", n+1, stub)
		}
		for _, w := range p {
			if strings.HasPrefix(w.S, "B-2026-") && w.Bottom > staff.FoldTwo {
				t.Errorf("page %d: a row of the body runs into the stub: %q at %.1f mm", n+1, w.S, w.Bottom)
			}
		}
	}
	if staff.Sentence("at 6:30 p.m.") != "at 6:30 p.m." || staff.Sentence("at Village Hall") != "at Village Hall." {
		t.Error("Sentence")
	}
}

// TestLetterParagraphsAcrossPages: a paragraph in small type or in bold
// that runs onto a continuation page keeps its font there, so the lines
// wrapped for it stay inside the margins.
func TestLetterParagraphsAcrossPages(t *testing.T) {
	l := staff.NewLetter(staff.Letterhead{}, "Statement of account", time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC))
	l.Start(staff.LetterStart{Date: domain.MustDate("2026-10-01"), To: []string{"Owner", "1 Main St", "Belleville, WI 53508"}, Heading: "Statement of account",
		Stub: &staff.Stub{Rows: [][2]string{{"Account", "100101"}}, PayTo: "Make checks payable to the Village of Belleville."}})
	long := strings.Repeat("How to pay: by card at the kiosk, at the window by cash, check or card, or by mail with a check and the stub below. ", 3)
	for range 12 {
		l.Small(long)
		l.Strong(long)
	}
	var buf bytes.Buffer
	if err := l.Output(&buf); err != nil {
		t.Fatal(err)
	}
	pages := stafftest.PDFPages(t, buf.String())
	if len(pages) < 2 {
		t.Fatalf("the paragraphs fit on %d page", len(pages))
	}
	stafftest.CheckLetter(t, pages)
}
