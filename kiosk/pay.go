package kiosk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// billPayments is the checkout of a payment on a village bill (§5.10,
// pay_bill): the amount comes from the pay form, the confirmation shows
// how the domain will apply it, and the kiosk takes no more than the
// balance.
var billPayments = &checkout{
	kind:   domain.KindPayBill,
	title:  "title.confirm",
	fields: []string{"id", "amount"},
	path:   "id",
	load:   (*Server).loadBillPayment,
	urls: func(f checkoutForm) checkoutURLs {
		u := billURL(f.get("id"))
		return checkoutURLs{confirm: u + "/confirm", charge: u + "/charge", change: u + "/pay?amount=" + url.QueryEscape(f.get("amount")), back: u, backLabel: "pay.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) { s.showBillCardOff(w, r, r.PathValue("id")) },
	receipt: (*Server).billReceipt,
}

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
	rows := s.rows(langFrom(r.Context()))
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !fig.TakesPayment() {
		redirect(w, r, billURL(b.ID))
		return
	}
	p := s.page(r, selfURL(r), "title.pay")
	f := s.payForm(r, rows.rowOf(b, fig))
	f.Amount = r.URL.Query().Get("amount")
	if f.Amount == "" {
		f.Amount = typedAmount(fig.Balance)
	}
	s.render(w, r, http.StatusOK, view.PayPage(p, f))
}

func (s *Server) payForm(r *http.Request, row view.BillRow) view.Pay {
	return view.Pay{Bill: row, Action: billURL(row.ID) + "/pay", BackURL: billURL(row.ID), Full: typedAmount(row.Balance)}
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
	rows := s.rows(langFrom(r.Context()))
	fig, err := b.Figures(rows.today, rows.params)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	typed := r.PostForm.Get("amount")
	back := billURL(b.ID) + "/pay?amount=" + url.QueryEscape(strings.TrimSpace(typed))
	p := s.page(r, back, "title.pay")
	if !fig.TakesPayment() {
		s.showProblem(w, r, http.StatusConflict, "pay.error.not_payable", "pay.error.not_payable_hint", billURL(b.ID), "pay.back")
		return
	}
	amount, bad := readAmount(typed, fig.Balance, langFrom(r.Context()))
	if bad.msg != "" {
		f := s.payForm(r, rows.rowOf(b, fig))
		f.Amount = typed
		args := []string{"amount", strings.TrimSpace(typed), "balance", p.Money(fig.Balance)}
		if bad.msg == "pay.error.too_much" {
			args[1] = p.Money(amount)
		}
		f.Problem = &view.Problem{Message: p.T(bad.msg, args...), Suggestion: p.T(bad.hint, args...)}
		s.render(w, r, http.StatusUnprocessableEntity, view.PayPage(p, f))
		return
	}
	f, err := s.newForm(r, billPayments, b.ID, amount.String())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, s.confirmURL(f))
}

// amountProblem names, by catalogue keys, what is wrong with a typed amount.
type amountProblem struct{ msg, hint string }

