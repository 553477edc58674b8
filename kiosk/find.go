package kiosk

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/search"
	"github.com/villagehall/appliance/kiosk/view"
)

// showFindPage shows the search box and, with ?q=, searches for a bill
// number, an account number, a parcel id or a street address. One match
// leads straight to its page; several are listed; none re-renders the
// form with what to try.
func (s *Server) showFindPage(w http.ResponseWriter, r *http.Request) {
	p := s.page(r, selfURL(r), "title.find")
	raw, asked := r.URL.Query()["q"]
	f := view.Find{Action: "/find"}
	if !asked {
		s.render(w, r, http.StatusOK, view.FindPage(p, f))
		return
	}
	f.Query = strings.TrimSpace(raw[0])
	if f.Query == "" {
		f.Problem = &view.Problem{Message: p.T("find.error.empty"), Suggestion: p.T("find.error.empty_hint")}
		s.render(w, r, http.StatusUnprocessableEntity, view.FindPage(p, f))
		return
	}
	m, err := s.search(f.Query)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if m.count() == 0 {
		// Nothing matched exactly: offer the addresses the query almost
		// names, as a list to choose from, never as a jump to one of them.
		parcels, err := s.ledger.Parcels()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if near := fuzzyParcels(parcels, f.Query); len(near) > 0 {
			f.Suggested = true
			rows := s.rows()
			for _, pc := range near {
				g, err := s.parcelGroup(p, rows, pc)
				if err != nil {
					s.fail(w, r, err)
					return
				}
				f.Groups = append(f.Groups, g)
			}
			s.render(w, r, http.StatusOK, view.FindPage(p, f))
			return
		}
	}
	switch m.count() {
	case 0:
		f.Problem = &view.Problem{Message: p.T("find.error.none", "query", f.Query), Suggestion: p.T("find.error.none_hint")}
		dym, err := s.didYouMean(f.Query)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.DidYouMean = dym
		s.render(w, r, http.StatusNotFound, view.FindPage(p, f))
		return
	case 1:
		redirect(w, r, m.url())
		return
	}
	rows := s.rows()
	for _, b := range m.bills {
		g := view.Group{Kind: "bill", Key: b.ID, Title: p.T("title.bill", "id", b.ID), URL: billURL(b.ID)}
		row, err := rows.row(b)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		g.Bills = []view.BillRow{row}
		f.Groups = append(f.Groups, g)
	}
	for _, a := range m.accounts {
		g, err := s.accountGroup(p, rows, a)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.Groups = append(f.Groups, g)
	}
	for _, pc := range m.parcels {
		g, err := s.parcelGroup(p, rows, pc)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.Groups = append(f.Groups, g)
	}
	s.render(w, r, http.StatusOK, view.FindPage(p, f))
}

// matches is what a search found, by kind.
type matches struct {
	bills    []domain.Bill
	accounts []domain.Account
	parcels  []domain.Parcel
}

func (m matches) count() int { return len(m.bills) + len(m.accounts) + len(m.parcels) }

// url returns the page of the single match.
func (m matches) url() string {
	switch {
	case len(m.bills) == 1:
		return billURL(m.bills[0].ID)
	case len(m.accounts) == 1:
		return accountURL(m.accounts[0].Number)
	case len(m.parcels) == 1:
		return parcelURL(m.parcels[0].ID)
	}
	return "/find"
}

// search looks q up as a bill number, an account number, a parcel id and a
// street address, tolerantly: surrounding space is trimmed, case is
// ignored, a bill number may be typed with spaces or without its "B-"
// ("B 2026 0113", "2026-0113"), a parcel id matches with or without its dashes and an address
// matches through domain.NormalizeAddress ("141 w main street" finds
// "141 W. Main St"). An address must include the house number, so a
// street name alone does not list a whole street's bills.
func (s *Server) search(q string) (matches, error) {
	var m matches
	seen := make(map[string]bool)
	for _, v := range search.BillIDs(q) {
		b, err := s.ledger.Bill(v)
		if found, err := present(err); err != nil {
			return m, err
		} else if found && !seen["b"+b.ID] {
			seen["b"+b.ID] = true
			m.bills = append(m.bills, b)
		}
	}
	for _, v := range spellings(q) {
		a, err := s.ledger.Account(v)
		if found, err := present(err); err != nil {
			return m, err
		} else if found && !seen["a"+a.Number] {
			seen["a"+a.Number] = true
			m.accounts = append(m.accounts, a)
		}
	}
	parcels, err := s.ledger.Parcels()
	if err != nil {
		return m, err
	}
	key := compact(q)
	addr := strings.Fields(domain.NormalizeAddress(q))
	for _, pc := range parcels {
		if (key != "" && compact(pc.ID) == key) || addressMatches(addr, pc.Address) {
			if !seen["p"+pc.ID] {
				seen["p"+pc.ID] = true
				m.parcels = append(m.parcels, pc)
			}
		}
	}
	return m, nil
}

// present turns a lookup's error into found or not; only errors other than
// "not found" are errors.
func present(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		return false, nil
	}
	return false, err
}

// spellings returns the ways a resident may have typed an exact key: as
// typed, upper and lower case, and without inner spaces.
func spellings(q string) []string {
	q = strings.TrimSpace(q)
	var out []string
	for _, v := range []string{q, strings.ToUpper(q), strings.ToLower(q), strings.Join(strings.Fields(q), "")} {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// compact keeps only the letters and digits of s, lower-cased: parcel ids
// compare this way, so "0601141 2001" finds "0601-141-2001".
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// addressMatches reports whether every word of the normalized query is a
// word of the address and the query names a house number.
func addressMatches(query []string, address string) bool {
	if len(query) < 2 || address == "" {
		return false
	}
	hasNumber := false
	words := strings.Fields(domain.NormalizeAddress(address))
	for _, q := range query {
		if q[0] >= '0' && q[0] <= '9' {
			hasNumber = true
		}
		if !slices.Contains(words, q) {
			return false
		}
	}
	return hasNumber
}

func billURL(id string) string   { return "/bills/" + url.PathEscape(id) }
func accountURL(n string) string { return "/accounts/" + url.PathEscape(n) }
func parcelURL(id string) string { return "/parcels/" + url.PathEscape(id) }

// didYouMean offers the addresses the ledger holds that q, which matched
// nothing, is a few letters away from ("305 hail st": "305 Hall St"). It
// looks at addresses only: the public kiosk never searches by, nor shows,
// an owner's name.
func (s *Server) didYouMean(q string) ([]view.Link, error) {
	parcels, err := s.ledger.Parcels()
	if err != nil {
		return nil, err
	}
	addresses := make([]string, 0, len(parcels))
	for _, pc := range parcels {
		addresses = append(addresses, pc.Address)
	}
	var out []view.Link
	for _, a := range search.Suggest(q, addresses) {
		out = append(out, view.Link{Label: a, URL: "/find?q=" + url.QueryEscape(a)})
	}
	return out, nil
}
