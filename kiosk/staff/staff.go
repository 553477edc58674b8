// Package staff serves the clerk's office: the staff side of the node,
// under /staff/ for people in a desktop browser and /api/v1/ for
// automation with API tokens. The appliance mounts it beside the resident
// kiosk, which never links to it.
//
// Staff sign in with accounts held in the replicated ledger (argon2id
// password hashes, a forced change at first sign-in, rate-limited
// sign-in); sessions live in the node's memory; every form carries a
// per-session CSRF token; every route names the one Capability it needs
// (roles.go). Handlers hold no rules: they build domain commands, submit
// them through domain.Ledger and show what the domain computed.
//
// The root holds only what the pages share: login.go (sign-in and the
// password), start.go (the start page), cluster.go (the cluster page),
// api.go (API tokens), roles.go, module.go (the modules' Office), the
// CSV and form helpers; error.go maps errors to statuses in one place.
// Every capability (the window, the bills and accounts, the status
// letters, the refunds, the staff accounts, the journal, the fee
// schedule, the parcel roll, the November run, the budget, claims, the
// room tax …) is a package of its own under kiosk/staff/, its templ views
// beside its handlers, mounted as a Module on the Office it shares with
// the others (module.go); its tests start the office with stafftest.
// What every route shares has one file too: auth.go (hashes, sessions,
// the sign-in limiter), password.go (the password policy), export.go
// (every CSV download) and jsonbody.go (every JSON request body).
package staff

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
	routes "github.com/villagehall/appliance/kiosk/route"
	"github.com/villagehall/appliance/kiosk/staff/view"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// Cluster is what the cluster page and the start page's alerts read: the
// appliance adapts it from the replicated node.
type Cluster interface {
	Cluster(ctx context.Context) (ClusterView, error)
	// Problems says, in sentences, what is wrong with this node's ledger
	// or what it knows is wrong with a peer's (a node that stopped
	// applying the log, a replica whose ledger differs); empty when all
	// is well.
	Problems() []string
}

// ClusterView is the cluster as this node sees it.
type ClusterView struct {
	Leader string
	Nodes  []ClusterMember
}

// ClusterMember is one member of the cluster and its own account of
// itself (State "unreachable" when it did not answer).
type ClusterMember struct {
	ID           string
	Address      string
	Suffrage     string
	State        string
	LastContact  time.Time
	AppliedIndex uint64
	Lag          uint64
	Error        string
}

// Refunds lists the refunds due (§5.07(1)) that payments made; the
// appliance passes the replicated state.
type Refunds interface {
	RefundsDue() ([]domain.RefundDue, error)
}

// CardRefunds gives money back to the card a payment was charged to: the
// node's card terminal (kiosk/terminal).
type CardRefunds interface {
	Refund(ctx context.Context, r terminal.RefundRequest) (terminal.Refund, error)
}

// CardTerminal charges a card and gives money back to it: the node's card
// terminal (kiosk/terminal), the one the kiosk charges through, for the
// payments the office takes by card (a hotel operator's room tax on its
// portal, a status letter's fee at the window). A charge is keyed by its
// command id, as at the kiosk.
type CardTerminal interface {
	Charge(ctx context.Context, key string, amount domain.Money) (terminal.Approval, error)
	CardRefunds
}

// Mailer queues an e-mail and sends it when the relay answers (kiosk/mail).
type Mailer interface {
	Enqueue(mail.Message) error
}

// JournalEntry is one link of the ledger's hash-chained journal: a command
// applied or refused, by whom, when and on which node.
type JournalEntry struct {
	Seq       uint64          `json:"seq"`
	Index     uint64          `json:"index"`
	CommandID string          `json:"command_id"`
	Kind      domain.Kind     `json:"kind"`
	Actor     string          `json:"actor"`
	Node      string          `json:"node"`
	At        domain.DateTime `json:"at"`
	Outcome   string          `json:"outcome"`
	Error     string          `json:"error,omitempty"`
	Hash      string          `json:"hash"`
	// Touched is what the command did to the records the office looks
	// commands up by; JournalEntries fills it in, Journal does not.
	Touched domain.Touched `json:"-"`
}

