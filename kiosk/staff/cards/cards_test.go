package cards_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/cards"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// receipts is the ledger's side of a test: card receipts by day.
type receipts map[domain.Date][]domain.Receipt

func (r receipts) CardReceipts(day domain.Date) ([]domain.Receipt, error) { return r[day], nil }

// TestReconciliation: a day's charges and refunds at the processor (the
// simulator's statement) beside the ledger's card receipts, matched by
// command id. A charge without a receipt and a receipt without a charge
// are flagged; a charge the kiosk refunded because the ledger refused it
// is not; the deposit expected is the receipts less refunds and fees; the
// CSV says the same; the page is the treasurer's and the auditor's only.
func TestReconciliation(t *testing.T) {
	sim := terminal.NewSimulator()
	var now time.Time
	sim.SetClock(func() time.Time { return now })
	ledger := receipts{}
	available, why := true, ""
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(sim, ledger, func() (bool, string) { return available, why })}})
	day := h.Today().AddDays(-1)
	now = time.Date(day.Year(), day.Month(), day.Day(), 10, 0, 0, 0, h.Loc)
	ctx := context.Background()
	for _, c := range []struct{ key, amount string }{{"cmd-a", "25.00"}, {"cmd-b", "40.00"}, {"cmd-stray", "9.99"}} {
		if _, err := sim.Charge(ctx, c.key, domain.MustMoney(c.amount)); err != nil {
			t.Fatal(err)
		}
	}
	b := sim.Approved()[1]
	if _, err := sim.Refund(ctx, terminal.RefundRequest{Key: "cmd-b-void", ChargeKey: "cmd-b", Reference: b.Reference, Amount: b.Amount}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(24 * time.Hour) // the next day's charge is not this day's
	if _, err := sim.Charge(ctx, "cmd-next-day", domain.MustMoney("1.00")); err != nil {
		t.Fatal(err)
	}
	ledger[day] = []domain.Receipt{
		{Number: "hall-kiosk-000001", CommandID: "cmd-a", Amount: domain.MustMoney("25.00"), Tender: domain.Card},
		{Number: "hall-kiosk-000002", CommandID: "cmd-ledger-only", Amount: domain.MustMoney("12.00"), Tender: domain.Card},
	}

	treasurer := h.SignedIn("tina", domain.RoleTreasurer)
	p := treasurer.Get("/staff/cards?day=" + day.String())
	if p.Status != http.StatusOK {
		t.Fatalf("status %d: %s", p.Status, p.Body)
	}
	if !strings.Contains(p.Text("cards-unmatched"), "2 line(s)") || p.Text("cards-expected") != "$37.00" || p.Text("cards-receipts") != "$37.00" {
		t.Errorf("unmatched %q, expected %q, receipts %q", p.Text("cards-unmatched"), p.Text("cards-expected"), p.Text("cards-receipts"))
	}
	for _, want := range []string{"cmd-stray", "charged at the processor, no receipt in the ledger", "cmd-ledger-only", "receipt in the ledger, no charge at the processor", "charged and refunded: the ledger refused the payment"} {
		if !strings.Contains(p.Text("cards-lines"), want) {
			t.Errorf("the lines do not say %q: %s", want, p.Text("cards-lines"))
		}
	}
	if strings.Contains(p.Body, "cmd-next-day") {
		t.Error("the next day's charge is on this day's reconciliation")
	}

	c := treasurer.Get("/staff/cards.csv?day=" + day.String())
	rows, err := csv.NewReader(strings.NewReader(c.Body)).ReadAll()
	if c.Status != http.StatusOK || err != nil {
		t.Fatalf("csv %d %v", c.Status, err)
	}
	flagged := 0
	for _, r := range rows[1:] {
		if r[len(r)-1] != "" && r[5] != "paid_out" {
			flagged++
		}
		if r[5] == "expected_deposit" && r[6] != "37.00" {
			t.Errorf("csv expected deposit %v", r)
		}
	}
	if rows[0][1] != "command_id" || flagged != 2 {
		t.Errorf("csv header %v, %d flagged rows", rows[0], flagged)
	}

	if p := h.SignedIn("avery", domain.RoleAuditor).Get("/staff/cards?day=" + day.String()); p.Status != http.StatusOK {
		t.Errorf("the auditor: %d", p.Status)
	}
	for _, role := range []domain.Role{domain.RoleClerk, domain.RoleAdministrator, domain.RoleBoard, domain.RoleHotelOperator} {
		if p := h.SignedIn("u-"+string(role), role).Get("/staff/cards.csv"); p.Status != http.StatusForbidden {
			t.Errorf("%s opened the reconciliation: %d", role, p.Status)
		}
	}
	if p := treasurer.Get("/staff/cards?day=yesterday"); p.Status != http.StatusBadRequest && p.Status != http.StatusUnprocessableEntity {
		t.Errorf("a bad day: %d", p.Status)
	}

	// The start page says when the kiosk takes no cards.
	clerk := h.SignedIn("pat", domain.RoleClerk)
	if p := clerk.Get("/staff/"); p.Has("alert-cards") {
		t.Error("an alert while cards work")
	}
	available, why = false, "terminal: card payments unavailable: reader tmr_1 is offline"
	if p := clerk.Get("/staff/"); !strings.Contains(p.Text("alert-cards"), "reader tmr_1 is offline") {
		t.Errorf("no alert while cards are down: %s", p.Body)
	}
	// Why the processor refused is the appliance's business: a hotel
	// operator or a board member is not told.
	for _, role := range []domain.Role{domain.RoleHotelOperator, domain.RoleBoard} {
		if p := h.SignedIn("v-"+strings.ReplaceAll(string(role), "_", "-"), role).Get("/staff/"); p.Status != http.StatusOK || p.Has("alert-cards") || strings.Contains(p.Body, "tmr_1") {
			t.Errorf("%s's start page shows the card terminal's alert (%d)", role, p.Status)
		}
	}
	if p := h.SignedIn("ops", domain.RoleAdministrator).Get("/staff/"); !p.Has("alert-cards") {
		t.Error("the administrator is not told the kiosk takes no cards")
	}
}

