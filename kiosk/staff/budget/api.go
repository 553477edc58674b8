package budget

import (
	"context"
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// The budget's API (/api/v1/): every list a page shows, and every change
// a page makes, as a CommandRequest with the client's command id, so that
// a script drives the whole cycle. The year of the path is the year of
// the command.

// withYear checks a payload's year against the path's.
func withYear(r *http.Request, year *int) error {
	y, err := pathYear(r)
	if err != nil {
		return err
	}
	if *year != 0 && *year != y {
		return domain.Errorf(domain.EINVALID, "", "The command is for %d but the path is for %d.", *year, y)
	}
	*year = y
	return nil
}

func (m *Module) apiBoard(w http.ResponseWriter, r *http.Request) {
	ms, err := m.o.Reads().Board()
	m.o.Answer(w, map[string]any{"members": staff.NonNil(ms)}, err)
}

func (m *Module) apiMember(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.BoardMember](m.o, w, r, "a board member", nil)
}

func (m *Module) apiBudget(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	v, err := m.o.Reads().BudgetView(year, m.o.Today())
	m.o.Answer(w, v, err)
}

func (m *Module) apiEstimates(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	track, err := m.o.Reads().EstimateTracker(year, m.o.Today())
	m.o.Answer(w, map[string]any{"due": domain.EstimatesDue(year), "units": staff.NonNil(track)}, err)
}

func (m *Module) apiEstimate(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "an estimate", func(p *domain.Estimate) error { return withYear(r, &p.Year) })
}

func (m *Module) apiProposal(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a proposed budget", func(p *domain.BudgetProposal) error { return withYear(r, &p.Year) })
}

func (m *Module) apiNotice(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a budget notice", func(p *domain.BudgetNoticeChange) error {
		if !p.HearingOn.IsZero() && !m.noticeNamesHearing() {
			return domain.Errorf(domain.EINVALID, "", "The ledger does not record the day of the hearing in a notice until every node runs a release that does.")
		}
		return withYear(r, &p.Year)
	})
}

func (m *Module) apiHearing(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a budget hearing", func(p *domain.BudgetHearingChange) error { return withYear(r, &p.Year) })
}

func (m *Module) apiVote(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "a budget vote", func(p *domain.BudgetVoteChange) error { return withYear(r, &p.Year) })
}

func (m *Module) apiAppropriations(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	apps, err := m.o.Reads().Appropriations(year)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	type row struct {
		domain.Appropriation
		Amount    domain.Money `json:"amount"`
		Available domain.Money `json:"available"`
	}
	out := []row{}
	for _, a := range apps {
		out = append(out, row{a, a.Amount(), a.Available()})
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"year": year, "appropriations": out})
}

func (m *Module) apiExpense(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.Expense](m.o, w, r, "an expense", nil)
}

func (m *Module) apiEnd(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "the end of an appropriation", func(p *domain.AppropriationEnd) error { return withYear(r, &p.Year) })
}

func (m *Module) apiClosePreview(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	plan, err := m.o.Reads().YearEndPreview(year)
	m.o.Answer(w, plan, err)
}

func (m *Module) apiClose(w http.ResponseWriter, r *http.Request) {
	staff.APICommand(m.o, w, r, "the close of a year", func(p *domain.YearEndClose) error { return withYear(r, &p.Year) })
}

// alerts raises on the start page the estimates not filed by September
// 15 (from September 16, for whoever prepares the budget or files
// estimates), and the amendment notices not published within 15 days.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]view.Alert, error) {
	var out []view.Alert
	year := m.budgetYear()
	if staff.Allowed(who.Role, staff.CapEstimates) || staff.Allowed(who.Role, staff.CapBudget) {
		track, err := m.o.Reads().EstimateTracker(year, m.o.Today())
		if err != nil {
			return nil, err
		}
		var mine string
		if who.Role == domain.RoleDepartmentHead {
			u, err := m.o.Reads().StaffUser(who.Username)
			if err != nil {
				return nil, err
			}
			mine = u.Unit
		}
		late := 0
		for _, s := range track {
			if s.Late && s.Estimate == nil && (mine == "" || s.Unit.Code == mine) {
				late++
			}
		}
		if late > 0 {
			out = append(out, view.Alert{TestID: "alert-estimates-late", Text: fmt.Sprintf("%d unit(s) have not filed their estimates for %d, due %s (§5.01(3)).", late, year, domain.EstimatesDue(year)),
				URL: fmt.Sprintf("/staff/budget/%d/estimates", year), Due: domain.EstimatesDue(year).String(), Count: late})
		}
	}
	if staff.Allowed(who.Role, staff.CapBudgetMeeting) {
		today := m.o.Today()
		for _, y := range []int{today.Year(), today.Year() + 1} {
			b, ok, err := m.o.Reads().Budget(y)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			for _, v := range b.Votes {
				if v.Action != domain.BudgetAmend || !v.Passed {
					continue
				}
				noticed := false
				for _, n := range b.Notices {
					noticed = noticed || (n.Purpose == "amendment" && n.Amendment == v.Amendment)
				}
				if !noticed {
					out = append(out, view.Alert{TestID: "alert-amendment-notice", Text: fmt.Sprintf("Amendment %d of the %d budget needs its class 1 notice by %s (Wis. Stat. 65.90(5)(a)).", v.Amendment, y, v.On.AddDays(domain.AmendmentNoticeDays)),
						URL: fmt.Sprintf("/staff/budget/%d", y), Due: v.On.AddDays(domain.AmendmentNoticeDays).String()})
				}
			}
		}
	}
	return out, nil
}
