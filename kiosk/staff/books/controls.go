package books

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
)

// The control accounts tied to their records (domain.ControlTies): each
// fund's receivables against its open bills, vouchers payable against the
// claims allowed and unpaid, investments against the register. The
// treasurer reads it before closing a period; a difference is named with
// the records it concerns.

// ControlsCSVHeader is the layout of the ties' CSV: one line a fund's
// control; books, records and difference are plain decimals.
var ControlsCSVHeader = []string{"as_of", "fund", "control", "account", "books", "records", "items", "difference", "records_are"}

// controlTies reads every bill of the ledger (by parcel: every bill names
// one) and ties the controls to them as of today.
func (m *Module) controlTies() ([]domain.ControlTie, domain.Date, error) {
	today := m.o.Today()
	l := m.o.Ledger()
	parcels, err := l.Parcels()
	if err != nil {
		return nil, today, err
	}
	seen := map[string]bool{}
	var bills []domain.Bill
	for _, p := range parcels {
		bs, err := l.BillsByParcel(p.ID)
		if err != nil {
			return nil, today, err
		}
		for _, b := range bs {
			if !seen[b.ID] {
				seen[b.ID] = true
				bills = append(bills, b)
			}
		}
	}
	ties, err := m.read().ControlTies(bills, today, l.Params())
	return ties, today, err
}

func (m *Module) showControls(w http.ResponseWriter, r *http.Request) {
	ties, today, err := m.controlTies()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	ch, err := m.read().Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := controlsView{AsOfLong: longDate(today), NotOpen: ch.GeneralFund() == "" && len(ties) == 0}
	for _, t := range ties {
		v.Rows = append(v.Rows, controlRow{Fund: fundName(ch, t.Fund), FundCode: t.Fund, Control: string(t.Control), Account: t.Account,
			Books: dollars(t.Books), Records: dollars(t.Records), Items: t.Items, Source: t.Source,
			Difference: dollars(t.Difference()), Ties: t.Ties()})
		if !t.Ties() {
			v.Differences++
		}
	}
	m.o.Render(w, r, http.StatusOK, controlsPage(m.o.Frame(r, "Control accounts tied to their records"), v))
}

func (m *Module) exportControls(w http.ResponseWriter, r *http.Request) {
	ties, today, err := m.controlTies()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, "controls-"+today.String()+".csv")
	_ = out.Write(ControlsCSVHeader)
	for _, t := range ties {
		_ = out.Write([]string{today.String(), t.Fund, string(t.Control), t.Account, t.Books.String(), t.Records.String(),
			strconv.Itoa(t.Items), t.Difference().String(), t.Source})
	}
	_ = out.Flush()
}

type controlsView struct {
	AsOfLong    string
	NotOpen     bool
	Rows        []controlRow
	Differences int
}

type controlRow struct {
	Fund, FundCode, Control, Account string
	Books, Records, Difference       string
	Items                            int
	Source                           string
	Ties                             bool
}