// Journal reads the journal; the appliance adapts the replicated ledger's.
type Journal interface {
	// Journal calls fn with every entry in order (the auditors'
	// extract, which chains them).
	Journal(fn func(JournalEntry) error) error
	// JournalEntries calls fn with the entries q selects, read through
	// the ledger's indexes, until fn returns false.
	JournalEntries(q JournalQuery, fn func(JournalEntry) bool) (JournalScan, error)
	// JournalYear returns the part of the journal that holds the
	// entries of intake year year (JournalYear), so that the auditors'
	// extract reads that part only.
	JournalYear(year int) (JournalYear, error)
	// JournalRange calls fn with the entries of sequence from to to,
	// both included, in journal order, until fn returns an error.
	JournalRange(from, to uint64, fn func(JournalEntry) error) error
}

// JournalYear is the part of the journal that holds the entries of an
// intake year: First is the sequence of the earliest entry of that year
// or a later one, Last of the latest entry of that year or an earlier one
// (0 when there is none). Every entry before First is of an earlier year,
// every entry after Last of a later one; the entries between may be of
// any year (a node's offline commands reach the journal days after their
// intake). Prev is the hash of the entry just before First, or of the
// journal's last entry when First is 0; empty at the journal's beginning.
type JournalYear struct {
	First, Last uint64
	Prev        string
}

// JournalQuery selects journal entries. Every field set must match. A
// listing by kind or by intake days (with no command, bill or account)
// goes by intake day, then journal order; the others by journal order.
type JournalQuery struct {
	CommandID, Bill, Account string
	Kind                     domain.Kind
	From, To                 domain.Date // intake days, both included; zero: open
	// Cursor is the sequence of an entry already listed (0: none): the
	// listing goes on just past it, in its order.
	Cursor uint64
	Oldest bool // oldest first; else newest first
	// Scan bounds the entries read (0: no bound); JournalScan says where
	// the listing stopped, so a page can go on from there.
	Scan int
}

// JournalScan says where a listing stopped: Last is the sequence of the
// last entry read (the cursor that goes on), More that entries are left.
type JournalScan struct {
	Last uint64
	More bool
}

// Config is what the clerk's office needs from the appliance.
type Config struct {
	Ledger domain.Ledger
	// CardRefunds, when set, lets an approved refund of a card payment go
	// back to the card (kiosk/staff/refunds).
	CardRefunds CardRefunds
	// CardTerminal, when set, lets the office take card payments through
	// the node's terminal (the operator's portal, a status letter's fee at
	// the window); nil: the office offers none.
	CardTerminal CardTerminal
	// Mail, when set, e-mails what the office sends out (a status letter
	// to a title company); nil: the node has no mail relay.
	Mail Mailer
	// Cluster, when set, serves /staff/cluster.
	Cluster Cluster
	// Refunds, when set, serves the refund queue.
	Refunds Refunds
	// Journal, when set, serves the journal search and export.
	Journal Journal
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// Location is the village's time zone; nil loads America/Chicago.
	Location *time.Location
	Logger   *slog.Logger
	// OperatorToken, when set, is accepted on /api/v1/users as an
	// administrator: `appliance user` uses it over loopback to manage
	// accounts (the first administrator included).
	OperatorToken string
	// Hasher makes password hashes; zero means DefaultHasher.
	Hasher Hasher
	// Modules are the capabilities of the back office in packages of
	// their own (module.go), mounted in this order.
	Modules []Module
	// Letterhead is the village hall's name, address and telephone on the
	// receipts the office prints, from the node's configuration; a zero
	// field keeps the built-in text.
	Letterhead Letterhead
}

// Letterhead is what the office's printed receipts are headed with.
type Letterhead struct {
	Name, Address, Phone, Email string
}

// Server is the clerk's office.
type Server struct {
	ledger   domain.Ledger
	reads    domain.Reads // the ledger's records, in the domain's words
	cluster  Cluster
	refunds  Refunds
	cards    CardRefunds
	terminal CardTerminal
	mail     Mailer
	journal  Journal
	head     Letterhead
	now      func() time.Time
	loc      *time.Location
	log      *slog.Logger
	operator string
	hasher   Hasher
	sessions *sessions
	limiter  *limiter
	// What the modules mounted.
	routes []route
	nav    []navLink
	alerts []AlertFunc
	drawer DrawerFunc // the start page's note of the open drawer; nil for none
	homes  map[domain.Role]string
	// sealKey signs the confirmations the office hands out (Office.Seal):
	// made at start and held only in this process, so a confirmation
	// outlives neither the process nor the session it was made for.
	sealKey []byte
}

