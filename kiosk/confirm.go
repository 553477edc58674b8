package kiosk

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/view"
)

// confirmURL returns the confirmation page of a payment. The URL carries the
// command id and the signature, so reloading the page or switching its
// language keeps the same command id: the payment it leads to is the same
// payment. The signature is for f.Session: in another visit the URL is
// refused.
func (s *Server) confirmURL(f paymentForm) string {
	q := url.Values{}
	q.Set("amount", f.Amount.String())
	q.Set("cmd", f.CommandID)
	q.Set("sig", s.sign(f))
	return billURL(f.BillID) + "/confirm?" + q.Encode()
}

// showConfirmPage shows the amount, how it will be applied (penalty, then
// interest, then principal) and what remains, before anything is charged.
// A changed URL, or one of another visit, is refused. A payment that
// already went through leads to its receipt.
func (s *Server) showConfirmPage(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showBillCardOff(w, r, r.PathValue("id"))
		return
	}
	q := r.URL.Query()
	f, ok := s.verify(r, r.PathValue("id"), q.Get("amount"), q.Get("cmd"), q.Get("sig"))
	if !ok {
		s.refuseTampered(w, r)
		return
	}
	b, err := s.ledger.Bill(f.BillID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc, ok := paidBy(b, f.CommandID); ok {
		redirect(w, r, s.receiptURL(r, rc))
		return
	}
	s.renderConfirm(w, r, http.StatusOK, b, f, nil)
}

// renderConfirm shows the confirmation page of f, with problem when a
// charge did not go through. A bill that no longer takes this payment (it
// was paid meanwhile, or went on the tax roll) shows the pay form instead.
func (s *Server) renderConfirm(w http.ResponseWriter, r *http.Request, status int, b domain.Bill, f paymentForm, problem *view.Problem) {
	rows := s.rows()
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !payable(fig) {
		s.showProblem(w, r, http.StatusConflict, "pay.error.not_payable", "pay.error.not_payable_hint", billURL(b.ID), "pay.back")
		return
	}
	if f.Amount.GreaterThan(fig.Balance) {
		p := s.page(r, billURL(b.ID)+"/pay", "title.pay")
		pf := s.payForm(rows.rowOf(b, fig))
		pf.Amount = fig.Balance.String()
		pf.Problem = &view.Problem{
			Message:    p.T("pay.error.too_much", "amount", p.Money(f.Amount), "balance", p.Money(fig.Balance)),
			Suggestion: p.T("pay.error.too_much_hint", "balance", p.Money(fig.Balance)),
		}
		s.render(w, r, http.StatusConflict, view.PayPage(p, pf))
		return
	}
	alloc, remaining, err := preview(b, domain.DateTimeOf(s.now().In(s.loc)), f.Amount, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, s.confirmURL(f), "title.confirm")
	c := view.Confirm{
		Bill:       rows.rowOf(b, fig),
		Amount:     f.Amount,
		Allocation: alloc,
		Remaining:  remaining,
		CommandID:  f.CommandID,
		Signature:  s.sign(f),
		Action:     billURL(b.ID) + "/charge",
		ChangeURL:  billURL(b.ID) + "/pay?amount=" + url.QueryEscape(f.Amount.String()),
		Problem:    problem,
		Simulator:  s.sim != nil,
	}
	if c.Simulator {
		for _, o := range terminal.Outcomes() {
			c.Outcomes = append(c.Outcomes, string(o))
		}
	}
	s.render(w, r, status, view.ConfirmPage(p, c))
}

// preview asks the domain how a payment of amount at a moment would be
// applied to b, without recording anything: the allocation and the balance
// left after it.
func preview(b domain.Bill, at domain.DateTime, amount domain.Money, p *domain.Params) (domain.Allocation, domain.Money, error) {
	b.Payments = append(slices.Clone(b.Payments), domain.BillPayment{At: at, Amount: amount, Tender: domain.Card})
	fig, err := b.Figures(at.Date, p)
	if err != nil {
		return domain.Allocation{}, domain.Money{}, err
	}
	if len(fig.Allocations) != len(b.Payments) {
		return domain.Allocation{}, domain.Money{}, domain.Errorf(domain.EINTERNAL, "§5.10", "figures of bill %s have %d allocations for %d payments", b.ID, len(fig.Allocations), len(b.Payments))
	}
	return fig.Allocations[len(b.Payments)-1], fig.Balance, nil
}

// paidBy returns the receipt number of the payment that command id made on
// b, if it made one.
func paidBy(b domain.Bill, commandID string) (string, bool) {
	for _, pay := range b.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuseTampered answers a payment form whose signature does not match:
// nothing is charged or recorded.
func (s *Server) refuseTampered(w http.ResponseWriter, r *http.Request) {
	s.log.Warn("refused a changed payment form", "path", r.URL.Path)
	back := "/find"
	if id := r.PathValue("id"); id != "" {
		back = billURL(id)
	}
	s.showProblem(w, r, http.StatusBadRequest, "error.tampered", "error.tampered_hint", back, "pay.back")
}
