package kiosk_test

import (
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/browsertest"
	"github.com/villagehall/appliance/kiosk/mail"
	"github.com/villagehall/appliance/kiosk/receipt"
)

// belleville is the letterhead a node's configuration gives the kiosk.
var belleville = receipt.Village{
	Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508",
	Phone: "608-555-0142", Email: "clerk@belleville.example", PublicURL: "https://belleville.example",
}

func withVillage(v receipt.Village) option { return func(c *kiosk.Config) { c.Village = v } }

// payTen pays $10.00 on the past-due bill and waits for the receipt.
func (b *browser) payTen(lang string) {
	b.t.Helper()
	b.open("/bills/"+pastDueBill+"/pay?lang="+lang, "amount-input")
	b.typeInto("amount-input", "10")
	b.click(tid("pay-continue"), "confirm-amount")
	b.click(tid("charge-button"), "receipt-number")
}

// TestBrowserReceiptLetterhead reads a receipt of a node whose
// configuration names the village: the letterhead has
// its name, address and telephone, the foot says where questions go, and
// a QR code holds the receipt's address on the village's public site, in
// both languages; without a public site there is no QR code. The
// simulator's test card is named by its brand and last four digits, and
// a terminal that gives no card details leaves them off.
func TestBrowserReceiptLetterhead(t *testing.T) {
	h := newHarness(t, withVillage(belleville))
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	for _, lang := range []string{"en", "es"} {
		b.payTen(lang)
		b.expectText("letterhead-name", "Village of Belleville")
		b.expectText("letterhead-address", "24 W Main St, Belleville, WI 53508")
		b.expectText("letterhead-phone", "608-555-0142")
		b.expectText("receipt-tender", map[string]string{"en": "Card", "es": "Tarjeta"}[lang])
		b.expectText("receipt-card", "Visa •••• 4242")
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
	pb.expectText("receipt-card", "•••• 4242")

	// A terminal that gives no card details: the receipt says "Card" and
	// no digits.
	plain.sim.SetCard(nil)
	pb.payTen("es")
	if pb.visible("receipt-card") || strings.Contains(pb.text("receipt-tender"), "••••") {
		t.Errorf("a card shown that the terminal did not give: %q", pb.text("receipt-tender"))
	}
	pb.expectText("receipt-tender", "Tarjeta")
	pb.check("es-receipt-no-card")
}

// smtpRelay is a real SMTP server on 127.0.0.1 for the tests: it takes
// every message and hands it to got.
func smtpRelay(t *testing.T, addr string) <-chan string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tp := textproto.NewConn(c)
				_ = tp.PrintfLine("220 relay.test ESMTP")
				for {
					line, err := tp.ReadLine()
					if err != nil {
						return
					}
					switch strings.ToUpper(strings.Fields(line + " x")[0]) {
					case "EHLO", "HELO":
						_ = tp.PrintfLine("250 relay.test")
					case "MAIL", "RCPT", "RSET", "NOOP":
						_ = tp.PrintfLine("250 OK")
					case "DATA":
						_ = tp.PrintfLine("354 go ahead")
						b, err := io.ReadAll(tp.DotReader())
						if err != nil {
							return
						}
						got <- string(b)
						_ = tp.PrintfLine("250 queued")
					case "QUIT":
						_ = tp.PrintfLine("221 bye")
						return
					default:
						_ = tp.PrintfLine("502 not here")
					}
				}
			}()
		}
	}()
	return got
}

