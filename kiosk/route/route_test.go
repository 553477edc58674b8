package route

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

type ctxKey struct{}

// TestRecordSeesThroughRequestCopies: a middleware between the outer
// handler and the mux that copies the request (as sessions do) does not
// hide the pattern.
func TestRecordSeesThroughRequestCopies(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bills/{id}", func(w http.ResponseWriter, r *http.Request) {})
	copying := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, 1)))
		})
	}
	h := copying(Record(mux))
	for path, want := range map[string]string{"/bills/B-1": "GET /bills/{id}", "/nowhere": ""} {
		r, got := Watch(httptest.NewRequest("GET", path, nil))
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got() != want {
			t.Errorf("%s: route %q, want %q", path, got(), want)
		}
	}
}
