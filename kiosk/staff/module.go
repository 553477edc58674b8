package staff

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// The back office grows one capability at a time, each in a package of
// its own under kiosk/staff/ (budget, claims, roomtax, assessments …):
// its handlers, its templ views and the small interface through which it
// reads the domain. Such a package is a Module. The appliance lists the
// modules in Config.Modules; New mounts each on an Office, which is all a
// module shares with the clerk's office: sign-in, the CSRF check and the
// capability matrix on every route, the page frame and navigation, the one
// submit path of commands, and the one mapping of errors to statuses. The
// capabilities themselves stay in roles.go, the one place that says who
// may do what.

// Module is one capability of the back office.
type Module interface {
	// Mount adds the module's routes, navigation links and start-page
	// alerts to the office. It runs once, in New.
	Mount(o *Office) error
}

// Office is what a module's handlers share with the clerk's office.
type Office struct {
	s *Server
}

// route is one route a module mounted.
type route struct {
	pattern string
	c       Capability
	h       http.HandlerFunc
	api     bool
}

// navLink is one link of the navigation a module added.
type navLink struct {
	c          Capability
	label, url string
}

// AlertFunc returns the alerts of the start page a module raises for the
// person signed in as who (the start page asks every module).
type AlertFunc func(ctx context.Context, who Who) ([]view.Alert, error)

// Who is the person a request is made by.
type Who struct {
	Username string
	Name     string
	Role     domain.Role
}

// Page adds a route for people in a browser: signed in, with a password
// that is not due to change, of a role that has capability c; a POST
// carries the session's CSRF token (checked before h runs) and its form
// is parsed.
func (o *Office) Page(pattern string, c Capability, h http.HandlerFunc) {
	o.s.routes = append(o.s.routes, route{pattern: pattern, c: c, h: h})
}

// API adds a route under /api/v1/ for automation: an API token of an
// account whose role has capability c.
func (o *Office) API(pattern string, c Capability, h http.HandlerFunc) {
	o.s.routes = append(o.s.routes, route{pattern: pattern, c: c, h: h, api: true})
}

// Nav adds a link to the navigation of the people whose role has c.
func (o *Office) Nav(c Capability, label, url string) {
	o.s.nav = append(o.s.nav, navLink{c: c, label: label, url: url})
}

// Alert adds a source of start-page alerts.
func (o *Office) Alert(f AlertFunc) { o.s.alerts = append(o.s.alerts, f) }

// Ledger returns the replicated ledger.
func (o *Office) Ledger() domain.Ledger { return o.s.ledger }

// LedgerFormat returns the replicated ledger's format as this node applies
// it (replica.Node says it); a ledger that does not say is this build's
// newest. A page offers what a format brings only once the ledger is at
// that format, since a node of an earlier release would not apply it.
func (o *Office) LedgerFormat() int {
	if f, ok := o.s.ledger.(interface{ LedgerFormat() int }); ok {
		return f.LedgerFormat()
	}
	return domain.LedgerFormat
}

// Reads returns the ledger's records in the domain's words.
func (o *Office) Reads() domain.Reads { return o.s.reads }

// Now returns the time now, from the office's clock.
func (o *Office) Now() time.Time { return o.s.now() }

// Today returns the village's date today.
func (o *Office) Today() domain.Date { return o.s.today() }

// Location returns the village's time zone.
func (o *Office) Location() *time.Location { return o.s.loc }

// Log returns the office's logger, for the internal errors a handler
// handles itself (a download that failed after its first bytes were sent).
func (o *Office) Log() *slog.Logger { return o.s.log }

// Who returns the person r is made by; the zero Who when nobody is
// signed in (never on a route mounted with Page or API).
func (o *Office) Who(r *http.Request) Who {
	pr, ok := principalFrom(r.Context())
	if !ok {
		return Who{}
	}
	return Who{Username: pr.user.Username, Name: pr.user.Name, Role: pr.user.Role}
}

// Frame returns what every staff page shares (view.Page): the title, the
// navigation of the person's role, the CSRF token their forms carry, and
// the banner when the records may not be current.
func (o *Office) Frame(r *http.Request, title string) view.Page { return o.s.page(r, title) }

// Render writes a page with a status.
func (o *Office) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	o.s.render(w, r, status, c)
}

// Fail shows the error page for err, with the status its code maps to.
func (o *Office) Fail(w http.ResponseWriter, r *http.Request, err error) { o.s.fail(w, r, err) }

// Status returns the HTTP status err's code maps to (error.go, the one
// mapping).
func (o *Office) Status(err error) int { return errorStatus(err) }

