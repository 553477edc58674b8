// Package route tells a handler outside a ServeMux which of the mux's
// patterns served a request ("GET /bills/{id}"), for metrics labelled by
// route rather than by path (a path holds ids: unbounded labels).
//
// The mux records its pattern on the request it is given; the
// middlewares between the server and the mux (sessions, CSRF) pass
// copies of the request, so the outer handler never sees it. Watch puts a
// holder into the request's context, which the copies share, and Record,
// wrapped around the mux, fills it in.
package route

import (
	"context"
	"net/http"
)

type key struct{}

type holder struct{ pattern string }

// Watch returns r with a holder for its route and a function that reads
// the route once the request has been served ("" when no mux recorded one).
func Watch(r *http.Request) (*http.Request, func() string) {
	h := &holder{}
	return r.WithContext(context.WithValue(r.Context(), key{}, h)), func() string { return h.pattern }
}

// Record wraps a mux: after it serves a request, the pattern it matched
// goes into the request's holder, when there is one.
func Record(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if h, ok := r.Context().Value(key{}).(*holder); ok {
			h.pattern = r.Pattern
		}
	})
}
