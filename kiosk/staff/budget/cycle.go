package budget

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The budget cycle's pages: the board, the years, a year's budget with its
// elements and history, the estimates, the proposal, the meeting records
// (notices, the hearing, the votes) and the versions.

func (m *Module) showBoard(w http.ResponseWriter, r *http.Request) {
	m.boardPage(w, r, http.StatusOK, memberForm{Seat: "trustee", From: m.o.Today().String()})
}

func (m *Module) boardPage(w http.ResponseWriter, r *http.Request, status int, f memberForm) {
	ms, err := m.o.Reads().Board()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	today := m.o.Today()
	v := boardView{Form: f, CanEdit: staff.Allowed(m.o.Who(r).Role, staff.CapBudgetMeeting), Seats: m.o.Ledger().Params().At(today).BoardSize}
	for _, x := range ms {
		v.Members = append(v.Members, memberView{ID: x.ID, Name: x.Name, Seat: x.Seat, From: date(x.From), To: date(x.To), Sitting: x.Sits(today)})
		if x.Sits(today) {
			v.Sitting++
		}
	}
	m.o.Render(w, r, status, boardPage(m.o.Frame(r, "Village Board"), v))
}

func (m *Module) submitMember(w http.ResponseWriter, r *http.Request) {
	f := memberForm{ID: m.o.Form(r, "id"), Name: m.o.Form(r, "name"), Seat: m.o.Form(r, "seat"), From: m.o.Form(r, "from"), To: m.o.Form(r, "to")}
	err := func() error {
		from, err := staff.ParseDate("The first day of the term", f.From)
		if err != nil {
			return err
		}
		var to domain.Date
		if f.To != "" {
			if to, err = staff.ParseDate("The last day of the term", f.To); err != nil {
				return err
			}
		}
		_, err = m.o.Submit(r, &domain.BoardMember{ID: f.ID, Name: f.Name, Seat: f.Seat, From: from, To: to})
		return err
	}()
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) { f.Error = msg; m.boardPage(w, r, status, f) })
		return
	}
	m.o.Redirect(w, r, "/staff/board")
}

// showBudgets serves GET /staff/budget: the years and where each stands.
func (m *Module) showBudgets(w http.ResponseWriter, r *http.Request) {
	today := m.o.Today()
	var v yearsView
	for y := today.Year() + 1; y >= today.Year()-3; y-- {
		b, ok, err := m.o.Reads().Budget(y)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		row := yearRow{Year: y, URL: fmt.Sprintf("/staff/budget/%d", y), Status: "not proposed"}
		if ok {
			row.Status = string(b.Status)
			if b.Status == domain.BudgetAdopted {
				row.Status = "adopted " + b.AdoptedOn.String()
			}
			row.Version = b.Version
			row.Amendments = b.Amendments
		}
		if fy, ok, err := m.o.Reads().FiscalYear(y); err == nil && ok && fy.Closed {
			row.Closed = fy.ClosedOn.String()
		}
		v.Years = append(v.Years, row)
	}
	v.Preparing = m.budgetYear()
	v.EstimatesDue = domain.EstimatesDue(v.Preparing).String()
	m.o.Render(w, r, http.StatusOK, yearsPage(m.o.Frame(r, "Budgets"), v))
}

// showBudget serves GET /staff/budget/{year}: the budget with every
// element of §5.02(4), the meeting records and the history.
func (m *Module) showBudget(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v, err := m.budgetView(r, year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, http.StatusOK, budgetPage(m.o.Frame(r, fmt.Sprintf("Budget %d", year)), v))
}

