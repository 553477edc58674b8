package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/villagehall/appliance/kiosk/mail"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"
	_ "time/tzdata" // a bare Pi image may lack the zone database

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/receipt"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/terminal/stripe"
	"github.com/villagehall/appliance/sync/badgerstore"
	"github.com/villagehall/appliance/sync/faults"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

var errUsage = errors.New("usage")

// Config is a node's configuration.
type Config struct {
	DataDir  string // data folder (default ./data)
	HTTPAddr string // the resident kiosk, plain HTTP for the kiosk's own browser (default 127.0.0.1:8080)
	// StaffAddr is the HTTPS listener of the clerk's office and the API
	// (default 127.0.0.1:8443; a clerk's node serving the office's LAN
	// binds its LAN address). A kiosk node serves none; "off" disables it.
	StaffAddr string
	// MetricsAddr, when set, is a plain HTTP listener for the village's
	// Prometheus on the LAN: /metrics, /healthz and /readyz only (the
	// kiosk node serves no staff listener, and its kiosk listener is
	// loopback). Counts and states only: nothing secret is there.
	MetricsAddr string
	Terminal    string // the card terminal: "simulator" or "none" (default: the simulator with --demo, else none)
	NodeID      string // this node's id (default "hall-kiosk")
	Demo        bool   // load demo data into an empty ledger
	ParamsFile  string // parameter overrides layered over the embedded defaults
	Logger      *slog.Logger
	Now         func() time.Time // the clock; tests pin it
	SubmitWait  time.Duration    // how long a payment waits before a provisional receipt
	Faults      bool             // mount /admin/faults (hidden flag --faults; see faults.go)
	// OfflineCardLimit is the largest card payment taken while the node
	// cannot reach the leader.
	OfflineCardLimit domain.Money
	// LogFormat ("json" or "text") and LogLevel are how serve logs.
	LogFormat, LogLevel string
	// Backup is where the backups of this node go (backup, drill).
	Backup backupConfig
	// Stripe is the Stripe Terminal reader (Terminal "stripe").
	Stripe stripeConfig
	// Village is the receipts' letterhead and the village's public site.
	Village villageConfig
	// Mail is the SMTP relay of e-mailed receipts; no relay, no e-mail.
	Mail mailConfig

	// Today, with Demo only, is the day (YYYY-MM-DD) the node's clock runs
	// from: the demo is made as of that day and the clock advances from it
	// at the time of day the node started, so the year's turning points
	// (a return's due date, January 31, November 1 and 15) can be seen
	// through the product's own pages.
	Today string
}

// Village is the village's time zone. Dates in the ledger are its dates.
const Village = "America/Chicago"

// Main is one running node: the replicated ledger and the HTTP server.
// Tests start it on 127.0.0.1:0 with a temporary data folder.
type Main struct {
	Config     Config
	Node       *replica.Node
	Terminal   *terminal.Simulator // the simulator, when the node runs one
	server     *http.Server
	ln         net.Listener
	staff      *http.Server // the HTTPS staff listener, or nil
	staffLn    net.Listener
	metricsSrv *http.Server // the metrics listener, or nil
	opsLn      net.Listener
	identity   *pki.Identity // the node's certificate (a node alone makes its own)
	done       chan error

	operatorToken string
	// adminToken checks an administrator's API token against the
	// replicated staff accounts (set once the node is open; the peer port
	// may take a request before).
	adminToken atomic.Pointer[func(token string) (string, error)]
	faults     *faults.Injector             // with --faults on a clustered node
	metrics    *metrics                     // this node's Prometheus registry
	rootFS     string                       // the node's own filesystem, which the backup drive is not ("/"; tests set another)
	card       terminal.Terminal            // the node's card terminal, or nil
	cardStatus func() (ok bool, why string) // whether its kiosk takes cards now
	Mail       *mail.Queue                  // e-mailed receipts waiting for the relay, or nil
	mailStop   func()                       // stops the mail queue's sender
	demoMail   *demoMail                    // the demo's mail relay, or nil
	stopPages  func()                       // stops BoundTablePages
	pagesDone  chan struct{}                // closed when it has stopped
}

// tablePagesEvery is how often the node checks its file-backed memory
// (BoundTablePages): a snapshot reads the tables at some 12 MiB/s on the
// development VM, so a check every half second lets at most a few MiB
// over the budget.
const tablePagesEvery = 500 * time.Millisecond

