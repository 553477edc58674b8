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

// Room tax by card (§5.22, pay_room_tax): an operator pays toward a
// return it filed, named by the reference printed on the return
// ("belle-inn_2026-Q1"), through the one checkout. The kiosk stands in a
// public hallway and a return is confidential (§5.22(8)): it shows none
// of the return's figures, only the reference, its quarter and the amount
// the operator typed; the operator reads the balance on the staff portal.
// The payment applies to the tax first when the ledger computes the
// return's figures.

func roomTaxURL(ref string) string { return "/room-tax/" + url.PathEscape(ref) }

// roomTaxPayments is the checkout of a room tax payment.
var roomTaxPayments = &checkout{
	kind:   domain.KindPayRoomTax,
	title:  "title.confirm",
	fields: []string{"ref", "amount"},
	path:   "ref",
	load:   (*Server).loadRoomTaxPayment,
	urls: func(f checkoutForm) checkoutURLs {
		u := roomTaxURL(f.get("ref"))
		back := "/room-tax?" + url.Values{"ref": {f.get("ref")}, "amount": {f.get("amount")}}.Encode()
		return checkoutURLs{confirm: u + "/confirm", charge: u + "/charge", change: back, back: "/room-tax", backLabel: "roomtax.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) { s.showRoomTaxCardOff(w, r) },
	receipt: (*Server).roomTaxReceipt,
}

// showRoomTaxPage asks for the return's reference and the amount.
func (s *Server) showRoomTaxPage(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showRoomTaxCardOff(w, r)
		return
	}
	q := r.URL.Query()
	p := s.page(r, selfURL(r), "title.room_tax")
	s.render(w, r, http.StatusOK, view.RoomTaxPage(p, view.RoomTax{Action: "/room-tax", Ref: q.Get("ref"), Amount: q.Get("amount")}))
}

// submitRoomTax reads the reference and the amount and leads to the
// confirmation page. A reference of no return on record, or a bad amount,
// comes back with what is wrong; nothing is charged.
func (s *Server) submitRoomTax(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showRoomTaxCardOff(w, r)
		return
	}
	typedRef, typedAmount := strings.TrimSpace(r.PostForm.Get("ref")), strings.TrimSpace(r.PostForm.Get("amount"))
	p := s.page(r, "/room-tax", "title.room_tax")
	v := view.RoomTax{Action: "/room-tax", Ref: typedRef, Amount: typedAmount}
	bad := func(msg, hint string, args ...string) {
		v.Problem = &view.Problem{Message: p.T(msg, args...), Suggestion: p.T(hint, args...)}
		s.render(w, r, http.StatusUnprocessableEntity, view.RoomTaxPage(p, v))
	}
	// A reference of the wrong shape, and one that names no return (or
	// carries the wrong check code, domain/roomtaxpayref.go), each get
	// one answer: the kiosk never tells which operators filed what.
	ref, err := domain.ParsePaymentReference(typedRef)
	if err != nil {
		bad("roomtax.error.ref", "roomtax.error.ref_hint", "ref", typedRef)
		return
	}
	if _, err := s.reads.RoomTaxReturnByPaymentReference(ref); err != nil {
		if domain.ErrorCode(err) != domain.ENOTFOUND {
			s.fail(w, r, err)
			return
		}
		bad("roomtax.error.none", "roomtax.error.none_hint", "ref", ref)
		return
	}
	limit := s.ledger.Params().At(s.today()).PaymentLimit
	amount, problem := readAmount(typedAmount, limit, langFrom(r.Context()))
	if problem.msg == "pay.error.too_much" {
		bad("roomtax.error.limit", "roomtax.error.limit_hint", "limit", p.Money(limit))
		return
	}
	if problem.msg != "" {
		bad(problem.msg, problem.hint, "amount", typedAmount, "balance", p.Money(limit))
		return
	}
	f, err := s.newForm(r, roomTaxPayments, ref, amount.String())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, s.confirmURL(f))
}

// roomTaxPayment is a payment toward a return, as its checkout form names
// it.
type roomTaxPayment struct {
	s   *Server
	ret domain.QuarterlyReturn
	pay domain.Money
}

func (s *Server) loadRoomTaxPayment(f checkoutForm) (payable, error) {
	amount, err := domain.ParseMoney(f.get("amount"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	ret, err := s.reads.RoomTaxReturnByPaymentReference(f.get("ref"))
	if err != nil {
		return nil, err
	}
	return &roomTaxPayment{s: s, ret: ret, pay: amount}, nil
}

func (p *roomTaxPayment) amount() domain.Money { return p.pay }

func (p *roomTaxPayment) attrs() []any { return []any{"room_tax_return", p.ret.ID} }

// paidBy finds the payment among the return's.
func (p *roomTaxPayment) paidBy(commandID string) (string, bool) {
	for _, pay := range p.ret.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuse refuses an amount the ledger would not take on `at`'s day (over
// the payment limit in force).
func (p *roomTaxPayment) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	if err := domain.CheckPaymentAmount(p.pay, at.Date, p.s.ledger.Params()); err != nil {
		p.s.showProblem(w, r, http.StatusConflict, "roomtax.error.limit", "roomtax.error.limit_hint", "/room-tax", "roomtax.back",
			"limit", p.s.ledger.Params().At(at.Date).PaymentLimit.String())
		return true
	}
	return false
}

// confirmation shows the reference, its quarter and the amount: nothing of
// the return's figures.
func (p *roomTaxPayment) confirmation(pg view.Page, c chargeForm) (templ.Component, error) {
	return view.RoomTaxConfirmPage(pg, view.RoomTaxConfirm{
		Ref: p.ret.ID, Period: p.ret.Period.String(), Amount: p.pay,
		CommandID: c.commandID, Signature: c.signature, Action: c.action, ChangeURL: c.change,
		Problem: c.problem, Simulator: c.simulator, Outcomes: c.outcomes,
	}), nil
}

func (p *roomTaxPayment) payload(ref string, card *domain.CardShown) domain.Payload {
	return &domain.PayRoomTax{Return: p.ret.ID, Amount: p.pay, Reference: ref, Card: card}
}

// roomTaxReceipt names the return a receipt paid toward.
func (s *Server) roomTaxReceipt(_ i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	if _, q, err := domain.ParseQuarterlyReturnID(rc.BillID); err == nil {
		v.Description = q.String()
	}
	return nil
}

// showRoomTaxCardOff answers every step of the room tax checkout on a
// kiosk without a card terminal: the treasurer's window takes cash and
// checks.
func (s *Server) showRoomTaxCardOff(w http.ResponseWriter, r *http.Request) {
	p := s.page(r, "/room-tax", "title.card_off")
	s.showCardOff(w, r, p, &view.CardOff{Bring: []string{p.T("card_off.bring_room_tax"), p.T("card_off.bring_money")}}, "/", "layout.start_over")
}
