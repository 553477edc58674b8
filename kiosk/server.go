// Package kiosk serves the resident kiosk at village hall: find a village
// bill, understand today's amount due, pay it by card and take a receipt;
// pay property tax (Ch. 74); request a status letter (§5.11); inspect the
// public purchasing records (§5.12(5), (7)).
//
// Pages are rendered on the server with templ (package view) and work
// without JavaScript; the embedded script only runs the idle timer, the
// on-screen number pad and keyboard, the print button and a cart's live
// total. Handlers hold no business logic: the domain computes every
// figure, a handler maps it to a view model. The kiosk reads and writes the
// ledger only through domain.Ledger and charges cards only through
// terminal.Terminal; the appliance passes both in. A kiosk without a
// terminal is a normal kiosk that sends residents to the clerk's window to
// pay (cardoff.go).
//
// One file per resource, handlers named showXxxPage and submitXxx, in the
// manner of miniflux: start.go, find.go, account.go, parcel.go, bill.go,
// pay.go, receipt.go, letter.go, propertytax.go, roomtax.go,
// assessment.go, cardoff.go. Everything paid by card goes through one
// checkout (checkout.go: confirm, charge, submit, receipt; charge.go: the
// terminal and the ledger's steps), and pay.go, letter.go, propertytax.go
// and the others each declare their payable to it. error.go maps every
// error to a status and a message in one place; security.go and
// session.go keep the anonymous sessions, the CSRF tokens and the
// signatures of the checkout forms. Records are read through domain.Reads,
// never by collection or index key.
//
// A capability that stands without the checkout, the sessions and the
// signed links has a package of its own below this one, which declares
// the small interface of what it reads, if anything: find (what a search box names:
// bills, accounts, parcels, and addresses despite typos), receipt (a
// receipt's letterhead, QR code and e-mailed copy; receipt.go keeps the
// page and its session-bound links) and records (the public records'
// read-only pages: budgets, purchasing, assessment reports, room tax
// collected). A package that serves pages is lent what every page shares
// through records.Pages; the routes all stay in Handler. Every resident
// page's view stays in package view, whichever package serves the page:
// one layout, one view.Page and one set of view models for the whole
// kiosk.
package kiosk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"time"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/assets"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/receipt"
	"github.com/villagehall/appliance/kiosk/records"
	"github.com/villagehall/appliance/kiosk/route"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/view"
)

// Config is what the kiosk needs from the appliance.
type Config struct {
	Ledger domain.Ledger
	// Terminal charges cards. Nil is a kiosk without a card terminal, a
	// normal state: it shows bills, tax bills and the status letter fee,
	// says that card payments are not available here today and sends the
	// resident to the clerk's window with the amount and what to bring; it
	// never charges or submits a payment.
	Terminal terminal.Terminal
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// Location is the village's time zone (America/Chicago); nil loads it.
	Location *time.Location
	// Secret keys the CSRF tokens, the signatures of payment forms and the
	// receipt links. At least 32 random bytes. Every one of them is also
	// bound to the resident's session, which lives in this process only:
	// after a restart a page shown before it is refused as expired (nothing
	// is charged) and the resident starts again.
	Secret []byte
	Logger *slog.Logger
	NodeID string
	// Simulator shows the "Card terminal (simulator)" panel on the
	// confirmation pages, whose "terminal" field chooses the outcome of the
	// next charge. Demo only: it needs a Terminal that implements
	// terminal.OutcomeSetter. Without it the field is never read.
	Simulator bool
	// IdleTimeout is how long a page waits without a touch before it
	// returns to the start screen; zero means two minutes. The warning
	// shows 30 seconds before, or 20 for a timeout under a minute; a
	// timeout shorter than 20 seconds (tests only) warns at once.
	IdleTimeout time.Duration
	// CardCheck is how long the terminal's answer to "can you take cards
	// now?" holds (terminal.Checker); zero means 30 seconds, negative asks
	// on every page (tests).
	CardCheck time.Duration
	// Village is the receipts' letterhead, from the node's configuration.
	Village receipt.Village
	// Mail queues e-mailed copies of receipts (the appliance's mail.Queue
	// on the node's SMTP relay); nil: the receipt offers none.
	Mail Mailer
}

// Timing of a charge: how long the terminal may take (the resident inserts a
// card, types a PIN), and how long the ledger may take before the payment is
// shown as provisional.
const (
	chargeTimeout = 3 * time.Minute
	submitWait    = 5 * time.Second
	maxFormBytes  = 16 << 10
)

// Server is the kiosk's HTTP server.
type Server struct {
	ledger   domain.Ledger
	reads    domain.Reads      // the ledger's records, asked in the domain's words
	terminal terminal.Terminal // nil: no card payments at this kiosk
	village  receipt.Village   // the receipts' letterhead
	mail     Mailer            // nil: no e-mailed copies
	now      func() time.Time
	loc      *time.Location
	log      *slog.Logger
	node     string
	sim      terminal.OutcomeSetter // nil unless the demo panel is on
	idle     time.Duration
	catalog  *i18n.Catalog
	keys     keys
	sessions *sessions
	assetVer map[string]string
	cards    *cardState
	paying   keyLocks
	voided   voids
	records  *records.Records // the public records' pages
}

