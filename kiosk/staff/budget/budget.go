// Package budget is the back office of the budget and its
// appropriations (§5.01–5.05, §5.16): the chart of accounts, the Village
// Board's members, the units' estimates, the proposed budget with every
// element §5.02(4) asks and its summary (§5.02(5)) as a printable notice,
// the hearing and the votes, the adopted budget's versions, and the
// appropriations with what is available, what was charged to each, and
// the close of the year. It is a staff.Module; every rule is the domain's
// (domain/chart.go, budgetcycle.go, budgetview.go, appropriation.go), the
// handlers read forms strictly and show what the ledger answered.
package budget

import (
	"net/http"
	"strconv"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is the budget's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the budget's routes, links and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	page := o.Page
	page("GET /staff/chart", staff.CapReadBudget, m.showChart)
	page("POST /staff/chart", staff.CapChart, m.submitAccount)
	page("GET /staff/chart/import", staff.CapChart, m.showChartImport)
	page("POST /staff/chart/import", staff.CapChart, m.submitChartImport)
	page("GET /staff/board", staff.CapReadBudget, m.showBoard)
	page("POST /staff/board", staff.CapBudgetMeeting, m.submitMember)

	page("GET /staff/budget", staff.CapReadBudget, m.showBudgets)
	page("GET /staff/budget/{year}", staff.CapReadBudget, m.showBudget)
	page("GET /staff/budget/{year}/estimates", staff.CapReadBudget, m.showEstimates)
	page("POST /staff/budget/{year}/estimates", staff.CapEstimates, m.submitEstimate)
	page("GET /staff/budget/{year}/proposal", staff.CapBudget, m.showProposal)
	page("POST /staff/budget/{year}/proposal", staff.CapBudget, m.submitProposal)
	page("GET /staff/budget/{year}/summary", staff.CapReadBudget, m.showSummary)
	page("GET /staff/budget/{year}/summary.pdf", staff.CapReadBudget, m.showSummaryPDF)
	page("POST /staff/budget/{year}/notices", staff.CapBudgetMeeting, m.submitNotice)
	page("POST /staff/budget/{year}/hearing", staff.CapBudgetMeeting, m.submitHearing)
	page("GET /staff/budget/{year}/vote", staff.CapBudgetMeeting, m.showVote)
	page("POST /staff/budget/{year}/votes", staff.CapBudgetMeeting, m.submitVote)
	page("GET /staff/budget/{year}/versions/{version}", staff.CapReadBudget, m.showVersion)

	page("GET /staff/appropriations/{year}", staff.CapReadBudget, m.showAppropriations)
	page("GET /staff/appropriations/{year}/{line}", staff.CapReadBudget, m.showAppropriation)
	page("POST /staff/appropriations/{year}/{line}/end", staff.CapCertify, m.submitEnd)
	page("POST /staff/expenses", staff.CapCertify, m.submitExpense)
	page("GET /staff/appropriations/{year}/close", staff.CapReadBudget, m.showClose)
	page("POST /staff/appropriations/{year}/close", staff.CapCertify, m.submitClose)

	api := o.API
	api("GET /api/v1/chart", staff.CapReadBudget, m.apiChart)
	api("POST /api/v1/chart", staff.CapChart, m.apiChartChange)
	api("GET /api/v1/board", staff.CapReadBudget, m.apiBoard)
	api("POST /api/v1/board", staff.CapBudgetMeeting, m.apiMember)
	api("GET /api/v1/budgets/{year}", staff.CapReadBudget, m.apiBudget)
	api("GET /api/v1/budgets/{year}/estimates", staff.CapReadBudget, m.apiEstimates)
	api("POST /api/v1/budgets/{year}/estimates", staff.CapEstimates, m.apiEstimate)
	api("POST /api/v1/budgets/{year}/proposal", staff.CapBudget, m.apiProposal)
	api("POST /api/v1/budgets/{year}/notices", staff.CapBudgetMeeting, m.apiNotice)
	api("POST /api/v1/budgets/{year}/hearing", staff.CapBudgetMeeting, m.apiHearing)
	api("POST /api/v1/budgets/{year}/votes", staff.CapBudgetMeeting, m.apiVote)
	api("GET /api/v1/appropriations/{year}", staff.CapReadBudget, m.apiAppropriations)
	api("POST /api/v1/expenses", staff.CapCertify, m.apiExpense)
	api("POST /api/v1/appropriations/{year}/end", staff.CapCertify, m.apiEnd)
	api("GET /api/v1/appropriations/{year}/close", staff.CapReadBudget, m.apiClosePreview)
	api("POST /api/v1/appropriations/{year}/close", staff.CapCertify, m.apiClose)

	o.Nav(staff.CapReadBudget, "Budget", "/staff/budget")
	o.Nav(staff.CapReadBudget, "Chart", "/staff/chart")
	o.Alert(m.alerts)
	return nil
}

// pathYear reads the {year} of the URL: a fiscal year, 2000 to 2999.
func pathYear(r *http.Request) (int, error) {
	s := r.PathValue("year")
	y, err := strconv.Atoi(s)
	if err != nil || y < 2000 || y > 2999 || len(s) != 4 {
		return 0, domain.Errorf(domain.ENOTFOUND, "", "There is no fiscal year %q.", s)
	}
	return y, nil
}

// budgetYear is the year whose budget is being prepared today: next
// year's, once this year's is adopted.
func (m *Module) budgetYear() int {
	today := m.o.Today()
	b, ok, err := m.o.Reads().Budget(today.Year())
	if err == nil && (!ok || b.Status == domain.BudgetAdopted) {
		return today.Year() + 1
	}
	return today.Year()
}

// dollars writes an amount for people: "$1,234.56", "-$20.00".
func dollars(m domain.Money) string { return staff.Dollars(m) }

func date(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

func longDate(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).Format("Monday, January 2, 2006")
}

// formFail shows err beside a form (render with the status and message)
// when the person can fix it, and the error page otherwise.
func (m *Module) formFail(w http.ResponseWriter, r *http.Request, err error, render func(status int, msg string)) {
	if status, msg, ok := m.o.FormError(err); ok {
		render(status, msg)
		return
	}
	m.o.Fail(w, r, err)
}
