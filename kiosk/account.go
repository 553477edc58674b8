package kiosk

import (
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showAccountPage lists every bill of an account with its status and
// today's balance. It shows the account's addresses, not the payer's
// name: anyone can type an account number at a public kiosk.
func (s *Server) showAccountPage(w http.ResponseWriter, r *http.Request) {
	a, err := s.ledger.Account(r.PathValue("number"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.account", "number", a.Number)
	rows := s.rows(langFrom(r.Context()))
	g, err := s.accountGroup(p, rows, a)
	if err == nil {
		err = s.groupDue(p, rows, &g)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, view.GroupPage(p, g))
}

func (s *Server) accountGroup(p view.Page, rows *rowMapper, a domain.Account) (view.Group, error) {
	g := view.Group{Kind: "account", Key: a.Number, Title: p.T("group.account", "number", a.Number), URL: accountURL(a.Number)}
	var addrs []string
	for _, id := range a.Parcels {
		if pc, ok := rows.parcel(id); ok && pc.Address != "" {
			addrs = append(addrs, pc.Address)
		}
	}
	g.Subtitle = strings.Join(addrs, " · ")
	bills, err := s.ledger.BillsByAccount(a.Number)
	if err != nil {
		return g, err
	}
	g.Bills, err = rows.rows(bills)
	return g, err
}
