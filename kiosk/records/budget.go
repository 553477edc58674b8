package records

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// ShowBudgetsPage lists the adopted budgets, newest first: the copies for
// citizens of §5.02(6). A budget still proposed is the office's and the
// board's until it is adopted.
func (rec *Records) ShowBudgetsPage(w http.ResponseWriter, r *http.Request) {
	bs, err := rec.reads.AdoptedBudgets()
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.budgets")
	var v view.Budgets
	for _, b := range bs {
		v.Items = append(v.Items, view.BudgetRow{Year: b.Year, AdoptedOn: b.AdoptedOn, Amendments: b.Amendments, URL: "/budget/" + strconv.Itoa(b.Year)})
	}
	rec.pages.Render(w, r, http.StatusOK, view.BudgetsPage(p, v))
}

// ShowBudgetPage shows one adopted budget with its summary (§5.02(5)):
// the appropriations by department, committee, commission and board, the
// anticipated revenue, the debts, and the summary beside the budget in
// effect and the preceding year's.
func (rec *Records) ShowBudgetPage(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(r.PathValue("year"))
	if err != nil || year < 1900 || year > 9999 {
		rec.pages.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.02", "There is no budget for %q.", r.PathValue("year")))
		return
	}
	bv, err := rec.reads.BudgetView(year, rec.today())
	if err == nil && bv.Budget.Status != domain.BudgetAdopted {
		err = domain.Errorf(domain.ENOTFOUND, "§5.02", "The budget for %d is not adopted yet.", year)
	}
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	chart, err := rec.reads.Chart()
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.budget", "year", strconv.Itoa(year))
	v := view.Budget{View: bv, BackURL: "/budget"}
	for _, vr := range bv.Budget.Votes {
		if vr.Action == string(domain.BudgetAdopt) && vr.Passed {
			v.Adoption = &vr
		}
	}
	for _, vr := range bv.Budget.Votes {
		if vr.Action != string(domain.BudgetAmend) || !vr.Passed {
			continue
		}
		a := view.BudgetAmendment{N: vr.Amendment, On: vr.On, Purpose: vr.Purpose}
		for _, c := range vr.Changes {
			name := c.Account
			if acct, ok := chart.Account(c.Account); ok {
				name = acct.Name
			}
			a.Changes = append(a.Changes, view.BudgetChange{Account: c.Account, Name: name, Change: c.Change})
		}
		v.Amendments = append(v.Amendments, a)
	}
	units := map[string]int{}
	for _, l := range bv.Lines {
		switch l.Account.Type {
		case domain.AccountRevenue:
			v.Revenues = append(v.Revenues, l)
			v.TotalRevenue = v.TotalRevenue.Add(l.Proposed)
		case domain.AccountExpenditure:
			i, ok := units[l.Account.Unit]
			if !ok {
				name := l.Account.Unit
				if u, found := chart.Account(l.Account.Unit); found {
					name = u.Name
				}
				v.Units = append(v.Units, view.BudgetUnit{Code: l.Account.Unit, Name: name})
				i = len(v.Units) - 1
				units[l.Account.Unit] = i
			}
			v.Units[i].Lines = append(v.Units[i].Lines, l)
			v.Units[i].Total = v.Units[i].Total.Add(l.Proposed)
			v.TotalAppropriated = v.TotalAppropriated.Add(l.Proposed)
		}
	}
	rec.pages.Render(w, r, http.StatusOK, view.BudgetPage(p, v))
}