// FormError says how a form should show err: its status and the plain
// sentence to show beside the form, and ok. When the error is not one
// the person can fix (an internal error), ok is false and the handler
// calls Fail instead.
func (o *Office) FormError(err error) (status int, message string, ok bool) {
	st := errorStatus(err)
	if st < 500 || st == http.StatusServiceUnavailable {
		return st, domain.ErrorMessage(err), true
	}
	return st, "", false
}

// Record is the shape of a form that records one command: build reads
// the form into a payload, the ledger records it for the person signed in
// (Submit) and the browser goes to done (the page the payload names, so
// done may read what build filled in). A form build cannot read, or a
// refusal by the ledger, records nothing and shows the form's page again
// (show) with the message beside it; an error the person cannot fix shows
// the error page.
func (o *Office) Record(w http.ResponseWriter, r *http.Request, show func(status int, msg string), build func() (domain.Payload, error), done func() string) {
	p, err := build()
	if err == nil {
		_, err = o.Submit(r, p)
	}
	if err != nil {
		status, msg, ok := o.FormError(err)
		if !ok {
			o.Fail(w, r, err)
			return
		}
		show(status, msg)
		return
	}
	o.Redirect(w, r, done())
}

// To is a done for Record that goes to one page whatever was recorded.
func To(path string) func() string { return func() string { return path } }

// CanRecord says why the ledger would refuse to take a command of kind k
// now (a format it has not reached, a clock it distrusts, a halted node),
// if it would: asked before a card is charged for the command.
func (o *Office) CanRecord(k domain.Kind) error {
	if c, ok := o.s.ledger.(interface{ CheckStamp(domain.Kind) error }); ok {
		return c.CheckStamp(k)
	}
	return nil
}

// Seal signs what a confirmation page fixes for the person signed in (a
// return, an amount, a command id): an HMAC under a key only this
// process holds, over their session and username and the parts. Neither
// another login nor the person themself can make a seal the office did
// not hand out, so a confirmation cannot be moved to another return,
// amount or command id, nor carried to another session.
func (o *Office) Seal(r *http.Request, parts ...string) string {
	pr, ok := principalFrom(r.Context())
	if !ok {
		return ""
	}
	mac := hmac.New(sha256.New, o.s.sealKey)
	for _, p := range append([]string{pr.session.id, pr.user.Username}, parts...) {
		mac.Write([]byte(p))
		mac.Write([]byte{0})
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// Sealed reports whether seal is the one Seal gives for the parts to the
// person signed in.
func (o *Office) Sealed(r *http.Request, seal string, parts ...string) bool {
	want := o.Seal(r, parts...)
	return want != "" && hmac.Equal([]byte(seal), []byte(want))
}

// Redirect answers a form with 303 See Other to a page.
func (o *Office) Redirect(w http.ResponseWriter, r *http.Request, to string) { redirect(w, r, to) }

// Form returns a form value, trimmed.
func (o *Office) Form(r *http.Request, name string) string { return formValue(r, name) }

// Submit records a command carrying p for the person signed in: the
// kind's descriptor must permit their role; the command is checked
// (domain.Command.CheckText) and submitted; a change the cluster has not
// confirmed in time is an error (EUNAVAILABLE) that says so.
func (o *Office) Submit(r *http.Request, p domain.Payload) (domain.Result, error) {
	return o.s.submit(r, p.Kind(), func(c *domain.Command) { c.Payload = p })
}

// SubmitWith records a command of kind k for the person signed in, as
// Submit does, letting fill set its payload from the command itself: the
// payloads that name their record after the command's date, node and
// sequence (a bill's number, a returned check's).
func (o *Office) SubmitWith(r *http.Request, k domain.Kind, fill func(*domain.Command)) (domain.Result, error) {
	return o.s.submit(r, k, fill)
}

// SubmitAPI records a command carrying p for the holder of the API token,
// with the client's command id: the same id sent again with the same
// request answers with the first result, with another request it is a
// conflict (409), as for payments. The id is required, at most 64
// characters.
func (o *Office) SubmitAPI(r *http.Request, commandID string, p domain.Payload) (domain.Result, error) {
	if strings.TrimSpace(commandID) == "" || len(commandID) > 64 {
		return domain.Result{}, domain.Errorf(domain.EINVALID, "", "command_id is required (at most 64 characters); make it unique, and send the same one when you retry.")
	}
	return o.s.submit(r, p.Kind(), func(c *domain.Command) {
		c.ID = "api-" + commandID
		c.Payload = p
	})
}

// SubmitProvisional submits cmd, made with Ledger().NewCommand for the
// person signed in and checked by the caller, waiting for the cluster as
// Submit does; a change the cluster has not confirmed in time is answered
// with its provisional result (no log index), not an error: the API's
// payments are recorded on this node and post when the network returns,
// and their clients retry with the same command id.
func (o *Office) SubmitProvisional(r *http.Request, cmd domain.Command) (domain.Result, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), submitWait)
	defer cancel()
	return o.s.ledger.Submit(ctx, cmd)
}

