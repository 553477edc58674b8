package letters

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// pdfText is one text object of an uncompressed fpdf page: where it
// starts and what it says.
type pdfText struct {
	page int
	x, y float64
	s    string
}

var textOp = regexp.MustCompile(`BT ([0-9.]+) ([0-9.]+) Td \((.*?)\) ?Tj ET`)

// pdfPages returns the text objects of each page of an uncompressed PDF
// that fpdf wrote with core fonts: its page contents are its streams, in
// page order.
func pdfPages(t *testing.T, pdf []byte) [][]pdfText {
	t.Helper()
	var pages [][]pdfText
	rest := string(pdf)
	for {
		i := strings.Index(rest, "stream\n")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "endstream")
		body := rest[i+len("stream\n") : i+j]
		rest = rest[i+j+len("endstream"):]
		var page []pdfText
		for _, m := range textOp.FindAllStringSubmatch(body, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			page = append(page, pdfText{page: len(pages) + 1, x: x, y: y, s: strings.ReplaceAll(m[3], `\`, "")})
		}
		pages = append(pages, page)
	}
	return pages
}

// TestStatusLetterPDFLayout (§5.11): a letter long
// enough to need a second page never leaves the signature alone on it;
// the signer is named with the office of their account (a treasurer is
// not "Village Clerk", nor a username); the floodplain answer is a block
// of its own below its heading; amounts have thousands separators.
func TestStatusLetterPDFLayout(t *testing.T) {
	loc, _ := time.LoadLocation("America/Chicago")
	doc := domain.StatusLetterDoc{Claim: "hall-kiosk-000007", Number: "SL-2026-0007", Parcel: "0601-141-2004", Address: "17 E Church St", County: domain.Dane,
		Requester: "Sugar River Title", Contact: "608-555-0142", AsOf: domain.MustDate("2026-12-01"),
		AssessmentChanges: "None.", Deferred: "None.", Improvements: "Reconstruction of E Church St planned for 2028 (not levied).",
		Floodplain: "In the mapped floodplain (floodplain zoning applies).", Violations: "None.",
		CompletedAt: domain.NewDateTime(domain.MustDate("2026-12-01"), 10, 0, 0), CompletedBy: "ttreas"}
	doc.Lines = append(doc.Lines, domain.LetterLine{Topic: "Taxes", Text: "2026 property tax (Dane County), open; its total includes Special assessment: sidewalk replacement, installment 2 of 5, $412.60", Amount: domain.MustMoney("4406.47")})
	signer := letterSigner{Name: "Tina Treasurer", Title: officialTitle(domain.RoleTreasurer)}
	for n := 1; n <= 30; n++ {
		var buf bytes.Buffer
		if err := letterPDF(&buf, doc, "Tom & Jean Hefty", signer, loc); err != nil {
			t.Fatal(err)
		}
		pages := pdfPages(t, buf.Bytes())
		var all []pdfText
		for _, p := range pages {
			all = append(all, p...)
		}
		find := func(sub string) pdfText {
			for _, x := range all {
				if strings.Contains(x.s, sub) {
					return x
				}
			}
			t.Fatalf("%d lines: %q not in the letter", n, sub)
			return pdfText{}
		}
		sig := find("Tina Treasurer, Village Finance Director/Treasurer")
		closing := find("This statement reports")
		if sig.page != closing.page {
			t.Fatalf("%d lines: the signature is on page %d, the closing statement on page %d", n, sig.page, closing.page)
		}
		if len(pages[sig.page-1]) < 6 {
			t.Fatalf("%d lines: page %d holds only %d lines of text", n, sig.page, len(pages[sig.page-1]))
		}
		// PDF y grows upwards: the answer sits below its heading, and below
		// the last record.
		if head, answer := find("Floodplain status"), find("In the mapped floodplain"); head.page == answer.page && head.y <= answer.y {
			t.Fatalf("%d lines: the floodplain answer is not below its heading", n)
		}
		if n > 1 {
			find(fmt.Sprintf("Charge number %d,", n-1))
		}
		body := buf.String()
		for _, bad := range []string{"ttreas", "Village Clerk", "$4406.47"} {
			if strings.Contains(body, bad) {
				t.Fatalf("%d lines: the letter says %q", n, bad)
			}
		}
		find("$4,406.47")
		find(fmt.Sprintf("page %d of %d", len(pages), len(pages)))
		doc.Lines = append(doc.Lines, domain.LetterLine{Topic: "Special charges", Text: fmt.Sprintf("Charge number %d, weed cutting billed 2026-06-%02d: unpaid (past_due)", n, n%28+1), Amount: domain.MustMoney("1234.50")})
	}
}
