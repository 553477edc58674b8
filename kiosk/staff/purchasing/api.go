package purchasing

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Purchasing's API (/api/v1/): lists, and every change as a
// CommandRequest with the client's command id.

func (m *Module) apiOrders(w http.ResponseWriter, r *http.Request) {
	year := m.queryYear(r)
	os, err := m.o.Reads().Orders(year)
	m.o.Answer(w, map[string]any{"year": year, "orders": staff.NonNil(os)}, err)
}

func (m *Module) apiOrder(w http.ResponseWriter, r *http.Request) {
	o, err := m.o.Reads().Order(r.PathValue("id"))
	m.o.Answer(w, o, err)
}

// apiOrderChange serves POST /api/v1/orders: every step of an order (op
// create, notice, bid, award, issue, cancel) as an OrderChange.
func (m *Module) apiOrderChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.OrderChange](m.o, w, r, "an order", nil)
}

func (m *Module) apiCertify(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a certification of funds", func(p *domain.CertifyFunds) error {
		if p.Order != "" && p.Order != r.PathValue("id") {
			return domain.Errorf(domain.EINVALID, "", "The command is for order %s but the path is for %s.", p.Order, r.PathValue("id"))
		}
		p.Order = r.PathValue("id")
		return nil
	})
}

func (m *Module) apiReceipt(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a delivery", func(p *domain.OrderReceipt) error {
		if p.Order != "" && p.Order != r.PathValue("id") {
			return domain.Errorf(domain.EINVALID, "", "The command is for order %s but the path is for %s.", p.Order, r.PathValue("id"))
		}
		p.Order = r.PathValue("id")
		return nil
	})
}

func (m *Module) apiRequisitions(w http.ResponseWriter, r *http.Request) {
	rs, err := m.o.Reads().Requisitions(m.queryYear(r))
	m.o.Answer(w, map[string]any{"requisitions": staff.NonNil(rs)}, err)
}

func (m *Module) apiRequisition(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.Requisition](m.o, w, r, "a requisition", nil)
}

func (m *Module) apiSurplusList(w http.ResponseWriter, r *http.Request) {
	rs, err := m.o.Reads().SurplusReports(m.queryYear(r))
	m.o.Answer(w, map[string]any{"reports": staff.NonNil(rs)}, err)
}

func (m *Module) apiSurplus(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.SurplusChange](m.o, w, r, "a surplus change", nil)
}

func (m *Module) apiRulesList(w http.ResponseWriter, r *http.Request) {
	vs, err := m.o.Reads().PurchasingRules()
	m.o.Answer(w, map[string]any{"versions": staff.NonNil(vs)}, err)
}

func (m *Module) apiRules(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.PurchasingRulesChange](m.o, w, r, "a change of the rules", nil)
}

func (m *Module) apiEmploymentList(w http.ResponseWriter, r *http.Request) {
	es, err := m.o.Reads().Employments(m.queryYear(r))
	m.o.Answer(w, map[string]any{"employment": staff.NonNil(es)}, err)
}

func (m *Module) apiEmployment(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.Employment](m.o, w, r, "an employment", nil)
}
