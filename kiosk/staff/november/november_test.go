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
	// The posted step is listed a page at a time too, with the count and
	// total of every line.
	posted := tr.Get("/staff/november?year=2026&pen=3")
	var shown []string
	posted.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).Each(func(_ int, s *goquery.Selection) { shown = append(shown, s.AttrOr("data-bill", "")) })
	var third []string
	for _, it := range lines[200:min(300, len(lines))] {
		third = append(third, it.BillID)
	}
	if !posted.Has("penalties-posted") || !slices.Equal(shown, third) || posted.Text("penalties-total") != sum.String() || !strings.HasPrefix(posted.Text("penalties-count"), fmt.Sprint(len(lines), " ")) {
		t.Errorf("the posted step's third page: %v (%s, %q); want %v (%s, %d lines)", shown, posted.Text("penalties-total"), posted.Text("penalties-count"), third, sum, len(lines))
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

// TestNovemberPreviewFromSummaries: the preview figures each bill from
// its record's summary, and reads its payments only when one is dated
// after the step's day; either way every step's count, total and county
// totals are those of the rule over every payment (domain.NovemberItemOn).
// The start page's alerts and the posting of a confirmed step read no
// parcel one by one; the run page reads only those of the lines it shows
// (its county totals walk the parcels once).
func TestNovemberPreviewFromSummaries(t *testing.T) {
	h := stafftest.New(t)
	h.Ledger.ClearBills()
	p := h.Ledger.Params()
	var bills []domain.Bill
	for i := range 300 {
		pc := domain.Parcel{ID: fmt.Sprintf("0601-300-%04d", i), Address: fmt.Sprintf("%d Mill St", i), County: []domain.County{domain.Dane, domain.Green}[i%3/2], Owner: fmt.Sprintf("Owner %d", i)}
		h.Ledger.PutParcel(pc, fmt.Sprintf("%06d", 300000+i))
		b := domain.Bill{ID: fmt.Sprintf("B-2026-%04d", i), Account: fmt.Sprintf("%06d", 300000+i), Parcel: pc.ID, Description: "Water",
			BilledOn: domain.MustDate("2026-03-01"), Principal: domain.Cents(int64(5000 + 13*i))}
		pay := func(day string, cents int64) {
			b.Payments = append(b.Payments, domain.BillPayment{CommandID: fmt.Sprintf("pay-%d-%s", i, day), Receipt: "r", At: domain.NewDateTime(domain.MustDate(day), 10, 0, 0), Amount: domain.Cents(cents), Tender: domain.Cash})
		}
		switch i % 5 {
		case 0: // paid in full before it was due
			pay("2026-03-20", b.Principal.Cents())
		case 1: // half paid in June
			pay("2026-06-01", b.Principal.Cents()/2)
		case 2: // paid in part after the penalty day: the penalty step reads its payments
			pay("2026-11-05", 1000)
		}
		if err := h.Ledger.PutSummarizedBill(b); err != nil {
			t.Fatal(err)
		}
		bills = append(bills, b)
	}
	h.SetClock(time.Date(2026, 11, 16, 9, 0, 0, 0, h.Loc))
	today := domain.MustDate("2026-11-16")
	want := map[string]struct {
		n      int
		total  domain.Money
		county map[domain.County]domain.Money
	}{}
	for _, step := range []string{"penalties", "certify"} {
		w := want[step]
		w.total, w.county = domain.Cents(0), map[domain.County]domain.Money{domain.Dane: domain.Cents(0), domain.Green: domain.Cents(0)}
		for _, b := range bills {
			it, ok, err := domain.NovemberItemOn(b, step, 2026, today, p)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			amount := it.Balance
			if step == "penalties" {
				amount = it.Penalty
			}
			pc, _ := h.Ledger.Parcel(b.Parcel)
			w.n++
			w.total = w.total.Add(amount)
			w.county[pc.County] = w.county[pc.County].Add(amount)
		}
		want[step] = w
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)

	reads := h.Ledger.ParcelReads()
	start := tr.Get("/staff/")
	if got := start.Text("alert-november-penalties"); !strings.Contains(got, fmt.Sprintf("%d bill(s)", want["penalties"].n)) {
		t.Fatalf("the penalties' alert: %q, want %d bills", got, want["penalties"].n)
	}
	if h.Ledger.ParcelReads() != reads {
		t.Errorf("the start page's alerts read %d parcels", h.Ledger.ParcelReads()-reads)
	}

	reads = h.Ledger.ParcelReads()
	page := tr.Get("/staff/november?year=2026")
	if got, w := page.Text("penalties-total"), want["penalties"]; got != w.total.String() || !strings.HasPrefix(page.Text("penalties-count"), fmt.Sprint(w.n, " ")) {
		t.Fatalf("penalties: %s, %q; want %d lines, %s", got, page.Text("penalties-count"), w.n, w.total)
	}
	w := want["certify"]
	if got := page.Text("roll-total"); got != w.total.String() || !strings.HasPrefix(page.Text("roll-count"), fmt.Sprint(w.n, " ")) {
		t.Fatalf("roll: %s, %q; want %d lines, %s", got, page.Text("roll-count"), w.n, w.total)
	}
	for c, total := range w.county {
		if got := page.Text("county-" + string(c)); !strings.Contains(got, total.String()) {
			t.Errorf("county %s: %q, want %s", c, got, total)
		}
	}
	// The penalties' first page and the roll's, 100 lines each.
	if n := h.Ledger.ParcelReads() - reads; n > 200 {
		t.Errorf("the run page read %d parcels for two pages of lines", n)
	}
	if row := page.Doc.Find(`[data-testid="penalties"] tr[data-bill]`).First(); !strings.HasPrefix(row.Text(), "B-2026-0001") || !strings.Contains(row.Text(), "Owner 1") {
		t.Errorf("the first line: %q", row.Text())
	}

	reads = h.Ledger.ParcelReads()
	tr.NovemberStep(2026, "penalties")
	run, _, err := domain.ReadsOf(h.Ledger).NovemberRun(2026)
	if err != nil {
		t.Fatal(err)
	}
	if !run.PenaltiesPosted() || run.Lines("penalties") != want["penalties"].n || run.PenaltyTotal.String() != want["penalties"].total.String() {
		t.Fatalf("posted %d penalties, %s; want %d, %s", run.Lines("penalties"), run.PenaltyTotal, want["penalties"].n, want["penalties"].total)
	}
	// The confirm page's first page of lines, and the run page after.
	if n := h.Ledger.ParcelReads() - reads; n > 300 {
		t.Errorf("confirming and posting the penalties read %d parcels", n)
	}
}
