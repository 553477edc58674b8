package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/assessments"
	"github.com/villagehall/appliance/kiosk/staff/audit"
	"github.com/villagehall/appliance/kiosk/staff/backups"
	"github.com/villagehall/appliance/kiosk/staff/bills"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/budget"
	"github.com/villagehall/appliance/kiosk/staff/fees"
	"github.com/villagehall/appliance/kiosk/staff/journal"
	"github.com/villagehall/appliance/kiosk/staff/letters"
	"github.com/villagehall/appliance/kiosk/staff/mailing"
	"github.com/villagehall/appliance/kiosk/staff/november"
	"github.com/villagehall/appliance/kiosk/staff/parcels"
	"github.com/villagehall/appliance/kiosk/staff/payables"
	"github.com/villagehall/appliance/kiosk/staff/purchasing"
	"github.com/villagehall/appliance/kiosk/staff/refunds"
	"github.com/villagehall/appliance/kiosk/staff/roomtax"
	"github.com/villagehall/appliance/kiosk/staff/treasury"
	"github.com/villagehall/appliance/kiosk/staff/users"
	"github.com/villagehall/appliance/kiosk/staff/window"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// mountStaff mounts the clerk's office beside the resident kiosk: its
// pages under /staff/ and its API under /api/v1/ (GET /api/v1/cluster,
// registered by Run, stays the operator's).
func (m *Main) mountStaff(mux *http.ServeMux, loc *time.Location) error {
	s, err := staff.New(staff.Config{
		Ledger:        m.Node,
		Cluster:       nodeCluster{m.Node},
		Refunds:       m.Node.FSM(),
		CardRefunds:   m.card,
		CardTerminal:  m.card,
		Mail:          m.staffMail(),
		Journal:       nodeJournal{m.Node},
		Now:           m.Config.Now,
		Location:      loc,
		Logger:        m.Config.Logger,
		OperatorToken: m.operatorToken,
		Modules:       append(staffModules(), backups.New(m.backupStatus), m.cardsModule()),
		Letterhead:    staff.Letterhead{Name: m.Config.Village.Name, Address: m.Config.Village.Address, Phone: m.Config.Village.Phone, Email: m.Config.Village.Email},
	})
	if err != nil {
		return err
	}
	h := s.Handler()
	mux.Handle("/staff/", h)
	mux.Handle("/api/v1/", h)
	return nil
}

// staffMail is the office's mail queue: the node's, when it has a relay.
// A nil *mail.Queue must not become a non-nil staff.Mailer.
func (m *Main) staffMail() staff.Mailer {
	if m.Mail == nil {
		return nil
	}
	return m.Mail
}

// nodeCluster adapts the replicated node's cluster view to the staff
// cluster page, which must not import sync.
type nodeCluster struct{ n *replica.Node }

func (c nodeCluster) Problems() []string { return c.n.Problems() }

func (c nodeCluster) Cluster(ctx context.Context) (staff.ClusterView, error) {
	v, err := c.n.Cluster(ctx)
	if err != nil {
		return staff.ClusterView{}, err
	}
	out := staff.ClusterView{Leader: v.Leader}
	for _, m := range v.Nodes {
		out.Nodes = append(out.Nodes, staff.ClusterMember{ID: m.ID, Address: m.Address, Suffrage: m.Suffrage, State: m.State, LastContact: m.LastContact, AppliedIndex: m.AppliedIndex, Lag: m.Lag, Error: m.Error})
	}
	return out, nil
}

// nodeJournal adapts the replicated ledger's journal to the staff journal
// page, which must not import sync.
type nodeJournal struct{ n *replica.Node }

func (j nodeJournal) Journal(fn func(staff.JournalEntry) error) error {
	return j.n.FSM().Journal(func(e replica.JournalEntry) error { return fn(staffEntry(e, domain.Touched{})) })
}

func (j nodeJournal) JournalEntries(q staff.JournalQuery, fn func(staff.JournalEntry) bool) (staff.JournalScan, error) {
	rq := replica.JournalQuery{CommandID: q.CommandID, Bill: q.Bill, Account: q.Account, Kind: q.Kind, From: q.From, To: q.To, Cursor: q.Cursor, Oldest: q.Oldest, Scan: q.Scan}
	st, err := j.n.FSM().JournalRows(rq, func(r replica.JournalRow) bool { return fn(staffEntry(r.JournalEntry, r.Touched)) })
	return staff.JournalScan{Last: st.Last, More: st.More}, err
}

func (j nodeJournal) JournalYear(year int) (staff.JournalYear, error) {
	s, err := j.n.FSM().JournalSpan(year)
	return staff.JournalYear{First: s.First, Last: s.Last, Prev: s.Prev}, err
}

func (j nodeJournal) JournalRange(from, to uint64, fn func(staff.JournalEntry) error) error {
	return j.n.FSM().JournalRange(from, to, func(e replica.JournalEntry) error { return fn(staffEntry(e, domain.Touched{})) })
}

