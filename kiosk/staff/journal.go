package staff

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

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
	From, To                domain.Date
}

func parseJournalFilter(q url.Values) (journalFilter, error) {
	f := journalFilter{Actor: strings.TrimSpace(q.Get("actor")), Kind: strings.TrimSpace(q.Get("kind")), Outcome: q.Get("outcome"), Q: strings.ToLower(strings.TrimSpace(q.Get("q")))}
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

func (f journalFilter) match(e JournalEntry) bool {
	switch {
	case f.Actor != "" && e.Actor != f.Actor,
		f.Kind != "" && string(e.Kind) != f.Kind,
		f.Outcome != "" && e.Outcome != f.Outcome,
		!f.From.IsZero() && e.At.Date.Before(f.From),
		!f.To.IsZero() && e.At.Date.After(f.To):
		return false
	}
	if f.Q != "" {
		hay := strings.ToLower(strings.Join([]string{e.CommandID, string(e.Kind), e.Actor, e.Node, e.Error}, " "))
		return strings.Contains(hay, f.Q)
	}
	return true
}

// search returns the matching entries, newest first, at most limit (0:
// all).
func (s *Server) search(f journalFilter, limit int) ([]JournalEntry, int, error) {
	var out []JournalEntry
	total := 0
	err := s.journal.Journal(func(e JournalEntry) error {
		if f.match(e) {
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
	entries, total, err := s.search(f, journalPage)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.Journal{Actor: f.Actor, Kind: f.Kind, Outcome: f.Outcome, Q: r.URL.Query().Get("q"), Total: total, Shown: len(entries), CSV: "/staff/journal.csv?" + r.URL.RawQuery}
	if !f.From.IsZero() {
		v.From = f.From.String()
	}
	if !f.To.IsZero() {
		v.To = f.To.String()
	}
	for _, e := range entries {
		v.Rows = append(v.Rows, view.JournalRow{Seq: strconv.FormatUint(e.Seq, 10), Index: strconv.FormatUint(e.Index, 10), At: e.At.String(), Actor: e.Actor, Node: e.Node, Kind: string(e.Kind), CommandID: e.CommandID, Outcome: e.Outcome, Error: e.Error})
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
	cw := startCSV(w, fmt.Sprintf("journal-%s.csv", s.today()))
	_ = cw.Write([]string{"seq", "raft_index", "at", "actor", "node", "kind", "command_id", "outcome", "error", "hash"})
	err = s.journal.Journal(func(e JournalEntry) error {
		if f.match(e) {
			return cw.Write([]string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), e.At.String(), e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash})
		}
		return nil
	})
	if ferr := cw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		s.log.Error("journal export", "err", err)
	}
}
