package domain

import (
	"fmt"
	"sort"
	"strings"
)

// Collections and indexes of property tax bills (Ch. 74). TaxBillsByParcel
// keys are "<parcel>/<tax year>/<id>"; TaxBillsByCounty keys are
// "<county>/<tax year>/<id>", so the roll and settlements of one county and
// year are one prefix scan.
const (
	TaxBills         = "tax-bills"
	TaxBillsByParcel = "tax-bills-by-parcel"
	TaxBillsByCounty = "tax-bills-by-county"
)

// TaxItem is one special item on a property tax bill: a special
// assessment, a special charge (a §5.10 bill put on the roll) or a special
// tax.
type TaxItem struct {
	Description string `json:"description"`
	Amount      Money  `json:"amount"`
	BillID      string `json:"bill_id,omitempty"` // the village bill it came from, if any
}

// TaxPayment is one payment on a property tax bill.
type TaxPayment struct {
	CommandID  string        `json:"command_id"`
	Receipt    string        `json:"receipt"`
	At         DateTime      `json:"at"`
	Amount     Money         `json:"amount"`
	Option     TaxOption     `json:"option"`
	Tender     Tender        `json:"tender"`
	Reference  string        `json:"reference,omitempty"`
	Allocation TaxAllocation `json:"allocation"`
}

// TaxAllocation is how a property tax payment was applied: special items
// first (they are never split into installments, §5.14), then the general
// tax; anything beyond the bill is an overpayment, refunded under §5.07(1).
type TaxAllocation struct {
	SpecialItems Money `json:"special_items"`
	GeneralTax   Money `json:"general_tax"`
	Overpayment  Money `json:"overpayment"`
}

// TaxOption is what a resident chose to pay on a tax bill.
type TaxOption string

// Payment options on a property tax bill (Ch. 74).
const (
	TaxFull             TaxOption = "full"              // the whole balance
	TaxFirstInstallment TaxOption = "first_installment" // what is left of the first installment
)

// Valid reports whether o is a known option.
func (o TaxOption) Valid() bool { return o == TaxFull || o == TaxFirstInstallment }

// TaxBill is a property tax bill of one parcel on the roll of one year, kept
// per county: the general property tax and the special items, and the
// payments the village treasurer took on it.
type TaxBill struct {
	ID           string       `json:"id"`
	Parcel       string       `json:"parcel"`
	County       County       `json:"county"`
	TaxYear      int          `json:"tax_year"`
	IssuedOn     Date         `json:"issued_on"`
	GeneralTax   Money        `json:"general_tax"`
	SpecialItems []TaxItem    `json:"special_items,omitempty"`
	Payments     []TaxPayment `json:"payments,omitempty"`
}

// TaxBillID returns the id of the tax bill of a parcel on the roll of a
// year: "T<year>-<parcel>".
func TaxBillID(year int, parcel string) string { return fmt.Sprintf("T%d-%s", year, parcel) }

// ParcelKey and CountyKey return the bill's keys in TaxBillsByParcel and
// TaxBillsByCounty.
func (t TaxBill) ParcelKey() string { return fmt.Sprintf("%s/%04d/%s", t.Parcel, t.TaxYear, t.ID) }

// CountyKey returns the bill's key in TaxBillsByCounty.
func (t TaxBill) CountyKey() string { return fmt.Sprintf("%s/%04d/%s", t.County, t.TaxYear, t.ID) }

// Specials returns the sum of the special items.
func (t TaxBill) Specials() Money {
	sum := Money{}
	for _, it := range t.SpecialItems {
		sum = sum.Add(it.Amount)
	}
	return sum
}

// Validate checks a tax bill as it is written: an id, a parcel, a county of
// the village, a tax year, no negative amounts.
func (t TaxBill) Validate() error {
	switch {
	case t.ID == "" || t.Parcel == "":
		return Errorf(EINVALID, sectionInstallment, "A tax bill needs an id and a parcel.")
	case !t.County.Valid():
		return Errorf(EINVALID, sectionInstallment, "Tax bill %s: %q is not a county of the village.", t.ID, t.County)
	case t.TaxYear < 1900 || t.TaxYear > 9998:
		return Errorf(EINVALID, sectionInstallment, "Tax bill %s: %d is not a tax year.", t.ID, t.TaxYear)
	case t.GeneralTax.IsNegative():
		return Errorf(EINVALID, sectionInstallment, "Tax bill %s: the general tax is negative.", t.ID)
	}
	for _, it := range t.SpecialItems {
		if it.Amount.IsNegative() {
			return Errorf(EINVALID, sectionInstallment, "Tax bill %s: special item %q is negative.", t.ID, it.Description)
		}
	}
	return nil
}

// TaxStatus is where a tax bill stands.
type TaxStatus string

