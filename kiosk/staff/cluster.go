package staff

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// showClusterPage shows the leader and, for each member, its state, last
// contact with the leader, applied index and lag, so the office sees a
// node falling behind before it matters.
func (s *Server) showClusterPage(w http.ResponseWriter, r *http.Request) {
	if s.cluster == nil {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a cluster view."))
		return
	}
	cv, err := s.cluster.Cluster(r.Context())
	if err != nil {
		s.fail(w, r, domain.Errorf(domain.EUNAVAILABLE, "", "The cluster's configuration cannot be read: %v", err))
		return
	}
	v := view.Cluster{Leader: cv.Leader}
	for _, m := range cv.Nodes {
		mv := view.Member{ID: m.ID, Address: m.Address, Suffrage: m.Suffrage, State: m.State, AppliedIndex: m.AppliedIndex, Lag: m.Lag, Error: m.Error, Leader: m.ID == cv.Leader}
		if !m.LastContact.IsZero() {
			mv.LastContact = m.LastContact.In(s.loc).Format("2006-01-02 15:04:05")
		}
		v.Members = append(v.Members, mv)
	}
	s.render(w, r, http.StatusOK, view.ClusterPage(s.page(r, "Cluster"), v))
}
