package assessments

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// assessmentView maps an assessment to its page as of today.
func (m *Module) assessmentView(r *http.Request, a domain.Assessment) Assessment {
	today := m.o.Today()
	f := a.Figures(today)
	pc := m.parcelOf(a.Parcel)
	role := m.o.Who(r).Role
	v := Assessment{ID: a.ID, Project: a.Project, ProjectURL: "/staff/assessments/" + a.Project, Parcel: a.Parcel, Address: pc.Address, Owner: pc.Owner, Purpose: a.Purpose,
		Levied: a.Levied.String(), Amount: a.Amount.String(), LeviedOn: a.LeviedOn.String(), Rate: a.InterestRate.Percent(), Damages: a.Damages.String(), Benefits: a.Benefits.String(),
		Outstanding: f.Outstanding.String(), Payable: f.Payable.String(), Next: f.Next.String(), PastDue: f.PastDue.String(), Deferred: f.Deferred.String(), Status: f.Status, Cancelled: a.Cancelled,
		CanAppeal: staff.Allowed(role, staff.CapAssessmentClerk), CanPay: staff.Allowed(role, staff.CapWindow) && f.Payable.IsPositive(),
		AppealForm: AppealForm{On: today.String()}}
	if p, err := m.o.Reads().AssessmentProject(a.Project); err == nil && p.Final != nil {
		v.AppealBy = p.Final.AppealBy.String()
	}
	for _, l := range a.Lines {
		v.Lines = append(v.Lines, AssessmentLine{Improvement: l.Improvement, Amount: l.Assessment.String(), VillagePays: l.VillagePays.String(), Separate: l.Separate})
	}
	for _, in := range f.Installments {
		row := InstallmentRow{N: strconv.Itoa(in.N), DueOn: in.DueOn.String(), Principal: in.Principal.String(), Interest: in.Scheduled.String(), Paid: in.PrincipalPaid.Add(in.InterestPaid).String(), Left: in.Left.String(), Status: installmentStatus[in.Status]}
		if !in.InterestFrom.IsZero() && in.Scheduled.IsPositive() {
			row.InterestFrom = "owed from " + in.InterestFrom.String()
		}
		if in.TaxRollYear > 0 {
			row.TaxRoll = "(certified " + strconv.Itoa(in.TaxRollYear) + ")"
		}
		if in.Payable() && staff.Allowed(role, staff.CapReadAssessments) {
			base := "/staff/assessment/" + url.PathEscape(a.ID) + "/installments/" + row.N
			row.BillURL = base + "/bill.pdf"
			if in.Status == domain.InstallmentPastDue {
				row.NoticeURL = base + "/notice.pdf"
			}
		}
		v.Installments = append(v.Installments, row)
	}
	for _, p := range a.Payments {
		row := PaymentRow{Receipt: p.Receipt, At: p.At.String(), Amount: p.Amount.String(), Tender: string(p.Tender), Option: p.Option, Overpayment: p.Overpayment.String(), URL: "/staff/receipts/" + p.Receipt}
		interest, principal := domain.Cents(0), domain.Cents(0)
		for _, al := range p.Allocation {
			interest, principal = interest.Add(al.Interest), principal.Add(al.Principal)
		}
		row.Interest, row.Principal = interest.String(), principal.String()
		v.Payments = append(v.Payments, row)
	}
	for _, c := range a.Changes {
		v.Changes = append(v.Changes, ChangeRow{Op: c.Op, On: c.On.String(), Before: c.From.String(), After: c.To.String(), Refunds: c.Refund.String()})
	}
	for _, x := range a.Appeals {
		row := AppealRow{FiledOn: x.FiledOn.String(), Reference: x.Reference, State: x.State}
		if !x.DismissedOn.IsZero() {
			row.DismissedOn = x.DismissedOn.String()
		}
		v.Appeals = append(v.Appeals, row)
	}
	return v
}

func (m *Module) showAssessmentPage(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, http.StatusOK, AssessmentPage(m.o.Frame(r, "Special assessment "+a.Parcel+" ("+a.Project+")"), m.assessmentView(r, a)))
}

