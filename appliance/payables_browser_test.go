package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMonthOfClaimsInBrowser runs a month of accounts payable in real
// Chromium on a real node: the clerk enters two claims, the public works
// head and the treasurer certify their four conditions, the clerk
// records the signatures the board approved, the treasurer sets the check
// stock and runs the checks, the register of the month goes to the board
// as a PDF and is reviewed, and a legal claim served that month is
// disallowed by the board with its letter (§5.08).
func TestMonthOfClaimsInBrowser(t *testing.T) {
	// The demo holds the chart and this year's adopted budget.
	b := newOfficeBrowser(t, "2027-03-08T09:00",
		[4]string{"cclerk", "Casey Clerk", "clerk", ""},
		[4]string{"pwhead", "Pat Works", "department_head", "PW"},
		[4]string{"treas", "Tom Treasurer", "treasurer", ""},
		[4]string{"admin", "Ada Admin", "administrator", ""},
		[4]string{"pres", "Pat President", "president", ""})

	b.as("cclerk")
	var claims []string
	for _, c := range [][4]string{
		{"Sugar River Asphalt", "SRA-2207", "1,480.00", "Pothole patching, Hale St"},
		{"Badger Sign & Supply", "BSS-118", "312.40", "Street name signs"},
	} {
		b.open("/staff/claims", "claim-form")
		b.do("enter a claim from "+c[0],
			set(`[data-testid="claim-line"]`, "100-53300"),
			set(`[data-testid="claim-form"] input[name="vendor"]`, c[0]),
			set(`[data-testid="claim-form"] input[name="invoice"]`, c[1]),
			set(`[data-testid="claim-form"] input[name="invoice_date"]`, "2027-03-05"),
			set(`[data-testid="claim-form"] input[name="amount"]`, c[2]),
			set(`[data-testid="claim-form"] input[name="description"]`, c[3]),
			submit("claim-save", "claim-figures"),
		)
		claims = append(claims, b.eval(`location.pathname.split('/').pop()`))
	}
	b.shot("claims-1-entered")

	certify := func(claim, what, basis string) {
		t.Helper()
		b.open("/staff/claims/"+claim, "certify-form")
		steps := []chromedp.Action[chromedp.Void]{set(`[data-testid="certify-what"]`, what)}
		if basis != "" {
			steps = append(steps, set(`[data-testid="certify-basis"]`, basis))
		}
		b.do("certify "+what+" of "+claim, append(steps, submit("certify-save", "cert-"+what))...)
	}
	b.as("pwhead")
	for _, c := range claims {
		certify(c, "authorized", "work order of the public works department")
		certify(c, "conformity", "work inspected by Pat Works")
	}
	b.as("treas")
	for _, c := range claims {
		certify(c, "funds", "")
		certify(c, "valid", "")
		if got := b.text("claim-status"); got != "certified" {
			t.Fatalf("claim %s after four certifications: %q", c, got)
		}
		b.do("endorse "+c, submit("endorse-save", "claim-endorsed"))
		if got := b.text("claim-status"); got != "approved" {
			t.Fatalf("claim %s after the endorsement: %q", c, got)
		}
	}
	b.open("/staff/depositories", "depository-form")
	b.do("the checking account",
		set(`[data-testid="dep-id"]`, "BOB"),
		set(`[data-testid="dep-name"]`, "General checking"),
		set(`[data-testid="dep-institution"]`, "Bank of Belleville"),
		set(`[data-testid="dep-resolution"]`, "resolution 2027-01"),
		set(`[data-testid="dep-from"]`, "2027-01-01"),
		set(`[data-testid="dep-number"]`, "000123456789"),
		submit("dep-submit", "depository-BOB"),
	)
	b.shot("claims-2-approved")

	b.as("cclerk")
	for _, s := range [][3]string{{"sig-president", "Howard Wells", "president"}, {"sig-treasurer", "Tom Treasurer", "treasurer"}} {
		b.open("/staff/checks", "signature-form")
		b.do("the signature of "+s[1],
			set(`[data-testid="signature-form"] select[name="op"]`, "approve"),
			set(`[data-testid="signature-form"] input[name="id"]`, s[0]),
			set(`[data-testid="signature-form"] input[name="official"]`, s[1]),
			set(`[data-testid="signature-form"] select[name="office"]`, s[2]),
			set(`[data-testid="signature-form"] input[name="approval"]`, "motion of March 1, item 7"),
			set(`[data-testid="signature-form"] input[name="on"]`, "2027-03-01"),
			submit("signature-save", "signature-"+s[0]),
		)
	}

	b.setClock("2027-03-15T10:00")
	b.as("treas")
	b.open("/staff/checks", "stock-form")
	// The demo draws its own checks on another account: this run is on
	// the account the walk designated.
	b.do("the check stock", set(`[data-testid="stock-account"]`, "BOB"), set(`[data-testid="stock-form"] input[name="next"]`, "10001"), submit("stock-save", "run-form"))
	b.do("the run",
		set(`[data-testid="run-account"]`, "BOB"),
		chromedp.Click(testid("sign-sig-president")),
		chromedp.Click(testid("sign-sig-treasurer")),
		submit("run-save", "run-summary"),
	)
	if got := b.text("run-summary"); !strings.Contains(got, "2 checks, $1,792.40") || !strings.Contains(got, "sig-president, sig-treasurer") {
		t.Fatalf("the run: %q", got)
	}
	if !b.has("check-10001") || !b.has("check-10002") {
		t.Fatalf("the checks: %q", b.text("run-checks"))
	}
	if got := b.fetchHead("positive-pay"); !strings.HasPrefix(got, "text/csv; charset=utf-8 200 accou") {
		t.Fatalf("the positive-pay file: %q", got)
	}
	b.shot("claims-3-run")

	b.setClock("2027-04-06T19:30")
	b.as("treas")
	b.open("/staff/check-register?month=2027-03", "register")
	if got := b.text("register-total"); got != "$1,792.40" {
		t.Fatalf("the register's total: %q", got)
	}
	if got := b.fetchHead("register-pdf"); !strings.HasPrefix(got, "application/pdf 200 %PDF-") {
		t.Fatalf("the register's PDF: %q", got)
	}
	b.do("the board's review",
		set(`[data-testid="review-form"] input[name="on"]`, "2027-04-05"),
		set(`[data-testid="review-form"] input[name="motion"]`, "motion of April 5, item 3"),
		submit("review-save", "register-reviewed"),
	)
	b.shot("claims-4-register")

	// A claim for damages served in March, disallowed at the April meeting.
	b.as("admin")
	b.open("/staff/legal-claims", "legal-claim-form")
	b.do("the legal claim",
		set(`[data-testid="lc-claimant"]`, "Dana Roe"),
		set(`[data-testid="lc-address"]`, "12 Oak St, Belleville WI 53508"),
		set(`[data-testid="lc-description"]`, "A tire ruined by a pothole on Hale St on March 3"),
		set(`[data-testid="lc-notice-on"]`, "2027-03-09"),
		set(`[data-testid="lc-claim-on"]`, "2027-03-20"),
		set(`[data-testid="lc-amount"]`, "412.00"),
		submit("lc-submit", "legal-claim"),
	)
	if got := b.text("lc-deemed"); got != "2027-07-18" {
		t.Fatalf("deemed disallowed on %q, want 2027-07-18 (120 days after 2027-03-20)", got)
	}
	b.do("notify the President", set(`[data-testid="lc-notify-note"]`, "at the office"), submit("lc-notify-submit", "lc-attorney-waiting"))
	// The attorney is the President's decision (§5.08).
	claim := b.eval(`location.pathname`)
	b.as("pres")
	b.open(claim, "lc-attorney-form")
	b.do("the attorney", submit("lc-attorney-submit", "lc-contacted"))
	b.as("admin")
	b.open(claim, "lc-decide-form")
	b.do("the disallowance",
		set(`[data-testid="lc-decide-on"]`, "2027-04-05"),
		set(`[data-testid="lc-decide-meeting"]`, "Board meeting of 2027-04-05, item 9"),
		submit("lc-decide-submit", "lc-pdf"),
	)
	if got := b.fetchHead("lc-pdf"); !strings.HasPrefix(got, "application/pdf 200 %PDF-") {
		t.Fatalf("the disallowance letter: %q", got)
	}
	b.shot("claims-5-legal-claim")
}
