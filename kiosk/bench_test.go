package kiosk_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// BenchmarkBillPage measures the server time of the bill page over the
// in-memory ledger: the §5.10 figures, the view model and the render.
func BenchmarkBillPage(b *testing.B) {
	h := benchHandler(b)
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bills/"+pastDueBill, nil))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkFind measures a search by street address, which scans parcels.
func BenchmarkFind(b *testing.B) {
	h := benchHandler(b)
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/find?q=141+W+Main+Street", nil))
		if rec.Code != http.StatusSeeOther {
			b.Fatal(rec.Code)
		}
	}
}

func benchHandler(b *testing.B) http.Handler {
	s, err := kiosk.New(kiosk.Config{
		Ledger: seededLedger(), Terminal: terminal.NewSimulator(), Secret: testSecret,
		Location: chicago, Now: func() time.Time { return fixedAt },
	})
	if err != nil {
		b.Fatal(err)
	}
	return s.Handler()
}
