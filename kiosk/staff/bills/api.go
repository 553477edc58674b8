package bills

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
)

// billJSON is a bill with its §5.10 figures as of a date.
type billJSON struct {
	domain.Bill
	AsOf    domain.Date       `json:"as_of"`
	Figures domain.Receivable `json:"figures"`
}

// billFigures is a bill with its figures as of a date, as the API
// answers it.
func (m *Module) billFigures(b domain.Bill, asOf domain.Date) (billJSON, error) {
	fig, err := b.Figures(asOf, m.o.Ledger().Params())
	// The summary is how the ledger stores the bill from format 3
	// (domain.BillSummary), not part of the answer: Figures is.
	b.Summary = nil
	return billJSON{Bill: b, AsOf: asOf, Figures: fig}, err
}

// apiBills serves GET /api/v1/bills?account=…|parcel=….
func (m *Module) apiBills(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var bills []domain.Bill
	var err error
	switch {
	case q.Get("account") != "":
		bills, err = m.o.Ledger().BillsByAccount(q.Get("account"))
	case q.Get("parcel") != "":
		bills, err = m.o.Ledger().BillsByParcel(q.Get("parcel"))
	default:
		err = domain.Errorf(domain.EINVALID, "", "Give account= or parcel=.")
	}
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	out := []billJSON{}
	for _, b := range bills {
		bj, err := m.billFigures(b, m.o.Today())
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		out = append(out, bj)
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"bills": out, "consistency": m.o.Ledger().Consistency()})
}

// apiBill serves GET /api/v1/bills/{id}?as_of=….
func (m *Module) apiBill(w http.ResponseWriter, r *http.Request) {
	asOf := m.o.Today()
	if v := r.URL.Query().Get("as_of"); v != "" {
		d, err := domain.ParseDate(v)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		asOf = d
	}
	b, err := m.o.Ledger().Bill(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	bj, err := m.billFigures(b, asOf)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, bj)
}
