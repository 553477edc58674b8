package records

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/budgetbook"
	"github.com/villagehall/appliance/kiosk/view"
)

// ShowBudgetsPage lists the budgets for citizens (§5.02(6)): a proposed
// one from the day the notice of its hearing is published (Wis. Stat.
// 65.90), first, then the adopted ones, newest first.
func (rec *Records) ShowBudgetsPage(w http.ResponseWriter, r *http.Request) {
	bs, err := rec.reads.AdoptedBudgets()
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.budgets")
	var v view.Budgets
	today := rec.today()
	for _, year := range []int{today.Year() + 1, today.Year()} {
		b, ok, err := rec.reads.Budget(year)
		if err != nil {
			rec.pages.Fail(w, r, err)
			return
		}
		if public, hearing := b.PublicOn(today); ok && public && b.Status != domain.BudgetAdopted {
			v.Items = append(v.Items, view.BudgetRow{Year: b.Year, Proposed: true, Hearing: hearing, URL: "/budget/" + strconv.Itoa(b.Year)})
		}
	}
	for _, b := range bs {
		v.Items = append(v.Items, view.BudgetRow{Year: b.Year, AdoptedOn: b.AdoptedOn, Amendments: b.Amendments, URL: "/budget/" + strconv.Itoa(b.Year)})
	}
	rec.pages.Render(w, r, http.StatusOK, view.BudgetsPage(p, v))
}

// publicBudget reads the budget of the request's year as citizens may
// see it today: adopted, or proposed once the notice of its hearing is
// published; with the chart and the day of the hearing.
func (rec *Records) publicBudget(r *http.Request) (domain.BudgetView, domain.Chart, domain.Date, error) {
	year, err := strconv.Atoi(r.PathValue("year"))
	if err != nil || year < 1900 || year > 9999 {
		return domain.BudgetView{}, domain.Chart{}, domain.Date{}, domain.Errorf(domain.ENOTFOUND, "§5.02", "There is no budget for %q.", r.PathValue("year"))
	}
	bv, err := rec.reads.BudgetView(year, rec.today())
	if err != nil {
		return domain.BudgetView{}, domain.Chart{}, domain.Date{}, err
	}
	public, hearing := bv.Budget.PublicOn(rec.today())
	if !public {
		return domain.BudgetView{}, domain.Chart{}, domain.Date{}, domain.Errorf(domain.ENOTFOUND, "§5.02", "The budget for %d is not published yet.", year)
	}
	chart, err := rec.reads.Chart()
	return bv, chart, hearing, err
}

// ShowBudgetPage shows one budget for citizens with its summary
// (§5.02(5)): the appropriations by department, committee, commission and
// board, the anticipated revenue, the debts, the amendments, and the
// summary beside the budget in effect and the preceding year's. A
// proposed budget is marked so, with the day of its hearing.
func (rec *Records) ShowBudgetPage(w http.ResponseWriter, r *http.Request) {
	bv, chart, hearing, err := rec.publicBudget(r)
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	year := bv.Budget.Year
	p := rec.pages.Page(r, "title.budget", "year", strconv.Itoa(year))
	v := view.Budget{View: bv, BackURL: "/budget", Proposed: bv.Budget.Status != domain.BudgetAdopted, Hearing: hearing,
		BookURL: "/budget/" + strconv.Itoa(year) + "/book.pdf"}
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

// ShowBudgetBook serves the budget book for citizens as a PDF
// (§5.02(6): copies of the budget for distribution to citizens), of the
// same budgets the kiosk shows.
func (rec *Records) ShowBudgetBook(w http.ResponseWriter, r *http.Request) {
	bv, chart, hearing, err := rec.publicBudget(r)
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	stamp := bv.Budget.Changed.Time(time.UTC)
	if err := budgetbook.Write(&buf, budgetbook.Book{Village: "Village of Belleville", View: bv, Chart: chart, Hearing: hearing}, stamp); err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="budget-%d.pdf"`, bv.Budget.Year))
	_, _ = w.Write(buf.Bytes())
}
