package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/villagehall/appliance/domain"
)

// The memory budget's ledger (the budget is stated for 20,000 parcels; one
// demo seed, the only command that makes parcels, holds at most about 5,000),
// and 100,000 bills imported as 100 CSV files of 1,000 through the clerk's
// import page.
const (
	budgetParcels = 5_000
	budgetImports = 100
	budgetPerFile = 1_000
)

// The year of journal on that ledger, and the serving node's load. A
// year at a village of this size is about 20,000 payments (5,000
// accounts paying quarterly); two clerks take them at two windows at
// once, each from their own session, in drawers of a day's payments (250
// business days, 80 a day). One clerk alone took 186 s for the year on
// the development VM, two 69–84 s. Serving, a
// resident reads account and bill pages at the kiosk back to back while
// one clerk takes five payments a second.
const (
	budgetPayments  = 20_000
	budgetPerDrawer = 80
	budgetClerks    = 2
	servingFor      = 30 * time.Second
	servingEvery    = 200 * time.Millisecond
)

// BenchmarkMemoryBudget measures the memory and start-up budget of one
// node, reported and never asserted. The node is the real binary in its
// own process (with this process's GOMEMLIMIT, which `make bench-memory`
// sets to the Pi's and then leaves unset), measured from outside through
// /proc:
//
//   - peak-RSS-MiB: the node's peak resident memory (VmHWM) while a clerk
//     imports 100,000 bills as 100 CSV files of 1,000 through the import
//     page over the staff HTTPS listener, with a resident reading accounts
//     at the kiosk all the while; peak-anon-MiB and peak-file-MiB split
//     it (sampled every 20 ms) into anonymous memory (the Go heap) and
//     file pages (the executable, Badger's memory-mapped tables and
//     memtable logs, which the kernel can drop under pressure), the file
//     pages at their largest split by what maps them (file-exe-MiB,
//     file-sst-MiB, file-mem-MiB, from /proc/PID/smaps); steady-RSS-MiB is
//     its resident memory two seconds after the last import;
//   - cold-ready-s and cold-peak-RSS-MiB: the node started again on the
//     data folder those imports left, until /readyz answers 200, and its
//     peak RSS by then;
//   - journal-s: that node then takes a year of payments at the window
//     (budgetPayments, in drawers of a day's), and the time they took;
//   - the serving node, whose peak the budget is about: the node started
//     again on the ledger now holding the bills and the year of journal,
//     ready after serving-ready-s, then for servingFor a resident reading
//     account and bill pages at the kiosk back to back while a clerk takes
//     a payment every servingEvery (serving-reads and serving-payments done).
//     serving-peak-RSS-MiB is its VmHWM over the cold start and the
//     serving (serving-ready-peak-RSS-MiB its VmHWM at ready, the cold
//     start's share); serving-anon-MiB and serving-file-MiB the largest
//     sampled while serving, and serving-file-{exe,sst,mem}-MiB the file
//     pages at their largest; serving-first-post-s the time from ready
//     until the clerk, signed in, has the drawer open (/readyz answers
//     before the node posts; docs/benchmarks.md). It is a single-node
//     cluster: its payments commit through its own raft log, replicated
//     to no follower.
func BenchmarkMemoryBudget(b *testing.B) {
	for b.Loop() {
		memoryBudget(b)
	}
}

// BenchmarkImportHeapProfile runs the same imports against a node inside
// the benchmark's process and writes the heap profile taken after the
// 50th import to MEMPROFILE (go tool pprof -sample_index=inuse_space
// FILE): what holds the memory during imports. It reports the Go heap's
// peak (heap-peak-MiB, from runtime/metrics sampled every 20 ms).
func BenchmarkImportHeapProfile(b *testing.B) {
	for b.Loop() {
		l := budgetLedger(b)
		m := l.start(b)
		peak := watchHeap(b)
		importBills(b, l, m.Addr(), "https://"+m.StaffAddr(), func(int) {})
		heap := peak()
		m.Close()
		b.ReportMetric(mib(int64(heap)), "heap-peak-MiB")
	}
}