func (m *Module) budgetView(r *http.Request, year int) (budgetView, error) {
	role := m.o.Who(r).Role
	v := budgetView{Year: year, CanPropose: staff.Allowed(role, staff.CapBudget), CanMeet: staff.Allowed(role, staff.CapBudgetMeeting),
		Today: m.o.Today().String()}
	b, ok, err := m.o.Reads().Budget(year)
	if err != nil || !ok {
		return v, err
	}
	v.Exists = true
	bv, err := m.o.Reads().BudgetView(year, m.o.Today())
	if err != nil {
		return v, err
	}
	v.fill(bv)
	v.Adopted = b.Status == domain.BudgetAdopted
	v.Status, v.Version, v.AdoptedOn, v.Amendments = string(b.Status), b.Version, date(b.AdoptedOn), b.Amendments
	board, err := m.o.Reads().Board()
	if err != nil {
		return v, err
	}
	names := map[string]string{}
	for _, x := range board {
		names[x.ID] = x.Name
	}
	for _, n := range b.Notices {
		what := "Hearing"
		if n.Purpose == "amendment" {
			what = fmt.Sprintf("Amendment %d", n.Amendment)
		}
		v.Notices = append(v.Notices, noticeView{What: what, Published: n.Published.String(), Newspaper: n.Newspaper, By: n.By})
	}
	if b.Hearing != nil {
		v.Hearing = b.Hearing.On.String()
		v.HearingNotes = b.Hearing.Notes
	}
	for _, x := range b.Votes {
		vr := voteView{Action: x.Action, On: x.On.String(), Passed: x.Passed, Ayes: x.Ayes, Nays: x.Nays, Present: x.Present, Board: x.Board, Required: x.Required, Purpose: x.Purpose, Amendment: x.Amendment}
		for _, mv := range x.Votes {
			vr.Members = append(vr.Members, memberVote{Name: cmpName(names[mv.Member], mv.Member), Vote: mv.Vote})
		}
		for _, c := range x.Changes {
			vr.Changes = append(vr.Changes, changeView{Account: c.Account, Change: c.Change.Change(), Purpose: c.Purpose})
		}
		if x.Action == domain.BudgetAmend && x.Passed {
			vr.NoticeBy = x.On.AddDays(domain.AmendmentNoticeDays).String()
			vr.Noticed = slices.ContainsFunc(b.Notices, func(n domain.BudgetNotice) bool {
				return n.Purpose == "amendment" && n.Amendment == x.Amendment && !n.Published.After(x.On.AddDays(domain.AmendmentNoticeDays))
			})
		}
		v.Votes = append(v.Votes, vr)
	}
	versions, err := m.o.Reads().BudgetVersions(year)
	if err != nil {
		return v, err
	}
	for _, x := range slices.Backward(versions) {
		v.Versions = append(v.Versions, versionRow{Version: x.Version, Status: string(x.Status), Changed: x.Changed.String(), By: x.ChangedBy, URL: fmt.Sprintf("/staff/budget/%d/versions/%d", year, x.Version)})
	}
	if !v.Adopted && b.Hearing == nil {
		v.HearingForm = hearingForm{On: m.o.Today().String()}
	}
	return v, nil
}

func cmpName(name, id string) string {
	if name == "" {
		return id
	}
	return name
}

// fill copies a domain view of the budget into the page's view.
func (v *budgetView) fill(bv domain.BudgetView) {
	v.PrecedingYear, v.CurrentYear = bv.PrecedingYear, bv.CurrentYear
	v.PrecedingFrom, v.CurrentFrom, v.ActualMonths = bv.PrecedingFrom, bv.CurrentFrom, bv.ActualMonths
	v.ActualsThrough = date(bv.ActualsThrough)
	v.FewMonths = bv.CurrentFrom != domain.FromEstimates && bv.ActualMonths < 6
	if bv.Unclassified.IsPositive() {
		v.Unclassified = dollars(bv.Unclassified)
	}
	for _, l := range bv.Lines {
		row := lineView{Code: l.Account.Code, Name: l.Account.Name, Unit: l.Account.Unit, Major: l.Account.Major, Reserve: l.Account.Reserve,
			Preceding: dollars(l.Preceding), Current: dollars(l.Current), Rest: dollars(l.Rest), RestFrom: l.RestFrom, InEffect: dollars(l.InEffect),
			Proposed: dollars(l.Proposed), Estimate: dollars(l.Estimate), Continuing: l.Continuing, Purpose: l.Purpose}
		if l.Account.Type == domain.AccountRevenue {
			v.Revenues = append(v.Revenues, row)
		} else {
			v.Expenditures = append(v.Expenditures, row)
		}
	}
	for _, d := range bv.Budget.Debts {
		v.Debts = append(v.Debts, debtView{Description: d.Description, Outstanding: dollars(d.Outstanding), Due: dollars(d.DueInYear)})
	}
	for _, f := range bv.Funds {
		v.Funds = append(v.Funds, fundView{Fund: f.Fund.Code + " " + f.Fund.Name, Beginning: dollars(f.Beginning), Revenue: dollars(f.Revenue), Sources: dollars(f.Sources),
			Expenditure: dollars(f.Expenditure), Uses: dollars(f.Uses), Ending: dollars(f.Ending), Surplus: dollars(f.Surplus)})
	}
	for _, s := range bv.Budget.Sections {
		v.Sections = append(v.Sections, sectionView{Title: s.Title, Body: s.Body})
	}
	v.Summary = summaryOf(bv.Summary)
}

