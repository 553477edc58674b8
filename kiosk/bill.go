package kiosk

import (
	"net/http"
	"slices"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// showBillPage shows a bill: today's amount due broken down into the amount
// billed, each month's interest, the November penalty and the payments so
// far; the due date; and what happens next, with §5.10 cited. The figures
// are the domain's (Bill.Figures); this only lays them out. On a kiosk
// without a card terminal a payable bill shows, instead of the pay button,
// what to pay at the clerk's window and what to bring.
func (s *Server) showBillPage(w http.ResponseWriter, r *http.Request) {
	b, err := s.ledger.Bill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.bill", "id", b.ID)
	rows := s.rows(langFrom(r.Context()))
	v, err := rows.detail(b)
	if err == nil && v.Payable {
		v.PayAll, err = s.payAll(p, rows, b.Account)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v.Payable && !s.takesCards() {
		v.CardOff = billCardOff(p, v.BillRow, v.Today)
	}
	s.render(w, r, http.StatusOK, view.BillPage(p, v))
}

// rowMapper maps bills to view models as of one day in the resident's
// language, looking each parcel up once per request.
type rowMapper struct {
	s       *Server
	today   domain.Date
	params  *domain.Params
	lang    i18n.Lang
	parcels map[string]domain.Parcel
}

func (s *Server) rows(l i18n.Lang) *rowMapper {
	return &rowMapper{s: s, today: s.today(), params: s.ledger.Params(), lang: l, parcels: make(map[string]domain.Parcel)}
}

// billDescription is what a bill is for in language l: the village's
// Spanish description on the Spanish pages when it gave one, else the
// English one, which every bill has.
func billDescription(l i18n.Lang, b domain.Bill) string {
	if l == i18n.Spanish && b.DescriptionES != "" {
		return b.DescriptionES
	}
	return b.Description
}

func (m *rowMapper) parcel(id string) (domain.Parcel, bool) {
	if pc, ok := m.parcels[id]; ok {
		return pc, pc.ID != ""
	}
	pc, err := m.s.ledger.Parcel(id)
	if err != nil {
		pc = domain.Parcel{}
	}
	m.parcels[id] = pc
	return pc, pc.ID != ""
}

func (m *rowMapper) rows(bills []domain.Bill) ([]view.BillRow, error) {
	bills = slices.Clone(bills)
	domain.SortBills(bills)
	slices.Reverse(bills) // newest first: the bill a resident came for is usually the latest
	out := make([]view.BillRow, 0, len(bills))
	for _, b := range bills {
		row, err := m.row(b)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

func (m *rowMapper) row(b domain.Bill) (view.BillRow, error) {
	fig, err := b.Figures(m.today, m.params)
	if err != nil {
		return view.BillRow{}, err
	}
	return m.rowOf(b, fig), nil
}

func (m *rowMapper) rowOf(b domain.Bill, fig domain.Receivable) view.BillRow {
	row := view.BillRow{
		ID:          b.ID,
		Shown:       b.Shown(),
		Description: billDescription(m.lang, b),
		Account:     b.Account,
		Parcel:      b.Parcel,
		BilledOn:    b.BilledOn,
		DueOn:       fig.DueOn,
		Status:      fig.Status,
		Balance:     fig.Balance,
		URL:         billURL(b.ID),
	}
	if pc, ok := m.parcel(b.Parcel); ok {
		row.Address = pc.Address
	}
	return row
}

// detail maps a bill and its figures as of today to the bill screen.
func (m *rowMapper) detail(b domain.Bill) (view.Bill, error) {
	fig, err := b.Figures(m.today, m.params)
	if err != nil {
		return view.Bill{}, err
	}
	vals := m.params.At(m.today)
	v := view.Bill{
		BillRow:        m.rowOf(b, fig),
		Today:          m.today,
		Principal:      b.Principal,
		Paid:           fig.Paid,
		PenaltyOn:      fig.PenaltyOn,
		TaxRollOn:      fig.TaxRollOn,
		CertifiedOn:    certifiedOn(b),
		NextInterestOn: fig.NextInterestOn,
		InterestRate:   vals.ReceivableInterest.Percent(),
		PenaltyRate:    vals.ReceivablePenalty.Percent(),
		Next:           next(fig, m.today),
		Payable:        fig.TakesPayment(),
		PayURL:         billURL(b.ID) + "/pay",
		AccountURL:     accountURL(b.Account),
		TaxURL:         taxParcelURL(b.Parcel),
		Section:        "§5.10",
	}
	for _, ps := range fig.Postings {
		c := view.Charge{Month: ps.Month, On: ps.On, Base: ps.Base, Amount: ps.Amount}
		switch ps.Kind {
		case domain.PostingInterest:
			v.Interest = append(v.Interest, c)
		case domain.PostingPenalty:
			v.Penalty = &c
		}
	}
	for _, pay := range b.Payments {
		v.Payments = append(v.Payments, view.Payment{On: pay.At.Date, Amount: pay.Amount, Receipt: pay.Receipt})
	}
	return v, nil
}

// next names what happens next to a bill, from the domain's status and
// dates.
func next(fig domain.Receivable, today domain.Date) view.Next {
	switch fig.Status {
	case domain.BillPaid:
		return view.NextPaid
	case domain.BillTaxRoll:
		return view.NextTaxRoll
	case domain.BillRollPending:
		return view.NextRollPending
	case domain.BillCurrent:
		return view.NextPayBy
	}
	if !today.Before(fig.PenaltyOn) {
		return view.NextAfterPenalty
	}
	return view.NextInterest
}

// certifiedOn is the day the ledger recorded the bill's certification to
// the tax roll: the date on the roll, which the bill page shows.
func certifiedOn(b domain.Bill) domain.Date {
	if b.Certified == nil {
		return domain.Date{}
	}
	return b.Certified.At.Date
}
