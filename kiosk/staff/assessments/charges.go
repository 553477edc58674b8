package assessments

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// chargeLines is how many lines the special charge form offers.
const chargeLines = 3

func (m *Module) showChargesPage(w http.ResponseWriter, r *http.Request) {
	v := Charges{NoticeForm: RepairForm{Method: domain.NoticePublication, Places: make([]string, 3)}, ChargeForm: ChargeForm{Category: domain.ChargeSnowIce, Lines: make([]CostInput, chargeLines)}}
	if b := r.URL.Query().Get("billed"); b != "" {
		if bill, err := m.o.Ledger().Bill(b); err == nil {
			v.Billed, v.BilledTotal = bill.ID, bill.Principal.String()
		}
	}
	m.chargesPage(w, r, http.StatusOK, v)
}

// chargesPage shows the repair notices and the forms.
func (m *Module) chargesPage(w http.ResponseWriter, r *http.Request, status int, v Charges) {
	ns, err := m.o.Reads().RepairNotices()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.CanWork = staff.Allowed(m.o.Who(r).Role, staff.CapSpecialCharges)
	for _, n := range ns {
		v.Notices = append(v.Notices, RepairRow{ID: n.ID, Category: n.Category, Parcels: strings.Join(n.Parcels, ", "), Description: n.Description, PublishedOn: n.PublishedOn.String(), MailedOn: n.MailedOn.String(),
			HearingOn: n.HearingOn.String(), HearingAt: n.HearingAt, HeldOn: dateOrEmpty(n.HeldOn), Decision: n.Decision, Open: n.HeldOn.IsZero()})
	}
	for _, c := range domain.SpecialChargeCategories() {
		o := Option{Value: c, Label: strings.TrimPrefix(domain.ChargeTitle(c), "Special charge: ")}
		v.Categories = append(v.Categories, o)
		if domain.RepairCategory(c) {
			v.Repairs = append(v.Repairs, o)
		}
	}
	m.o.Render(w, r, status, ChargesPage(m.o.Frame(r, "Special charges (§5.14(13))"), v))
}

func dateOrEmpty(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// submitRepairNotice records the notice of a repair hearing.
func (m *Module) submitRepairNotice(w http.ResponseWriter, r *http.Request) {
	f := RepairForm{ID: m.o.Form(r, "id"), Category: m.o.Form(r, "category"), Parcels: m.o.Form(r, "parcels"), Description: m.o.Form(r, "description"), Method: m.o.Form(r, "method"), Newspaper: m.o.Form(r, "newspaper"),
		PublishedOn: m.o.Form(r, "published_on"), MailedOn: m.o.Form(r, "mailed_on"), HearingOn: m.o.Form(r, "hearing_on"), HearingAt: m.o.Form(r, "hearing_at")}
	for i := 1; i <= 3; i++ {
		f.Places = append(f.Places, m.o.Form(r, fmt.Sprintf("place%d", i)))
	}
	in := &domain.RepairNoticeCmd{Op: "notice", ID: f.ID, Category: f.Category, Parcels: lines(f.Parcels), Description: f.Description, Method: f.Method, HearingAt: f.HearingAt}
	if in.Method == domain.NoticePosting {
		for _, pl := range f.Places {
			if pl != "" {
				in.Places = append(in.Places, pl)
			}
		}
	} else {
		in.Newspaper = f.Newspaper
	}
	var err error
	if in.PublishedOn, err = staff.ParseDate("The day of publication or posting", f.PublishedOn); err == nil {
		if in.MailedOn, err = staff.ParseDate("The day the copies were mailed", f.MailedOn); err == nil {
			if in.HearingOn, err = staff.ParseDate("The hearing date", f.HearingOn); err == nil {
				_, err = m.o.Submit(r, in)
			}
		}
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			m.chargesPage(w, r, status, Charges{Error: msg, ErrorForm: "notice", NoticeForm: f, ChargeForm: ChargeForm{Lines: make([]CostInput, chargeLines)}})
		})
		return
	}
	m.o.Redirect(w, r, "/staff/special-charges")
}

// submitRepairHearing records that a notice's hearing was held on its
// day, and the board's decision.
func (m *Module) submitRepairHearing(w http.ResponseWriter, r *http.Request) {
	n, err := m.o.Reads().RepairHearingNotice(r.PathValue("id"))
	if err == nil {
		_, err = m.o.Submit(r, &domain.RepairNoticeCmd{Op: "hearing", ID: n.ID, HeldOn: n.HearingOn, Decision: m.o.Form(r, "decision")})
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			m.chargesPage(w, r, status, Charges{Error: msg, ErrorForm: "notice", NoticeForm: RepairForm{Places: make([]string, 3)}, ChargeForm: ChargeForm{Lines: make([]CostInput, chargeLines)}})
		})
		return
	}
	m.o.Redirect(w, r, "/staff/special-charges")
}

// submitSpecialCharge bills a special charge to the property served.
func (m *Module) submitSpecialCharge(w http.ResponseWriter, r *http.Request) {
	f := ChargeForm{Category: m.o.Form(r, "category"), Account: m.o.Form(r, "account"), Parcel: m.o.Form(r, "parcel"), Notice: m.o.Form(r, "notice"), Reference: m.o.Form(r, "reference"), Installments: m.o.Form(r, "installments")}
	id := m.newID("SC")
	in := &domain.SpecialCharge{ChargeID: id, BillID: "B-" + strings.TrimPrefix(id, "SC-"), Category: f.Category, Account: f.Account, Parcel: f.Parcel, Notice: f.Notice, Reference: f.Reference}
	var err error
	for i := 1; i <= chargeLines; i++ {
		l := CostInput{Description: m.o.Form(r, fmt.Sprintf("desc%d", i)), Amount: m.o.Form(r, fmt.Sprintf("amount%d", i))}
		f.Lines = append(f.Lines, l)
		if l.Description == "" && l.Amount == "" || err != nil {
			continue
		}
		var amt domain.Money
		if amt, err = staff.ParseAmount(fmt.Sprintf("Line %d's amount", i), l.Amount); err == nil {
			in.Items = append(in.Items, domain.ChargeItem{Description: l.Description, Amount: amt})
		}
	}
	if err == nil {
		in.Installments, err = count("The number of installments", f.Installments)
	}
	if err == nil {
		_, err = m.o.Submit(r, in)
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			m.chargesPage(w, r, status, Charges{Error: msg, ErrorForm: "charge", ChargeForm: f, NoticeForm: RepairForm{Places: make([]string, 3)}})
		})
		return
	}
	m.o.Redirect(w, r, "/staff/special-charges?billed="+in.BillID)
}
