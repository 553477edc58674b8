package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/sync/synctest"
)

// buildAppliance compiles the appliance binary once per test run.
func buildAppliance(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "appliance")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freeAddr returns a port no other program takes before the node binds it
// (see synctest.FreeAddr).
func freeAddr(t testing.TB) string {
	t.Helper()
	return synctest.FreeAddr(t)
}

// process is an appliance running as its own OS process.
type process struct {
	cmd  *exec.Cmd
	base string
	log  *syncBuffer // written by exec while the process runs, read in failures
}

func startProcess(t *testing.T, bin, dir, addr string) *process {
	t.Helper()
	p := &process{base: "http://" + addr, log: &syncBuffer{}}
	p.cmd = exec.Command(bin, "serve", "--data", dir, "--http", addr, "--https", "127.0.0.1:0", "--demo")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(p.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("appliance did not come up:\n%s", p.log)
	return nil
}

// browser is a plain HTTP client with cookies that fills in forms the way a
// browser would.
type browser struct {
	t      *testing.T
	client *http.Client
	base   string
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar, Timeout: 10 * time.Second}, base: base}
}

func (b *browser) get(path string) (*goquery.Document, string) {
	b.t.Helper()
	resp, err := b.client.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.read(resp)
}

func (b *browser) read(resp *http.Response) (*goquery.Document, string) {
	b.t.Helper()
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("%s %s: %s\n%s", resp.Request.Method, resp.Request.URL, resp.Status, body)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	return doc, resp.Request.URL.Path
}

// submit posts the form found by sel with its own fields (hidden inputs,
// checked radios, typed values) and returns the page it leads to.
func (b *browser) submit(doc *goquery.Document, sel string) (*goquery.Document, string) {
	b.t.Helper()
	form := doc.Find(sel).First()
	if form.Length() == 0 {
		b.t.Fatalf("no form %s", sel)
	}
	if !form.Is("form") {
		form = form.Closest("form")
	}
	vals := url.Values{}
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		typ, _ := in.Attr("type")
		if name == "" || ((typ == "radio" || typ == "checkbox") && in.AttrOr("checked", "-") == "-") {
			return
		}
		vals.Set(name, in.AttrOr("value", ""))
	})
	action := form.AttrOr("action", "")
	resp, err := b.client.PostForm(b.base+action, vals)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.read(resp)
}

// TestPaymentSurvivesKill9 pays a bill through the kiosk pages of a real
// appliance process, kills the process with SIGKILL right after the
// receipt, starts it again on the same data folder and finds the payment
// there exactly once.
func TestPaymentSurvivesKill9(t *testing.T) {
	bin := buildAppliance(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	p := startProcess(t, bin, dir, addr)
	br := newBrowser(t, p.base)

	doc, _ := br.get("/accounts/100101")
	var bill, balance string
	doc.Find(`[data-testid="bill-row"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		bal := strings.TrimSpace(s.Find(`[data-testid="bill-balance"]`).Text())
		if bal != "$0.00" {
			bill, balance = s.AttrOr("data-bill", ""), bal
			return false
		}
		return true
	})
	if bill == "" {
		t.Fatalf("no open demo bill on account 100101")
	}
	doc, _ = br.get("/bills/" + bill + "/pay")
	doc, path := br.submit(doc, `[data-testid="pay-full"]`)
	if !strings.Contains(path, "/confirm") {
		t.Fatalf("paying in full led to %s", path)
	}
	doc, path = br.submit(doc, `[data-testid="charge-form"]`)
	number := strings.TrimSpace(doc.Find(`[data-testid="receipt-number"]`).Text())
	if !strings.HasPrefix(path, "/receipt/") || number == "" {
		t.Fatalf("charging led to %s without a receipt number", path)
	}
	if got := doc.Find(`[data-testid="receipt-status"]`).AttrOr("data-status", ""); got != "posted" {
		t.Fatalf("receipt status %q, want posted", got)
	}

	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()

	p = startProcess(t, bin, dir, addr)
	br = newBrowser(t, p.base)
	doc, _ = br.get("/bills/" + bill)
	if got := strings.TrimSpace(doc.Find(`[data-testid="amount-due"]`).Text()); got != "$0.00" {
		t.Fatalf("after kill -9 and restart the bill owes %q (was %s), want $0.00\n%s", got, balance, p.log)
	}
	if n := doc.Find(`[data-testid="line-payment"]`).Length(); n != 1 {
		t.Fatalf("after restart the bill lists %d payments, want 1", n)
	}
	if got := doc.Find(`[data-testid="line-payment"]`).Text(); !strings.Contains(got, number) {
		t.Fatalf("after restart the bill's payment line does not show receipt %s: %q", number, got)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("clean shutdown on SIGTERM: %v\n%s", err, p.log)
	}
	if strings.Contains(p.log.String(), "panic") {
		t.Fatalf("log shows a panic:\n%s", p.log)
	}
}
