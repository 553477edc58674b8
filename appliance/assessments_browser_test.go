package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// movingClock is the village's clock of a test that lives through a
// project's months.
type movingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movingClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *movingClock) Set(s string) {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, villageNow.Location())
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// pearlStreet is the district of the end-to-end project: twelve parcels,
// the tenth a church (exempt), the twelfth a corner lot.
func pearlStreet() []domain.Parcel {
	var out []domain.Parcel
	for i := range 12 {
		out = append(out, domain.Parcel{ID: fmt.Sprintf("0601-141-3%03d", i+1), Address: fmt.Sprintf("%d Pearl St", 100+2*i),
			County: []domain.County{domain.Dane, domain.Green}[i%2], Owner: fmt.Sprintf("Owner %d", i+1)})
	}
	return out
}

// setForm fills the fields of a form by name, as typing would (a
// checkbox given "1" is checked), and leaves submitting it to a click.
func setForm(t *testing.T, ctx context.Context, form string, fields map[string]string) {
	t.Helper()
	b, _ := json.Marshal(fields)
	js := `(() => { const f = document.querySelector('[data-testid="` + form + `"]'); const v = ` + string(b) + `;
		for (const [k, x] of Object.entries(v)) { const e = f.elements[k]; if (!e) return 'no field ' + k;
			if (e.type === 'checkbox') { e.checked = x === '1' } else { e.value = x } }
		return '' })()`
	missing, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil || missing != "" {
		browsertest.Screenshot(t, ctx, "failed-fill-"+form)
		t.Fatalf("fill %s: %q %v", form, missing, err)
	}
}

// doWithin is do with a deadline of its own, so a step that waits for
// what never comes fails with the page's error shown, not at the end of
// the whole test's time.
func doWithin(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		browsertest.Screenshot(t, ctx, "failed-"+what)
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="step-error"], [data-testid="error"], [data-testid="error-message"]') || {}).innerText || ''`))
		t.Fatalf("%s: %v (the page says %q)", what, err, shown)
	}
}

