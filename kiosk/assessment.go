package kiosk

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// A parcel's special assessments (§5.14) are found with its bills (its
// page lists them) and paid by card through the one checkout: the next
// installment, or all of it (pay_assessment). An assessment whose open
// installments are on the tax roll is paid with the property tax.

func assessmentURL(id string) string { return "/assessments/" + url.PathEscape(id) }

// assessmentRows lists the parcel's assessments with what each owes today.
func (s *Server) assessmentRows(parcel string) ([]view.AssessmentRow, error) {
	as, err := s.reads.AssessmentsOfParcel(parcel)
	if err != nil {
		return nil, err
	}
	today := s.today()
	var out []view.AssessmentRow
	for _, a := range as {
		f := a.Figures(today)
		out = append(out, view.AssessmentRow{ID: a.ID, Purpose: a.Purpose, Outstanding: f.Outstanding, Status: f.Status, URL: assessmentURL(a.ID)})
	}
	return out, nil
}

// assessment reads an assessment and its parcel.
func (s *Server) assessment(id string) (domain.Assessment, domain.Parcel, error) {
	a, err := s.reads.Assessment(id)
	if err != nil {
		return a, domain.Parcel{}, err
	}
	pc, err := s.ledger.Parcel(a.Parcel)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return a, pc, err
	}
	return a, pc, nil
}

// assessmentView maps an assessment to its screen as of a day, with the
// ways to pay it open that day.
func assessmentView(a domain.Assessment, pc domain.Parcel, on domain.Date) view.AssessmentBill {
	f := a.Figures(on)
	v := view.AssessmentBill{ID: a.ID, Project: a.Project, Purpose: a.Purpose, Parcel: a.Parcel, Address: pc.Address, LeviedOn: a.LeviedOn,
		Figures: f, Action: assessmentURL(a.ID) + "/pay", ParcelURL: parcelURL(a.Parcel)}
	for _, o := range []string{domain.PayInstallment, domain.PayInFull} {
		if amt, ok := f.Option(o); ok {
			v.Options = append(v.Options, view.AssessmentOption{Option: o, N: f.NextN, Amount: amt})
		}
	}
	return v
}

// assessmentCardOff is what the clerk's window needs for an assessment.
func assessmentCardOff(p view.Page, v view.AssessmentBill) *view.CardOff {
	c := &view.CardOff{Bring: []string{p.T("card_off.bring_assessment", "parcel", v.Parcel), p.T("card_off.bring_money")}}
	for _, o := range v.Options {
		c.Amounts = append(c.Amounts, view.Due{Label: p.T("assessment.option."+o.Option, "n", strconv.Itoa(o.N)), Amount: o.Amount})
	}
	return c
}

// showAssessmentPage shows an assessment and the ways to pay it today.
func (s *Server) showAssessmentPage(w http.ResponseWriter, r *http.Request) {
	a, pc, err := s.assessment(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, selfURL(r), "title.assessment", "parcel", a.Parcel)
	v := assessmentView(a, pc, s.today())
	if len(v.Options) > 0 && !s.takesCards() {
		v.CardOff = assessmentCardOff(p, v)
	}
	s.render(w, r, http.StatusOK, view.AssessmentPage(p, v))
}

// submitAssessmentOption leads from the chosen option to the confirmation
// page, whose URL carries a new command id and a signature over the
// assessment, the option, the amount and the id.
func (s *Server) submitAssessmentOption(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showAssessmentCardOff(w, r)
		return
	}
	a, pc, err := s.assessment(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := assessmentView(a, pc, s.today())
	opt := r.PostForm.Get("option")
	for _, o := range v.Options {
		if o.Option == opt {
			f, err := s.newForm(r, assessmentPayments, a.ID, o.Option, o.Amount.String())
			if err != nil {
				s.fail(w, r, err)
				return
			}
			redirect(w, r, s.confirmURL(f))
			return
		}
	}
	s.showAssessmentNotPayable(w, r, v)
}

func (s *Server) showAssessmentNotPayable(w http.ResponseWriter, r *http.Request, v view.AssessmentBill) {
	p := s.page(r, assessmentURL(v.ID), "title.assessment", "parcel", v.Parcel)
	v.Problem = &view.Problem{Message: p.T("assessment.error.not_payable"), Suggestion: p.T("assessment.error.not_payable_hint")}
	s.render(w, r, http.StatusConflict, view.AssessmentPage(p, v))
}

