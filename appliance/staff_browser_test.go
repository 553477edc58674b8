package main

import (
	"context"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestClerksDay drives the clerk's office in real Chromium on a real node:
// the clerk signs in with the temporary password `appliance user add`
// printed and chooses her own; opens the drawer; takes a cash payment
// (change due) and a check; completes a status letter a resident requested
// at the kiosk and opens its PDF; closes the drawer on a blind count that
// comes up short. Screenshots of each page are kept as test artifacts.
func TestClerksDay(t *testing.T) {
	dir := t.TempDir()
	m := startMain(t, dir)
	defer m.Close()
	out, code := userCLI(t, m, "add", "--username", "pclerk", "--name", "Pat Clerk", "--role", "clerk")
	if code != 0 {
		t.Fatalf("user add: %s", out)
	}
	temp := tempPassword(t, out)

	// A resident asked for a status letter at the kiosk this morning.
	cmd, err := m.Node.NewCommand(domain.KindRequestStatusLetter, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	fee := m.Node.Params().At(cmd.At.Date).StatusLetterFee
	cmd.Payload = &domain.RequestStatusLetter{Parcel: "0601-141-2003", Requester: "Sugar River Title", Contact: "closings@example.com", Fee: fee, Tender: domain.Card, Reference: "SIM-1"}
	res, err := m.Node.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	claim := res.Receipt.Number

	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 900, Trust: []*x509.Certificate{m.Identity().Certificate()}})
	base := "https://" + m.StaffAddr()
	do(t, ctx, "sign in",
		chromedp.Navigate(base+"/staff/"),
		chromedp.WaitVisible(testid("login-form")),
		chromedp.SendKeys(testid("login-username"), "pclerk"),
		chromedp.SendKeys(testid("login-password"), temp),
		chromedp.Click(testid("login-submit")),
		chromedp.WaitVisible(testid("password-forced")),
	)
	browsertest.Screenshot(t, ctx, "staff-1-forced-password")
	do(t, ctx, "choose a password",
		chromedp.SendKeys(testid("password-current"), temp),
		chromedp.SendKeys(testid("password-new"), "window at village hall"),
		chromedp.SendKeys(testid("password-again"), "window at village hall"),
		chromedp.Click(testid("password-submit")),
		chromedp.WaitVisible(testid("password-changed")),
	)
	do(t, ctx, "open the drawer",
		chromedp.Navigate(base+"/staff/window"),
		chromedp.WaitVisible(testid("open-form")),
		chromedp.Clear(testid("open-float")),
		chromedp.SendKeys(testid("open-float"), "150.00"),
		chromedp.Click(testid("open-drawer")),
		chromedp.WaitVisible(testid("drawer-open")),
	)
	drawer := text(t, ctx, "drawer-id")

	pay := func(what, bill, amount, tender, tendered, ref string) {
		t.Helper()
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.Navigate(base + "/staff/window"),
			chromedp.WaitVisible(testid("window-bill")),
			chromedp.SendKeys(testid("window-bill"), bill),
			chromedp.Click(testid("window-find")),
			chromedp.WaitVisible(testid("pay-form")),
			chromedp.Clear(testid("pay-amount")),
			chromedp.SendKeys(testid("pay-amount"), amount),
			chromedp.Click(testid("tender-" + tender)),
		}
		if tendered != "" {
			steps = append(steps, chromedp.SendKeys(testid("pay-tendered"), tendered))
		}
		if ref != "" {
			steps = append(steps, chromedp.SendKeys(testid("pay-reference"), ref))
		}
		steps = append(steps, chromedp.Click(testid("pay-submit")))
		if tender == "cash" && tendered != "" && tendered != amount {
			// The change due is shown before the payment posts.
			steps = append(steps, chromedp.WaitVisible(testid("confirm-change")), chromedp.Click(testid("pay-confirm")))
		}
		steps = append(steps, chromedp.WaitVisible(testid("receipt-number")))
		do(t, ctx, what, steps...)
	}
	// Demo bills: B-2026-0101 142.37 and B-2026-0102 96.10, both current.
	pay("cash payment", "B-2026-0101", "142.37", "cash", "160.00", "")
	browsertest.Screenshot(t, ctx, "staff-2-cash-receipt")
	if got := text(t, ctx, "change-due"); got != "17.63" {
		t.Fatalf("change due %q, want 17.63", got)
	}
	pay("check payment", "B-2026-0102", "96.10", "check", "", "4417")
	if got := text(t, ctx, "receipt-balance"); got != "0.00" {
		t.Fatalf("balance after the check %q", got)
	}

	do(t, ctx, "letter queue",
		chromedp.Navigate(base+"/staff/letters"),
		chromedp.WaitVisible(testid("letter-"+claim)),
		chromedp.Click(testid("letter-"+claim)),
		chromedp.WaitVisible(testid("letter-form")),
	)
	open, err := m.Node.Bill("B-2026-0103")
	if err != nil {
		t.Fatal(err)
	}
	if f := text(t, ctx, "letter-facts"); !strings.Contains(f, "Bill "+open.Shown()+",") {
		t.Fatalf("the letter's facts do not list the parcel's open bill %s: %q", open.Shown(), f)
	}
	do(t, ctx, "complete the letter",
		chromedp.SendKeys(testid("letter-changes"), "none"),
		chromedp.SendKeys(testid("letter-deferred"), "none"),
		chromedp.SendKeys(testid("letter-improvements"), "Pearl Street sidewalk replacement is planned for 2027."),
		chromedp.SendKeys(testid("letter-violations"), "none known"),
		chromedp.Click(testid("letter-complete")),
		chromedp.WaitVisible(testid("letter-pdf")),
	)
	browsertest.Screenshot(t, ctx, "staff-3-letter")
	number := text(t, ctx, "letter-pdf")
	if !strings.HasPrefix(number, "SL-2026-0001") {
		t.Fatalf("letter number %q", number)
	}
	// Open the PDF in the signed-in browser: same origin, same session.
	head, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="letter-pdf"]').href).then(r => r.headers.get('content-type') + ' ' + r.status + ' ' + r.url).then(s => s)`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(head, "application/pdf 200") {
		t.Fatalf("the letter's PDF: %q, %v", head, err)
	}
	magic, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="letter-pdf"]').href).then(r => r.text()).then(t => t.slice(0, 5))`, chromedp.EvalAwaitPromise))
	if err != nil || magic != "%PDF-" {
		t.Fatalf("the letter's PDF starts %q, %v", magic, err)
	}

	do(t, ctx, "close the drawer",
		chromedp.Navigate(base+"/staff/window/close"),
		chromedp.WaitVisible(testid("close-form")),
		chromedp.SendKeys(testid("count-cash"), "291.37"),
		chromedp.SendKeys(testid("count-checks"), "96.10"),
		chromedp.SendKeys(testid("count-check-count"), "1"),
	)
	browsertest.Screenshot(t, ctx, "staff-4-blind-count")
	do(t, ctx, "post the count", chromedp.Click(testid("close-submit")), chromedp.WaitVisible(testid("over-short")))
	browsertest.Screenshot(t, ctx, "staff-5-drawer-closed")
	// Expected cash 150.00 float + 142.37 = 292.37; counted 291.37.
	if got := text(t, ctx, "over-short"); got != "-1.00" {
		t.Fatalf("over/short %q, want -1.00", got)
	}
	var d domain.Drawer
	if err := m.Node.Get(domain.CollectionDrawers, drawer, &d); err != nil || !d.Closed || len(d.Payments) != 2 {
		t.Fatalf("drawer in the ledger: %+v %v", d, err)
	}
}
