package mailing

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// billDoc is one bill as it is printed: every kind of bill is laid out
// alike.
type billDoc struct {
	kind      string
	id        string // the bill's number (an installment: "<assessment>#<n>")
	account   string
	parcel    string
	site      string
	to        []string
	heading   string
	forWhat   []string // what the bill is for, a paragraph a line
	figures   [][2]string
	dueOn     domain.Date
	amountDue domain.Money
	terms     string // the rules that apply when it is not paid
	note      string // a line in bold about its state (on the tax roll, paid)
}

// open reports whether the bill has something to pay.
func (d billDoc) open() bool { return d.amountDue.IsPositive() }

// write puts the bill on its own page of l, dated on.
func (m *Module) writeBill(l *staff.Letter, d billDoc, on domain.Date) {
	refs := [][2]string{{"Bill number", d.id}}
	if d.account != "" {
		refs = append(refs, [2]string{"Account", d.account})
	} else {
		refs = append(refs, [2]string{"Parcel", d.parcel})
	}
	refs = append(refs, [2]string{"Due date", staff.LongDate(d.dueOn)}, [2]string{"Amount due", staff.Dollars(d.amountDue)})
	stub := [][2]string{{"Bill number", d.id}}
	if d.account != "" {
		stub = append(stub, [2]string{"Account", d.account})
	}
	stub = append(stub, [2]string{"Parcel", d.parcel}, [2]string{"Due date", staff.LongDate(d.dueOn)}, [2]string{"Amount due", staff.Dollars(d.amountDue)})
	l.Start(staff.LetterStart{Date: on, To: d.to, Refs: refs, Heading: d.heading, Stub: &staff.Stub{Rows: stub, PayTo: m.payTo()}})
	for _, p := range d.forWhat {
		l.Para(p)
	}
	l.Para(fmt.Sprintf("Property: parcel %s, %s.", d.parcel, d.site))
	if d.note != "" {
		l.Strong(d.note)
	}
	l.Figures(d.figures)
	if d.terms != "" {
		l.Small(d.terms)
	}
	l.Small(m.howToPay())
	l.End()
}

// villageBill is a village bill (§5.10) as it is printed on a date: its
// figures that day.
func (m *Module) villageBill(b domain.Bill, on domain.Date, charges map[string]domain.Charge) (billDoc, error) {
	asOf := on
	if asOf.Before(b.BilledOn) {
		asOf = b.BilledOn
	}
	fig, err := b.Figures(asOf, m.o.Ledger().Params())
	if err != nil {
		return billDoc{}, err
	}
	to, site, err := m.addressee(b.Account, b.Parcel)
	if err != nil {
		return billDoc{}, err
	}
	d := billDoc{kind: billKind(b, charges), id: b.Shown(), account: b.Account, parcel: b.Parcel, site: site, to: to, dueOn: fig.DueOn, amountDue: fig.Balance}
	switch d.kind {
	case KindSpecial:
		d.heading = "Special charge"
	case KindCharge:
		d.heading = "Bill"
	default:
		d.heading = "Bill for village services"
	}
	d.forWhat = []string{fmt.Sprintf("For: %s. Billed on %s.", b.Description, staff.LongDate(b.BilledOn))}
	if ch, ok := charges[b.ID]; ok {
		d.forWhat[0] = fmt.Sprintf("For: %s, %s. Billed on %s.", domain.ChargeTitle(ch.What), ch.Reference, staff.LongDate(b.BilledOn))
		for _, it := range ch.Items {
			d.figures = append(d.figures, [2]string{it.Description, staff.Dollars(it.Amount)})
		}
	}
	if len(d.figures) == 0 || len(d.figures) > 1 {
		d.figures = append(d.figures, [2]string{"Amount billed", staff.Dollars(b.Principal)})
	}
	if fig.Interest.IsPositive() {
		d.figures = append(d.figures, [2]string{fmt.Sprintf("Interest (§5.10), %d month(s) to %s", fig.InterestMonths, staff.LongDate(asOf)), staff.Dollars(fig.Interest)})
	}
	if fig.Penalty.IsPositive() {
		d.figures = append(d.figures, [2]string{"Penalty (§5.10), unpaid on November 1", staff.Dollars(fig.Penalty)})
	}
	if fig.Paid.IsPositive() {
		d.figures = append(d.figures, [2]string{"Paid", staff.Dollars(fig.Paid.Neg())})
	}
	d.figures = append(d.figures, [2]string{"=Amount due", staff.Dollars(fig.Balance)})
	v := m.o.Ledger().Params().At(b.BilledOn)
	d.terms = fmt.Sprintf("Village Code §5.10: a bill may be paid within %d days of billing without interest. After that, interest of %s a month or any fraction of a month is charged until November 15. A bill not paid on or before November 1 has %s added and is entered on the tax roll as a special charge, a lien on the property.",
		v.ReceivableDueDays, v.ReceivableInterest.Percent(), v.ReceivablePenalty.Percent())
	switch {
	case b.Certified != nil || fig.Status == domain.BillTaxRoll:
		d.note = "This bill is on the tax roll: it is collected with the property tax, not by the village."
		d.amountDue = domain.Cents(0)
		d.figures[len(d.figures)-1] = [2]string{"=Amount due to the village", staff.Dollars(domain.Cents(0))}
	case fig.Status == domain.BillPaid:
		d.note = "This bill is paid. Thank you."
	}
	return d, nil
}

