package kiosk

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// billCart is the checkout of several bills of one account paid together
// with one card charge (§5.10, pay_bills): the resident ticks the bills,
// each is paid in full as it stands today, and one command posts them all
// or none. Its form signs the account (from the path) and the list of
// bills with their amounts, so a bill cannot be added, dropped or changed
// on the way to the terminal.
var billCart = &checkout{
	kind:   domain.KindPayBills,
	title:  "title.confirm",
	fields: []string{"number", "bills"},
	path:   "number",
	load:   (*Server).loadCart,
	urls: func(f checkoutForm) checkoutURLs {
		u := accountURL(f.get("number"))
		change := u + "/pay"
		if parts, err := decodeCart(f.get("bills")); err == nil {
			ids := make([]string, len(parts))
			for i, p := range parts {
				ids[i] = p.BillID
			}
			change += "?" + url.Values{"bill": ids}.Encode()
		}
		return checkoutURLs{confirm: u + "/confirm", charge: u + "/charge", change: change, back: u, backLabel: "cart.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) {
		s.showAccountCardOff(w, r, r.PathValue("number"))
	},
	receipt: (*Server).cartReceipt,
}

// encodeCart writes the bills and amounts of a cart as its form signs
// them: "id=amount" pairs, ids query-escaped, joined by commas.
func encodeCart(parts []domain.BillAmount) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = url.QueryEscape(p.BillID) + "=" + p.Amount.String()
	}
	return strings.Join(s, ",")
}

// decodeCart reads what encodeCart wrote.
func decodeCart(s string) ([]domain.BillAmount, error) {
	var out []domain.BillAmount
	for pair := range strings.SplitSeq(s, ",") {
		id, amount, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("cart %q: no amount in %q", s, pair)
		}
		bill, err := url.QueryUnescape(id)
		if err != nil {
			return nil, fmt.Errorf("cart %q: %w", s, err)
		}
		m, err := domain.ParseMoney(amount)
		if err != nil {
			return nil, fmt.Errorf("cart %q: %w", s, err)
		}
		out = append(out, domain.BillAmount{BillID: bill, Amount: m})
	}
	if len(out) == 0 || len(out) > domain.MaxBillsPerPayment {
		return nil, fmt.Errorf("cart %q: %d bills", s, len(out))
	}
	return out, nil
}

// payableBills returns the bills of account number that take a payment
// today, newest first as the account page lists them, with their rows.
func (s *Server) payableBills(rows *rowMapper, number string) ([]domain.Bill, []view.BillRow, error) {
	bills, err := s.ledger.BillsByAccount(number)
	if err != nil {
		return nil, nil, err
	}
	bills = slices.Clone(bills)
	domain.SortBills(bills)
	slices.Reverse(bills)
	var keep []domain.Bill
	var out []view.BillRow
	for _, b := range bills {
		fig, err := b.Figures(rows.today, rows.params)
		if err != nil {
			return nil, nil, err
		}
		if fig.TakesPayment() {
			keep = append(keep, b)
			out = append(out, rows.rowOf(b, fig))
		}
	}
	return keep, out, nil
}

// cartBills is payableBills for one card payment, which pays at most
// domain.MaxBillsPerPayment bills: of more, the oldest that many (the first
// to run up interest and go on the tax roll), and how many are left out.
func (s *Server) cartBills(rows *rowMapper, number string) ([]domain.Bill, []view.BillRow, int, error) {
	bills, out, err := s.payableBills(rows, number)
	if err != nil {
		return nil, nil, 0, err
	}
	bills, out, more := inOneCart(bills, out)
	return bills, out, more, nil
}

// inOneCart keeps of an account's payable bills (payableBills, newest
// first) those one card payment takes, the oldest
// domain.MaxBillsPerPayment, and says how many are left out.
func inOneCart(bills []domain.Bill, rows []view.BillRow) ([]domain.Bill, []view.BillRow, int) {
	more := max(0, len(bills)-domain.MaxBillsPerPayment)
	return bills[more:], rows[more:], more
}

