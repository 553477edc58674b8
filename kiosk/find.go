package kiosk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/kiosk/find"
	"github.com/villagehall/appliance/kiosk/view"
)

// showFindPage shows the search box and, with ?q=, searches for a bill
// number, an account number, a parcel id or a street address
// (find.Search). One match leads straight to its page; several are
// listed; none re-renders the form with what to try.
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
	m, err := find.Search(s.ledger, f.Query)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if m.Count() == 0 {
		// Nothing matched exactly: offer the addresses the query almost
		// names, as a list to choose from, never as a jump to one of them.
		near, err := find.Near(s.ledger, f.Query)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if len(near) > 0 {
			f.Suggested = true
			rows := s.rows(langFrom(r.Context()))
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
	switch m.Count() {
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
		redirect(w, r, matchURL(m))
		return
	}
	rows := s.rows(langFrom(r.Context()))
	for _, b := range m.Bills {
		g := view.Group{Kind: "bill", Key: b.ID, Title: p.T("title.bill", "id", b.ID), URL: billURL(b.ID)}
		row, err := rows.row(b)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		g.Bills = []view.BillRow{row}
		f.Groups = append(f.Groups, g)
	}
	for _, a := range m.Accounts {
		g, err := s.accountGroup(p, rows, a)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.Groups = append(f.Groups, g)
	}
	for _, pc := range m.Parcels {
		g, err := s.parcelGroup(p, rows, pc)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.Groups = append(f.Groups, g)
	}
	s.render(w, r, http.StatusOK, view.FindPage(p, f))
}

// matchURL returns the page of a search's single match.
func matchURL(m find.Matches) string {
	switch {
	case len(m.Bills) == 1:
		return billURL(m.Bills[0].ID)
	case len(m.Accounts) == 1:
		return accountURL(m.Accounts[0].Number)
	case len(m.Parcels) == 1:
		return parcelURL(m.Parcels[0].ID)
	}
	return "/find"
}

func billURL(id string) string   { return "/bills/" + url.PathEscape(id) }
func accountURL(n string) string { return "/accounts/" + url.PathEscape(n) }
func parcelURL(id string) string { return "/parcels/" + url.PathEscape(id) }

// didYouMean links the addresses q, which matched nothing, almost names
// (find.Suggest) to their searches.
func (s *Server) didYouMean(q string) ([]view.Link, error) {
	addresses, err := find.Suggest(s.ledger, q)
	if err != nil {
		return nil, err
	}
	var out []view.Link
	for _, a := range addresses {
		out = append(out, view.Link{Label: a, URL: "/find?q=" + url.QueryEscape(a)})
	}
	return out, nil
}
