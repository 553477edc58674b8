// Package journal is the back office's search of the ledger's journal,
// every command applied or refused, by whom, when and on which node, and
// its CSV export: a staff.Module that reads the journal the appliance
// passes the office (staff.Config.Journal).
//
// Five years of books hold millions of entries, so nothing here reads
// the whole journal for a page: a search names a command, a bill, an
// account, a kind or a range of days, which the ledger's indexes list
// (staff.Journal.JournalEntries); the page shows pageSize entries with
// links to the older and newer ones; and a filter no index answers (the
// actor, the outcome, free text) is checked on at most scanBudget entries
// a page, the page saying how far back it looked and linking on from
// there. The export streams its rows.
package journal

import (
	"fmt"
	"net/http"
	"net/url"
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

// pageSize is the entries a page of the journal shows.
const pageSize = 100

// scanBudget is the most entries one page reads to find its pageSize:
// a filter no index answers ends a page early rather than read on.
const scanBudget = 5000

// journalFilter is a search of the journal.
type journalFilter struct {
	Actor, Kind, Outcome string
	Q                    string // free text, as typed
	Bill, Receipt        string // what the command touched
	Account              string
	From, To             domain.Date
	Before, After        uint64 // the page's cursor: older than, newer than
}

func parseJournalFilter(q url.Values) (journalFilter, error) {
	f := journalFilter{Actor: strings.TrimSpace(q.Get("actor")), Kind: strings.TrimSpace(q.Get("kind")), Outcome: q.Get("outcome"), Q: strings.TrimSpace(q.Get("q")),
		Bill: strings.ToUpper(strings.TrimSpace(q.Get("bill"))), Receipt: strings.TrimSpace(q.Get("receipt")), Account: strings.TrimSpace(q.Get("account"))}
	var err error
	if v := q.Get("year"); v != "" {
		y, err := strconv.Atoi(v)
		if err != nil || y < 1900 || y > 9999 {
			return f, domain.Errorf(domain.EINVALID, "", "%q is not a year like 2026.", v)
		}
		f.From, f.To = domain.NewDate(y, time.January, 1), domain.NewDate(y, time.December, 31)
	}
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
	for _, c := range []struct {
		name string
		to   *uint64
	}{{"before", &f.Before}, {"after", &f.After}} {
		if v := q.Get(c.name); v != "" {
			if *c.to, err = strconv.ParseUint(v, 10, 64); err != nil {
				return f, domain.Errorf(domain.EINVALID, "", "%q is not an entry number.", v)
			}
		}
	}
	return f, nil
}

// search is a filter made ready to read: the query the ledger's indexes
// answer, and what is checked on each entry they give.
type search struct {
	q       staff.JournalQuery
	actor   string
	outcome string
	receipt string // the entry must name this receipt
	text    string // lower case; free text no index resolved
	none    bool   // the search names a receipt, bill or account the ledger lacks
	// Found says what the free text was found to be ("receipt", "bill",
	// "account", "command"), or "" when it is searched as text.
	found string
}

// plan resolves a filter through direct lookups: a receipt to its bill
// (or its command), free text that is a receipt, a bill's number or id,
// an account or a command id to that; other free text is searched in the
// entries read.
func (m *Module) plan(f journalFilter) (search, error) {
	s := search{q: staff.JournalQuery{Bill: f.Bill, Account: f.Account, Kind: domain.Kind(f.Kind), From: f.From, To: f.To}, actor: f.Actor, outcome: f.Outcome}
	byReceipt := func(number string) (bool, error) {
		rc, err := m.o.Ledger().Receipt(number)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		// The receipt's bill lists its payment and a returned check of
		// it, both naming the receipt; a receipt of no bill has only its
		// own command.
		s.receipt = rc.Number
		switch {
		case rc.BillID != "":
			s.q.Bill = rc.BillID
		case len(rc.Lines) > 0:
			s.q.Bill = rc.Lines[0].BillID
		default:
			s.q.CommandID = rc.CommandID
		}
		return true, nil
	}
	if f.Receipt != "" {
		ok, err := byReceipt(f.Receipt)
		if err != nil {
			return s, err
		}
		s.none = !ok
	}
	if f.Q == "" || s.none {
		return s, nil
	}
	if s.receipt == "" {
		if ok, err := byReceipt(f.Q); err != nil || ok {
			s.found = "receipt"
			return s, err
		}
	}
	if id, ok, err := m.o.Reads().BillNumbered(f.Q); err != nil {
		return s, err
	} else if ok {
		s.q.Bill, s.found = id, "bill"
		return s, nil
	}
	if _, err := m.o.Ledger().Bill(strings.ToUpper(f.Q)); err == nil {
		s.q.Bill, s.found = strings.ToUpper(f.Q), "bill"
		return s, nil
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return s, err
	}
	if _, err := m.o.Ledger().Account(f.Q); err == nil {
		s.q.Account, s.found = f.Q, "account"
		return s, nil
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return s, err
	}
	cmd := false
	if _, err := m.o.Journal().JournalEntries(staff.JournalQuery{CommandID: f.Q}, func(staff.JournalEntry) bool { cmd = true; return false }); err != nil {
		return s, err
	}
	if cmd {
		s.q.CommandID, s.found = f.Q, "command"
		return s, nil
	}
	s.text = strings.ToLower(f.Q)
	return s, nil
}

// match checks what the indexes do not.
func (s search) match(e staff.JournalEntry) bool {
	x := e.Touched
	switch {
	case s.actor != "" && e.Actor != s.actor,
		s.outcome != "" && e.Outcome != s.outcome,
		s.receipt != "" && !strings.EqualFold(x.Receipt, s.receipt):
		return false
	}
	if s.text != "" {
		hay := strings.ToLower(strings.Join([]string{e.CommandID, string(e.Kind), e.Actor, e.Node, e.Error, x.Bill(), x.Receipt, x.Account}, " "))
		return strings.Contains(hay, s.text)
	}
	return true
}

// page reads one page of s: newest first, older than before or (after
// set) newer than after.
func (m *Module) page(s search, before, after uint64) ([]staff.JournalEntry, staff.JournalScan, error) {
	var out []staff.JournalEntry
	if s.none {
		return nil, staff.JournalScan{}, nil
	}
	q := s.q
	q.Scan, q.Cursor, q.Oldest = scanBudget, before, false
	if after > 0 {
		q.Cursor, q.Oldest = after, true
	}
	st, err := m.o.Journal().JournalEntries(q, func(e staff.JournalEntry) bool {
		if s.match(e) {
			out = append(out, e)
		}
		return len(out) < pageSize
	})
	if q.Oldest {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, st, err
}

// showJournalPage searches the journal: every change with its actor, time
// and command id, a page at a time.
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
	s, err := m.plan(f)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	entries, st, err := m.page(s, f.Before, f.After)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	q := r.URL.Query()
	q.Del("before")
	q.Del("after")
	v := Search{Actor: f.Actor, Kind: f.Kind, Outcome: f.Outcome, Q: q.Get("q"), Bill: q.Get("bill"), Receipt: q.Get("receipt"), Account: q.Get("account"), Shown: len(entries), CSV: "/staff/journal.csv?" + q.Encode(),
		Found: s.found, Text: s.text != "", Budget: scanBudget}
	if !f.From.IsZero() {
		v.From = f.From.String()
	}
	if !f.To.IsZero() {
		v.To = f.To.String()
	}
	link := func(k string, seq uint64) string {
		l := url.Values{}
		for name, vals := range q {
			l[name] = vals
		}
		l.Set(k, strconv.FormatUint(seq, 10))
		return "/staff/journal?" + l.Encode()
	}
	// The page's ends: the newest and the oldest entry read, which are
	// the shown ones' unless the page stopped on its budget.
	newest, oldest := f.After, f.Before
	if len(entries) > 0 {
		newest, oldest = entries[0].Seq, entries[len(entries)-1].Seq
	}
	if f.After > 0 {
		if st.More {
			v.Newer = link("after", st.Last)
		}
		if oldest > 0 {
			v.Older = link("before", oldest)
		}
	} else {
		if st.More {
			v.Older = link("before", st.Last)
			v.Stopped = len(entries) < pageSize
		}
		if f.Before > 0 && newest > 0 {
			v.Newer = link("after", newest)
		}
	}
	for _, e := range entries {
		x := e.Touched
		row := Row{Seq: strconv.FormatUint(e.Seq, 10), Index: strconv.FormatUint(e.Index, 10), At: e.At.String(), Actor: e.Actor, Node: e.Node, Kind: string(e.Kind), CommandID: e.CommandID, Outcome: e.Outcome, Error: e.Error,
			Bill: x.Bill(), Receipt: x.Receipt}
		if x.Amount != nil {
			row.Amount = staff.Dollars(*x.Amount)
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, SearchPage(m.o.Frame(r, "Journal"), v))
}

// showJournalCSV exports every matching entry, oldest first (by day, then
// journal order, for a kind or a range of days). It reads csvChunk
// entries at a time and writes them before reading on: a year's export
// never holds the year in memory, and a slow download never holds the
// ledger's read open (a snapshot restore waits for reads to end).
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
	s, err := m.plan(f)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cw := m.o.CSV(w, fmt.Sprintf("journal-%s.csv", m.o.Today()))
	_ = cw.Write(CSVHeader)
	q := s.q
	q.Oldest, q.Scan = true, csvChunk
	for more := !s.none; more && err == nil; {
		var chunk []staff.JournalEntry
		var st staff.JournalScan
		st, err = m.o.Journal().JournalEntries(q, func(e staff.JournalEntry) bool {
			if s.match(e) {
				chunk = append(chunk, e)
			}
			return true
		})
		for _, e := range chunk {
			if err != nil {
				break
			}
			x := e.Touched
			amount := ""
			if x.Amount != nil {
				amount = x.Amount.String()
			}
			// The intake time with the village's offset (RFC 3339), so a
			// spreadsheet or another system reads the instant, not a guess.
			at := e.At.Time(m.o.Location()).Format(time.RFC3339)
			err = cw.Write([]string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), at, e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash, x.Bill(), x.Receipt, x.Account, amount})
		}
		more, q.Cursor = st.More, st.Last
	}
	if ferr := cw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		m.o.Log().Error("journal export", "err", err)
	}
}

// csvChunk is the entries the export reads at a time.
const csvChunk = 2000