// groupDue fills in what the bills of an account's or a parcel's page
// that take a payment today owe together, and the offers to pay them with
// one charge when the kiosk takes cards: one per account with two or more
// of them, through that account's cart with those bills ticked (its other
// bills, of another parcel, are listed unticked). A cart pays at most
// domain.MaxBillsPerPayment bills, the oldest: only those are ticked, and
// the offer says their total.
func (s *Server) groupDue(p view.Page, rows *rowMapper, g *view.Group) error {
	var accounts []string
	inGroup := map[string]bool{}
	for _, b := range g.Bills {
		inGroup[b.ID] = true
		if !slices.Contains(accounts, b.Account) {
			accounts = append(accounts, b.Account)
		}
	}
	for _, number := range accounts {
		bills, payable, err := s.payableBills(rows, number)
		if err != nil {
			return err
		}
		for i, b := range bills {
			if inGroup[b.ID] {
				g.Due = g.Due.Add(payable[i].Balance)
			}
		}
		if !s.takesCards() {
			continue
		}
		_, cart, _ := inOneCart(bills, payable)
		var ids []string
		total := domain.Money{}
		for _, b := range cart {
			if inGroup[b.ID] {
				ids = append(ids, b.ID)
				total = total.Add(b.Balance)
			}
		}
		if len(ids) < 2 {
			continue
		}
		u := accountURL(number) + "/pay"
		if len(ids) < len(cart) {
			u += "?" + url.Values{"bill": ids}.Encode()
		}
		g.PayAll = append(g.PayAll, view.PayAll{URL: u, Label: p.T("group.pay_all", "count", fmt.Sprint(len(ids)), "amount", p.Money(total))})
	}
	return nil
}

// payAll is the bill page's offer to pay every payable bill of its
// account together, when there are two or more and the kiosk takes cards.
func (s *Server) payAll(p view.Page, rows *rowMapper, number string) (*view.PayAll, error) {
	if !s.takesCards() {
		return nil, nil
	}
	_, payable, _, err := s.cartBills(rows, number)
	if err != nil || len(payable) < 2 {
		return nil, err
	}
	total := domain.Money{}
	for _, b := range payable {
		total = total.Add(b.Balance)
	}
	return &view.PayAll{URL: accountURL(number) + "/pay", Label: p.T("group.pay_all", "count", fmt.Sprint(len(payable)), "amount", p.Money(total))}, nil
}

// showCartPage lists the bills of an account that take a payment today,
// every one ticked, or those the resident chose before ("bill" in the
// query, from the confirmation's change link).
func (s *Server) showCartPage(w http.ResponseWriter, r *http.Request) {
	s.renderCart(w, r, http.StatusOK, r.URL.Query()["bill"], nil)
}

