package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/pdfcheck"
)

// documentRoute is one PDF the product makes: where it is served, who
// asks for it, and the margins its pages keep. Kiosk routes are asked for
// by a resident, without signing in.
type documentRoute struct {
	name   string
	path   string
	as     string // "treas", "admin", "inn" (the Belle Inn's login), or "" for the resident kiosk
	layout pdfcheck.Layout
}

// file is the name the document's PDF is kept under when
// TestEveryDocumentReadsRight writes the documents out (DOCS_DOCUMENTS):
// its name in lower case with words joined by hyphens, without an article
// ("a bill to mail" is bill-to-mail.pdf), so that a picture made of it
// keeps its name from one run to the next.
func (r documentRoute) file() string {
	words := strings.FieldsFunc(strings.ToLower(r.name), func(c rune) bool {
		return !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'')
	})
	if len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	for i, w := range words {
		words[i] = strings.ReplaceAll(w, "'", "")
	}
	return strings.Join(words, "-") + ".pdf"
}

// documentRoutes are every PDF a node makes, asked for of a demo node in
// January with the records the demo lacks added first (see
// TestEveryDocumentReadsRight). A new document is a new row.
func documentRoutes(letter, bill string) []documentRoute {
	report := pdfcheck.Layout{Left: 14, Right: 14}
	return []documentRoute{
		{"status letter", "/staff/letters/" + letter + "/letter.pdf", "treas", pdfcheck.Layout{Left: 20, Right: 20}},
		{"blank room tax return", "/staff/room-tax/blank.pdf", "treas", pdfcheck.Layout{Left: 20, Right: 20}},
		{"filed room tax return", "/staff/room-tax/returns/belle-inn_2026-Q3/return.pdf?reason=administration", "treas", pdfcheck.Layout{Left: 20, Right: 20}},
		{"budget hearing notice", "/staff/budget/2027/summary.pdf?hearing=2026-11-10&time=6:30+PM&place=Village+Hall", "admin", pdfcheck.Layout{Left: 18, Right: 18}},
		{"check register", "/staff/check-register/2026-10/register.pdf", "treas", report},
		{"county settlement", "/staff/settlements/dane/2026/january.pdf", "treas", pdfcheck.Layout{Left: 18, Right: 18}},
		{"notice of disallowance", "/staff/legal-claims/LC-2026-901/disallowance.pdf", "admin", pdfcheck.Layout{Left: 13, Right: 19}},
		{"board packet", "/staff/books/packet.pdf?month=2026-12", "treas", report},
		{"budget book", "/budget/2027/book.pdf", "", report},
		{"a bill to mail", "/staff/bills/" + bill + "/bill.pdf", "treas", pdfcheck.Layout{Left: 13, Right: 19}},
		{"an account's statement", "/staff/accounts/100101/statement.pdf?since=2026-01-01", "treas", pdfcheck.Layout{Left: 13, Right: 19}},
		{"the utility bills to mail", "/staff/mailing/bills.pdf?kind=utility", "treas", pdfcheck.Layout{Left: 13, Right: 19}},
		// The demo's bills due late in 2026 go on 2027's roll: their
		// notices as the office mails them that October.
		{"notices of unpaid bills", "/staff/mailing/notices.pdf?notice=november&year=2027&date=2027-10-15", "treas", pdfcheck.Layout{Left: 13, Right: 19}},
		{"room tax remittance slip", "/staff/room-tax/returns/belle-inn_2026-Q3/slip.pdf", "inn", pdfcheck.Layout{Left: 15, Right: 15}},
	}
}

