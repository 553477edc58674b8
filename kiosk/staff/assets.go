package staff

import (
	_ "embed"
	"net/http"
)

//go:embed staff.css
var css []byte

//go:embed print.js
var printJS []byte

// servePrintJS serves the print button's script, embedded in the binary.
func servePrintJS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(printJS)
}

// serveCSS serves the clerk's office stylesheet, embedded in the binary.
func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(css)
}