// installmentBill is a special assessment's installment as it is printed
// on a date.
func (m *Module) installmentBill(a domain.Assessment, n int, on domain.Date) (billDoc, error) {
	fig := a.Figures(on)
	i := slices.IndexFunc(fig.Installments, func(f domain.InstallmentFigures) bool { return f.N == n })
	if i < 0 {
		return billDoc{}, domain.Errorf(domain.ENOTFOUND, "§5.14", "Assessment %s has no installment %d.", a.ID, n)
	}
	in := fig.Installments[i]
	to, site, err := m.addressee("", a.Parcel)
	if err != nil {
		return billDoc{}, err
	}
	d := billDoc{kind: KindAssessment, id: domain.InstallmentKey(a.ID, n), parcel: a.Parcel, site: site, to: to, dueOn: in.DueOn, amountDue: in.Left,
		heading: fmt.Sprintf("Special assessment, installment %d of %d", n, len(fig.Installments))}
	d.forWhat = []string{fmt.Sprintf("For: %s (project %s), levied on %s; this installment is due %s.", a.Purpose, a.Project, staff.LongDate(a.LeviedOn), staff.LongDate(in.DueOn))}
	d.figures = [][2]string{{"Principal of the installment", staff.Dollars(in.Principal)}}
	if in.Interest.IsPositive() {
		d.figures = append(d.figures, [2]string{"Interest to " + staff.LongDate(on), staff.Dollars(in.Interest)})
	}
	if paid := in.PrincipalPaid.Add(in.InterestPaid); paid.IsPositive() {
		d.figures = append(d.figures, [2]string{"Paid", staff.Dollars(paid.Neg())})
	}
	d.figures = append(d.figures, [2]string{"=Amount due", staff.Dollars(in.Left)})
	if fig.Payable.GreaterThan(in.Left) {
		d.figures = append(d.figures, [2]string{"The whole assessment may be paid off with", staff.Dollars(fig.Payable)})
	}
	d.terms = "Village Code §5.14(12): a special assessment is a lien on the property; an installment not paid by its due date is extended upon the tax roll as a delinquent tax against the property."
	switch in.Status {
	case domain.InstallmentTaxRoll:
		d.note = "This installment is on the tax roll: it is collected with the property tax, not by the village."
		d.amountDue = domain.Cents(0)
	case domain.InstallmentPaid:
		d.note = "This installment is paid. Thank you."
	}
	return d, nil
}

// showBillPDF is one village bill, dated ?date= (default today), to mail.
func (m *Module) showBillPDF(w http.ResponseWriter, r *http.Request) {
	on, ok := m.billDate(w, r)
	if !ok {
		return
	}
	b, err := m.o.Ledger().Bill(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	charges := map[string]domain.Charge{}
	if err := m.chargesOf(b.Account, b.Parcel, charges); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	d, err := m.villageBill(b, on, charges)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.serveBills(w, r, "Bill "+b.Shown(), "bill-"+b.Shown()+".pdf", []billDoc{d}, on)
}

// showInstallmentPDF is one installment of a special assessment.
func (m *Module) showInstallmentPDF(w http.ResponseWriter, r *http.Request) {
	on, ok := m.billDate(w, r)
	if !ok {
		return
	}
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.14", "Assessment %s has no installment %q.", a.ID, r.PathValue("n")))
		return
	}
	d, err := m.installmentBill(a, n, on)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.serveBills(w, r, "Special assessment "+d.id, fmt.Sprintf("assessment-%s-%d.pdf", a.ID, n), []billDoc{d}, on)
}

