package assessments

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// showNoticeLetters serves the mail merge of a notice (§5.14(6)): one
// letter for every interested person of the district whose address is
// known, with the notice's text and the parcel's proposed assessment, as
// one PDF to print and mail. ?notice= names the notice (its command id);
// the latest by default.
func (m *Module) showNoticeLetters(w http.ResponseWriter, r *http.Request) {
	p, err := m.o.Reads().AssessmentProject(r.PathValue("project"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, ok := p.LastNotice()
	if id := r.URL.Query().Get("notice"); id != "" {
		ok = false
		for _, x := range p.Notices {
			if x.CommandID == id {
				n, ok = x, true
			}
		}
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.14(6)", "Project %s has no such notice.", p.ID))
		return
	}
	at := p.AdoptedOn
	var when domain.DateTime
	for _, s := range p.Steps {
		if s.CommandID == n.CommandID {
			when = s.At
		}
	}
	if when.IsZero() {
		when = domain.NewDateTime(at, 0, 0, 0)
	}
	sched, err := p.Schedule(m.o.Ledger().Params())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var letters []noticeLetter
	for _, id := range p.District {
		pc := m.parcelOf(id)
		if pc.Mailing.IsZero() && (strings.TrimSpace(pc.Owner) == "" || strings.TrimSpace(pc.Address) == "") {
			continue
		}
		row, _ := sched.Row(id)
		letters = append(letters, noticeLetter{parcel: pc, row: row, to: domain.MailTo(domain.Account{}, pc, m.o.Letterhead().SiteCity())})
	}
	var buf bytes.Buffer
	if err := noticeLettersPDF(&buf, m.o.Letterhead(), p, n, letters, when, m.o.Location()); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="notice-%s-%s.pdf"`, p.ID, n.NoticeOn))
	_, _ = w.Write(buf.Bytes())
}

// noticeLetter is one letter of a mail merge: the owner's parcel, its
// row of the schedule, and the envelope's lines (the owner's mailing
// address when the village knows it, else the parcel's).
type noticeLetter struct {
	parcel domain.Parcel
	row    domain.ScheduleRow
	to     []string
}

// noticeLettersPDF writes the letters of a notice, one page each, on the
// office's letter layout, dated the day the notice was given. The PDF's
// dates are the notice's recording time, so the same notice always
// renders to the same bytes.
func noticeLettersPDF(out *bytes.Buffer, head staff.Letterhead, p domain.Project, n domain.Notice, letters []noticeLetter, when domain.DateTime, loc *time.Location) error {
	l := staff.NewLetter(head, "Notice of hearing on special assessments, project "+p.ID, when.Time(loc))
	for _, x := range letters {
		l.Start(staff.LetterStart{Date: n.NoticeOn, To: x.to, Refs: [][2]string{{"Project", p.ID}, {"Parcel", x.parcel.ID}, {"Hearing", staff.LongDate(n.HearingOn)}},
			Heading: "Notice of public hearing on proposed special assessments"})
		l.Para(fmt.Sprintf("The Village Board adopted preliminary resolution %s on %s declaring its intention to levy special assessments for: %s (project %s).", p.Number, staff.LongDate(p.AdoptedOn), p.Purpose, p.ID))
		l.Para(staff.Sentence("The assessment district: " + p.Limits))
		l.Para(staff.Sentence(fmt.Sprintf("The report of the %s, with the plans and specifications, the estimate of the cost and the proposed assessment of every parcel, may be inspected at %s", p.Officer, n.Inspection)))
		l.Para(staff.Sentence(fmt.Sprintf("The Village Board will hear all interested persons, their agents or attorneys concerning the matters contained in the preliminary resolution and the report on %s at %s", staff.LongDate(n.HearingOn), n.HearingAt)))
		l.Heading("Your parcel " + x.parcel.ID)
		var rows [][2]string
		for i, line := range x.row.Lines {
			label := "Assessment of benefits: " + p.Improvements[i]
			if line.Separate {
				label += " (assessed separately: you objected to combining it)"
			}
			rows = append(rows, [2]string{label, staff.Dollars(line.Assessment)})
		}
		if x.row.Exempt {
			rows = append(rows, [2]string{"Exempt by law: the village pays this parcel's share", staff.Dollars(x.row.VillagePays)})
		} else if x.row.VillagePays.IsPositive() {
			rows = append(rows, [2]string{"Corner lot deduction, paid by the village", staff.Dollars(x.row.VillagePays)})
		}
		if x.row.Damages.IsPositive() {
			rows = append(rows, [2]string{"Damages awarded", staff.Dollars(x.row.Damages.Neg())})
		}
		rows = append(rows, [2]string{"=Proposed assessment", staff.Dollars(x.row.Net)})
		if x.row.Compensation.IsPositive() {
			rows = append(rows, [2]string{"Compensation owed to you", staff.Dollars(x.row.Compensation)})
		}
		l.Figures(rows)
		installments := "The number of installments will be determined at the hearing."
		if p.Installments > 0 {
			installments = fmt.Sprintf("The assessment may be paid in %d installments.", p.Installments)
		}
		l.Para(installments)
		l.Small("Notice given under §5.14(6) of the " + head.VillageName() + " Code of Ordinances by " + n.Method + " on " + staff.LongDate(n.NoticeOn) + "; this copy is mailed to each interested person whose address is known.")
		l.End()
	}
	if len(letters) == 0 {
		l.Start(staff.LetterStart{Date: n.NoticeOn, Heading: "Notice of public hearing on proposed special assessments"})
		l.Para("No owner of the district has a known address: no letter to mail.")
		l.End()
	}
	return l.Output(out)
}

// showRepairLetters serves the mail merge of a repair hearing's notice
// (§5.14(13)): a copy for every interested person whose post office
// address is known, one letter a page, dated the day it is mailed.
func (m *Module) showRepairLetters(w http.ResponseWriter, r *http.Request) {
	ns, err := m.o.Reads().RepairNotices()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var n domain.RepairHearingNotice
	for _, x := range ns {
		if x.ID == r.PathValue("id") {
			n = x
		}
	}
	if n.ID == "" {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.14(13)", "There is no repair notice %q.", r.PathValue("id")))
		return
	}
	head := m.o.Letterhead()
	l := m.o.NewLetter("Notice of hearing on "+strings.ToLower(strings.TrimPrefix(domain.ChargeTitle(n.Category), "Special charge: ")), n.At.Time(m.o.Location()))
	what := strings.TrimSuffix(strings.TrimPrefix(domain.ChargeTitle(n.Category), "Special charge: "), " (§5.14(13))")
	sent := 0
	for _, id := range n.Parcels {
		pc := m.parcelOf(id)
		if pc.Mailing.IsZero() && (strings.TrimSpace(pc.Owner) == "" || strings.TrimSpace(pc.Address) == "") {
			continue
		}
		sent++
		l.Start(staff.LetterStart{Date: n.MailedOn, To: domain.MailTo(domain.Account{}, pc, head.SiteCity()), Refs: [][2]string{{"Notice", n.ID}, {"Parcel", pc.ID}, {"Hearing", staff.LongDate(n.HearingOn)}},
			Heading: "Notice of hearing on " + what})
		l.Para(staff.Sentence(fmt.Sprintf("On %s, at %s, the Village Board will hold a hearing on whether the following service shall be performed: %s, %s", staff.LongDate(n.HearingOn), n.HearingAt, what, n.Description)))
		l.Para(fmt.Sprintf("If the service is performed, its cost may be charged to the property served, including your parcel %s at %s, as a special charge under §5.14(13) of the Village Code and Wis. Stat. 66.0809. A special charge is not payable in installments; if it is not paid within the period the Village Board fixes, it becomes a lien on the property and is placed on the tax roll.", pc.ID, pc.Address))
		published := "posted in three places in the village"
		if n.Newspaper != "" {
			published = "published in the " + n.Newspaper
		}
		l.Para(fmt.Sprintf("This notice was %s on %s and is mailed to every interested person whose post office address is known, at least ten days before the hearing.", published, staff.LongDate(n.PublishedOn)))
		l.Sign("Clerk's office")
		l.End()
	}
	if sent == 0 {
		l.Start(staff.LetterStart{Date: n.MailedOn, Heading: "Notice of hearing on " + what})
		l.Para("No owner of these parcels has a known address: no letter to mail.")
		l.End()
	}
	var buf bytes.Buffer
	if err := l.Output(&buf); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	staff.ServePDF(w, "repair-notice-"+n.ID+".pdf", buf.Bytes())
}
