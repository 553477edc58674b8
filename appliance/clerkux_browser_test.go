package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// domainMoney parses an amount a page showed.
func domainMoney(t *testing.T, s string) domain.Money {
	t.Helper()
	m, err := domain.ParseMoney(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return m
}

// TestTaxRollIsWhatTheLedgerCertifiedInBrowser: in real
// Chromium on a real node, a bill unpaid a month after November 15 whose
// November run nobody gave is not "on the tax roll": the kiosk shows it
// payable with the certification pending, and the clerk's start page
// flags the run not done. Once the treasurer certifies it on December
// 15, the kiosk gives that date as the date on the roll, names the day
// §5.10 uses, and takes no payment; the county CSV carries both dates.
func TestTaxRollIsWhatTheLedgerCertifiedInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-03-02T10:00",
		[4]string{"clerk", "Casey Clerk", "clerk", ""},
		[4]string{"treas", "Tom Treasurer", "treasurer", ""})
	b.as("clerk")
	b.open("/staff/bills/new", "bill-form")
	b.do("create a bill",
		set(`[data-testid="bill-account"]`, "100101"),
		set(`[data-testid="bill-parcel"]`, "0601-141-2001"),
		set(`[data-testid="bill-description"]`, "Brush pickup, three loads"),
		set(`[data-testid="bill-date"]`, "2026-03-02"),
		set(`[data-testid="bill-amount"]`, "200.00"),
		submit("bill-submit", "bill-created"),
	)
	// The page names the bill by its number; its address, by its ID.
	id := strings.TrimPrefix(b.eval(`location.pathname`), "/staff/bills/")
	created := b.text("bill-created")
	if !strings.HasPrefix(created, "Bill 2026-") {
		t.Fatalf("the new bill is announced as %q, not by its number", created)
	}
	number := strings.Fields(created)[1]

	// December 15: both dates long past, no November run given.
	b.setClock("2026-12-15T10:00")
	kioskBill := func(state string) {
		b.t.Helper()
		b.do("kiosk bill page", chromedp.Navigate(b.kiosk+"/bills/"+id), chromedp.WaitVisible(testid(state)))
	}
	kioskBill("tax-roll-pending")
	if b.has("tax-roll-notice") || !b.has("pay-button") {
		t.Fatalf("an uncertified bill on December 15: notice %v, pay button %v", b.has("tax-roll-notice"), b.has("pay-button"))
	}
	if got := b.text("tax-roll-pending"); !strings.Contains(got, "November 15, 2026") || !strings.Contains(got, "not certified") {
		t.Fatalf("pending notice %q", got)
	}
	if got := b.text("amount-due"); got != "$227.00" {
		t.Fatalf("amount due %q, want $227.00 (8 months of 3.00 interest, penalty 3.00)", got)
	}
	b.shot("taxroll-1-kiosk-pending")
	browsertest.Axe(t, b.ctx, "taxroll-1-kiosk-pending")
	b.do("kiosk bill page in Spanish", chromedp.Navigate(b.kiosk+"/bills/"+id+"?lang=es"), chromedp.WaitVisible(testid("tax-roll-pending")))
	if got := b.text("tax-roll-pending"); !strings.Contains(got, "todavía no la ha certificado") {
		t.Fatalf("pending notice in Spanish %q", got)
	}
	browsertest.Axe(t, b.ctx, "taxroll-2-kiosk-pending-es")
	b.do("kiosk back to English", chromedp.Navigate(b.kiosk+"/bills/"+id+"?lang=en"), chromedp.WaitVisible(testid("tax-roll-pending")))

	// The start page says the run is not done.
	b.as("treas")
	b.open("/staff/", "alert-november-roll")
	if got := b.text("alert-november-penalties"); !strings.Contains(got, "2026 November penalties are not posted") {
		t.Fatalf("penalty alert %q", got)
	}
	if got := b.text("alert-november-roll"); !strings.Contains(got, "2026 tax roll is not certified") {
		t.Fatalf("roll alert %q", got)
	}
	if b.has("no-alerts") {
		t.Fatal(`"Nothing needs attention" with the November run not done`)
	}
	// The start page is the treasurer's work queue: the run's steps are
	// overdue, counted, under the navigation grouped by office.
	if got := b.text("queue-overdue"); !strings.Contains(got, "2026 tax roll is not certified") || !strings.Contains(got, "due 2026-11-15") {
		t.Fatalf("the overdue work: %q", got)
	}
	if !b.has("nav-office") {
		t.Fatal("the navigation is not grouped by office")
	}
	browsertest.Axe(t, b.ctx, "november-0-work-queue")
	b.shot("taxroll-3-start-page")

	// The treasurer runs it.
	runNovember(b, 2026)
	if got := b.text("roll-law"); !strings.Contains(got, "2026-11-15") || !strings.Contains(got, "date of certification") {
		t.Fatalf("the November page on the law's date: %q", got)
	}
	csv := b.eval(`fetch(document.querySelector('[data-testid="csv-dane"]').href).then(r => r.text())`)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasSuffix(lines[0], "certified_on,command_id,tax_roll_on,bill_number") {
		t.Fatalf("CSV header %q", lines[0])
	}
	found := false
	for _, l := range lines[1:] {
		if strings.Contains(l, ","+id+",") {
			found = true
			if !strings.Contains(l, ",227.00,2026-12-15,") || !strings.Contains(l, ",2026-11-15,") || !strings.HasSuffix(l, ","+number) {
				t.Fatalf("CSV line %q: want 227.00 certified on 2026-12-15, tax_roll_on 2026-11-15, the bill's number %s last", l, number)
			}
		}
	}
	if !found {
		t.Fatalf("bill %s not in the Dane CSV:\n%s", id, csv)
	}
	b.open("/staff/", "dashboard-today")
	if b.has("alert-november-roll") || b.has("alert-november-penalties") {
		t.Fatal("the start page still flags the November run once it is done")
	}

	kioskBill("tax-roll-notice")
	got := b.text("tax-roll-notice")
	if !strings.Contains(got, "On December 15, 2026 the village certified") || !strings.Contains(got, "end of November 15, 2026") {
		t.Fatalf("tax roll notice %q", got)
	}
	if b.has("pay-button") || b.has("tax-roll-pending") {
		t.Fatal("a certified bill still offers payment")
	}
	b.shot("taxroll-4-kiosk-certified")
	browsertest.Axe(t, b.ctx, "taxroll-4-kiosk-certified")
}

