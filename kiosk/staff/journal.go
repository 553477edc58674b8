package staff

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// JournalCSVHeader is the layout of the journal export: at is RFC 3339
// with the village's offset; bill, receipt, account and amount are what
// the command touched, where it touched one (amount: a decimal, negative
// for a payment a returned check took back).
var JournalCSVHeader = []string{"seq", "raft_index", "at", "actor", "node", "kind", "command_id", "outcome", "error", "hash", "bill", "receipt", "account", "amount"}

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
}

// Journal reads the journal in order; the appliance adapts the replicated
// ledger's.
type Journal interface {
	Journal(fn func(JournalEntry) error) error
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

func (f journalFilter) match(e JournalEntry, facts map[string]commandFact) bool {
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
func (s *Server) commandFacts() (map[string]commandFact, error) {
	out := map[string]commandFact{}
	parcels, err := s.ledger.Parcels()
	if err != nil {
		return nil, err
	}
	for _, pc := range parcels {
		bills, err := s.ledger.BillsByParcel(pc.ID)
		if err != nil {
			return nil, err
		}
		for _, b := range bills {
			if o, ok, err := s.reads.BillOrigin(b.ID); err != nil {
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
		taxes, err := s.reads.TaxBillsOfParcel(pc.ID)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return nil, err
		}
		for _, t := range taxes {
			for _, p := range t.Payments {
				out[p.CommandID] = commandFact{Bill: t.ID, Receipt: p.Receipt, Amount: p.Amount, HasAmount: true}
			}
		}
	}
	returns, err := s.reads.ReturnedChecks()
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
func (s *Server) search(f journalFilter, facts map[string]commandFact, limit int) ([]JournalEntry, int, error) {
	var out []JournalEntry
	total := 0
	err := s.journal.Journal(func(e JournalEntry) error {
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
func (s *Server) showJournalPage(w http.ResponseWriter, r *http.Request) {
	if s.journal == nil {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a journal reader."))
		return
	}
	f, err := parseJournalFilter(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	facts, err := s.commandFacts()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	entries, total, err := s.search(f, facts, journalPage)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	v := view.Journal{Actor: f.Actor, Kind: f.Kind, Outcome: f.Outcome, Q: q.Get("q"), Bill: q.Get("bill"), Receipt: q.Get("receipt"), Account: q.Get("account"), Total: total, Shown: len(entries), CSV: "/staff/journal.csv?" + r.URL.RawQuery}
	if !f.From.IsZero() {
		v.From = f.From.String()
	}
	if !f.To.IsZero() {
		v.To = f.To.String()
	}
	for _, e := range entries {
		x := facts[e.CommandID]
		row := view.JournalRow{Seq: strconv.FormatUint(e.Seq, 10), Index: strconv.FormatUint(e.Index, 10), At: e.At.String(), Actor: e.Actor, Node: e.Node, Kind: string(e.Kind), CommandID: e.CommandID, Outcome: e.Outcome, Error: e.Error,
			Bill: x.Bill, Receipt: x.Receipt}
		if x.HasAmount {
			row.Amount = Dollars(x.Amount)
		}
		v.Rows = append(v.Rows, row)
	}
	s.render(w, r, http.StatusOK, view.JournalPage(s.page(r, "Journal"), v))
}

// showJournalCSV exports every matching entry, oldest first.
func (s *Server) showJournalCSV(w http.ResponseWriter, r *http.Request) {
	if s.journal == nil {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a journal reader."))
		return
	}
	f, err := parseJournalFilter(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	facts, err := s.commandFacts()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cw := startCSV(w, fmt.Sprintf("journal-%s.csv", s.today()))
	_ = cw.Write(JournalCSVHeader)
	err = s.journal.Journal(func(e JournalEntry) error {
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
		at := e.At.Time(s.loc).Format(time.RFC3339)
		return cw.Write([]string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), at, e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash, x.Bill, x.Receipt, x.Account, amount})
	})
	if ferr := cw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		s.log.Error("journal export", "err", err)
	}
}
