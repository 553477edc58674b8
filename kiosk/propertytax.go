package kiosk

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/find"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

func taxParcelURL(id string) string { return "/property-tax/" + url.PathEscape(id) }
func taxBillURL(id string) string   { return "/tax-bills/" + url.PathEscape(id) }

// showTaxSearchPage asks for a parcel or address and, with ?q=, finds its
// property tax bills: one parcel leads straight to them, several are
// listed to choose from.
func (s *Server) showTaxSearchPage(w http.ResponseWriter, r *http.Request) {
	p := s.page(r, selfURL(r), "title.tax")
	v := view.TaxSearch{Action: "/property-tax"}
	raw, asked := r.URL.Query()["q"]
	if !asked {
		s.render(w, r, http.StatusOK, view.TaxSearchPage(p, v))
		return
	}
	v.Query = strings.TrimSpace(raw[0])
	if v.Query == "" {
		v.Problem = &view.Problem{Message: p.T("tax.error.empty"), Suggestion: p.T("tax.search_hint")}
		s.render(w, r, http.StatusUnprocessableEntity, view.TaxSearchPage(p, v))
		return
	}
	found, err := find.Parcels(s.ledger, v.Query)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	switch len(found) {
	case 0:
		v.Problem = &view.Problem{Message: p.T("letter.error.parcel_none", "query", v.Query), Suggestion: p.T("find.error.none_hint")}
		s.render(w, r, http.StatusNotFound, view.TaxSearchPage(p, v))
		return
	case 1:
		redirect(w, r, taxParcelURL(found[0].ID))
		return
	}
	for _, pc := range found {
		v.Choices = append(v.Choices, view.ParcelChoice{ID: pc.ID, Address: pc.Address})
	}
	s.render(w, r, http.StatusOK, view.TaxSearchPage(p, v))
}

