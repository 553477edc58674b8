package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// The layer BenchmarkScale adds over the cached five-year ledger, at
// SCALE=1: the claims of the fifth roll year, each certified, endorsed
// and paid by a check, and the room tax operators with their quarterly
// returns. SCALE=0.1 makes both a tenth.
const (
	scaleClaims    = 5_000
	scaleOperators = 40
	// scaleClaimsPerRun is how many claims a check run pays: a run writes
	// the claim, its check, its expense and their journal lines in one
	// command, which the ledger keeps well under its limit of records.
	scaleClaimsPerRun = 100
	// scaleLayerVersion names how the layer is built: change it when the
	// layer changes, so that an old one is not reused.
	scaleLayerVersion = 2
)

// layerKey names the cached ledger with the layer: the base ledger's key
// and what the layer adds, so that the base is reused as it is.
func (z scaleSize) layerKey() string {
	return fmt.Sprintf("%s-l%d-claims%d-rt%d", z.key(), scaleLayerVersion, z.Claims(), z.Operators())
}

// Claims is how many claims the layer enters and pays.
func (z scaleSize) Claims() int { return max(scaleClaimsPerRun, int(scaleClaims*z.Scale)/10*10) }

// Operators is how many room tax operators the layer registers.
func (z scaleSize) Operators() int { return max(2, int(scaleOperators*z.Scale)) }

// scaleLayered is what the layer leaves in the summary beside the base's:
// what its routes ask for by name.
type scaleLayered struct {
	Claim      string `json:"claim"`       // a paid claim
	CheckMonth string `json:"check_month"` // a month of check runs (YYYY-MM)
	CheckRun   string `json:"check_run"`   // a check run of that month
	Operator   string `json:"operator"`    // an operator with returns
	Return     string `json:"return"`      // one of its quarterly returns
	ClaimYear  int    `json:"claim_year"`  // the year of the claims' appropriations and of the returns timed
}

// scaleLayerStart is the first day of the layer's commands: the base
// build's last payments are dated in its last roll year's October, up to
// 2+3j days after the tenth import (j at most the payments a bill took),
// and the scale clock only moves forward, so the layer starts after them.
func scaleLayerStart(z scaleSize) domain.Date {
	last := scaleFirstYear + scaleYears - 2
	per := z.Payments / (z.Parcels * (scaleYears - 1))
	return domain.NewDate(last, time.Month(scaleBatches), 1).AddDays(2 + 3*per + 1)
}