// TestAssessmentProjectEndToEnd carries one special assessment project
// (§5.14) through the real appliance (Badger and Raft) in real Chromium:
// the preliminary resolution, the report with its plans, the notice and
// its letters as a PDF, the hearing's modification, the final resolution
// and its publication, the levy on twelve parcels with one exempt and one
// corner lot; an installment and a whole assessment paid by card at the
// kiosk; the actual cost lower: every assessment reduced and the one paid
// in full refunded through the refund queue; the rest extended on the tax
// roll by the November run and in the county's CSV.
func TestAssessmentProjectEndToEnd(t *testing.T) {
	clock := &movingClock{}
	clock.Set("2026-06-02 10:00")
	dir := t.TempDir()
	m := NewMain()
	m.Config.DataDir = dir
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Terminal = "simulator"
	m.Config.Now = clock.Now
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	// The village's parcels: the district's twelve.
	district := pearlStreet()
	seed := &domain.SeedDemo{Parcels: district}
	for i, p := range district {
		seed.Accounts = append(seed.Accounts, domain.Account{Number: fmt.Sprintf("2001%02d", i+1), Name: p.Owner, Parcels: []string{p.ID}})
	}
	wait, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Node.WaitLeader(wait); err != nil {
		t.Fatal(err)
	}
	cmd, err := m.Node.NewCommand(domain.KindSeedDemo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = seed
	if _, err := m.Node.Submit(wait, cmd); err != nil {
		t.Fatal(err)
	}

	users := map[string]string{}
	for _, u := range []struct{ name, role string }{{"boss", "administrator"}, {"treas", "treasurer"}} {
		out, code := userCLI(t, m, "add", "--username", u.name, "--name", u.name, "--role", u.role)
		if code != 0 {
			t.Fatalf("user add: %s", out)
		}
		users[u.name] = tempPassword(t, out)
	}

	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 1000, Timeout: 12 * time.Minute, Trust: []*x509.Certificate{m.Identity().Certificate()}})
	start := time.Now()
	staff := "https://" + m.StaffAddr()
	kiosk := "http://" + m.Addr()
	const projectID = "SA-2026-01"
	project := staff + "/staff/assessments/" + projectID
	changed := map[string]bool{}
	// signIn signs in afresh (the clock moved by days, so the last session
	// ended); the first time, the temporary password is changed.
	signIn := func(user string) {
		t.Helper()
		t.Logf("%s: %s signs in on %s", time.Since(start).Round(time.Second), user, clock.Now().Format("2006-01-02"))
		doWithin(t, ctx, "sign in "+user,
			chromedp.Navigate(staff+"/staff/"),
			chromedp.WaitVisible(testid("login-form")),
			chromedp.SendKeys(testid("login-username"), user),
		)
		pass := "assessments at village hall"
		if !changed[user] {
			doWithin(t, ctx, "forced password "+user,
				chromedp.SendKeys(testid("login-password"), users[user]),
				chromedp.Click(testid("login-submit")),
				chromedp.WaitVisible(testid("password-forced")),
				chromedp.SendKeys(testid("password-current"), users[user]),
				chromedp.SendKeys(testid("password-new"), pass),
				chromedp.SendKeys(testid("password-again"), pass),
				chromedp.Click(testid("password-submit")),
				chromedp.WaitVisible(testid("password-changed")),
			)
			changed[user] = true
			return
		}
		doWithin(t, ctx, "password "+user,
			chromedp.SendKeys(testid("login-password"), pass),
			chromedp.Click(testid("login-submit")),
			chromedp.WaitVisible(testid("signed-in-as")),
		)
	}
	step := func(what, form string, fields map[string]string, submit, next string) {
		t.Helper()
		t.Logf("%s: %s", time.Since(start).Round(time.Second), what)
		doWithin(t, ctx, what+": page", chromedp.Navigate(project))
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="`+form+`"]').length`)); err != nil || n != 1 {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 600)`))
			browsertest.Screenshot(t, ctx, "failed-"+what)
			t.Fatalf("%s: no %s on the project page (%v): %q", what, form, err, body)
		}
		setForm(t, ctx, form, fields)
		doWithin(t, ctx, what, chromedp.Click(testid(submit)), chromedp.WaitVisible(testid(next)))
	}

	// June 2: the preliminary resolution.
	signIn("boss")
	var ids []string
	for _, p := range district {
		ids = append(ids, p.ID)
	}
	doWithin(t, ctx, "new project", chromedp.Navigate(staff+"/staff/assessments/new"), chromedp.WaitVisible(testid("preliminary-form")))
	setForm(t, ctx, "preliminary-form", map[string]string{"project": projectID, "number": "2026-31", "adopted_on": "2026-06-01", "purpose": "Reconstruct Pearl Street with a new sanitary sewer",
		"basis": "benefit", "improvements": "Sanitary sewer\nStreet", "limits": "Both sides of Pearl Street from Main Street to Vine Street", "district": strings.Join(ids, "\n"),
		"installments": "0", "officer": "Village Engineer"})
	doWithin(t, ctx, "preliminary resolution", chromedp.Click(testid("pre-submit")), chromedp.WaitVisible(testid("report-form")))
	browsertest.Screenshot(t, ctx, "assessment-1-preliminary")

	// June 15: the report, with its plans.
	clock.Set("2026-06-15 09:00")
	signIn("boss")
	report := map[string]string{"filed_on": "2026-06-15",
		"cost_imp1": "Sanitary sewer", "cost_cat1": "direct", "cost_desc1": "Sewer main and laterals", "cost_amt1": "60,000.00",
		"cost_imp2": "Street", "cost_cat2": "direct", "cost_desc2": "Pavement, curb and gutter", "cost_amt2": "33,000.00"}
	for i, id := range ids {
		report["units_"+id] = "66"
		switch i {
		case 9:
			report["units_"+id], report["exempt_"+id] = "100", "1"
		case 11:
			report["units_"+id], report["long_"+id], report["deduction_"+id] = "150", "100", "75"
		}
	}
	plans := filepath.Join(dir, "pearl-street-plans.pdf")
	if err := os.WriteFile(plans, []byte("%PDF-1.4 Pearl Street plans"), 0o600); err != nil {
		t.Fatal(err)
	}
	doWithin(t, ctx, "report: form", chromedp.Navigate(project), chromedp.WaitVisible(testid("report-form")))
	setForm(t, ctx, "report-form", report)
	doWithin(t, ctx, "report", chromedp.SetUploadFiles(testid("report-documents"), []string{plans}), chromedp.Click(testid("report-submit")), chromedp.WaitVisible(testid("notice-form")))
	if got := text(t, ctx, "estimate-total"); got != "93000.00" {
		t.Fatalf("the estimate %q", got)
	}
	if got := text(t, ctx, "net-"+ids[9]); got != "0.00" {
		t.Fatalf("the church is assessed %q", got)
	}
	if got := text(t, ctx, "village-"+ids[9]); got == "0.00" {
		t.Fatal("the village does not pay the church's share")
	}
	browsertest.Screenshot(t, ctx, "assessment-2-report")

	// June 20: the notice, and the mailed letters as a PDF.
	clock.Set("2026-06-20 10:00")
	signIn("boss")
	notice := map[string]string{"method": "posting", "place1": "Village hall", "place2": "Public library", "place3": "Post office", "notice_on": "2026-06-20", "mailed_on": "2026-06-20",
		"inspection": "Village hall, weekdays 8:00 to 16:30", "hearing_on": "2026-06-25", "hearing_at": "Village hall, 7:00 pm"}
	step("a hearing too soon", "notice-form", notice, "notice-submit", "step-error")
	if got := text(t, ctx, "step-error"); !strings.Contains(got, "10 to 40 days") {
		t.Fatalf("a hearing 5 days after the notice: %q", got)
	}
	notice["hearing_on"] = "2026-07-07"
	step("notice", "notice-form", notice, "notice-submit", "notice-letters")
	pages, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="notice-letters"]').href).then(r => r.text()).then(t => t.slice(0, 5) + ' ' + (t.split('/Type /Page\n').length - 1))`, chromedp.EvalAwaitPromise))
	if err != nil || pages != "%PDF- 12" {
		t.Fatalf("the notice letters: %q %v", pages, err)
	}
	browsertest.Screenshot(t, ctx, "assessment-3-notice")

	// July 7: the hearing; the board modifies the first parcel's frontage.
	clock.Set("2026-07-07 20:00")
	signIn("boss")
	step("hearing", "hearing-form", map[string]string{"held_on": "2026-07-07", "action": "modify", "units_" + ids[0]: "80"}, "hearing-submit", "final-form")
	if got := text(t, ctx, "hearings"); !strings.Contains(got, ids[0]) {
		t.Fatalf("the hearing's modification: %q", got)
	}

	// July 14: the final resolution; July 16 its publication; July 20 the levy.
	clock.Set("2026-07-14 20:00")
	signIn("boss")
	step("final resolution", "final-form", map[string]string{"number": "2026-40", "adopted_on": "2026-07-14", "installments": "3", "rate": "5%", "first_due_on": "2026-10-31"}, "final-submit", "publish-form")
	clock.Set("2026-07-16 09:00")
	signIn("boss")
	step("publication", "publish-form", map[string]string{"published_on": "2026-07-16", "publication": "Belleville Recorder"}, "publish-submit", "levy-form")
	clock.Set("2026-07-20 09:00")
	signIn("boss")
	step("levy", "levy-form", map[string]string{"levied_on": "2026-07-20"}, "levy-submit", "assessments")
	browsertest.Screenshot(t, ctx, "assessment-4-levy")
	as, err := domain.ReadsOf(m.Node).AssessmentsOfProject(projectID)
	if err != nil || len(as) != 11 {
		t.Fatalf("levied %d assessments (%v), want 11: the church's share is the village's", len(as), err)
	}
	first, second, third := domain.AssessmentID(projectID, ids[0]), domain.AssessmentID(projectID, ids[1]), domain.AssessmentID(projectID, ids[2])
	corner, err := domain.ReadsOf(m.Node).Assessment(domain.AssessmentID(projectID, ids[11]))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := domain.ReadsOf(m.Node).Assessment(third)
	if !corner.Amount.GreaterThan(plain.Amount) || !corner.Amount.LessThan(plain.Amount.Add(plain.Amount)) {
		t.Fatalf("the corner lot (100 of 150 feet assessed) owes %s beside 66 feet's %s", corner.Amount, plain.Amount)
	}

	// August 10, at the kiosk: the first installment of the first parcel,
	// and the whole of the second's, by card.
	clock.Set("2026-08-10 10:00")
	payAtKiosk := func(parcel, assessment, option string) string {
		t.Helper()
		doWithin(t, ctx, "kiosk "+option,
			chromedp.Navigate(kiosk+"/reset"),
			chromedp.Navigate(kiosk+"/parcels/"+parcel),
			chromedp.WaitVisible(testid("assessment-row")),
			chromedp.Click(chromedp.CSS(`[data-assessment="`+assessment+`"] a`)),
			chromedp.WaitVisible(testid("assessment-pay-"+option)),
			chromedp.Click(testid("assessment-pay-"+option)),
			chromedp.WaitVisible(testid("charge-button")),
		)
		amount := text(t, ctx, "confirm-amount")
		doWithin(t, ctx, "kiosk charge "+option, chromedp.Click(testid("charge-button")), chromedp.WaitVisible(testid("receipt-number")))
		if got := text(t, ctx, "receipt-amount"); got != amount {
			t.Fatalf("receipt %q, confirmed %q", got, amount)
		}
		return amount
	}
	payAtKiosk(ids[0], first, "installment")
	browsertest.Screenshot(t, ctx, "assessment-5-kiosk-receipt")
	payAtKiosk(ids[1], second, "full")
	a1, _ := domain.ReadsOf(m.Node).Assessment(first)
	if len(a1.Payments) != 1 || a1.Installments[0].ClosedOn.IsZero() || a1.Payments[0].Tender != domain.Card {
		t.Fatalf("the first parcel after the kiosk: %+v", a1.Payments)
	}

	// September 15: the actual cost is lower. Every assessment is reduced
	// by 5.14/adjust; the second parcel, paid in full, is owed a refund.
	clock.Set("2026-09-15 20:00")
	signIn("boss")
	step("actual cost", "change-form", map[string]string{"op": "actual_cost", "on": "2026-09-15", "reason": "Bids came in low", "actual_cost": "70,000.00"}, "change-submit", "changes")
	after, _ := domain.ReadsOf(m.Node).Assessment(third)
	if !after.Amount.LessThan(plain.Amount) {
		t.Fatalf("the third parcel's assessment %s after the lower cost, was %s", after.Amount, plain.Amount)
	}
	doWithin(t, ctx, "refund queue", chromedp.Navigate(staff+"/staff/refunds"), chromedp.WaitVisible(testid("refunds")))
	if got := text(t, ctx, "refunds"); !strings.Contains(got, second) {
		t.Fatalf("the refund queue does not list the second parcel's refund: %q", got)
	}
	browsertest.Screenshot(t, ctx, "assessment-6-refund")

	// The November run: the unpaid first installments go on the tax roll.
	clock.Set("2026-11-02 09:00")
	signIn("treas")
	doWithin(t, ctx, "penalties", chromedp.Navigate(staff+"/staff/november?year=2026"), chromedp.WaitVisible(testid("post-penalties")),
		chromedp.Click(testid("post-penalties")), chromedp.WaitVisible(testid("confirm-penalties")),
		chromedp.Click(testid("confirm-penalties")), chromedp.WaitVisible(testid("penalties-posted")))
	clock.Set("2026-11-16 09:00")
	signIn("treas")
	doWithin(t, ctx, "certify", chromedp.Navigate(staff+"/staff/november?year=2026"), chromedp.WaitVisible(testid("certify-roll")),
		chromedp.Click(testid("certify-roll")), chromedp.WaitVisible(testid("confirm-certify")),
		chromedp.Click(testid("confirm-certify")), chromedp.WaitVisible(testid("roll-certified")))
	browsertest.Screenshot(t, ctx, "assessment-7-november")
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="csv-dane"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv, third+"#1,") || !strings.Contains(csv, "installment 1 of 3, delinquent") {
		t.Fatalf("the Dane County CSV lacks the third parcel's installment:\n%s", csv)
	}
	if strings.Contains(csv, first+"#1,") || strings.Contains(csv, domain.AssessmentID(projectID, ids[9])) {
		t.Fatalf("the Dane County CSV lists a paid installment or the church:\n%s", csv)
	}
	a3, _ := domain.ReadsOf(m.Node).Assessment(third)
	if a3.Installments[0].TaxRollYear != 2026 {
		t.Fatalf("the third parcel's first installment after the run: %+v", a3.Installments[0])
	}
}