// TestEveryDocumentReadsRight renders every PDF the product makes from a
// demo node's ledger and reads each page as a reader would: no text
// drawn over another, none past the margins or off the page, no raw code
// where words belong, every amount with its thousands separators. The
// demo has no room tax return, operator's login or legal claim; they are
// recorded first.
// (The special assessment notice letters need a whole project's record
// and are read the same way by their package's test.)
//
// With DOCS_DOCUMENTS set to a folder (relative to appliance/ when not
// absolute), each PDF fetched is also written there under its route's
// file name: `make docs-documents` makes the pictures in docs/documents/
// of them.
func TestEveryDocumentReadsRight(t *testing.T) {
	out := os.Getenv("DOCS_DOCUMENTS")
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := startMainAt(t, t.TempDir(), januaryNow)
	users := map[string]*staffClient{}
	for _, u := range []struct{ name, role string }{{"treas", "treasurer"}, {"admin", "administrator"}, {"inn", "hotel_operator"}} {
		out, code := userCLI(t, m, "add", "--username", u.name, "--name", "Pat "+u.name, "--role", u.role)
		if code != 0 {
			t.Fatalf("user add: %s", out)
		}
		c := newStaffClient(t, m)
		temp := tempPassword(t, out)
		c.login(u.name, temp)
		c.get("/staff/password")
		if p := c.post("/staff/password", url.Values{"current": {temp}, "new": {"a long office password"}, "again": {"a long office password"}}); p.status != http.StatusSeeOther {
			t.Fatalf("%s's password: %d", u.name, p.status)
		}
		users[u.name] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	submit := func(actor string, p domain.Payload) {
		t.Helper()
		cmd, err := m.Node.NewCommand(p.Kind(), actor)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Payload = p
		res, err := m.Node.Submit(ctx, cmd)
		if err != nil || res.Error != nil {
			t.Fatalf("%s: %v %v", p.Kind(), err, res.Error)
		}
	}
	submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: "belle-inn", LegalName: "Belle Inn LLC",
		Establishments: []domain.Establishment{{Name: "Belle Inn", Address: "12 Vine St"}}, SellersPermit: "456-1027384756-02", Contact: "Ann Belle, 608-555-0100"})
	submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "belle-inn", Login: "inn"})
	q3, err := domain.ParseQuarter("2026-Q3")
	if err != nil {
		t.Fatal(err)
	}
	submit("treas", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: q3, GrossReceipts: domain.MustMoney("48250.00"),
		ExemptSales: []domain.RoomTaxExemptSale{{Amount: domain.MustMoney("1200.00"), Buyer: "US Forest Service", Entity: "federal", BilledToEntity: true, Document: "purchase_order", DocumentNumber: "PO-7731"}},
		Signer:      "Ann Belle", Capacity: "owner", Year: &domain.RoomTaxYear{Basis: "calendar", EndMonth: 12}})
	submit("admin", &domain.LegalClaimChange{Op: domain.LegalClaimFile, ID: "LC-2026-901", Claimant: "Dana Roe", Address: "12 Oak St, Belleville WI 53508",
		Description: "Car damaged by a pothole on Main St", NoticeOn: domain.MustDate("2026-12-01"), ClaimOn: domain.MustDate("2026-12-01"), Amount: domain.MustMoney("12400.00")})
	submit("admin", &domain.LegalClaimChange{Op: domain.LegalClaimDecide, ID: "LC-2026-901", Decision: domain.LegalClaimDisallow, On: domain.MustDate("2027-01-11"), Meeting: "Board 2027-01-11, motion 4"})

	// A status letter of the demo's requests, completed.
	treas := users["treas"]
	letter := treas.get("/staff/letters").doc.Find("tr[data-claim]").First().AttrOr("data-claim", "")
	if letter == "" {
		t.Fatal("the demo has no status letter request")
	}
	treas.get("/staff/letters/" + letter)
	if p := treas.post("/staff/letters/"+letter+"/complete", url.Values{"assessment_changes": {"none"}, "deferred": {"none"},
		"improvements": {"Main Street resurfacing planned for 2027; no assessment levied yet."}, "floodplain": {"Not in a mapped floodplain."}, "violations": {"none known"}}); p.status != http.StatusSeeOther {
		t.Fatalf("complete the letter: %d %s", p.status, p.text("letter-error"))
	}

	bills, err := m.Node.BillsByAccount("100101")
	if err != nil || len(bills) == 0 {
		t.Fatalf("the demo's account 100101: %d bills, %v", len(bills), err)
	}
	files := map[string]string{}
	for _, r := range documentRoutes(letter, bills[0].ID) {
		if other, ok := files[r.file()]; ok {
			t.Errorf("%q and %q would both be kept as %s: name one differently", other, r.name, r.file())
		}
		files[r.file()] = r.name
		t.Run(r.name, func(t *testing.T) {
			var resp *http.Response
			var err error
			if r.as == "" {
				resp, err = http.Get("http://" + m.Addr() + r.path)
			} else {
				resp, err = users[r.as].c.Get(users[r.as].base + r.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
				t.Fatalf("GET %s: %d %s %.300s", r.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if out != "" {
				if err := os.WriteFile(filepath.Join(out, r.file()), body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pdfcheck.Assert(t, r.name, body, r.layout)
			if pages, err := pdfcheck.Read(body); err == nil && len(strings.TrimSpace(pages[0].String())) == 0 {
				t.Errorf("%s: its first page says nothing", r.name)
			}
		})
	}
}
