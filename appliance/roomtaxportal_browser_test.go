package main

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestRoomTaxOperatorPortal walks the hotel operator's portal in real
// Chromium on a real node (Badger, raft, the demo's card terminal
// simulator): the treasurer registers Prairie Rest and links its login;
// the operator signs in for the first time, changes its password and
// lands on its room tax home, files its first quarter from there, pays it
// by card through the terminal and reads the receipt; the home then shows
// the quarter paid and the receipt. Every page of the portal passes axe
// with no serious or critical violation.
func TestRoomTaxOperatorPortal(t *testing.T) {
	clock := &movableClock{}
	clock.set(t, "2026-03-20 10:00")
	m := NewMain()
	m.Config.DataDir, m.Config.HTTPAddr, m.Config.StaffAddr = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0"
	m.Config.Demo, m.Config.Now = true, clock.Now
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	temp := map[string]string{}
	for _, u := range []struct{ name, full, role string }{
		{"ptreas", "Pat Treasurer", "treasurer"}, {"rosarest", "Rosa Rest", "hotel_operator"},
	} {
		out, code := userCLI(t, m, "add", "--username", u.name, "--name", u.full, "--role", u.role)
		if code != 0 {
			t.Fatalf("user add %s: %s", u.name, out)
		}
		temp[u.name] = tempPassword(t, out)
	}
	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 1000, Trust: []*x509.Certificate{m.Identity().Certificate()}})
	base := "https://" + m.StaffAddr()
	const password = "prairie quarterly lodging"
	firstSignIn := func(user string) {
		t.Helper()
		rtDo(t, ctx, "first sign-in of "+user,
			chromedp.Navigate(base+"/staff/login"),
			chromedp.WaitVisible(testid("login-form")),
			chromedp.SendKeys(testid("login-username"), user),
			chromedp.SendKeys(testid("login-password"), temp[user]),
			chromedp.Click(testid("login-submit")),
			chromedp.WaitVisible(testid("password-forced")),
			chromedp.SendKeys(testid("password-current"), temp[user]),
			chromedp.SendKeys(testid("password-new"), password),
			chromedp.SendKeys(testid("password-again"), password),
			chromedp.Click(testid("password-submit")),
			chromedp.WaitVisible(testid("password-changed")),
		)
	}
	signIn := func(user string) {
		t.Helper()
		rtDo(t, ctx, "sign in as "+user,
			chromedp.Navigate(base+"/staff/login"),
			chromedp.WaitVisible(testid("login-form")),
			chromedp.SendKeys(testid("login-username"), user),
			chromedp.SendKeys(testid("login-password"), password),
			chromedp.Click(testid("login-submit")),
			chromedp.WaitVisible(testid("signed-in-as")),
		)
	}
	want := func(testid, value string) {
		t.Helper()
		if got := text(t, ctx, testid); got != value {
			browsertest.Screenshot(t, ctx, "failed-"+testid)
			t.Fatalf("%s = %q, want %q", testid, got, value)
		}
	}
	path := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		return u.Path
	}

	// March 20: the treasurer registers the operator and links its login.
	firstSignIn("ptreas")
	rtDo(t, ctx, "register the operator",
		chromedp.Navigate(base+"/staff/room-tax/operators"),
		chromedp.WaitVisible(testid("register-form")),
		chromedp.SendKeys(testid("register-name"), "Prairie Rest Inc."),
		chromedp.SendKeys(testid("register-id"), "prairie-rest"),
		chromedp.SendKeys(testid("register-permit"), "456-2038475610-01"),
		chromedp.SendKeys(testid("register-contact"), "Rosa Rest, 608-555-0142"),
		chromedp.SendKeys(testid("register-est-name-1"), "Prairie Rest Motel"),
		chromedp.SendKeys(testid("register-est-address-1"), "400 River St"),
		chromedp.Click(testid("register-submit")),
		chromedp.WaitVisible(testid("link-form")),
		chromedp.Click(testid("link-submit")),
		chromedp.WaitVisible(testid("login-rosarest")),
	)

	// April 10: the operator's first sign-in lands on its home.
	clock.set(t, "2026-04-10 09:00")
	firstSignIn("rosarest")
	if p := path(); p != "/staff/room-tax" {
		t.Fatalf("the operator landed on %s, want its room tax home", p)
	}
	rtDo(t, ctx, "the home", chromedp.WaitVisible(testid("portal-table")))
	browsertest.Screenshot(t, ctx, "portal-1-home")
	browsertest.Axe(t, ctx, "portal-1-home")
	want("operator-name", "Prairie Rest Inc.")
	want("status-2026-Q1", "due by 2026-04-30")
	if est := text(t, ctx, "operator-establishments"); !strings.Contains(est, "Prairie Rest Motel, 400 River St") {
		t.Fatalf("establishments: %q", est)
	}

	// It files Q1 from the home: 30,000.00 of gross receipts, no exemption.
	rtDo(t, ctx, "file Q1 from the home",
		chromedp.Click(testid("row-file-2026-Q1")),
		chromedp.WaitVisible(testid("file-form")),
		chromedp.SendKeys(testid("file-gross"), "30,000.00"),
		chromedp.SendKeys(testid("file-signer"), "Rosa Rest"),
		chromedp.SendKeys(testid("file-capacity"), "owner"),
		chromedp.Click(testid("file-preview")),
		chromedp.WaitVisible(testid("preview-note")),
	)
	want("fig-tax", "2100.00")
	rtDo(t, ctx, "sign Q1", chromedp.Click(testid("file-sign-box")), chromedp.Click(testid("file-sign")), chromedp.WaitVisible(testid("return-id")))
	rtDo(t, ctx, "back home", chromedp.Navigate(base+"/staff/room-tax"), chromedp.WaitVisible(testid("row-pay-2026-Q1")))
	want("status-2026-Q1", "filed · balance due")
	want("balance-2026-Q1", "2100.00")

	// April 20: it signs in again, lands on its home and pays the quarter
	// by card through the terminal.
	clock.set(t, "2026-04-20 11:00")
	signIn("rosarest")
	if p := path(); p != "/staff/room-tax" {
		t.Fatalf("the operator landed on %s, want its room tax home", p)
	}
	rtDo(t, ctx, "the pay page", chromedp.WaitVisible(testid("row-pay-2026-Q1")),
		chromedp.Click(testid("row-pay-2026-Q1")), chromedp.WaitVisible(testid("pay-form")))
	browsertest.Screenshot(t, ctx, "portal-2-pay")
	browsertest.Axe(t, ctx, "portal-2-pay")
	want("pay-balance", "2100.00")
	rtDo(t, ctx, "pay by card", chromedp.Click(testid("pay-card")), chromedp.WaitVisible(testid("charge-form")))
	browsertest.Screenshot(t, ctx, "portal-3-charge")
	browsertest.Axe(t, ctx, "portal-3-charge")
	want("charge-amount", "$2,100.00")
	rtDo(t, ctx, "charge the card", chromedp.Click(testid("charge-submit")), chromedp.WaitVisible(testid("receipt-number")))
	browsertest.Screenshot(t, ctx, "portal-4-receipt")
	browsertest.Axe(t, ctx, "portal-4-receipt")
	want("receipt-amount", "$2,100.00")
	want("receipt-tender", "card")
	want("receipt-period", "2026-Q1")
	number := text(t, ctx, "receipt-number")
	if approved := m.Terminal.Approved(); len(approved) != 1 || approved[0].Amount.String() != "2100.00" {
		t.Fatalf("the terminal's approvals: %+v", approved)
	}

	// The home shows the quarter paid and the receipt.
	rtDo(t, ctx, "home after paying", chromedp.Click(testid("receipt-home")), chromedp.WaitVisible(testid("receipt-link-"+number)))
	browsertest.Screenshot(t, ctx, "portal-5-home-paid")
	browsertest.Axe(t, ctx, "portal-5-home-paid")
	want("status-2026-Q1", "filed · paid")
	want("balance-2026-Q1", "0.00")
}
