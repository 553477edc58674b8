package purchasing

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The Purchasing Agent's other records: requisitions and estimates of
// requirements (§5.12(3)), surplus stock (§5.12(9)), the rules of
// purchasing (§5.12(10)) and employment drawn against appropriations
// (§5.16).

// requisitionRows is how many items the requisition form offers.
const requisitionRows = 5

func (m *Module) showRequisitions(w http.ResponseWriter, r *http.Request) {
	m.requisitionsPage(w, r, http.StatusOK, requisitionForm{Type: "requisition", Category: string(domain.CategorySupplies)})
}

func (m *Module) unitOf(r *http.Request) (string, error) {
	who := m.o.Who(r)
	if who.Role != domain.RoleDepartmentHead {
		return "", nil
	}
	u, err := m.o.Reads().StaffUser(who.Username)
	return u.Unit, err
}

func (m *Module) requisitionsPage(w http.ResponseWriter, r *http.Request, status int, f requisitionForm) {
	year := m.queryYear(r)
	rs, err := m.o.Reads().Requisitions(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	unit, err := m.unitOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if f.Unit == "" {
		f.Unit = unit
	}
	for len(f.Items) < requisitionRows {
		f.Items = append(f.Items, itemForm{})
	}
	v := requisitionsView{Year: year, Form: f, CanFile: staff.Allowed(m.o.Who(r).Role, staff.CapPurchasing)}
	for _, x := range slices.Backward(rs) {
		row := requisitionRow{ID: x.ID, Unit: x.Unit, Type: x.Type, Period: x.Period, Category: string(x.Category), Total: dollars(x.Total()), Filed: x.Filed.String(), By: x.FiledBy}
		for _, it := range x.Items {
			row.Items = append(row.Items, strconv.Itoa(it.Quantity)+" × "+it.Description+" ("+dollars(it.Estimated)+")")
		}
		v.Requisitions = append(v.Requisitions, row)
	}
	m.o.Render(w, r, status, requisitionsPage(m.o.Frame(r, "Requisitions and estimates"), v))
}

func (m *Module) submitRequisition(w http.ResponseWriter, r *http.Request) {
	f := requisitionForm{Unit: m.o.Form(r, "unit"), Type: m.o.Form(r, "type"), Period: m.o.Form(r, "period"), Category: m.o.Form(r, "category"), NeededBy: m.o.Form(r, "needed_by")}
	err := func() error {
		rq := domain.Requisition{Unit: f.Unit, Type: f.Type, Period: f.Period, Category: domain.Category(f.Category)}
		if f.NeededBy != "" {
			d, err := staff.ParseDate("The day it is needed", f.NeededBy)
			if err != nil {
				return err
			}
			rq.NeededBy = d
		}
		for i := range requisitionRows {
			n := strconv.Itoa(i)
			it := itemForm{Description: m.o.Form(r, "item-"+n), Quantity: m.o.Form(r, "quantity-"+n), Estimated: m.o.Form(r, "estimated-"+n)}
			f.Items = append(f.Items, it)
			if it == (itemForm{}) {
				continue
			}
			q, err := strconv.Atoi(it.Quantity)
			if err != nil {
				return domain.Errorf(domain.EINVALID, "", "Item %d: the quantity is a whole number; got %q.", i+1, it.Quantity)
			}
			est, err := staff.ParseAmount("Item "+strconv.Itoa(i+1)+": the estimated cost", orZero(it.Estimated))
			if err != nil {
				return err
			}
			rq.Items = append(rq.Items, domain.RequisitionItem{Description: it.Description, Quantity: q, Estimated: est})
		}
		_, err := m.o.Submit(r, &rq)
		return err
	}()
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			f.Error = msg
			m.requisitionsPage(w, r, status, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/requisitions")
}

func orZero(s string) string {
	if s == "" {
		return "0.00"
	}
	return s
}

func (m *Module) showSurplus(w http.ResponseWriter, r *http.Request) {
	m.surplusPage(w, r, http.StatusOK, "")
}

func (m *Module) surplusPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	year := m.queryYear(r)
	rs, err := m.o.Reads().SurplusReports(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	unit, err := m.unitOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	v := surplusView{Year: year, Error: problem, Unit: unit, CanReport: staff.Allowed(who.Role, staff.CapPurchasing), CanDispose: who.Role == domain.RoleAdministrator, Today: m.o.Today().String()}
	for _, x := range slices.Backward(rs) {
		row := surplusRow{ID: x.ID, Unit: x.Unit, Reported: x.Reported.String(), By: x.By}
		for i, it := range x.Items {
			iv := surplusItemView{Index: i, Description: it.Description, Quantity: it.Quantity, Condition: it.Condition}
			switch {
			case it.Transfer != nil:
				iv.Outcome = "transferred to " + it.Transfer.To + " on " + it.Transfer.At.Date.String()
			case it.Sale != nil:
				iv.Outcome = "sold to " + it.Sale.Buyer + " for " + dollars(it.Sale.Price) + " on " + it.Sale.On.String() + " (" + it.Sale.Authorization + ")"
			}
			row.Items = append(row.Items, iv)
		}
		v.Reports = append(v.Reports, row)
	}
	m.o.Render(w, r, status, surplusPage(m.o.Frame(r, "Surplus stock"), v))
}

func (m *Module) submitSurplus(w http.ResponseWriter, r *http.Request) {
	op := m.o.Form(r, "op")
	err := func() error {
		p := domain.SurplusChange{Op: op, Unit: m.o.Form(r, "unit"), Report: m.o.Form(r, "report"), To: m.o.Form(r, "to")}
		if s := m.o.Form(r, "item"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return domain.Errorf(domain.EINVALID, "", "Choose the item.")
			}
			p.Item = n
		}
		switch op {
		case "report":
			for _, line := range strings.Split(m.o.Form(r, "items"), "\n") {
				// "quantity | description | condition"
				parts := strings.Split(line, "|")
				if strings.TrimSpace(line) == "" {
					continue
				}
				if len(parts) != 3 {
					return domain.Errorf(domain.EINVALID, "", "Write each item on its own line as: quantity | description | condition; got %q.", strings.TrimSpace(line))
				}
				q, err := strconv.Atoi(strings.TrimSpace(parts[0]))
				if err != nil {
					return domain.Errorf(domain.EINVALID, "", "The quantity of %q is a whole number.", strings.TrimSpace(parts[1]))
				}
				p.Items = append(p.Items, domain.SurplusItem{Quantity: q, Description: strings.TrimSpace(parts[1]), Condition: strings.TrimSpace(parts[2])})
			}
		case "sell":
			on, err := staff.ParseDate("The day of the sale", m.o.Form(r, "on"))
			if err != nil {
				return err
			}
			s := &domain.SurplusSale{Authorization: m.o.Form(r, "authorization"), Buyer: m.o.Form(r, "buyer"), On: on}
			if s.Price, err = staff.ParseAmount("The price", m.o.Form(r, "price")); err != nil {
				return err
			}
			for _, line := range strings.Split(m.o.Form(r, "bids"), "\n") {
				// "bidder | amount"
				if strings.TrimSpace(line) == "" {
					continue
				}
				name, amount, ok := strings.Cut(line, "|")
				if !ok {
					return domain.Errorf(domain.EINVALID, "", "Write each bid on its own line as: bidder | amount; got %q.", strings.TrimSpace(line))
				}
				a, err := staff.ParseAmount("The bid of "+strings.TrimSpace(name), amount)
				if err != nil {
					return err
				}
				s.Bids = append(s.Bids, domain.OrderBid{Vendor: strings.TrimSpace(name), Amount: a, Received: on})
			}
			p.Sale = s
		}
		_, err := m.o.Submit(r, &p)
		return err
	}()
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			m.surplusPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/surplus")
}

func (m *Module) showRules(w http.ResponseWriter, r *http.Request) {
	m.rulesPage(w, r, http.StatusOK, "")
}

func (m *Module) rulesPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	vs, err := m.o.Reads().PurchasingRules()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := rulesView{Error: problem, CanEdit: staff.Allowed(m.o.Who(r).Role, staff.CapPurchasingRules), Today: m.o.Today().String()}
	if in, ok := domain.InForce(vs); ok {
		v.InForce, v.InForceText, v.InForceApproval = in.Version, in.Text, in.Approval+" on "+in.ApprovedOn.String()
	}
	for _, x := range slices.Backward(vs) {
		row := rulesRow{Version: x.Version, Text: x.Text, Drafted: x.Drafted.String(), By: x.DraftedBy}
		if !x.ApprovedOn.IsZero() {
			row.Approved = x.Approval + " on " + x.ApprovedOn.String()
		}
		v.Versions = append(v.Versions, row)
		if len(vs) > 0 && v.Draft == "" {
			v.Draft = x.Text
		}
	}
	m.o.Render(w, r, status, rulesPage(m.o.Frame(r, "Rules of purchasing"), v))
}

