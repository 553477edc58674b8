// Package journal is the back office's search of the ledger's journal,
// every command applied or refused, by whom, when and on which node, and
// its CSV export: a staff.Module that reads the journal the appliance
// passes the office (staff.Config.Journal).
package journal

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// CSVHeader is the layout of the journal export: at is RFC 3339
// with the village's offset; bill, receipt, account and amount are what
// the command touched, where it touched one (amount: a decimal, negative
// for a payment a returned check took back).
var CSVHeader = []string{"seq", "raft_index", "at", "actor", "node", "kind", "command_id", "outcome", "error", "hash", "bill", "receipt", "account", "amount"}

// Module is the journal's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the journal's search, its export and its link.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/journal", staff.CapJournal, m.showJournalPage)
	o.Page("GET /staff/journal.csv", staff.CapJournal, m.showJournalCSV)
	o.Nav(staff.CapJournal, "Journal", "/staff/journal")
	return nil
}

// journalFilter is a search of the journal.
type journalFilter struct {
	Actor, Kind, Outcome, Q string
	Bill, Receipt, Account  string // what the command touched (commandFacts)
	From, To                domain.Date
}

func parseJournalFilter(q url.Values) (journalFilter, error) {
	f := journalFilter{Actor: strings.TrimSpace(q.Get("actor")), Kind: strings.TrimSpace(q.Get("kind")), Outcome: q.Get("outcome"), Q: strings.ToLower(strings.TrimSpace(q.Get("q"))),
		Bill: strings.ToUpper(strings.TrimSpace(q.Get("bill"))), Receipt: strings.TrimSpace(q.Get("receipt")), Account: strings.TrimSpace(q.Get("account"))}
	var err error
	if v := q.Get("from"); v != "" {
		if f.From, err = domain.ParseDate(v); err != nil {
			return f, err
		}
	}
	if v := q.Get("to"); v != "" {
		if f.To, err = domain.ParseDate(v); err != nil {
			return f, err
		}
	}
	return f, nil
}

func (f journalFilter) match(e staff.JournalEntry, facts map[string]commandFact) bool {
	x := facts[e.CommandID]
	switch {
	case f.Actor != "" && e.Actor != f.Actor,
		f.Kind != "" && string(e.Kind) != f.Kind,
		f.Outcome != "" && e.Outcome != f.Outcome,
		!f.From.IsZero() && e.At.Date.Before(f.From),
		!f.To.IsZero() && e.At.Date.After(f.To),
		f.Bill != "" && !slices.ContainsFunc(strings.Fields(x.Bill), func(b string) bool { return strings.EqualFold(b, f.Bill) }),
		f.Receipt != "" && !strings.EqualFold(x.Receipt, f.Receipt),
		f.Account != "" && x.Account != f.Account:
		return false
	}
	if f.Q != "" {
		hay := strings.ToLower(strings.Join([]string{e.CommandID, string(e.Kind), e.Actor, e.Node, e.Error, x.Bill, x.Receipt, x.Account}, " "))
		return strings.Contains(hay, f.Q)
	}
	return true
}

// commandFact is what a command did to the records the office searches
// by: the bill, the receipt, the account and the amount.
type commandFact struct {
	Bill, Receipt, Account string
	Amount                 domain.Money
	HasAmount              bool
}

