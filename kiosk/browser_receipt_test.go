package kiosk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/browsertest"
)

// belleville is the letterhead a node's configuration gives the kiosk.
var belleville = kiosk.Village{
	Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508",
	Phone: "608-555-0142", Email: "clerk@belleville.example", PublicURL: "https://belleville.example",
}

func withVillage(v kiosk.Village) option { return func(c *kiosk.Config) { c.Village = v } }

// payTen pays $10.00 on the past-due bill and waits for the receipt.
func (b *browser) payTen(lang string) {
	b.t.Helper()
	b.open("/bills/"+pastDueBill+"/pay?lang="+lang, "amount-input")
	b.typeInto("amount-input", "10")
	b.click(tid("pay-continue"), "confirm-amount")
	b.click(tid("charge-button"), "receipt-number")
}

// TestBrowserReceiptLetterhead reads a receipt of a node whose
// configuration names the village (issue #20, item 9): the letterhead has
// its name, address and telephone, the foot says where questions go, and
// a QR code holds the receipt's address on the village's public site, in
// both languages; without a public site there is no QR code.
func TestBrowserReceiptLetterhead(t *testing.T) {
	h := newHarness(t, withVillage(belleville))
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	for _, lang := range []string{"en", "es"} {
		b.payTen(lang)
		b.expectText("letterhead-name", "Village of Belleville")
		b.expectText("letterhead-address", "24 W Main St, Belleville, WI 53508")
		b.expectText("letterhead-phone", "608-555-0142")
		number := b.text("receipt-number")
		q := map[string]string{"en": "Questions? Call 608-555-0142 or write to clerk@belleville.example, giving receipt " + number,
			"es": "¿Preguntas? Llame al 608-555-0142 o escriba a clerk@belleville.example, indicando el recibo " + number}[lang]
		b.expectText("receipt-questions", q)
		type qr struct {
			Link  string
			Width int
		}
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[qr](`(() => { const i = document.querySelector('[data-testid="receipt-qr"] img'); return {Link: i.dataset.link, Width: i.naturalWidth}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v.Link, "https://belleville.example/receipt/"+number+"?k=") || v.Width < 100 {
			t.Errorf("%s: QR code of %q, %d px", lang, v.Link, v.Width)
		}
		b.check(lang + "-receipt-letterhead")
	}

	plain := newHarness(t)
	pb := openBrowser(t, plain, browsertest.Options{Timeout: 2 * time.Minute})
	pb.payTen("en")
	if pb.visible("receipt-qr") {
		t.Error("a QR code without a public site")
	}
	pb.expectText("receipt-questions", "Ask at the clerk's window")
}
