package kiosk

import (
	"net/http"

	"github.com/villagehall/appliance/kiosk/view"
)

// showStartPage shows the start screen. It has no idle timer: it is where
// the timer leads.
func (s *Server) showStartPage(w http.ResponseWriter, r *http.Request) {
	p := s.page(r, selfURL(r), "title.start")
	p.Home = true
	p.Idle = view.Idle{}
	s.render(w, r, http.StatusOK, view.StartPage(p, view.Start{FindURL: "/find", CardOff: !s.takesCards(), Menu: []view.Menu{
		{Key: "start.tax", URL: "/property-tax", Test: "start-tax"},
		{Key: "start.letter", URL: "/letters", Test: "start-letter"},
		{Key: "start.purchases", URL: "/purchases", Test: "start-purchases"},
		{Key: "start.budget", URL: "/budget", Test: "start-budget"},
		{Key: "start.room_tax", URL: "/room-tax", Test: "start-room-tax"},
	}}))
}

// showResetPage ends a resident's visit: the session is forgotten (so its
// forms no longer submit and its receipts no longer show, whatever the
// browser's history holds), a new one starts in the default language, then
// the start screen. The idle timer and the receipt's Done button lead here.
func (s *Server) showResetPage(w http.ResponseWriter, r *http.Request) {
	s.sessions.end(sessionFrom(r.Context()))
	setCookie(w, r, sessionCookie, s.sessions.start())
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
