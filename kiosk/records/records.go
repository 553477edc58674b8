// Package records serves the public records a resident may read at the
// kiosk: the adopted budgets and their summaries (§5.02(6)), the
// purchasing records (§5.12(5), (7)), the special assessment reports filed
// for inspection (§5.14(3)(b)) and the room tax collected, by quarter
// (§5.22). Every page is read-only and takes no payment: nothing here
// signs a form, charges a card or makes a receipt.
//
// The kiosk's server routes the pages here and lends them what every
// page shares through Pages; the records are read through domain.Reads,
// questions in the domain's words, and the two reads of Ledger. The
// views are the kiosk's own, in package view.
package records

import (
	"net/http"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// Pages is what a records page needs of the kiosk's server.
type Pages interface {
	// Page returns what every screen shares, for the page at the
	// request's own URL, titled by the catalogue key title with args
	// filling its placeholders.
	Page(r *http.Request, title string, args ...string) view.Page
	// Render writes a page with a status.
	Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component)
	// Fail shows the error page for err.
	Fail(w http.ResponseWriter, r *http.Request, err error)
}

// Ledger is what the records pages read of the ledger besides
// domain.Reads (domain.Ledger has it).
type Ledger interface {
	Params() *domain.Params
	Parcel(id string) (domain.Parcel, error)
}

// Records serves the public records' pages.
type Records struct {
	pages  Pages
	ledger Ledger
	reads  domain.Reads
	today  func() domain.Date // the village's date now
}

// New returns the records pages, which render through pages, read
// through l and reads, and take the village's date from today.
func New(pages Pages, l Ledger, reads domain.Reads, today func() domain.Date) *Records {
	return &Records{pages: pages, ledger: l, reads: reads, today: today}
}