// New checks cfg and returns a kiosk server.
func New(cfg Config) (*Server, error) {
	if cfg.Ledger == nil {
		return nil, errors.New("kiosk: no ledger")
	}
	if isNil(cfg.Terminal) {
		// A nil pointer in the interface (a *terminal.Simulator left
		// unset) is no terminal too, not one that panics at the first
		// charge.
		cfg.Terminal = nil
	}
	if len(cfg.Secret) < 32 {
		return nil, errors.New("kiosk: the secret must be at least 32 bytes")
	}
	s := &Server{
		ledger:   cfg.Ledger,
		reads:    domain.ReadsOf(cfg.Ledger),
		terminal: cfg.Terminal,
		now:      cfg.Now,
		loc:      cfg.Location,
		log:      cfg.Logger,
		node:     cfg.NodeID,
		idle:     cfg.IdleTimeout,
		keys:     deriveKeys(cfg.Secret),
		village:  cfg.Village,
		mail:     cfg.Mail,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.loc == nil {
		loc, err := time.LoadLocation("America/Chicago")
		if err != nil {
			return nil, fmt.Errorf("kiosk: load the village's time zone: %w", err)
		}
		s.loc = loc
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.idle <= 0 {
		s.idle = 2 * time.Minute
	}
	// The session outlives the page's idle timer, and a charge, with room
	// to spare.
	s.sessions = newSessions(s.now, max(sessionIdle, 2*(s.idle+chargeTimeout)), maxSessions)
	s.cards = &cardState{every: cfg.CardCheck, mono: time.Now}
	if s.cards.every == 0 {
		s.cards.every = 30 * time.Second
	}
	if c, ok := cfg.Terminal.(terminal.Checker); ok {
		s.cards.checker = c
	}
	if cfg.Simulator {
		setter, ok := cfg.Terminal.(terminal.OutcomeSetter)
		if !ok {
			return nil, errors.New("kiosk: the simulator panel needs a terminal whose outcome can be set")
		}
		s.sim = setter
	}
	s.records = records.New(pages{s}, s.ledger, s.reads, s.today)
	var err error
	if s.catalog, err = i18n.Load(); err != nil {
		return nil, fmt.Errorf("kiosk: %w", err)
	}
	if s.assetVer, err = assets.Versions(); err != nil {
		return nil, fmt.Errorf("kiosk: %w", err)
	}
	return s, nil
}

// Handler returns the kiosk's routes. It serves resident pages only: no
// staff page is reachable from it. The appliance mounts /healthz itself.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.showStartPage)
	mux.HandleFunc("GET /reset", s.showResetPage)
	mux.HandleFunc("GET /find", s.showFindPage)
	mux.HandleFunc("GET /accounts/{number}", s.showAccountPage)
	mux.HandleFunc("GET /accounts/{number}/pay", s.showCartPage)
	mux.HandleFunc("POST /accounts/{number}/pay", s.submitCart)
	mux.HandleFunc("GET /accounts/{number}/confirm", s.showCheckoutPage(billCart))
	mux.HandleFunc("POST /accounts/{number}/charge", s.submitCheckout(billCart))
	mux.HandleFunc("GET /parcels/{id}", s.showParcelPage)
	mux.HandleFunc("GET /bills/{id}", s.showBillPage)
	mux.HandleFunc("GET /bills/{id}/pay", s.showPayPage)
	mux.HandleFunc("POST /bills/{id}/pay", s.submitPayAmount)
	mux.HandleFunc("GET /bills/{id}/confirm", s.showCheckoutPage(billPayments))
	mux.HandleFunc("POST /bills/{id}/charge", s.submitCheckout(billPayments))
	mux.HandleFunc("GET /receipt/{number}", s.showReceiptPage)
	mux.HandleFunc("POST /receipt/{number}/email", s.submitReceiptEmail)
	mux.HandleFunc("GET /letters", s.showLetterPage)
	mux.HandleFunc("POST /letters", s.submitLetter)
	mux.HandleFunc("POST /letters/charge", s.submitCheckout(letterFees))
	mux.HandleFunc("GET /property-tax", s.showTaxSearchPage)
	mux.HandleFunc("GET /property-tax/{parcel}", s.showTaxParcelPage)
	mux.HandleFunc("GET /tax-bills/{id}", s.showTaxBillPage)
	mux.HandleFunc("POST /tax-bills/{id}/pay", s.submitTaxOption)
	mux.HandleFunc("GET /tax-bills/{id}/confirm", s.showCheckoutPage(taxPayments))
	mux.HandleFunc("POST /tax-bills/{id}/charge", s.submitCheckout(taxPayments))
	mux.HandleFunc("GET /room-tax", s.showRoomTaxPage)
	mux.HandleFunc("POST /room-tax", s.submitRoomTax)
	mux.HandleFunc("GET /room-tax/collections", s.records.ShowRoomTaxCollectionsPage)
	mux.HandleFunc("GET /room-tax/{ref}/confirm", s.showCheckoutPage(roomTaxPayments))
	mux.HandleFunc("POST /room-tax/{ref}/charge", s.submitCheckout(roomTaxPayments))
	mux.HandleFunc("GET /assessments/{id}", s.showAssessmentPage)
	mux.HandleFunc("POST /assessments/{id}/pay", s.submitAssessmentOption)
	mux.HandleFunc("GET /assessments/{id}/confirm", s.showCheckoutPage(assessmentPayments))
	mux.HandleFunc("POST /assessments/{id}/charge", s.submitCheckout(assessmentPayments))
	mux.HandleFunc("GET /purchases", s.records.ShowPurchasesPage)
	mux.HandleFunc("GET /purchases/{id}", s.records.ShowPurchasePage)
	mux.HandleFunc("GET /assessment-reports", s.records.ShowAssessmentReportsPage)
	mux.HandleFunc("GET /assessment-reports/{id}", s.records.ShowAssessmentReportPage)
	mux.HandleFunc("GET /budget", s.records.ShowBudgetsPage)
	mux.HandleFunc("GET /budget/{year}", s.records.ShowBudgetPage)
	mux.HandleFunc("GET /budget/{year}/book.pdf", s.records.ShowBudgetBook)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", assetHandler()))
	mux.HandleFunc("/", s.showNotFoundPage)
	return s.secure(s.session(s.language(s.csrf(route.Record(mux)))))
}

// isNil reports whether t is no terminal: nil, or a nil pointer.
func isNil(t terminal.Terminal) bool {
	if t == nil {
		return true
	}
	v := reflect.ValueOf(t)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// takesCards reports whether this kiosk has a card terminal that can take
// cards now (cards.go).
func (s *Server) takesCards() bool { return s.terminal != nil && s.cards.state() == nil }

// assetHandler serves the embedded assets; their URLs carry a content hash,
// so they may be cached for long.
func assetHandler() http.Handler {
	fsrv := http.FileServerFS(assets.FS())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		fsrv.ServeHTTP(w, r)
	})
}

