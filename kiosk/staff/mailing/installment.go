package mailing

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The notice of an unpaid special assessment installment (§5.14(12)): an
// installment not paid by the end of November 15 is extended upon the tax
// roll as a delinquent tax against the property (the November run,
// domain.Assessment.RollItems). Before that day the village warns the
// owner of an installment past due and unpaid, at the owner's mailing
// address, else the parcel's (domain.MailTo).

// installmentNotice is the notice of installment n of assessment a dated
// on, for the tax roll of cycle year, and whether it gets one: past due
// and unpaid on that day, and taken by that year's roll if it stays
// unpaid.
func (m *Module) installmentNotice(a domain.Assessment, n int, year int, on domain.Date) (billDoc, bool, error) {
	due := a.DueForRoll(on)
	i := slices.IndexFunc(due, func(f domain.InstallmentFigures) bool { return f.N == n })
	if i < 0 {
		return billDoc{}, false, nil
	}
	in := due[i]
	roll := domain.TaxRollDay(year)
	if in.Status != domain.InstallmentPastDue || domain.InstallmentRollDay(in.DueOn) != roll {
		return billDoc{}, false, nil
	}
	d, err := m.installmentBill(a, n, on)
	if err != nil {
		return billDoc{}, false, err
	}
	at := a.Figures(roll)
	j := slices.IndexFunc(at.Installments, func(f domain.InstallmentFigures) bool { return f.N == n })
	if j < 0 {
		return billDoc{}, false, nil
	}
	byRoll := at.Installments[j].Left
	county := ""
	if pc, err := m.o.Ledger().Parcel(a.Parcel); err == nil {
		county = " of " + pc.County.Title() + " County"
	}
	closes := m.o.Ledger().Params().At(roll).OfficeCloses
	d.heading = "Notice of unpaid special assessment installment"
	d.note = ""
	d.dueOn, d.amountDue = roll, byRoll
	d.forWhat = []string{
		fmt.Sprintf("Installment %d of %d of the special assessment for %s (project %s), levied on %s, was due %s and is unpaid: %s is due as of %s.",
			n, len(at.Installments), a.Purpose, a.Project, staff.LongDate(a.LeviedOn), staff.LongDate(in.DueOn), staff.Dollars(in.Left), staff.LongDate(on)),
		fmt.Sprintf("Unless %s is paid by the end of %s (the village hall's window closes at %s that day), the installment will be extended upon the tax roll%s as a delinquent tax against the property, and collected with the property tax (Village Code §5.14(12)).",
			staff.Dollars(byRoll), staff.LongDate(roll), staff.ClockText(closes), county),
	}
	d.figures = [][2]string{{"Principal of the installment", staff.Dollars(in.Principal)}}
	if in.Interest.IsPositive() {
		d.figures = append(d.figures, [2]string{"Interest to " + staff.LongDate(on), staff.Dollars(in.Interest)})
	}
	if paid := in.PrincipalPaid.Add(in.InterestPaid); paid.IsPositive() {
		d.figures = append(d.figures, [2]string{"Paid", staff.Dollars(paid.Neg())})
	}
	d.figures = append(d.figures, [2]string{"=Amount due", staff.Dollars(in.Left)})
	if !byRoll.Equal(in.Left) {
		d.figures = append(d.figures, [2]string{"=To pay on or before " + staff.LongDate(roll), staff.Dollars(byRoll)})
	}
	d.terms = "If you have paid this installment in the last few days, thank you: please disregard this notice."
	return d, true, nil
}

// showInstallmentNoticePDF is one installment's notice, dated ?date=
// (default today); its cycle year is the one whose tax roll takes the
// installment.
func (m *Module) showInstallmentNoticePDF(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	i := slices.IndexFunc(a.Installments, func(in domain.Installment) bool { return in.N == n })
	if err != nil || i < 0 {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.14", "Assessment %s has no installment %q.", a.ID, r.PathValue("n")))
		return
	}
	on, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	year := domain.InstallmentRollDay(a.Installments[i].DueOn).Year()
	if err := checkNoticeDate(NoticeInstallment, year, on); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	d, ok, err := m.installmentNotice(a, n, year, on)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.14(12)", "Installment %d of assessment %s is not past due and unpaid on %s, or is already on the tax roll: it gets no notice.", n, a.ID, on))
		return
	}
	m.serveBills(w, r, noticeTitle(NoticeInstallment), fmt.Sprintf("notice-assessment-%s-%d.pdf", a.ID, n), []billDoc{d}, on)
}

// installmentNotices returns the notices of every installment the tax
// roll of year takes if it stays unpaid, dated on, by parcel.
func (m *Module) installmentNotices(year int, on domain.Date) ([]billDoc, error) {
	projects, err := m.o.Reads().AssessmentProjects()
	if err != nil {
		return nil, err
	}
	var out []billDoc
	for _, p := range projects {
		as, err := m.o.Reads().AssessmentsOfProject(p.ID)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			for _, in := range a.DueForRoll(on) {
				d, ok, err := m.installmentNotice(a, in.N, year, on)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, d)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(x, y billDoc) int { return cmpStr(x.parcel, y.parcel) })
	return out, nil
}
