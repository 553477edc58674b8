package kiosk_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// testSecret is a fixed key for tests; the appliance keeps a random one.
var testSecret = []byte("0123456789abcdef0123456789abcdef-test-only")

// harness is a kiosk on an httptest server over the fake ledger and the
// terminal simulator, with a browser-like client that keeps cookies and
// does not follow redirects, so tests see each 303.
type harness struct {
	t      *testing.T
	ledger *fakeLedger
	sim    *terminal.Simulator // the terminal, unless an option replaced it
	kiosk  *kiosk.Server
	srv    *httptest.Server
	client *http.Client
	logs   *bytes.Buffer
}

type option func(*kiosk.Config)

func withSimulatorPanel(c *kiosk.Config) { c.Simulator = true }

// withClock pins the kiosk and the ledger to another moment.
func withClock(t time.Time) option {
	return func(c *kiosk.Config) { c.Now = func() time.Time { return t } }
}

func withIdle(d time.Duration) option { return func(c *kiosk.Config) { c.IdleTimeout = d } }

// withoutTerminal is a kiosk with no card terminal, as the appliance runs
// one unless it is a demo.
func withoutTerminal(c *kiosk.Config) { c.Terminal = nil }

// withTerminal puts another terminal in place of the simulator.
func withTerminal(t terminal.Terminal) option { return func(c *kiosk.Config) { c.Terminal = t } }

// testClock is a clock a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// withMovingClock runs the kiosk and the ledger on c.
func withMovingClock(c *testClock) option { return func(cfg *kiosk.Config) { cfg.Now = c.Now } }

func newHarness(t *testing.T, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, ledger: seededLedger(), sim: terminal.NewSimulator(), logs: &bytes.Buffer{}}
	cfg := kiosk.Config{
		Ledger:   h.ledger,
		Terminal: h.sim,
		Now:      func() time.Time { return fixedAt },
		Location: chicago,
		Secret:   testSecret,
		Logger:   slog.New(slog.NewTextHandler(h.logs, nil)),
		NodeID:   "hall-kiosk",
	}
	for _, o := range opts {
		o(&cfg)
	}
	h.ledger.now = cfg.Now
	k, err := kiosk.New(cfg)
	if err != nil {
		t.Fatalf("kiosk.New: %v", err)
	}
	h.kiosk = k
	h.srv = httptest.NewServer(k.Handler())
	t.Cleanup(h.srv.Close)
	h.client = h.newClient()
	return h
}

// newClient returns a client with its own cookies: another browser.
func (h *harness) newClient() *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

// page is a response and its parsed body.
type page struct {
	status   int
	location string
	header   http.Header
	doc      *goquery.Document
	body     string
}

func (p page) text(testid string) string {
	return squash(p.doc.Find(`[data-testid="` + testid + `"]`).First().Text())
}

func (p page) count(testid string) int { return p.doc.Find(`[data-testid="` + testid + `"]`).Length() }

func (p page) csrf() string {
	v, _ := p.doc.Find(`input[name="csrf"]`).First().Attr("value")
	return v
}

func (p page) lang() string {
	v, _ := p.doc.Find("html").Attr("lang")
	return v
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func (h *harness) get(path string) page { return h.do(h.client, http.MethodGet, path, nil) }

func (h *harness) post(path string, form url.Values) page {
	return h.do(h.client, http.MethodPost, path, form)
}

func (h *harness) do(c *http.Client, method, path string, form url.Values) page {
	h.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, h.srv.URL+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	p := page{status: resp.StatusCode, location: resp.Header.Get("Location"), header: resp.Header, body: string(b)}
	if p.doc, err = goquery.NewDocumentFromReader(bytes.NewReader(b)); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// session returns the session id the client's cookie holds.
func (h *harness) session(c *http.Client) string {
	for _, k := range c.Jar.Cookies(mustURL(h.srv.URL)) {
		if k.Name == "kiosk_session" {
			return k.Value
		}
	}
	return ""
}

// csrfToken returns the CSRF token of the client's session.
func (h *harness) csrfToken(c *http.Client) string { return h.kiosk.CSRFToken(h.session(c)) }

// expect fails the test unless p has the status.
func (h *harness) expect(p page, status int) {
	h.t.Helper()
	if p.status != status {
		h.t.Fatalf("status %d, want %d; location %q; error %q", p.status, status, p.location, p.text("error-message"))
	}
}

// confirmForm walks from the pay form to the confirmation page of a payment
// of amount on bill and returns that page.
func (h *harness) confirmPage(bill, amount string) page {
	h.t.Helper()
	form := h.get("/bills/" + bill + "/pay")
	h.expect(form, http.StatusOK)
	r := h.post("/bills/"+bill+"/pay", url.Values{"csrf": {form.csrf()}, "amount": {amount}})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	h.expect(c, http.StatusOK)
	return c
}

// chargeForm returns the fields of a confirmation page's payment form.
func chargeForm(c page) url.Values {
	v := url.Values{}
	c.doc.Find(`form[data-testid="charge-form"] input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(name, val)
	})
	return v
}

func chargeAction(c page) string {
	a, _ := c.doc.Find(`form[data-testid="charge-form"]`).Attr("action")
	return a
}