// NewMain returns a Main with default configuration.
func NewMain() *Main {
	return &Main{Config: Config{DataDir: "data", HTTPAddr: "127.0.0.1:8080", StaffAddr: "127.0.0.1:8443", NodeID: "hall-kiosk",
		OfflineCardLimit: domain.MustMoney("500.00"), LogFormat: "json", LogLevel: "info", Backup: defaultBackup, Stripe: defaultStripe}}
}

// openTerminal returns the card terminal the configuration names, or nil
// for none. The simulator is also kept in m.Terminal, for the demo panel
// and the tests.
func (m *Main) openTerminal() (terminal.Terminal, error) {
	cfg := &m.Config
	switch term := cfg.Terminal; {
	case term == "simulator" || term == "" && cfg.Demo:
		// The simulator approves whatever the resident picks: demo and
		// development only, never a node that takes real money.
		m.Terminal = terminal.NewSimulator()
		cfg.Logger.Warn("the card terminal is a simulator (--demo or --terminal simulator): card payments are not real")
		return m.Terminal, nil
	case term == "" || term == "none":
		// No terminal: the kiosk says card payments are not available
		// and sends residents to the window.
		return nil, nil
	case term == "stripe":
		if p := cfg.Stripe.check(); p != nil {
			return nil, fmt.Errorf("%s: %s", p.key, p.msg)
		}
		key, err := readStripeKey(cfg.Stripe.SecretFile, cfg.DataDir)
		if err != nil {
			return nil, err
		}
		limit, _ := domain.ParseMoney(cfg.Stripe.MaxAmount) // checked above
		d, err := stripe.New(stripe.Config{Key: key, Reader: cfg.Stripe.Reader, Descriptor: cfg.Stripe.Descriptor, URL: cfg.Stripe.APIURL, MaxAmount: limit})
		if err != nil {
			return nil, err
		}
		cfg.Logger.Info("card terminal: Stripe Terminal", "reader", cfg.Stripe.Reader, "max_amount", limit.String())
		return d, nil
	}
	return nil, fmt.Errorf("unknown --terminal %q (stripe, simulator or none)", cfg.Terminal)
}

// Addr returns the address the kiosk's HTTP server listens on.
func (m *Main) Addr() string { return m.ln.Addr().String() }

// StaffAddr returns the address the HTTPS staff listener listens on, or
// "" when the node serves no staff pages.
func (m *Main) StaffAddr() string {
	if m.staffLn == nil {
		return ""
	}
	return m.staffLn.Addr().String()
}

// Identity returns the node's certificate: its village certificate on a
// clustered node, the one a node alone made for itself otherwise.
func (m *Main) Identity() *pki.Identity { return m.identity }

// Run opens the node and starts serving. It returns once the server
// listens; Close stops it.
func (m *Main) Run(ctx context.Context) error {
	if err := m.run(ctx); err != nil {
		m.stopTablePages()
		return err
	}
	return nil
}

// boundTablePages starts BoundTablePages on the data folder. Badger reads
// its tables through memory maps, and a page read stays resident until
// the kernel wants it back: a raft snapshot, which copies the whole
// ledger, left the node holding every table (on five years of books,
// 400 MiB of a 540 MiB peak), and a rebuild of the node-local indexes at
// the first start after an upgrade, which reads the ledger and writes
// millions of keys, did the same before the node served. The bound runs
// from before the stores open and gives the pages back once the
// file-backed memory is over budget (docs/benchmarks.md).
func (m *Main) boundTablePages(dir string) {
	pctx, stopPages := context.WithCancel(context.Background())
	m.pagesDone = make(chan struct{})
	m.stopPages = stopPages
	go func() {
		defer close(m.pagesDone)
		badgerstore.BoundTablePages(pctx, badgerstore.TablePagesBudget, tablePagesEvery, dir)
	}()
}

// stopTablePages stops boundTablePages, if it runs.
func (m *Main) stopTablePages() {
	if m.stopPages != nil {
		m.stopPages()
		<-m.pagesDone
		m.stopPages = nil
	}
}