func summaryOf(s domain.Summary) summaryView {
	rows := func(rs []domain.SummaryRow) []summaryRow {
		var out []summaryRow
		for _, r := range rs {
			out = append(out, summaryRow{Label: r.Label, Preceding: dollars(r.Preceding), InEffect: dollars(r.InEffect), Proposed: dollars(r.Proposed), Change: r.Change,
				PrecedingEnd: dollars(r.PrecedingEnd), InEffectEnd: dollars(r.InEffectEnd), ProposedEnd: dollars(r.ProposedEnd)})
		}
		return out
	}
	one := func(r domain.SummaryRow) summaryRow { return rows([]domain.SummaryRow{r})[0] }
	return summaryView{Year: s.Year, Expenditures: rows(s.Expenditures), Revenues: rows(s.Revenues), Sources: rows(s.Sources), Uses: rows(s.Uses), Balances: rows(s.Balances),
		TotalExpend: one(s.TotalExpend), TotalRevenue: one(s.TotalRevenue)}
}

// showEstimates serves GET /staff/budget/{year}/estimates: who has filed,
// who is late, and the form to file (a department head: for their unit).
func (m *Module) showEstimates(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	unit := r.URL.Query().Get("unit")
	if who := m.o.Who(r); who.Role == domain.RoleDepartmentHead {
		u, err := m.o.Reads().StaffUser(who.Username)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		unit = u.Unit
	}
	m.estimatesPage(w, r, http.StatusOK, year, estimateForm{Unit: unit}, r.URL.Query().Get("filed"))
}

func (m *Module) estimatesPage(w http.ResponseWriter, r *http.Request, status, year int, f estimateForm, filed string) {
	reads := m.o.Reads()
	track, err := reads.EstimateTracker(year, m.o.Today())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	chart, err := reads.Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := estimatesView{Year: year, Due: domain.EstimatesDue(year).String(), Filed: filed, CanFile: staff.Allowed(m.o.Who(r).Role, staff.CapEstimates)}
	for _, s := range track {
		row := trackRow{Unit: s.Unit.Code, Name: s.Unit.Name, Type: string(s.Unit.Type), Late: s.Late}
		if s.Estimate != nil {
			row.Filed, row.By, row.Version = s.Estimate.Filed.String(), s.Estimate.FiledBy, s.Estimate.Version
		}
		v.Units = append(v.Units, row)
		v.UnitOptions = append(v.UnitOptions, option{Value: s.Unit.Code, Label: s.Unit.Code + " " + s.Unit.Name, Selected: s.Unit.Code == f.Unit})
	}
	if f.Unit != "" && len(f.Lines) == 0 {
		// The unit's line accounts, with what it filed last.
		prev, _ := reads.Estimates(year)
		var last *domain.Estimate
		for i := range prev {
			if prev[i].Unit == f.Unit {
				last = &prev[i]
			}
		}
		for _, a := range chart.Of(domain.AccountRevenue, domain.AccountExpenditure) {
			if a.Unit != f.Unit {
				continue
			}
			l := estimateLine{Account: a.Code, Name: a.Name, Type: string(a.Type)}
			if last != nil {
				for _, x := range last.Lines {
					if x.Account == a.Code {
						l.Prior, l.Current, l.Next = x.Prior.String(), x.Current.String(), x.Next.String()
					}
				}
			}
			f.Lines = append(f.Lines, l)
		}
		if last != nil {
			f.Notes = last.Notes
		}
	}
	v.Form = f
	m.o.Render(w, r, status, estimatesPage(m.o.Frame(r, fmt.Sprintf("Estimates for %d", year)), v))
}

