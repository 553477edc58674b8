package main

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// movableClock is the village clock of a test that lives through a year
// of room tax quarters in a few minutes.
type movableClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movableClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *movableClock) set(t *testing.T, s string) {
	loc, err := time.LoadLocation(Village)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = at
}

// rtDo runs the steps of one thing the user does, failing within a
// minute with the page's address and text (not after the whole test's
// five minutes with nothing to go on).
func rtDo(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		browsertest.Screenshot(t, ctx, "failed-"+what)
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		if len(body) > 3000 {
			body = body[:3000]
		}
		t.Fatalf("%s: %v\nat %s:\n%s", what, err, loc, body)
	}
}

// TestRoomTaxYear drives the room tax in real Chromium on a real node
// (Badger, raft): the treasurer registers Belle Inn and links its
// operator's login; the operator signs in and files Q1 with one valid and
// one invalid exemption, seeing the rule's figures before signing; pays
// part of it by card at the kiosk (the one checkout, simulated terminal);
// files Q2 late and sees the late filing fee and interest; the treasurer
// grants an extension of Q3 and issues an office audit determination of
// Q1; an auditor reads the return, giving a reason, and the read is in
// the journal with the auditor as its actor; the kiosk shows the year's
// collections in total only.
func TestRoomTaxYear(t *testing.T) {
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
		{"ftreas", "Fran Treasurer", "treasurer"}, {"annbelle", "Ann Belle", "hotel_operator"}, {"audrey", "Audrey Auditor", "auditor"},
	} {
		out, code := userCLI(t, m, "add", "--username", u.name, "--name", u.full, "--role", u.role)
		if code != 0 {
			t.Fatalf("user add %s: %s", u.name, out)
		}
		temp[u.name] = tempPassword(t, out)
	}
	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 1000, Trust: []*x509.Certificate{m.Identity().Certificate()}})
	base := "https://" + m.StaffAddr()
	password := func(string) string { return "belleville quarterly returns" } // must not contain the username
	signIn := func(user string) {
		t.Helper()
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.Navigate(base + "/staff/login"),
			chromedp.WaitVisible(testid("login-form")),
			chromedp.SendKeys(testid("login-username"), user),
		}
		if first, ok := temp[user]; ok {
			delete(temp, user)
			steps = append(steps, chromedp.SendKeys(testid("login-password"), first), chromedp.Click(testid("login-submit")), chromedp.WaitVisible(testid("password-forced")),
				chromedp.SendKeys(testid("password-current"), first), chromedp.SendKeys(testid("password-new"), password(user)),
				chromedp.SendKeys(testid("password-again"), password(user)), chromedp.Click(testid("password-submit")), chromedp.WaitVisible(testid("password-changed")))
		} else {
			steps = append(steps, chromedp.SendKeys(testid("login-password"), password(user)), chromedp.Click(testid("login-submit")), chromedp.WaitVisible(testid("signed-in-as")))
		}
		rtDo(t, ctx, "sign in as "+user, steps...)
	}
	want := func(testid, value string) {
		t.Helper()
		if got := text(t, ctx, testid); got != value {
			browsertest.Screenshot(t, ctx, "failed-"+testid)
			t.Fatalf("%s = %q, want %q", testid, got, value)
		}
	}

	// March 20: the treasurer registers the operator and links its login.
	signIn("ftreas")
	rtDo(t, ctx, "register the operator",
		chromedp.Navigate(base+"/staff/room-tax/operators"),
		chromedp.WaitVisible(testid("register-form")),
		chromedp.SendKeys(testid("register-name"), "Belle Inn LLC"),
		chromedp.SendKeys(testid("register-id"), "belle-inn"),
		chromedp.SendKeys(testid("register-permit"), "456-1027384756-02"),
		chromedp.SendKeys(testid("register-contact"), "Ann Belle, 608-555-0100"),
		chromedp.SendKeys(testid("register-est-name-1"), "Belle Inn"),
		chromedp.SendKeys(testid("register-est-address-1"), "12 Vine St"),
		chromedp.Click(testid("register-submit")),
		chromedp.WaitVisible(testid("link-form")),
		chromedp.Click(testid("link-submit")),
		chromedp.WaitVisible(testid("login-annbelle")),
	)
	browsertest.Screenshot(t, ctx, "roomtax-1-operator-account")

	// April 10: the operator files Q1, one exemption valid (the Forest
	// Service, billed to it, purchase order PO-7731) and one not (the 4-H,
	// without its certificate number), previews and signs.
	clock.set(t, "2026-04-10 09:00")
	signIn("annbelle")
	rtDo(t, ctx, "the Q1 form",
		chromedp.Navigate(base+"/staff/room-tax"),
		chromedp.WaitVisible(testid("file-2026-Q1")),
		chromedp.Click(testid("file-2026-Q1")),
		chromedp.WaitVisible(testid("file-form")),
		chromedp.SendKeys(testid("file-gross"), "20,000.00"),
		chromedp.SendKeys(testid("sale-amount-1"), "1000.00"),
		chromedp.SendKeys(testid("sale-buyer-1"), "US Forest Service"),
		chromedp.Click(testid("sale-billed-1")),
		chromedp.SendKeys(testid("sale-number-1"), "PO-7731"),
		chromedp.SendKeys(testid("sale-amount-2"), "500.00"),
		chromedp.SendKeys(testid("sale-buyer-2"), "Green County 4-H"),
		chromedp.SetValue(testid("sale-entity-2"), "nonprofit"),
		chromedp.Click(testid("sale-billed-2")),
		chromedp.SetValue(testid("sale-document-2"), "certificate_number"),
		chromedp.SendKeys(testid("file-signer"), "Ann Belle"),
		chromedp.SendKeys(testid("file-capacity"), "owner"),
		chromedp.Click(testid("file-preview")),
		chromedp.WaitVisible(testid("preview-note")),
	)
	browsertest.Screenshot(t, ctx, "roomtax-2-preview")
	want("fig-tax", "1330.00")
	want("fig-exempt", "1000.00")
	want("preview-sales-status-2", "rejected: taxed")
	rtDo(t, ctx, "sign Q1", chromedp.Click(testid("file-sign-box")), chromedp.Click(testid("file-sign")), chromedp.WaitVisible(testid("return-id")))
	browsertest.Screenshot(t, ctx, "roomtax-3-q1-filed")
	want("fig-tax", "1330.00")
	want("sales-status-2", "rejected: taxed")
	payRef := text(t, ctx, "payment-ref") // the return's id and its check code
	if !strings.HasPrefix(payRef, "belle-inn_2026-Q1-") {
		t.Fatalf("payment reference %q", payRef)
	}

	// April 20: part of it by card at the kiosk, with the payment reference
	// printed on the return.
	clock.set(t, "2026-04-20 11:00")
	rtDo(t, ctx, "pay part by card at the kiosk",
		chromedp.Navigate("http://"+m.Addr()+"/"),
		chromedp.WaitVisible(testid("start-room-tax")),
		chromedp.Click(testid("start-room-tax")),
		chromedp.WaitVisible(testid("room-tax-form")),
		chromedp.SendKeys(testid("room-tax-ref"), payRef),
		chromedp.SendKeys(testid("room-tax-amount"), "1000.00"),
		chromedp.Click(testid("room-tax-continue")),
		chromedp.WaitVisible(testid("charge-button")),
	)
	want("confirm-amount", "$1,000.00")
	rtDo(t, ctx, "charge the card", chromedp.Click(testid("charge-button")), chromedp.WaitVisible(testid("receipt-number")))
	browsertest.Screenshot(t, ctx, "roomtax-4-kiosk-receipt")
	want("receipt-amount", "$1,000.00")
	signIn("annbelle")
	rtDo(t, ctx, "the return after the card payment", chromedp.Navigate(base+"/staff/room-tax/returns/belle-inn_2026-Q1"), chromedp.WaitVisible(testid("fig-paid")))
	want("fig-paid", "1000.00")
	want("fig-balance", "330.00")

	// August 5: Q2 (due July 31) filed late: the fee and a month's interest.
	clock.set(t, "2026-08-05 09:00")
	signIn("annbelle")
	rtDo(t, ctx, "file Q2 late",
		chromedp.Navigate(base+"/staff/room-tax"),
		chromedp.WaitVisible(testid("file-2026-Q2")),
		chromedp.Click(testid("file-2026-Q2")),
		chromedp.WaitVisible(testid("file-form")),
		chromedp.SendKeys(testid("file-gross"), "10000.00"),
		chromedp.SendKeys(testid("file-signer"), "Ann Belle"),
		chromedp.SendKeys(testid("file-capacity"), "owner"),
		chromedp.Click(testid("file-preview")),
		chromedp.WaitVisible(testid("preview-note")),
		chromedp.Click(testid("file-sign-box")),
		chromedp.Click(testid("file-sign")),
		chromedp.WaitVisible(testid("return-id")),
	)
	browsertest.Screenshot(t, ctx, "roomtax-5-q2-late")
	want("fig-fee", "100.00")
	want("fig-interest", "7.00")
	want("fig-balance", "807.00")

	// October 20: the treasurer extends Q3 by a month, with cause, and
	// audits Q1 (the 4-H's certificate was on file after all).
	clock.set(t, "2026-10-20 09:00")
	signIn("ftreas")
	rtDo(t, ctx, "extend Q3",
		chromedp.Navigate(base+"/staff/room-tax/returns/belle-inn_2026-Q3"),
		chromedp.WaitVisible(testid("reason-form")),
		chromedp.Click(testid("reason-submit")),
		chromedp.WaitVisible(testid("extension-form")),
		chromedp.SendKeys(testid("extension-to"), "2026-11-30"),
		chromedp.SendKeys(testid("extension-cause"), "the office flooded in October"),
		chromedp.Click(testid("extension-submit")),
		chromedp.WaitVisible(testid("extension")),
	)
	if got := text(t, ctx, "extension"); !strings.Contains(got, "2026-11-30") {
		t.Fatalf("extension %q", got)
	}
	rtDo(t, ctx, "audit Q1",
		chromedp.Navigate(base+"/staff/room-tax/returns/belle-inn_2026-Q1?reason=administration"),
		chromedp.WaitVisible(testid("determination-form")),
		chromedp.SendKeys(testid("determination-gross"), "20000.00"),
		chromedp.SendKeys(testid("det-sale-number-2"), "ES-40221"), // the 4-H's line, filled in from the return
		chromedp.SendKeys(testid("determination-basis"), "Office audit: the 4-H's certificate of exempt status ES-40221 was on file on the day of the sale."),
		chromedp.Click(testid("determination-submit")),
		chromedp.WaitVisible(testid("determination-1")),
	)
	browsertest.Screenshot(t, ctx, "roomtax-6-determination")
	want("determination-tax-1", "1295.00")
	want("fig-tax", "1295.00")
	if got := text(t, ctx, "determination-sales-1"); !strings.Contains(got, "Green County 4-H") || !strings.Contains(got, "ES-40221") || strings.Contains(got, "rejected") {
		t.Fatalf("the determination's exempt sales: %q", got)
	}

	// An auditor reads the return, saying why; the read is in the journal.
	signIn("audrey")
	rtDo(t, ctx, "the auditor opens the return",
		chromedp.Navigate(base+"/staff/room-tax/operators/belle-inn"),
		chromedp.WaitVisible(testid("period-link-2026-Q1")),
		chromedp.Click(testid("period-link-2026-Q1")),
		chromedp.WaitVisible(testid("reason-form")),
		chromedp.SetValue(testid("reason-select"), "audit"),
		chromedp.SendKeys(testid("reason-note"), "2026 audit of the village's accounts"),
		chromedp.Click(testid("reason-submit")),
		chromedp.WaitVisible(testid("read-id")),
	)
	browsertest.Screenshot(t, ctx, "roomtax-7-auditor-read")
	want("fig-tax", "1295.00")
	read := text(t, ctx, "read-id")
	rtDo(t, ctx, "the journal",
		chromedp.Navigate(base+"/staff/journal?kind=room_tax_read&actor=audrey"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-command="`+read+`"]`)),
	)
	browsertest.Screenshot(t, ctx, "roomtax-8-journal")
	row, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr[data-command="`+read+`"]`)))
	if err != nil || !strings.Contains(row, "audrey") || !strings.Contains(row, "room_tax_read") || !strings.Contains(row, "applied") {
		t.Fatalf("the auditor's read in the journal: %q %v", row, err)
	}
	// The kiosk's public totals: the year's collections, no operator.
	rtDo(t, ctx, "the public totals at the kiosk",
		chromedp.Navigate("http://"+m.Addr()+"/room-tax/collections?year=2026"),
		chromedp.WaitVisible(testid("room-tax-collections")),
	)
	want("collected-2026-Q2", "$1,000.00")
	want("collected-total", "$1,000.00")
	if body := text(t, ctx, "room-tax-collections"); strings.Contains(body, "Belle Inn") || strings.Contains(body, "belle-inn") {
		t.Fatalf("the public totals name the operator: %q", body)
	}
	rec, err := domain.ReadsOf(m.Node).RoomTaxRead(read)
	if err != nil || rec.Reader != "audrey" || rec.Basis != domain.BasisAuditor || !strings.Contains(rec.Reason, "2026 audit") {
		t.Fatalf("the read's record in the ledger: %+v %v", rec, err)
	}
}