// serveBills writes the bills, each on its own page, as one PDF.
func (m *Module) serveBills(w http.ResponseWriter, r *http.Request, title, file string, docs []billDoc, on domain.Date) {
	l := m.o.NewLetter(title, m.stamp(on))
	for _, d := range docs {
		m.writeBill(l, d, on)
	}
	if len(docs) == 0 {
		l.Start(staff.LetterStart{Date: on, Heading: title})
		l.Para("No bill matches: there is nothing to mail.")
		l.End()
	}
	var buf bytes.Buffer
	if err := l.Output(&buf); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	staff.ServePDF(w, file, buf.Bytes())
}

// batchQuery is what a batch of bills selects: a kind, and the due dates
// from and to (inclusive, either open).
type batchQuery struct {
	kind     string
	from, to domain.Date
	on       domain.Date
}

// readBatch reads a batch's query; a kind or a date that cannot be read
// is an error.
func (m *Module) readBatch(r *http.Request) (batchQuery, error) {
	q := r.URL.Query()
	b := batchQuery{kind: q.Get("kind")}
	if !slices.Contains(Kinds, b.kind) {
		return b, domain.Errorf(domain.EINVALID, "", "Choose the kind of bills to mail: utility and service bills, special charges, charges or special assessment installments.")
	}
	var err error
	if b.on, err = m.o.LetterDate(r); err != nil {
		return b, err
	}
	if s := q.Get("due_from"); s != "" {
		if b.from, err = staff.ParseDate("The first due date", s); err != nil {
			return b, err
		}
	}
	if s := q.Get("due_to"); s != "" {
		if b.to, err = staff.ParseDate("The last due date", s); err != nil {
			return b, err
		}
	}
	if !b.from.IsZero() && !b.to.IsZero() && b.to.Before(b.from) {
		return b, domain.Errorf(domain.EINVALID, "", "The last due date (%s) is before the first (%s).", b.to, b.from)
	}
	return b, nil
}

// dueIn reports whether a due date is in the batch's period.
func (b batchQuery) dueIn(d domain.Date) bool {
	return (b.from.IsZero() || !d.Before(b.from)) && (b.to.IsZero() || !d.After(b.to))
}

// batchBills returns the open bills of a batch, by parcel then number.
func (m *Module) batchBills(b batchQuery) ([]billDoc, error) {
	var out []billDoc
	if b.kind == KindAssessment {
		projects, err := m.o.Reads().AssessmentProjects()
		if err != nil {
			return nil, err
		}
		for _, p := range projects {
			as, err := m.o.Reads().AssessmentsOfProject(p.ID)
			if err != nil {
				return nil, err
			}
			for _, a := range as {
				for _, in := range a.Figures(b.on).Installments {
					if !in.Payable() || !b.dueIn(in.DueOn) {
						continue
					}
					d, err := m.installmentBill(a, in.N, b.on)
					if err != nil {
						return nil, err
					}
					if d.open() {
						out = append(out, d)
					}
				}
			}
		}
		slices.SortStableFunc(out, func(x, y billDoc) int { return cmpStr(x.parcel, y.parcel) })
		return out, nil
	}
	bills, charges, err := m.allBills()
	if err != nil {
		return nil, err
	}
	for _, bl := range bills {
		if billKind(bl, charges) != b.kind || bl.BilledOn.After(b.on) {
			continue
		}
		d, err := m.villageBill(bl, b.on, charges)
		if err != nil {
			return nil, err
		}
		if d.open() && b.dueIn(d.dueOn) {
			out = append(out, d)
		}
	}
	return out, nil
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// showBillsBatch is every open bill of a kind due in a period, each on
// its own page, as one PDF for a mailing.
func (m *Module) showBillsBatch(w http.ResponseWriter, r *http.Request) {
	b, err := m.readBatch(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	docs, err := m.batchBills(b)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.serveBills(w, r, kindTitle(b.kind)+" to mail", fmt.Sprintf("bills-%s-%s.pdf", b.kind, b.on), docs, b.on)
}