// Timing of a submitted command.
const (
	submitWait   = 5 * time.Second
	maxFormBytes = 64 << 10
	maxCSVBytes  = 4 << 20
)

// New checks cfg and returns the clerk's office.
func New(cfg Config) (*Server, error) {
	if cfg.Ledger == nil {
		return nil, errors.New("staff: no ledger")
	}
	s := &Server{ledger: cfg.Ledger, reads: domain.ReadsOf(cfg.Ledger), cluster: cfg.Cluster, refunds: cfg.Refunds, cards: cfg.CardRefunds, terminal: cfg.CardTerminal, mail: cfg.Mail, journal: cfg.Journal, head: cfg.Letterhead, now: cfg.Now, loc: cfg.Location, log: cfg.Logger, operator: cfg.OperatorToken, hasher: cfg.Hasher}
	s.sealKey = make([]byte, 32)
	if _, err := rand.Read(s.sealKey); err != nil {
		return nil, fmt.Errorf("the office's seal key: %w", err)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.loc == nil {
		loc, err := time.LoadLocation("America/Chicago")
		if err != nil {
			return nil, fmt.Errorf("staff: load the village's time zone: %w", err)
		}
		s.loc = loc
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.hasher == (Hasher{}) {
		s.hasher = DefaultHasher
	}
	if err := s.hasher.check(); err != nil {
		return nil, fmt.Errorf("staff: password hasher: %w", err)
	}
	s.sessions = &sessions{now: s.now, m: map[string]*session{}}
	s.limiter = newLimiter(s.now)
	for _, m := range cfg.Modules {
		if err := m.Mount(&Office{s: s}); err != nil {
			return nil, fmt.Errorf("staff: mount %T: %w", m, err)
		}
	}
	return s, nil
}

// Handler returns the routes under /staff/ and /api/v1/.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	// Open to anyone: the sign-in page and the stylesheet.
	mux.HandleFunc("GET /staff/login", s.showLoginPage)
	mux.HandleFunc("POST /staff/login", s.submitLogin)
	mux.HandleFunc("GET /staff/assets/staff.css", serveCSS)
	mux.HandleFunc("GET /staff/assets/print.js", servePrintJS)
	// Signed in, whatever the role; a forced password change is allowed.
	mux.HandleFunc("POST /staff/logout", s.signedIn(s.submitLogout))
	mux.HandleFunc("GET /staff/password", s.signedIn(s.showPasswordPage))
	mux.HandleFunc("POST /staff/password", s.signedIn(s.submitPassword))

	route := func(pattern string, c Capability, h http.HandlerFunc) {
		mux.HandleFunc(pattern, s.require(c, h))
	}
	route("GET /staff/{$}", CapDashboard, s.showDashboardPage)

	route("GET /staff/cluster", CapCluster, s.showClusterPage)

	for _, m := range s.routes {
		if m.api {
			mux.HandleFunc(m.pattern, s.requireToken(m.c, m.h))
		} else {
			mux.HandleFunc(m.pattern, s.require(m.c, m.h))
		}
	}

	api := func(pattern string, c Capability, h http.HandlerFunc) {
		mux.HandleFunc(pattern, s.requireToken(c, h))
	}
	api("GET /api/v1/whoami", CapDashboard, s.apiWhoami)
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "No such API route."))
	})
	mux.HandleFunc("/staff/", s.showNotFound)
	return secure(routes.Record(mux))
}

// secure sets the headers every staff response carries.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// today returns the village's date now.
func (s *Server) today() domain.Date { return domain.DateOf(s.now().In(s.loc)) }

// page returns what every staff page shares.
func (s *Server) page(r *http.Request, title string) view.Page {
	p := view.Page{Title: title, Today: s.today().String()}
	if pr, ok := principalFrom(r.Context()); ok {
		p.User, p.Name, p.Role = pr.user.Username, pr.user.Name, pr.user.Role.Title()
		p.CSRF = pr.session.csrf
		if !pr.user.MustChange {
			p.Nav = s.navOf(pr.user.Role, r.URL.Path)
		}
	}
	if c := s.ledger.Consistency(); c.Level != domain.Current {
		b := "This node is a replica"
		if c.Level == domain.Offline {
			b = "This node cannot reach the leader: changes wait in its outbox"
		}
		if !c.LastContact.IsZero() {
			b += "; records as of " + c.LastContact.In(s.loc).Format("Jan 2 15:04")
		}
		if c.Pending > 0 {
			b += fmt.Sprintf("; %d change(s) pending", c.Pending)
		}
		p.Banner = b + "."
	}
	return p
}

