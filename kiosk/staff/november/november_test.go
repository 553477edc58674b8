package november_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestNovemberRun: on November 2 the treasurer previews and posts the
// penalties; certification waits for the end of November 15; a payment
// made meanwhile lowers the certified balance; after certification the
// per-county CSVs hold the roll and the bills take no more payments.
func TestNovemberRun(t *testing.T) {
	h := stafftest.New(t)
	h.Ledger.PutBill(domain.Bill{ID: "B-MAR", Account: "100101", Parcel: "0601-141-2001", Description: "Sidewalk repair", BilledOn: domain.MustDate("2026-03-01"), Principal: domain.MustMoney("200.00")})
	h.Ledger.PutBill(domain.Bill{ID: "B-MAY", Account: "100102", Parcel: "0601-141-2002", Description: "Weed cutting", BilledOn: domain.MustDate("2026-05-01"), Principal: domain.MustMoney("80.00")})
	h.Ledger.PutBill(domain.Bill{ID: "B-PAID", Account: "100102", Parcel: "0601-141-2002", Description: "Snow", BilledOn: domain.MustDate("2026-02-01"), Principal: domain.MustMoney("50.00"),
		Payments: []domain.BillPayment{{CommandID: "old", Receipt: "old-1", At: domain.NewDateTime(domain.MustDate("2026-02-10"), 10, 0, 0), Amount: domain.MustMoney("50.00"), Tender: domain.Cash}}})
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	p := tr.Get("/staff/november")
	if !p.Has("penalties-preview") || p.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).Length() != 2 {
		t.Fatalf("penalty preview: %q", p.Text("penalties"))
	}
	// 1.5% of 200.00 and of 80.00.
	if p.Text("penalties-total") != "4.20" {
		t.Fatalf("penalty total %q, want 4.20", p.Text("penalties-total"))
	}
	if p.Has("certify-roll") {
		t.Fatal("certification offered on November 2")
	}
	if p := tr.Post("/staff/november", url.Values{"year": {"2026"}, "step": {"certify"}}); p.Status != http.StatusConflict {
		t.Fatalf("certify on November 2: %d", p.Status)
	}
	// The step shows what it will post before it posts, so the treasurer
	// confirms figures, not a button.
	confirm := tr.Post("/staff/november", url.Values{"year": {"2026"}, "step": {"penalties"}})
	if confirm.Status != http.StatusOK || !strings.Contains(confirm.Text("confirm-summary"), "2 bill(s)") || !strings.Contains(confirm.Text("confirm-summary"), "4.20") {
		t.Fatalf("penalty confirm: %d %q", confirm.Status, confirm.Text("confirm-summary"))
	}
	if p := tr.Get("/staff/november"); !p.Has("penalties-preview") {
		t.Fatal("the confirm page posted the penalties")
	}
	for _, table := range []*goquery.Selection{confirm.Doc.Find(`[data-testid="confirm-rows"]`), p.Doc.Find(`[data-testid="penalties"]`), p.Doc.Find(`[data-testid="roll"]`)} {
		var heads []string
		table.Find(`thead th`).Each(func(_ int, s *goquery.Selection) { heads = append(heads, s.Text()) })
		if len(heads) == 0 || len(heads) != len(slices.Compact(slices.Sorted(slices.Values(heads)))) {
			t.Fatalf("two columns share a heading: %q", heads)
		}
	}
	if p := tr.Post("/staff/november", url.Values{"year": {"2026"}, "step": {"penalties"}, "confirm": {"yes"}, "count": {"2"}, "total": {"4.00"}}); p.Status != http.StatusConflict {
		t.Fatalf("a confirm of other totals: %d", p.Status)
	}
	tr.NovemberStep(2026, "penalties")
	if p := tr.Get("/staff/november"); !p.Has("penalties-posted") || p.Has("post-penalties") {
		t.Fatal("penalties not shown as posted")
	}
	if p := tr.Post("/staff/november", url.Values{"year": {"2026"}, "step": {"penalties"}}); p.Status != http.StatusConflict {
		t.Fatalf("penalties twice: %d", p.Status)
	}
	// November 10: part of the May bill is paid at the window.
	h.SetClock(time.Date(2026, 11, 10, 10, 0, 0, 0, h.Loc))
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.Get("/staff/window")
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-MAY"}, "amount": {"40.00"}, "tender": {"cash"}, "tendered": {"40.00"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("payment: %d %s", p.Status, p.Text("window-error"))
	}
	// November 15 at 17:00, after the office closed.
	h.SetClock(time.Date(2026, 11, 15, 17, 0, 0, 0, h.Loc))
	tr.Login("treasurer", stafftest.Password)
	p = tr.Get("/staff/november")
	if !p.Has("certify-roll") {
		t.Fatal("certification not offered after November 15 closes")
	}
	tr.NovemberStep(2026, "certify")
	p = tr.Get("/staff/november")
	if !p.Has("roll-certified") || p.Doc.Find(`[data-testid="roll"] tr[data-bill]`).Length() != 2 {
		t.Fatalf("roll: %q", p.Text("roll"))
	}
	get := func(county string) [][]string {
		resp, err := tr.HTTP.Get(h.Srv.URL + "/staff/november/2026/" + county + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s csv: %d", county, resp.StatusCode)
		}
		rows, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	dane, green := get("dane"), get("green")
	if len(dane) != 2 || len(green) != 2 || dane[0][0] != "county" {
		t.Fatalf("dane %v green %v", dane, green)
	}
	if dane[1][5] != "B-MAR" || green[1][5] != "B-MAY" {
		t.Fatalf("rows: %v %v", dane[1], green[1])
	}
	// B-MAY: 80.00, 40.00 paid on Nov 10 to penalty 1.20, interest, then principal.
	if !strings.HasPrefix(green[1][0], "Green") || green[1][11] == "" || green[1][11] == "80.00" {
		t.Fatalf("green line: %v", green[1])
	}
	// The certified bill takes no more payments at the window.
	h.SetClock(time.Date(2026, 11, 16, 9, 0, 0, 0, h.Loc))
	c.Login("jdoe", stafftest.Password)
	c.Get("/staff/window")
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-MAR"}, "amount": {"10.00"}, "tender": {"cash"}, "tendered": {"10.00"}}); p.Status != http.StatusConflict || !strings.Contains(p.Text("window-error"), "tax roll") {
		t.Fatalf("payment on a certified bill: %d %q", p.Status, p.Text("window-error"))
	}
	if resp, _ := c.HTTP.Get(h.Srv.URL + "/staff/november/2025/dane.csv"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("uncertified year's CSV: %d", resp.StatusCode)
	}
}