func (m *Main) run(ctx context.Context) error {
	cfg := &m.Config
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	loc, err := time.LoadLocation(Village)
	if err != nil {
		return fmt.Errorf("load time zone %s: %w", Village, err)
	}
	if cfg.Today != "" {
		now, err := demoClock(cfg.Today, cfg.Demo, cfg.Now, loc)
		if err != nil {
			return err
		}
		cfg.Now = now
	}
	params, err := loadParams(cfg.ParamsFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	secret, err := loadOrCreateKey(filepath.Join(cfg.DataDir, "kiosk.key"))
	if err != nil {
		return err
	}
	if m.operatorToken, err = loadOrCreateToken(filepath.Join(cfg.DataDir, "operator.token")); err != nil {
		return err
	}
	card, err := m.openTerminal()
	if err != nil {
		return err
	}
	// The offline card limit bounds what a store-and-forward terminal
	// approves without its processor. A cloud-driven reader approves
	// online or not at all, so a payment it approved is real money
	// whatever the ledger's link: the limit does not apply.
	offlineLimit := cfg.OfflineCardLimit
	if card != nil && !card.Capabilities().StoreAndForward {
		offlineLimit = domain.Money{}
	}
	rcfg := replica.Config{
		ID:         cfg.NodeID,
		Dir:        cfg.DataDir,
		Params:     params,
		Location:   loc,
		Now:        cfg.Now,
		Logger:     cfg.Logger,
		Bootstrap:  true,
		SubmitWait: cfg.SubmitWait,

		OfflineCardLimit: offlineLimit,
	}
	m.boundTablePages(cfg.DataDir)
	settings, clustered, err := readSettings(cfg.DataDir)
	if err != nil {
		return err
	}
	if clustered {
		// err is not redeclared in this block: an error from OpenPeer
		// must reach the check after it (a shadowed err once left
		// m.Node nil and panicked in metricsHandler, hiding the error).
		var ident *pki.Identity
		if ident, err = pki.LoadIdentity(pkiDir(cfg.DataDir)); err != nil {
			return fmt.Errorf("load this node's certificate: %w", err)
		}
		m.identity = ident
		cfg.NodeID = settings.ID
		rcfg.ID, rcfg.Bootstrap, rcfg.AvoidLeadership = settings.ID, settings.Bootstrap, settings.AvoidLeadership
		listen := settings.Listen
		if listen == "" {
			listen = settings.Peer
		}
		pc := replica.PeerConfig{Identity: ident, Listen: listen, Advertise: settings.Peer, Authorize: m.authorizeMember}
		if cfg.Faults {
			m.hookFaults(&rcfg, &pc)
		}
		m.Node, err = replica.OpenPeer(rcfg, pc)
		if err == nil {
			node := m.Node
			check := func(tok string) (string, error) { return staff.Administrator(node, tok) }
			m.adminToken.Store(&check)
		}
		if err == nil && settings.JoinVia != "" {
			m.joinCluster(settings)
		}
	} else {
		if m.identity, err = localIdentity(cfg.DataDir, cfg.NodeID); err != nil {
			return err
		}
		// A node alone signs its entries like a clustered one, so its
		// log reads the same wherever it is replayed.
		rcfg.Identity = m.identity
		m.Node, err = replica.Open(rcfg)
	}
	if err != nil {
		return err
	}
	if err := m.checkParamsFile(); err != nil {
		m.Node.Close()
		return err
	}
	if cfg.Demo {
		// A node alone waits for its demo; a node of a cluster serves
		// after a short wait whatever its peers do, and the demo applies
		// when the cluster has a quorum.
		limit := demoWait
		if clustered {
			limit = 10 * time.Second
		}
		if err := m.loadDemo(ctx, loc, params, limit); err != nil {
			if !clustered {
				m.Node.Close()
				return err
			}
			cfg.Logger.Warn("demo data not loaded yet", "err", err)
		}
	}
	village, mailCfg := cfg.Village, cfg.Mail
	if cfg.Demo {
		if mailCfg, village, err = m.demoReceipts(mailCfg, village); err != nil {
			m.Node.Close()
			return err
		}
	}
	kcfg := kiosk.Config{
		Ledger:   m.Node,
		Now:      cfg.Now,
		Location: loc,
		Secret:   secret,
		Logger:   cfg.Logger,
		NodeID:   cfg.NodeID,
		Village:  receipt.Village{Name: village.Name, Address: village.Address, Phone: village.Phone, Email: village.Email, PublicURL: village.PublicURL},
	}
	if card != nil {
		kcfg.Terminal, kcfg.Simulator = card, m.Terminal != nil
	}
	if mailCfg.Relay != "" {
		q, err := mail.New(mail.Config{Relay: mailCfg.Relay, From: mailCfg.From, Dir: filepath.Join(cfg.DataDir, "mailqueue"), Logger: cfg.Logger, Now: cfg.Now})
		if err != nil {
			m.Node.Close()
			return err
		}
		mctx, stop := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { defer close(stopped); q.Run(mctx) }()
		m.Mail, m.mailStop, kcfg.Mail = q, func() { stop(); <-stopped }, q
	}
	ks, err := kiosk.New(kcfg)
	if err != nil {
		m.Node.Close()
		return err
	}
	m.card, m.cardStatus = card, ks.CardStatus
	// The kiosk's listener: plain HTTP for the kiosk's own browser on
	// loopback, resident pages only. Staff pages, the API and the backup
	// stream are never served here.
	m.metrics = newMetrics(m)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", m.showHealth)
	mux.HandleFunc("GET /readyz", m.showReady)
	mux.Handle("GET /metrics", m.metrics.handler())
	if cfg.Faults {
		m.mountFaults(mux)
	}
	mux.Handle("/staff/", http.NotFoundHandler())
	mux.Handle("/api/", http.NotFoundHandler())
	mux.Handle("/admin/", http.NotFoundHandler())
	mux.Handle("/", ks.Handler())
	if err := m.serveStaff(loc); err != nil {
		m.Node.Close()
		return err
	}
	m.ln, err = net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		m.closeStaff()
		m.Node.Close()
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	// Timeouts bound what a slow client can hold: the headers, the whole
	// request, and the answer (a card charge waits for the terminal up to
	// three minutes, so the write timeout is longer than that).
	m.server = &http.Server{Handler: m.metrics.instrument("kiosk", mux), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 4 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	m.done = make(chan error, 3)
	go func() { m.done <- m.server.Serve(m.ln) }()
	if err := m.serveMetrics(); err != nil {
		m.Close()
		return err
	}
	cfg.Logger.Info("serving", "node", cfg.NodeID, "kiosk", "http://"+m.Addr(), "staff", m.StaffAddr(), "data", cfg.DataDir)
	return nil
}

// serveStaff starts the HTTPS listener of the clerk's office and the API,
// with the node's certificate, unless the node is a kiosk (its role takes
// resident commands only) or the listener is turned off.
func (m *Main) serveStaff(loc *time.Location) error {
	cfg := &m.Config
	if cfg.StaffAddr == "off" || m.identity.Role() == pki.RoleKiosk {
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", m.showHealth)
	mux.HandleFunc("GET /readyz", m.showReady)
	mux.Handle("GET /metrics", m.metrics.handler())
	mux.HandleFunc("GET /admin/backup", m.requireOperator(m.showBackup))
	mux.HandleFunc("GET /api/v1/cluster", m.requireOperator(m.showCluster))
	if err := m.mountStaff(mux, loc); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.StaffAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (the staff pages' HTTPS address): %w", cfg.StaffAddr, err)
	}
	m.staffLn = ln
	hsts := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
			next.ServeHTTP(w, r)
		})
	}
	m.staff = &http.Server{Handler: m.metrics.instrument("staff", hsts(mux)), TLSConfig: m.identity.WebTLS(),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)}
	go func() {
		if err := m.staff.ServeTLS(ln, "", ""); !errors.Is(err, http.ErrServerClosed) {
			m.done <- err
		}
	}()
	return nil
}

