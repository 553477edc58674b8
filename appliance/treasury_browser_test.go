package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestTreasuryInBrowser runs the treasury in real Chromium on a real node
// (Badger and Raft) with the demo data: the administrator records a legal
// claim from its notice of circumstances, tells the Village President,
// records the attorney, sees the 120 days on the start page, has a
// disallowance dated before the claim refused, records the board's
// disallowance, opens the letter as a PDF stating the six-month limit, and
// records its service by certified mail, after which the start page shows
// the last day for suit; then the treasurer takes cash at the window,
// closes the drawer, is refused a deposit to a bank the board never
// designated, records the board's designation of the Bank of Belleville
// and deposits there; then the clerk records the levy apportionment of the
// 2025 Dane roll (levies that do not add up refused first), and the
// treasurer sees the shares of the February settlement add up to the
// collections and pays the school district its share. The President
// (added with `appliance user add --role president`) records the decision
// on the attorney, which the administrator is not offered.
func TestTreasuryInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-29T10:00",
		[4]string{"admin", "Ada Admin", "administrator", ""},
		[4]string{"treas", "Tom Treasurer", "treasurer", ""},
		[4]string{"pres", "Pat President", "president", ""},
		[4]string{"clerk1", "Cal Clerk", "clerk", ""})
	m, ctx, base := b.m, b.ctx, b.base
	step, has, as := b.do, b.has, b.as
	// set sets the field with the test id.
	set := func(id, value string) chromedp.Action[chromedp.Void] {
		return chromedp.SetValue(testid(id), value)
	}

	// A legal claim, from the notice of circumstances to the letter.
	as("admin")
	step("record the claim",
		chromedp.Navigate(base+"/staff/legal-claims"),
		chromedp.WaitVisible(testid("legal-claim-form")),
		set("lc-claimant", "Dana Roe"),
		set("lc-address", "12 Oak St, Belleville WI 53508"),
		set("lc-description", "Car damaged by a pothole on W Main St on September 28"),
		set("lc-notice-on", "2026-10-01"),
		set("lc-claim-on", "2026-10-15"),
		set("lc-amount", "1,200.00"),
		submit("lc-submit", "legal-claim"),
	)
	if got := text(t, ctx, "lc-deemed"); got != "2027-02-12" {
		t.Fatalf("deemed disallowed on %q, want 2027-02-12 (120 days after 2026-10-15)", got)
	}
	id := "LC-2026-001"
	step("the start page", chromedp.Navigate(base+"/staff/"), chromedp.WaitVisible(testid("alert-legal-president-"+id)))
	if got := text(t, ctx, "alert-legal-deadline-"+id); !strings.Contains(got, "2027-02-12") {
		t.Fatalf("the start page's deadline: %q", got)
	}
	browsertest.Screenshot(t, ctx, "treasury-1-start-page")
	step("notify the President",
		chromedp.Navigate(base+"/staff/legal-claims/"+id),
		chromedp.WaitVisible(testid("lc-notify-form")),
		set("lc-notify-note", "by phone"),
		submit("lc-notify-submit", "legal-claim"),
	)
	// The attorney is the President's decision: the administrator sees it
	// waiting, the President's start page asks for it.
	step("the attorney waits for the President", chromedp.WaitVisible(testid("lc-attorney-waiting")))
	if has("lc-attorney-form") {
		t.Fatal("the administrator is offered the President's decision on the attorney")
	}
	browsertest.Axe(t, ctx, "legal claim waiting for the President")
	as("pres")
	step("the President's start page", chromedp.Navigate(base+"/staff/"), chromedp.WaitVisible(testid("alert-legal-attorney-"+id)))
	step("the President's claim page",
		chromedp.Navigate(base+"/staff/legal-claims/"+id),
		chromedp.WaitVisible(testid("lc-attorney-form")),
	)
	browsertest.Axe(t, ctx, "legal claim, the President's decision on the attorney")
	browsertest.Screenshot(t, ctx, "treasury-1b-president")
	step("the attorney", submit("lc-attorney-submit", "lc-contacted"))
	if got := text(t, ctx, "lc-attorney"); !strings.Contains(got, "pres") {
		t.Fatalf("the attorney step: %q", got)
	}
	as("admin")
	step("a disallowance dated before the claim",
		chromedp.Navigate(base+"/staff/legal-claims/"+id),
		chromedp.WaitVisible(testid("lc-decide-form")),
		set("lc-decide-on", "2026-10-10"),
		set("lc-decide-meeting", "Board meeting of 2026-11-29, item 6"),
		submit("lc-decide-submit", "form-error"),
	)
	if got := text(t, ctx, "form-error"); !strings.Contains(got, "cannot be served before the claim") {
		t.Fatalf("the refusal: %q", got)
	}
	if has("lc-outcome") {
		t.Fatal("a disallowance before the claim was recorded")
	}
	step("the disallowance",
		set("lc-decide-on", "2026-11-29"),
		set("lc-decide-meeting", "Board meeting of 2026-11-29, item 6"),
		submit("lc-decide-submit", "lc-pdf"),
	)
	letter, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="lc-pdf"]').href).then(r => r.text().then(b => r.headers.get('content-type') + ' ' + r.status + ' ' + b))`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(letter, "application/pdf 200 %PDF-") || !strings.Contains(letter, "six \\(6\\) months") {
		t.Fatalf("the letter: %.60q, %v", letter, err)
	}
	step("the notice served",
		chromedp.WaitVisible(testid("lc-notice-form")),
		set("lc-tracking-input", "9407 1118 9876 5000 1234 56"),
		submit("lc-notice-submit", "lc-tracking"),
	)
	if got := text(t, ctx, "lc-suit-deadline"); got != "2027-05-29" {
		t.Fatalf("the last day for suit %q, want 2027-05-29", got)
	}
	browsertest.Screenshot(t, ctx, "treasury-2-claim")
	step("the start page after the notice", chromedp.Navigate(base+"/staff/"), chromedp.WaitVisible(testid("alert-legal-suit-"+id)))
	var rec domain.LegalClaimRecord
	if err := m.Node.Get(domain.CollectionLegalClaims, id, &rec); err != nil || rec.Tracking == "" || rec.President == nil || rec.President.By != "admin" || rec.Attorney == nil || rec.Attorney.By != "pres" {
		t.Fatalf("the claim in the ledger: %+v %v", rec, err)
	}

	// The window, and a deposit only to a designated depository.
	as("treas")
	step("open a drawer",
		chromedp.Navigate(base+"/staff/window"),
		chromedp.WaitVisible(testid("open-form")),
		chromedp.Clear(testid("open-float")),
		chromedp.SendKeys(testid("open-float"), "100.00"),
		chromedp.Click(testid("open-drawer")),
		chromedp.WaitVisible(testid("drawer-open")),
	)
	step("a cash payment",
		chromedp.Navigate(base+"/staff/window"),
		chromedp.WaitVisible(testid("window-bill")),
		chromedp.SendKeys(testid("window-bill"), "B-2026-0102"),
		chromedp.Click(testid("window-find")),
		chromedp.WaitVisible(testid("pay-form")),
		chromedp.Clear(testid("pay-amount")),
		chromedp.SendKeys(testid("pay-amount"), "96.10"),
		chromedp.Click(testid("tender-cash")),
		chromedp.SendKeys(testid("pay-tendered"), "100.00"),
		chromedp.Click(testid("pay-submit")),
		chromedp.WaitVisible(testid("confirm-change")), // 3.90 change, shown before it posts
		chromedp.Click(testid("pay-confirm")),
		chromedp.WaitVisible(testid("receipt-number")),
	)
	step("close the drawer",
		chromedp.Navigate(base+"/staff/window/close"),
		chromedp.WaitVisible(testid("close-form")),
		chromedp.SendKeys(testid("count-cash"), "196.10"),
		chromedp.SendKeys(testid("count-checks"), "0"),
		chromedp.SendKeys(testid("count-check-count"), "0"),
		chromedp.Click(testid("close-submit")),
		chromedp.WaitVisible(testid("over-short")),
	)
	// A slip to a bank the board never designated (a form kept from
	// before, or edited): the ledger refuses it.
	step("a deposit to an undesignated bank",
		chromedp.Navigate(base+"/staff/drawers"),
		chromedp.WaitVisible(testid("deposit-form")),
	)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('[data-testid="depository"]'); const o = document.createElement('option'); o.value = 'FIRST-NATIONAL'; o.textContent = 'First National'; s.appendChild(o); s.value = 'FIRST-NATIONAL'; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	step("submit it", submit("deposit-submit", "error"))
	if got := text(t, ctx, "error"); !strings.Contains(got, "not a public depository designated by the Village Board") {
		t.Fatalf("the refusal: %q", got)
	}
	browsertest.Screenshot(t, ctx, "treasury-3-undesignated")
	step("designate the Bank of Belleville",
		chromedp.Navigate(base+"/staff/depositories"),
		chromedp.WaitVisible(testid("depository-form")),
		set("dep-id", "BOB"),
		set("dep-name", "Bank of Belleville general account"),
		set("dep-institution", "Bank of Belleville"),
		set("dep-resolution", "2026-03"),
		set("dep-from", "2026-01-01"),
		submit("dep-submit", "depository-BOB"),
	)
	step("the deposit",
		chromedp.Navigate(base+"/staff/drawers"),
		chromedp.WaitVisible(testid("deposit-form")),
		chromedp.SetValue(testid("depository"), "BOB"),
		submit("deposit-submit", "deposit-slip"),
	)
	if got := text(t, ctx, "slip-depository"); got != "Bank of Belleville general account" {
		t.Fatalf("the slip names %q", got)
	}
	if got := text(t, ctx, "slip-total"); got != "96.10" {
		t.Fatalf("the slip's total %q, want 96.10", got)
	}
	browsertest.Screenshot(t, ctx, "treasury-4-deposit")

	// The settlement of the 2025 Dane roll's January collections (the demo
	// paid them January 20-27, 2026): the clerk records the roll's levy
	// apportionment, the treasurer sees each jurisdiction's share and pays
	// the school district its share.
	as("clerk1")
	step("the levy page",
		chromedp.Navigate(base+"/staff/levy?county=dane&year=2025"),
		chromedp.WaitVisible(testid("levy-form")),
	)
	bills := text(t, ctx, "levy-bills")
	total := moneyIn(t, bills)
	if !total.IsPositive() {
		t.Fatalf("the roll's bills: %q", bills)
	}
	// County 20%, village 30%, college 5%, the school district the rest.
	cents := total.Cents()
	county, village, college := domain.Cents(cents*20/100), domain.Cents(cents*30/100), domain.Cents(cents*5/100)
	school := total.Sub(county).Sub(village).Sub(college)
	step("levies that do not add up",
		set("levy-total", total.String()),
		set("levy-levy2", county.String()),
		set("levy-levy3", village.String()),
		set("levy-code4", "belleville-sd"), set("levy-name4", "Belleville School District"),
		set("levy-levy4", school.Add(domain.Cents(1)).String()),
		set("levy-code5", "madison-college"), set("levy-name5", "Madison Area Technical College"),
		set("levy-levy5", college.String()),
		submit("levy-submit", "form-error"),
	)
	if got := text(t, ctx, "form-error"); !strings.Contains(got, "must add up exactly") {
		t.Fatalf("the refusal: %q", got)
	}
	browsertest.Axe(t, ctx, "levy apportionment refused")
	step("the levy apportionment",
		set("levy-levy4", school.String()),
		submit("levy-submit", "levy-recorded"),
	)
	browsertest.Axe(t, ctx, "levy apportionment recorded")
	browsertest.Screenshot(t, ctx, "treasury-5-levy")

	as("treas")
	step("the settlement",
		chromedp.Navigate(base+"/staff/settlements?county=dane&year=2025&period=february"),
		chromedp.WaitVisible(testid("settlement-shares")),
	)
	collected := moneyIn(t, text(t, ctx, "settlement-collected"))
	sum := domain.Cents(0)
	for _, code := range []string{"dane", "belleville", "belleville-sd", "madison-college"} {
		sum = sum.Add(moneyIn(t, text(t, ctx, "share-amount-"+code)))
	}
	if !collected.IsPositive() || !sum.Equal(collected) {
		t.Fatalf("the shares add up to %s, the collections are %s", sum, collected)
	}
	if got := text(t, ctx, "share-unsettled-belleville"); !strings.Contains(got, "kept") {
		t.Fatalf("the village's share: %q", got)
	}
	browsertest.Axe(t, ctx, "settlement with the shares")
	share := moneyIn(t, text(t, ctx, "share-amount-belleville-sd"))
	step("pay the school district its share",
		chromedp.SetValue(testid("settlement-jurisdiction"), "belleville-sd"),
		set("settlement-amount", share.String()),
		set("settlement-reference", "check 10422"),
		submit("settlement-submit", "settlement-payments"),
	)
	if got := text(t, ctx, "share-unsettled-belleville-sd"); got != "$0.00" {
		t.Fatalf("the school district's share unsettled: %q", got)
	}
	if got := text(t, ctx, "settlement-payments"); !strings.Contains(got, "Belleville School District") || !strings.Contains(got, "check 10422") {
		t.Fatalf("the payments: %q", got)
	}
	if got := b.fetchHead("settlement-pdf"); got != "application/pdf 200 %PDF-" {
		t.Fatalf("the statement PDF: %q", got)
	}
	browsertest.Screenshot(t, ctx, "treasury-6-settlement")
	var st domain.SettlementRecord
	if err := m.Node.Get(domain.CollectionCountySettlements, domain.SettlementID(domain.Dane, 2025, domain.SettleFebruary), &st); err != nil || len(st.Payments) != 1 || st.Payments[0].Jurisdiction != "belleville-sd" || !st.Payments[0].Amount.Equal(share) {
		t.Fatalf("the settlement in the ledger: %+v %v", st, err)
	}
}

// moneyIn returns the first dollar amount ("$1,234.56") in s.
func moneyIn(t *testing.T, s string) domain.Money {
	t.Helper()
	i := strings.IndexByte(s, '$')
	if i < 0 {
		t.Fatalf("no amount in %q", s)
	}
	j := i + 1
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ',' || s[j] == '.') {
		j++
	}
	m, err := domain.ParseMoney(strings.TrimRight(strings.ReplaceAll(s[i+1:j], ",", ""), "."))
	if err != nil {
		t.Fatalf("the amount in %q: %v", s, err)
	}
	return m
}