func (m *Module) submitRules(w http.ResponseWriter, r *http.Request) {
	err := func() error {
		p := domain.PurchasingRulesChange{Op: m.o.Form(r, "op"), Text: strings.TrimSpace(r.PostForm.Get("text")), Approval: m.o.Form(r, "approval")}
		if p.Op == "approve" {
			n, err := strconv.Atoi(m.o.Form(r, "version"))
			if err != nil {
				return domain.Errorf(domain.EINVALID, "", "Choose the version the board approved.")
			}
			p.Version = n
			if p.ApprovedOn, err = staff.ParseDate("The day of the board's approval", m.o.Form(r, "approved_on")); err != nil {
				return err
			}
		}
		_, err := m.o.Submit(r, &p)
		return err
	}()
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			m.rulesPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/purchasing-rules")
}

func (m *Module) showEmployment(w http.ResponseWriter, r *http.Request) {
	m.employmentPage(w, r, http.StatusOK, employmentForm{From: m.o.Today().String()})
}

func (m *Module) employmentPage(w http.ResponseWriter, r *http.Request, status int, f employmentForm) {
	year := m.queryYear(r)
	es, err := m.o.Reads().Employments(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := employmentView{Year: year, Form: f, CanRecord: staff.Allowed(m.o.Who(r).Role, staff.CapEmployment)}
	for _, e := range es {
		v.Employments = append(v.Employments, employmentRow{ID: e.ID, Line: e.Line, Person: e.Person, Position: e.Position, Amount: dollars(e.Amount), Charged: dollars(e.Charged),
			From: e.From.String(), To: dateOf(e.To), Approval: e.Approval + " (" + e.ApprovedOn.String() + ")"})
	}
	m.o.Render(w, r, status, employmentPage(m.o.Frame(r, "Employment (§5.16)"), v))
}

func (m *Module) submitEmployment(w http.ResponseWriter, r *http.Request) {
	f := employmentForm{Line: m.o.Form(r, "line"), Person: m.o.Form(r, "person"), Position: m.o.Form(r, "position"), Amount: m.o.Form(r, "amount"),
		From: m.o.Form(r, "from"), To: m.o.Form(r, "to"), Approval: m.o.Form(r, "approval"), ApprovedOn: m.o.Form(r, "approved_on")}
	err := func() error {
		e := domain.Employment{Line: f.Line, Person: f.Person, Position: f.Position, Approval: f.Approval}
		var err error
		if e.Amount, err = staff.ParseAmount("The cost", f.Amount); err != nil {
			return err
		}
		if e.From, err = staff.ParseDate("The first day", f.From); err != nil {
			return err
		}
		if f.To != "" {
			if e.To, err = staff.ParseDate("The last day", f.To); err != nil {
				return err
			}
		}
		if f.ApprovedOn != "" {
			if e.ApprovedOn, err = staff.ParseDate("The day of the board's approval", f.ApprovedOn); err != nil {
				return err
			}
		}
		_, err = m.o.Submit(r, &e)
		return err
	}()
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			f.Error = msg
			m.employmentPage(w, r, status, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/employment")
}
