package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestTitleCompanyLetterInBrowser (§5.11): at the window a clerk takes a
// title company's request for a status letter to be e-mailed, its fee
// paid by check into her drawer and recorded on the company's account;
// the queue shows who asked and how the letter goes out; she completes
// the letter, and the demo node's mail relay receives it as a PDF
// attachment addressed to the company. The request page passes axe.
func TestTitleCompanyLetterInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-12-03T10:00", [4]string{"kclerk", "Kim Clerk", "clerk", ""})
	b.as("kclerk")
	b.open("/staff/window", "open-form")
	b.do("open a drawer", set(`[data-testid="open-float"]`, "50.00"), submit("open-drawer", "drawer-open"))
	b.open("/staff/letters", "letter-new")
	b.do("the request form", chromedp.Click(testid("letter-new")), chromedp.WaitVisible(testid("request-form")))
	if terms := b.text("request-terms"); !strings.Contains(terms, "received 2026-12-03") || !strings.Contains(terms, "ready by 2026-12-07") {
		t.Fatalf("terms: %q", terms)
	}
	browsertest.Axe(t, b.ctx, "status letter request at the window")
	b.shot("titleco-1-request")
	b.do("take the request",
		set(`[data-testid="request-parcel"]`, "0601-141-2004"),
		set(`[data-testid="request-requester"]`, "Badger Title Co."),
		set(`[data-testid="request-contact"]`, "Pat Closer, 608-555-0199"),
		set(`[data-testid="request-email"]`, "closings@badgertitle.example"),
		set(`[data-testid="request-closing"]`, "2026-12-15"),
		chromedp.Click(testid("request-delivery-email")),
		chromedp.Click(testid("request-pay-check")),
		set(`[data-testid="request-check"]`, "5512"),
		set(`[data-testid="request-account"]`, "100106"),
		submit("request-submit", "letter-form"),
	)
	if paid := b.text("letter-paid"); !strings.Contains(paid, "check 5512") || !strings.Contains(paid, "100106") {
		t.Fatalf("paid: %q", paid)
	}
	claim := strings.TrimPrefix(b.eval(`location.pathname`), "/staff/letters/")
	if how := b.text("letter-how"); how != "E-mail to closings@badgertitle.example" {
		t.Fatalf("delivery: %q", how)
	}
	browsertest.Axe(t, b.ctx, "a title company's status letter")
	b.do("complete the letter",
		set(`[data-testid="letter-changes"]`, "None."),
		set(`[data-testid="letter-deferred"]`, "None."),
		set(`[data-testid="letter-improvements"]`, "None planned."),
		set(`[data-testid="letter-violations"]`, "None."),
		submit("letter-complete", "letter-delivered"),
	)
	if st := b.text("letter-state"); st != "delivered" {
		t.Fatalf("state after completing: %q", st)
	}
	b.shot("titleco-2-sent")
	b.open("/staff/letters?all=1", "letters")
	if row := b.eval(`document.querySelector('tr[data-claim="` + claim + `"]').innerText`); !strings.Contains(row, "Badger Title Co.") || !strings.Contains(row, "E-mail to closings@badgertitle.example") || !strings.Contains(row, "2026-12-03") {
		t.Fatalf("queue row: %q", row)
	}

	// The demo's relay keeps what it received: the letter, attached.
	var kept []string
	for deadline := time.Now().Add(30 * time.Second); len(kept) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		kept, _ = filepath.Glob(filepath.Join(b.m.Config.DataDir, "demo-mail", "*.eml"))
	}
	if len(kept) != 1 {
		t.Fatalf("%d messages kept by the demo's relay, want 1", len(kept))
	}
	raw, err := os.ReadFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if to := msg.Header.Get("To"); to != "closings@badgertitle.example" {
		t.Fatalf("to %q", to)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	var pdf []byte
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(part.FileName(), ".pdf") {
			if pdf, err = io.ReadAll(base64.NewDecoder(base64.StdEncoding, part)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("Badger Title Co.")) || !bytes.Contains(pdf, []byte("SL-2026-")) {
		t.Fatalf("the attachment is not the letter (%d bytes)", len(pdf))
	}
}