// TestBrowserReceiptEmail asks for an e-mailed copy of a receipt by
// tapping the on-screen keyboard while the node's mail relay does not
// answer: the copy is queued, and sent, once, when the
// relay is back; a bad address is refused and nothing is queued.
func TestBrowserReceiptEmail(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close() // the relay is down: the node is offline
	q, err := mail.New(mail.Config{Relay: addr, From: "Village of Belleville <kiosk@belleville.example>", Dir: t.TempDir(), Retry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); q.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	h := newHarness(t, withVillage(belleville), func(c *kiosk.Config) { c.Mail = q })
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	b.touchScreen()

	b.payTen("es")
	b.tap("receipt-email-input")
	b.tapText("ana@example")
	b.tap("osk-enter")
	b.do("bad address", chromedp.WaitVisible(tid("error-message")))
	b.expectText("error-message", "no es un correo")
	b.check("01-correo-error")
	if n := q.Pending(); n != 0 {
		t.Fatalf("%d copies queued for a bad address", n)
	}

	b.payTen("en")
	number := b.text("receipt-number")
	b.tap("receipt-email-input")
	b.tapText("ana@example.com")
	b.tap("osk-enter")
	b.do("queued", chromedp.WaitVisible(tid("receipt-email-queued")))
	b.expectText("receipt-email-queued", "ana@example.com")
	b.check("02-email-queued")
	if n := q.Pending(); n != 1 {
		t.Fatalf("%d copies waiting while the relay is down, want 1", n)
	}

	got := smtpRelay(t, addr)
	q.Kick()
	select {
	case msg := <-got:
		if !strings.Contains(msg, "To: ana@example.com") || !strings.Contains(msg, number) || !strings.Contains(msg, "608-555-0142") {
			t.Errorf("the copy:\n%s", msg)
		}
		_, body, _ := strings.Cut(msg, "\n\n")
		text, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
		if err != nil || !strings.Contains(string(text), "Card Visa •••• 4242") {
			t.Errorf("the copy does not name the card (%v):\n%s", err, text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the copy was not sent when the relay answered")
	}
	<-q.Sent()
	if n := q.Pending(); n != 0 {
		t.Errorf("%d copies still waiting", n)
	}
}

// mailbox is a Mailer that keeps what the kiosk queues.
type mailbox struct {
	mu  sync.Mutex
	got []mail.Message
}

func (m *mailbox) Enqueue(msg mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, msg)
	return nil
}

// eval runs a script on the page for its effect.
func (b *browser) eval(what, js string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("(() => { "+js+"; return true; })()")); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// clearOfKeyboard reports where the focused field, the button beside it,
// the on-screen keyboard and the sticky bar of actions are on the screen.
type clearOfKeyboard struct {
	Focused              string
	FieldBottom, SendBot float64
	KeyboardTop, BarTop  float64
}

func (b *browser) keyboardLayout(send string) clearOfKeyboard {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[clearOfKeyboard](`(() => {
		const f = document.activeElement, s = document.querySelector('[data-testid="`+send+`"]');
		const k = document.querySelector('[data-osk-board]'), bar = document.querySelector('.actions-sticky');
		return {Focused: f.getAttribute("data-testid") || f.tagName,
			FieldBottom: f.getBoundingClientRect().bottom, SendBot: s.getBoundingClientRect().bottom,
			KeyboardTop: k.hidden ? window.innerHeight : k.getBoundingClientRect().top,
			BarTop: bar ? bar.getBoundingClientRect().top : window.innerHeight};
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// TestBrowserReceiptEmailAboveKeyboard opens the on-screen keyboard on a
// receipt's e-mail field on the portrait and the landscape screen, by
// focus and by touch: the field and its Send button are scrolled above
// the keyboard and the bar of actions, never typed into blind.
func TestBrowserReceiptEmailAboveKeyboard(t *testing.T) {
	h := newHarness(t, withVillage(belleville), func(c *kiosk.Config) { c.Mail = &mailbox{} })
	for _, size := range []struct{ w, h int }{{1080, 1920}, {1920, 1080}, {1280, 800}} {
		name := fmt.Sprintf("%dx%d", size.w, size.h)
		t.Run(name, func(t *testing.T) {
			b := openBrowser(t, h, browsertest.Options{Width: size.w, Height: size.h, Timeout: 2 * time.Minute})
			b.touchScreen()
			b.payTen("en")
			for _, how := range []string{"focus", "tap"} {
				b.eval("top", `(document.activeElement.blur(), window.scrollTo(0, 0))`)
				if how == "focus" {
					b.eval("focus", `document.querySelector('[data-testid="receipt-email-input"]').focus()`)
				} else {
					b.tap("receipt-email-input")
				}
				b.do("keyboard", chromedp.WaitVisible(tid("osk")))
				l := b.keyboardLayout("receipt-email-send")
				if l.Focused != "receipt-email-input" {
					t.Fatalf("%s: focus on %q", how, l.Focused)
				}
				top := min(l.KeyboardTop, l.BarTop)
				if l.FieldBottom > top || l.SendBot > top {
					t.Errorf("%s: field ends at %.0f, Send at %.0f, under the keyboard (%.0f) or the bar (%.0f)",
						how, l.FieldBottom, l.SendBot, l.KeyboardTop, l.BarTop)
				}
				b.check(name + "-" + how)
				b.tap("osk-hide")
			}
		})
	}
}

// TestBrowserExpiredReceiptStartsOverOnce opens a receipt this visit did
// not make (an expired or foreign link): the page offers one way to start
// over, not the same button three times. Another error page, whose first
// action is not starting over, keeps the header's.
func TestBrowserExpiredReceiptStartsOverOnce(t *testing.T) {
	h := newHarness(t)
	b := openBrowser(t, h, browsertest.Options{Timeout: 2 * time.Minute})
	startOvers := func() []string {
		t.Helper()
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('a, button'))
			.filter(e => e.getClientRects().length > 0 && /^(Start over|Empezar de nuevo)$/.test(e.textContent.trim()))
			.map(e => e.getAttribute("data-testid") || e.textContent.trim())`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, lang := range []string{"en", "es"} {
		b.open("/receipt/hall-kiosk-000999?lang="+lang, "error-back")
		if got := startOvers(); len(got) != 1 {
			t.Errorf("%s: %d buttons start over on an expired receipt: %q", lang, len(got), got)
		}
		b.check(lang + "-expired-receipt")
	}
	b.open("/bills/B-0000-0000", "error-back")
	if got := startOvers(); len(got) != 1 {
		t.Errorf("%d buttons start over on a bill not found: %q", len(got), got)
	}
}