func (m *Module) submitEstimate(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f := estimateForm{Unit: m.o.Form(r, "unit"), Notes: m.o.Form(r, "notes")}
	e := domain.Estimate{Year: year, Unit: f.Unit, Notes: f.Notes}
	err = func() error {
		for _, acct := range r.PostForm["account"] {
			l := estimateLine{Account: acct, Prior: m.o.Form(r, "prior-"+acct), Current: m.o.Form(r, "current-"+acct), Next: m.o.Form(r, "next-"+acct)}
			f.Lines = append(f.Lines, l)
		}
		for _, l := range f.Lines {
			if l.Prior == "" && l.Current == "" && l.Next == "" {
				continue
			}
			var el domain.EstimateLine
			el.Account = l.Account
			for _, x := range []struct {
				what, s string
				to      *domain.Money
			}{{"prior year", l.Prior, &el.Prior}, {"current year", l.Current, &el.Current}, {"next year", l.Next, &el.Next}} {
				if x.s == "" {
					continue
				}
				v, err := staff.ParseAmount(fmt.Sprintf("%s, %s", l.Account, x.what), x.s)
				if err != nil {
					return err
				}
				*x.to = v
			}
			e.Lines = append(e.Lines, el)
		}
		_, err := m.o.Submit(r, &e)
		return err
	}()
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) { f.Error = msg; m.estimatesPage(w, r, status, year, f, "") })
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/budget/%d/estimates?filed=%s", year, f.Unit))
}

// showProposal serves GET /staff/budget/{year}/proposal: the form of the
// proposed budget, one row for each line account of the chart, filled
// with the proposal so far or, for a new one, the units' estimates.
func (m *Module) showProposal(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	reads := m.o.Reads()
	b, ok, err := reads.Budget(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f := proposalForm{}
	estimates, err := reads.Estimates(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	chart, err := reads.Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, a := range chart.Of(domain.AccountRevenue, domain.AccountExpenditure) {
		l := proposalLine{Account: a.Code, Name: a.Name, Type: string(a.Type), Unit: a.Unit}
		for _, e := range estimates {
			for _, x := range e.Lines {
				if x.Account == a.Code {
					l.Estimate = dollars(x.Next)
					if !ok {
						l.Amount = x.Next.String()
					}
				}
			}
		}
		if i := slices.IndexFunc(b.Lines, func(x domain.BudgetLine) bool { return x.Account == a.Code }); ok && i >= 0 {
			l.Amount, l.Continuing, l.Purpose = b.Lines[i].Amount.String(), b.Lines[i].Continuing, b.Lines[i].Purpose
		}
		f.Lines = append(f.Lines, l)
	}
	for _, d := range b.Debts {
		f.Debts = append(f.Debts, debtForm{Description: d.Description, Outstanding: d.Outstanding.String(), Due: d.DueInYear.String()})
	}
	for _, x := range b.Financing {
		kind := "source"
		if x.Use {
			kind = "use"
		}
		f.Financing = append(f.Financing, financingForm{Description: x.Description, Fund: x.Fund, Kind: kind, Amount: x.Amount.String()})
	}
	for _, fund := range chart.Of(domain.AccountFund) {
		bf := balanceForm{Fund: fund.Code, Name: fund.Name}
		for _, x := range b.Balances {
			if x.Fund == fund.Code {
				bf.Beginning = x.Beginning.String()
			}
		}
		f.Balances = append(f.Balances, bf)
	}
	for _, s := range b.Sections {
		f.Sections = append(f.Sections, sectionView{Title: s.Title, Body: s.Body})
	}
	m.proposalPage(w, r, http.StatusOK, year, f)
}

// Rows of the proposal form beyond those filled.
const (
	spareDebts     = 3
	spareFinancing = 3
	spareSections  = 2
)

func (m *Module) proposalPage(w http.ResponseWriter, r *http.Request, status, year int, f proposalForm) {
	for len(f.Debts) < spareDebts || f.Debts[len(f.Debts)-1] != (debtForm{}) {
		f.Debts = append(f.Debts, debtForm{})
	}
	for len(f.Financing) < spareFinancing || f.Financing[len(f.Financing)-1] != (financingForm{}) {
		f.Financing = append(f.Financing, financingForm{Kind: "source"})
		if len(f.Financing) > 50 {
			break
		}
	}
	for len(f.Sections) < spareSections || f.Sections[len(f.Sections)-1] != (sectionView{}) {
		f.Sections = append(f.Sections, sectionView{})
	}
	f.Year = year
	m.o.Render(w, r, status, proposalPage(m.o.Frame(r, fmt.Sprintf("Proposed budget %d", year)), f))
}

func (m *Module) submitProposal(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f, p, err := m.readProposal(r, year)
	if err == nil {
		_, err = m.o.Submit(r, &p)
	}
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) { f.Error = msg; m.proposalPage(w, r, status, year, f) })
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/budget/%d", year))
}

