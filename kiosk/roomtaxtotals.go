package kiosk

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showRoomTaxCollectionsPage shows the room tax collected in a calendar
// year (?year=, default this year), by quarter and in total: the public
// figures of §5.22. Nothing by operator: those are
// confidential (§5.22(8)) and read only in the clerk's office, journaled.
func (s *Server) showRoomTaxCollectionsPage(w http.ResponseWriter, r *http.Request) {
	year := s.today().Year()
	if y := r.URL.Query().Get("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 2000 || n > 9999 {
			s.fail(w, r, domain.Errorf(domain.EINVALID, "", "%q is not a year like 2026.", y))
			return
		}
		year = n
	}
	returns, err := s.reads.RoomTaxReturns()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	quarters, total := domain.RoomTaxCollections(returns, year)
	p := s.page(r, selfURL(r), "title.room_tax_collections")
	v := view.RoomTaxCollections{Year: strconv.Itoa(year), Total: total.Total,
		Prev: "/room-tax/collections?year=" + strconv.Itoa(year-1), Next: "/room-tax/collections?year=" + strconv.Itoa(year+1)}
	for i, q := range quarters {
		v.Quarters = append(v.Quarters, view.RoomTaxQuarter{Period: domain.Quarter{Year: year, Q: i + 1}.String(), Total: q.Total})
	}
	s.render(w, r, http.StatusOK, view.RoomTaxCollectionsPage(p, v))
}
