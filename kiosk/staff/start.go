package staff

import (
	"net/http"
	"slices"

	"github.com/villagehall/appliance/domain"

	"github.com/villagehall/appliance/kiosk/staff/view"
)

// showDashboardPage is the start page: what needs attention today. The
// ledger's problems come first, for the roles that look after the
// appliance; then the alerts of the modules, in the
// order they were mounted (Office.Alert); last the note of the drawer the
// person has open at the window (Office.OpenDrawer).
func (s *Server) showDashboardPage(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	v := view.Dashboard{Changed: r.URL.Query().Get("changed") == "password"}
	if s.cluster != nil && Allowed(pr.user.Role, CapOperations) {
		// The ledger's health is for the people who look after the
		// appliance (CapOperations), who can act on it from the cluster
		// page; the office's other roles, the hotel operators and the
		// board are not shown the appliance's internals.
		for _, p := range s.cluster.Problems() {
			v.Alerts = append(v.Alerts, view.Alert{TestID: "alert-ledger", Text: "The ledger needs attention: " + p, URL: "/staff/cluster"})
		}
	}
	who := Who{Username: pr.user.Username, Name: pr.user.Name, Role: pr.user.Role}
	for _, f := range s.alerts {
		as, err := f(r.Context(), who)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.Alerts = append(v.Alerts, as...)
	}
	if s.drawer != nil {
		// A note, not an alert: a drawer the reader cannot find is no
		// reason to refuse the start page.
		if id, err := s.drawer(r.Context(), who); err == nil {
			v.OpenDrawer = id
		}
	}
	v.Queue = workQueue(v.Alerts, s.today())
	s.render(w, r, http.StatusOK, view.DashboardPage(s.page(r, "Today"), v))
}

// weekDays is how far ahead the work queue's "This week" looks.
const weekDays = 7

// workQueue sorts the alerts of a person's start page by when they are
// due: overdue, today (due today, or to attend to now), this week, later;
// each section in the order of its days, and counted. A section with
// nothing in it is left out.
func workQueue(alerts []view.Alert, today domain.Date) []view.QueueSection {
	sections := []view.QueueSection{
		{Name: "Overdue", TestID: "queue-overdue"},
		{Name: "Today", TestID: "queue-today"},
		{Name: "This week", TestID: "queue-week"},
		{Name: "Later", TestID: "queue-later"},
	}
	due := func(a view.Alert) domain.Date {
		d, err := domain.ParseDate(a.Due)
		if err != nil {
			return today
		}
		return d
	}
	sorted := slices.Clone(alerts)
	slices.SortStableFunc(sorted, func(a, b view.Alert) int { return due(a).Compare(due(b)) })
	for _, a := range sorted {
		d := due(a)
		i := 3
		switch {
		case d.Before(today):
			i = 0
		case d == today:
			i = 1
		case !d.After(today.AddDays(weekDays)):
			i = 2
		}
		sections[i].Alerts = append(sections[i].Alerts, a)
		sections[i].Count += max(a.Count, 1)
	}
	return slices.DeleteFunc(sections, func(q view.QueueSection) bool { return len(q.Alerts) == 0 })
}
