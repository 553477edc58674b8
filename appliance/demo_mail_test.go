package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestDemoReceiptsByMailAndQR runs the demo as a newcomer does, with no
// mail relay and no public site configured, in real Chromium: a status
// letter's receipt carries a QR code of the demo village's public site,
// and the e-mailed copy asked for on it goes through the node's mail
// queue to the demo's relay, which keeps it as a file in the data folder.
func TestDemoReceiptsByMailAndQR(t *testing.T) {
	dir := t.TempDir()
	m := startMainAt(t, dir, januaryNow)
	if m.Mail == nil {
		t.Fatal("the demo node has no mail queue: its receipts offer no e-mailed copy")
	}
	ctx := browsertest.New(t, browsertest.Options{Timeout: 2 * time.Minute})
	base := "http://" + m.Addr()
	do(t, ctx, "letter",
		chromedp.Navigate(base+"/letters"),
		chromedp.WaitVisible(testid("letter-form")),
		chromedp.SendKeys(testid("letter-parcel"), "305 Hale St"),
		chromedp.SendKeys(testid("letter-name"), "Luis Ramirez"),
		chromedp.SendKeys(testid("letter-contact"), "608-555-0100"),
		chromedp.Click(testid("letter-continue")),
		chromedp.WaitVisible(testid("charge-button")),
		chromedp.Click(testid("charge-button")),
		chromedp.WaitVisible(testid("claim-number")),
	)
	number := text(t, ctx, "claim-number")
	link, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="receipt-qr"] img').dataset.link`))
	if err != nil || !strings.HasPrefix(link, demoPublicURL+"/receipt/"+number+"?k=") {
		t.Fatalf("the receipt's QR code: %q, %v", link, err)
	}
	browsertest.Screenshot(t, ctx, "demo-receipt")
	browsertest.Axe(t, ctx, "the demo's receipt")

	do(t, ctx, "e-mail",
		chromedp.SendKeys(testid("receipt-email-input"), "luis@example.com"),
		chromedp.Click(testid("receipt-email-send")),
		chromedp.WaitVisible(testid("receipt-email-queued")),
	)
	var kept []string
	for deadline := time.Now().Add(30 * time.Second); len(kept) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		kept, _ = filepath.Glob(filepath.Join(dir, "demo-mail", "*.eml"))
	}
	if len(kept) != 1 {
		t.Fatalf("%d messages kept by the demo's relay, want 1", len(kept))
	}
	msg, err := os.ReadFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"To: luis@example.com", "kiosk@belleville.example", number} {
		if !strings.Contains(string(msg), want) {
			t.Errorf("the kept message lacks %q:\n%s", want, msg)
		}
	}
	if fi, err := os.Stat(kept[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the kept message's mode %v (%v), want 0600", fi.Mode(), err)
	}
}