// today returns the village's date now.
func (s *Server) today() domain.Date { return domain.DateOf(s.now().In(s.loc)) }

// page returns what every screen shares. self is the GET URL that shows
// this screen again, which the language switch links to; title is the
// catalogue key of the page's title and args fill its placeholders.
func (s *Server) page(r *http.Request, self string, title string, args ...string) view.Page {
	lang := langFrom(r.Context())
	p := view.Page{
		Printer: s.catalog.Printer(lang),
		CSRF:    s.csrfToken(r),
		CSS:     "/assets/kiosk.css?v=" + s.assetVer["kiosk.css"],
		JS:      "/assets/kiosk.js?v=" + s.assetVer["kiosk.js"],
		Icon:    "/assets/favicon.svg?v=" + s.assetVer["favicon.svg"],
		Idle:    view.Idle{Seconds: int(s.idle / time.Second), Warn: 30, URL: "/reset"},
	}
	if s.idle < time.Minute {
		p.Idle.Warn = 20
	}
	p.Title = p.T(title, args...)
	for _, l := range i18n.Langs() {
		p.Langs = append(p.Langs, view.LangLink{
			Lang:    l,
			Label:   p.T("lang." + string(l)),
			URL:     withLang(self, l),
			Current: l == lang,
		})
	}
	if c := s.ledger.Consistency(); c.Level != domain.Current {
		b := &view.Banner{Offline: c.Level == domain.Offline, Pending: c.Pending}
		if !c.LastContact.IsZero() {
			b.AsOf = c.LastContact.In(s.loc)
		}
		p.Banner = b
	}
	return p
}

// pages lends what every page shares to the pages served by the kiosk's
// packages (records.Pages).
type pages struct{ s *Server }

func (p pages) Page(r *http.Request, title string, args ...string) view.Page {
	return p.s.page(r, selfURL(r), title, args...)
}

func (p pages) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	p.s.render(w, r, status, c)
}

func (p pages) Fail(w http.ResponseWriter, r *http.Request, err error) { p.s.fail(w, r, err) }

// withLang returns the local URL u with its lang parameter set to l.
func withLang(u string, l i18n.Lang) string {
	pu, err := url.Parse(u)
	if err != nil || pu.IsAbs() || pu.Host != "" {
		pu = &url.URL{Path: "/"}
	}
	q := pu.Query()
	q.Set("lang", string(l))
	pu.RawQuery = q.Encode()
	return pu.RequestURI()
}

// selfURL returns the URL of a GET request without its lang parameter.
func selfURL(r *http.Request) string {
	u := *r.URL
	q := u.Query()
	q.Del("lang")
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// render writes a component with a status. It renders into a buffer first so
// that a failure mid-page becomes a clean error, not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// redirect sends the browser to a GET page after a POST (303 See Other).
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// detached returns a context that outlives the request, for the steps of a
// payment that must finish once the card is charged even if the browser
// goes away.
func detached(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), d)
}