// BenchmarkServingHeapProfile builds the serving node's ledger as
// BenchmarkMemoryBudget does (the imports, then the year of journal) with
// a node inside the benchmark's process, starts a node on it again and
// loads it as the serving phase does, and writes the heap profile taken
// when the heap was largest since that start to MEMPROFILE: what holds
// the serving node's memory. It reports that peak (serving-heap-peak-MiB)
// and the time to ready (serving-ready-s, from Run to a leader).
func BenchmarkServingHeapProfile(b *testing.B) {
	for b.Loop() {
		l := budgetLedger(b)
		m := l.start(b)
		_, _, bills := importBills(b, l, m.Addr(), "https://"+m.StaffAddr(), func(int) {})
		takeYear(b, l, "https://"+m.StaffAddr(), bills)
		m.Close()
		peak := watchHeap(b)
		start := time.Now()
		m = l.start(b)
		ready := time.Since(start)
		clerk := &windowClerk{s: l.signIn(b, "https://"+m.StaffAddr(), "clerk1")}
		if err := clerk.open(); err != nil {
			b.Fatal(err)
		}
		reads, payments, _, _ := serveLoad(b, clerk, m.Addr(), bills)
		heap := peak()
		m.Close()
		b.ReportMetric(mib(int64(heap)), "serving-heap-peak-MiB")
		b.ReportMetric(ready.Seconds(), "serving-ready-s")
		b.Logf("serving in process: ready in %v, %d kiosk reads and %d payments, heap at most %.0f MiB", ready.Round(time.Millisecond), reads, payments, mib(int64(heap)))
	}
}

// watchHeap samples this process's Go heap (its objects and its unused
// spans) every 20 ms and, with MEMPROFILE set, writes the heap profile
// there each time the heap has grown 8 MiB past the last one written.
// The function it returns stops the sampling and answers the largest
// heap seen.
func watchHeap(b *testing.B) func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var profiled uint64
		sample := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			rtmetrics.Read(sample)
			if v := sample[0].Value.Uint64() + sample[1].Value.Uint64(); v > peak.Load() {
				if path := os.Getenv("MEMPROFILE"); path != "" && v > profiled+8<<20 {
					writeHeapProfile(b, path)
					profiled = v
				}
				peak.Store(v)
			}
		}
	})
	return func() uint64 { close(stop); wg.Wait(); return peak.Load() }
}

// budgetData is a data folder holding the budget's parcels and a clerk who
// can sign in.
type budgetData struct {
	dir, password string
	pool          *x509.CertPool
}

// budgetLedger makes a data folder with 5,000 parcels, an account each and
// a clerk (the most one command can load: parcels come only with the demo
// seed, which is applied in one transaction).
func budgetLedger(b *testing.B) budgetData {
	l := budgetData{dir: b.TempDir(), password: "a long budget password"}
	m := l.start(b)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seed := &domain.SeedDemo{}
	for i := range budgetParcels {
		pc := fmt.Sprintf("0601-%03d-%04d", 100+i/1000, i%1000)
		seed.Parcels = append(seed.Parcels, domain.Parcel{ID: pc, Address: fmt.Sprintf("%d Budget St", i+1), County: domain.Dane, Owner: "Budget"})
		seed.Accounts = append(seed.Accounts, domain.Account{Number: fmt.Sprintf("%06d", 200000+i), Name: "Budget", Parcels: []string{pc}})
	}
	cmd, err := m.Node.NewCommand(domain.KindSeedDemo, "bench")
	if err != nil {
		b.Fatal(err)
	}
	cmd.Payload = seed
	if res, err := m.Node.Submit(ctx, cmd); err != nil || res.Error != nil || !strings.HasPrefix(res.Note, "loaded") {
		b.Fatalf("seed: %v %v %q", err, res.Error, res.Note)
	}
	for k := range budgetClerks {
		user := fmt.Sprintf("clerk%d", k+1)
		out, code := userCLI(b, m, "add", "--username", user, "--name", "Pat Clerk", "--role", "clerk")
		if code != 0 {
			b.Fatalf("user add: %s", out)
		}
		temp := tempPassword(b, out)
		c := newStaffClient(b, m)
		c.login(user, temp)
		c.get("/staff/password")
		if p := c.post("/staff/password", url.Values{"current": {temp}, "new": {l.password}, "again": {l.password}}); p.status != http.StatusSeeOther {
			b.Fatalf("password change: %d", p.status)
		}
	}
	l.pool = m.Identity().CAPool()
	return l
}

