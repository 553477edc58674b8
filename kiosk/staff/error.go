package staff

import (
	"encoding/json"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// errorStatus is httperr.Status: the one mapping of errors to statuses.
func errorStatus(err error) int { return httperr.Status(err) }

// fail shows the error page. Internal errors are logged here, once, with
// their detail; staff see a plain sentence.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := errorStatus(err)
	if status >= 500 && status != http.StatusServiceUnavailable {
		s.log.Error("staff request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.Info("staff request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	s.render(w, r, status, view.ErrorPage(s.page(r, "Problem"), view.Problem{Status: status, Message: domain.ErrorMessage(err), Section: domain.ErrorSection(err)}))
}

func (s *Server) showNotFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such staff page."))
}

func writeAPIError(w http.ResponseWriter, err error) { httperr.WriteJSON(w, err) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
