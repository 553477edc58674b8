package mailing

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// showStatementPDF is an account's statement dated ?date= (default
// today): its open bills with their balances that day, and the payments
// posted since ?since= (default a year before), with a stub for the
// total.
func (m *Module) showStatementPDF(w http.ResponseWriter, r *http.Request) {
	on, ok := m.billDate(w, r)
	if !ok {
		return
	}
	since := on.AddMonths(-12)
	if s := r.URL.Query().Get("since"); s != "" {
		d, err := staff.ParseDate("The first day of the payments listed", s)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		if d.After(on) {
			m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "", "The payments listed start on %s, after the statement's date %s.", d, on))
			return
		}
		since = d
	}
	a, err := m.o.Ledger().Account(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := m.statement(&buf, a, on, since); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	staff.ServePDF(w, "statement-"+a.Number+"-"+on.String()+".pdf", buf.Bytes())
}

// statement writes an account's statement.
func (m *Module) statement(out *bytes.Buffer, a domain.Account, on, since domain.Date) error {
	bills, err := m.o.Ledger().BillsByAccount(a.Number)
	if err != nil {
		return err
	}
	domain.SortBills(bills)
	parcel := ""
	if len(a.Parcels) > 0 {
		parcel = a.Parcels[0]
	}
	charges := map[string]domain.Charge{}
	var open [][]string
	total := domain.Cents(0)
	type payment struct {
		on                           domain.Date
		receipt, bill, tender, money string
	}
	var paid []payment
	for _, b := range bills {
		if err := m.chargesOf(b.Account, b.Parcel, charges); err != nil {
			return err
		}
		if parcel == "" {
			parcel = b.Parcel
		}
		for _, p := range b.Payments {
			if !p.At.Date.Before(since) && !p.At.Date.After(on) {
				paid = append(paid, payment{p.At.Date, p.Receipt, b.Shown(), tenderTitle(p.Tender), staff.Dollars(p.Amount)})
			}
		}
		if b.BilledOn.After(on) {
			continue
		}
		d, err := m.villageBill(b, on, charges)
		if err != nil {
			return err
		}
		if !d.open() {
			continue
		}
		open = append(open, []string{b.Shown(), b.BilledOn.String(), b.Description, d.dueOn.String(), staff.Dollars(d.amountDue)})
		total = total.Add(d.amountDue)
	}
	sort.SliceStable(paid, func(i, j int) bool { return paid[i].on.Before(paid[j].on) })
	installments, owed, err := m.installmentsDue(a, on)
	if err != nil {
		return err
	}
	billsTotal := total
	total = total.Add(owed)
	to, _, err := m.addressee(a.Number, parcel)
	if err != nil {
		return err
	}
	l := m.o.NewLetter("Statement of account "+a.Number, m.stamp(on))
	stub := [][2]string{{"Account", a.Number}, {"Statement of", staff.LongDate(on)}, {"Amount due", staff.Dollars(total)}}
	l.Start(staff.LetterStart{Date: on, To: to, Refs: [][2]string{{"Account", a.Number}, {"Amount due", staff.Dollars(total)}},
		Heading: "Statement of account", Stub: &staff.Stub{Rows: stub, PayTo: fmt.Sprintf("Make checks payable to the %s. Write the account number on the check.", m.o.Letterhead().VillageName())}})
	l.Para(fmt.Sprintf("Account %s, %s: the village bills open on %s, with what each owes that day (interest and penalty under Village Code §5.10 included), the special assessment installments on the account's property due before the next tax roll, and the payments posted from %s to %s.", a.Number, a.Name, staff.LongDate(on), staff.LongDate(since), staff.LongDate(on)))
	w := l.Width
	l.Heading("Open bills")
	if len(open) == 0 {
		l.Para("No bill is open: nothing is due.")
	} else {
		open = append(open, []string{"Total due", "", "", "", staff.Dollars(billsTotal)})
		l.Table([]staff.Column{{Title: "Bill", Width: 44}, {Title: "Billed", Width: 22}, {Title: "For", Width: w - 44 - 22 - 22 - 28}, {Title: "Due", Width: 22}, {Title: "Balance", Width: 28, Amount: true}}, open, true)
	}
	if len(installments) > 0 {
		l.Heading("Special assessment installments")
		installments = append(installments, []string{"Total due", "", "", "", staff.Dollars(owed)})
		l.Table([]staff.Column{{Title: "Installment", Width: 58}, {Title: "For", Width: w - 58 - 22 - 22 - 28}, {Title: "Due", Width: 22}, {Title: "State", Width: 22}, {Title: "Amount due", Width: 28, Amount: true}}, installments, true)
		l.Small(fmt.Sprintf("Village Code §5.14(12): an installment not paid by the end of %s is extended upon the tax roll as a delinquent tax against the property. Write the installment's number on the check.", staff.LongDate(domain.InstallmentRollDay(on))))
		if len(open) > 0 {
			l.Strong(fmt.Sprintf("Total due: %s of open bills and %s of installments, %s in all.", staff.Dollars(billsTotal), staff.Dollars(owed), staff.Dollars(total)))
		}
	}
	l.Heading("Payments received")
	if len(paid) == 0 {
		l.Para("No payment was posted in that time.")
	} else {
		var rows [][]string
		for _, p := range paid {
			rows = append(rows, []string{p.on.String(), p.receipt, p.bill, p.tender, p.money})
		}
		l.Table([]staff.Column{{Title: "Date", Width: 24}, {Title: "Receipt", Width: 50}, {Title: "Bill", Width: w - 24 - 50 - 30 - 28}, {Title: "Paid by", Width: 30}, {Title: "Amount", Width: 28, Amount: true}}, rows, false)
	}
	l.Small(m.howToPay())
	return l.Output(out)
}

// tenderTitle names a tender for people.
func tenderTitle(t domain.Tender) string {
	switch t {
	case domain.Card:
		return "Card"
	case domain.Cash:
		return "Cash"
	case domain.Check:
		return "Check"
	}
	return string(t)
}

// installmentsDue returns the rows of the special assessment installments
// on the account's parcels that are owed on day on before the next tax
// roll (domain.Assessment.DueForRoll), and what they owe together.
func (m *Module) installmentsDue(a domain.Account, on domain.Date) ([][]string, domain.Money, error) {
	var rows [][]string
	owed := domain.Cents(0)
	for _, parcel := range a.Parcels {
		as, err := m.o.Reads().AssessmentsOfParcel(parcel)
		if err != nil {
			return nil, owed, err
		}
		for _, x := range as {
			for _, in := range x.DueForRoll(on) {
				state := "due"
				if in.Status == domain.InstallmentPastDue {
					state = "past due"
				}
				rows = append(rows, []string{domain.InstallmentKey(x.ID, in.N), fmt.Sprintf("%s, %d of %d", x.Purpose, in.N, len(x.Installments)), in.DueOn.String(), state, staff.Dollars(in.Left)})
				owed = owed.Add(in.Left)
			}
		}
	}
	return rows, owed, nil
}
