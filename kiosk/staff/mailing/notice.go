package mailing

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The notices of delinquency (§5.10). A village bill not paid on or
// before November 1 of its cycle year has a penalty added on November 2
// and, unpaid at the end of November 15, is certified to the tax roll by
// the November run as a special charge and a lien on the property. The
// village warns the owner twice: before November 1, and between the
// penalty and the certification.
const (
	// NoticeNovember warns, before November 1, that an unpaid bill will
	// have the penalty added and go on the tax roll.
	NoticeNovember = "november"
	// NoticeTaxRoll warns, from November 2 to November 15, that the
	// balance unpaid at the end of November 15 will be certified to the
	// tax roll.
	NoticeTaxRoll = "tax-roll"
	// NoticeInstallment warns, on or before November 15, that a special
	// assessment's installment past due and unpaid will be extended upon
	// the tax roll as a delinquent tax (§5.14(12)).
	NoticeInstallment = "installment"
)

// noticeTitle names a notice for people.
func noticeTitle(n string) string {
	switch n {
	case NoticeTaxRoll:
		return "Final notice before the tax roll"
	case NoticeInstallment:
		return "Notice of unpaid special assessment installment"
	}
	return "Notice of unpaid bill before November 1"
}

// checkNoticeDate refuses a notice dated outside its window: a notice
// before November 1 dated after it says what is no longer true, and a
// notice before the roll dated after November 15 comes too late.
func checkNoticeDate(notice string, year int, on domain.Date) error {
	switch notice {
	case NoticeNovember:
		if last := domain.PenaltyDay(year).AddDays(-1); on.After(last) {
			return domain.Errorf(domain.EINVALID, "§5.10", "A notice before November 1 is dated on or before %s; from November 2, send the final notice before the tax roll.", staff.LongDate(last))
		}
	case NoticeTaxRoll:
		if on.Before(domain.PenaltyDay(year)) || on.After(domain.TaxRollDay(year)) {
			return domain.Errorf(domain.EINVALID, "§5.10", "The final notice before the tax roll is dated from %s to %s.", staff.LongDate(domain.PenaltyDay(year)), staff.LongDate(domain.TaxRollDay(year)))
		}
	case NoticeInstallment:
		if on.After(domain.TaxRollDay(year)) {
			return domain.Errorf(domain.EINVALID, "§5.14(12)", "A notice of an unpaid special assessment installment is dated on or before %s: an installment unpaid at the end of that day is on the tax roll.", staff.LongDate(domain.TaxRollDay(year)))
		}
	default:
		return domain.Errorf(domain.EINVALID, "", "Choose the notice: before November 1, the final notice before the tax roll, or the notice of unpaid special assessment installments.")
	}
	return nil
}

// noticeDoc is a bill's notice of delinquency dated on, and whether the
// bill gets one: a bill of the cycle year, past due and unpaid, not yet
// on the roll.
func (m *Module) noticeDoc(b domain.Bill, notice string, year int, on domain.Date, charges map[string]domain.Charge) (billDoc, bool, error) {
	p := m.o.Ledger().Params()
	if b.Certified != nil || b.BilledOn.After(on) {
		return billDoc{}, false, nil
	}
	now, err := b.Figures(on, p)
	if err != nil {
		return billDoc{}, false, err
	}
	if now.TaxRollOn != domain.TaxRollDay(year) || !now.Balance.IsPositive() || now.Status != domain.BillPastDue {
		return billDoc{}, false, nil
	}
	// A notice dated before today (a copy of one sent) still goes to no
	// bill paid since: it would tell the owner a paid bill is unpaid.
	if today := m.o.Today(); today.After(on) {
		since, err := b.Figures(today, p)
		if err != nil {
			return billDoc{}, false, err
		}
		if !since.Balance.IsPositive() {
			return billDoc{}, false, nil
		}
	}
	d, err := m.villageBill(b, on, charges)
	if err != nil {
		return billDoc{}, false, err
	}
	d.heading = noticeTitle(notice)
	d.note = ""
	roll, err := b.Figures(domain.TaxRollDay(year), p)
	if err != nil {
		return billDoc{}, false, err
	}
	county := ""
	if pc, err := m.o.Ledger().Parcel(b.Parcel); err == nil {
		county = " of " + pc.County.Title() + " County"
	}
	what := fmt.Sprintf("Bill %s, for %s, billed %s, was due %s and is unpaid: %s is due as of %s.", b.Shown(), b.Description, staff.LongDate(b.BilledOn), staff.LongDate(now.DueOn), staff.Dollars(now.Balance), staff.LongDate(on))
	if notice == NoticeNovember {
		byNov1, err := b.Figures(domain.PenaltyDay(year).AddDays(-1), p)
		if err != nil {
			return billDoc{}, false, err
		}
		pen, err := b.Figures(domain.PenaltyDay(year), p)
		if err != nil {
			return billDoc{}, false, err
		}
		d.dueOn, d.amountDue = domain.PenaltyDay(year).AddDays(-1), byNov1.Balance
		d.forWhat = []string{what,
			fmt.Sprintf("Pay %s on or before %s. If the bill is not paid by then, a penalty of %s is added on %s, and the balance unpaid at the end of %s, %s, will be entered on the tax roll%s as a special charge and become a lien on the property (Village Code §5.10).",
				staff.Dollars(byNov1.Balance), staff.LongDate(d.dueOn), staff.Dollars(pen.Penalty), staff.LongDate(domain.PenaltyDay(year)), staff.LongDate(domain.TaxRollDay(year)), staff.Dollars(roll.Balance), county)}
		d.figures = append(d.figures, [2]string{"=To pay on or before " + staff.LongDate(d.dueOn), staff.Dollars(byNov1.Balance)})
	} else {
		closes := p.At(domain.TaxRollDay(year)).OfficeCloses
		d.dueOn, d.amountDue = domain.TaxRollDay(year), roll.Balance
		d.forWhat = []string{what,
			fmt.Sprintf("The bill was not paid on or before November 1, and the penalty was added on %s. Unless %s is paid by the end of %s (the village hall's window closes at %s that day), the balance will be certified to the tax roll%s as a special charge, a lien on the property, and collected with the property tax (Village Code §5.10).",
				staff.LongDate(domain.PenaltyDay(year)), staff.Dollars(roll.Balance), staff.LongDate(domain.TaxRollDay(year)), staff.ClockText(closes), county)}
		if !roll.Balance.Equal(now.Balance) {
			d.figures = append(d.figures, [2]string{"=To pay on or before " + staff.LongDate(d.dueOn), staff.Dollars(roll.Balance)})
		}
	}
	d.terms = "If you have paid this bill in the last few days, thank you: please disregard this notice."
	return d, true, nil
}