// serveMetrics starts the metrics listener, when one is configured.
func (m *Main) serveMetrics() error {
	if m.Config.MetricsAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", m.Config.MetricsAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (the metrics address): %w", m.Config.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.metrics.handler())
	mux.HandleFunc("GET /healthz", m.showHealth)
	mux.HandleFunc("GET /readyz", m.showReady)
	m.opsLn = ln
	m.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	go func() {
		if err := m.metricsSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			m.done <- err
		}
	}()
	return nil
}

// MetricsAddr returns the address of the metrics listener, or "".
func (m *Main) MetricsAddr() string {
	if m.opsLn == nil {
		return ""
	}
	return m.opsLn.Addr().String()
}

func (m *Main) closeStaff() error {
	if m.staff == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return m.staff.Shutdown(ctx)
}

// localIdentity returns the certificate a node alone serves its staff
// pages with: made on first start, with a CA of its own, for localhost
// and 127.0.0.1 (pki/ in the data folder; trust pki/ca.crt in the
// browser). A node that joins a cluster gets its village certificate from
// `appliance init` or `appliance join` instead.
func localIdentity(data, nodeID string) (*pki.Identity, error) {
	dir := pkiDir(data)
	if id, err := pki.LoadIdentity(dir); err == nil {
		return id, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("load this node's certificate: %w", err)
	}
	ca, err := pki.NewCA("Village of Belleville (node "+nodeID+")", time.Now())
	if err != nil {
		return nil, err
	}
	id, err := ca.Issue(nodeID, pki.RoleClerk, nil, time.Now())
	if err != nil {
		return nil, err
	}
	if err := pki.SaveCA(dir, ca); err != nil {
		return nil, err
	}
	if err := pki.SaveIdentity(dir, id); err != nil {
		return nil, err
	}
	return id, nil
}

