package stafftest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/bills"
	"github.com/villagehall/appliance/kiosk/staff/fees"
	"github.com/villagehall/appliance/kiosk/staff/journal"
	"github.com/villagehall/appliance/kiosk/staff/letters"
	"github.com/villagehall/appliance/kiosk/staff/november"
	"github.com/villagehall/appliance/kiosk/staff/parcels"
	"github.com/villagehall/appliance/kiosk/staff/refunds"
	"github.com/villagehall/appliance/kiosk/staff/users"
	"github.com/villagehall/appliance/kiosk/staff/window"
)

// Hasher is a password hasher for tests: real argon2id, tiny cost.
var Hasher = staff.Hasher{Memory: 64, Time: 1, Threads: 1}

// Password is the password of every account AddUser makes.
const Password = "correct horse battery"

// Harness is a clerk's office over a Ledger on an httptest server, with
// a pinned clock that tests may move.
type Harness struct {
	T       *testing.T
	Ledger  *Ledger
	Srv     *httptest.Server
	Handler http.Handler
	Loc     *time.Location
	opts    Options
	mu      sync.Mutex
	clock   time.Time
	clockOf *Harness // a peer reads the clock of the harness it was made from
}

// Options are what a test may set of the office it starts.
type Options struct {
	// Cluster is the cluster the cluster page shows and the ledger
	// problems the start page alerts.
	Cluster Cluster
	// Modules are the back office's modules to mount, after the front
	// desk's (FrontDesk), which every office has.
	Modules []staff.Module
	// CardRefunds is the card terminal refunds go back through, if any.
	CardRefunds staff.CardRefunds
	// CardTerminal is the card terminal the office charges cards
	// through (the operator's portal, a fee at the window), if any.
	CardTerminal staff.CardTerminal
	// Letterhead heads the office's printed receipts.
	Letterhead staff.Letterhead
	// Mail is the office's mail queue, if any.
	Mail staff.Mailer
}

// Cluster is a cluster of three nodes, one unreachable, whose ledger has
// the problems Trouble names.
type Cluster struct{ Trouble []string }

// Problems implements staff.Cluster.
func (c Cluster) Problems() []string { return c.Trouble }

// Cluster implements staff.Cluster.
func (Cluster) Cluster(ctx context.Context) (staff.ClusterView, error) {
	return staff.ClusterView{Leader: "hall-kiosk", Nodes: []staff.ClusterMember{
		{ID: "backup", Address: "10.0.1.3:9443", Suffrage: "Voter", State: "unreachable", Error: "dial tcp: timeout"},
		{ID: "hall-clerk", Address: "10.0.0.3:9443", Suffrage: "Voter", State: "Follower", AppliedIndex: 40, Lag: 2, LastContact: time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)},
		{ID: "hall-kiosk", Address: "10.0.0.2:9443", Suffrage: "Voter", State: "Leader", AppliedIndex: 42},
	}}, nil
}

// New starts the clerk's office with the front desk's modules only, on 2 November 2026 at
// 9:00 in the village.
func New(t *testing.T) *Harness { return NewWith(t, Options{}) }

// NewWith starts the clerk's office with o.
func NewWith(t *testing.T, o Options) *Harness {
	t.Helper()
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{T: t, Loc: loc, opts: o, clock: time.Date(2026, time.November, 2, 9, 0, 0, 0, loc)}
	h.Ledger = NewLedger(h.Now, loc)
	h.serve()
	return h
}

// serve starts a clerk's office over h's ledger and clock.
func (h *Harness) serve() {
	h.T.Helper()
	s, err := staff.New(staff.Config{
		Ledger:        h.Ledger,
		Cluster:       h.opts.Cluster,
		Refunds:       h.Ledger,
		Journal:       h.Ledger,
		Now:           h.Now,
		Location:      h.Loc,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		OperatorToken: OperatorToken,
		Hasher:        Hasher,
		Modules:       append(FrontDesk(), h.opts.Modules...),
		CardRefunds:   h.opts.CardRefunds,
		CardTerminal:  h.opts.CardTerminal,
		Mail:          h.opts.Mail,
		Letterhead:    h.opts.Letterhead,
	})
	if err != nil {
		h.T.Fatal(err)
	}
	h.Handler = s.Handler()
	h.Srv = httptest.NewServer(h.Handler)
	h.T.Cleanup(h.Srv.Close)
}

// FrontDesk returns the modules of the front desk, which every office a
// test starts has, first and in the order the appliance mounts them
// (appliance/user.go): the pages the clerk's office had before the back
// office grew packages of its own.
func FrontDesk() []staff.Module {
	return []staff.Module{
		window.New(),
		bills.New(),
		letters.New(),
		parcels.New(),
		november.New(),
		refunds.New(),
		fees.New(),
		journal.New(),
		users.New(),
	}
}

// OperatorToken is the operator token of the office: accepted on
// /api/v1/users from loopback as an administrator.
const OperatorToken = "operator-secret-token-0123456789abcdef"