// submitAppeal records an appeal filed, or its dismissal on default
// (§5.14(11)).
func (m *Module) submitAppeal(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	in := &domain.AssessmentAppeal{Op: m.o.Form(r, "op"), AssessmentID: a.ID, Reference: m.o.Form(r, "reference")}
	if in.On, err = staff.ParseDate("The date", m.o.Form(r, "on")); err == nil {
		_, err = m.o.Submit(r, in)
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			v := m.assessmentView(r, a)
			v.Error, v.AppealForm = msg, AppealForm{Op: in.Op, On: m.o.Form(r, "on"), Reference: in.Reference}
			m.o.Render(w, r, status, AssessmentPage(m.o.Frame(r, "Special assessment "+a.Parcel+" ("+a.Project+")"), v))
		})
		return
	}
	m.o.Redirect(w, r, "/staff/assessment/"+a.ID)
}

// payOptions lists the ways to pay an assessment today.
func payOptions(f domain.AssessmentFigures) []PayOption {
	var out []PayOption
	if amt, ok := f.Option(domain.PayInstallment); ok {
		out = append(out, PayOption{Option: domain.PayInstallment, Label: "Installment " + strconv.Itoa(f.NextN), Amount: amt.String()})
	}
	if amt, ok := f.Option(domain.PayInFull); ok {
		out = append(out, PayOption{Option: domain.PayInFull, Label: "In full", Amount: amt.String()})
	}
	return out
}

func (m *Module) showWindowPage(w http.ResponseWriter, r *http.Request) {
	m.windowPage(w, r, http.StatusOK, Window{Tender: "cash"})
}

// windowPage shows an assessment with the window's payment form, when the
// cashier has a drawer open.
func (m *Module) windowPage(w http.ResponseWriter, r *http.Request, status int, v Window) {
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	d, open, err := m.o.Reads().OpenDrawer(m.o.Who(r).Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.Assessment, v.Open, v.DrawerID = m.assessmentView(r, a), open, d.ID
	f := a.Figures(m.o.Today())
	v.Options = payOptions(f)
	if v.Amount == "" && len(v.Options) > 0 {
		v.Amount = v.Options[0].Amount
	}
	m.o.Render(w, r, status, WindowPage(m.o.Frame(r, "Window: special assessment "+a.Parcel), v))
}

// submitWindowPayment takes cash or a check on an assessment into the
// cashier's open drawer and shows the receipt with the change due.
func (m *Module) submitWindowPayment(w http.ResponseWriter, r *http.Request) {
	v := Window{Amount: m.o.Form(r, "amount"), Tender: m.o.Form(r, "tender"), Tendered: m.o.Form(r, "tendered"), Reference: m.o.Form(r, "reference"), Payer: m.o.Form(r, "payer")}
	d, open, err := m.o.Reads().OpenDrawer(m.o.Who(r).Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !open {
		v.Error = "Open your drawer before taking payments."
		m.windowPage(w, r, http.StatusConflict, v)
		return
	}
	in := &domain.WindowAssessmentPayment{DrawerID: d.ID, AssessmentID: r.PathValue("id"), Tender: domain.Tender(v.Tender), Reference: v.Reference, Payer: v.Payer}
	a, err := m.o.Reads().Assessment(in.AssessmentID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if in.Amount, err = staff.ParseAmount("The amount", v.Amount); err == nil {
		in.Tendered = in.Amount
		if in.Tender == domain.Cash && strings.TrimSpace(v.Tendered) != "" {
			in.Tendered, err = staff.ParseAmount("The cash handed over", v.Tendered)
		}
	}
	for _, o := range payOptions(a.Figures(m.o.Today())) {
		if o.Amount == in.Amount.String() && in.Option == "" {
			in.Option = o.Option
		}
	}
	var res domain.Result
	if err == nil {
		res, err = m.o.Submit(r, in)
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			v.Error = msg
			m.windowPage(w, r, status, v)
		})
		return
	}
	m.o.Redirect(w, r, "/staff/receipts/"+res.Receipt.Number+"?drawer="+d.ID)
}