// Tax bill statuses.
const (
	TaxOpen      TaxStatus = "open"       // nothing, or less than the first installment, paid
	TaxFirstPaid TaxStatus = "first_paid" // the first installment is paid; the second is due July 31
	TaxPaid      TaxStatus = "paid"       // paid in full
)

// Words says where the tax bill stands in a sentence a reader of a
// letter understands: "first installment paid".
func (s TaxStatus) Words() string {
	switch s {
	case TaxOpen:
		return "unpaid"
	case TaxFirstPaid:
		return "first installment paid, second installment unpaid"
	case TaxPaid:
		return "paid in full"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// TaxFigures are a tax bill's Ch. 74 installments and what is left to pay.
type TaxFigures struct {
	Installments
	Specials  Money     `json:"specials"`
	Paid      Money     `json:"paid"`
	Balance   Money     `json:"balance"`    // the whole bill less payments, never below 0.00
	FirstLeft Money     `json:"first_left"` // what is left of the first installment
	Status    TaxStatus `json:"status"`
}

// Figures returns the bill's installments (ComputeFirstInstallment) and
// what its payments leave to pay.
func (t TaxBill) Figures(p *Params) (TaxFigures, error) {
	var f TaxFigures
	inst, err := ComputeFirstInstallment(InstallmentInput{TaxYear: t.TaxYear, GeneralTax: t.GeneralTax, SpecialItems: t.Specials()}, p)
	if err != nil {
		return f, err
	}
	f.Installments = inst
	f.Specials = t.Specials()
	for _, pay := range t.Payments {
		f.Paid = f.Paid.Add(pay.Amount)
	}
	f.Balance = inst.Total.Sub(f.Paid).Max(Money{})
	f.FirstLeft = inst.FirstInstallment.Sub(f.Paid).Max(Money{})
	switch {
	case f.Balance.IsZero():
		f.Status = TaxPaid
	case f.FirstLeft.IsZero():
		f.Status = TaxFirstPaid
	default:
		f.Status = TaxOpen
	}
	return f, nil
}

// Amount returns what option o pays on a bill with figures f, and whether
// it is open: the full balance, or the rest of the first installment while
// installments are allowed and it is not paid.
func (f TaxFigures) Amount(o TaxOption) (Money, bool) {
	switch o {
	case TaxFull:
		return f.Balance, f.Balance.IsPositive()
	case TaxFirstInstallment:
		return f.FirstLeft, f.InstallmentsAllowed && f.FirstLeft.IsPositive() && f.FirstLeft.LessThan(f.Balance)
	}
	return Money{}, false
}

// VillageCollects reports whether the village treasurer takes payments on
// the bill on day d: from its issue until the first installment's due date,
// January 31. After that the county treasurer collects (Ch. 74).
func (t TaxBill) VillageCollects(d Date, f TaxFigures) bool {
	return !d.Before(t.IssuedOn) && !d.After(f.FirstDueOn)
}

// PayPropertyTax pays a property tax bill in full or its first installment.
type PayPropertyTax struct {
	TaxBillID string    `json:"tax_bill_id"`
	Option    TaxOption `json:"option"`
	Amount    Money     `json:"amount"`
	Tender    Tender    `json:"tender"`
	Reference string    `json:"reference,omitempty"`
	Payer     string    `json:"payer,omitempty"`
	// Card is what the terminal showed of the card (card.go); the kiosk
	// sends it from ledger format 3.
	Card *CardShown `json:"card,omitempty"`
}

// applyPayPropertyTax posts a payment to a property tax bill (Ch. 74): the
// village treasurer takes payments from the bill's issue until January 31
// of the year after the roll year. The payment goes to the special items,
// then the general tax; money beyond the bill (it was paid meanwhile at
// another node) is an overpayment with a refund due under §5.07(1). The
// amount is not checked against the option: the option records what the
// resident chose; the kiosk charges exactly that amount.
func applyPayPropertyTax(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	pay := c.Payload.(*PayPropertyTax)
	if err := checkPaymentAmount(tx, pay.Amount, c.At.Date, p); err != nil {
		return err
	}
	if !pay.Tender.Valid() {
		return Errorf(EINVALID, "", "Unknown tender %q.", pay.Tender)
	}
	if !pay.Option.Valid() {
		return Errorf(EINVALID, sectionInstallment, "Unknown payment option %q.", pay.Option)
	}
	card, err := receiptCard(tx, pay.Card, pay.Tender)
	if err != nil {
		return err
	}
	var t TaxBill
	found, err := tx.Get(TaxBills, pay.TaxBillID, &t)
	if err != nil {
		return err
	}
	if !found {
		return Errorf(ENOTFOUND, sectionInstallment, "There is no tax bill %q.", pay.TaxBillID)
	}
	before, err := t.Figures(p)
	if err != nil {
		return err
	}
	if !t.VillageCollects(c.At.Date, before) {
		if c.At.Date.Before(t.IssuedOn) {
			return Errorf(ECONFLICT, sectionInstallment, "The %d tax bill is not issued until %s.", t.TaxYear, t.IssuedOn)
		}
		return Errorf(ECONFLICT, sectionInstallment, "After %s the %d tax is paid to the %s County treasurer.", before.FirstDueOn, t.TaxYear, t.County.Title())
	}
	alloc := TaxAllocation{}
	left := pay.Amount
	specialsLeft := before.Specials.Sub(paidToSpecials(t.Payments)).Max(Money{})
	alloc.SpecialItems = left.Min(specialsLeft)
	left = left.Sub(alloc.SpecialItems)
	generalLeft := before.Balance.Sub(specialsLeft).Max(Money{})
	alloc.GeneralTax = left.Min(generalLeft)
	alloc.Overpayment = left.Sub(alloc.GeneralTax)
	t.Payments = append(t.Payments, TaxPayment{
		CommandID:  c.ID,
		Receipt:    c.ReceiptNumber(),
		At:         c.At,
		Amount:     pay.Amount,
		Option:     pay.Option,
		Tender:     pay.Tender,
		Reference:  pay.Reference,
		Allocation: alloc,
	})
	after, err := t.Figures(p)
	if err != nil {
		return err
	}
	if err := tx.Put(TaxBills, t.ID, t); err != nil {
		return err
	}
	rc := Receipt{
		Number:    c.ReceiptNumber(),
		Kind:      KindPayPropertyTax,
		CommandID: c.ID,
		Status:    Posted,
		BillID:    t.ID,
		Parcel:    t.Parcel,
		Payer:     pay.Payer,
		At:        c.At,
		Amount:    pay.Amount,
		Tender:    pay.Tender,
		Reference: pay.Reference,
		Card:      card,
		// The receivable's allocation fields carry the tax's: special
		// items in Penalty's place would mislead, so only the total
		// applied (Principal) and the overpayment are set.
		Allocation: Allocation{Principal: alloc.SpecialItems.Add(alloc.GeneralTax), Overpayment: alloc.Overpayment},
		Balance:    after.Balance,
		Node:       c.Node,
		Index:      index,
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	return recordOverpayment(tx, c, rc, "", p, res)
}

// paidToSpecials returns how much of the payments went to special items.
func paidToSpecials(pays []TaxPayment) Money {
	sum := Money{}
	for _, p := range pays {
		sum = sum.Add(p.Allocation.SpecialItems)
	}
	return sum
}

// PutTaxBill writes a tax bill and its index entries; the demo seed and the
// clerk's roll import use it.
func PutTaxBill(tx Tx, t TaxBill) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if err := tx.Put(TaxBills, t.ID, t); err != nil {
		return err
	}
	if err := tx.Index(TaxBillsByParcel, t.ParcelKey()); err != nil {
		return err
	}
	return tx.Index(TaxBillsByCounty, t.CountyKey())
}

// SortTaxBills orders tax bills newest roll first, then by id.
func SortTaxBills(ts []TaxBill) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].TaxYear != ts[j].TaxYear {
			return ts[i].TaxYear > ts[j].TaxYear
		}
		return ts[i].ID < ts[j].ID
	})
}