// Peer starts the clerk's office of another node: a second staff.Server
// over the same ledger (the Ledger stands for the replicated ledger that
// both nodes read) and the same clock, with its own sessions and sign-in
// limiter in its own memory, as another node has.
func (h *Harness) Peer() *Harness {
	h.T.Helper()
	p := &Harness{T: h.T, Ledger: h.Ledger, Loc: h.Loc, opts: Options{Modules: h.opts.Modules, CardTerminal: h.opts.CardTerminal}, clockOf: h}
	p.serve()
	return p
}

// Now returns the harness's clock.
func (h *Harness) Now() time.Time {
	if h.clockOf != nil {
		return h.clockOf.Now()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clock
}

// Today returns the village's date on the harness's clock.
func (h *Harness) Today() domain.Date { return domain.DateOf(h.Now().In(h.Loc)) }

// SetClock moves the harness's clock.
func (h *Harness) SetClock(t time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clock = t
}

// Unit is the unit of the chart a department head AddUser makes heads;
// AddUser adds it, with the general fund, to the chart when the chart
// lacks it.
const Unit = "PW"

// AddUser creates an account with Password; ready means the forced
// password change is already done. A department head heads Unit.
func (h *Harness) AddUser(username string, role domain.Role, ready bool) {
	h.T.Helper()
	ch := domain.StaffUserChange{Op: domain.StaffAdd, Username: username, Name: strings.ToUpper(username[:1]) + username[1:], Role: role, PasswordHash: Hasher.Hash(Password)}
	if role == domain.RoleDepartmentHead {
		chart, err := domain.ReadsOf(h.Ledger).Chart()
		if err != nil {
			h.T.Fatal(err)
		}
		if _, ok := chart.Account(Unit); !ok {
			accounts := []domain.ChartAccount{{Code: Unit, Type: domain.AccountDepartment, Name: "Public works", Fund: "100"}}
			if chart.GeneralFund() == "" {
				accounts = append(accounts, domain.ChartAccount{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true})
			}
			h.Submit("setup", &domain.ChartChange{Accounts: accounts, Source: "stafftest"})
		}
		ch.Unit = Unit
	}
	h.AddUserChange(ch)
	if ready {
		h.AddUserChange(domain.StaffUserChange{Op: domain.StaffPassword, Username: username, PasswordHash: Hasher.Hash(Password)})
	}
}

// AddUserChange records a change of a staff account directly on the
// ledger, as an administrator would.
func (h *Harness) AddUserChange(ch domain.StaffUserChange) {
	h.T.Helper()
	c, _ := h.Ledger.NewCommand(domain.KindStaffUser, "setup")
	c.Payload = &ch
	if _, err := h.Ledger.Submit(context.Background(), c); err != nil {
		h.T.Fatal(err)
	}
}

// Seed seeds the ledger with the build's parameters, as the leader of a
// new cluster does: from then on the ledger's resolutions are the
// parameters every command computes with.
func (h *Harness) Seed() {
	h.T.Helper()
	c, _ := h.Ledger.NewCommand(domain.KindResolution, "replica")
	c.Payload = domain.SeedResolution(domain.DefaultParams(), c.At.Date)
	if _, err := h.Ledger.Submit(context.Background(), c); err != nil {
		h.T.Fatal(err)
	}
}

// Submit records a command carrying p on the ledger directly, as actor,
// and fails the test if the ledger refuses it.
func (h *Harness) Submit(actor string, p domain.Payload) domain.Result {
	h.T.Helper()
	c, _ := h.Ledger.NewCommand(p.Kind(), actor)
	c.Payload = p
	res, err := h.Ledger.Submit(context.Background(), c)
	if err != nil {
		h.T.Fatalf("%s: %v", p.Kind(), err)
	}
	return res
}

// Client is a browser: a cookie jar and the CSRF token of the last page.
type Client struct {
	H    *Harness
	HTTP *http.Client
	CSRF string
}

// Client returns a browser with no session yet.
func (h *Harness) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{H: h, HTTP: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// ClientFrom is a browser on the computer at addr ("10.0.0.7:50000"): its
// requests are served in process with that remote address, since every
// request to the httptest server comes from loopback.
func (h *Harness) ClientFrom(addr string) *Client {
	c := h.Client()
	c.HTTP.Transport = fromAddr{handler: h.Handler, addr: addr}
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

// Page is a response and its parsed HTML.
type Page struct {
	Status   int
	Location string
	Doc      *goquery.Document
	Body     string
}

// Text returns the text of the elements with data-testid testid, trimmed.
func (p Page) Text(testid string) string {
	return strings.TrimSpace(p.Doc.Find(`[data-testid="` + testid + `"]`).Text())
}

// Has reports whether the page has an element with data-testid testid.
func (p Page) Has(testid string) bool {
	return p.Doc.Find(`[data-testid="`+testid+`"]`).Length() > 0
}

// Do sends req and reads the answer, keeping the CSRF token of its forms.
func (c *Client) Do(req *http.Request) Page {
	c.H.T.Helper()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.H.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if tok, ok := doc.Find(`input[name="csrf"]`).First().Attr("value"); ok && tok != "" {
		c.CSRF = tok
	}
	return Page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Doc: doc, Body: string(b)}
}

// Get requests a page.
func (c *Client) Get(path string) Page {
	c.H.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.H.Srv.URL+path, nil)
	return c.Do(req)
}

// Post submits a form with this session's CSRF token (unless the form
// sets its own "csrf").
func (c *Client) Post(path string, form url.Values) Page {
	c.H.T.Helper()
	form = maps.Clone(form) // the caller's form is theirs to send again
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", c.CSRF)
	}
	req, _ := http.NewRequest(http.MethodPost, c.H.Srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// Login signs in and returns the response to the sign-in form.
func (c *Client) Login(username, password string) Page {
	c.H.T.Helper()
	c.Get("/staff/login")
	return c.Post("/staff/login", url.Values{"username": {username}, "password": {password}})
}

// SignedIn returns a client signed in as a ready account of role.
func (h *Harness) SignedIn(username string, role domain.Role) *Client {
	h.T.Helper()
	h.AddUser(username, role, true)
	c := h.Client()
	if p := c.Login(username, Password); p.Status != http.StatusSeeOther {
		h.T.Fatalf("sign in as %s: status %d", username, p.Status)
	}
	c.Get("/staff/")
	return c
}

// JSONDecode decodes a JSON answer into v.
func JSONDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

// Upload posts a multipart form with this session's CSRF token, the
// fields, and content as the file input "file" named file (none when file
// is empty): a CSV import as a browser sends it.
func (c *Client) Upload(path string, fields map[string]string, file, content string) Page {
	c.H.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("csrf", c.CSRF)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if file != "" {
		fw, _ := mw.CreateFormFile("file", file)
		_, _ = fw.Write([]byte(content))
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.H.Srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Do(req)
}

// Token makes a ready account of role named username, unless the ledger
// has it already, and issues it an API token, which it returns.
func (h *Harness) Token(username string, role domain.Role) string {
	h.T.Helper()
	if _, err := domain.ReadsOf(h.Ledger).StaffUser(username); domain.ErrorCode(err) == domain.ENOTFOUND {
		h.AddUser(username, role, true)
	} else if err != nil {
		h.T.Fatal(err)
	}
	id, tok, hash := staff.NewAPIToken()
	h.Submit("setup", &domain.APITokenChange{Op: "issue", ID: id, Username: username, SecretHash: hash})
	return tok
}

// API sends an API request with a bearer token (none when token is
// empty) and a JSON body (none when body is empty), and returns the
// status and the answer's bytes.
func (h *Harness) API(method, path, token, body string) (int, []byte) {
	h.T.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, h.Srv.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.T.Fatal(err)
	}
	return resp.StatusCode, b
}

// PostConfirmed submits a form whose first answer is a page asking to
// confirm it (the November run's steps, say), then confirms: it sends the
// form again with every hidden field of the confirm page's form (the
// totals confirmed, "confirm=yes"), and returns the second answer. The
// first answer must be that page.
func (c *Client) PostConfirmed(path string, form url.Values) Page {
	c.H.T.Helper()
	p := c.Post(path, form)
	confirm := p.Doc.Find(`form:has(input[name="confirm"])`).First()
	if p.Status != http.StatusOK || confirm.Length() == 0 {
		c.H.T.Fatalf("POST %s: %d, not a page to confirm: %s", path, p.Status, p.Doc.Find(`[role="alert"], .error`).Text())
	}
	again := maps.Clone(form)
	confirm.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		if name := in.AttrOr("name", ""); name != "" && name != "csrf" {
			again.Set(name, in.AttrOr("value", ""))
		}
	})
	return c.Post(path, again)
}

// NovemberStep runs a step of the November run (§5.10) as the treasurer
// does: the confirm page with the totals, then its confirm button.
func (c *Client) NovemberStep(year int, step string) {
	c.H.T.Helper()
	form := url.Values{"year": {strconv.Itoa(year)}, "step": {step}}
	p := c.Post("/staff/november", form)
	if p.Status != http.StatusOK || !p.Has("november-confirm") {
		c.H.T.Fatalf("%s: %d %s", step, p.Status, p.Text("error"))
	}
	form.Set("confirm", "yes")
	form.Set("count", p.Doc.Find(`input[name="count"]`).AttrOr("value", ""))
	form.Set("total", p.Doc.Find(`input[name="total"]`).AttrOr("value", ""))
	if p := c.Post("/staff/november", form); p.Status != http.StatusSeeOther {
		c.H.T.Fatalf("confirm %s: %d %s", step, p.Status, p.Text("error"))
	}
}