// HashPassword returns the hash of a password (argon2id, at the office's
// cost) as an account's record keeps it.
func (o *Office) HashPassword(password string) string { return o.s.hasher.Hash(password) }

// EndSessions signs an account out of every session it holds on this
// node: after its password is reset or the account disabled.
func (o *Office) EndSessions(username string) { o.s.sessions.endUser(username) }

// DecodeJSON reads a JSON request body strictly into v (unknown fields,
// duplicate keys, trailing data and oversized bodies refused as
// EMALFORMED); what names the body in the message ("a purchase order").
func (o *Office) DecodeJSON(w http.ResponseWriter, r *http.Request, v any, what string) error {
	return decodeBody(w, r, v, what)
}

// WriteJSON writes v as a JSON answer with a status.
func (o *Office) WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

// Answer writes v as an API call's JSON answer (200), or err as its error:
// what every read of the API ends with.
func (o *Office) Answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// NonNil returns s, or an empty slice when s is nil, so that a list is
// answered as [] rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteAPIError writes err as the API's JSON error, with the status its
// code maps to.
func (o *Office) WriteAPIError(w http.ResponseWriter, err error) { writeAPIError(w, err) }

// CSV starts a CSV download named filename. Every cell written through it
// is neutralised against formula injection, as every export of the office.
func (o *Office) CSV(w http.ResponseWriter, filename string) *CSVWriter {
	return &CSVWriter{startCSV(w, filename)}
}

// NewCSV returns a CSV writer to w (a file of an archive) that
// neutralises every cell as the downloads do.
func NewCSV(w io.Writer) *CSVWriter { return &CSVWriter{&csvExport{w: csv.NewWriter(w)}} }

// Journal returns the ledger's journal, nil when the node runs without a
// journal reader.
func (o *Office) Journal() Journal { return o.s.journal }

// Refunds returns the refunds due that payments made, nil when the node
// runs without a refund queue.
func (o *Office) Refunds() Refunds { return o.s.refunds }

// Mail returns the node's mail queue, nil when it has no relay.
func (o *Office) Mail() Mailer { return o.s.mail }

// CardRefunds returns the node's card terminal that refunds go back to the
// card through, nil when the node has none.
func (o *Office) CardRefunds() CardRefunds { return o.s.cards }

// CardTerminal returns the node's card terminal that the office charges
// cards through (the operator's portal, a fee at the window), nil when the
// node has none.
func (o *Office) CardTerminal() CardTerminal { return o.s.terminal }

// Home makes path the page a person of role lands on after signing in
// (when the sign-in names no other page) and after changing the password
// (with ?changed=password, which the page acknowledges): the role whose
// whole work is one module's, as a hotel operator's is the room tax,
// starts there rather than on the office's start page.
func (o *Office) Home(role domain.Role, path string) {
	if o.s.homes == nil {
		o.s.homes = map[domain.Role]string{}
	}
	o.s.homes[role] = path
}

// BillID numbers a bill a command makes on a node (n > 0 for the n-th of
// several): unique without coordination, like receipt numbers. Bills,
// charges and the fee billed for a returned check are numbered alike.
func BillID(c *domain.Command, n int) string {
	id := fmt.Sprintf("B-%d-%s-%06d", c.At.Date.Year(), c.Node, c.Seq)
	if n > 0 {
		id += fmt.Sprintf("-%03d", n)
	}
	return id
}

// Letterhead returns the village hall's name, address and telephone that
// the office's printed receipts are headed with; a zero field keeps the
// built-in text.
func (o *Office) Letterhead() Letterhead { return o.s.head }

// DrawerFunc returns the drawer the person signed in as who has open at
// the window, "" when none.
type DrawerFunc func(ctx context.Context, who Who) (string, error)

// OpenDrawer sets where the start page learns the drawer the person has
// open, which it notes below its alerts.
func (o *Office) OpenDrawer(f DrawerFunc) { o.s.drawer = f }

// CSVWriter writes the records of a CSV download.
type CSVWriter struct{ e *csvExport }

// Write writes one record.
func (c *CSVWriter) Write(record []string) error { return c.e.Write(record) }

// Flush writes what is buffered and returns the first write error.
func (c *CSVWriter) Flush() error { return c.e.Flush() }

