package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// BenchmarkNovemberRun builds, on one node in process, a roll year of
// NOVEMBER_BENCH_BILLS bills (20,000 by default, one a parcel) through
// the product's commands, a quarter of them partly paid, an eighth paid
// in full and a twentieth paid again after November 2, then takes the
// November run as the treasurer does over HTTPS: the run page (its
// preview of both steps) and the start page (its alerts), each asked
// five times, then each step's confirm page and the step posted. It
// reports the median time of each page, the time of each posting, and
// what each allocated (MiB, from runtime.MemStats); it asserts nothing
// about time. Each run builds its ledger and posts the steps once:
//
//	GOMEMLIMIT=64MiB go test -run '^$' -bench NovemberRun -benchtime=1x -benchmem ./appliance/
func BenchmarkNovemberRun(b *testing.B) {
	bills := 20_000
	if v, err := strconv.Atoi(os.Getenv("NOVEMBER_BENCH_BILLS")); err == nil && v > 0 {
		bills = v
	}
	const year = 2026
	clock := &scaleClock{}
	history := demoHistory(domain.NewDate(year, time.January, 4))
	slices.SortStableFunc(history, func(a, b domain.Command) int { return cmpDateTime(a.At, b.At) })
	clock.setAt(history[0].At)
	m := startBenchNode(b, b.TempDir(), clock.now)
	defer m.Close()
	ctx := context.Background()
	if err := m.Node.WaitLeader(ctx); err != nil {
		b.Fatal(err)
	}
	submit := func(k domain.Kind, actor string, p domain.Payload) {
		cmd, err := m.Node.NewCommand(k, actor)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Payload = p
		if res, err := m.Node.Submit(ctx, cmd); err != nil || res.Error != nil {
			b.Fatalf("%s: %v %v", k, err, res.Error)
		}
	}
	start := time.Now()
	for _, h := range history {
		clock.setAt(h.At)
		submit(h.Kind, h.Actor, h.Payload)
	}
	clock.set(domain.NewDate(year, time.January, 5), 9)
	out, code := userCLI(b, m, "add", "--username", "treasurer", "--name", "Bench Treasurer", "--role", "treasurer")
	if code != 0 {
		b.Fatalf("user add: %s", out)
	}
	temp, password := tempPassword(b, out), "a long bench password"
	c := newStaffClient(b, m)
	c.login("treasurer", temp)
	c.get("/staff/password")
	if p := c.post("/staff/password", url.Values{"current": {temp}, "new": {password}, "again": {password}}); p.status != http.StatusSeeOther {
		b.Fatalf("password change: %d", p.status)
	}
	for from := 0; from < bills; from += domain.MaxParcelsPerCommand {
		roll := &domain.ParcelRoll{Source: fmt.Sprintf("roll-%d.csv", from)}
		for i := from; i < min(bills, from+domain.MaxParcelsPerCommand); i++ {
			roll.Parcels = append(roll.Parcels, scaleParcel(i))
		}
		submit(domain.KindParcelRoll, "clerk", roll)
	}
	billed := domain.NewDate(year, time.March, 1)
	clock.set(billed, 9)
	var made []domain.NewBill
	for from := 0; from < bills; from += scaleBillsPerFile {
		cmd, err := m.Node.NewCommand(domain.KindCreateBills, "clerk")
		if err != nil {
			b.Fatal(err)
		}
		var file []domain.NewBill
		for i := from; i < min(bills, from+scaleBillsPerFile); i++ {
			nb := scaleBill(i, year, 2)
			nb.ID, nb.Line = staff.BillID(&cmd, len(file)+1), len(file)+2
			file = append(file, nb)
		}
		cmd.Payload = &domain.CreateBills{Bills: file, Source: fmt.Sprintf("bills-%d.csv", from)}
		if res, err := m.Node.Submit(ctx, cmd); err != nil || res.Error != nil {
			b.Fatalf("bills %d: %v %v", from, err, res.Error)
		}
		made = append(made, file...)
	}
	// March 20, before the bills are due: a quarter of them partly paid,
	// an eighth in full.
	clock.set(domain.NewDate(year, time.March, 20), 10)
	var pays []domain.PayBill
	for i, nb := range made {
		switch {
		case i%8 == 0:
			pays = append(pays, domain.PayBill{BillID: nb.ID, Amount: nb.Principal, Tender: domain.Card, Reference: fmt.Sprintf("F%07d", i), Payer: "Bench"})
		case i%4 == 1:
			pays = append(pays, domain.PayBill{BillID: nb.ID, Amount: domain.Cents(nb.Principal.Cents() / 2), Tender: domain.Card, Reference: fmt.Sprintf("H%07d", i), Payer: "Bench"})
		}
	}
	scalePay(b, m, pays)
	b.Logf("built %d parcels and bills, %d payments, in %s", len(made), len(pays), time.Since(start).Round(time.Second))

	// Sessions follow the node's clock: sign in again after moving it.
	signIn := func() {
		c = newStaffClient(b, m)
		if p := c.login("treasurer", password); p.status != http.StatusSeeOther {
			b.Fatalf("sign-in: %d", p.status)
		}
	}
	page := func(name, path string) {
		var times []time.Duration
		var alloc uint64
		for range 5 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			if p := c.get(path); p.status != http.StatusOK {
				b.Fatalf("%s: %d", path, p.status)
			}
			times = append(times, time.Since(t0))
			runtime.ReadMemStats(&after)
			alloc = after.TotalAlloc - before.TotalAlloc
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, name+"-ms")
		b.ReportMetric(float64(alloc)/(1<<20), name+"-MiB")
		b.Logf("%s %s: median %s (of %s), %.1f MiB allocated", name, path, times[len(times)/2].Round(time.Millisecond), times, float64(alloc)/(1<<20))
	}
	post := func(step string) {
		p := c.get(fmt.Sprintf("/staff/november?year=%d", year))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		p = c.post("/staff/november", url.Values{"year": {strconv.Itoa(year)}, "step": {step}})
		confirm := time.Since(t0)
		count := p.doc.Find(`input[name="count"]`).AttrOr("value", "")
		total := p.doc.Find(`input[name="total"]`).AttrOr("value", "")
		if p.status != http.StatusOK || count == "" {
			b.Fatalf("%s confirm page: %d", step, p.status)
		}
		t0 = time.Now()
		if p := c.post("/staff/november", url.Values{"year": {strconv.Itoa(year)}, "step": {step}, "confirm": {"yes"}, "count": {count}, "total": {total}}); p.status != http.StatusSeeOther {
			b.Fatalf("%s posted: %d %s", step, p.status, p.doc.Text())
		}
		posted := time.Since(t0)
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(confirm.Milliseconds()), step+"-confirm-ms")
		b.ReportMetric(posted.Seconds(), step+"-posted-s")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), step+"-MiB")
		b.Logf("%s: %s lines, %s; confirm page %s, posted in %s", step, count, total, confirm.Round(time.Millisecond), posted.Round(time.Millisecond))
	}

	// November 3: the penalties are due, the roll not yet.
	clock.set(domain.NewDate(year, time.November, 3), 10)
	signIn()
	page("preview", fmt.Sprintf("/staff/november?year=%d", year))
	page("start", "/staff/")
	post("penalties")
	// November 5: a twentieth of the bills take a payment after the
	// penalty day, which the certification counts.
	clock.set(domain.NewDate(year, time.November, 5), 10)
	pays = pays[:0]
	for i, nb := range made {
		if i%20 == 3 {
			pays = append(pays, domain.PayBill{BillID: nb.ID, Amount: domain.Cents(1000), Tender: domain.Card, Reference: fmt.Sprintf("N%07d", i), Payer: "Bench"})
		}
	}
	scalePay(b, m, pays)
	// November 16: the roll is certified.
	clock.set(domain.NewDate(year, time.November, 16), 10)
	signIn()
	page("roll-preview", fmt.Sprintf("/staff/november?year=%d", year))
	post("certify")
}
