package kiosk

import (
	"errors"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/view"
)

// errorStatus returns the HTTP status of err (httperr.Status, the one
// mapping) and the catalogue keys of the message and suggestion a resident
// sees for it.
func errorStatus(err error) (status int, message, suggestion string) {
	status = httperr.Status(err)
	switch {
	case errors.Is(err, terminal.ErrDeclined):
		return status, "charge.declined", "charge.declined_hint"
	case errors.Is(err, terminal.ErrTimeout):
		return status, "charge.timeout", "charge.timeout_hint"
	case errors.Is(err, terminal.ErrCancelled):
		return status, "charge.cancelled", "charge.cancelled_hint"
	case errors.As(err, new(chargeError)):
		return status, "charge.failed", "charge.failed_hint"
	}
	key := map[int]string{
		http.StatusUnprocessableEntity: "error.invalid", http.StatusBadRequest: "error.invalid",
		http.StatusNotFound: "error.not_found", http.StatusConflict: "error.conflict",
		http.StatusForbidden: "error.forbidden", http.StatusUnauthorized: "error.forbidden",
		http.StatusServiceUnavailable: "error.unavailable",
	}[status]
	if key == "" {
		key = "error.internal"
	}
	return status, key, key + "_hint"
}

// fail shows the error page for err. Internal errors are logged here, once,
// with their detail; a resident sees a plain sentence. A domain error's own
// message (a plain English sentence) is added for English readers.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, hint := errorStatus(err)
	if status >= 500 {
		s.log.Error("kiosk request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.Info("kiosk request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	p := s.page(r, problemSelf(r), "title.error")
	pr := view.Problem{Message: p.T(msg), Suggestion: p.T(hint)}
	var de *domain.Error
	if errors.As(err, &de) && status < 500 && p.Lang() == i18n.English && de.Message != "" {
		pr.Message += " " + de.Message
	}
	s.render(w, r, status, view.ErrorPage(p, view.Error{Status: status, Problem: pr, BackURL: "/find", BackLabel: p.T("start.pay")}))
}

// showProblem shows the error page with a message from the catalogue.
func (s *Server) showProblem(w http.ResponseWriter, r *http.Request, status int, msg, hint, back, backLabel string, args ...string) {
	p := s.page(r, problemSelf(r), "title.error")
	s.render(w, r, status, view.ErrorPage(p, view.Error{
		Status:    status,
		Problem:   view.Problem{Message: p.T(msg, args...), Suggestion: p.T(hint, args...)},
		BackURL:   back,
		BackLabel: p.T(backLabel),
	}))
}

// problemSelf is where the language switch of an error page leads: the same
// page for a GET, the start screen after a POST.
func problemSelf(r *http.Request) string {
	if r.Method == http.MethodGet {
		return selfURL(r)
	}
	return "/"
}

// showNotFoundPage answers any path the kiosk does not serve.
func (s *Server) showNotFoundPage(w http.ResponseWriter, r *http.Request) {
	s.showProblem(w, r, http.StatusNotFound, "error.page_not_found", "error.page_not_found_hint", "/", "layout.start_over")
}