// readProposal reads the proposal form strictly: every amount typed as
// money, a blank line left out.
func (m *Module) readProposal(r *http.Request, year int) (proposalForm, domain.BudgetProposal, error) {
	f := proposalForm{}
	p := domain.BudgetProposal{Year: year}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, acct := range r.PostForm["account"] {
		l := proposalLine{Account: acct, Name: m.o.Form(r, "name-"+acct), Type: m.o.Form(r, "type-"+acct), Unit: m.o.Form(r, "unit-"+acct), Estimate: m.o.Form(r, "estimate-"+acct),
			Amount: m.o.Form(r, "amount-"+acct), Continuing: r.PostForm.Get("continuing-"+acct) != "", Purpose: m.o.Form(r, "purpose-"+acct)}
		f.Lines = append(f.Lines, l)
		if l.Amount == "" {
			continue
		}
		a, err := staff.ParseAmount("The amount of "+acct, l.Amount)
		keep(err)
		p.Lines = append(p.Lines, domain.BudgetLine{Account: acct, Amount: a, Continuing: l.Continuing, Purpose: l.Purpose})
	}
	for i := 0; i < 50; i++ {
		n := strconv.Itoa(i)
		d := debtForm{Description: m.o.Form(r, "debt-"+n), Outstanding: m.o.Form(r, "debt-outstanding-"+n), Due: m.o.Form(r, "debt-due-"+n)}
		if d != (debtForm{}) {
			f.Debts = append(f.Debts, d)
			out, err := staff.ParseAmount("The outstanding amount of debt "+d.Description, orZero(d.Outstanding))
			keep(err)
			due, err := staff.ParseAmount("The amount of debt "+d.Description+" due in the year", orZero(d.Due))
			keep(err)
			p.Debts = append(p.Debts, domain.Debt{Description: d.Description, Outstanding: out, DueInYear: due})
		}
		x := financingForm{Description: m.o.Form(r, "fin-"+n), Fund: m.o.Form(r, "fin-fund-"+n), Kind: m.o.Form(r, "fin-kind-"+n), Amount: m.o.Form(r, "fin-amount-"+n)}
		if x.Description != "" || x.Amount != "" {
			f.Financing = append(f.Financing, x)
			amt, err := staff.ParseAmount("The amount of "+x.Description, x.Amount)
			keep(err)
			p.Financing = append(p.Financing, domain.Financing{Description: x.Description, Fund: x.Fund, Use: x.Kind == "use", Amount: amt})
		}
		s := sectionView{Title: m.o.Form(r, "section-"+n), Body: m.o.Form(r, "section-body-"+n)}
		if s != (sectionView{}) {
			f.Sections = append(f.Sections, s)
			p.Sections = append(p.Sections, domain.BudgetSection{Title: s.Title, Body: s.Body})
		}
	}
	for _, fund := range r.PostForm["fund"] {
		bf := balanceForm{Fund: fund, Name: m.o.Form(r, "fund-name-"+fund), Beginning: m.o.Form(r, "beginning-"+fund)}
		f.Balances = append(f.Balances, bf)
		if bf.Beginning == "" {
			continue
		}
		amt, err := staff.ParseSignedAmount("The beginning balance of fund "+fund, bf.Beginning)
		keep(err)
		p.Balances = append(p.Balances, domain.FundBalance{Fund: fund, Beginning: amt})
	}
	return f, p, first
}

func orZero(s string) string {
	if s == "" {
		return "0.00"
	}
	return s
}

// showVersion serves GET /staff/budget/{year}/versions/{version}.
func (m *Module) showVersion(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(r.PathValue("version"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no version %q.", r.PathValue("version")))
		return
	}
	b, err := m.o.Reads().BudgetVersion(year, n)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := versionView{Year: year, Version: b.Version, Status: string(b.Status), Changed: b.Changed.String(), By: b.ChangedBy}
	for _, l := range b.Lines {
		v.Lines = append(v.Lines, lineView{Code: l.Account, Proposed: dollars(l.Amount), Continuing: l.Continuing, Purpose: l.Purpose})
	}
	m.o.Render(w, r, http.StatusOK, versionPage(m.o.Frame(r, fmt.Sprintf("Budget %d, version %d", year, n)), v))
}