// runNovember posts the penalties and certifies the roll of year on the
// November page, as the treasurer signed in. Each step first shows its
// totals and posts nothing until confirmed, and no two columns of its
// table share a heading, so a reader never mistakes one figure for another.
func runNovember(b *officeBrowser, year int) {
	b.t.Helper()
	distinctHeads := func(table string) {
		b.t.Helper()
		heads := b.eval(`[...document.querySelectorAll('[data-testid="` + table + `"] thead th')].map(e => e.textContent.trim()).join("|")`)
		seen := map[string]bool{}
		for _, h := range strings.Split(heads, "|") {
			if seen[h] {
				b.t.Fatalf("table %s: two columns headed %q (%s)", table, h, heads)
			}
			seen[h] = true
		}
	}
	b.open(fmt.Sprintf("/staff/november?year=%d", year), "post-penalties")
	distinctHeads("penalties")
	distinctHeads("roll")
	b.do("review the penalties", submit("post-penalties", "november-confirm"))
	if got := b.text("confirm-summary"); !strings.Contains(got, "Post the §5.10 penalty on") || !strings.Contains(got, "in all") {
		b.t.Fatalf("penalty confirm %q", got)
	}
	distinctHeads("confirm-rows")
	b.shot("november-1-confirm-penalties")
	browsertest.Axe(b.t, b.ctx, "november-1-confirm-penalties")
	b.open(fmt.Sprintf("/staff/november?year=%d", year), "penalties-preview") // nothing posted by the review
	b.do("review the penalties again", submit("post-penalties", "november-confirm"))
	b.do("post the penalties", submit("confirm-penalties", "penalties-posted"))
	b.do("review the roll", submit("certify-roll", "november-confirm"))
	if got := b.text("confirm-summary"); !strings.Contains(got, "Certify") || !strings.Contains(got, "certified on") {
		b.t.Fatalf("certify confirm %q", got)
	}
	distinctHeads("confirm-rows")
	browsertest.Axe(b.t, b.ctx, "november-2-confirm-certify")
	b.do("certify the roll", submit("confirm-certify", "roll-certified"))
	b.shot("november-3-certified")
}