// TestNovemberPreviewPaged: a run of hundreds of bills is listed a page
// at a time; following the pages lists every line exactly once, and the
// count and total shown on every page are those of all the lines, as the
// rule figures them bill by bill.
func TestNovemberPreviewPaged(t *testing.T) {
	h := stafftest.New(t)
	h.Ledger.ClearBills()
	p := h.Ledger.Params()
	want := map[string]bool{}
	sum := domain.Cents(0)
	for i := range 500 {
		b := domain.Bill{ID: fmt.Sprintf("B-2026-%04d", i), Account: "100101", Parcel: []string{"0601-141-2001", "0601-141-2002"}[i%2], Description: "Water",
			BilledOn: domain.MustDate("2026-03-01").AddDays(i % 90), Principal: domain.Cents(int64(1000 + 37*i))}
		if i%7 == 0 { // paid in full in the spring: no penalty
			b.Payments = []domain.BillPayment{{CommandID: "pay", Receipt: "r", At: domain.NewDateTime(domain.MustDate("2026-06-01"), 10, 0, 0), Amount: b.Principal.Add(domain.Cents(5000)), Tender: domain.Cash}}
		}
		if i%11 == 0 { // another year's bill
			b.BilledOn = domain.MustDate("2025-03-01")
		}
		h.Ledger.PutBill(b)
		it, ok, err := domain.NovemberItem(b, "penalties", 2026, p)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			want[b.ID] = true
			sum = sum.Add(it.Penalty)
		}
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	seen := map[string]int{}
	pages := 0
	for next := "/staff/november?year=2026"; next != ""; pages++ {
		page := tr.Get(next)
		if page.Status != http.StatusOK || pages > 10 {
			t.Fatalf("%s: %d after %d pages", next, page.Status, pages)
		}
		rows := page.Doc.Find(`[data-testid="penalties"] tr[data-bill]`)
		if rows.Length() > 100 {
			t.Fatalf("a page lists %d lines", rows.Length())
		}
		rows.Each(func(_ int, s *goquery.Selection) { seen[s.AttrOr("data-bill", "")]++ })
		if got := page.Text("penalties-total"); got != sum.String() {
			t.Fatalf("page %d shows the total %s, the lines sum to %s", pages+1, got, sum)
		}
		if got := page.Text("penalties-count"); !strings.HasPrefix(got, fmt.Sprint(len(want), " ")) {
			t.Fatalf("page %d shows %q lines, want %d", pages+1, got, len(want))
		}
		next = page.Doc.Find(`[data-testid="penalties-next"]`).AttrOr("href", "")
	}
	if pages != (len(want)+99)/100 {
		t.Errorf("%d pages for %d lines", pages, len(want))
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("%s listed %d times", id, seen[id])
		}
	}
	for id := range seen {
		if !want[id] {
			t.Errorf("%s listed, but it owes no penalty", id)
		}
	}
	back := tr.Get("/staff/november?year=2026&pen=2")
	if prev := back.Doc.Find(`[data-testid="penalties-prev"]`).AttrOr("href", ""); !strings.Contains(prev, "pen=1") {
		t.Errorf("page 2's previous link: %q", prev)
	}
	// The step posts every line, not only the page shown, in parts of
	// at most domain.RunPartBills lines (more than one here).
	if len(want) <= domain.RunPartBills {
		t.Fatalf("%d lines fit in one part", len(want))
	}
	tr.NovemberStep(2026, "penalties")
	run, _, err := domain.ReadsOf(h.Ledger).NovemberRun(2026)
	if err != nil {
		t.Fatal(err)
	}
	if !run.PenaltiesPosted() || run.Lines("penalties") != len(want) || run.PenaltyTotal.String() != sum.String() {
		t.Fatalf("posted %d penalties, %s (complete: %v); want %d, %s", run.Lines("penalties"), run.PenaltyTotal, run.PenaltiesPosted(), len(want), sum)
	}
	lines, err := domain.ReadsOf(h.Ledger).NovemberItems(run, "penalties")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range lines {
		if !want[it.BillID] {
			t.Errorf("%s posted, but it owes no penalty", it.BillID)
		}
		delete(want, it.BillID)
	}
	if len(want) != 0 {
		t.Errorf("not posted: %v", want)
	}
}