// noticeQuery reads a notice's kind, cycle year and date.
func (m *Module) noticeQuery(r *http.Request, defaultYear func(domain.Date) int) (string, int, domain.Date, error) {
	notice := r.URL.Query().Get("notice")
	on, err := m.o.LetterDate(r)
	if err != nil {
		return notice, 0, on, err
	}
	year := defaultYear(on)
	if s := r.URL.Query().Get("year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 2000 || y > 9999 {
			return notice, 0, on, domain.Errorf(domain.EINVALID, "", "The year %q is not a year like 2026.", s)
		}
		year = y
	}
	return notice, year, on, checkNoticeDate(notice, year, on)
}

// showNoticePDF is one bill's notice of delinquency: ?notice= names it,
// ?date= dates it (default today); the cycle year is the bill's.
func (m *Module) showNoticePDF(w http.ResponseWriter, r *http.Request) {
	b, err := m.o.Ledger().Bill(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cycle := func(on domain.Date) int {
		asOf := on
		if asOf.Before(b.BilledOn) {
			asOf = b.BilledOn
		}
		if fig, err := b.Figures(asOf, m.o.Ledger().Params()); err == nil {
			return fig.TaxRollOn.Year()
		}
		return on.Year()
	}
	notice, year, on, err := m.noticeQuery(r, cycle)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	charges := map[string]domain.Charge{}
	if err := m.chargesOf(b.Account, b.Parcel, charges); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	d, ok, err := m.noticeDoc(b, notice, year, on, charges)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !ok {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.10", "Bill %s is not past due and unpaid on %s in the %d cycle, or is already on the tax roll: it gets no notice.", b.Shown(), on, year))
		return
	}
	m.serveBills(w, r, noticeTitle(notice), "notice-"+b.Shown()+".pdf", []billDoc{d}, on)
}

// showNoticesBatch is every bill's notice of the cycle year ?year=
// (default the date's), one a page; or, with ?notice=installment, the
// notice of every special assessment installment that year's tax roll
// takes if it stays unpaid.
func (m *Module) showNoticesBatch(w http.ResponseWriter, r *http.Request) {
	notice, year, on, err := m.noticeQuery(r, func(on domain.Date) int { return on.Year() })
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if notice == NoticeInstallment {
		docs, err := m.installmentNotices(year, on)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		m.serveBills(w, r, noticeTitle(notice), fmt.Sprintf("notices-%s-%d-%s.pdf", notice, year, on), docs, on)
		return
	}
	bills, charges, err := m.allBills()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var docs []billDoc
	for _, b := range bills {
		d, ok, err := m.noticeDoc(b, notice, year, on, charges)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		if ok {
			docs = append(docs, d)
		}
	}
	m.serveBills(w, r, noticeTitle(notice), fmt.Sprintf("notices-%s-%d-%s.pdf", notice, year, on), docs, on)
}