// windowPay takes a payment at the clerk's window for bill, the drawer
// open, and returns the receipt number. tender is "cash" (tendered: the
// cash handed over) or "check" (ref: its number).
func windowPay(b *officeBrowser, bill, amount, tender, tendered, ref string) string {
	b.t.Helper()
	b.open("/staff/window?bill="+bill, "pay-form")
	steps := []chromedp.Action[chromedp.Void]{set(`[data-testid="pay-amount"]`, amount), chromedp.Click(testid("tender-" + tender))}
	if tendered != "" {
		steps = append(steps, set(`[data-testid="pay-tendered"]`, tendered))
	}
	if ref != "" {
		steps = append(steps, set(`[data-testid="pay-reference"]`, ref), set(`[data-testid="pay-payer"]`, "Ana Gutierrez"))
	}
	b.do("take "+amount+" "+tender+" on "+bill, append(steps, submit("pay-submit", "receipt-number"))...)
	return b.text("receipt-number")
}

// TestDrawerCloseCountsEachTenderInBrowser: a check
// taken and returned unpaid the same day leaves the drawer's expected
// checks; the cashier 0.90 short in cash sees −0.90 in cash and 0.00 in
// checks, not one −153.15-like figure that blames the bounced check.
func TestDrawerCloseCountsEachTenderInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-30T09:00", [4]string{"clerk", "Casey Clerk", "clerk", ""})
	b.as("clerk")
	b.open("/staff/window", "open-form")
	b.do("open the drawer", set(`[data-testid="open-float"]`, "100.00"), submit("open-drawer", "drawer-open"))
	windowPay(b, "B-2026-0101", "40.00", "cash", "40.00", "")
	check := windowPay(b, "B-2026-0102", "96.10", "check", "", "2001")
	b.do("the check comes back", chromedp.Click(testid("return-check")), chromedp.WaitVisible(testid("return-form")), submit("return-submit", "returned-notice"))
	b.open("/staff/window/close", "close-form")
	b.do("the blind count",
		set(`[data-testid="count-cash"]`, "139.10"),
		set(`[data-testid="count-checks"]`, "0.00"),
		set(`[data-testid="count-check-count"]`, "0"),
		submit("close-submit", "drawer-count"),
	)
	got := [5]string{b.text("expected-cash"), b.text("expected-checks"), b.text("cash-over-short"), b.text("checks-over-short"), b.text("over-short")}
	if want := [5]string{"140.00", "0.00", "-0.90", "0.00", "-0.90"}; got != want {
		t.Fatalf("expected cash, expected checks, cash over/short, checks over/short, drawer = %v, want %v", got, want)
	}
	if !strings.Contains(b.text("returned-"+check), "returned unpaid") {
		t.Fatalf("the returned check is not marked in the drawer: %q", b.text("returned-"+check))
	}
	b.shot("drawer-1-closed")
	browsertest.Axe(t, b.ctx, "drawer-1-closed")
}

// TestWindowOverpaymentsInBrowser: $150 cash typed as
// the amount on a $142.37 balance shows 7.63 change due before it posts and
// posts 142.37 with no refund; a $100 check on $96.10 warns that 3.90
// becomes a refund and posts only once confirmed.
func TestWindowOverpaymentsInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-30T09:00", [4]string{"clerk", "Casey Clerk", "clerk", ""})
	b.as("clerk")
	b.open("/staff/window", "open-form")
	b.do("open the drawer", set(`[data-testid="open-float"]`, "100.00"), submit("open-drawer", "drawer-open"))

	b.open("/staff/window?bill=B-2026-0101", "pay-form")
	b.do("cash over the balance", set(`[data-testid="pay-amount"]`, "150.00"), chromedp.Click(testid("tender-cash")),
		set(`[data-testid="pay-tendered"]`, "150.00"), submit("pay-submit", "pay-confirm-form"))
	if got := [3]string{b.text("confirm-amount"), b.text("confirm-tendered"), b.text("confirm-change")}; got != [3]string{"142.37", "150.00", "7.63"} {
		t.Fatalf("cash confirm: paid, handed over, change = %v", got)
	}
	b.shot("window-1-cash-confirm")
	browsertest.Axe(t, b.ctx, "window-1-cash-confirm")
	b.do("post the cash", submit("pay-confirm", "receipt-number"))
	if got := [3]string{b.text("receipt-amount"), b.text("change-due"), b.text("receipt-balance")}; got != [3]string{"142.37", "7.63", "0.00"} {
		t.Fatalf("cash receipt: amount, change, balance = %v", got)
	}
	if b.has("receipt-overpayment") {
		t.Fatal("cash change became a refund")
	}

	b.open("/staff/window?bill=B-2026-0102", "pay-form")
	b.do("a check over the balance", set(`[data-testid="pay-amount"]`, "100.00"), chromedp.Click(testid("tender-check")),
		set(`[data-testid="pay-reference"]`, "3003"), set(`[data-testid="pay-payer"]`, "Robert Lindqvist"), submit("pay-submit", "pay-confirm-form"))
	if got := b.text("confirm-overpayment"); !strings.Contains(got, "3.90 of it becomes a refund due") {
		t.Fatalf("check warning %q", got)
	}
	b.shot("window-2-check-confirm")
	browsertest.Axe(t, b.ctx, "window-2-check-confirm")
	b.do("take the check", submit("pay-confirm", "receipt-number"))
	if got := b.text("receipt-overpayment"); got != "3.90" {
		t.Fatalf("check receipt overpayment %q", got)
	}
}