// readAmount reads an amount as a resident types it. Both languages show
// amounts one way, as dollars are written in the United States ("$1,234.50":
// a period before the cents, commas between thousands), and read that way.
// The Spanish page also reads the comma-decimal way a resident may have
// learned elsewhere ("12,50", "1.234,50"), so that both typings work
// there; exactly, in Spanish (splitMarks):
//
//   - with both a comma and a period, the last of them is the decimal
//     mark and the other groups thousands ("1,234.50", "1.234,50");
//   - with one of them only, it is the decimal mark when it comes once
//     and is not followed by exactly three digits ("12,50", "12.5"), and
//     groups thousands otherwise ("1.250", "1,250", "1.234.567"): read
//     as a decimal mark, three digits would be a fraction of a cent,
//     never an amount.
//
// Spaces also group thousands in Spanish. In English a comma only groups
// thousands. In both, groups are of three digits after a first one of
// one to three that does not start with 0, and spaces around the amount
// and a dollar sign are fine. A mark where the page does not read one
// ("12,50" in English) is not guessed at: it is refused with a message
// that says how each mark reads. The amount must be more than zero and at
// most the balance: the kiosk does not take overpayments, which the clerk
// would have to refund (§5.07(1)).
func readAmount(typed string, balance domain.Money, lang i18n.Lang) (domain.Money, amountProblem) {
	t := strings.TrimSpace(typed)
	t = strings.TrimSpace(strings.TrimPrefix(t, "$"))
	if t == "" {
		return domain.Money{}, amountProblem{"pay.error.required", "pay.error.required_hint"}
	}
	decimal, grouping := ".", ","
	if lang == i18n.Spanish {
		decimal, grouping = splitMarks(t)
	}
	if strings.Count(t, decimal) > 1 {
		return domain.Money{}, amountProblem{"pay.error.format", "pay.error.format_hint"}
	}
	whole, frac, point := strings.Cut(t, decimal)
	if strings.ContainsAny(frac, grouping) {
		return domain.Money{}, amountProblem{"pay.error.format", "pay.error.format_hint"}
	}
	if strings.ContainsAny(whole, grouping) {
		groups := strings.FieldsFunc(whole, func(r rune) bool { return strings.ContainsRune(grouping, r) })
		ok := len(groups) > 1 && len(groups[0]) >= 1 && len(groups[0]) <= 3 && digits(groups[0]) && groups[0][0] != '0' &&
			strings.Count(whole, "") == len(strings.Join(groups, ""))+len(groups)
		for i := 1; ok && i < len(groups); i++ {
			ok = len(groups[i]) == 3 && digits(groups[i])
		}
		if !ok {
			if lang == i18n.English && digits(strings.Join(groups, "")) {
				// "12,50" in English: the comma is the decimal mark
				// of another convention, or a slip.
				return domain.Money{}, amountProblem{"pay.error.separator", "pay.error.separator_hint"}
			}
			return domain.Money{}, amountProblem{"pay.error.format", "pay.error.format_hint"}
		}
		whole = strings.Join(groups, "")
	}
	switch {
	case !digits(whole) || point && frac == "" || point && !digits(frac):
		return domain.Money{}, amountProblem{"pay.error.format", "pay.error.format_hint"}
	case len(frac) > 2:
		return domain.Money{}, amountProblem{"pay.error.cents", "pay.error.cents_hint"}
	}
	canon := whole
	if point {
		canon += "." + frac
	}
	m, err := domain.ParseMoney(canon)
	if err != nil {
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

// spaces group thousands in Spanish: the space, and the no-break spaces
// a pasted amount may carry.
const spaces = " \u00a0\u202f"

// splitMarks returns which mark is the decimal mark of an amount typed on
// the Spanish page, and which marks group its thousands, by the rules
// readAmount gives. Whatever it answers, a mark in the wrong place is
// refused by readAmount, never read as something else.
func splitMarks(t string) (decimal, grouping string) {
	comma, period := strings.LastIndex(t, ","), strings.LastIndex(t, ".")
	switch {
	case comma >= 0 && period >= 0 && comma > period:
		return ",", "." + spaces
	case comma >= 0 && period >= 0:
		return ".", "," + spaces
	case comma < 0 && period < 0:
		return ".", spaces
	}
	mark, at := ",", comma
	if period >= 0 {
		mark, at = ".", period
	}
	other := map[string]string{",": ".", ".": ","}[mark]
	if strings.Count(t, mark) == 1 && !(len(t)-at-1 == 3 && digits(t[at+1:])) {
		return mark, other + spaces
	}
	return other, mark + spaces
}

// typedAmount writes m as the pay form fills it in, in both languages as
// the pages show amounts, without the dollar sign and without grouping
// (so that the keypad can edit it): "188.79".
func typedAmount(m domain.Money) string {
	return m.String()
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// billPayment is a payment of an amount on a village bill, as its
// checkout form names it.
type billPayment struct {
	s    *Server
	bill domain.Bill
	pay  domain.Money
	rows *rowMapper
}

func (s *Server) loadBillPayment(f checkoutForm) (payable, error) {
	amount, err := domain.ParseMoney(f.get("amount"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	b, err := s.ledger.Bill(f.get("id"))
	if err != nil {
		return nil, err
	}
	return &billPayment{s: s, bill: b, pay: amount, rows: s.rows(f.lang)}, nil
}

func (p *billPayment) amount() domain.Money { return p.pay }

func (p *billPayment) attrs() []any { return []any{"bill", p.bill.ID} }

// paidBy finds the payment among the bill's.
func (p *billPayment) paidBy(commandID string) (string, bool) {
	for _, pay := range p.bill.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuse refuses a payment the bill no longer takes (paid meanwhile, or on
// the tax roll) with the reason, and an amount now more than the balance
// (paid in part meanwhile) with the pay form at the balance.
func (p *billPayment) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	s, b := p.s, p.bill
	fig, err := b.Figures(at.Date, p.rows.params)
	switch {
	case err != nil:
		s.fail(w, r, err)
	case !fig.TakesPayment():
		s.showProblem(w, r, http.StatusConflict, "pay.error.not_payable", "pay.error.not_payable_hint", billURL(b.ID), "pay.back")
	case p.pay.GreaterThan(fig.Balance):
		pg := s.page(r, billURL(b.ID)+"/pay", "title.pay")
		pf := s.payForm(r, p.rows.rowOf(b, fig))
		pf.Amount = typedAmount(fig.Balance)
		pf.Problem = &view.Problem{
			Message:    pg.T("pay.error.too_much", "amount", pg.Money(p.pay), "balance", pg.Money(fig.Balance)),
			Suggestion: pg.T("pay.error.too_much_hint", "balance", pg.Money(fig.Balance)),
		}
		s.render(w, r, http.StatusConflict, view.PayPage(pg, pf))
	default:
		return false
	}
	return true
}

// confirmation shows the amount, how the domain will apply it (penalty,
// then interest, then principal: domain.Bill.PreviewPayment, the
// computation posting makes) and what remains.
func (p *billPayment) confirmation(pg view.Page, c chargeForm) (templ.Component, error) {
	row, err := p.rows.row(p.bill)
	if err != nil {
		return nil, err
	}
	pv, err := p.bill.PreviewPayment(p.s.moment(), p.pay, p.rows.params)
	if err != nil {
		return nil, err
	}
	return view.ConfirmPage(pg, view.Confirm{
		Bill:       row,
		Amount:     p.pay,
		Allocation: pv.Allocation,
		Remaining:  pv.Balance,
		CommandID:  c.commandID,
		Signature:  c.signature,
		Action:     c.action,
		ChangeURL:  c.change,
		Problem:    c.problem,
		Simulator:  c.simulator,
		Outcomes:   c.outcomes,
	}), nil
}

func (p *billPayment) payload(ref string, card *domain.CardShown) domain.Payload {
	return &domain.PayBill{BillID: p.bill.ID, Amount: p.pay, Tender: domain.Card, Reference: ref, Card: card}
}

// billReceipt names the bill a receipt paid and links to it.
func (s *Server) billReceipt(l i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	v.BillURL = billURL(rc.BillID)
	if b, err := s.ledger.Bill(rc.BillID); err == nil {
		v.Description = billDescription(l, b)
		v.BillShown = b.Shown()
	}
	return nil
}
