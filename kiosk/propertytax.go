package kiosk

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/villagehall/appliance/domain"
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
	found, err := s.findParcels(v.Query)
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
	bills, err := domain.TaxBillsOfParcel(s.ledger, pc.ID)
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
	var t domain.TaxBill
	if err := s.ledger.Get(domain.TaxBills, id, &t); err != nil {
		return t, domain.Parcel{}, err
	}
	pc, err := s.ledger.Parcel(t.Parcel)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return t, pc, err
	}
	return t, pc, nil
}

// taxView maps a tax bill to its screen as of today, with the ways to pay
// it that are open today.
func (s *Server) taxView(t domain.TaxBill, pc domain.Parcel) (view.TaxBill, error) {
	f, err := t.Figures(s.ledger.Params())
	if err != nil {
		return view.TaxBill{}, err
	}
	today := s.today()
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
	}
	return v, nil
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
	v, err := s.taxView(t, pc)
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
	v, err := s.taxView(t, pc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	opt := domain.TaxOption(r.PostForm.Get("option"))
	for _, o := range v.Options {
		if o.Option == opt {
			id, err := uuid.NewV7()
			if err != nil {
				s.fail(w, r, err)
				return
			}
			redirect(w, r, s.taxConfirmURL(taxForm{BillID: t.ID, Option: opt, Amount: o.Amount, CommandID: id.String(), Session: sessionFrom(r.Context())}))
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

// taxForm is what a property tax confirmation carries, signed for the
// session it was made for (see paymentForm).
type taxForm struct {
	BillID    string
	Option    domain.TaxOption
	Amount    domain.Money
	CommandID string
	Session   string
}

func (s *Server) signTax(f taxForm) string {
	return mac(s.keys.form, string(domain.KindPayPropertyTax), f.BillID, string(f.Option), f.Amount.String(), f.CommandID, f.Session)
}

func (s *Server) taxConfirmURL(f taxForm) string {
	q := url.Values{}
	q.Set("option", string(f.Option))
	q.Set("amount", f.Amount.String())
	q.Set("cmd", f.CommandID)
	q.Set("sig", s.signTax(f))
	return taxBillURL(f.BillID) + "/confirm?" + q.Encode()
}

func (s *Server) verifyTax(r *http.Request, billID, option, amount, cmd, sig string) (taxForm, bool) {
	m, err := domain.ParseMoney(amount)
	f := taxForm{BillID: billID, Option: domain.TaxOption(option), Amount: m, CommandID: cmd, Session: sessionFrom(r.Context())}
	if err != nil || m.String() != amount || billID == "" || cmd == "" || len(cmd) > 64 || !f.Option.Valid() || f.Session == "" {
		return f, false
	}
	return f, equal(s.signTax(f), sig)
}

// paidTax returns the receipt of the payment command id made on t.
func paidTax(t domain.TaxBill, commandID string) (string, bool) {
	for _, pay := range t.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// showTaxConfirmPage shows the payment before the card is charged.
func (s *Server) showTaxConfirmPage(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showTaxCardOff(w, r, r.PathValue("id"))
		return
	}
	q := r.URL.Query()
	f, ok := s.verifyTax(r, r.PathValue("id"), q.Get("option"), q.Get("amount"), q.Get("cmd"), q.Get("sig"))
	if !ok {
		s.refuseTampered(w, r)
		return
	}
	t, pc, err := s.taxBill(f.BillID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc, ok := paidTax(t, f.CommandID); ok {
		redirect(w, r, s.receiptURL(r, rc))
		return
	}
	s.renderTaxConfirm(w, r, http.StatusOK, t, pc, f, nil)
}

// renderTaxConfirm shows the confirmation of f, or the bill with a message
// when the option is no longer open at that amount (paid meanwhile, or
// after January 31).
func (s *Server) renderTaxConfirm(w http.ResponseWriter, r *http.Request, status int, t domain.TaxBill, pc domain.Parcel, f taxForm, problem *view.Problem) {
	v, err := s.taxView(t, pc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	open := false
	for _, o := range v.Options {
		open = open || (o.Option == f.Option && o.Amount.Equal(f.Amount))
	}
	if !open {
		s.showTaxNotPayable(w, r, v)
		return
	}
	p := s.page(r, s.taxConfirmURL(f), "title.confirm")
	c := view.TaxConfirm{
		BillID: t.ID, Parcel: t.Parcel, Address: pc.Address, County: t.County.Title(), TaxYear: t.TaxYear,
		Option: f.Option, Amount: f.Amount, Remaining: v.Figures.Balance.Sub(f.Amount), SecondDue: v.Figures.SecondDueOn,
		CommandID: f.CommandID, Signature: s.signTax(f), Action: taxBillURL(t.ID) + "/charge", BackURL: taxBillURL(t.ID),
		Problem: problem, Simulator: s.sim != nil,
	}
	if c.Simulator {
		c.Outcomes = outcomes()
	}
	s.render(w, r, status, view.TaxConfirmPage(p, c))
}

// submitTaxCharge takes the property tax payment the confirmation showed,
// as submitCharge does for a village bill: signature, command stamped
// before the card is charged, the card charged keyed by the command id,
// the pay_property_tax command recorded, the receipt shown.
func (s *Server) submitTaxCharge(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showTaxCardOff(w, r, r.PathValue("id"))
		return
	}
	f, ok := s.verifyTax(r, r.PathValue("id"), r.PostForm.Get("option"), r.PostForm.Get("amount"), r.PostForm.Get("command_id"), r.PostForm.Get("sig"))
	if !ok {
		s.refuseTampered(w, r)
		return
	}
	t, pc, err := s.taxBill(f.BillID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc, ok := paidTax(t, f.CommandID); ok {
		redirect(w, r, s.receiptURL(r, rc))
		return
	}
	v, err := s.taxView(t, pc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	open := false
	for _, o := range v.Options {
		open = open || (o.Option == f.Option && o.Amount.Equal(f.Amount))
	}
	if !open {
		s.showTaxNotPayable(w, r, v)
		return
	}
	cmd, err := s.ledger.NewCommand(domain.KindPayPropertyTax, "kiosk")
	if err != nil {
		s.fail(w, r, fmt.Errorf("new pay_property_tax command: %w", err))
		return
	}
	cmd.ID = f.CommandID
	approval, err := s.charge(r, f.CommandID, f.Amount)
	if err != nil {
		if !isTerminalOutcome(err) {
			err = chargeError{err}
		}
		status, msg, hint := errorStatus(err)
		s.log.Info("card not charged", "kind", cmd.Kind, "tax_bill", f.BillID, "command", f.CommandID, "amount", f.Amount, "err", err)
		p := s.page(r, s.taxConfirmURL(f), "title.confirm")
		s.renderTaxConfirm(w, r, status, t, pc, f, &view.Problem{Message: p.T(msg), Suggestion: p.T(hint)})
		return
	}
	cmd.Payload = &domain.PayPropertyTax{TaxBillID: f.BillID, Option: f.Option, Amount: f.Amount, Tender: domain.Card, Reference: approval.Reference}
	rc, readBack, err := s.record(r, cmd)
	if err != nil {
		s.log.Error("card charged but property tax payment not recorded", "tax_bill", f.BillID, "command", f.CommandID, "amount", f.Amount, "approval", approval.Reference, "err", err)
		s.showProblem(w, r, http.StatusBadGateway, "charge.not_recorded", "charge.not_recorded_hint", taxBillURL(f.BillID), "tax.back", "ref", approval.Reference)
		return
	}
	s.log.Info("property tax paid", "receipt", rc.Number, "status", rc.Status, "tax_bill", f.BillID, "option", f.Option, "command", rc.CommandID, "amount", rc.Amount, "approval", approval.Reference)
	s.showRecorded(w, r, rc, readBack)
}