// TestNovemberStepFinishedAfterAPart: a step whose posting stopped after a
// part (the node restarted, or a part was refused) says what is posted;
// the run page lists only the bills left, and confirming again posts them
// and completes the step; certification waits for that.
func TestNovemberStepFinishedAfterAPart(t *testing.T) {
	h := stafftest.New(t)
	h.Ledger.ClearBills()
	for i := range 3 {
		h.Ledger.PutBill(domain.Bill{ID: fmt.Sprintf("B-%d", i+1), Account: "100101", Parcel: "0601-141-2001", Description: "Water", BilledOn: domain.MustDate("2026-03-01"), Principal: domain.MustMoney("100.00")})
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	cmd, err := h.Ledger.NewCommand(domain.KindNovemberRun, "treasurer")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-2"}, More: true}
	if _, err := h.Ledger.Submit(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	p := tr.Get("/staff/november?year=2026")
	if got := p.Text("penalties-part"); !strings.Contains(got, "1 lines, 1.50") || p.Has("penalties-posted") {
		t.Fatalf("a step part of which is posted: %q", got)
	}
	var left []string
	p.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).Each(func(_ int, s *goquery.Selection) { left = append(left, s.AttrOr("data-bill", "")) })
	if strings.Join(left, " ") != "B-1 B-3" || p.Text("penalties-total") != "3.00" {
		t.Fatalf("the lines left: %v, %s", left, p.Text("penalties-total"))
	}
	h.SetClock(time.Date(2026, 11, 16, 9, 0, 0, 0, h.Loc))
	tr.Login("treasurer", stafftest.Password)
	tr.Get("/staff/november?year=2026")
	c := tr.Post("/staff/november", url.Values{"year": {"2026"}, "step": {"certify"}})
	if c.Status != http.StatusConflict || !strings.Contains(c.Text("error"), "Post the 2026 penalties before certifying") {
		t.Fatalf("certify with penalties left: %d %q", c.Status, c.Text("error"))
	}
	tr.NovemberStep(2026, "penalties")
	run, _, err := domain.ReadsOf(h.Ledger).NovemberRun(2026)
	if err != nil {
		t.Fatal(err)
	}
	if !run.PenaltiesPosted() || run.Lines("penalties") != 3 || run.PenaltyTotal.String() != "4.50" {
		t.Fatalf("after finishing: %+v", run)
	}
	if p := tr.Get("/staff/november?year=2026"); !p.Has("penalties-posted") || p.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).Length() != 3 {
		t.Fatalf("the posted step lists %d lines", p.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).Length())
	}
	tr.NovemberStep(2026, "certify")
	if csv := tr.Get("/staff/november/2026/dane.csv"); strings.Count(csv.Body, "\n") != 4 {
		t.Fatalf("the Dane roll:\n%s", csv.Body)
	}
}