// offices groups the navigation by the office whose work a page is, as
// the back offices clerks know are organized: each office's pages in the
// order its people reach for them. A module adds its links (Office.Nav) in
// any order; a link no office lists goes under "More", in the order it was
// added.
var offices = []struct {
	name  string
	pages []string
}{
	{"Front desk", []string{"/staff/", "/staff/window", "/staff/accounts", "/staff/letters", "/staff/drawers", "/staff/refunds", "/staff/cards", "/staff/fees"}},
	{"Receivables", []string{"/staff/bills/new", "/staff/bills/import", "/staff/parcels/import", "/staff/november", "/staff/assessments"}},
	{"Budget and purchasing", []string{"/staff/budget", "/staff/chart", "/staff/orders"}},
	{"Payables", []string{"/staff/claims", "/staff/checks"}},
	{"Treasury and books", []string{"/staff/depositories", "/staff/levy", "/staff/books", "/staff/journal", "/staff/audit"}},
	{"Room tax", []string{"/staff/room-tax"}},
	{"Administration", []string{"/staff/legal-claims", "/staff/users", "/staff/cluster", "/staff/backups"}},
}

// navOf is the navigation of a role, grouped by office (offices), the
// link to the page at path marked current. An office with no link the
// role may follow is left out.
func (s *Server) navOf(role domain.Role, path string) []view.NavGroup {
	links := append([]navLink{
		{CapDashboard, "Today", "/staff/"},
		{CapCluster, "Cluster", "/staff/cluster"},
	}, s.nav...)
	byURL := make(map[string]navLink, len(links))
	for _, n := range links {
		byURL[n.url] = n
	}
	link := func(n navLink) view.NavLink {
		return view.NavLink{Label: n.label, URL: n.url, Current: path == n.url}
	}
	var out []view.NavGroup
	placed := map[string]bool{}
	for _, o := range offices {
		g := view.NavGroup{Name: o.name}
		for _, u := range o.pages {
			placed[u] = true
			if n, ok := byURL[u]; ok && Allowed(role, n.c) {
				g.Links = append(g.Links, link(n))
			}
		}
		if len(g.Links) > 0 {
			out = append(out, g)
		}
	}
	more := view.NavGroup{Name: "More"}
	for _, n := range links {
		if !placed[n.url] && Allowed(role, n.c) {
			more.Links = append(more.Links, link(n))
		}
	}
	if len(more.Links) > 0 {
		out = append(out, more)
	}
	return out
}

// render writes a component with a status, buffered so that a failure
// mid-page becomes a clean error.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.Error("render staff page", "path", r.URL.Path, "err", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// submit builds a command of kind k for the signed-in person, lets fill
// set its payload, and submits it. A provisional result (no quorum in
// time) is an error for the clerk's office: its commands need the current
// ledger, and the clerk must know the change has not happened yet.
func (s *Server) submit(r *http.Request, k domain.Kind, fill func(*domain.Command)) (domain.Result, error) {
	pr, _ := principalFrom(r.Context())
	if d, ok := domain.Kinds.Lookup(k); ok && !d.Permits(pr.user.Role) {
		// The pages' capabilities decide who sees what; the kind's
		// descriptor says who may issue it, whatever page sent it.
		return domain.Result{}, domain.Errorf(domain.EFORBIDDEN, d.Section, "Your role (%s) may not make %s changes.", pr.user.Role.Title(), k)
	}
	return s.submitAs(r.Context(), pr.user.Username, k, fill)
}

func (s *Server) submitAs(ctx context.Context, actor string, k domain.Kind, fill func(*domain.Command)) (domain.Result, error) {
	cmd, err := s.ledger.NewCommand(k, actor)
	if err != nil {
		return domain.Result{}, err
	}
	fill(&cmd)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), submitWait)
	defer cancel()
	res, err := s.ledger.Submit(ctx, cmd)
	if err != nil {
		return res, err
	}
	if res.Index == 0 {
		return res, domain.Errorf(domain.EUNAVAILABLE, "", "The change was recorded on this node but the cluster has not confirmed it yet (no quorum). It will apply when the network returns; check again before acting on it.")
	}
	return res, nil
}

// formValue returns a trimmed form value.
func formValue(r *http.Request, name string) string { return strings.TrimSpace(r.PostForm.Get(name)) }
