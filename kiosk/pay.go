package kiosk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showPayPage shows the form to pay all of a bill or part of it. A bill that
// takes no payment (paid, or on the tax roll) leads back to its page.
func (s *Server) showPayPage(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showBillCardOff(w, r, r.PathValue("id"))
		return
	}
	b, err := s.ledger.Bill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := s.rows()
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !payable(fig) {
		redirect(w, r, billURL(b.ID))
		return
	}
	p := s.page(r, selfURL(r), "title.pay")
	f := s.payForm(rows.rowOf(b, fig))
	f.Amount = r.URL.Query().Get("amount")
	if f.Amount == "" {
		f.Amount = fig.Balance.String()
	}
	s.render(w, r, http.StatusOK, view.PayPage(p, f))
}

func (s *Server) payForm(row view.BillRow) view.Pay {
	return view.Pay{Bill: row, Action: billURL(row.ID) + "/pay", BackURL: billURL(row.ID)}
}

// submitPayAmount reads the amount to pay. A bad amount re-renders the form
// with the amount as typed, what is wrong and what to type instead, and
// changes nothing. A good one leads to the confirmation page, whose URL
// carries a new command id and a signature over bill, amount and id.
func (s *Server) submitPayAmount(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showBillCardOff(w, r, r.PathValue("id"))
		return
	}
	b, err := s.ledger.Bill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := s.rows()
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	typed := r.PostForm.Get("amount")
	back := billURL(b.ID) + "/pay?amount=" + url.QueryEscape(strings.TrimSpace(typed))
	p := s.page(r, back, "title.pay")
	if !payable(fig) {
		s.showProblem(w, r, http.StatusConflict, "pay.error.not_payable", "pay.error.not_payable_hint", billURL(b.ID), "pay.back")
		return
	}
	amount, bad := readAmount(typed, fig.Balance)
	if bad.msg != "" {
		f := s.payForm(rows.rowOf(b, fig))
		f.Amount = typed
		args := []string{"amount", strings.TrimSpace(typed), "balance", p.Money(fig.Balance)}
		if bad.msg == "pay.error.too_much" {
			args[1] = p.Money(amount)
		}
		f.Problem = &view.Problem{Message: p.T(bad.msg, args...), Suggestion: p.T(bad.hint, args...)}
		s.render(w, r, http.StatusUnprocessableEntity, view.PayPage(p, f))
		return
	}
	id, err := uuid.NewV7()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, s.confirmURL(paymentForm{BillID: b.ID, Amount: amount, CommandID: id.String(), Session: sessionFrom(r.Context())}))
}

// amountProblem names, by catalogue keys, what is wrong with a typed amount.
type amountProblem struct{ msg, hint string }

// readAmount reads an amount as a resident types it: spaces around it, a
// dollar sign and thousands separators are fine ("$1,234.50"); the rest is
// domain.ParseMoney's. It must be more than zero and at most the balance:
// the kiosk does not take overpayments, which the clerk would have to
// refund (§5.07(1)).
func readAmount(typed string, balance domain.Money) (domain.Money, amountProblem) {
	t := strings.TrimSpace(typed)
	t = strings.TrimSpace(strings.TrimPrefix(t, "$"))
	t = strings.ReplaceAll(t, ",", "")
	if t == "" {
		return domain.Money{}, amountProblem{"pay.error.required", "pay.error.required_hint"}
	}
	m, err := domain.ParseMoney(t)
	if err != nil {
		if whole, frac, ok := strings.Cut(t, "."); ok && len(frac) > 2 && digits(whole+frac) {
			return domain.Money{}, amountProblem{"pay.error.cents", "pay.error.cents_hint"}
		}
		return domain.Money{}, amountProblem{"pay.error.format", "pay.error.format_hint"}
	}
	if !m.IsPositive() {
		return m, amountProblem{"pay.error.zero", "pay.error.zero_hint"}
	}
	if m.GreaterThan(balance) {
		return m, amountProblem{"pay.error.too_much", "pay.error.too_much_hint"}
	}
	return m, amountProblem{}
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
