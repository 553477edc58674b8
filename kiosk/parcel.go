package kiosk

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showParcelPage lists every bill for a parcel with its status and today's
// balance, what they owe together and the offer to pay them all: a
// resident who searched by street address lands here, not on the account.
func (s *Server) showParcelPage(w http.ResponseWriter, r *http.Request) {
	pc, err := s.ledger.Parcel(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.parcel", "parcel", pc.ID)
	rows := s.rows(langFrom(r.Context()))
	g, err := s.parcelGroup(p, rows, pc)
	if err == nil {
		err = s.groupDue(p, rows, &g)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, view.GroupPage(p, g))
}

func (s *Server) parcelGroup(p view.Page, rows *rowMapper, pc domain.Parcel) (view.Group, error) {
	g := view.Group{Kind: "parcel", Key: pc.ID, Title: p.T("group.parcel", "parcel", pc.ID), Subtitle: pc.Address, URL: parcelURL(pc.ID)}
	bills, err := s.ledger.BillsByParcel(pc.ID)
	if err != nil {
		return g, err
	}
	if g.Bills, err = rows.rows(bills); err != nil {
		return g, err
	}
	g.Assessments, err = s.assessmentRows(pc.ID)
	return g, err
}
