package staff_test

import (
	"context"
	"encoding/json"
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

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// cheap is a password hasher for tests: real argon2id, tiny cost.
var cheap = staff.Hasher{Memory: 64, Time: 1, Threads: 1}

const testPassword = "correct horse battery"

// harness is a clerk's office over a memLedger on an httptest server,
// with a pinned clock that tests may move.
type harness struct {
	t       *testing.T
	ledger  *memLedger
	srv     *httptest.Server
	handler http.Handler
	mu      sync.Mutex
	clock   time.Time
	loc     *time.Location
	clockOf *harness // a peer reads the clock of the harness it was made from
}

type fakeCluster struct{ problems []string }

func (c fakeCluster) Problems() []string { return c.problems }

func (fakeCluster) Cluster(ctx context.Context) (staff.ClusterView, error) {
	return staff.ClusterView{Leader: "hall-kiosk", Nodes: []staff.ClusterMember{
		{ID: "backup", Address: "10.0.1.3:9443", Suffrage: "Voter", State: "unreachable", Error: "dial tcp: timeout"},
		{ID: "hall-clerk", Address: "10.0.0.3:9443", Suffrage: "Voter", State: "Follower", AppliedIndex: 40, Lag: 2, LastContact: time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)},
		{ID: "hall-kiosk", Address: "10.0.0.2:9443", Suffrage: "Voter", State: "Leader", AppliedIndex: 42},
	}}, nil
}

func newHarness(t *testing.T) *harness { return newHarnessWith(t, fakeCluster{}) }

// newHarnessWith starts the clerk's office over cluster.
func newHarnessWith(t *testing.T, cluster fakeCluster) *harness {
	t.Helper()
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, loc: loc, clock: time.Date(2026, time.November, 2, 9, 0, 0, 0, loc)}
	h.ledger = newMemLedger(h.now, loc)
	h.serve(cluster)
	return h
}

// serve starts a clerk's office over h's ledger and clock.
func (h *harness) serve(cluster fakeCluster) {
	h.t.Helper()
	s, err := staff.New(staff.Config{
		Ledger:        h.ledger,
		Cluster:       cluster,
		Refunds:       h.ledger,
		Journal:       h.ledger,
		Now:           h.now,
		Location:      h.loc,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		OperatorToken: "operator-secret-token-0123456789abcdef",
		Hasher:        cheap,
		Depositories:  []string{"Bank of Belleville (designated)"},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.handler = s.Handler()
	h.srv = httptest.NewServer(h.handler)
	h.t.Cleanup(h.srv.Close)
}

// peer starts the clerk's office of another node: a second staff.Server
// over the same ledger (the memLedger stands for the replicated ledger
// that both nodes read) and the same clock, with its own sessions and
// sign-in limiter in its own memory, as another node has.
func (h *harness) peer() *harness {
	h.t.Helper()
	p := &harness{t: h.t, ledger: h.ledger, loc: h.loc, clockOf: h}
	p.serve(fakeCluster{})
	return p
}

func (h *harness) now() time.Time {
	if h.clockOf != nil {
		return h.clockOf.now()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clock
}

func (h *harness) setClock(t time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clock = t
}

// addUser creates an account with testPassword; ready means the forced
// password change is already done.
func (h *harness) addUser(username string, role domain.Role, ready bool) {
	h.t.Helper()
	submit := func(ch domain.StaffUserChange) {
		c, _ := h.ledger.NewCommand(domain.KindStaffUser, "setup")
		c.Payload = &ch
		if _, err := h.ledger.Submit(context.Background(), c); err != nil {
			h.t.Fatal(err)
		}
	}
	submit(domain.StaffUserChange{Op: domain.StaffAdd, Username: username, Name: strings.ToUpper(username[:1]) + username[1:], Role: role, PasswordHash: cheap.Hash(testPassword)})
	if ready {
		submit(domain.StaffUserChange{Op: domain.StaffPassword, Username: username, PasswordHash: cheap.Hash(testPassword)})
	}
}

// client is a browser: a cookie jar and the CSRF token of the last page.
type client struct {
	h    *harness
	http *http.Client
	csrf string
}

func (h *harness) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{h: h, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// clientFrom is a browser on the computer at addr ("10.0.0.7:50000"): its
// requests are served in process with that remote address, since every
// request to the httptest server comes from loopback.
func (h *harness) clientFrom(addr string) *client {
	c := h.client()
	c.http.Transport = fromAddr{handler: h.handler, addr: addr}
	return c
}

// fromAddr is a RoundTripper that serves a request with handler as if it
// came from addr.
type fromAddr struct {
	handler http.Handler
	addr    string
}

func (f fromAddr) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RemoteAddr, r.RequestURI = f.addr, req.URL.RequestURI()
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// page is a response and its parsed HTML.
type page struct {
	status   int
	location string
	doc      *goquery.Document
	body     string
}

func (p page) text(testid string) string {
	return strings.TrimSpace(p.doc.Find(`[data-testid="` + testid + `"]`).Text())
}

func (p page) has(testid string) bool {
	return p.doc.Find(`[data-testid="`+testid+`"]`).Length() > 0
}

func (c *client) do(req *http.Request) page {
	c.h.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if tok, ok := doc.Find(`input[name="csrf"]`).First().Attr("value"); ok && tok != "" {
		c.csrf = tok
	}
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), doc: doc, body: string(b)}
}

func (c *client) get(path string) page {
	c.h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.h.srv.URL+path, nil)
	return c.do(req)
}

// post submits a form with this session's CSRF token (unless the form
// sets its own "csrf").
func (c *client) post(path string, form url.Values) page {
	c.h.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", c.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, c.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

// login signs in and returns the response to the sign-in form.
func (c *client) login(username, password string) page {
	c.h.t.Helper()
	c.get("/staff/login")
	return c.post("/staff/login", url.Values{"username": {username}, "password": {password}})
}

// signedIn returns a client signed in as a ready account of role.
func (h *harness) signedIn(username string, role domain.Role) *client {
	h.t.Helper()
	h.addUser(username, role, true)
	c := h.client()
	if p := c.login(username, testPassword); p.status != http.StatusSeeOther {
		h.t.Fatalf("sign in as %s: status %d", username, p.status)
	}
	c.get("/staff/")
	return c
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
