// Package httperr is the one place an error becomes an HTTP status: the
// resident kiosk, the clerk's office, its API and the appliance's own
// endpoints all answer through it, so an error means the same status
// wherever it is met.
package httperr

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/villagehall/appliance/domain"
)

// Statuser is an error that knows its own status: errors from outside the
// domain (the card terminal's) implement it.
type Statuser interface {
	error
	HTTPStatus() int
}

// Status returns the HTTP status for err: its own (Statuser), else by
// its domain code (domain.Error), else 500.
func Status(err error) int {
	var s Statuser
	if errors.As(err, &s) {
		return s.HTTPStatus()
	}
	switch domain.ErrorCode(err) {
	case domain.EMALFORMED:
		return http.StatusBadRequest
	case domain.EINVALID:
		return http.StatusUnprocessableEntity
	case domain.ENOTFOUND:
		return http.StatusNotFound
	case domain.ECONFLICT:
		return http.StatusConflict
	case domain.EUNAUTHENTICATED:
		return http.StatusUnauthorized
	case domain.EFORBIDDEN:
		return http.StatusForbidden
	case domain.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// RetryAfter is how long, in seconds, a client is asked to wait before it
// retries a request the cluster could not take (503).
const RetryAfter = 5

// Body is the JSON body of an API error (DESIGN.md, "HTTP API").
type Body struct {
	Error      string      `json:"error"`
	Code       domain.Code `json:"code"`
	Section    string      `json:"section,omitempty"`
	RetryAfter int         `json:"retry_after,omitempty"`
}

// WriteJSON answers err as the API does: its status, and {error, code,
// section} (with retry_after on a 503). An internal error's detail is not
// sent: it is the caller's to log.
func WriteJSON(w http.ResponseWriter, err error) {
	status := Status(err)
	body := Body{Error: domain.ErrorMessage(err), Code: domain.ErrorCode(err), Section: domain.ErrorSection(err)}
	if status == http.StatusServiceUnavailable {
		body.RetryAfter = RetryAfter
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