func (s *Server) renderCart(w http.ResponseWriter, r *http.Request, status int, chosen []string, problem *view.Problem) {
	number := r.PathValue("number")
	if !s.takesCards() {
		s.showAccountCardOff(w, r, number)
		return
	}
	a, err := s.ledger.Account(number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	_, rows, more, err := s.cartBills(s.rows(langFrom(r.Context())), a.Number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(rows) == 0 {
		s.showProblem(w, r, http.StatusConflict, "cart.error.nothing", "pay.error.not_payable_hint", accountURL(a.Number), "cart.back")
		return
	}
	p := s.page(r, selfURL(r), "title.pay")
	c := view.Cart{Account: a.Number, Action: accountURL(a.Number) + "/pay", BackURL: accountURL(a.Number), Problem: problem, More: more}
	for _, row := range rows {
		b := view.CartBill{Bill: row, Chosen: len(chosen) == 0 || slices.Contains(chosen, row.ID), Amount: row.Balance}
		c.Bills = append(c.Bills, b)
		if b.Chosen {
			c.Total = c.Total.Add(row.Balance)
		}
	}
	s.render(w, r, status, view.CartPage(p, c))
}

// submitCart reads the bills ticked and leads to the confirmation, whose
// URL carries a new command id and the signed list of bills, each at what
// it owes today. A bill the account does not hold, or no longer can pay,
// is not in the list it was chosen from: the page comes back with the
// problem and nothing changes.
func (s *Server) submitCart(w http.ResponseWriter, r *http.Request) {
	number := r.PathValue("number")
	if !s.takesCards() {
		s.showAccountCardOff(w, r, number)
		return
	}
	chosen := r.PostForm["bill"]
	bills, rows, _, err := s.cartBills(s.rows(langFrom(r.Context())), number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var parts []domain.BillAmount
	for i, b := range bills {
		if slices.Contains(chosen, b.ID) {
			parts = append(parts, domain.BillAmount{BillID: b.ID, Amount: rows[i].Balance})
		}
	}
	if len(chosen) == 0 || len(parts) != len(chosen) {
		t := s.page(r, selfURL(r), "title.pay")
		s.renderCart(w, r, http.StatusUnprocessableEntity, chosen, &view.Problem{Message: t.T("cart.error.none"), Suggestion: t.T("cart.error.none_hint")})
		return
	}
	f, err := s.newForm(r, billCart, number, encodeCart(parts))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, s.confirmURL(f))
}

// showAccountCardOff answers every step of a cart when this kiosk takes
// no cards: what each bill owes, to pay at the clerk's window.
func (s *Server) showAccountCardOff(w http.ResponseWriter, r *http.Request, number string) {
	rows := s.rows(langFrom(r.Context()))
	_, payable, err := s.payableBills(rows, number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(payable) == 0 {
		s.showProblem(w, r, http.StatusConflict, "cart.error.nothing", "pay.error.not_payable_hint", accountURL(number), "cart.back")
		return
	}
	p := s.page(r, problemSelf(r), "title.card_off")
	c := &view.CardOff{Bring: []string{p.T("card_off.bring_account", "account", number), p.T("card_off.bring_money")}}
	for _, b := range payable {
		c.Amounts = append(c.Amounts, view.Due{Label: p.T("bill.number_short", "id", b.ID) + " · " + b.Description, Amount: b.Balance})
	}
	s.showCardOff(w, r, p, c, accountURL(number), "cart.back")
}

// cartPayment is a payment of several bills of one account, as its
// checkout form names them.
type cartPayment struct {
	s       *Server
	account string
	parts   []domain.BillAmount
	bills   []domain.Bill
	rows    *rowMapper
}

func (s *Server) loadCart(f checkoutForm) (payable, error) {
	parts, err := decodeCart(f.get("bills"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	c := &cartPayment{s: s, account: f.get("number"), parts: parts, rows: s.rows(f.lang)}
	for _, p := range parts {
		b, err := s.ledger.Bill(p.BillID)
		if err != nil {
			return nil, err
		}
		if b.Account != c.account {
			return nil, domain.Errorf(domain.EINVALID, "", "Bill %s is not on account %s.", b.ID, c.account)
		}
		c.bills = append(c.bills, b)
	}
	return c, nil
}

func (c *cartPayment) amount() domain.Money {
	return (&domain.PayBills{Bills: c.parts}).Total()
}

func (c *cartPayment) attrs() []any { return []any{"account", c.account, "bills", len(c.parts)} }

// paidBy finds the payment among the first bill's: the command posts on
// every bill of the cart or on none.
func (c *cartPayment) paidBy(commandID string) (string, bool) {
	for _, pay := range c.bills[0].Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuse refuses the cart when any of its bills no longer takes the
// amount chosen for it (paid in part or in full meanwhile, certified to
// the tax roll): nothing is charged, and the resident chooses again.
func (c *cartPayment) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	for i, b := range c.bills {
		fig, err := b.Figures(at.Date, c.rows.params)
		if err != nil {
			c.s.fail(w, r, err)
			return true
		}
		if !fig.TakesPayment() || c.parts[i].Amount.GreaterThan(fig.Balance) {
			pg := c.s.page(r, problemSelf(r), "title.error")
			c.s.showProblem(w, r, http.StatusConflict, "cart.error.changed", "cart.error.changed_hint", accountURL(c.account)+"/pay", "cart.back",
				"bill", b.ID, "balance", pg.Money(fig.Balance))
			return true
		}
	}
	return false
}

// confirmation shows each bill with its part, how the domain will apply
// it (domain.Bill.PreviewPayment, the computation posting makes) and what
// it owes after, and the one total.
func (c *cartPayment) confirmation(pg view.Page, f chargeForm) (templ.Component, error) {
	v := view.CartConfirm{
		Account:   c.account,
		Total:     c.amount(),
		Field:     encodeCart(c.parts),
		CommandID: f.commandID,
		Signature: f.signature,
		Action:    f.action,
		ChangeURL: f.change,
		Problem:   f.problem,
		Simulator: f.simulator,
		Outcomes:  f.outcomes,
	}
	at := c.s.moment()
	for i, b := range c.bills {
		row, err := c.rows.row(b)
		if err != nil {
			return nil, err
		}
		pv, err := b.PreviewPayment(at, c.parts[i].Amount, c.rows.params)
		if err != nil {
			return nil, err
		}
		v.Bills = append(v.Bills, view.CartBill{Bill: row, Chosen: true, Amount: c.parts[i].Amount, Allocation: pv.Allocation, Remaining: pv.Balance})
	}
	return view.CartConfirmPage(pg, v), nil
}

func (c *cartPayment) payload(ref string, card *domain.CardShown) domain.Payload {
	return &domain.PayBills{Account: c.account, Bills: slices.Clone(c.parts), Tender: domain.Card, Reference: ref, Card: card}
}

// cartReceipt lists the bills a receipt paid, each with its description
// in language lang.
func (s *Server) cartReceipt(lang i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	for _, l := range rc.Lines {
		line := view.ReceiptLine{BillID: l.BillID, Amount: l.Amount, Allocation: l.Allocation, Balance: l.Balance}
		if b, err := s.ledger.Bill(l.BillID); err == nil {
			line.Description = billDescription(lang, b)
			line.Shown = b.Shown()
		}
		v.Lines = append(v.Lines, line)
	}
	return nil
}