// showAssessmentCardOff answers every step of an assessment's checkout on
// a kiosk without a card terminal.
func (s *Server) showAssessmentCardOff(w http.ResponseWriter, r *http.Request) {
	a, pc, err := s.assessment(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := assessmentView(a, pc, s.today())
	if len(v.Options) == 0 {
		s.showProblem(w, r, http.StatusConflict, "assessment.error.not_payable", "assessment.error.not_payable_hint", assessmentURL(a.ID), "assessment.back")
		return
	}
	p := s.page(r, problemSelf(r), "title.card_off")
	s.showCardOff(w, r, p, assessmentCardOff(p, v), assessmentURL(a.ID), "assessment.back")
}

// assessmentPayments is the checkout of a special assessment
// (pay_assessment): the option chosen on its page, at the amount it had
// there.
var assessmentPayments = &checkout{
	kind:   domain.KindPayAssessment,
	title:  "title.confirm",
	fields: []string{"id", "option", "amount"},
	path:   "id",
	load:   (*Server).loadAssessmentPayment,
	urls: func(f checkoutForm) checkoutURLs {
		u := assessmentURL(f.get("id"))
		return checkoutURLs{confirm: u + "/confirm", charge: u + "/charge", change: u, back: u, backLabel: "assessment.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) { s.showAssessmentCardOff(w, r) },
	receipt: (*Server).assessmentReceipt,
}

// assessmentPayment is a payment of one option on an assessment, as its
// checkout form names it.
type assessmentPayment struct {
	s      *Server
	a      domain.Assessment
	parcel domain.Parcel
	option string
	pay    domain.Money
}

func (s *Server) loadAssessmentPayment(f checkoutForm) (payable, error) {
	amount, err := domain.ParseMoney(f.get("amount"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	a, pc, err := s.assessment(f.get("id"))
	if err != nil {
		return nil, err
	}
	return &assessmentPayment{s: s, a: a, parcel: pc, option: f.get("option"), pay: amount}, nil
}

func (p *assessmentPayment) amount() domain.Money { return p.pay }

func (p *assessmentPayment) attrs() []any { return []any{"assessment", p.a.ID, "option", p.option} }

func (p *assessmentPayment) paidBy(commandID string) (string, bool) {
	for _, pay := range p.a.Payments {
		if pay.CommandID == commandID {
			return pay.Receipt, true
		}
	}
	return "", false
}

// refuse shows the assessment with a message when the option is not open
// at that amount on `at`'s day (paid meanwhile, or on the tax roll).
func (p *assessmentPayment) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	v := assessmentView(p.a, p.parcel, at.Date)
	for _, o := range v.Options {
		if o.Option == p.option && o.Amount.Equal(p.pay) {
			return false
		}
	}
	p.s.showAssessmentNotPayable(w, r, v)
	return true
}

func (p *assessmentPayment) confirmation(pg view.Page, c chargeForm) (templ.Component, error) {
	f := p.a.Figures(p.s.today())
	return view.AssessmentConfirmPage(pg, view.AssessmentConfirm{
		ID: p.a.ID, Purpose: p.a.Purpose, Parcel: p.a.Parcel, Address: p.parcel.Address, Option: p.option, N: f.NextN,
		Amount: p.pay, Remaining: f.Outstanding.Sub(p.pay).Max(domain.Cents(0)),
		CommandID: c.commandID, Signature: c.signature, Action: c.action, BackURL: c.change,
		Problem: c.problem, Simulator: c.simulator, Outcomes: c.outcomes,
	}), nil
}

func (p *assessmentPayment) payload(ref string, card *domain.CardShown) domain.Payload {
	return &domain.PayAssessment{AssessmentID: p.a.ID, Option: p.option, Amount: p.pay, Tender: domain.Card, Reference: ref, Card: card}
}

// assessmentReceipt names the assessment on its receipt.
func (s *Server) assessmentReceipt(_ i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	a, err := s.reads.Assessment(rc.BillID)
	if err != nil {
		return nil // the receipt still shows what was paid
	}
	v.Description, v.Parcel, v.BillURL = a.Purpose, a.Parcel, assessmentURL(a.ID)
	return nil
}