// TestReturnedCheckNoticeInBrowser: a check for a
// past-due bill's 152.25 (150.00 and a month's interest) comes back; the
// notice says the payer owes the bill's balance, its interest in it, plus
// the fee, as one figure, and never "plus the interest" on top of it.
func TestReturnedCheckNoticeInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-30T09:00", [4]string{"clerk", "Casey Clerk", "clerk", ""})
	b.as("clerk")
	b.open("/staff/window", "open-form")
	b.do("open the drawer", set(`[data-testid="open-float"]`, "0.00"), submit("open-drawer", "drawer-open"))
	// Demo: B-2026-0106, 150.00 billed 45 days ago: one month of interest.
	windowPay(b, "B-2026-0106", "152.25", "check", "", "5150")
	if got := b.text("receipt-balance"); got != "0.00" {
		t.Fatalf("the check did not pay the bill: balance %s", got)
	}
	b.do("the check comes back", chromedp.Click(testid("return-check")), chromedp.WaitVisible(testid("return-form")), submit("return-submit", "returned-notice"))
	notice := b.text("returned-notice")
	if strings.Contains(notice, "plus the interest") {
		t.Fatalf("the notice adds the interest to a figure that holds it: %q", notice)
	}
	fee := strings.TrimPrefix(b.text("notice-fee"), "$")
	want := "$" + domainMoney(t, "152.25").Add(domainMoney(t, fee)).String()
	if got := b.text("notice-owed"); got != want || !strings.Contains(notice, "$152.25 on bill B-2026-0106, its interest counted") {
		t.Fatalf("owed %q, want %s (152.25 with its interest, and the %s fee): %q", got, want, fee, notice)
	}
	b.shot("returned-check-notice")
	browsertest.Axe(t, b.ctx, "returned-check-notice")
}

