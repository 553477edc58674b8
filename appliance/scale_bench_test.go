package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/sync/pki"
)

// The five-year ledger of BenchmarkScale, at SCALE=1 (the default):
// 20,000 parcels, a bill on each every roll year for five years (100,000),
// 500,000 payments on the first four years' bills, then 30,000 payments
// through the API. SCALE=0.1 makes everything but the years a tenth.
const (
	scaleParcels     = 20_000
	scaleYears       = 5
	scaleFirstYear   = 2021
	scalePayments    = 500_000
	scaleAPIPayments = 30_000
	scaleAPIClients  = 4
	// scaleBatches is how many bill imports a roll year takes, each billed
	// on the first of its own month (January to October), each its own
	// file of at most domain.MaxBillsPerCommand bills.
	scaleBatches = 10
	// scaleBillsPerFile is how many bills one import takes: the clerk's
	// import page makes one command of a file, and the ledger refuses a
	// command that writes more than about 10,000 records (five a bill).
	scaleBillsPerFile = 1000
	// scaleRequests is how many times each route is timed.
	scaleRequests = 20
	// scaleBuildVersion names how the cached ledger is built: change it
	// when the build changes, so that an old cache is not reused.
	scaleBuildVersion = 3
)

// scaleSize is the ledger of one run, from SCALE.
type scaleSize struct {
	Scale       float64
	Parcels     int
	Payments    int // built in process, on the first Years-1 roll years
	APIPayments int
}

func scaleOf(b *testing.B) scaleSize {
	s := 1.0
	if v := os.Getenv("SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1 {
			b.Fatalf("SCALE=%q: want a number in (0, 1]", v)
		}
		s = f
	}
	round := func(n float64, to int) int { return max(to, int(n)/to*to) }
	return scaleSize{Scale: s, Parcels: round(scaleParcels*s, scaleBatches*10), Payments: round(scalePayments*s, 100), APIPayments: round(scaleAPIPayments*s, 100)}
}

// key names the cached ledger of this size.
func (z scaleSize) key() string {
	return fmt.Sprintf("ledger-v%d-p%d-y%d-n%d", scaleBuildVersion, z.Parcels, scaleYears, z.Payments)
}

// BenchmarkScale measures every staff page and export of the clerk's
// office on five years of books, reported as a table and never asserted
// (`make bench-scale`; docs/benchmarks.md). The ledger's first four roll
// years (the parcels, their bills and the payments on them) are built
// through the product's commands on a one-node cluster inside this
// process and cached under BENCH_SCALE_CACHE (bin/ from the Makefile),
// keyed by its size, so that a second run reuses them. Then the real
// binary serves a copy of that folder with GOMEMLIMIT=64MiB, as the
// systemd unit sets, and is driven over HTTP like the office: the county's
// roll imported again and the fifth year's bills imported through the
// import pages, payments through POST /api/v1/payments from
// scaleAPIClients clients, then every page and export timed
// scaleRequests times. The node's resident memory is sampled from /proc
// throughout, its peak printed per phase.
//
// BENCH_SCALE_ROUTES, a regular expression, times only the routes whose
// names it matches (the November run is taken only when it matches
// "November run"); BENCH_SCALE_BIN serves with that binary instead of one
// built from this tree (an older release, to compare); BENCH_SCALE_CPU, a
// regular expression, takes the node's CPU profile while the routes it
// matches are timed (BENCH_SCALE_PROFILES/scale-cpu-ROUTE.pprof).
func BenchmarkScale(b *testing.B) {
	for b.Loop() {
		runScale(b)
	}
}