// TestReconciliationPages: a day of many card payments is reconciled
// whole (its total) and shown 500 lines a page; the next links reach
// every line once, and the CSV has them all.
func TestReconciliationPages(t *testing.T) {
	ledger := receipts{}
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(nil, ledger, nil)}})
	day := h.Today().AddDays(-1)
	for i := range 1203 {
		ledger[day] = append(ledger[day], domain.Receipt{Number: fmt.Sprintf("hall-kiosk-%06d", i+1), CommandID: fmt.Sprintf("cmd-%04d", i), Amount: domain.MustMoney("1.00"), Tender: domain.Card})
	}
	treasurer := h.SignedIn("tina", domain.RoleTreasurer)
	seen := map[string]bool{}
	path, pages := "/staff/cards?day="+day.String(), 0
	for ; path != ""; pages++ {
		p := treasurer.Get(path)
		if p.Status != http.StatusOK || p.Text("cards-receipts") != "$1,203.00" {
			t.Fatalf("%s: %d, receipts %q", path, p.Status, p.Text("cards-receipts"))
		}
		lines := p.Doc.Find(`[data-testid="cards-line"]`)
		if lines.Length() > 500 {
			t.Fatalf("%s: %d lines on a page", path, lines.Length())
		}
		lines.Each(func(_ int, s *goquery.Selection) {
			id := strings.TrimSpace(s.Find("td").First().Text())
			if seen[id] {
				t.Fatalf("%s: line %s again", path, id)
			}
			seen[id] = true
		})
		path = p.Doc.Find(`[data-testid="cards-next"]`).AttrOr("href", "")
	}
	if pages != 3 || len(seen) != 1203 {
		t.Fatalf("%d pages of %d lines", pages, len(seen))
	}
	c := treasurer.Get("/staff/cards.csv?day=" + day.String())
	rows, err := csv.NewReader(strings.NewReader(c.Body)).ReadAll()
	if err != nil || len(rows) != 1+1203+2 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
}

// dayReceipts is the ledger's side with the day's count and total kept
// apart and its receipts read a page at a time (cards.DayReceipts), as
// the appliance's ledger gives them.
type dayReceipts struct {
	receipts
	pages *int // pages read
}