// checkParamsFile refuses a --params file on a node whose ledger holds its
// own parameters and lacks some of the file's rows: the file seeds a new
// cluster only; a seeded ledger changes its parameters by resolution.
func (m *Main) checkParamsFile() error {
	if m.Config.ParamsFile == "" {
		return nil
	}
	data, err := os.ReadFile(m.Config.ParamsFile)
	if err != nil {
		return fmt.Errorf("read parameters: %w", err)
	}
	file, err := domain.ParseParams(m.Config.ParamsFile, data)
	if err != nil {
		return err
	}
	if missing := m.Node.FSM().ParamRowsDiffer(file); len(missing) > 0 {
		r := missing[0]
		return fmt.Errorf("%s sets %s to %s from %s, which this node's ledger does not hold (%d such rows): --params only seeds a new cluster; "+
			"the ledger's parameters come from its resolutions, so record a resolution on the staff pages (/staff/fees) instead, and start the node without --params",
			m.Config.ParamsFile, r.Name, r.Value, r.Effective, len(missing))
	}
	return nil
}

// demoClock returns the clock of a demo run as of day: base shifted so
// that it reads day at the time of day it is started, and advancing from
// there. Only a demo runs at another date: a village's ledger keeps the
// real one.
func demoClock(day string, demo bool, base func() time.Time, loc *time.Location) (func() time.Time, error) {
	if !demo {
		return nil, fmt.Errorf("--today %s: only a demo node runs at a chosen date (give --demo, on a new data folder)", day)
	}
	d, err := domain.ParseDate(day)
	if err != nil {
		return nil, fmt.Errorf("--today %q: give a day as YYYY-MM-DD", day)
	}
	now := base().In(loc)
	start := time.Date(d.Year(), d.Month(), d.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), loc)
	offset := start.Sub(now)
	return func() time.Time { return base().Add(offset) }, nil
}

