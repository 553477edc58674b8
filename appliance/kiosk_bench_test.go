package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// Size of the kiosk benchmark's ledger and how many requests of each kind
// it times: p50 and p99 over 10,000 requests against 100,000 bills, a
// village's bills over several years.
const (
	benchBills    = 100_000
	benchAccounts = 1_000
	benchRequests = 10_000
)

// BenchmarkKioskServerTime times, in the server (the handler, without the
// network), the bill page and the pay POST (the amount form, which checks
// the amount against today's §5.10 figures and leads to the confirmation)
// on a real node holding 100,000 bills, and a static page (the stylesheet)
// from the same server for comparison. It reports p50 and p99 of each over
// 10,000 requests and their ratio to the static page's; nothing is
// asserted. `make bench` runs it.
func BenchmarkKioskServerTime(b *testing.B) {
	m, h := benchMain(b)
	defer m.Close()
	csrf, cookies := benchSession(b, h)
	rng := rand.New(rand.NewPCG(6, 6))
	var bill, pay, static []time.Duration
	for b.Loop() {
		bill, pay, static = bill[:0], pay[:0], static[:0]
		for range benchRequests {
			id := fmt.Sprintf("B-%06d", rng.IntN(benchBills))
			bill = append(bill, timeRequest(b, h, httptest.NewRequest(http.MethodGet, "/bills/"+id, nil), cookies, http.StatusOK))

			form := url.Values{"csrf": {csrf}, "amount": {"1.00"}}
			req := httptest.NewRequest(http.MethodPost, "/bills/"+id+"/pay", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			pay = append(pay, timeRequest(b, h, req, cookies, http.StatusSeeOther))

			static = append(static, timeRequest(b, h, httptest.NewRequest(http.MethodGet, "/assets/kiosk.css", nil), cookies, http.StatusOK))
		}
	}
	sp50, sp99 := percentiles(static)
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"bill", bill}, {"pay", pay}, {"static", static}} {
		p50, p99 := percentiles(s.d)
		b.ReportMetric(float64(p50.Microseconds()), s.name+"-p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), s.name+"-p99-µs")
		if s.name != "static" {
			b.ReportMetric(float64(p50)/float64(sp50), s.name+"/static-p50")
			b.ReportMetric(float64(p99)/float64(sp99), s.name+"/static-p99")
		}
		b.Logf("%-6s p50 %8v  p99 %8v  over %d requests, %d bills", s.name, p50, p99, len(s.d), benchBills)
	}
}

func timeRequest(b *testing.B, h http.Handler, req *http.Request, cookies []*http.Cookie, want int) time.Duration {
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	d := time.Since(start)
	if rec.Code != want {
		b.Fatalf("%s %s: status %d, want %d", req.Method, req.URL, rec.Code, want)
	}
	return d
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0, 0
	}
	return s[len(s)*50/100], s[min(len(s)-1, len(s)*99/100)]
}

// benchSession opens the start page for a session cookie and the CSRF
// token that the session's forms carry.
func benchSession(b *testing.B, h http.Handler) (string, []*http.Cookie) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bills/B-000001/pay", nil))
	match := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(rec.Body.String())
	if match == nil {
		b.Fatalf("no CSRF token on the pay form (status %d)", rec.Code)
	}
	return match[1], rec.Result().Cookies()
}

// benchMain starts a node on a fresh data folder and loads 5,000 accounts
// with a parcel each and 100,000 bills billed over the last 45 days (current and past due), through
// the same commands the clerk's office uses.
func benchMain(b *testing.B) (*Main, http.Handler) {
	b.Helper()
	m := NewMain()
	m.Config.DataDir = b.TempDir()
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Terminal = "simulator" // the pay POST is measured against a terminal
	m.Config.Now = func() time.Time { return villageNow }
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := m.Node.WaitLeader(ctx); err != nil {
		b.Fatal(err)
	}
	submit := func(cmd domain.Command) {
		res, err := m.Node.Submit(ctx, cmd)
		if err == nil && res.Error != nil {
			err = res.Error
		}
		if err != nil || res.Index == 0 {
			b.Fatalf("%s: %v (index %d)", cmd.Kind, err, res.Index)
		}
	}
	seed := &domain.SeedDemo{}
	for i := range benchAccounts {
		pc := fmt.Sprintf("0601-%03d-%04d", 100+i/1000, i%1000)
		seed.Parcels = append(seed.Parcels, domain.Parcel{ID: pc, Address: fmt.Sprintf("%d Bench St", i+1), County: domain.Dane, Owner: "Bench"})
		seed.Accounts = append(seed.Accounts, domain.Account{Number: fmt.Sprintf("%06d", 200000+i), Name: "Bench", Parcels: []string{pc}})
	}
	cmd, err := m.Node.NewCommand(domain.KindSeedDemo, "bench")
	if err != nil {
		b.Fatal(err)
	}
	cmd.Payload = seed
	submit(cmd)
	today := domain.DateOf(villageNow)
	for start := 0; start < benchBills; start += domain.MaxBillsPerCommand {
		cb := &domain.CreateBills{Source: "bench"}
		for i := start; i < min(start+domain.MaxBillsPerCommand, benchBills); i++ {
			a := seed.Accounts[i%benchAccounts]
			cb.Bills = append(cb.Bills, domain.NewBill{
				ID: fmt.Sprintf("B-%06d", i), Account: a.Number, Parcel: a.Parcels[0], Description: "Water and sewer",
				// Billed over the last 45 days: current and past due, all payable.
				BilledOn: today.AddDays(-(i % 45)), Principal: domain.Cents(int64(5000 + i%40000)),
			})
		}
		cmd, err := m.Node.NewCommand(domain.KindCreateBills, "bench")
		if err != nil {
			b.Fatal(err)
		}
		cmd.Payload = cb
		submit(cmd)
	}
	return m, m.server.Handler
}