func runScale(b *testing.B) {
	z := scaleOf(b)
	cache := os.Getenv("BENCH_SCALE_CACHE")
	if cache == "" {
		cache = b.TempDir()
	}
	ledger := filepath.Join(cache, z.key())
	if _, err := os.Stat(filepath.Join(ledger, "built")); err != nil {
		start := time.Now()
		buildScaleLedger(b, z, ledger)
		fmt.Printf("built the ledger in %v: %s\n", time.Since(start).Round(time.Second), ledger)
	} else {
		fmt.Printf("reusing the ledger built before: %s\n", ledger)
	}
	// The claims, checks and room tax operators are a layer over a copy
	// of the base ledger, cached under a key of their own, so that the
	// base (an hour to build at full size) is reused as it is.
	base := ledger
	ledger = filepath.Join(cache, z.layerKey())
	if _, err := os.Stat(filepath.Join(ledger, "built")); err != nil {
		start := time.Now()
		buildScaleLayer(b, z, base, ledger)
		fmt.Printf("built the layer in %v: %s\n", time.Since(start).Round(time.Second), ledger)
	} else {
		fmt.Printf("reusing the layer built before: %s\n", ledger)
	}
	var built scaleBuilt
	var layer scaleLayered
	raw, err := os.ReadFile(filepath.Join(ledger, "built"))
	if err == nil {
		err = json.Unmarshal(raw, &built)
	}
	if err == nil {
		err = json.Unmarshal(raw, &layer)
	}
	if err != nil {
		b.Fatalf("the cached ledger's summary: %v", err)
	}
	bin := os.Getenv("BENCH_SCALE_BIN")
	if bin == "" {
		bin = buildAppliance(b)
	}
	indexScaleLedger(b, bin, ledger)
	// The node serves a copy: its imports and payments must not change
	// the cached ledger.
	dir := filepath.Join(b.TempDir(), "data")
	var node *scaleNode
	var mem *scaleRSS
	for try := 1; ; try++ {
		if out, err := exec.Command("cp", "-a", filepath.Join(ledger, "data"), dir).CombinedOutput(); err != nil {
			b.Fatalf("copy the ledger: %v %s", err, out)
		}
		node = launchScaleNode(b, bin, dir, "scale-node.log")
		mem = watchScaleRSS(node.cmd.Process.Pid)
		mem.phase("start")
		// A node that rebuilds its indexes (a cache indexed by a release
		// of another index version) takes minutes to be ready.
		node.waitReady(b, 30*time.Minute)
		if !scaleReindexed(node.out.String()) {
			break
		}
		// The cache was indexed by a release whose indexes are of
		// another version than this binary's: the phases would measure
		// the rebuild. Index the cache in place again, then start over.
		mem.stop()
		node.stop(b)
		if try > 1 {
			b.Fatalf("the node rebuilt its indexes at start on a cache indexed in place just before:\n%s", node.out)
		}
		fmt.Println("the node rebuilt its indexes at start: the cache's are of another version; indexing it in place again")
		if err := os.Remove(filepath.Join(ledger, scaleIndexed)); err != nil {
			b.Fatal(err)
		}
		indexScaleLedger(b, bin, ledger)
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	s := &scaleRun{b: b, z: z, built: built, layer: layer, node: node, pool: scaleCAPool(b, dir), mem: mem}
	defer func() { s.node.stop(b) }()
	defer func() { s.mem.stop() }()
	fmt.Printf("the node was ready %v after it started\n", node.ready.Round(time.Millisecond))

	s.mem.phase("imports")
	importTime := s.importFifthYear()
	node.heapProfile("imports")
	s.mem.phase("payments")
	first, last, payTime := s.apiPayments()
	node.heapProfile("payments")
	s.mem.phase("pages")
	routes := s.scaleRoutes()
	only := regexp.MustCompile(os.Getenv("BENCH_SCALE_ROUTES"))
	rows := s.timeRoutes(routes[:len(routes)-1], only)
	if only.MatchString("November run") {
		rows = append(rows, s.novemberRun()...)
	}
	rows = append(rows, s.timeRoutes(routes[len(routes)-1:], only)...)
	node.heapProfile("pages")
	s.mem.phase("")
	restart := s.restart(dir)

	fmt.Printf("\nBenchmarkScale at SCALE=%g: %d parcels, %d bills over %d roll years, %d payments built in process, %d through the API (GOMEMLIMIT=64MiB)\n",
		z.Scale, z.Parcels, z.Parcels*scaleYears, scaleYears, z.Payments, z.APIPayments)
	fmt.Printf("the layer: %d claims on %d's appropriations, each paid by a check; %d room tax operators with their quarterly returns\n", z.Claims(), s.layer.ClaimYear, z.Operators())
	fmt.Printf("the fifth year's roll and %d bills imported through the pages in %v\n", z.Parcels, importTime.Round(time.Millisecond))
	fmt.Printf("payments through POST /api/v1/payments from %d clients: %d in %v; %.0f/s over the first %d, %.0f/s over the last %d (target: the same)\n\n",
		scaleAPIClients, z.APIPayments, payTime.Round(time.Millisecond), first, scaleRateWindow(z), last, scaleRateWindow(z))
	printScaleTable(rows)
	fmt.Println()
	s.mem.print()
	fmt.Printf("\nrestarted on the ledger the run left (every entry since its latest snapshot replayed): ready after %v, peak VmRSS %.0f MiB (anonymous %.0f, .sst pages %.0f, .mem pages %.0f, other files %.0f MiB)\n",
		restart.ready.Round(time.Millisecond), mib(restart.peak.rss), mib(restart.peak.anon), mib(restart.peak.sst), mib(restart.peak.mem), mib(restart.peak.other))
}

// scaleRestart is how a restart of the node went.
type scaleRestart struct {
	ready time.Duration
	peak  scaleMem
}

// restart stops the node and starts it again on the ledger the run
// left, as after a power cut or an upgrade: raft replays every entry
// since its latest snapshot (those of the run's imports and payments,
// unless a snapshot was taken since) before the node is ready.
func (s *scaleRun) restart(dir string) scaleRestart {
	s.mem.stop()
	s.node.stop(s.b)
	s.node = launchScaleNode(s.b, s.node.bin, dir, "scale-restart-node.log")
	mem := watchScaleRSS(s.node.cmd.Process.Pid)
	mem.phase("restart")
	s.node.waitReady(s.b, 10*time.Minute)
	mem.phase("")
	mem.stop()
	s.node.heapProfile("restart")
	return scaleRestart{ready: s.node.ready, peak: mem.peak["restart"]}
}

// scaleBuilt is what the build leaves beside the data folder: what the
// timings ask for by name.
type scaleBuilt struct {
	Token     string   `json:"token"`    // the integrator's API token
	Password  string   `json:"password"` // every staff user's
	Surnames  []string `json:"surnames"`
	Account   string   `json:"account"`  // an account with bills every year
	Bill      string   `json:"bill"`     // a bill of the fourth year with payments
	CardDay   string   `json:"card_day"` // a day of card payments
	Address   string   `json:"address"`  // a parcel's address, to misspell
	FirstYear int      `json:"first_year"`
}

// scaleClock is the build's clock: the node takes commands dated on the
// day the build is at.
type scaleClock struct{ ns atomic.Int64 }

func (c *scaleClock) now() time.Time { return time.Unix(0, c.ns.Load()) }

func (c *scaleClock) set(d domain.Date, hour int) { c.setAt(domain.NewDateTime(d, hour, 0, 0)) }

func (c *scaleClock) setAt(at domain.DateTime) {
	loc, _ := time.LoadLocation(Village)
	t := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, at.Seconds(), 0, loc)
	if t.UnixNano() > c.ns.Load() {
		c.ns.Store(t.UnixNano())
	}
}

var scaleSurnames = []string{"Gutierrez", "Lindqvist", "Oyelaran", "Hefty", "Ramirez", "Duerst", "Schultz", "Natarajan", "Kubly", "Bauer",
	"Engel", "Frey", "Gerber", "Zimmerman", "Nelson", "Olson", "Larson", "Peterson", "Anderson", "Johnson", "Meyer", "Schmidt", "Hoffmann", "Wagner"}
var scaleGiven = []string{"Ana", "Robert", "Karen", "Tom", "Luis", "Marie", "Dale", "Priya", "Jean", "Erik", "Hannah", "Mateo", "Grace", "Ole"}
var scaleStreets = []string{"W Main St", "S Vine St", "Pearl St", "E Church St", "Hale St", "Park St", "River St", "Frederick St", "Union St", "Harrison St",
	"Sugar River Rd", "Community Dr", "Remy Ct", "Mill St", "Bell St", "Pleasant View Dr"}

// scaleParcel is the i-th parcel of the roll.
func scaleParcel(i int) domain.RollParcel {
	county := domain.Dane
	if i%3 == 2 {
		county = domain.Green
	}
	return domain.RollParcel{
		ID:      fmt.Sprintf("0601-%03d-%04d", 200+i/10000, i%10000),
		Address: fmt.Sprintf("%d %s", 100+i/len(scaleStreets), scaleStreets[i%len(scaleStreets)]),
		County:  county,
		Owner:   scaleGiven[i%len(scaleGiven)] + " " + scaleSurnames[(i/7)%len(scaleSurnames)],
		Account: fmt.Sprintf("%06d", 300000+i),
		Line:    i + 2,
	}
}

