// Package purchasing is the Purchasing Agent's back office (§5.12, §5.13,
// §5.16): purchase orders from the first estimate to the delivery —
// bids, the class 2 or class 1 notice of a public contract (printed for
// the newspaper), the award, the
// treasurer's certification of funds, the issue, the inspection and the
// invoice — and the emergency purchases of department heads; the
// departments' requisitions, their surplus stock, the rules of
// purchasing with their approvals, and the record of employment drawn
// against appropriations. It is a staff.Module; every rule is the
// domain's (domain/order.go, purchasingrecords.go, appropriation.go).
package purchasing

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is purchasing's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds purchasing's routes and links.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	page := o.Page
	page("GET /staff/orders", staff.CapReadBudget, m.showOrders)
	page("POST /staff/orders", staff.CapPurchasing, m.submitNewOrder)
	page("GET /staff/orders/{id}", staff.CapReadBudget, m.showOrder)
	page("POST /staff/orders/{id}/{op}", staff.CapPurchasing, m.submitOrderOp)
	page("GET /staff/orders/{id}/notice.pdf", staff.CapReadBudget, m.showNoticePDF)
	page("POST /staff/orders/{id}/certify", staff.CapCertify, m.submitCertify)
	page("GET /staff/requisitions", staff.CapReadBudget, m.showRequisitions)
	page("POST /staff/requisitions", staff.CapPurchasing, m.submitRequisition)
	page("GET /staff/surplus", staff.CapReadBudget, m.showSurplus)
	page("POST /staff/surplus", staff.CapPurchasing, m.submitSurplus)
	page("GET /staff/purchasing-rules", staff.CapReadBudget, m.showRules)
	page("POST /staff/purchasing-rules", staff.CapPurchasingRules, m.submitRules)
	page("GET /staff/employment", staff.CapReadBudget, m.showEmployment)
	page("POST /staff/employment", staff.CapEmployment, m.submitEmployment)

	api := o.API
	api("GET /api/v1/orders", staff.CapReadBudget, m.apiOrders)
	api("GET /api/v1/orders/{id}", staff.CapReadBudget, m.apiOrder)
	api("POST /api/v1/orders", staff.CapPurchasing, m.apiOrderChange)
	api("POST /api/v1/orders/{id}/certify", staff.CapCertify, m.apiCertify)
	api("POST /api/v1/orders/{id}/receipts", staff.CapPurchasing, m.apiReceipt)
	api("GET /api/v1/requisitions", staff.CapReadBudget, m.apiRequisitions)
	api("POST /api/v1/requisitions", staff.CapPurchasing, m.apiRequisition)
	api("GET /api/v1/surplus", staff.CapReadBudget, m.apiSurplusList)
	api("POST /api/v1/surplus", staff.CapPurchasing, m.apiSurplus)
	api("GET /api/v1/purchasing-rules", staff.CapReadBudget, m.apiRulesList)
	api("POST /api/v1/purchasing-rules", staff.CapPurchasingRules, m.apiRules)
	api("GET /api/v1/employment", staff.CapReadBudget, m.apiEmploymentList)
	api("POST /api/v1/employment", staff.CapEmployment, m.apiEmployment)

	o.Nav(staff.CapReadBudget, "Purchasing", "/staff/orders")
	return nil
}

// dollars writes an amount for people: "$1,234.56", "-$20.00".
func dollars(m domain.Money) string { return staff.Dollars(m) }

func itoa(n int) string { return strconv.Itoa(n) }

// queryYear is the ?year= of a list, this year by default.
func (m *Module) queryYear(r *http.Request) int {
	if y, err := strconv.Atoi(r.URL.Query().Get("year")); err == nil && y >= 2000 && y <= 2999 {
		return y
	}
	return m.o.Today().Year()
}

func (m *Module) showOrders(w http.ResponseWriter, r *http.Request) {
	m.ordersPage(w, r, http.StatusOK, m.queryYear(r), newOrderForm{Category: string(domain.CategorySupplies)})
}

func (m *Module) ordersPage(w http.ResponseWriter, r *http.Request, status, year int, f newOrderForm) {
	reads := m.o.Reads()
	orders, err := reads.Orders(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	apps, err := reads.Appropriations(m.o.Today().Year())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	unit := ""
	if who.Role == domain.RoleDepartmentHead {
		u, err := reads.StaffUser(who.Username)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		unit = u.Unit
		f.Emergency = true
	}
	v := ordersView{Year: year, Form: f, CanOrder: staff.Allowed(who.Role, staff.CapPurchasing), DepartmentHead: unit != "", Prev: year - 1, Next: year + 1}
	for _, o := range slices.Backward(orders) {
		v.Orders = append(v.Orders, orderRow{ID: o.ID, URL: "/staff/orders/" + url.PathEscape(o.ID), Description: o.Description, Line: o.Line, Unit: o.Unit,
			Status: string(o.Status), Amount: dollars(o.Amount()), Emergency: o.Emergency, Vendor: vendorOf(o)})
	}
	for _, a := range apps {
		if a.Closed || (unit != "" && a.Unit != unit) {
			continue
		}
		v.Lines = append(v.Lines, option{Value: a.Line, Label: fmt.Sprintf("%s (%s available)", a.Line, dollars(a.Available())), Selected: a.Line == f.Line})
	}
	for _, c := range []domain.Category{domain.CategorySupplies, domain.CategoryMaterials, domain.CategoryEquipment, domain.CategoryContractualServices} {
		v.Categories = append(v.Categories, option{Value: string(c), Label: strings.ReplaceAll(string(c), "_", " "), Selected: string(c) == f.Category})
	}
	m.o.Render(w, r, status, ordersPage(m.o.Frame(r, "Purchase orders"), v))
}

func vendorOf(o domain.Order) string {
	if o.Award != nil {
		return o.Award.Vendor
	}
	return ""
}

func (m *Module) submitNewOrder(w http.ResponseWriter, r *http.Request) {
	f := newOrderForm{Line: m.o.Form(r, "line"), Description: m.o.Form(r, "description"), Category: m.o.Form(r, "category"), Estimate: m.o.Form(r, "estimate"),
		Requisition: m.o.Form(r, "requisition"), Solicited: m.o.Form(r, "solicited"), Emergency: r.PostForm.Get("emergency") != "", Explanation: m.o.Form(r, "explanation"),
		Municipal: r.PostForm.Get("municipal") != "", OwnWork: r.PostForm.Get("own_work") != "", EmergencyResolution: m.o.Form(r, "emergency_resolution")}
	var res domain.Result
	err := func() error {
		est, err := staff.ParseAmount("The estimated cost", f.Estimate)
		if err != nil {
			return err
		}
		res, err = m.o.Submit(r, &domain.OrderChange{Op: domain.OrderCreate, Line: f.Line, Description: f.Description, Category: domain.Category(f.Category), Estimate: est,
			Requisition: f.Requisition, Solicited: f.Solicited, Emergency: f.Emergency, Explanation: f.Explanation, Municipal: f.Municipal, OwnWork: f.OwnWork, EmergencyResolution: f.EmergencyResolution})
		return err
	}()
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			f.Error = msg
			m.ordersPage(w, r, status, m.o.Today().Year(), f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/orders/"+url.PathEscape(res.Ref))
}
