package records

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// failures is a Pages that keeps the errors the pages fail with; it
// renders nothing.
type failures struct{ errs []error }

func (f *failures) Page(*http.Request, string, ...string) view.Page { return view.Page{} }

func (f *failures) Render(http.ResponseWriter, *http.Request, int, templ.Component) {}

func (f *failures) Fail(_ http.ResponseWriter, _ *http.Request, err error) {
	f.errs = append(f.errs, err)
}

// TestRefusedBeforeReading: a year that is not one is refused with the
// domain's error before anything is read (the ledger here has nothing to
// read), so the kiosk's one mapping gives it its status and message.
func TestRefusedBeforeReading(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		serve      func(*Records, http.ResponseWriter, *http.Request)
		year       string
		code       domain.Code
	}{
		{"§5.02/a budget of no year", "/budget/nineteen", (*Records).ShowBudgetPage, "nineteen", domain.ENOTFOUND},
		{"§5.02/a budget of a year before the village's books", "/budget/1066", (*Records).ShowBudgetPage, "1066", domain.ENOTFOUND},
		{"§5.22/collections of no year", "/room-tax/collections?year=soon", (*Records).ShowRoomTaxCollectionsPage, "", domain.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := &failures{}
			rec := New(pages, nil, domain.Reads{}, func() domain.Date { return domain.Date{} })
			r := httptest.NewRequest("GET", tc.path, nil)
			r.SetPathValue("year", tc.year)
			tc.serve(rec, httptest.NewRecorder(), r)
			if len(pages.errs) != 1 || domain.ErrorCode(pages.errs[0]) != tc.code {
				t.Errorf("failed with %v, want one error of code %s", pages.errs, tc.code)
			}
		})
	}
}