// start runs a node on the folder inside this process.
func (l budgetData) start(b *testing.B) *Main {
	m := NewMain()
	m.Config.DataDir = l.dir
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Now = func() time.Time { return villageNow }
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Node.WaitLeader(ctx); err != nil {
		b.Fatal(err)
	}
	return m
}

// signIn signs a clerk in on the staff listener at staffBase.
func (l budgetData) signIn(b *testing.B, staffBase, user string) *staffClient {
	jar, _ := cookiejar.New(nil)
	c := &staffClient{t: b, base: staffBase, c: &http.Client{Jar: jar,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: l.pool, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if p := c.login(user, l.password); p.status != http.StatusSeeOther {
		b.Fatalf("sign-in of %s: %d", user, p.status)
	}
	return c
}

// budgetBill is an imported bill as the import page listed it.
type budgetBill struct{ id, amount string }

// importBills signs the clerk in on the staff listener and imports the
// budget's bills through the import page while a resident reads accounts
// at the kiosk; after calls back after each file. It returns the bills
// the import pages listed, in import order.
func importBills(b *testing.B, l budgetData, kioskAddr, staffBase string, after func(file int)) (time.Duration, int64, []budgetBill) {
	c := l.signIn(b, staffBase, "clerk1")
	stop := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			resp, err := http.Get(fmt.Sprintf("http://%s/accounts/%06d", kioskAddr, 200000+i%budgetParcels))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				reads.Add(1)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	today := domain.DateOf(villageNow)
	bills := make([]budgetBill, 0, budgetImports*budgetPerFile)
	start := time.Now()
	for f := range budgetImports {
		var csv strings.Builder
		csv.WriteString("account,parcel,description,billed_on,amount\n")
		for i := range budgetPerFile {
			n := f*budgetPerFile + i
			a := n % budgetParcels
			fmt.Fprintf(&csv, "%06d,0601-%03d-%04d,Water and sewer,%s,%d.%02d\n", 200000+a, 100+a/1000, a%1000, today.AddDays(-(n % 45)), 50+n%400, n%100)
		}
		c.get("/staff/bills/import")
		p := c.post("/staff/bills/import", url.Values{"csv": {csv.String()}, "name": {fmt.Sprintf("import-%03d.csv", f)}, "mode": {"import"}})
		if done := p.text("import-done"); p.status != http.StatusOK || !strings.HasPrefix(done, fmt.Sprintf("Imported %d bills", budgetPerFile)) {
			b.Fatalf("import %d: status %d %q %s", f, p.status, done, p.text("import-errors"))
		}
		p.doc.Find(`[data-testid="import-rows"] tbody tr`).Each(func(_ int, row *goquery.Selection) {
			cells := row.Find("td")
			bills = append(bills, budgetBill{id: strings.TrimSpace(cells.Eq(1).Text()), amount: strings.TrimSpace(cells.Eq(6).Text())})
		})
		after(f)
	}
	elapsed := time.Since(start)
	if len(bills) != budgetImports*budgetPerFile {
		b.Fatalf("the import pages listed %d bills, want %d", len(bills), budgetImports*budgetPerFile)
	}
	return elapsed, reads.Load(), bills
}

func memoryBudget(b *testing.B) {
	l := budgetLedger(b)
	bin := buildAppliance(b)
	node := startBudgetNode(b, bin, l.dir)
	stop := make(chan struct{})
	peaks := watchRSS(b, node.cmd.Process.Pid, bin, stop)
	importTime, reads, bills := importBills(b, l, node.http, "https://"+node.https, func(int) {})
	close(stop)
	peakAnon, peakFile, files := peaks()
	during := rssOf(b, node.cmd.Process.Pid)
	time.Sleep(2 * time.Second)
	steady := rssOf(b, node.cmd.Process.Pid)
	node.stop(b)

	cold := startBudgetNode(b, bin, l.dir)
	coldMem := rssOf(b, cold.cmd.Process.Pid)
	// The cold node goes on to take the year's payments.
	journalTime := takeYear(b, l, "https://"+cold.https, bills)
	cold.stop(b)

	serving := startBudgetNode(b, bin, l.dir)
	sv := serve(b, l, serving, bin, bills)
	serving.stop(b)

	b.ReportMetric(mib(during.peak), "peak-RSS-MiB")
	b.ReportMetric(mib(peakAnon), "peak-anon-MiB")
	b.ReportMetric(mib(peakFile), "peak-file-MiB")
	b.ReportMetric(mib(files.exe), "file-exe-MiB")
	b.ReportMetric(mib(files.sst), "file-sst-MiB")
	b.ReportMetric(mib(files.mem), "file-mem-MiB")
	b.ReportMetric(mib(steady.rss), "steady-RSS-MiB")
	b.ReportMetric(importTime.Seconds(), "import-s")
	b.ReportMetric(cold.ready.Seconds(), "cold-ready-s")
	b.ReportMetric(mib(coldMem.peak), "cold-peak-RSS-MiB")
	b.ReportMetric(journalTime.Seconds(), "journal-s")
	b.ReportMetric(serving.ready.Seconds(), "serving-ready-s")
	b.ReportMetric(mib(sv.mem.peak), "serving-peak-RSS-MiB")
	b.ReportMetric(mib(sv.ready.peak), "serving-ready-peak-RSS-MiB")
	b.ReportMetric(mib(sv.anon), "serving-anon-MiB")
	b.ReportMetric(mib(sv.file), "serving-file-MiB")
	b.ReportMetric(mib(sv.files.exe), "serving-file-exe-MiB")
	b.ReportMetric(mib(sv.files.sst), "serving-file-sst-MiB")
	b.ReportMetric(mib(sv.files.mem), "serving-file-mem-MiB")
	b.ReportMetric(float64(sv.reads), "serving-reads")
	b.ReportMetric(float64(sv.payments), "serving-payments")
	b.ReportMetric(float64(sv.provisional), "serving-provisional")
	b.ReportMetric(sv.firstPost.Seconds(), "serving-first-post-s")
	b.Logf("GOMEMLIMIT=%q: %d bills in %d imports in %v (%d kiosk reads meanwhile): node's peak RSS %.0f MiB (anonymous at most %.0f, file-backed at most %.0f: executable %.0f, tables %.0f, memtable logs %.0f), %.0f MiB after; cold start to ready %v, peak RSS %.0f MiB",
		os.Getenv("GOMEMLIMIT"), budgetImports*budgetPerFile, budgetImports, importTime.Round(time.Millisecond), reads, mib(during.peak), mib(peakAnon), mib(peakFile), mib(files.exe), mib(files.sst), mib(files.mem), mib(steady.rss), cold.ready.Round(time.Millisecond), mib(coldMem.peak))
	b.Logf("a year of journal: %d window payments in drawers of %d by %d clerk(s) in %v; restarted on that ledger, ready in %v at a peak RSS of %.0f MiB, the clerk's first command posted %v after ready; then %v serving %d kiosk reads and %d payments (%d provisional): peak RSS %.0f MiB since start (anonymous at most %.0f, file-backed at most %.0f: executable %.0f, tables %.0f, memtable logs %.0f), %.0f MiB at the end",
		budgetPayments, budgetPerDrawer, budgetClerks, journalTime.Round(time.Millisecond), serving.ready.Round(time.Millisecond), mib(sv.ready.peak), sv.firstPost.Round(time.Millisecond), sv.took.Round(time.Millisecond), sv.reads, sv.payments, sv.provisional, mib(sv.mem.peak), mib(sv.anon), mib(sv.file), mib(sv.files.exe), mib(sv.files.sst), mib(sv.files.mem), mib(sv.mem.rss))
}

// takeYear gives the ledger a year of journal: budgetPayments window
// payments, every fifth imported bill paid its principal in cash, by
// budgetClerks clerks at once, each opening a drawer, taking a day's
// payments and closing it counted.
func takeYear(b *testing.B, l budgetData, staffBase string, bills []budgetBill) time.Duration {
	clerks := make([]*windowClerk, budgetClerks)
	for k := range clerks {
		clerks[k] = &windowClerk{s: l.signIn(b, staffBase, fmt.Sprintf("clerk%d", k+1))}
	}
	start := time.Now()
	errs := make([]error, len(clerks))
	var wg sync.WaitGroup
	for k, c := range clerks {
		wg.Go(func() {
			for i := k; i < budgetPayments; i += len(clerks) {
				if c.drawer == "" {
					if errs[k] = c.open(); errs[k] != nil {
						return
					}
				}
				if errs[k] = c.pay(bills[5*i]); errs[k] != nil {
					return
				}
				if c.taken == budgetPerDrawer {
					if errs[k] = c.close(); errs[k] != nil {
						return
					}
				}
			}
			if c.drawer != "" {
				errs[k] = c.close()
			}
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			b.Fatalf("clerk%d: %v", k+1, err)
		}
	}
	return time.Since(start)
}

// serving is what the serving phase measured.
type serving struct {
	ready           memStat // at ready: ready.peak is the cold start's peak
	mem             memStat // at the end: mem.peak is VmHWM since start
	anon, file      int64   // the largest sampled while serving
	files           fileRSS // the file pages when largest
	reads, payments int
	provisional     int           // of the payments, answered provisionally
	firstPost       time.Duration // from ready to the clerk signed in with the drawer open
	took            time.Duration
}

// serve loads the restarted node (serveLoad) while watchRSS samples it.
func serve(b *testing.B, l budgetData, n *budgetNode, bin string, bills []budgetBill) serving {
	readyAt := time.Now()
	sv := serving{ready: rssOf(b, n.cmd.Process.Pid)}
	stop := make(chan struct{})
	peaks := watchRSS(b, n.cmd.Process.Pid, bin, stop)
	// On a failure, the sampling stops before the node is killed.
	b.Cleanup(func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		peaks()
	})
	clerk := &windowClerk{s: l.signIn(b, "https://"+n.https, "clerk1")}
	if err := clerk.open(); err != nil {
		b.Fatal(err)
	}
	sv.firstPost = time.Since(readyAt)
	sv.reads, sv.payments, sv.provisional, sv.took = serveLoad(b, clerk, n.http, bills)
	close(stop)
	sv.anon, sv.file, sv.files = peaks()
	sv.mem = rssOf(b, n.cmd.Process.Pid)
	return sv
}

// serveLoad is the serving node's load for servingFor: a resident
// reading account and bill pages at the kiosk back to back, one request
// at a time, and a clerk with an open drawer taking a payment every
// servingEvery (bills the year left unpaid); it closes the drawer after.
// A payment answered provisionally counts in payments and provisional.
func serveLoad(b *testing.B, clerk *windowClerk, kioskAddr string, bills []budgetBill) (reads, payments, provisional int, took time.Duration) {
	start := time.Now()
	done := make(chan struct{})
	var readErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		kiosk := &http.Client{}
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			path := fmt.Sprintf("/accounts/%06d", 200000+(i/2)%budgetParcels)
			if i%2 == 1 {
				path = "/bills/" + bills[(i*7919)%len(bills)].id
			}
			resp, err := kiosk.Get("http://" + kioskAddr + path)
			if err != nil {
				readErr = err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				readErr = fmt.Errorf("GET %s: %d", path, resp.StatusCode)
				return
			}
			reads++
		}
	})
	tick := time.NewTicker(servingEvery)
	for time.Since(start) < servingFor {
		<-tick.C
		// Bills 1, 6, 11, …: the year paid 0, 5, 10, ….
		err := clerk.pay(bills[5*payments+1])
		if errors.Is(err, errProvisional) {
			provisional++
		} else if err != nil {
			close(done)
			wg.Wait()
			b.Fatal(err)
		}
		payments++
	}
	tick.Stop()
	close(done)
	wg.Wait()
	took = time.Since(start)
	if readErr != nil {
		b.Fatalf("kiosk read: %v", readErr)
	}
	if err := clerk.close(); err != nil {
		b.Fatal(err)
	}
	return reads, payments, provisional, took
}

