package records

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// ShowRoomTaxCollectionsPage shows the room tax collected in a calendar
// year (?year=, default this year), by quarter and in total: the public
// figures of §5.22. Nothing by operator: those are
// confidential (§5.22(8)) and read only in the clerk's office, journaled.
func (rec *Records) ShowRoomTaxCollectionsPage(w http.ResponseWriter, r *http.Request) {
	year := rec.today().Year()
	if y := r.URL.Query().Get("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 2000 || n > 9999 {
			rec.pages.Fail(w, r, domain.Errorf(domain.EINVALID, "", "%q is not a year like 2026.", y))
			return
		}
		year = n
	}
	returns, err := rec.reads.RoomTaxReturnsPaidIn(year)
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	quarters, total := domain.RoomTaxCollections(returns, year)
	p := rec.pages.Page(r, "title.room_tax_collections")
	v := view.RoomTaxCollections{Year: strconv.Itoa(year), Total: total.Total,
		Prev: "/room-tax/collections?year=" + strconv.Itoa(year-1), Next: "/room-tax/collections?year=" + strconv.Itoa(year+1)}
	for i, q := range quarters {
		v.Quarters = append(v.Quarters, view.RoomTaxQuarter{Period: domain.Quarter{Year: year, Q: i + 1}.String(), Total: q.Total})
	}
	rec.pages.Render(w, r, http.StatusOK, view.RoomTaxCollectionsPage(p, v))
}
