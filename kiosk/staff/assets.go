package staff

import (
	_ "embed"
	"net/http"
)

//go:embed staff.css
var css []byte

// serveCSS serves the clerk's office stylesheet, embedded in the binary.
func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(css)
}