// Dollars writes an amount for people: "$1,234.56", "-$20.00".
func Dollars(m domain.Money) string { return m.Dollars() }

// ParseDate reads a date typed as YYYY-MM-DD; what names the field in the
// message ("The hearing date").
func ParseDate(what, s string) (domain.Date, error) { return parseFormDate(what, s) }

// ParseAmount reads an amount of money typed in a form ("1,250.00" and
// "$90" are read; "12,50" is not); what names the field in the message.
func ParseAmount(what, s string) (domain.Money, error) {
	t := strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "$"), ",", "")
	if s == "" {
		return domain.Money{}, domain.Errorf(domain.EINVALID, "", "%s is missing; write it like 90.00.", what)
	}
	m, err := domain.ParseMoney(t)
	if err != nil || !groupedRight(strings.TrimPrefix(strings.TrimSpace(s), "$")) {
		return domain.Money{}, domain.Errorf(domain.EINVALID, "", "%s %q is not an amount of money like 1,250.00.", what, s)
	}
	return m, nil
}

// ParseSignedAmount is ParseAmount that also reads a negative amount
// ("-1,250.00"), for the few figures that may be below zero (a fund's
// balance, a change to a line).
func ParseSignedAmount(what, s string) (domain.Money, error) {
	t := strings.TrimSpace(s)
	if neg, ok := strings.CutPrefix(t, "-"); ok {
		m, err := ParseAmount(what, neg)
		return m.Neg(), err
	}
	return ParseAmount(what, t)
}

// groupedRight reports whether the thousands separators of an amount, if
// any, stand every three digits of its whole part ("1,250.00", not
// "12,50").
func groupedRight(s string) bool {
	whole, _, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if !strings.Contains(whole, ",") {
		return true
	}
	groups := strings.Split(whole, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// CommandRequest is the body of an API call that records a command: the
// client's command id (see SubmitAPI) and the command's payload in the
// domain's JSON, strictly read.
type CommandRequest[T any] struct {
	CommandID string `json:"command_id"`
	Command   *T     `json:"command"`
}

// CommandResponse answers an API call that recorded a command: the log
// index that applied it, the record it made (an order's number …) and the
// ledger's note.
type CommandResponse struct {
	CommandID string `json:"command_id"`
	Index     uint64 `json:"index"`
	Ref       string `json:"ref,omitempty"`
	Note      string `json:"note,omitempty"`
}

// APICommand serves an API call that records one command of payload type
// T (what names it in messages, "an estimate"): it reads the body as a
// CommandRequest, lets fix check or complete the payload from the path
// (the year of the URL …; nil for none), submits it with the client's
// command id and answers with a CommandResponse or the error.
func APICommand[T any, P interface {
	*T
	domain.Payload
}](o *Office, w http.ResponseWriter, r *http.Request, what string, fix func(P) error) {
	var req CommandRequest[T]
	if err := o.DecodeJSON(w, r, &req, what); err != nil {
		o.WriteAPIError(w, err)
		return
	}
	if req.Command == nil {
		o.WriteAPIError(w, domain.Errorf(domain.EINVALID, "", "The body needs the command: {\"command_id\": …, \"command\": {…}}."))
		return
	}
	p := P(req.Command)
	if fix != nil {
		if err := fix(p); err != nil {
			o.WriteAPIError(w, err)
			return
		}
	}
	res, err := o.SubmitAPI(r, req.CommandID, p)
	if err != nil {
		o.WriteAPIError(w, err)
		return
	}
	o.WriteJSON(w, http.StatusOK, CommandResponse{CommandID: res.CommandID, Index: res.Index, Ref: res.Ref, Note: res.Note})
}

// parseFormDate reads a date typed as YYYY-MM-DD; what names the field in
// the message.
func parseFormDate(what, s string) (domain.Date, error) {
	if s == "" {
		return domain.Date{}, domain.Errorf(domain.EINVALID, "", "%s is missing; write it as YYYY-MM-DD.", what)
	}
	d, err := domain.ParseDate(s)
	if err != nil {
		return domain.Date{}, domain.Errorf(domain.EINVALID, "", "%s %q is not a real date written as YYYY-MM-DD.", what, s)
	}
	return d, nil
}

// NumberedBill returns the bill whose number for people q is
// ("2026-000123", ledger format 7), so that every search of the office
// finds a bill by the number printed on it; ok is false when q is not
// one.
func (o *Office) NumberedBill(q string) (domain.Bill, bool) {
	id, ok, err := o.s.reads.BillNumbered(q)
	if err != nil || !ok {
		return domain.Bill{}, false
	}
	b, err := o.Ledger().Bill(id)
	return b, err == nil
}