// loadDemo submits the demo data as one command with a fixed id, so a
// second start (or a second node) never loads it twice, and the ledger
// ignores it when it already holds records.
func (m *Main) loadDemo(ctx context.Context, loc *time.Location, params *domain.Params, limit time.Duration) error {
	if _, done, err := m.Node.FSM().CommandResult(demoCommandID); err != nil {
		return err
	} else if done {
		m.Config.Logger.Info("demo data already in the ledger: nothing to load")
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := m.Node.WaitLeader(wait); err != nil {
		return fmt.Errorf("load demo data: %w", err)
	}
	// The demo's budget and purchasing history needs ledger format 2,
	// which the leader raises once it leads.
	for m.Node.FSM().Format() < domain.LedgerFormat {
		select {
		case <-wait.Done():
			return fmt.Errorf("load demo data: the ledger is still at format %d", m.Node.FSM().Format())
		case <-time.After(50 * time.Millisecond):
		}
	}
	today := domain.DateOf(m.Config.Now().In(loc))
	seed, err := demoData(today, params)
	if err != nil {
		return err
	}
	cmd, err := m.Node.NewCommand(domain.KindSeedDemo, "demo")
	if err != nil {
		return err
	}
	cmd.ID = demoCommandID
	cmd.Payload = seed
	if _, err := m.Node.Submit(wait, cmd); err != nil {
		return fmt.Errorf("load demo data: %w", err)
	}
	// A busy machine may answer with the command queued rather than
	// applied: the node serves once the ledger holds the demo and its
	// outbox has settled it, so that what it shows and logs is the demo's.
	for {
		res, done, err := m.Node.FSM().CommandResult(demoCommandID)
		if err != nil {
			return fmt.Errorf("load demo data: %w", err)
		}
		if done && m.Node.Consistency().Pending == 0 {
			m.Config.Logger.Info("demo data loaded", "result", res.Note)
			return nil
		}
		select {
		case <-wait.Done():
			return fmt.Errorf("load demo data: queued, and not applied within %s", limit)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// demoWait bounds how long a node alone waits at start for its
// leadership, the ledger's format and the demo data to be applied.
const demoWait = 60 * time.Second

// demoCommandID is the id of the command that loads the demo data.
const demoCommandID = "demo-data-v1"

// showHealth serves /healthz: 200 while the node is healthy, 503 with the
// problems listed when it is not (a halted apply, a diverged replica).
func (m *Main) showHealth(w http.ResponseWriter, r *http.Request) {
	h := m.Node.Health()
	w.Header().Set("Content-Type", "application/json")
	if !h.Healthy {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(h)
}

// showReady serves /readyz: 200 when the node is ready to take payments
// that post (a healthy ledger, a clock it trusts, a leader in touch),
// 503 with the reasons when it is not. /healthz says whether the process
// is well; /readyz whether a resident should be sent to it.
func (m *Main) showReady(w http.ResponseWriter, r *http.Request) {
	ready, reasons := m.Node.Readiness()
	w.Header().Set("Content-Type", "application/json")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(struct {
		Node    string   `json:"node"`
		Ready   bool     `json:"ready"`
		Reasons []string `json:"reasons,omitempty"`
	}{m.Config.NodeID, ready, reasons})
}

// Close stops the HTTP server, then the node (raft, then the stores).
func (m *Main) Close() error {
	var errs []error
	errs = append(errs, m.closeStaff())
	if m.metricsSrv != nil {
		errs = append(errs, m.metricsSrv.Close())
	}
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		errs = append(errs, m.server.Shutdown(ctx))
		if err := <-m.done; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	if m.mailStop != nil {
		m.mailStop()
	}
	if m.demoMail != nil {
		errs = append(errs, m.demoMail.Close())
		m.demoMail = nil
	}
	if m.Node != nil {
		errs = append(errs, m.Node.Close())
	}
	m.stopTablePages()
	return errors.Join(errs...)
}

// serveCommand runs `appliance serve` until a signal: the configuration
// file (--config) with the flags over it, then the node, which tells
// systemd when it is ready and feeds its watchdog (systemd.go).
func serveCommand(ctx context.Context, args []string, stderr io.Writer) error {
	args, faults := takeFaultsFlag(args)
	cfg, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	cfg.Faults = faults
	if cfg.Logger, err = newLogger(stderr, cfg.LogFormat, cfg.LogLevel); err != nil {
		return err
	}
	if err := servePprof(cfg.Logger); err != nil {
		return err
	}
	m := NewMain()
	m.Config = cfg
	if err := m.Run(ctx); err != nil {
		return err
	}
	return m.Wait(ctx)
}

// loadParams returns the embedded defaults, with the overrides of path
// layered over them when path is set. A malformed file is refused with its
// name, line and reason.
func loadParams(path string) (*domain.Params, error) {
	p := domain.DefaultParams()
	if path == "" {
		return p, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read parameters: %w", err)
	}
	o, err := domain.ParseParams(path, data)
	if err != nil {
		return nil, err
	}
	return p.Merge(o), nil
}

// loadOrCreateKey returns the node's 32-byte secret key for signing kiosk
// forms, creating it on first start.
func loadOrCreateKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	key = make([]byte, 32)
	rand.Read(key)
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return key, nil
}

// rulesCommand runs `appliance rules`: Chapter 5 rules over JSON lines.
func rulesCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	paramsFile := fs.String("params", "", "parameter file layered over the embedded defaults")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	p, err := loadParams(*paramsFile)
	if err != nil {
		return err
	}
	return runRules(stdin, stdout, p)
}

// release is the build's release, stamped by the Makefile
// (-ldflags "-X main.release=…": the commit it was built from).
var release = "dev"

func versionCommand(w io.Writer) error {
	_, err := fmt.Fprintf(w, "appliance %s (%s/%s, %s): command encoding v%d, ledger format %d\n",
		release, runtime.GOOS, runtime.GOARCH, runtime.Version(), domain.CommandVersion, domain.LedgerFormat)
	return err
}
