package treasury

import (
	"bytes"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

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
	var buf bytes.Buffer
	if err := disallowancePDF(&buf, l, m.o.Ledger().Params(), m.o.Location()); err != nil {
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

// disallowancePDF writes the notice of disallowance. Until the notice is
// served it is the letter to mail (dated the board's decision, service
// "on the day it is served"); once served it states the day and the
// certified-mail number and the last day for suit. Its dates come from the
// record, so the same record always renders to the same bytes.
func disallowancePDF(out *bytes.Buffer, l domain.LegalClaimRecord, params *domain.Params, loc *time.Location) error {
	stamp := l.Decision.At
	if l.Notice != nil {
		stamp = l.Notice.At
	}
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCompression(false) // a short letter; its text stays searchable
	pdf.SetCreationDate(stamp.Time(loc))
	pdf.SetModificationDate(stamp.Time(loc))
	pdf.SetTitle("Notice of disallowance of claim "+l.ID, false)
	pdf.SetAuthor("Village of Belleville", false)
	pdf.SetMargins(22, 20, 22)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")

	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 9, tr("Village of Belleville"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 5, tr("Belleville, Wisconsin 53508"), "", 1, "L", false, 0, "")
	pdf.SetDrawColor(29, 58, 95)
	pdf.SetLineWidth(0.6)
	y := pdf.GetY() + 2
	pdf.Line(22, y, 194, y)
	pdf.Ln(8)

	pdf.SetFont("Helvetica", "", 10)
	mailed := "By certified mail"
	if l.Notice != nil {
		mailed = fmt.Sprintf("By certified mail No. %s, served %s", l.Tracking, l.Notice.On)
	}
	for _, line := range []string{mailed, "", l.Claimant, l.Address} {
		pdf.CellFormat(0, 5.5, tr(line), "", 1, "L", false, 0, "")
	}
	pdf.Ln(6)
	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(0, 7, tr("Notice of Disallowance of Claim"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	field := func(k, v string) {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(48, 5.5, tr(k), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(0, 5.5, tr(v), "", "L", false)
	}
	field("Claim", l.ID)
	field("Claimant", l.Claimant)
	field("Against", l.Against)
	field("Itemized claim served", l.ClaimOn.String())
	field("Amount claimed", dollars(l.Amount))
	field("Disallowed by the board", l.Decision.On.String()+" ("+l.Meeting+")")
	pdf.Ln(4)
	body := fmt.Sprintf("Please take notice that the Village Board of the Village of Belleville disallowed the claim described above on %s, under section 893.80(1g) of the Wisconsin Statutes and section 5.08 of the Village's Municipal Code.", l.Decision.On)
	pdf.MultiCell(0, 5.5, tr(body), "", "L", false)
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 10)
	limit := "No action on the claim may be brought against the Village, or against any of its officers, officials, agents or employees, after six (6) months from the date of service of this notice of disallowance."
	pdf.MultiCell(0, 5.5, tr(limit), "", "L", false)
	pdf.SetFont("Helvetica", "", 10)
	if l.Notice != nil {
		d, ok, err := l.Deadlines(params)
		if err != nil {
			return err
		}
		if ok && !d.SuitDeadline.IsZero() {
			pdf.Ln(2)
			pdf.MultiCell(0, 5.5, tr(fmt.Sprintf("This notice was served on %s; the six months end on %s.", l.Notice.On, d.SuitDeadline)), "", "L", false)
		}
	}
	pdf.Ln(10)
	pdf.CellFormat(0, 5.5, tr("Village Administrator, Village of Belleville"), "", 1, "L", false, 0, "")
	return pdf.Output(out)
}