// TestStatusLetterPDFInBrowser: a treasurer completes
// the status letter of a parcel whose tax bill carries a special
// assessment; the PDF, fetched in the signed-in browser, names her and her
// office (not "Village Clerk", not her username), shows $4,406.47-style
// amounts, lists the special assessment only inside the tax total, sets
// the floodplain answer under its own heading, and keeps the signature
// with the text above it.
func TestStatusLetterPDFInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-12-01T10:00", [4]string{"ttreas", "Tina Treasurer", "treasurer", ""})
	b.do("kiosk letter request",
		chromedp.Navigate(b.kiosk+"/letters"),
		chromedp.WaitVisible(testid("letter-form")),
		set(`[data-testid="letter-parcel"]`, "17 E Church St"),
		set(`[data-testid="letter-name"]`, "Sugar River Title"),
		set(`[data-testid="letter-contact"]`, "608-555-0142"),
		chromedp.Click(testid("letter-continue")), chromedp.WaitVisible(testid("letter-summary")),
		chromedp.Click(testid("charge-button")), chromedp.WaitVisible(testid("claim-number")),
	)
	claim := b.text("claim-number")
	b.as("ttreas")
	b.open("/staff/letters/"+claim, "letter-form")
	b.do("complete the letter",
		set(`[data-testid="letter-changes"]`, "None."),
		set(`[data-testid="letter-deferred"]`, "None."),
		set(`[data-testid="letter-improvements"]`, "None planned."),
		set(`[data-testid="letter-floodplain"]`, "Not in a mapped floodplain."),
		set(`[data-testid="letter-violations"]`, "None."),
		submit("letter-complete", "letter-pdf"),
	)
	raw := b.eval(`fetch(document.querySelector('[data-testid="letter-pdf"]').href).then(r => r.arrayBuffer()).then(a => { let s = ""; for (const c of new Uint8Array(a)) s += String.fromCharCode(c); return s })`)
	if !strings.HasPrefix(raw, "%PDF-") {
		t.Fatalf("not a PDF: %.40q", raw)
	}
	// The uncompressed page streams, in page order, and their text.
	type line struct {
		page int
		y    float64
		s    string
	}
	var lines []line
	op := regexp.MustCompile(`BT [0-9.]+ ([0-9.]+) Td \((.*?)\) ?Tj ET`)
	for page, rest := 0, raw; ; {
		i := strings.Index(rest, "stream\n")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "endstream")
		page++
		for _, m := range op.FindAllStringSubmatch(rest[i:i+j], -1) {
			y, _ := strconv.ParseFloat(m[1], 64)
			lines = append(lines, line{page, y, strings.ReplaceAll(m[2], `\`, "")})
		}
		rest = rest[i+j+len("endstream"):]
	}
	find := func(sub string) line {
		t.Helper()
		for _, l := range lines {
			if strings.Contains(l.s, sub) {
				return l
			}
		}
		t.Fatalf("%q not in the letter: %v", sub, lines)
		return line{}
	}
	sig := find("Tina Treasurer, Village Finance Director/Treasurer")
	if closing := find("This statement reports"); closing.page != sig.page {
		t.Fatalf("the signature on page %d, the text it signs on page %d", sig.page, closing.page)
	}
	for _, bad := range []string{"ttreas", "Village Clerk", "prepared by"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("the letter says %q", bad)
		}
	}
	if !regexp.MustCompile(`\$[0-9]{1,3},[0-9]{3}\.[0-9]{2}`).MatchString(raw) || regexp.MustCompile(`\$[0-9]{4,}\.[0-9]{2}`).MatchString(raw) {
		t.Fatal("the letter's amounts are not grouped by thousands")
	}
	n := 0
	for _, l := range lines {
		if strings.Contains(l.s, "412.60") {
			n++
		}
	}
	if find("Special assessment: sidewalk replacement"); n != 1 {
		t.Fatalf("the special assessment's 412.60 appears %d times; it is in the tax total once", n)
	}
	if head, answer := find("Floodplain status"), find("Not in a mapped floodplain"); head.page == answer.page && head.y <= answer.y {
		t.Fatal("the floodplain answer is not set below its heading")
	}
	b.shot("letter-1-completed")
}

// TestJournalSearchInBrowser: the treasurer takes a
// payment, then finds it in the journal by its bill number typed as text,
// by bill, by receipt and by account; the CSV has the amount, bill and
// receipt, and RFC 3339 times with the offset.
func TestJournalSearchInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-30T09:00", [4]string{"treas", "Tom Treasurer", "treasurer", ""})
	b.as("treas")
	b.open("/staff/window", "open-form")
	b.do("open the drawer", set(`[data-testid="open-float"]`, "0.00"), submit("open-drawer", "drawer-open"))
	receipt := windowPay(b, "B-2026-0102", "96.10", "check", "", "4417")
	for _, f := range [][2]string{{"journal-q", "B-2026-0102"}, {"journal-bill", "B-2026-0102"}, {"journal-receipt", receipt}, {"journal-account", "100102"}} {
		b.open("/staff/journal", "journal-search")
		b.do("search the journal by "+f[0], set(`[data-testid="`+f[0]+`"]`, f[1]), submit("journal-submit", "journal-count"))
		if got := b.text("journal"); !strings.Contains(got, receipt) || !strings.Contains(got, "$96.10") || !strings.Contains(got, "window_payment") {
			t.Fatalf("journal by %s %s: %q", f[0], f[1], got)
		}
	}
	b.shot("journal-1-by-account")
	csv := b.eval(`fetch(document.querySelector('[data-testid="journal-csv"]').href).then(r => r.text())`)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasSuffix(lines[0], ",bill,receipt,account,amount") || !strings.Contains(lines[0], ",at,") {
		t.Fatalf("CSV header %q", lines[0])
	}
	found := false
	for _, l := range lines[1:] {
		if strings.Contains(l, receipt) {
			found = true
			if !strings.Contains(l, ",2026-11-30T09:") || !strings.Contains(l, "-06:00,") || !strings.HasSuffix(l, ",B-2026-0102,"+receipt+",100102,96.10") {
				t.Fatalf("CSV line %q", l)
			}
		}
	}
	if !found {
		t.Fatalf("the payment is not in the CSV:\n%s", csv)
	}
}

// media emulates a CSS media type ("print"; "" for the screen again).
func media(m string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
		return err
	})
}

// TestWindowAndRefundsInBrowser: the clerk finds a
// payer's bills at the window by account number and by address; a check's
// receipt has no "Cash handed over", prints from its button on letterhead
// without the command id or the links; the treasurer's refund queue names
// the payee and the address, and the approval asks to be confirmed.
func TestWindowAndRefundsInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-11-30T09:00",
		[4]string{"clerk", "Casey Clerk", "clerk", ""},
		[4]string{"treas", "Tom Treasurer", "treasurer", ""})
	b.as("clerk")
	b.open("/staff/window", "open-form")
	b.do("open the drawer", set(`[data-testid="open-float"]`, "0.00"), submit("open-drawer", "drawer-open"))
	// Demo: account 100102, 22 S Vine St, bill B-2026-0102 for 96.10.
	for _, q := range []string{"100102", "22 s vine street"} {
		b.do("look up "+q, set(`[data-testid="window-bill"]`, q), submit("window-find", "window-matches"))
		if !b.has("window-match-B-2026-0102") {
			t.Fatalf("%q does not find B-2026-0102: %q", q, b.text("window-matches"))
		}
	}
	b.shot("window-3-lookup")
	browsertest.Axe(t, b.ctx, "window-3-lookup")
	b.do("choose the bill", chromedp.Click(testid("window-match-B-2026-0102")), chromedp.WaitVisible(testid("pay-form")))
	b.do("a check over the balance", set(`[data-testid="pay-amount"]`, "100.00"), chromedp.Click(testid("tender-check")),
		set(`[data-testid="pay-reference"]`, "3003"), set(`[data-testid="pay-payer"]`, "Robert Lindqvist"), submit("pay-submit", "pay-confirm-form"))
	b.do("take the check", submit("pay-confirm", "receipt-number"))
	if strings.Contains(b.text("receipt"), "Cash handed over") {
		t.Fatalf("a check's receipt: %q", b.text("receipt"))
	}
	if !strings.Contains(b.text("receipt-letterhead"), "Village of Belleville") {
		t.Fatalf("letterhead %q", b.text("receipt-letterhead"))
	}
	// The button prints (window.print is watched, as a headless browser
	// has no print dialog); in print the command id and links are gone.
	b.eval(`new Promise(r => { window.__printed = "no"; window.print = () => { window.__printed = "yes" }; r("ok") })`)
	b.do("print the receipt", chromedp.Click(testid("print-receipt")))
	if got := b.eval(`Promise.resolve(window.__printed)`); got != "yes" {
		t.Fatalf("the print button did not print: %q", got)
	}
	b.do("print media", media("print"))
	if got := b.eval(`Promise.resolve([...document.querySelectorAll('.cmd, .top, [data-testid="back-to-window"], [data-testid="print-receipt"]')].filter(e => e.offsetParent !== null).map(e => e.textContent.trim()).join("|"))`); got != "" {
		t.Fatalf("printed with %q", got)
	}
	if got := b.eval(`Promise.resolve(getComputedStyle(document.querySelector('[data-testid="receipt"] a')).textDecorationLine)`); got != "none" {
		t.Fatalf("a link prints as a link: %q", got)
	}
	b.shot("receipt-print")
	b.do("screen media", media(""))
	browsertest.Axe(t, b.ctx, "receipt-check")

	b.as("treas")
	b.open("/staff/refunds", "refunds")
	row := b.eval(`Promise.resolve([...document.querySelectorAll('[data-testid^="refund-payee-"]')].map(e => e.textContent.replace(/\s+/g, " ").trim()).join("|"))`)
	if !strings.Contains(row, "Robert Lindqvist 22 S Vine St") {
		t.Fatalf("refund queue payee %q", row)
	}
	cmd := b.eval(`Promise.resolve(document.querySelector('tr[data-refund]').dataset.refund)`)
	b.do("approve", submit("approve-"+cmd, "approve-confirm-form"))
	if got := b.text("approve-summary"); !strings.Contains(got, "$3.90 to Robert Lindqvist, 22 S Vine St") {
		t.Fatalf("approval confirm %q", got)
	}
	browsertest.Axe(t, b.ctx, "refund-approve-confirm")
	b.do("confirm the approval", submit("approve-confirm-"+cmd, "refunds"))
	if got := b.text("refund-state-" + cmd); !strings.Contains(got, "approved") {
		t.Fatalf("refund state %q", got)
	}
}