func staffEntry(e replica.JournalEntry, t domain.Touched) staff.JournalEntry {
	return staff.JournalEntry{Seq: e.Seq, Index: e.Index, CommandID: e.CommandID, Kind: e.Kind, Actor: e.Actor,
		Node: e.Node, At: e.At, Outcome: e.Outcome, Error: e.Error, Hash: e.Hash, Touched: t}
}

// userCommand runs `appliance user add|reset|disable|enable`. It talks to
// the running node over loopback with the node's operator token (read
// from its data folder, so only someone who may read that folder can use
// it): the change goes through the replicated ledger like any other, is
// journaled with actor "operator", and reaches every node. A stopped node
// is started first; the command never opens the ledger itself, because on
// a cluster the ledger changes only through Raft.
func userCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: appliance user add|reset|disable|enable --username NAME [--name 'Full Name' --role ROLE [--unit UNIT]] [--data DIR] [--node URL]")
		return errUsage
	}
	op := args[0]
	fs := flag.NewFlagSet("user "+op, flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "the node's data folder (for its operator token and certificate)")
	node := fs.String("node", "https://127.0.0.1:8443", "the running node's staff address (HTTPS)")
	req := users.UserRequest{Op: op}
	fs.StringVar(&req.Username, "username", "", "the account's username")
	fs.StringVar(&req.Name, "name", "", "the person's name (add)")
	role := fs.String("role", "", "the role (add): "+roleList())
	fs.StringVar(&req.Unit, "unit", "", "the unit of the chart a department head heads (add, department_head)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	req.Role = domain.Role(*role)
	switch {
	case op != "add" && op != "reset" && op != "disable" && op != "enable":
		fmt.Fprintf(stderr, "appliance user: unknown operation %q (add, reset, disable, enable)\n", op)
		return errUsage
	case req.Username == "":
		fmt.Fprintln(stderr, "appliance user: --username is required")
		return errUsage
	case op == "add" && (req.Name == "" || !req.Role.Valid()):
		fmt.Fprintf(stderr, "appliance user add: --name and --role (%s) are required\n", roleList())
		return errUsage
	}
	client, tok, err := operatorClient(*data)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(*node, "/")+"/api/v1/users", bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Authorization", "Bearer "+tok)
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(hreq)
	if err != nil {
		return fmt.Errorf("the node at %s does not answer; start it (appliance serve) and try again: %w", *node, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		return errors.New(e.Error)
	}
	var out users.UserResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("read the node's answer: %w", err)
	}
	switch op {
	case "add", "reset":
		fmt.Fprintf(stdout, "%s: temporary password %s (must be changed at first sign-in)\n", out.Username, out.TemporaryPassword)
	default:
		fmt.Fprintf(stdout, "%s: %sd\n", out.Username, op)
	}
	return nil
}

// operatorClient returns an HTTPS client that trusts the node's CA
// (pki/ca.crt in its data folder) and the node's operator token: what the
// command line tools that run on the node's own machine call its staff
// API with.
func operatorClient(data string) (*http.Client, string, error) {
	tok, err := os.ReadFile(filepath.Join(data, "operator.token"))
	if err != nil {
		return nil, "", fmt.Errorf("read the operator token (is %s the node's data folder?): %w", data, err)
	}
	ident, err := pki.LoadIdentity(pkiDir(data))
	if err != nil {
		return nil, "", fmt.Errorf("read the node's certificate (is %s the node's data folder?): %w", data, err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ident.CAPool(), MinVersion: tls.VersionTLS12}}}
	return client, strings.TrimSpace(string(tok)), nil
}

func roleList() string {
	var rs []string
	for _, r := range domain.Roles() {
		rs = append(rs, string(r))
	}
	return strings.Join(rs, ", ")
}

// staffModules are the back office's capabilities in packages of their
// own (staff.Module), one line a module. The front desk's come first:
// their links keep the order staff.menu gives them and their start-page
// alerts come first, in this order; the links of the others follow in
// this order.
func staffModules() []staff.Module {
	return []staff.Module{
		window.New(),      // §5.06: the window, the drawers and deposits, the payments API
		bills.New(),       // §5.10, §5.19, §5.21: bills, accounts, charges and holds
		letters.New(),     // §5.11: the status letters
		parcels.New(),     // the parcel roll's import
		november.New(),    // §5.10: the November run
		refunds.New(),     // §5.07(1), §5.20: the refund queue and returned checks
		fees.New(),        // Chapter 5's fee schedule and the resolutions that set it
		journal.New(),     // the journal's search and export
		users.New(),       // the staff accounts and API tokens
		budget.New(),      // §5.01-5.05, §5.16: the chart, the budget cycle, appropriations
		purchasing.New(),  // §5.12, §5.13: orders, requisitions, surplus, rules, employment
		payables.New(),    // §5.07(2)-(4), §5.18: claims, check runs, signatures, the check register
		audit.New(),       // §5.15: the auditors' engagements and the yearly extract
		roomtax.New(),     // §5.22: room tax
		assessments.New(), // §5.14: special assessments and special charges
		treasury.New(),    // §5.06, 5.08, 5.09, 5.17: legal claims, depositories, investments, county settlements
		books.New(),       // the books: the trial balance by fund and each account's detail
		mailing.New(),     // §5.10, §5.14: bills, statements and notices to mail
	}
}
