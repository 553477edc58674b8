package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// januaryNow is a Tuesday in January, when the village treasurer collects
// the property tax of the roll of the year before.
var januaryNow = time.Date(2027, time.January, 12, 11, 0, 0, 0, villageNow.Location())

// startMainAt runs a node with demo data on a clock pinned to now.
func startMainAt(t *testing.T, dir string, now time.Time) *Main {
	t.Helper()
	m := NewMain()
	m.Config.DataDir = dir
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Demo = true
	m.Config.Now = func() time.Time { return now }
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestKioskResidentServicesEndToEnd runs the resident kiosk's other
// services on a real node with the demo data, in real Chromium: a status
// letter in English, the first installment of a property tax bill in
// Spanish, and the purchasing records; axe-core on each page. The records
// are then read back from the replicated ledger.
func TestKioskResidentServicesEndToEnd(t *testing.T) {
	m := startMainAt(t, t.TempDir(), januaryNow)
	ctx := browsertest.New(t)
	base := "http://" + m.Addr()
	check := func(name string) {
		t.Helper()
		browsertest.Screenshot(t, ctx, name)
		browsertest.Axe(t, ctx, name)
	}

	// A status letter: Tuesday 11:00, ready Thursday January 14, 2027; the
	// 45.00 fee in force since July 2026.
	do(t, ctx, "letter form",
		chromedp.Navigate(base+"/"),
		chromedp.Click(testid("start-letter")),
		chromedp.WaitVisible(testid("letter-form")),
		chromedp.SendKeys(testid("letter-parcel"), "108 Perl Street"),
		chromedp.SendKeys(testid("letter-name"), "Sugar River Title"),
		chromedp.SendKeys(testid("letter-contact"), "608-555-0142"),
	)
	check("1-letter-form")
	do(t, ctx, "letter confirm", chromedp.Click(testid("letter-continue")), chromedp.WaitVisible(testid("letter-summary")))
	if got := text(t, ctx, "letter-confirm-parcel"); !strings.Contains(got, "108 Pearl St") {
		t.Fatalf("parcel %q", got)
	}
	check("2-letter-confirm")
	do(t, ctx, "letter charge", chromedp.Click(testid("charge-button")), chromedp.WaitVisible(testid("claim-number")))
	claim := text(t, ctx, "claim-number")
	if got := text(t, ctx, "claim-ready"); !strings.Contains(got, "January 14, 2027") {
		t.Errorf("ready %q", got)
	}
	check("3-letter-claim")
	var sr domain.StatusRequest
	if err := m.Node.Get(domain.StatusRequests, claim, &sr); err != nil || sr.ReadyBy.String() != "2027-01-14" || sr.Fee.String() != "45.00" {
		t.Fatalf("stored request %+v, %v", sr, err)
	}
	if keys, err := m.Node.Keys(domain.StatusRequestsByReadyDate, "2027-01-14/"); err != nil || len(keys) != 1 {
		t.Fatalf("queue %v, %v", keys, err)
	}

	// Property tax in Spanish: Hale St (Green County), first installment.
	do(t, ctx, "tax search",
		chromedp.Navigate(base+"/reset"),
		chromedp.WaitVisible(testid("start-lang-es")),
		chromedp.Click(testid("start-lang-es")),
		chromedp.WaitVisible(testid("start-tax")),
		chromedp.Click(testid("start-tax")),
		chromedp.WaitVisible(testid("tax-search-input")),
		chromedp.SendKeys(testid("tax-search-input"), "305 hale st"),
		chromedp.Click(testid("tax-search-button")),
		chromedp.WaitVisible(testid("tax-row")),
	)
	check("4-impuestos-parcela")
	bill := domain.TaxBillID(2026, "0601-141-2005")
	do(t, ctx, "tax bill", chromedp.Click(chromedp.CSS(`[data-bill="`+bill+`"] a`)), chromedp.WaitVisible(testid("tax-breakdown")))
	if got := text(t, ctx, "tax-second"); !strings.Contains(got, "condado de Green") {
		t.Errorf("second installment %q", got)
	}
	check("5-impuestos-factura")
	do(t, ctx, "tax option", chromedp.Click(testid("tax-pay-first_installment")), chromedp.WaitVisible(testid("charge-button")))
	amount := text(t, ctx, "confirm-amount")
	check("6-impuestos-confirmar")
	do(t, ctx, "tax charge", chromedp.Click(testid("charge-button")), chromedp.WaitVisible(testid("receipt-number")))
	if got := text(t, ctx, "receipt-amount"); got != amount {
		t.Errorf("receipt amount %q, want %q", got, amount)
	}
	status, err := chromedp.Run(ctx, chromedp.AttributeValue(testid("receipt-status"), "data-status"))
	if err != nil || status.Value != "posted" {
		t.Errorf("status %+v %v", status, err)
	}
	check("7-impuestos-recibo")
	var tb domain.TaxBill
	if err := m.Node.Get(domain.TaxBills, bill, &tb); err != nil || len(tb.Payments) != 1 || tb.Payments[0].Option != domain.TaxFirstInstallment {
		t.Fatalf("tax bill after payment %+v, %v", tb, err)
	}

	// Purchasing records.
	do(t, ctx, "purchases", chromedp.Navigate(base+"/purchases?lang=en"), chromedp.WaitVisible(testid("purchase-row")))
	check("8-purchases")
	do(t, ctx, "emergency", chromedp.Navigate(base+"/purchases?kind=emergency"), chromedp.WaitVisible(testid("purchase-row")),
		chromedp.Click(chromedp.CSS(`[data-testid="purchase-row"] a`)), chromedp.WaitVisible(testid("emergency-record")))
	check("9-emergency")
}