// scaleBill is parcel i's bill in a roll year's import batch k.
func scaleBill(i, year, k int) domain.NewBill {
	pc := scaleParcel(i)
	cents := 6000 + (i*37+year)%40000
	return domain.NewBill{Account: pc.Account, Parcel: pc.ID, Description: fmt.Sprintf("Water and sewer %d part %d", year, k+1),
		BilledOn: domain.NewDate(year, time.Month(k+1), 1), Principal: domain.Cents(int64(cents))}
}

// buildScaleLedger makes the cached ledger in dir: the demo village's
// history up to January 4 of the first year (its chart, two budgets
// adopted, officials, staff and purchases),
// the staff who sign in, the county's roll, then for each of the first
// four roll years the bills in scaleBatches imports and the payments on
// them, by card, each a command as POST /api/v1/payments gives it, dated
// over the three weeks after each import. It writes dir/built last.
func buildScaleLedger(b *testing.B, z scaleSize, dir string) {
	os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	clock := &scaleClock{}
	// The demo's history (staff, chart, board, two budgets adopted,
	// purchases) as of the first year, each step on its own day.
	history := demoHistory(domain.NewDate(scaleFirstYear, time.January, 4))
	slices.SortStableFunc(history, func(a, b domain.Command) int {
		return cmpDateTime(a.At, b.At)
	})
	clock.setAt(history[0].At)
	m := startBenchNode(b, data, clock.now)
	var closeOnce sync.Once
	closeNode := func() { closeOnce.Do(func() { m.Close() }) }
	defer closeNode()
	ctx := context.Background()
	if err := m.Node.WaitLeader(ctx); err != nil {
		b.Fatal(err)
	}
	built := scaleBuilt{Password: "a long scale password", Surnames: scaleSurnames, FirstYear: scaleFirstYear}
	submit := func(k domain.Kind, actor string, p domain.Payload) domain.Result {
		cmd, err := m.Node.NewCommand(k, actor)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Payload = p
		res, err := m.Node.Submit(ctx, cmd)
		if err != nil || res.Error != nil {
			b.Fatalf("%s: %v %v", k, err, res.Error)
		}
		return res
	}

	for _, h := range history {
		clock.setAt(h.At)
		submit(h.Kind, h.Actor, h.Payload)
	}
	clock.set(domain.NewDate(scaleFirstYear, time.January, 4), 9)

	// The office: a clerk, the treasurer and the auditor sign in with a
	// password; the integrator posts payments with an API token.
	for _, u := range []struct{ name, role string }{{"clerk", "clerk"}, {"treasurer", "treasurer"}, {"auditor", "auditor"}} {
		out, code := userCLI(b, m, "add", "--username", u.name, "--name", "Scale "+u.role, "--role", u.role)
		if code != 0 {
			b.Fatalf("user add: %s", out)
		}
		temp := tempPassword(b, out)
		c := newStaffClient(b, m)
		c.login(u.name, temp)
		c.get("/staff/password")
		if p := c.post("/staff/password", url.Values{"current": {temp}, "new": {built.Password}, "again": {built.Password}}); p.status != http.StatusSeeOther {
			b.Fatalf("password change of %s: %d", u.name, p.status)
		}
	}
	submit(domain.KindStaffUser, "operator", &domain.StaffUserChange{Op: domain.StaffAdd, Username: "integrator", Name: "Card processor", Role: domain.RoleClerk, PasswordHash: domain.LockedPassword})
	secret := "scale-integrator-secret-0123456789"
	sum := sha256.Sum256([]byte(secret))
	submit(domain.KindAPIToken, "operator", &domain.APITokenChange{Op: "issue", ID: "scale", Username: "integrator", Label: "bench-scale", SecretHash: hex.EncodeToString(sum[:])})
	built.Token = "vbt_scale_" + secret

	// The county's roll, in commands of the most one takes.
	for from := 0; from < z.Parcels; from += domain.MaxParcelsPerCommand {
		roll := &domain.ParcelRoll{Source: fmt.Sprintf("roll-%d.csv", from/domain.MaxParcelsPerCommand)}
		for i := from; i < min(z.Parcels, from+domain.MaxParcelsPerCommand); i++ {
			roll.Parcels = append(roll.Parcels, scaleParcel(i))
		}
		submit(domain.KindParcelRoll, "clerk", roll)
	}

	// The payments, spread evenly over the built years' bills: a bill is
	// paid n times, a few bills n+1; even bills in full, odd ones half.
	bills := z.Parcels * (scaleYears - 1)
	per, extra := z.Payments/bills, z.Payments%bills
	perBatch := z.Parcels / scaleBatches
	var paid atomic.Int64
	start := time.Now()
	for year := scaleFirstYear; year < scaleFirstYear+scaleYears-1; year++ {
		for k := range scaleBatches {
			day := domain.NewDate(year, time.Month(k+1), 1)
			clock.set(day, 9)
			var batch []domain.NewBill
			for from := k * perBatch; from < (k+1)*perBatch; from += scaleBillsPerFile {
				cmd, err := m.Node.NewCommand(domain.KindCreateBills, "clerk")
				if err != nil {
					b.Fatal(err)
				}
				var file []domain.NewBill
				for i := from; i < min((k+1)*perBatch, from+scaleBillsPerFile); i++ {
					nb := scaleBill(i, year, k)
					nb.ID, nb.Line = staff.BillID(&cmd, len(file)+1), len(file)+2
					file = append(file, nb)
				}
				cmd.Payload = &domain.CreateBills{Bills: file, Source: fmt.Sprintf("bills-%d-%02d-%d.csv", year, k+1, from)}
				if res, err := m.Node.Submit(ctx, cmd); err != nil || res.Error != nil {
					b.Fatalf("bills %d/%d: %v %v", year, k, err, res.Error)
				}
				batch = append(batch, file...)
			}
			if year == scaleFirstYear+scaleYears-2 && k == 0 {
				built.Bill, built.Account = batch[0].ID, batch[0].Account
			}
			// Payment j of every bill of the batch is dated 2+3j days
			// after billing, taken by scaleBuildWorkers at once.
			n := (year-scaleFirstYear)*z.Parcels + k*perBatch // the batch's first bill, counting from the first year's
			for j := 0; j <= per; j++ {
				on := day.AddDays(2 + 3*j)
				clock.set(on, 10)
				if j == 1 && k == 3 && year == scaleFirstYear+1 {
					built.CardDay = on.String()
				}
				var todo []domain.PayBill
				for x, nb := range batch {
					times := per
					if n+x < extra {
						times++
					}
					if j >= times {
						continue
					}
					cents := nb.Principal.Cents() / int64(2*times)
					if (n+x)%2 == 0 {
						cents = nb.Principal.Cents() / int64(times)
						if j == times-1 {
							cents = nb.Principal.Cents() - cents*int64(times-1)
						}
					}
					amount := domain.Cents(cents)
					todo = append(todo, domain.PayBill{BillID: nb.ID, Amount: amount, Tender: domain.Card,
						Reference: fmt.Sprintf("A%07d", paid.Load()+int64(len(todo))), Payer: "Scale"})
				}
				scalePay(b, m, todo)
				paid.Add(int64(len(todo)))
			}
		}
		fmt.Printf("roll year %d built: %d payments so far, %v\n", year, paid.Load(), time.Since(start).Round(time.Second))
	}
	built.Address = scaleParcel(48).Address // on W Main St
	closeNode()
	raw, _ := json.Marshal(built)
	if err := os.WriteFile(filepath.Join(dir, "built"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
}

// startBenchNode runs a one-node cluster on dir inside the benchmark's
// process, its clock now and its log discarded, as the benchmarks build
// their ledgers through the product's commands. The caller closes it.
func startBenchNode(b *testing.B, dir string, now func() time.Time) *Main {
	b.Helper()
	m := NewMain()
	m.Config.DataDir = dir
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Now = now
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	return m
}

func cmpDateTime(a, b domain.DateTime) int {
	if c := a.Date.Compare(b.Date); c != 0 {
		return c
	}
	return a.Seconds() - b.Seconds()
}

// scaleBuildWorkers is how many payments the build submits at once.
const scaleBuildWorkers = 16

// scalePay submits each payment as POST /api/v1/payments would: a
// pay_bill by card from the integrator.
func scalePay(b *testing.B, m *Main, pays []domain.PayBill) {
	next := atomic.Int64{}
	errs := make(chan error, scaleBuildWorkers)
	var wg sync.WaitGroup
	for range scaleBuildWorkers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(pays) {
					return
				}
				cmd, err := m.Node.NewCommand(domain.KindPayBill, "integrator")
				if err == nil {
					p := pays[i]
					cmd.Payload = &p
					var res domain.Result
					res, err = m.Node.Submit(context.Background(), cmd)
					if err == nil && res.Error != nil {
						err = res.Error
					}
				}
				if err != nil {
					errs <- fmt.Errorf("pay %s %s: %w", pays[i].BillID, pays[i].Amount, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// scaleCAPool trusts the village CA of the data folder, as a staff
// browser that installed it does.
func scaleCAPool(b *testing.B, dir string) *x509.CertPool {
	pem, err := os.ReadFile(filepath.Join(dir, "pki", pki.CACertFile))
	if err != nil {
		b.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		b.Fatal("no certificate in the village CA file")
	}
	return pool
}

// scaleIndexed names the file, beside a cached ledger's data folder,
// that says its node-local indexes were brought up to date in place
// (indexScaleLedger); it holds what the node logged of it.
const scaleIndexed = "indexed"

// indexScaleLedger brings the node-local indexes of the cached ledger up
// to date in place, once: a ledger built before they existed (or by a
// release whose indexes are of another version) has them rebuilt at a
// node's first start, which on five years takes minutes and is what a
// village pays once, when it upgrades. The binary is started on the
// cache's own data folder and stopped once ready (the stop waits for the
// outbox pruning the start begins), its time to ready and peak RSS
// printed as their own line, so that every later run's phases measure a
// node whose indexes are current.
func indexScaleLedger(b *testing.B, bin, ledger string) {
	marker := filepath.Join(ledger, scaleIndexed)
	if _, err := os.Stat(marker); err == nil {
		return
	}
	fmt.Printf("indexing the cached ledger in place (a node's first start on it): %s\n", ledger)
	node := launchScaleNode(b, bin, filepath.Join(ledger, "data"), "scale-index-node.log")
	mem := watchScaleRSS(node.cmd.Process.Pid)
	mem.phase("first start")
	node.waitReady(b, 3*time.Hour)
	node.heapProfile("first-start")
	mem.phase("first start: stop")
	start := time.Now()
	node.stop(b)
	stopped := time.Since(start)
	mem.stop()
	var logged strings.Builder
	for line := range strings.Lines(node.out.String()) {
		if scaleReindexed(line) || strings.Contains(line, "pruned outbox") {
			logged.WriteString(line)
		}
	}
	if err := os.WriteFile(marker, []byte(logged.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	up, down := mem.peak["first start"], mem.peak["first start: stop"]
	fmt.Printf("first start on the cached ledger: ready after %v, peak VmRSS %.0f MiB (anonymous %.0f, .sst pages %.0f, .mem pages %.0f), VmHWM %.0f MiB; stopped %v later (peak VmRSS %.0f MiB, anonymous %.0f)\n%s",
		node.ready.Round(time.Second), mib(up.rss), mib(up.anon), mib(up.sst), mib(up.mem), mib(mem.hwm["first start"]),
		stopped.Round(time.Second), mib(down.rss), mib(down.anon), logged.String())
}

// scaleReindexed reports whether a node's log says it rebuilt its
// node-local indexes at start.
func scaleReindexed(log string) bool {
	return strings.Contains(log, "rebuilt the journal indexes") || strings.Contains(log, "rebuilt the journal's tallies") ||
		strings.Contains(log, "indexed the ledger's parcels and bills")
}

// launchScaleNode starts the binary on dir with the unit's GOMEMLIMIT;
// waitReady waits for /readyz. With BENCH_SCALE_PROFILES, the node
// serves its profiles and its log is kept there as logName.
func launchScaleNode(b *testing.B, bin, dir, logName string) *scaleNode {
	n := &scaleNode{budgetNode: budgetNode{http: freeAddr(b), https: freeAddr(b), log: &strings.Builder{}}, out: &syncBuffer{}}
	n.bin = bin
	n.cmd = exec.Command(bin, "serve", "--data", dir, "--http", n.http, "--https", n.https)
	n.cmd.Env = append(os.Environ(), "GOMEMLIMIT=64MiB")
	n.cmd.Stdout = io.MultiWriter(n.log, n.out)
	if dir := os.Getenv("BENCH_SCALE_PROFILES"); dir != "" {
		n.pprof = freeAddr(b)
		n.cmd.Env = append(n.cmd.Env, pprofEnv+"="+n.pprof)
		// The node's log is kept beside the profiles: a route that fails
		// is read there after the run.
		f, err := os.Create(filepath.Join(dir, logName))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		n.cmd.Stdout = io.MultiWriter(n.log, n.out, f)
	}
	n.cmd.Stderr = n.cmd.Stdout
	n.start = time.Now()
	if err := n.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return n
}

func (n *scaleNode) waitReady(b *testing.B, within time.Duration) {
	for time.Since(n.start) < within {
		resp, err := http.Get("http://" + n.http + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				n.ready = time.Since(n.start)
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.cmd.Process.Kill()
	n.cmd.Wait()
	b.Fatalf("the node was not ready within %v:\n%s", within, n.log)
}

// scaleNode is the serving node; pprof is its profiles' address, when
// BENCH_SCALE_PROFILES names a folder for them.
type scaleNode struct {
	budgetNode
	pprof string
	bin   string
	start time.Time
	out   *syncBuffer // the log, to be read while the node runs
}

// heapProfile saves the node's heap profile as BENCH_SCALE_PROFILES/
// scale-heap-NAME.pprof, and its runtime statistics (the text form's
// MemStats) beside it as .txt.
func (n *scaleNode) heapProfile(name string) {
	dir := os.Getenv("BENCH_SCALE_PROFILES")
	if dir == "" || n.pprof == "" {
		return
	}
	for _, f := range []struct{ query, ext string }{{"gc=1", "pprof"}, {"debug=1", "txt"}} {
		resp, err := http.Get("http://" + n.pprof + "/debug/pprof/heap?" + f.query)
		if err != nil {
			fmt.Printf("heap profile %s: %v\n", name, err)
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		os.WriteFile(filepath.Join(dir, "scale-heap-"+name+"."+f.ext), raw, 0o644)
	}
}

// cpuProfile saves the node's CPU profile over about the next d (at
// least a second, at most scaleRouteBudget) as BENCH_SCALE_PROFILES/
// scale-cpu-ROUTE.pprof: taken while a route's requests after its first
// are timed, for the routes BENCH_SCALE_CPU matches.
func (n *scaleNode) cpuProfile(route string, d time.Duration) {
	dir := os.Getenv("BENCH_SCALE_PROFILES")
	if dir == "" || n.pprof == "" {
		return
	}
	seconds := int(min(max(d, time.Second), scaleRouteBudget).Seconds())
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", n.pprof, seconds))
	if err != nil {
		fmt.Printf("CPU profile of %s: %v\n", route, err)
		return
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return '-'
	}, route)
	os.WriteFile(filepath.Join(dir, "scale-cpu-"+name+".pprof"), raw, 0o644)
}

// scaleRun is one run's node and what it was given.
type scaleRun struct {
	b      *testing.B
	z      scaleSize
	built  scaleBuilt
	layer  scaleLayered
	node   *scaleNode
	pool   *x509.CertPool
	mem    *scaleRSS
	year5  []string // the fifth year's bills, as the import pages listed them
	apiDay string
}

func (s *scaleRun) signIn(user string) *staffClient {
	jar, _ := cookiejar.New(nil)
	c := &staffClient{t: s.b, base: "https://" + s.node.https, c: &http.Client{Jar: jar, Timeout: 10 * time.Minute,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if p := c.login(user, s.built.Password); p.status != http.StatusSeeOther {
		s.b.Fatalf("sign-in of %s: %d", user, p.status)
	}
	return c
}

// importFifthYear imports the county's roll again and the fifth roll
// year's bills through the clerk's import pages, a file per month as
// the build did.
func (s *scaleRun) importFifthYear() time.Duration {
	c := s.signIn("clerk")
	s.settle(c)
	start := time.Now()
	for from := 0; from < s.z.Parcels; from += scaleBillsPerFile {
		var csv strings.Builder
		csv.WriteString("parcel,address,county,owner,floodplain,account,account_name\n")
		for i := from; i < min(s.z.Parcels, from+scaleBillsPerFile); i++ {
			pc := scaleParcel(i)
			fmt.Fprintf(&csv, "%s,%s,%s,%s,no,%s,\n", pc.ID, pc.Address, pc.County, pc.Owner, pc.Account)
		}
		c.get("/staff/parcels/import")
		p := scaleUpload(c, "/staff/parcels/import", fmt.Sprintf("roll-%d.csv", from), csv.String())
		if p.status != http.StatusOK || p.text("roll-done") == "" {
			s.b.Fatalf("roll import: %d %s %s", p.status, p.text("roll-errors"), p.doc.Find("main").Text())
		}
	}
	year := scaleFirstYear + scaleYears - 1
	perBatch := s.z.Parcels / scaleBatches
	for k := range scaleBatches {
		for from := k * perBatch; from < (k+1)*perBatch; from += scaleBillsPerFile {
			to := min((k+1)*perBatch, from+scaleBillsPerFile)
			var csv strings.Builder
			csv.WriteString("account,parcel,description,billed_on,amount\n")
			for i := from; i < to; i++ {
				nb := scaleBill(i, year, k)
				fmt.Fprintf(&csv, "%s,%s,%s,%s,%s\n", nb.Account, nb.Parcel, nb.Description, nb.BilledOn, nb.Principal)
			}
			c.get("/staff/bills/import")
			p := scaleUpload(c, "/staff/bills/import", fmt.Sprintf("bills-%d-%02d-%d.csv", year, k+1, from), csv.String())
			if done := p.text("import-done"); p.status != http.StatusOK || !strings.HasPrefix(done, fmt.Sprintf("Imported %d bills", to-from)) {
				s.b.Fatalf("bill import %d: %d %q %s", k, p.status, done, p.text("import-errors"))
			}
			p.doc.Find(`[data-testid="import-rows"] tbody tr`).Each(func(_ int, row *goquery.Selection) {
				s.year5 = append(s.year5, strings.TrimSpace(row.Find("td").Eq(1).Text()))
			})
		}
	}
	if len(s.year5) != s.z.Parcels {
		s.b.Fatalf("the import pages listed %d bills, want %d", len(s.year5), s.z.Parcels)
	}
	took := time.Since(start)
	// The treasurer looks at the year's November run once its bills are
	// in, as she would through the season (the start page asks for the
	// coming run's figures at every sign-in): the node then keeps that
	// year's figures current as payments write its bills, and the pages
	// phase times a preview of a node that had been asked, as a village's
	// is. The first figures every bill; it is printed, not tabled.
	t := s.signIn("treasurer")
	first := time.Now()
	if p := t.get(fmt.Sprintf("/staff/november?year=%d", year)); p.status != http.StatusOK {
		s.b.Fatalf("the first November preview: %d", p.status)
	}
	fmt.Printf("the treasurer's first November preview of %d, every bill figured: %v\n", year, time.Since(first).Round(time.Millisecond))
	return took
}

// settle waits until the node confirms a clerk's change within its
// submit wait: right after a start on a large ledger, raft's snapshot
// (the whole ledger copied) and the outbox's pruning keep it busy, and an
// import comes back provisional ("no quorum"), which a clerk would check
// again later. It imports the roll's first line again (unchanged: no
// harm in repeating it) until the answer is final, and prints how long
// that took.
func (s *scaleRun) settle(c *staffClient) {
	pc := scaleParcel(0)
	line := fmt.Sprintf("parcel,address,county,owner,floodplain,account,account_name\n%s,%s,%s,%s,no,%s,\n", pc.ID, pc.Address, pc.County, pc.Owner, pc.Account)
	start := time.Now()
	for tries := 1; ; tries++ {
		c.get("/staff/parcels/import")
		p := scaleUpload(c, "/staff/parcels/import", "settle.csv", line)
		if p.status == http.StatusOK {
			fmt.Printf("the node confirmed a clerk's import %v after ready (%d tries)\n", time.Since(start).Round(time.Millisecond), tries)
			return
		}
		if p.status != http.StatusServiceUnavailable || time.Since(start) > 10*time.Minute {
			s.b.Fatalf("settling: %d %s", p.status, p.text("roll-errors"))
		}
		time.Sleep(2 * time.Second)
	}
}

// scaleUpload posts a CSV file to an import page as a browser uploads it
// (a form over 64 KiB is refused unless it is a file), to be imported.
func scaleUpload(c *staffClient, path, name, csv string) staffPage {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("csrf", c.csrf)
	w.WriteField("mode", "import")
	f, _ := w.CreateFormFile("file", name)
	io.WriteString(f, csv)
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.base+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.do(req)
}

func scaleRateWindow(z scaleSize) int { return min(5000, z.APIPayments/2) }

// apiPayments posts z.APIPayments card payments of 5.00 on the fifth
// year's bills through POST /api/v1/payments from scaleAPIClients clients
// at once, and answers the rate over the first and the last
// scaleRateWindow of them (by the time each was answered).
func (s *scaleRun) apiPayments() (first, last float64, took time.Duration) {
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: scaleAPIClients,
		TLSClientConfig: &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}}}
	done := make([]time.Time, s.z.APIPayments)
	var next atomic.Int64
	errs := make(chan error, scaleAPIClients)
	start := time.Now()
	var wg sync.WaitGroup
	for range scaleAPIClients {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(done) {
					return
				}
				body, _ := json.Marshal(map[string]string{"command_id": fmt.Sprintf("scale-%d", i), "bill_id": s.year5[i%len(s.year5)],
					"amount": "5.00", "tender": "card", "reference": fmt.Sprintf("API%07d", i)})
				req, _ := http.NewRequest(http.MethodPost, "https://"+s.node.https+"/api/v1/payments", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+s.built.Token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("payment %d: %d %s", i, resp.StatusCode, raw)
					return
				}
				done[i] = time.Now()
				if i > 0 && i%10_000 == 0 {
					s.node.heapProfile(fmt.Sprintf("payments-%d", i))
				}
			}
		})
	}
	wg.Wait()
	took = time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		s.b.Fatal(err)
	}
	slices.SortFunc(done, func(a, b time.Time) int { return a.Compare(b) })
	w := scaleRateWindow(s.z)
	first = float64(w-1) / done[w-1].Sub(done[0]).Seconds()
	last = float64(w-1) / done[len(done)-1].Sub(done[len(done)-w]).Seconds()
	loc, _ := time.LoadLocation(Village)
	s.apiDay = domain.DateOf(done[0].In(loc)).String()
	return first, last, took
}

// scaleRoute is one page or export timed: who asks, its URL, and the
// target its p99 is read against. Edit scaleRoutes when a page's URL
// changes (paging parameters, say).
type scaleRoute struct {
	name, role, path string
	target           time.Duration
	kiosk            bool // on the resident kiosk's listener, not the office's
}

const (
	pageTarget   = 200 * time.Millisecond
	exportTarget = 5 * time.Second
	runTarget    = 10 * time.Second
)

// scaleRoutes lists every route timed, on the ledger the run built.
func (s *scaleRun) scaleRoutes() []scaleRoute {
	d, l := s.built, s.layer
	lastBuilt := scaleFirstYear + scaleYears - 2
	year5 := scaleFirstYear + scaleYears - 1
	misspelt := strings.Replace(d.Address, "Pearl", "Perl", 1)
	misspelt = strings.Replace(misspelt, "Main", "Mian", 1)
	surname := d.Surnames[3]
	return []scaleRoute{
		{"window lookup by number", "clerk", "/staff/window?bill=" + d.Bill, pageTarget, false},
		{"window lookup by name", "clerk", "/staff/window?bill=" + surname, pageTarget, false},
		{"accounts search (surname)", "clerk", "/staff/accounts?number=" + surname, pageTarget, false},
		{"account page", "clerk", "/staff/accounts/" + d.Account, pageTarget, false},
		{"journal", "treasurer", "/staff/journal", pageTarget, false},
		{"journal ?account=", "treasurer", "/staff/journal?account=" + d.Account, pageTarget, false},
		{"journal ?bill=", "treasurer", "/staff/journal?bill=" + d.Bill, pageTarget, false},
		{"journal ?q=", "treasurer", "/staff/journal?q=" + strings.ToLower(surname), pageTarget, false},
		{"journal.csv, one year", "treasurer", fmt.Sprintf("/staff/journal.csv?from=%d-01-01&to=%d-12-31", lastBuilt, lastBuilt), exportTarget, false},
		{"budget with actuals", "treasurer", fmt.Sprintf("/staff/budget/%d", scaleFirstYear), pageTarget, false},
		{"trial balance", "treasurer", fmt.Sprintf("/staff/books?year=%d", lastBuilt), pageTarget, false},
		{"statements", "treasurer", fmt.Sprintf("/staff/books/statement?year=%d", lastBuilt), pageTarget, false},
		{"general ledger CSV, whole year", "treasurer", fmt.Sprintf("/staff/books.csv?year=%d", lastBuilt), exportTarget, false},
		{"check register", "treasurer", "/staff/check-register", pageTarget, false},
		{"claims", "treasurer", "/staff/claims", pageTarget, false},
		// The layer's claims, checks and room tax operators.
		{"claims of the layer's year", "treasurer", fmt.Sprintf("/staff/claims?year=%d", l.ClaimYear), pageTarget, false},
		{"claims of the layer's year, an older page", "treasurer", fmt.Sprintf("/staff/claims?year=%d&from=%d", l.ClaimYear, s.z.Claims()/2), pageTarget, false},
		{"claim page", "treasurer", "/staff/claims/" + l.Claim, pageTarget, false},
		{"checks (approved claims to pay)", "treasurer", "/staff/checks", pageTarget, false},
		{"check register, a month of runs", "treasurer", "/staff/check-register?month=" + l.CheckMonth, pageTarget, false},
		{"check register CSV, a month", "treasurer", "/staff/check-register/" + l.CheckMonth + "/register.csv", pageTarget, false},
		{"check register PDF, a month", "treasurer", "/staff/check-register/" + l.CheckMonth + "/register.pdf", exportTarget, false},
		{"check run", "treasurer", "/staff/checks/runs/" + l.CheckRun, pageTarget, false},
		{"check run positive-pay CSV", "treasurer", "/staff/checks/runs/" + l.CheckRun + "/positive-pay.csv", pageTarget, false},
		{"room tax operators", "treasurer", "/staff/room-tax/operators", pageTarget, false},
		{"room tax operator page", "treasurer", "/staff/room-tax/operators/" + l.Operator, pageTarget, false},
		{"room tax operator's returns", "treasurer", "/staff/room-tax/operators/" + l.Operator + "/returns?reason=administration", pageTarget, false},
		{"room tax return", "treasurer", "/staff/room-tax/returns/" + l.Return + "?reason=administration", pageTarget, false},
		{"room tax reports, the layer's year", "treasurer", fmt.Sprintf("/staff/room-tax/reports?year=%d", l.ClaimYear), pageTarget, false},
		{"room tax by operator, the layer's year", "treasurer", fmt.Sprintf("/staff/room-tax/reports/by-operator?year=%d&reason=administration", l.ClaimYear), pageTarget, false},
		{"room tax enforcement", "treasurer", "/staff/room-tax/enforcement?reason=administration", pageTarget, false},
		{"room tax export CSV, whole year", "treasurer", fmt.Sprintf("/staff/room-tax/export.csv?year=%d&agency=DOR&official=Scale", l.ClaimYear), exportTarget, false},
		{"November run preview", "treasurer", fmt.Sprintf("/staff/november?year=%d", year5), pageTarget, false},
		{"audit extract, whole year", "auditor", fmt.Sprintf("/staff/audit/%d/extract.zip", lastBuilt), exportTarget, false},
		{"card reconciliation, a built day", "treasurer", "/staff/cards?day=" + d.CardDay, pageTarget, false},
		{"card reconciliation CSV, a built day", "treasurer", "/staff/cards.csv?day=" + d.CardDay, pageTarget, false},
		{"card reconciliation, the API's day", "treasurer", "/staff/cards?day=" + s.apiDay, pageTarget, false},
		{"card reconciliation CSV, the API's day", "treasurer", "/staff/cards.csv?day=" + s.apiDay, pageTarget, false},
		{"room tax", "treasurer", "/staff/room-tax", pageTarget, false},
		{"kiosk find, misspelt address", "resident", "/find?q=" + url.QueryEscape(misspelt), pageTarget, true},
		// Last, once the November run below has certified the roll.
		{"tax-roll export (Dane)", "treasurer", fmt.Sprintf("/staff/november/%d/dane.csv", year5), exportTarget, false},
	}
}

// novemberRun takes the fifth roll year's November run as the treasurer
// does, each step once (it posts): its confirm page, then the step
// confirmed (the ledger's command and the redirect back), timed.
func (s *scaleRun) novemberRun() []scaleRow {
	c := s.signIn("treasurer")
	year := strconv.Itoa(scaleFirstYear + scaleYears - 1)
	var rows []scaleRow
	for _, step := range []string{"penalties", "certify"} {
		w := &windowClerk{s: c}
		if _, err := w.try(http.MethodGet, "/staff/november?year="+year, nil); err != nil { // the form's CSRF token
			rows = append(rows, scaleRow{r: scaleRoute{name: "November run, " + step, role: "treasurer", path: "GET /staff/november", target: runTarget}, n: 1, err: err.Error()})
			break
		}
		t0 := time.Now()
		p, err := w.try(http.MethodPost, "/staff/november", url.Values{"year": {year}, "step": {step}})
		confirm := scaleRow{r: scaleRoute{name: "November run, " + step + ": confirm page", role: "treasurer", path: "POST /staff/november", target: runTarget}, status: p.status}
		if err != nil {
			confirm.err = err.Error()
		}
		confirm.p50 = time.Since(t0)
		confirm.p99, confirm.n = confirm.p50, 1
		var count, total string
		if p.doc != nil {
			count = p.doc.Find(`input[name="count"]`).AttrOr("value", "")
			total = p.doc.Find(`input[name="total"]`).AttrOr("value", "")
		}
		confirm.r.name += " (" + count + " bills, once)"
		rows = append(rows, confirm)
		if err != nil || p.status != http.StatusOK {
			break
		}
		t0 = time.Now()
		p, err = w.try(http.MethodPost, "/staff/november", url.Values{"year": {year}, "step": {step}, "confirm": {"yes"}, "count": {count}, "total": {total}})
		posted := scaleRow{r: scaleRoute{name: "November run, " + step + " posted (" + count + " bills, once)", role: "treasurer", path: "POST /staff/november confirm=yes", target: runTarget}, status: p.status}
		if err != nil {
			posted.err = err.Error()
		}
		posted.p50 = time.Since(t0)
		posted.p99, posted.n = posted.p50, 1
		if p.status == http.StatusSeeOther {
			posted.status = http.StatusOK
		}
		rows = append(rows, posted)
		fmt.Printf("November run %s: %s bills, confirm page %v, posted %v (%d)\n", step, count, confirm.p50.Round(time.Millisecond), posted.p50.Round(time.Millisecond), p.status)
	}
	return rows
}

// scaleRow is one route's timings.
type scaleRow struct {
	r        scaleRoute
	p50, p99 time.Duration
	status   int
	bytes    int
	n        int    // requests timed
	err      string // the last request's transport error, if any
}

// scaleRouteBudget is the time after which a route is not asked again.
const scaleRouteBudget = 30 * time.Second

// timeRoutes asks each route scaleRequests times, one request at a time,
// and keeps the time until the whole body was read.
func (s *scaleRun) timeRoutes(routes []scaleRoute, only *regexp.Regexp) []scaleRow {
	clients := map[string]*staffClient{}
	var cpu *regexp.Regexp
	if v := os.Getenv("BENCH_SCALE_CPU"); v != "" {
		cpu = regexp.MustCompile(v)
	}
	var rows []scaleRow
	for _, r := range routes {
		if !only.MatchString(r.name) {
			continue
		}
		var c *http.Client
		base := "https://" + s.node.https
		if r.kiosk {
			c, base = &http.Client{Timeout: 10 * time.Minute}, "http://"+s.node.http
		} else {
			if clients[r.role] == nil {
				clients[r.role] = s.signIn(r.role)
			}
			c = clients[r.role].c
		}
		row := scaleRow{r: r}
		var times []time.Duration
		var profiled sync.WaitGroup
		began := time.Now()
		for n := range scaleRequests {
			if n == 1 && cpu != nil && cpu.MatchString(r.name) {
				profiled.Go(func() { s.node.cpuProfile(r.name, times[0]*(scaleRequests-1)) })
			}
			// A route far over its target is asked fewer times, so that
			// a run on a slow ledger ends: once at least, then none
			// after scaleRouteBudget on it.
			if n >= 1 && time.Since(began) > scaleRouteBudget {
				break
			}
			t0 := time.Now()
			resp, err := c.Get(base + r.path)
			if err != nil {
				// A page that outlasts the listener's write timeout
				// ends in a broken connection, as the browser sees it.
				times = append(times, time.Since(t0))
				row.status, row.err = 0, err.Error()
				break
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			times = append(times, time.Since(t0))
			row.status, row.bytes = resp.StatusCode, int(n)
			if resp.StatusCode != http.StatusOK {
				break
			}
		}
		profiled.Wait()
		slices.Sort(times)
		row.n = len(times)
		row.p50, row.p99 = times[len(times)/2], times[min(len(times)-1, len(times)*99/100)]
		rows = append(rows, row)
		fmt.Printf("timed %-40s %3d  p50 %v\n", r.name, row.status, row.p50.Round(time.Millisecond))
	}
	return rows
}

func printScaleTable(rows []scaleRow) {
	fmt.Println("| route | role | n | p50 | p99 | target | met? | size |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		met := "yes"
		switch {
		case r.err != "":
			met = "failed: " + r.err
		case r.status != http.StatusOK:
			met = fmt.Sprintf("status %d", r.status)
		case r.p99 > r.r.target:
			met = "no"
		}
		fmt.Printf("| %s `%s` | %s | %d | %s | %s | ≤ %s | %s | %s |\n", r.r.name, r.r.path, r.r.role, r.n, scaleDur(r.p50), scaleDur(r.p99), scaleDur(r.r.target), met, scaleSizeText(r.bytes))
	}
}

func scaleDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func scaleSizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// scaleRSS samples a process's memory every 50 ms and keeps, per
// phase, the largest VmRSS seen, the split of that peak into anonymous
// memory (the Go heap, stacks, Badger's own allocations) and file pages
// by what maps them (from /proc/PID/smaps), and VmHWM when the phase
// ended.
type scaleRSS struct {
	pid    int
	mu     sync.Mutex
	order  []string
	peak   map[string]scaleMem
	hwm    map[string]int64
	cur    string
	halt   chan struct{}
	wg     sync.WaitGroup
	stopMu sync.Once
}

// scaleMem is a process's resident memory, in bytes: in all, anonymous,
// and file pages of Badger's tables (.sst), memtable logs (.mem), value
// logs (.vlog) and the rest (the executable, mostly).
type scaleMem struct{ rss, anon, sst, mem, vlog, other int64 }

func watchScaleRSS(pid int) *scaleRSS {
	w := &scaleRSS{pid: pid, peak: map[string]scaleMem{}, hwm: map[string]int64{}, halt: make(chan struct{})}
	w.wg.Go(func() {
		for {
			select {
			case <-w.halt:
				return
			case <-time.After(50 * time.Millisecond):
			}
			w.sample()
		}
	})
	return w
}

// sample reads VmRSS, and smaps when it is a new peak of the phase.
func (w *scaleRSS) sample() {
	rss, _ := scaleStatus(w.pid)
	w.mu.Lock()
	cur, peak := w.cur, w.peak[w.cur]
	w.mu.Unlock()
	if cur == "" || rss <= peak.rss {
		return
	}
	m := scaleMem{rss: rss}
	if rss > peak.rss+2<<20 || peak.anon == 0 {
		m = scaleSmaps(w.pid)
	} else {
		m = peak
		m.rss = rss
	}
	w.mu.Lock()
	if w.cur == cur && m.rss > w.peak[cur].rss {
		w.peak[cur] = m
	}
	w.mu.Unlock()
}

// phase ends the phase under way (noting VmHWM) and starts name.
func (w *scaleRSS) phase(name string) {
	w.sample()
	_, hwm := scaleStatus(w.pid)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != "" {
		w.hwm[w.cur] = hwm
	}
	w.cur = name
	if name != "" {
		w.order = append(w.order, name)
	}
}

func (w *scaleRSS) stop() { w.stopMu.Do(func() { close(w.halt); w.wg.Wait() }) }

func (w *scaleRSS) print() {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Println("| phase | peak VmRSS sampled | of it anonymous | .sst pages | .mem pages | .vlog pages | other files | VmHWM at its end | target |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, p := range w.order {
		m := w.peak[p]
		fmt.Printf("| %s | %.0f MiB | %.0f MiB | %.0f MiB | %.0f MiB | %.0f MiB | %.0f MiB | %.0f MiB | ≤ 160 MiB |\n", p, mib(m.rss), mib(m.anon), mib(m.sst), mib(m.mem), mib(m.vlog), mib(m.other), mib(w.hwm[p]))
	}
}

// scaleSmaps sums /proc/PID/smaps' Rss by what each mapping maps.
func scaleSmaps(pid int) scaleMem {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return scaleMem{}
	}
	var m scaleMem
	into := &m.anon
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			into = &m.anon
			if len(f) >= 6 && strings.HasPrefix(f[5], "/") {
				switch path := f[5]; {
				case strings.HasSuffix(path, ".sst"):
					into = &m.sst
				case strings.HasSuffix(path, ".mem"):
					into = &m.mem
				case strings.HasSuffix(path, ".vlog"):
					into = &m.vlog
				default:
					into = &m.other
				}
			}
			continue
		}
		if len(f) == 3 && f[0] == "Rss:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			*into += kb << 10
			m.rss += kb << 10
		}
	}
	return m
}

// scaleStatus reads VmRSS and VmHWM of pid, in bytes.
func scaleStatus(pid int) (rss, hwm int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		name, value, _ := strings.Cut(line, ":")
		f := strings.Fields(value)
		if len(f) != 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		switch name {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			hwm = kb << 10
		}
	}
	return rss, hwm
}
