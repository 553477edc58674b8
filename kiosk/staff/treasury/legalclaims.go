package treasury

import (
	"bytes"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// legalClaimRow is one claim of the register as the pages show it.
type legalClaimRow struct {
	ID, URL, Claimant, Against, Description string
	NoticeOn, ClaimOn, Amount               string
	Status                                  string
	DeemedDisallowedOn, SuitDeadline        string
}

// legalStepView is a recorded step.
type legalStepView struct {
	On, At, By, Note string
}

// legalClaimView is the page of one claim.
type legalClaimView struct {
	legalClaimRow
	Address   string
	Recorded  string
	President *legalStepView
	Attorney  *legalStepView
	Contacted bool
	Decision  *legalStepView
	Outcome   string
	Meeting   string
	Allowed   string
	Notice    *legalStepView
	Tracking  string
	PDF       string
	CanAct    bool
	// CanNotify and CanAttorney offer the President's steps (§5.08) to
	// those who record them: the notice to the administrator and the
	// President, the decision on the attorney to the President.
	CanNotify   bool
	CanAttorney bool
	Error       string
	Today       string
}

// legalClaimsView is the register with the form of a new claim.
type legalClaimsView struct {
	Claims []legalClaimRow
	CanAct bool
	Error  string
	Form   map[string]string
	Today  string
}

func legalStatus(l domain.LegalClaimRecord) string {
	switch {
	case l.Notice != nil:
		return "disallowed; notice served " + l.Notice.On.String()
	case l.Outcome == domain.LegalClaimDisallow:
		return "disallowed; notice not yet served"
	case l.Outcome == domain.LegalClaimAllow:
		return "allowed " + dollars(l.Allowed)
	case l.ClaimOn.IsZero():
		return "notice of circumstances; no itemized claim yet"
	}
	return "waiting for the board"
}

func (m *Module) legalRow(l domain.LegalClaimRecord) legalClaimRow {
	row := legalClaimRow{ID: l.ID, URL: "/staff/legal-claims/" + l.ID, Claimant: l.Claimant, Against: l.Against, Description: l.Description, Status: legalStatus(l)}
	if !l.NoticeOn.IsZero() {
		row.NoticeOn = l.NoticeOn.String()
	}
	if !l.ClaimOn.IsZero() {
		row.ClaimOn, row.Amount = l.ClaimOn.String(), dollars(l.Amount)
	}
	if d, ok, err := l.Deadlines(m.o.Ledger().Params()); err == nil && ok {
		row.DeemedDisallowedOn = d.DeemedDisallowedOn.String()
		if !d.SuitDeadline.IsZero() {
			row.SuitDeadline = d.SuitDeadline.String()
		}
	}
	return row
}

func stepView(s *domain.LegalStep) *legalStepView {
	if s == nil {
		return nil
	}
	return &legalStepView{On: s.On.String(), At: s.At.String(), By: s.By, Note: s.Note}
}

func (m *Module) showLegalClaims(w http.ResponseWriter, r *http.Request) {
	m.legalClaimsPage(w, r, http.StatusOK, "", nil)
}

func (m *Module) legalClaimsPage(w http.ResponseWriter, r *http.Request, status int, msg string, form map[string]string) {
	claims, err := m.o.Reads().LegalClaims()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := legalClaimsView{CanAct: staff.Allowed(m.o.Who(r).Role, staff.CapLegalClaims), Error: msg, Form: form, Today: m.o.Today().String()}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	for _, l := range claims {
		v.Claims = append(v.Claims, m.legalRow(l))
	}
	m.o.Render(w, r, status, legalClaimsPage(m.o.Frame(r, "Legal claims"), v))
}

// submitLegalClaim records a claim received: its notice of circumstances,
// its itemized claim, or both. Claims are numbered LC-<year>-<nnn> in the
// order they are recorded.
func (m *Module) submitLegalClaim(w http.ResponseWriter, r *http.Request) {
	form := map[string]string{}
	for _, k := range []string{"claimant", "address", "against", "description", "notice_on", "claim_on", "amount"} {
		form[k] = m.o.Form(r, k)
	}
	fail := func(err error) {
		m.formFail(w, r, err, func(status int, msg string) { m.legalClaimsPage(w, r, status, msg, form) })
	}
	p := domain.LegalClaimChange{Op: domain.LegalClaimFile, Claimant: form["claimant"], Address: form["address"], Against: form["against"], Description: form["description"]}
	var err error
	if p.NoticeOn, err = optionalDate("The date of the notice of circumstances", form["notice_on"]); err != nil {
		fail(err)
		return
	}
	if p.ClaimOn, err = optionalDate("The date of the itemized claim", form["claim_on"]); err != nil {
		fail(err)
		return
	}
	if p.Amount, err = optionalAmount("The amount claimed", form["amount"]); err != nil {
		fail(err)
		return
	}
	claims, err := m.o.Reads().LegalClaims()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	year, n := m.o.Today().Year(), 1
	for _, l := range claims {
		if strings.HasPrefix(l.ID, fmt.Sprintf("LC-%d-", year)) {
			n++
		}
	}
	p.ID = fmt.Sprintf("LC-%d-%03d", year, n)
	if _, err := m.o.Submit(r, &p); err != nil {
		fail(err)
		return
	}
	m.o.Redirect(w, r, "/staff/legal-claims/"+p.ID)
}

func (m *Module) showLegalClaim(w http.ResponseWriter, r *http.Request) {
	m.legalClaimPage(w, r, http.StatusOK, "")
}

func (m *Module) legalClaimPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	l, err := m.o.Reads().LegalClaim(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	role := m.o.Who(r).Role
	v := legalClaimView{legalClaimRow: m.legalRow(l), Address: l.Address, Recorded: l.Recorded.String() + " by " + l.RecordedBy,
		President: stepView(l.President), Attorney: stepView(l.Attorney), Contacted: l.Contacted, Decision: stepView(l.Decision), Outcome: l.Outcome, Meeting: l.Meeting,
		Notice: stepView(l.Notice), Tracking: l.Tracking, CanAct: staff.Allowed(role, staff.CapLegalClaims),
		CanNotify: staff.Allowed(role, staff.CapLegalNotify), CanAttorney: staff.Allowed(role, staff.CapLegalAttorney), Error: msg, Today: m.o.Today().String()}
	if l.Outcome == domain.LegalClaimAllow {
		v.Allowed = dollars(l.Allowed)
	}
	if l.Outcome == domain.LegalClaimDisallow {
		v.PDF = "/staff/legal-claims/" + l.ID + "/disallowance.pdf"
	}
	m.o.Render(w, r, status, legalClaimPage(m.o.Frame(r, "Legal claim "+l.ID), v))
}

// submitLegalStep records one step of a claim: itemize, notify, attorney,
// decide or notice, the last segment of the path (notify and attorney
// have routes of their own, for their capabilities).
func (m *Module) submitLegalStep(w http.ResponseWriter, r *http.Request) {
	fail := func(err error) {
		m.formFail(w, r, err, func(status int, msg string) { m.legalClaimPage(w, r, status, msg) })
	}
	p := domain.LegalClaimChange{Op: path.Base(r.URL.Path), ID: r.PathValue("id"), Note: m.o.Form(r, "note")}
	var err error
	switch p.Op {
	case domain.LegalClaimItemize:
		if p.ClaimOn, err = staff.ParseDate("The date of the itemized claim", m.o.Form(r, "claim_on")); err == nil {
			p.Amount, err = staff.ParseAmount("The amount claimed", m.o.Form(r, "amount"))
		}
	case domain.LegalClaimNotify, domain.LegalClaimAttorney, domain.LegalClaimDecide, domain.LegalClaimNotice:
		p.On, err = staff.ParseDate("The date", m.o.Form(r, "on"))
		p.Contact = m.o.Form(r, "contact") == "yes"
		p.Decision, p.Meeting, p.Tracking = m.o.Form(r, "decision"), m.o.Form(r, "meeting"), m.o.Form(r, "tracking")
		if err == nil && p.Op == domain.LegalClaimDecide && p.Decision == domain.LegalClaimAllow {
			p.Allowed, err = staff.ParseAmount("The amount allowed", m.o.Form(r, "allowed"))
		}
	default:
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such step of a legal claim."))
		return
	}
	if err != nil {
		fail(err)
		return
	}
	if _, err := m.o.Submit(r, &p); err != nil {
		fail(err)
		return
	}
	m.o.Redirect(w, r, "/staff/legal-claims/"+p.ID)
}

// showDisallowancePDF serves the notice of disallowance of a disallowed
// claim as a letter (§5.08, Wis. Stat. 893.80(1g)): it states that no
// action on the claim may be brought after six months from its service,
// and the day that is, by the rule 5.08/legal-claim.
func (m *Module) showDisallowancePDF(w http.ResponseWriter, r *http.Request) {
	l, err := m.o.Reads().LegalClaim(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if l.Outcome != domain.LegalClaimDisallow {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.08", "Claim %s was not disallowed by the board: there is no notice of disallowance.", l.ID))
		return
	}
	on, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if l.Notice != nil && r.URL.Query().Get("date") == "" {
		on = l.Notice.On // the served notice is dated the day it was served
	}
	if on.Before(l.Decision.On) {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.08", "The notice cannot be dated %s, before the board disallowed the claim on %s.", on, l.Decision.On))
		return
	}
	var buf bytes.Buffer
	if err := disallowancePDF(&buf, m.o.Letterhead(), l, on, m.o.Ledger().Params(), m.o.Location()); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="disallowance-%s.pdf"`, fileSafe(l.ID)))
	_, _ = w.Write(buf.Bytes())
}

// fileSafe keeps the letters, digits, dashes and dots of an id an API
// client chose, for a file name in a header.
func fileSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, id)
}

// disallowancePDF writes the notice of disallowance, dated on (the day
// it is served once it is, else the day the clerk chose), to the
// claimant's address in the envelope's window. Until the notice is served
// it is the letter to mail ("by certified mail"); once served it states
// the day and the certified-mail number and the last day for suit. The
// same record and date always render the same bytes.
func disallowancePDF(out *bytes.Buffer, head staff.Letterhead, l domain.LegalClaimRecord, on domain.Date, params *domain.Params, loc *time.Location) error {
	village := head.VillageName()
	doc := staff.NewLetter(head, "Notice of disallowance of claim "+l.ID, time.Date(on.Year(), on.Month(), on.Day(), 9, 0, 0, 0, loc))
	mailed := "By certified mail"
	if l.Notice != nil {
		mailed = fmt.Sprintf("Certified mail No. %s, served %s", l.Tracking, staff.LongDate(l.Notice.On))
	}
	doc.Start(staff.LetterStart{Date: on, To: append([]string{l.Claimant}, addressLines(l.Address)...),
		Refs: [][2]string{{"Claim", l.ID}}, Heading: "Notice of Disallowance of Claim"})
	doc.Small(mailed + ".")
	doc.Figures([][2]string{{"Claimant: " + l.Claimant, ""}, {"Against: " + l.Against, ""}, {"Itemized claim served", staff.LongDate(l.ClaimOn)}, {"Disallowed by the board", staff.LongDate(l.Decision.On)}, {"Amount claimed", dollars(l.Amount)}})
	doc.Small("The board's decision: " + l.Meeting + ".")
	doc.Para(fmt.Sprintf("Please take notice that the Village Board of the %s disallowed the claim described above on %s, under section 893.80(1g) of the Wisconsin Statutes and section 5.08 of the Village's Municipal Code.", village, staff.LongDate(l.Decision.On)))
	doc.Strong("No action on the claim may be brought against the Village, or against any of its officers, officials, agents or employees, after six (6) months from the date of service of this notice of disallowance.")
	if l.Notice != nil {
		d, ok, err := l.Deadlines(params)
		if err != nil {
			return err
		}
		if ok && !d.SuitDeadline.IsZero() {
			doc.Para(fmt.Sprintf("This notice was served on %s; the six months end on %s.", staff.LongDate(l.Notice.On), staff.LongDate(d.SuitDeadline)))
		}
	}
	doc.Sign("Village Administrator")
	return doc.Output(out)
}

// addressLines splits an address typed on one line at its commas, or on
// several lines at their ends, into the lines of an envelope: "12 Oak
// St, Belleville, WI 53508" gives "12 Oak St" and "Belleville, WI 53508"
// (the city stays with its state and ZIP).
func addressLines(s string) []string {
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		for _, p := range strings.Split(l, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
	}
	// "City, ST 12345": the last two parts make one line when the last
	// is a state and a ZIP code.
	if n := len(parts); n >= 2 && len(strings.Fields(parts[n-1])) == 2 && len(strings.Fields(parts[n-1])[0]) == 2 {
		parts = append(parts[:n-2], parts[n-2]+", "+parts[n-1])
	}
	return parts
}
