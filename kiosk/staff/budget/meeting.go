package budget

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// What the board's meetings on the budget leave on record: the class 1
// notices, the hearing, and each vote with every member's vote.

func (m *Module) submitNotice(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	err = func() error {
		on, err := staff.ParseDate("The day the notice was published", m.o.Form(r, "published"))
		if err != nil {
			return err
		}
		n := domain.BudgetNoticeChange{Year: year, BudgetNotice: domain.BudgetNotice{Purpose: m.o.Form(r, "purpose"), Published: on, Newspaper: m.o.Form(r, "newspaper")}}
		if s := m.o.Form(r, "amendment"); s != "" {
			if n.Amendment, err = strconv.Atoi(s); err != nil {
				return domain.Errorf(domain.EINVALID, "", "The amendment is its number, like 1.")
			}
		}
		// The day of the hearing goes into the ledger only once every node
		// applies it (ledger format 7); before, the notice is as it was.
		if s := m.o.Form(r, "hearing_on"); s != "" && m.noticeNamesHearing() {
			if n.HearingOn, err = staff.ParseDate("The day of the hearing the notice names", s); err != nil {
				return err
			}
		}
		_, err = m.o.Submit(r, &n)
		return err
	}()
	m.afterMeeting(w, r, year, err)
}

func (m *Module) submitHearing(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	err = func() error {
		on, err := staff.ParseDate("The day of the hearing", m.o.Form(r, "on"))
		if err != nil {
			return err
		}
		_, err = m.o.Submit(r, &domain.BudgetHearingChange{Year: year, BudgetHearing: domain.BudgetHearing{On: on, Notes: m.o.Form(r, "notes")}})
		return err
	}()
	m.afterMeeting(w, r, year, err)
}

// afterMeeting shows the budget again: with the problem beside the forms,
// or as it stands now.
func (m *Module) afterMeeting(w http.ResponseWriter, r *http.Request, year int, err error) {
	if err == nil {
		m.o.Redirect(w, r, fmt.Sprintf("/staff/budget/%d", year))
		return
	}
	m.formFail(w, r, err, func(status int, msg string) {
		v, err := m.budgetView(r, year)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		v.Error = msg
		m.o.Render(w, r, status, budgetPage(m.o.Frame(r, fmt.Sprintf("Budget %d", year)), v))
	})
}

// amendRows is how many lines the amendment form offers.
const amendRows = 6

// showVote serves GET /staff/budget/{year}/vote: the form of a vote, one
// row for each member sitting on the day.
func (m *Module) showVote(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	b, ok, err := m.o.Reads().Budget(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no proposed budget for %d.", year))
		return
	}
	f := voteForm{Year: year, On: m.o.Today().String(), Action: domain.BudgetAdopt}
	if b.Status == domain.BudgetAdopted {
		f.Action = domain.BudgetAmend
	}
	m.votePage(w, r, http.StatusOK, f)
}

func (m *Module) votePage(w http.ResponseWriter, r *http.Request, status int, f voteForm) {
	board, err := m.o.Reads().Board()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	on, err := domain.ParseDate(f.On)
	if err != nil {
		on = m.o.Today()
	}
	votes := map[string]string{}
	for _, x := range f.Members {
		votes[x.ID] = x.Vote
	}
	f.Members = nil
	for _, x := range board {
		if x.Sits(on) {
			f.Members = append(f.Members, memberVote{ID: x.ID, Name: x.Name, Vote: votes[x.ID]})
		}
	}
	f.Board = m.o.Ledger().Params().At(on).BoardSize
	for len(f.Changes) < amendRows {
		f.Changes = append(f.Changes, changeView{})
	}
	m.o.Render(w, r, status, votePage(m.o.Frame(r, fmt.Sprintf("Record a vote on the %d budget", f.Year)), f))
}

func (m *Module) submitVote(w http.ResponseWriter, r *http.Request) {
	year, err := pathYear(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f := voteForm{Year: year, Action: m.o.Form(r, "action"), On: m.o.Form(r, "on"), Present: m.o.Form(r, "present"), Purpose: m.o.Form(r, "purpose")}
	for _, id := range r.PostForm["member"] {
		f.Members = append(f.Members, memberVote{ID: id, Vote: m.o.Form(r, "vote-"+id)})
	}
	for i := range amendRows {
		n := strconv.Itoa(i)
		c := changeView{Account: m.o.Form(r, "change-account-"+n), Change: m.o.Form(r, "change-amount-"+n), Purpose: m.o.Form(r, "change-purpose-"+n), Continuing: r.PostForm.Get("change-continuing-"+n) != ""}
		f.Changes = append(f.Changes, c)
	}
	err = func() error {
		on, err := staff.ParseDate("The day of the vote", f.On)
		if err != nil {
			return err
		}
		p := domain.BudgetVoteChange{Year: year, Action: f.Action, On: on, Purpose: f.Purpose}
		counted := 0
		for _, x := range f.Members {
			if x.Vote == "" {
				return domain.Errorf(domain.EINVALID, "", "Record every member's vote (aye, nay, abstain or absent).")
			}
			if x.Vote != "absent" {
				counted++
			}
			p.Votes = append(p.Votes, domain.MemberVote{Member: x.ID, Vote: x.Vote})
		}
		p.Present = counted
		if f.Present != "" {
			if p.Present, err = strconv.Atoi(f.Present); err != nil || p.Present < 0 {
				return domain.Errorf(domain.EINVALID, "", "The number of members present is a whole number; got %q.", f.Present)
			}
		}
		for _, c := range f.Changes {
			if c.Account == "" && c.Change == "" {
				continue
			}
			amt, err := staff.ParseSignedAmount("The change to "+c.Account, c.Change)
			if err != nil {
				return err
			}
			p.Changes = append(p.Changes, domain.AmendLine{Account: c.Account, Change: amt, Continuing: c.Continuing, Purpose: c.Purpose})
		}
		res, err := m.o.Submit(r, &p)
		f.Outcome = res.Note
		return err
	}()
	if err != nil {
		m.formFail(w, r, err, func(status int, msg string) { f.Error = msg; m.votePage(w, r, status, f) })
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/budget/%d#votes", year))
}