// windowClerk is a clerk at the window with a drawer. Unlike staffClient's
// its methods return their errors, so that several clerks can work at
// once, each in a goroutine of its own.
type windowClerk struct {
	s      *staffClient
	drawer string
	cash   domain.Money // taken into the open drawer
	taken  int
}

const budgetFloat = "100.00"

// open opens a drawer with budgetFloat and reads its id off the window
// page.
func (w *windowClerk) open() error {
	if _, err := w.try(http.MethodGet, "/staff/window", nil); err != nil {
		return err
	}
	p, err := w.try(http.MethodPost, "/staff/window/open", url.Values{"float": {budgetFloat}})
	if err != nil {
		return err
	}
	// A provisional answer (503: recorded, not yet confirmed) posts later:
	// the clerk looks at the window page until the drawer shows open, as
	// the message asks.
	provisional := p.status == http.StatusServiceUnavailable && strings.Contains(p.text("window-error"), "no quorum")
	if p.status != http.StatusSeeOther && !provisional {
		return fmt.Errorf("open drawer: %d %s", p.status, p.text("window-error"))
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if p, err = w.try(http.MethodGet, "/staff/window", nil); err != nil {
			return err
		}
		if w.drawer = p.text("drawer-id"); w.drawer != "" {
			break
		}
		if time.Since(start) > time.Minute {
			return fmt.Errorf("the drawer opened provisionally did not post within a minute")
		}
	}
	w.cash, w.taken = domain.Cents(0), 0
	return nil
}