// buildScaleLayer makes the layered ledger in dir from the cached base
// ledger in base, which it copies and never changes: on a one-node
// cluster inside this process over the copy, through the product's own
// commands, as buildScaleLedger does:
//
//   - the fifth roll year's budget (the demo's cycle for that year:
//     estimates, proposal, notice, hearing, adoption, dated the autumn
//     before), the depository with its account number and check stock,
//     and the two signatures of §5.18, as the demo's books record them;
//   - z.Claims() claims on the fifth year's appropriations (twelve
//     lines, nine of them added to the demo's chart and budget), as many
//     each month, entered on the 5th, given the four certifications of
//     §5.07(3) and the treasurer's endorsement, and paid on the 25th by
//     check runs of one line's claims, at most scaleClaimsPerRun a run;
//   - z.Operators() room tax operators registered in the fifth year's
//     January, each filing its return for the quarter just ended and for
//     every quarter of the base's years (the scale clock only moves
//     forward, so those are back returns filed late that January, late
//     fee and interest due), then the fifth year's first three quarters
//     each in the month after it ends; every return paid in full by card
//     the day it is filed.
//
// Every command is dated in the fifth roll year (its budget the autumn
// before), after the base's last payment (scaleLayerStart), as the clock
// only moves forward. A base that a node served since (indexed in place,
// at the real time of that start) has entries later than that: then the
// layer is of the year of its latest entry, each command dated just after
// it, and the dates the commands carry (the check runs', the claims'
// invoices) fall in the months before it; every back return is filed
// late. It writes dir/built last, the base's summary with the layer's.
func buildScaleLayer(b *testing.B, z scaleSize, base, dir string) {
	partial := dir + ".partial"
	os.RemoveAll(partial)
	// The base may be a link to a cache kept elsewhere: copy what it
	// names, never the link, so that the layer never writes into it.
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.Mkdir(partial, 0o750); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", base+"/.", partial).CombinedOutput(); err != nil {
		b.Fatalf("copy the base ledger: %v %s", err, out)
	}
	var built struct {
		scaleBuilt
		scaleLayered
	}
	raw, err := os.ReadFile(filepath.Join(base, "built"))
	if err == nil {
		err = json.Unmarshal(raw, &built.scaleBuilt)
	}
	if err != nil {
		b.Fatalf("the base ledger's summary: %v", err)
	}
	if err := os.Remove(filepath.Join(partial, "built")); err != nil {
		b.Fatal(err)
	}

	clock := &scaleClock{}
	clock.set(scaleLayerStart(z), 9)
	m := startBenchNode(b, filepath.Join(partial, "data"), clock.now)
	var closeOnce sync.Once
	closeNode := func() { closeOnce.Do(func() { m.Close() }) }
	defer closeNode()
	ctx := context.Background()
	if err := m.Node.WaitLeader(ctx); err != nil {
		b.Fatal(err)
	}
	// A base indexed in place by the binary (indexScaleLedger) before the
	// layer was built took entries at the real time of that start, and
	// the node refuses a clock earlier than its latest entry: the layer's
	// clock starts after it. Then the fifth year is behind the clock, and
	// the layer is of the clock's year instead, every command dated on
	// the clock's day and the check runs and filings on their own days
	// before it (each command takes a date on or before its own).
	latest := m.Node.Latest()
	clock.setAt(domain.NewDateTime(latest.Date, 0, 1, latest.Seconds()))
	loc, _ := time.LoadLocation(Village)
	today := func() domain.DateTime { return domain.DateTimeOf(clock.now().In(loc)) }
	year := scaleFirstYear + scaleYears - 1
	until := domain.NewDate(year, time.December, 31)
	if d := today().Date; d.Year() >= year {
		year, until = d.Year(), d
	}
	submit := func(k domain.Kind, actor string, p domain.Payload) domain.Result {
		cmd, err := m.Node.NewCommand(k, actor)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Payload = p
		var res domain.Result
		// Right after a start on a large ledger, raft may be busy with a
		// snapshot: a command that is not confirmed within the submit
		// wait is submitted again with the same id.
		for try := 1; ; try++ {
			res, err = m.Node.Submit(ctx, cmd)
			if err == nil || try == 5 {
				break
			}
			time.Sleep(2 * time.Second)
		}
		if err != nil || res.Error != nil {
			b.Fatalf("%s: %v %v", k, err, res.Error)
		}
		return res
	}
	built.ClaimYear = year
	start := time.Now()

	// More lines of expenditure than the demo's three, each appropriated
	// in the year's budget: an appropriation keeps every charge to it in
	// its one record, so a year of this many claims on three lines makes
	// records of megabytes, rewritten by each claim and more than one
	// entry may write in a check run.
	chart := &domain.ChartChange{Source: "form"}
	for _, l := range scaleClaimLines {
		if l.added {
			chart.Accounts = append(chart.Accounts, domain.ChartAccount{Code: l.line, Type: domain.AccountExpenditure, Name: l.name, Fund: "100", Unit: l.unit, Major: l.major})
		}
	}
	submit(domain.KindChart, "demo.agent", chart)

	// The fifth year's budget, as the demo adopts a year's: its steps of
	// that year only (the rest of the demo's history is in the base),
	// with the added lines proposed beside the demo's.
	for _, h := range demoHistory(domain.NewDate(year, time.January, 4)) {
		if p, ok := h.Payload.(*domain.BudgetProposal); ok && p.Year == year {
			for _, l := range scaleClaimLines {
				if l.added {
					p.Lines = append(p.Lines, domain.BudgetLine{Account: l.line, Amount: domain.MustMoney("50000.00")})
				}
			}
		}
		var of int
		switch p := h.Payload.(type) {
		case *domain.Estimate:
			of = p.Year
		case *domain.BudgetProposal:
			of = p.Year
		case *domain.BudgetNoticeChange:
			of = p.Year
		case *domain.BudgetHearingChange:
			of = p.Year
		case *domain.BudgetVoteChange:
			of = p.Year
		}
		if of == year {
			clock.setAt(h.At)
			submit(h.Kind, h.Actor, h.Payload)
		}
	}

	// The checking account and its signatures, as the demo's books.
	setup := domain.NewDate(year, time.January, 2)
	clock.set(setup, 9)
	submit(domain.KindDepository, "demo.treasurer", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "SRB", Name: "Sugar River Bank, village checking",
		Institution: "Sugar River Bank", Resolution: fmt.Sprintf("%d-01", year), From: domain.NewDate(year, time.January, 1), Number: "004417720031"})
	submit(domain.KindCheckStock, "demo.treasurer", &domain.CheckStock{Next: 3001, Account: "SRB"})
	approval := fmt.Sprintf("motion of the organizational meeting %s, item 5", setup)
	signatures := []string{"sig-scale-president", "sig-scale-treasurer"}
	for _, s := range []domain.SignatureChange{
		{Op: "approve", ID: signatures[0], Official: "Kubly", Office: "president", Form: "facsimile", Approval: approval, ApprovedOn: setup},
		{Op: "approve", ID: signatures[1], Official: "Terry Treasurer (demo)", Office: "treasurer", Form: "digital", Approval: approval, ApprovedOn: setup},
	} {
		submit(domain.KindSignature, "demo.clerk", &s)
	}

	operators := scaleRoomTax(b, z, year, until, clock, today, submit)
	built.Operator = operators[0]
	built.Return = domain.QuarterlyReturnID(operators[0], domain.Quarter{Year: year, Q: 1})
	fmt.Printf("layer: %d room tax operators with their returns, %v\n", len(operators), time.Since(start).Round(time.Second))

	// The claims, a twelfth a month; the lines and amounts keep each
	// appropriation of the demo's budget well within its amount.
	months := 0
	for month := time.January; month <= time.December && !domain.NewDate(year, month, 25).After(until); month++ {
		months++
	}
	if months == 0 {
		b.Fatalf("the layer's clock (%s) leaves no month of %d for its check runs", today(), year)
	}
	perMonth := (z.Claims() + months - 1) / months
	entered := 0
	for month := time.January; month <= time.Month(months) && entered < z.Claims(); month++ {
		on := domain.NewDate(year, month, 5)
		clock.set(on, 9)
		n := min(perMonth, z.Claims()-entered)
		ids := make([]string, n)
		scaleEach(b, n, func(i int) error {
			c := scaleClaim(entered + i)
			res, err := scaleSubmit(m, domain.KindClaim, "demo.clerk", &domain.ClaimChange{Op: domain.ClaimEnter, Vendor: c.vendor,
				Invoice: fmt.Sprintf("%s-%d-%05d", c.vendor[:3], year, entered+i), InvoiceDate: on.AddDays(-3), Amount: domain.MustMoney(c.amount), Line: c.line, Description: c.what})
			ids[i] = res.Ref
			return err
		})
		clock.set(on, 10)
		for _, x := range []struct{ who, what, basis string }{
			{"demo.treasurer", domain.CertifyFundsAvailable, ""},
			{"demo.agent", domain.CertifyAuthorized, "standing order of the board"},
			{"demo.agent", domain.CertifyConformity, "service received"},
			{"demo.treasurer", domain.CertifyValid, ""},
		} {
			scaleEach(b, n, func(i int) error {
				_, err := scaleSubmit(m, domain.KindClaim, x.who, &domain.ClaimChange{Op: domain.ClaimCertify, ID: ids[i], Certification: x.what, Basis: x.basis})
				return err
			})
		}
		clock.set(on, 11)
		scaleEach(b, n, func(i int) error {
			_, err := scaleSubmit(m, domain.KindClaim, "demo.treasurer", &domain.ClaimChange{Op: domain.ClaimEndorse, ID: ids[i]})
			return err
		})
		// A run pays the claims of one line, so that it rewrites one
		// appropriation.
		run := domain.NewDate(year, month, 25)
		clock.set(run, 10)
		byLine := map[string][]string{}
		for i, id := range ids {
			l := scaleClaim(entered + i).line
			byLine[l] = append(byLine[l], id)
		}
		for _, l := range scaleClaimLines {
			of := byLine[l.line]
			for from := 0; from < len(of); from += scaleClaimsPerRun {
				res := submit(domain.KindCheckRun, "demo.treasurer", &domain.CheckRun{On: run, Account: "SRB", Claims: of[from:min(len(of), from+scaleClaimsPerRun)], Signatures: signatures})
				if month == time.June && built.CheckRun == "" {
					built.CheckMonth, built.CheckRun = run.String()[:7], res.Ref
				}
			}
		}
		if built.Claim == "" {
			built.Claim = ids[0]
		}
		entered += n
	}
	fmt.Printf("layer: %d claims entered, certified, endorsed and paid, %v\n", entered, time.Since(start).Round(time.Second))

	closeNode()
	raw, _ = json.Marshal(built)
	if err := os.WriteFile(filepath.Join(partial, "built"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(partial, dir); err != nil {
		b.Fatal(err)
	}
}

// scaleClaimLines are the lines the layer's claims are drawn on: the
// demo's three and those the layer adds to the chart (added), under the
// demo's units.
var scaleClaimLines = []struct {
	line, name, unit, major, what string
	added                         bool
}{
	{"100-51400", "Administration", "ADMIN", "General government", "Office supplies", false},
	{"100-53300", "Streets and water mains", "PW", "Public works", "Street repair materials", false},
	{"100-55200", "Parks", "PARKS", "Culture, recreation and education", "Portable toilets, Community Park", false},
	{"100-51410", "Clerk", "ADMIN", "General government", "Postage", true},
	{"100-51420", "Finance", "ADMIN", "General government", "Printing of checks and forms", true},
	{"100-51440", "Elections", "ADMIN", "General government", "Poll worker supplies", true},
	{"100-51600", "Village hall", "ADMIN", "General government", "Village hall utilities", true},
	{"100-53310", "Street lighting", "PW", "Public works", "Street lights", true},
	{"100-53420", "Snow and ice control", "PW", "Public works", "Road salt and plowing", true},
	{"100-53640", "Solid waste", "PW", "Public works", "Brush and yard waste hauling", true},
	{"100-55210", "Community park", "PARKS", "Culture, recreation and education", "Park maintenance", true},
	{"100-55300", "Recreation programs", "PARKS", "Culture, recreation and education", "Summer program supplies", true},
}

// scaleClaim is the i-th claim of the layer: the lines in turn, the
// demo's vendors and others, of 15.00 to 99.99 (about 24,000.00 a line
// over 5,000 claims, within each line's appropriation).
func scaleClaim(i int) demoClaim {
	vendors := []string{"Alliant Energy", "Quill Office Supply", "Sugar River Sanitation", "Belleville Feed & Seed", "Badger State Plumbing",
		"Green County Outdoor", "Compass Minerals", "New Glarus Landscape", "Sugar River Supply", "Allied Heating & Cooling"}
	l := scaleClaimLines[i%len(scaleClaimLines)]
	cents := 1500 + (i*7919)%8500
	return demoClaim{vendor: vendors[(i/len(scaleClaimLines))%len(vendors)], line: l.line, what: l.what, amount: domain.Cents(int64(cents)).String()}
}

// scaleRoomTax registers z.Operators() operators and files and pays
// their returns (see buildScaleLayer); it returns the operators' ids.
func scaleRoomTax(b *testing.B, z scaleSize, year int, until domain.Date, clock *scaleClock, today func() domain.DateTime, submit func(domain.Kind, string, domain.Payload) domain.Result) []string {
	p := domain.DefaultParams()
	var ids []string
	kinds := []string{"Inn", "Motel", "Bed and Breakfast", "Cottage", "Suites"}
	registered := domain.NewDate(year, time.January, 6)
	clock.set(registered, 9)
	for i := range z.Operators() {
		name := fmt.Sprintf("%s %s", scaleSurnames[i%len(scaleSurnames)], kinds[i%len(kinds)])
		id := domain.OperatorIDFor(name)
		id = fmt.Sprintf("%s-%02d", id[:min(len(id), 28)], i)
		ids = append(ids, id)
		submit(domain.KindRoomTaxOperator, "demo.treasurer", &domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: id, LegalName: name + " LLC",
			Establishments: []domain.Establishment{{Name: name, Address: scaleParcel(i * 37).Address}},
			SellersPermit:  fmt.Sprintf("456-%010d-03", 1000+i), Contact: fmt.Sprintf("front desk, 608-555-%04d", 100+i)})
	}
	file := func(op string, i int, q domain.Quarter, on domain.Date, first bool) {
		clock.set(on, 10)
		gross := domain.Cents(int64(800000 + ((i*131+q.Year*7+q.Q*53)%40)*80000))
		f := &domain.FileRoomTaxReturn{Operator: op, Period: q, GrossReceipts: gross, Signer: "Scale Owner", Capacity: "owner"}
		if first {
			f.Year = &domain.RoomTaxYear{Basis: domain.YearCalendar, EndMonth: 12}
		}
		submit(domain.KindRoomTaxFile, "demo.treasurer", f)
		at := today()
		fig, err := domain.QuarterlyReturn{ID: domain.QuarterlyReturnID(op, q), Operator: op, Period: q}.PreviewFiling(
			domain.RoomTaxFiling{GrossReceipts: gross, FiledAt: at}, at, p)
		if err != nil {
			b.Fatalf("room tax %s %s: %v", op, q, err)
		}
		submit(domain.KindPayRoomTax, "integrator", &domain.PayRoomTax{Return: domain.QuarterlyReturnID(op, q), Amount: fig.Balance,
			Reference: fmt.Sprintf("RT%s%s", op[:3], q), Payer: op, Card: &domain.CardShown{Brand: "visa", Last4: "4242"}})
	}
	// The back returns, late, in January; the quarter just ended, on time.
	back := domain.NewDate(year, time.January, 20)
	for i, op := range ids {
		first := true
		for y := scaleFirstYear; y < year; y++ {
			for q := 1; q <= 4; q++ {
				file(op, i, domain.Quarter{Year: y, Q: q}, back, first)
				first = false
			}
		}
	}
	for q := 1; q <= 3; q++ {
		on := domain.NewDate(year, time.Month(3*q+1), 20)
		if on.After(until) {
			break
		}
		for i, op := range ids {
			file(op, i, domain.Quarter{Year: year, Q: q}, on, false)
		}
	}
	return ids
}

// scaleSubmit submits one command of actor on the in-process node.
func scaleSubmit(m *Main, k domain.Kind, actor string, p domain.Payload) (domain.Result, error) {
	cmd, err := m.Node.NewCommand(k, actor)
	if err != nil {
		return domain.Result{}, err
	}
	cmd.Payload = p
	res, err := m.Node.Submit(context.Background(), cmd)
	if err == nil && res.Error != nil {
		err = res.Error
	}
	if err != nil {
		err = fmt.Errorf("%s by %s: %w", k, actor, err)
	}
	return res, err
}

// scaleEach calls f for 0..n-1 from scaleBuildWorkers goroutines, as
// the office's many desks would, and fails on the first error.
func scaleEach(b *testing.B, n int, f func(i int) error) {
	var next atomic.Int64
	errs := make(chan error, scaleBuildWorkers)
	var wg sync.WaitGroup
	for range scaleBuildWorkers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errs <- err
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