func (r dayReceipts) CardReceiptsPage(day domain.Date, from, n int) (cards.ReceiptsPage, error) {
	*r.pages++
	all := r.receipts[day]
	p := cards.ReceiptsPage{Count: len(all)}
	for _, rc := range all {
		p.Total = p.Total.Add(rc.Amount)
	}
	p.Receipts = all[min(from, len(all)):min(from+n, len(all))]
	return p, nil
}

func (r dayReceipts) EachCardReceipt(day domain.Date, n int, fn func(domain.Receipt) error) error {
	all := r.receipts[day]
	if n > 0 {
		all = all[:min(n, len(all))]
	}
	for _, rc := range all {
		*r.pages++
		if err := fn(domain.Receipt{Number: rc.Number, CommandID: rc.CommandID, Amount: rc.Amount}); err != nil {
			return err
		}
	}
	return nil
}

// TestReconciliationPagedAsWhole: on a node with no processor's
// statement, a ledger that counts its days and reads a page of receipts
// at a time gives every page of a day of 2,345 card payments, and its
// CSV, exactly as reconciling the whole day does, and never reads the
// day whole.
func TestReconciliationPagedAsWhole(t *testing.T) {
	whole := receipts{}
	pages := 0
	paged := dayReceipts{whole, &pages}
	hw := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(nil, whole, nil)}})
	hp := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(nil, paged, nil)}})
	day := hw.Today().AddDays(-1)
	if hp.Today() != hw.Today() {
		t.Fatal("the two offices' clocks differ")
	}
	for i := range 2345 {
		whole[day] = append(whole[day], domain.Receipt{Number: fmt.Sprintf("hall-kiosk-%06d", i+1), CommandID: fmt.Sprintf("cmd-%04d", i),
			Amount: domain.MustMoney(fmt.Sprintf("%d.%02d", 1+i%40, i%100)), Tender: domain.Card})
	}
	tw, tp := hw.SignedIn("tina", domain.RoleTreasurer), hp.SignedIn("tina", domain.RoleTreasurer)
	parts := []string{"cards-lines", "cards-receipts", "cards-expected", "cards-paid-out", "cards-difference", "cards-unmatched", "cards-pager", "cards-no-statement"}
	for _, path := range []string{"/staff/cards?day=" + day.String(), "/staff/cards?day=" + day.String() + "&from=500", "/staff/cards?day=" + day.String() + "&from=2000",
		"/staff/cards?day=" + day.String() + "&from=2345", "/staff/cards?day=" + day.String() + "&from=9000", "/staff/cards?day=" + day.AddDays(-1).String()} {
		pw, pp := tw.Get(path), tp.Get(path)
		if pw.Status != http.StatusOK || pp.Status != http.StatusOK {
			t.Fatalf("%s: %d and %d", path, pw.Status, pp.Status)
		}
		for _, id := range parts {
			if pw.Text(id) != pp.Text(id) {
				t.Errorf("%s, %s: paged %q, whole %q", path, id, pp.Text(id), pw.Text(id))
			}
		}
		for _, link := range []string{"cards-prev", "cards-next"} {
			a, b := pw.Doc.Find(`[data-testid="`+link+`"]`).AttrOr("href", ""), pp.Doc.Find(`[data-testid="`+link+`"]`).AttrOr("href", "")
			if a != b {
				t.Errorf("%s, %s: paged %q, whole %q", path, link, b, a)
			}
		}
	}
	if p := tp.Get("/staff/cards?day=" + day.String()); p.Text("cards-receipts") == "" || p.Doc.Find(`[data-testid="cards-line"]`).Length() != 500 {
		t.Fatalf("the first page: receipts %q, %d lines", p.Text("cards-receipts"), p.Doc.Find(`[data-testid="cards-line"]`).Length())
	}
	pages = 0
	cw, cp := tw.Get("/staff/cards.csv?day="+day.String()), tp.Get("/staff/cards.csv?day="+day.String())
	if cw.Status != http.StatusOK || cp.Body != cw.Body || !strings.Contains(cp.Body, "hall-kiosk-002345") {
		t.Fatalf("the CSVs differ (%d bytes paged, %d whole)", len(cp.Body), len(cw.Body))
	}
	if pages < 2 {
		t.Fatalf("the paged CSV read the day in %d parts", pages)
	}
}