// errProvisional is a payment the node recorded but the cluster had not
// confirmed within the node's wait (a 503 naming "no quorum"); it posts
// later.
var errProvisional = errors.New("provisional")

// pay takes a bill's principal in cash, exactly tendered.
func (w *windowClerk) pay(bill budgetBill) error {
	p, err := w.try(http.MethodPost, "/staff/window/pay", url.Values{"bill": {bill.id}, "amount": {bill.amount}, "tender": {"cash"}, "tendered": {bill.amount}, "confirm": {"yes"}})
	if err != nil {
		return err
	}
	if p.status == http.StatusServiceUnavailable && strings.Contains(p.text("window-error"), "no quorum") {
		w.cash = w.cash.Add(domain.MustMoney(bill.amount))
		w.taken++
		return fmt.Errorf("pay %s: %w: %s", bill.id, errProvisional, p.text("window-error"))
	}
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/staff/receipts/") {
		return fmt.Errorf("pay %s %s: %d → %q %s", bill.id, bill.amount, p.status, p.location, p.text("window-error"))
	}
	w.cash = w.cash.Add(domain.MustMoney(bill.amount))
	w.taken++
	return nil
}

// close counts the drawer exactly: the float and the cash taken.
func (w *windowClerk) close() error {
	if _, err := w.try(http.MethodGet, "/staff/window/close", nil); err != nil {
		return err
	}
	cash := w.cash.Add(domain.MustMoney(budgetFloat)).String()
	p, err := w.try(http.MethodPost, "/staff/window/close", url.Values{"drawer": {w.drawer}, "cash": {cash}, "checks": {"0"}, "check_count": {"0"}})
	if err != nil {
		return err
	}
	if p.status != http.StatusSeeOther {
		return fmt.Errorf("close drawer %s: %d %s", w.drawer, p.status, p.text("close-error"))
	}
	w.drawer = ""
	return nil
}

