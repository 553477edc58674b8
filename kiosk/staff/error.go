package staff

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// errorStatus maps an error to an HTTP status: the one place that does.
func errorStatus(err error) int {
	var bad badRequest
	if errors.As(err, &bad) {
		return http.StatusBadRequest
	}
	switch domain.ErrorCode(err) {
	case domain.EINVALID:
		return http.StatusUnprocessableEntity
	case domain.ENOTFOUND:
		return http.StatusNotFound
	case domain.ECONFLICT:
		return http.StatusConflict
	case domain.EFORBIDDEN:
		return http.StatusForbidden
	case domain.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

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

// apiError is the JSON body of an API error (DESIGN.md, "HTTP API").
type apiError struct {
	Error      string      `json:"error"`
	Code       domain.Code `json:"code"`
	Section    string      `json:"section,omitempty"`
	RetryAfter int         `json:"retry_after,omitempty"`
}

func writeAPIError(w http.ResponseWriter, err error) {
	status := errorStatus(err)
	body := apiError{Error: domain.ErrorMessage(err), Code: domain.ErrorCode(err), Section: domain.ErrorSection(err)}
	if status == http.StatusServiceUnavailable {
		body.RetryAfter = 5
		w.Header().Set("Retry-After", "5")
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