// TaxBillsOfParcel reads the tax bills of a parcel through
// TaxBillsByParcel, newest roll first.
func TaxBillsOfParcel(r Records, parcel string) ([]TaxBill, error) {
	keys, err := r.Keys(TaxBillsByParcel, parcel+"/")
	if err != nil {
		return nil, err
	}
	out := make([]TaxBill, 0, len(keys))
	for _, k := range keys {
		id := k[strings.LastIndexByte(k, '/')+1:]
		var t TaxBill
		if err := r.Get(TaxBills, id, &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	SortTaxBills(out)
	return out, nil
}

// KindPayPropertyTax is a property tax payment (Ch. 74), at the kiosk.
const KindPayPropertyTax Kind = "pay_property_tax"

// Kind names the payload's kind.
func (*PayPropertyTax) Kind() Kind { return KindPayPropertyTax }

var payPropertyTaxKind = &Descriptor{
	Kind: KindPayPropertyTax, Section: sectionInstallment, Offline: true, Resident: true,
	New: func() Payload { return new(PayPropertyTax) },
	Apply: func(tx Tx, c Command, e Env, res *Result) error {
		return applyPayPropertyTax(tx, c, e.Index, e.Params, res)
	},
	Books: propertyTaxLines,
	Receipt: func(c Command) *Receipt {
		p := c.Payload.(*PayPropertyTax)
		rc := provisional(c)
		rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.TaxBillID, p.Payer, p.Amount, p.Tender, p.Reference, p.Card.shown()
		return rc
	},
}

// taxFund returns the fund that holds the property tax the village
// treasurer collects: the fund of the revenue line collecting property
// tax receipts, else the general fund.
func taxFund(l *Lines) string {
	if rev := l.chart.Collector(SourcePropertyTax); rev != "" {
		return l.FundOf(rev)
	}
	return l.chart.GeneralFund()
}

// propertyTaxLines post a property tax payment as the rule allocated it
// (Ch. 74), the money into the receipts not yet deposited of the fund
// each part belongs to:
//   - the general property tax is owed to the taxing jurisdictions of the
//     roll, the village among them: all of it is due to other governments
//     in the tax fund (taxFund) until the settlements pay it out (§5.17).
//     The village's own share is in it too: it is known only per
//     settlement period, from the roll's apportionment (ShareOut over the
//     period's collections), and no kind records it as retained yet, so
//     it is not moved to revenue here;
//   - the special items are the village's own. A special charge from a
//     village bill was moved to due from the county when the November run
//     certified it (novemberRunLines): its collection settles that, in the
//     bill's fund; so does, from ledger format 6, a special assessment
//     installment the run extended (its item names the installment,
//     "<assessment>#<n>", in BillID). Any other item (a special assessment or special tax,
//     which the books do not carry as receivables) is revenue of the line
//     collecting property tax receipts. The rule records one sum for the
//     special items; it is taken as paying them in the order the bill
//     lists them, after what earlier payments paid of them;
//   - an overpayment is owed back (§5.07(1)).
func propertyTaxLines(l *Lines, tx Tx, c Command, res Result) string {
	var t TaxBill
	if ok, err := tx.Get(TaxBills, c.Payload.(*PayPropertyTax).TaxBillID, &t); err != nil || !ok || len(t.Payments) == 0 {
		if err == nil {
			err = fmt.Errorf("books: tax bill %s has no payment", c.Payload.(*PayPropertyTax).TaxBillID)
		}
		l.err = err
		return ""
	}
	pay := t.Payments[len(t.Payments)-1]
	al := pay.Allocation
	fund := taxFund(l)
	memo := fmt.Sprintf("%d property tax of parcel %s, receipt %s", t.TaxYear, t.Parcel, pay.Receipt)
	received := func(fund string, m Money) {
		l.Debit(l.Control(fund, ControlUndeposited), m, sectionInstallment, "received "+pay.Receipt)
	}
	received(fund, al.GeneralTax.Add(al.Overpayment))
	l.Credit(l.Control(fund, ControlDueToOthers), al.GeneralTax, sectionSettlement, "general tax of "+memo)
	l.Credit(l.Control(fund, ControlRefunds), al.Overpayment, sectionRefund, "overpayment of "+memo+", to be refunded")
	before := paidToSpecials(t.Payments[:len(t.Payments)-1])
	left := al.SpecialItems
	for _, it := range t.SpecialItems {
		// What earlier payments paid of the items comes off the first.
		skip := before.Min(it.Amount)
		before = before.Sub(skip)
		part := it.Amount.Sub(skip).Min(left)
		if !part.IsPositive() {
			continue
		}
		left = left.Sub(part)
		if it.BillID != "" {
			b, ok, err := tx.Bill(it.BillID)
			if err != nil {
				l.err = err
				return ""
			}
			if ok {
				g := l.FundOf(l.RevenueOf(b.Revenue, SourceBills))
				received(g, part)
				l.Credit(l.Control(g, ControlDueFromCounty), part, sectionReceivable, "bill "+b.ID+" on the tax roll, collected with "+memo)
				continue
			}
		}
		if _, _, ok := strings.Cut(it.BillID, "#"); ok && RulesFormat(tx) >= ReconciledFormat {
			// A special assessment installment the November run extended
			// on the roll (§5.14(12)): what the county owes for it.
			_, g := assessmentRevenue(l)
			received(g, part)
			l.Credit(l.Control(g, ControlDueFromCounty), part, "§5.14(12)", "installment "+it.BillID+" on the tax roll, collected with "+memo)
			continue
		}
		rev := l.RevenueOf("", SourcePropertyTax)
		received(l.FundOf(rev), part)
		l.Credit(rev, part, sectionInstallment, it.Description+", "+memo)
	}
	if left.IsPositive() {
		// The items' sum on the bill is what the rule allocated to, so
		// nothing is left; were it, it would be the village's own.
		rev := l.RevenueOf("", SourcePropertyTax)
		received(l.FundOf(rev), left)
		l.Credit(rev, left, sectionInstallment, "special items of "+memo)
	}
	return "property tax " + pay.Receipt
}