// showTaxParcelPage lists a parcel's property tax bills, newest roll first.
func (s *Server) showTaxParcelPage(w http.ResponseWriter, r *http.Request) {
	pc, err := s.ledger.Parcel(r.PathValue("parcel"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	bills, err := s.reads.TaxBillsOfParcel(pc.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.tax_parcel", "parcel", pc.ID)
	v := view.TaxParcel{Parcel: pc.ID, Address: pc.Address, County: pc.County.Title()}
	params := s.ledger.Params()
	for _, t := range bills {
		f, err := t.Figures(params)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.Bills = append(v.Bills, view.TaxRow{ID: t.ID, TaxYear: t.TaxYear, Total: f.Total, Balance: f.Balance, Status: f.Status, URL: taxBillURL(t.ID)})
	}
	s.render(w, r, http.StatusOK, view.TaxParcelPage(p, v))
}

// taxBill reads a tax bill and its parcel.
func (s *Server) taxBill(id string) (domain.TaxBill, domain.Parcel, error) {
	t, err := s.reads.TaxBill(id)
	if err != nil {
		return t, domain.Parcel{}, err
	}
	pc, err := s.ledger.Parcel(t.Parcel)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return t, pc, err
	}
	return t, pc, nil
}

// taxView maps a tax bill to its screen as of a day (today, or a
// payment's intake date), with the ways to pay it that are open that day.
func (s *Server) taxView(t domain.TaxBill, pc domain.Parcel, today domain.Date) (view.TaxBill, error) {
	f, err := t.Figures(s.ledger.Params())
	if err != nil {
		return view.TaxBill{}, err
	}
	v := view.TaxBill{
		ID: t.ID, Parcel: t.Parcel, Address: pc.Address, County: t.County.Title(), TaxYear: t.TaxYear,
		GeneralTax: t.GeneralTax, SpecialItems: t.SpecialItems, Figures: f, Payments: t.Payments,
		Today: today, Collects: t.VillageCollects(today, f), NotYet: today.Before(t.IssuedOn), IssuedOn: t.IssuedOn,
		Action: taxBillURL(t.ID) + "/pay", ParcelURL: taxParcelURL(t.Parcel),
	}
	if v.Collects {
		for _, o := range []domain.TaxOption{domain.TaxFull, domain.TaxFirstInstallment} {
			if a, ok := f.Amount(o); ok {
				v.Options = append(v.Options, view.TaxOption{Option: o, Amount: a})
			}
		}
		if lo, hi, ok := otherRange(f); ok {
			v.Other = &view.TaxOther{Min: lo, Max: hi}
		}
	}
	return v, nil
}

// taxOther is the kiosk's "another amount" choice on a tax bill. The
// ledger records such a payment as the option it amounts to (otherOption).
const taxOther domain.TaxOption = "other"

// otherRange returns the amounts a resident may pay on a tax bill besides
// the options, and whether there are any. Ch. 74 lets the village take the
// first installment or the whole bill by January 31; this kiosk reads it
// as allowing any amount in between while installments are allowed and
// the first installment is not yet paid: at least the rest of the first
// installment (less would leave it unpaid on its due date, which is not
// an installment) and at most the balance (more would be an overpayment
// to refund). Once the first installment is paid, the rest goes to the
// county treasurer or is paid in full here.
func otherRange(f domain.TaxFigures) (lo, hi domain.Money, ok bool) {
	if !f.InstallmentsAllowed || !f.FirstLeft.IsPositive() || !f.FirstLeft.LessThan(f.Balance) {
		return domain.Money{}, domain.Money{}, false
	}
	return f.FirstLeft, f.Balance, true
}

// otherOption is the option the ledger records for another amount a: the
// whole bill when it pays the balance, else the first installment (and
// part of the second, paid early).
func otherOption(a domain.Money, f domain.TaxFigures) domain.TaxOption {
	if !a.LessThan(f.Balance) {
		return domain.TaxFull
	}
	return domain.TaxFirstInstallment
}

// showTaxBillPage shows a property tax bill (Ch. 74): general tax, special
// items, the installments and who collects them, and the ways to pay it
// today (on a kiosk without a card terminal: what to pay at the clerk's
// window and what to bring).
func (s *Server) showTaxBillPage(w http.ResponseWriter, r *http.Request) {
	t, pc, err := s.taxBill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.taxView(t, pc, s.today())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.tax_bill", "year", fmt.Sprint(t.TaxYear))
	if len(v.Options) > 0 && !s.takesCards() {
		v.CardOff = taxCardOff(p, v)
	}
	s.render(w, r, http.StatusOK, view.TaxBillPage(p, v))
}

// submitTaxOption reads the chosen option (full payment or the first
// installment) and leads to the confirmation page, whose URL carries a new
// command id and a signature over bill, option, amount and id.
func (s *Server) submitTaxOption(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showTaxCardOff(w, r, r.PathValue("id"))
		return
	}
	t, pc, err := s.taxBill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.taxView(t, pc, s.today())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	opt := domain.TaxOption(r.PostForm.Get("option"))
	if opt == taxOther && v.Other != nil {
		s.submitTaxOther(w, r, t, v)
		return
	}
	for _, o := range v.Options {
		if o.Option == opt {
			f, err := s.newForm(r, taxPayments, t.ID, string(opt), o.Amount.String())
			if err != nil {
				s.fail(w, r, err)
				return
			}
			redirect(w, r, s.confirmURL(f))
			return
		}
	}
	s.showTaxNotPayable(w, r, v)
}

func (s *Server) showTaxNotPayable(w http.ResponseWriter, r *http.Request, v view.TaxBill) {
	p := s.page(r, taxBillURL(v.ID), "title.tax_bill", "year", fmt.Sprint(v.TaxYear))
	v.Problem = &view.Problem{Message: p.T("tax.error.not_payable"), Suggestion: p.T("tax.error.not_payable_hint", "county", v.County)}
	s.render(w, r, http.StatusConflict, view.TaxBillPage(p, v))
}

// taxPayments is the checkout of a property tax payment (Ch. 74,
// pay_property_tax): the option chosen on the bill's page, at the amount
// it had there, while the village treasurer collects.
var taxPayments = &checkout{
	kind:   domain.KindPayPropertyTax,
	title:  "title.confirm",
	fields: []string{"id", "option", "amount"},
	path:   "id",
	load:   (*Server).loadTaxPayment,
	urls: func(f checkoutForm) checkoutURLs {
		u := taxBillURL(f.get("id"))
		return checkoutURLs{confirm: u + "/confirm", charge: u + "/charge", change: u, back: u, backLabel: "tax.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) { s.showTaxCardOff(w, r, r.PathValue("id")) },
	receipt: (*Server).taxReceipt,
}

// taxPayment is a payment of one option on a tax bill, as its checkout form
// names it.
type taxPayment struct {
	s      *Server
	bill   domain.TaxBill
	parcel domain.Parcel
	option domain.TaxOption
	pay    domain.Money
	fig    domain.TaxFigures
}

func (s *Server) loadTaxPayment(f checkoutForm) (payable, error) {
	amount, err := domain.ParseMoney(f.get("amount"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	t, pc, err := s.taxBill(f.get("id"))
	if err != nil {
		return nil, err
	}
	fig, err := t.Figures(s.ledger.Params())
	if err != nil {
		return nil, err
	}
	return &taxPayment{s: s, bill: t, parcel: pc, option: domain.TaxOption(f.get("option")), pay: amount, fig: fig}, nil
}

func (p *taxPayment) amount() domain.Money { return p.pay }

func (p *taxPayment) attrs() []any { return []any{"tax_bill", p.bill.ID, "option", p.option} }

// paidBy finds the payment among the tax bill's.
func (p *taxPayment) paidBy(commandID string) (string, bool) {
	for _, pay := range p.bill.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuse shows the bill with a message when the option is not open at
// that amount on `at`'s day (paid meanwhile, or after January 31).
func (p *taxPayment) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	v, err := p.s.taxView(p.bill, p.parcel, at.Date)
	if err != nil {
		p.s.fail(w, r, err)
		return true
	}
	for _, o := range v.Options {
		if o.Option == p.option && o.Amount.Equal(p.pay) {
			return false
		}
	}
	if p.option == taxOther && v.Other != nil && !p.pay.LessThan(v.Other.Min) && !p.pay.GreaterThan(v.Other.Max) {
		return false
	}
	p.s.showTaxNotPayable(w, r, v)
	return true
}

// confirmation shows the option and its amount, and what the bill will
// owe after it (domain.TaxBill.PreviewPayment: the balance the receipt
// will show).
func (p *taxPayment) confirmation(pg view.Page, c chargeForm) (templ.Component, error) {
	after, err := p.bill.PreviewPayment(p.pay, p.s.ledger.Params())
	if err != nil {
		return nil, err
	}
	t := p.bill
	return view.TaxConfirmPage(pg, view.TaxConfirm{
		BillID: t.ID, Parcel: t.Parcel, Address: p.parcel.Address, County: t.County.Title(), TaxYear: t.TaxYear,
		Option: p.option, Amount: p.pay, Remaining: after.Balance, SecondDue: p.fig.SecondDueOn,
		CommandID: c.commandID, Signature: c.signature, Action: c.action, BackURL: c.change,
		Problem: c.problem, Simulator: c.simulator, Outcomes: c.outcomes,
	}), nil
}

func (p *taxPayment) payload(ref string, card *domain.CardShown) domain.Payload {
	opt := p.option
	if opt == taxOther {
		opt = otherOption(p.pay, p.fig)
	}
	return &domain.PayPropertyTax{TaxBillID: p.bill.ID, Option: opt, Amount: p.pay, Tender: domain.Card, Reference: ref, Card: card}
}

// taxReceipt fills in the roll year, county and option of a property tax
// receipt from its bill.
func (s *Server) taxReceipt(_ i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	t, err := s.reads.TaxBill(rc.BillID)
	if err != nil {
		return nil // the receipt still shows what was paid
	}
	v.TaxYear, v.County, v.Parcel = t.TaxYear, t.County.Title(), t.Parcel
	v.BillURL = taxBillURL(t.ID)
	for i, pay := range t.Payments {
		if pay.CommandID != rc.CommandID {
			continue
		}
		v.Option = pay.Option
		// Another amount is recorded as the first installment when it
		// pays less than the whole bill (otherOption); more than was left
		// of the first installment also paid part of the second.
		before := t
		before.Payments = t.Payments[:i]
		if fig, err := before.Figures(s.ledger.Params()); err == nil && pay.Option == domain.TaxFirstInstallment && pay.Amount.GreaterThan(fig.FirstLeft) {
			v.Option = taxFirstAndMore
		}
	}
	return nil
}

// taxFirstAndMore is how a receipt names another amount that paid the
// rest of the first installment and part of the second.
const taxFirstAndMore domain.TaxOption = "first_and_more"

// submitTaxOther reads another amount to pay on a tax bill, in the page's
// language, and leads to the confirmation; an amount outside otherRange
// shows the bill again with what is wrong and the amount as typed.
func (s *Server) submitTaxOther(w http.ResponseWriter, r *http.Request, t domain.TaxBill, v view.TaxBill) {
	p := s.page(r, taxBillURL(t.ID), "title.tax_bill", "year", fmt.Sprint(t.TaxYear))
	typed := r.PostForm.Get("amount")
	amount, bad := readAmount(typed, v.Other.Max, langFrom(r.Context()))
	if bad.msg == "" && amount.LessThan(v.Other.Min) {
		bad = amountProblem{"tax.error.other_min", "tax.error.other_min_hint"}
	}
	if bad.msg != "" {
		args := []string{"amount", typed, "balance", p.Money(v.Other.Max), "min", p.Money(v.Other.Min)}
		if bad.msg == "pay.error.too_much" {
			args[1] = p.Money(amount)
		}
		v.Other.Amount = typed
		v.Other.Problem = &view.Problem{Message: p.T(bad.msg, args...), Suggestion: p.T(bad.hint, args...)}
		s.render(w, r, http.StatusUnprocessableEntity, view.TaxBillPage(p, v))
		return
	}
	f, err := s.newForm(r, taxPayments, t.ID, string(taxOther), amount.String())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, s.confirmURL(f))
}
