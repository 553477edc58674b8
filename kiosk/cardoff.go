package kiosk

import (
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// A kiosk without a card terminal (Config.Terminal nil: the appliance runs
// one unless it is started as a demo or with the simulator) is a normal
// kiosk that takes no card payments. The start screen says so; a bill, a
// property tax bill and the status letter page show, instead of a button
// that cannot work, what to pay at the clerk's window and what to bring.
// Every card checkout URL (typed, or kept from an earlier page) answers
// 503 with the same words, before anything else: no command is stamped,
// no card is charged, nothing reaches the ledger.

// billCardOff is what the clerk's window needs for a payable bill.
func billCardOff(p view.Page, row view.BillRow, today domain.Date) *view.CardOff {
	return &view.CardOff{
		Amounts: []view.Due{{Label: p.T("bill.amount_due_today", "date", p.Date(today)), Amount: row.Balance}},
		Bring:   []string{p.T("card_off.bring_bill", "id", row.ID, "account", row.Account), p.T("card_off.bring_money")},
	}
}

// taxCardOff is what the clerk's window needs for a tax bill with the ways
// to pay it that are open today.
func taxCardOff(p view.Page, v view.TaxBill) *view.CardOff {
	c := &view.CardOff{Bring: []string{p.T("card_off.bring_tax", "parcel", v.Parcel, "year", fmt.Sprint(v.TaxYear)), p.T("card_off.bring_money")}}
	for _, o := range v.Options {
		c.Amounts = append(c.Amounts, view.Due{Label: p.T("tax.option." + string(o.Option)), Amount: o.Amount})
	}
	return c
}

// letterCardOff is what the clerk's window needs for a status letter.
func letterCardOff(p view.Page, fee domain.Money) *view.CardOff {
	return &view.CardOff{
		Amounts: []view.Due{{Label: p.T("card_off.letter_fee"), Amount: fee}},
		Bring:   []string{p.T("card_off.bring_letter"), p.T("card_off.bring_money")},
	}
}

// showCardOff answers a card checkout on a kiosk without a terminal.
func (s *Server) showCardOff(w http.ResponseWriter, r *http.Request, p view.Page, c *view.CardOff, back, backLabel string) {
	s.log.Info("card checkout on a kiosk without a card terminal", "method", r.Method, "path", r.URL.Path)
	c.BackURL, c.BackLabel = back, p.T(backLabel)
	s.render(w, r, http.StatusServiceUnavailable, view.CardOffPage(p, *c))
}

// showBillCardOff answers the pay form, the confirmation and the charge of
// a village bill when this kiosk takes no cards.
func (s *Server) showBillCardOff(w http.ResponseWriter, r *http.Request, id string) {
	b, err := s.ledger.Bill(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := s.rows(langFrom(r.Context()))
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !fig.TakesPayment() {
		s.showProblem(w, r, http.StatusConflict, "pay.error.not_payable", "pay.error.not_payable_hint", billURL(b.ID), "pay.back")
		return
	}
	p := s.page(r, problemSelf(r), "title.card_off")
	s.showCardOff(w, r, p, billCardOff(p, rows.rowOf(b, fig), rows.today), billURL(b.ID), "pay.back")
}

// showTaxCardOff answers the choice of an option, the confirmation and the
// charge of a property tax bill when this kiosk takes no cards.
func (s *Server) showTaxCardOff(w http.ResponseWriter, r *http.Request, id string) {
	t, pc, err := s.taxBill(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.taxView(t, pc, s.today())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(v.Options) == 0 {
		s.showTaxNotPayable(w, r, v)
		return
	}
	p := s.page(r, problemSelf(r), "title.card_off")
	s.showCardOff(w, r, p, taxCardOff(p, v), taxBillURL(t.ID), "tax.back")
}

// showLetterCardOff answers a status letter request or its charge when
// this kiosk takes no cards.
func (s *Server) showLetterCardOff(w http.ResponseWriter, r *http.Request) {
	l, err := s.letterForm()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, "/letters", "title.card_off")
	s.showCardOff(w, r, p, letterCardOff(p, l.Fee), "/letters", "letter.back")
}
