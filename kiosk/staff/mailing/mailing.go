// Package mailing is what the clerk's office mails about village bills:
// a bill (a utility bill, a special charge, any other charge, or a
// special assessment's installment) with its remittance stub, an
// account's statement (its open bills, and the special assessment
// installments on its parcels due before the next tax roll), the notices
// of delinquency before November 1 and before the tax roll is certified
// (§5.10, §5.14(13)), and the notice of an unpaid special assessment
// installment before November 15 (§5.14(12)), each
// printable singly from its page and as one batch PDF for a mailing, one
// letter a page, laid out for a No. 10 double-window envelope (staff.Letter).
// It is a staff.Module; the figures are the domain's.
package mailing

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is the mailing's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the bills', statements' and notices' routes and the mailing
// page's link.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/bills/{id}/bill.pdf", staff.CapReadBills, m.showBillPDF)
	o.Page("GET /staff/bills/{id}/notice.pdf", staff.CapReadBills, m.showNoticePDF)
	o.Page("GET /staff/accounts/{number}/statement.pdf", staff.CapReadBills, m.showStatementPDF)
	o.Page("GET /staff/assessment/{id}/installments/{n}/bill.pdf", staff.CapReadAssessments, m.showInstallmentPDF)
	o.Page("GET /staff/assessment/{id}/installments/{n}/notice.pdf", staff.CapReadAssessments, m.showInstallmentNoticePDF)
	o.Page("GET /staff/mailing", staff.CapReadBills, m.showMailingPage)
	o.Page("GET /staff/mailing/bills.pdf", staff.CapReadBills, m.showBillsBatch)
	o.Page("GET /staff/mailing/notices.pdf", staff.CapReadBills, m.showNoticesBatch)
	o.Nav(staff.CapReadBills, "Mailing", "/staff/mailing")
	return nil
}

// The kinds of bill a mailing selects. They appear in URLs only; the
// letters print their titles (kindTitle).
const (
	KindUtility    = "utility"    // a bill the office created or imported: water, sewer, refuse …
	KindSpecial    = "special"    // a special charge for current services (§5.14(13))
	KindCharge     = "charge"     // a charge billed under §5.19 or §5.21
	KindAssessment = "assessment" // a special assessment's installment (§5.14)
)

// Kinds lists the kinds of bill in the order the mailing page offers
// them.
var Kinds = []string{KindUtility, KindSpecial, KindCharge, KindAssessment}

// kindTitle names a kind of bill for people.
func kindTitle(k string) string {
	switch k {
	case KindUtility:
		return "Utility and service bills"
	case KindSpecial:
		return "Special charges (§5.14(13))"
	case KindCharge:
		return "Charges (§5.19, §5.21)"
	case KindAssessment:
		return "Special assessment installments (§5.14)"
	}
	return k
}

// billKind says which kind a village bill is: the charge that made it
// decides, else it is a utility or service bill.
func billKind(b domain.Bill, charges map[string]domain.Charge) string {
	ch, ok := charges[b.ID]
	switch {
	case !ok:
		return KindUtility
	case slices.Contains(domain.SpecialChargeCategories(), ch.What):
		return KindSpecial
	}
	return KindCharge
}

// chargesOf returns the charges that made the bills of an account and a
// parcel, by bill id.
func (m *Module) chargesOf(account, parcel string, into map[string]domain.Charge) error {
	chs, err := m.o.Reads().ChargesOfAccount(account)
	if err != nil {
		return err
	}
	sp, err := m.o.Reads().SpecialChargesOfParcel(parcel)
	if err != nil {
		return err
	}
	for _, ch := range append(chs, sp...) {
		into[ch.BillID] = ch
	}
	return nil
}

// allBills returns every village bill of the ledger, parcel by parcel,
// and the charges that made them.
func (m *Module) allBills() ([]domain.Bill, map[string]domain.Charge, error) {
	parcels, err := m.o.Ledger().Parcels()
	if err != nil {
		return nil, nil, err
	}
	charges := map[string]domain.Charge{}
	var out []domain.Bill
	seen := map[string]bool{}
	for _, pc := range parcels {
		bills, err := m.o.Ledger().BillsByParcel(pc.ID)
		if err != nil {
			return nil, nil, err
		}
		for _, b := range bills {
			if seen[b.ID] {
				continue
			}
			seen[b.ID] = true
			if err := m.chargesOf(b.Account, b.Parcel, charges); err != nil {
				return nil, nil, err
			}
			out = append(out, b)
		}
	}
	domain.SortBills(out)
	return out, charges, nil
}

// addressee returns the lines of the envelope of mail about account's
// bills on parcel (domain.MailTo), and the parcel's site address.
func (m *Module) addressee(account, parcel string) ([]string, string, error) {
	var a domain.Account
	var pc domain.Parcel
	if account != "" {
		x, err := m.o.Ledger().Account(account)
		if ok, err := staff.Found(err); err != nil {
			return nil, "", err
		} else if ok {
			a = x
		}
	}
	x, err := m.o.Ledger().Parcel(parcel)
	if ok, err := staff.Found(err); err != nil {
		return nil, "", err
	} else if ok {
		pc = x
	}
	site := pc.Address
	if site == "" {
		site = parcel
	}
	return domain.MailTo(a, pc, m.o.Letterhead().SiteCity()), site, nil
}

// stamp dates a PDF with the letters' date, so the same letters render
// the same bytes.
func (m *Module) stamp(d domain.Date) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, m.o.Location())
}

// howToPay is the paragraph every bill and notice ends with.
func (m *Module) howToPay() string {
	h := m.o.Letterhead()
	addr := ""
	for i, l := range h.AddressLines() {
		if i > 0 {
			addr += ", "
		}
		addr += l
	}
	return fmt.Sprintf("How to pay: by card at the kiosk in the village hall; at the clerk's window by cash, check or card during office hours; or by mail, with a check payable to the %s and the stub below, to %s. Write the bill's number on the check.", h.VillageName(), addr)
}

// payTo is the stub's line about checks.
func (m *Module) payTo() string {
	return fmt.Sprintf("Make checks payable to the %s. Write the bill's number on the check.", m.o.Letterhead().VillageName())
}

// billDate reads the letter's date and fails the request with a plain
// error when it cannot be read.
func (m *Module) billDate(w http.ResponseWriter, r *http.Request) (domain.Date, bool) {
	d, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return d, false
	}
	return d, true
}