// commandFacts maps command ids to the bill, receipt, account and amount
// they touched, read from the ledger's own records (the journal itself
// carries none of them): every village bill's creation and payments,
// every payment a returned check took back, and every property tax
// payment.
func (m *Module) commandFacts() (map[string]commandFact, error) {
	out := map[string]commandFact{}
	parcels, err := m.o.Ledger().Parcels()
	if err != nil {
		return nil, err
	}
	for _, pc := range parcels {
		bills, err := m.o.Ledger().BillsByParcel(pc.ID)
		if err != nil {
			return nil, err
		}
		for _, b := range bills {
			if o, ok, err := m.o.Reads().BillOrigin(b.ID); err != nil {
				return nil, err
			} else if ok {
				if _, seen := out[o.CommandID]; !seen {
					// A bill import creates many bills in one command.
					out[o.CommandID] = commandFact{Bill: b.ID, Account: b.Account, Amount: b.Principal, HasAmount: true}
				} else {
					out[o.CommandID] = commandFact{Account: b.Account}
				}
			}
			for _, p := range b.Payments {
				if x, ok := out[p.CommandID]; ok && x.Receipt == p.Receipt && x.HasAmount {
					// One payment of several bills (pay_bills): every
					// bill, and the whole amount.
					x.Bill += " " + b.ID
					x.Amount = x.Amount.Add(p.Amount)
					out[p.CommandID] = x
					continue
				}
				out[p.CommandID] = commandFact{Bill: b.ID, Receipt: p.Receipt, Account: b.Account, Amount: p.Amount, HasAmount: true}
			}
			for _, p := range b.Reversed {
				out[p.CommandID] = commandFact{Bill: b.ID, Receipt: p.Receipt, Account: b.Account, Amount: p.Amount, HasAmount: true}
			}
		}
		taxes, err := m.o.Reads().TaxBillsOfParcel(pc.ID)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return nil, err
		}
		for _, t := range taxes {
			for _, p := range t.Payments {
				out[p.CommandID] = commandFact{Bill: t.ID, Receipt: p.Receipt, Amount: p.Amount, HasAmount: true}
			}
		}
	}
	returns, err := m.o.Reads().ReturnedChecks()
	if err != nil {
		return nil, err
	}
	for _, rc := range returns {
		out[rc.CommandID] = commandFact{Bill: rc.BillID, Receipt: rc.Payment.Receipt, Account: rc.Account, Amount: rc.Payment.Amount.Neg(), HasAmount: true}
	}
	return out, nil
}

// search returns the matching entries, newest first, at most limit (0:
// all).
func (m *Module) search(f journalFilter, facts map[string]commandFact, limit int) ([]staff.JournalEntry, int, error) {
	var out []staff.JournalEntry
	total := 0
	err := m.o.Journal().Journal(func(e staff.JournalEntry) error {
		if f.match(e, facts) {
			total++
			out = append(out, e)
			if limit > 0 && len(out) > limit {
				out = out[1:]
			}
		}
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, total, err
}

const journalPage = 500

// showJournalPage searches the journal: every change with its actor, time
// and command id.
func (m *Module) showJournalPage(w http.ResponseWriter, r *http.Request) {
	if m.o.Journal() == nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a journal reader."))
		return
	}
	f, err := parseJournalFilter(r.URL.Query())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	facts, err := m.commandFacts()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	entries, total, err := m.search(f, facts, journalPage)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	q := r.URL.Query()
	v := Search{Actor: f.Actor, Kind: f.Kind, Outcome: f.Outcome, Q: q.Get("q"), Bill: q.Get("bill"), Receipt: q.Get("receipt"), Account: q.Get("account"), Total: total, Shown: len(entries), CSV: "/staff/journal.csv?" + r.URL.RawQuery}
	if !f.From.IsZero() {
		v.From = f.From.String()
	}
	if !f.To.IsZero() {
		v.To = f.To.String()
	}
	for _, e := range entries {
		x := facts[e.CommandID]
		row := Row{Seq: strconv.FormatUint(e.Seq, 10), Index: strconv.FormatUint(e.Index, 10), At: e.At.String(), Actor: e.Actor, Node: e.Node, Kind: string(e.Kind), CommandID: e.CommandID, Outcome: e.Outcome, Error: e.Error,
			Bill: x.Bill, Receipt: x.Receipt}
		if x.HasAmount {
			row.Amount = staff.Dollars(x.Amount)
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, SearchPage(m.o.Frame(r, "Journal"), v))
}

// showJournalCSV exports every matching entry, oldest first.
func (m *Module) showJournalCSV(w http.ResponseWriter, r *http.Request) {
	if m.o.Journal() == nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a journal reader."))
		return
	}
	f, err := parseJournalFilter(r.URL.Query())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	facts, err := m.commandFacts()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cw := m.o.CSV(w, fmt.Sprintf("journal-%s.csv", m.o.Today()))
	_ = cw.Write(CSVHeader)
	err = m.o.Journal().Journal(func(e staff.JournalEntry) error {
		if !f.match(e, facts) {
			return nil
		}
		x := facts[e.CommandID]
		amount := ""
		if x.HasAmount {
			amount = x.Amount.String()
		}
		// The intake time with the village's offset (RFC 3339), so a
		// spreadsheet or another system reads the instant, not a guess.
		at := e.At.Time(m.o.Location()).Format(time.RFC3339)
		return cw.Write([]string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), at, e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash, x.Bill, x.Receipt, x.Account, amount})
	})
	if ferr := cw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		m.o.Log().Error("journal export", "err", err)
	}
}