// try is staffClient.get and .post returning errors instead of failing
// the benchmark.
func (w *windowClerk) try(method, path string, form url.Values) (staffPage, error) {
	var body io.Reader
	if form != nil {
		form.Set("csrf", w.s.csrf)
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, w.s.base+path, body)
	if err != nil {
		return staffPage{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := w.s.c.Do(req)
	if err != nil {
		return staffPage{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		return staffPage{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if tok := doc.Find(`input[name="csrf"]`).First().AttrOr("value", ""); tok != "" {
		w.s.csrf = tok
	}
	return staffPage{resp.StatusCode, resp.Header.Get("Location"), doc}, nil
}

// budgetNode is the appliance binary serving a data folder.
type budgetNode struct {
	cmd         *exec.Cmd
	http, https string
	ready       time.Duration
	log         *strings.Builder
}

// startBudgetNode starts the binary on dir and waits until /readyz says
// it takes payments.
func startBudgetNode(b *testing.B, bin, dir string) *budgetNode {
	n := &budgetNode{http: freeAddr(b), https: freeAddr(b), log: &strings.Builder{}}
	n.cmd = exec.Command(bin, "serve", "--data", dir, "--http", n.http, "--https", n.https)
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	start := time.Now()
	if err := n.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if n.cmd.ProcessState == nil {
			n.cmd.Process.Kill()
			n.cmd.Wait()
		}
	})
	for time.Since(start) < time.Minute {
		resp, err := http.Get("http://" + n.http + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				n.ready = time.Since(start)
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("the node was not ready within a minute:\n%s", n.log)
	return nil
}

func (n *budgetNode) stop(b *testing.B) {
	n.cmd.Process.Signal(syscall.SIGTERM)
	if err := n.cmd.Wait(); err != nil {
		b.Fatalf("the node did not stop cleanly: %v\n%s", err, n.log)
	}
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// memStat is a process's resident memory from /proc/PID/status, in
// bytes: now (VmRSS, split into anonymous memory, RssAnon, which is the
// Go heap and stacks, and file pages, RssFile, which are mostly Badger's
// memory-mapped tables and value log) and its peak (VmHWM).
type memStat struct{ rss, anon, file, peak int64 }

func rssOf(b *testing.B, pid int) memStat {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var m memStat
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, _ := strconv.ParseInt(fields[0], 10, 64)
		switch name {
		case "VmRSS":
			m.rss = kb << 10
		case "RssAnon":
			m.anon = kb << 10
		case "RssFile":
			m.file = kb << 10
		case "VmHWM":
			m.peak = kb << 10
		}
	}
	if m.rss == 0 || m.peak == 0 {
		b.Fatalf("no VmRSS or VmHWM in /proc/%d/status", pid)
	}
	return m
}

// watchRSS samples a process's memory every 20 ms until stop is closed
// and returns the largest anonymous and file-backed resident sizes seen,
// and what mapped the file pages when they were largest (exe is the
// process's executable).
func watchRSS(b *testing.B, pid int, exe string, stop <-chan struct{}) func() (anon, file int64, files fileRSS) {
	var anon, file int64
	var files fileRSS
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m := rssOf(b, pid)
			if m.file > file {
				if f, err := fileRSSOf(pid, exe); err == nil {
					files = f
				}
			}
			anon, file = max(anon, m.anon), max(file, m.file)
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() (int64, int64, fileRSS) { <-done; return anon, file, files }
}

// fileRSS is a process's resident file pages, in bytes, by what maps
// them: its executable, Badger's tables (.sst) and its memtables'
// write-ahead logs (.mem).
type fileRSS struct{ exe, sst, mem int64 }

// fileRSSOf sums the Rss lines of /proc/PID/smaps by the file of each
// mapping.
func fileRSSOf(pid int, exe string) (fileRSS, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return fileRSS{}, err
	}
	var f fileRSS
	var into *int64
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			// A mapping's header: address range, perms, offset, device, inode[, path].
			into = nil
			if len(fields) >= 6 {
				switch path := fields[5]; {
				case path == exe:
					into = &f.exe
				case strings.HasSuffix(path, ".sst"):
					into = &f.sst
				case strings.HasSuffix(path, ".mem"):
					into = &f.mem
				}
			}
			continue
		}
		if into != nil && len(fields) == 3 && fields[0] == "Rss:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			*into += kb << 10
		}
	}
	return f, nil
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
