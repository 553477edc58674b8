package main

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// officeBrowser is a real node with demo data on a clock the test moves,
// staff accounts made with `appliance user add`, and real Chromium on its
// staff pages: what the browser runs through a season of the office use.
type officeBrowser struct {
	t         *testing.T
	m         *Main
	ctx       context.Context
	base      string // the staff pages
	kiosk     string // the resident kiosk
	clock     atomic.Pointer[time.Time]
	passwords map[string]string
	chosen    map[string]bool
}

// newOfficeBrowser starts the node on a clock at start (YYYY-MM-DDTHH:MM,
// village time) and makes the users ({username, name, role, unit}).
func newOfficeBrowser(t *testing.T, start string, users ...[4]string) *officeBrowser {
	b := &officeBrowser{t: t, passwords: map[string]string{}, chosen: map[string]bool{}}
	b.setClock(start)
	m := NewMain()
	m.Config.DataDir = t.TempDir()
	m.Config.HTTPAddr = "127.0.0.1:0"
	m.Config.StaffAddr = "127.0.0.1:0"
	m.Config.Demo = true
	m.Config.Now = func() time.Time { return *b.clock.Load() }
	m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := m.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	b.m = m
	for _, u := range users {
		args := []string{"add", "--username", u[0], "--name", u[1], "--role", u[2]}
		if u[3] != "" {
			args = append(args, "--unit", u[3])
		}
		out, code := userCLI(t, m, args...)
		if code != 0 {
			t.Fatalf("user add %s: %s", u[0], out)
		}
		b.passwords[u[0]] = tempPassword(t, out)
	}
	b.ctx = browsertest.New(t, browsertest.Options{Width: 1280, Height: 1000, Timeout: 8 * time.Minute, Trust: []*x509.Certificate{m.Identity().Certificate()}})
	b.base, b.kiosk = "https://"+m.StaffAddr(), "http://"+m.Addr()
	return b
}

// setClock moves the node's clock to s (YYYY-MM-DDTHH:MM, village time).
func (b *officeBrowser) setClock(s string) {
	at, err := time.ParseInLocation("2006-01-02T15:04", s, villageNow.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	b.clock.Store(&at)
}

// do runs steps with a deadline of their own, and on failure logs what
// the page said.
func (b *officeBrowser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	sctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		browsertest.Screenshot(b.t, b.ctx, "failed-"+what)
		b.t.Fatalf("%s: %v; the page:\n%s", what, err, page)
	}
}

// submit clicks button and waits for marker on the page the form's
// answer shows: the marker is first taken off the page the form is on,
// so the wait cannot end before the answer arrives.
func submit(button, marker string) chromedp.Action[chromedp.Void] {
	return func(c context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.Evaluate[bool](`document.querySelectorAll('[data-testid="`+marker+`"]').forEach(e => e.remove()) || true`)(c, tg); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := chromedp.Click(testid(button))(c, tg); err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.WaitVisible(testid(marker))(c, tg)
	}
}

// set sets the value of the field sel (a CSS selector).
func set(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(chromedp.CSS(sel), value)
}

// has reports whether the page holds an element with testid.
func (b *officeBrowser) has(testid string) bool {
	b.t.Helper()
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="`+testid+`"]')`))
	if err != nil {
		b.t.Fatal(err)
	}
	return ok
}

// text reads the text of the element with testid.
func (b *officeBrowser) text(testid string) string { b.t.Helper(); return text(b.t, b.ctx, testid) }

// eval evaluates a JavaScript expression that yields a string (a promise
// is awaited).
func (b *officeBrowser) eval(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return s
}

// fetchHead fetches the href of the link with testid in the signed-in
// page and returns "content-type status first-five-bytes".
func (b *officeBrowser) fetchHead(testid string) string {
	b.t.Helper()
	return b.eval(`fetch(document.querySelector('[data-testid="` + testid + `"]').href).then(r => r.text().then(x => r.headers.get('content-type') + ' ' + r.status + ' ' + x.slice(0, 5)))`)
}

// as signs user in (choosing a password at the first sign-in), after
// whoever was signed in signs out.
func (b *officeBrowser) as(user string) {
	b.t.Helper()
	b.do("staff start page", chromedp.Navigate(b.base+"/staff/"), chromedp.WaitVisible(`body`))
	if b.has("sign-out") {
		b.do("sign out", chromedp.Click(testid("sign-out")), chromedp.WaitVisible(testid("login-form")))
	}
	b.do("sign in as "+user,
		chromedp.WaitVisible(testid("login-form")),
		chromedp.SendKeys(testid("login-username"), user),
		chromedp.SendKeys(testid("login-password"), b.passwords[user]),
		submit("login-submit", "sign-out"),
	)
	if !b.chosen[user] {
		chosen := "a season at village hall"
		b.do(user+" chooses a password",
			chromedp.WaitVisible(testid("password-forced")),
			chromedp.SendKeys(testid("password-current"), b.passwords[user]),
			chromedp.SendKeys(testid("password-new"), chosen),
			chromedp.SendKeys(testid("password-again"), chosen),
			submit("password-submit", "password-changed"),
		)
		b.passwords[user], b.chosen[user] = chosen, true
	}
}

// open navigates to path of the staff pages and waits for testid.
func (b *officeBrowser) open(path, id string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(testid(id)))
}

func (b *officeBrowser) shot(name string) { browsertest.Screenshot(b.t, b.ctx, name) }
