package httperr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/villagehall/appliance/domain"
)

type declined struct{}

func (declined) Error() string   { return "declined" }
func (declined) HTTPStatus() int { return http.StatusPaymentRequired }

// TestStatus: every domain code has its status, wrapped or not; an error
// that knows its own status keeps it; anything else is a 500.
func TestStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{domain.Errorf(domain.EMALFORMED, "", "x"), 400},
		{domain.Errorf(domain.EUNAUTHENTICATED, "", "x"), 401},
		{domain.Errorf(domain.EFORBIDDEN, "", "x"), 403},
		{domain.Errorf(domain.ENOTFOUND, "", "x"), 404},
		{domain.Errorf(domain.ECONFLICT, "", "x"), 409},
		{domain.Errorf(domain.EINVALID, "", "x"), 422},
		{domain.Errorf(domain.EUNAVAILABLE, "", "x"), 503},
		{fmt.Errorf("wrapped: %w", domain.Errorf(domain.ECONFLICT, "", "x")), 409},
		{fmt.Errorf("terminal: %w", declined{}), 402},
		{errors.New("disk on fire"), 500},
	} {
		if got := Status(c.err); got != c.want {
			t.Errorf("Status(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestWriteJSON: the API's body, with retry_after on a 503; an internal
// error's detail is not sent.
func TestWriteJSON(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, domain.Errorf(domain.EUNAVAILABLE, "§5.10", "No quorum."))
	var b Body
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || w.Code != 503 || b.RetryAfter != RetryAfter || b.Section != "§5.10" || w.Header().Get("Retry-After") != "5" {
		t.Fatalf("503: %d %+v %v", w.Code, b, err)
	}
	w = httptest.NewRecorder()
	WriteJSON(w, errors.New("badger: value log corrupt at offset 1234"))
	json.Unmarshal(w.Body.Bytes(), &b)
	if w.Code != 500 || b.Code != domain.EINTERNAL || b.Error == "badger: value log corrupt at offset 1234" {
		t.Fatalf("500: %d %+v", w.Code, b)
	}
}
