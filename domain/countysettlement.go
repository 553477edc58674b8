package domain

import (
	"fmt"
	"strings"
)

// Settlements of the property tax with the county treasurers (§5.17, cited
// by content: the text that obliges the village to pay the state and
// county taxes its treasurer owes the county treasurer, Wis. Stat.
// 70.67(2), sits under the "§5.18" heading). The village lies in Dane and
// Green counties; it settles with each treasurer for the tax bills of its
// roll in that county.
//
// The reading of Wis. Stat. 74.25 implemented here: the village treasurer
// collects until the first installment's due date, January 31 (Ch. 74,
// taxbill.go). It settles twice for a roll year Y:
//   - the January settlement, on or before January 15 of Y+1, for what it
//     collected through December 31 of Y (74.25(1)(a));
//   - the February settlement, on or before February 20 of Y+1, for what it
//     collected from January 1 through January 31 of Y+1 (74.25(1)(b)).
//
// The amount due to the county treasurer is the general property tax
// collected in the period on the county's bills. The special items
// (special assessments, charges and taxes) on the bills are the village's
// own and stay with it (74.25(1)(a)1 pays them to the treasurer of whoever
// levied them); an overpayment is not tax and is refunded under §5.07(1).
// The appliance holds no apportionment of the general tax among the taxing
// jurisdictions, so the statement settles the whole general tax collected
// with the county; the county's settlement sheet accounts for the shares.

// KindCountySettlement records a payment to a county treasurer.
const KindCountySettlement Kind = "county_settlement"

// CollectionCountySettlements holds the payments of each settlement, by
// SettlementID.
const CollectionCountySettlements = "county-settlements"

// Settlement periods of a roll year.
const (
	SettleJanuary  = "january"
	SettleFebruary = "february"
)

// SettlementPeriods returns the settlement periods, in order.
func SettlementPeriods() []string { return []string{SettleJanuary, SettleFebruary} }

// SettlementWindow returns the days of collections a settlement covers
// (from zero: since the roll was issued) and its due date.
func SettlementWindow(year int, period string) (from, through, due Date, err error) {
	switch period {
	case SettleJanuary:
		return Date{}, NewDate(year, 12, 31), NewDate(year+1, 1, 15), nil
	case SettleFebruary:
		return NewDate(year+1, 1, 1), NewDate(year+1, 1, 31), NewDate(year+1, 2, 20), nil
	}
	return Date{}, Date{}, Date{}, Errorf(EINVALID, sectionSettlement, "%q is not a settlement period (january or february).", period)
}

const sectionSettlement = "§5.17"

// SettlementID is the record id of a county's settlement of a roll year
// and period: "dane-2026-january".
func SettlementID(county County, year int, period string) string {
	return fmt.Sprintf("%s-%04d-%s", county, year, period)
}

// SettlementPayment is a payment made to the county treasurer.
type SettlementPayment struct {
	PaidOn    Date     `json:"paid_on"`
	Amount    Money    `json:"amount"`
	Reference string   `json:"reference"` // the check or transfer
	CommandID string   `json:"command_id"`
	At        DateTime `json:"at"`
	By        string   `json:"by"`
}

// SettlementRecord is what the ledger keeps of a settlement: its payments.
type SettlementRecord struct {
	ID       string              `json:"id"`
	County   County              `json:"county"`
	TaxYear  int                 `json:"tax_year"`
	Period   string              `json:"period"`
	Payments []SettlementPayment `json:"payments"`
}

// CountySettlement records a payment to a county treasurer for a
// settlement.
type CountySettlement struct {
	County    County `json:"county"`
	TaxYear   int    `json:"tax_year"`
	Period    string `json:"period"`
	PaidOn    Date   `json:"paid_on"`
	Amount    Money  `json:"amount"`
	Reference string `json:"reference"`
}

// Kind names the payload's kind.
func (*CountySettlement) Kind() Kind { return KindCountySettlement }

func (p *CountySettlement) textFields() []textField {
	return []textField{oneLine("The period", p.Period), oneLine("The reference", p.Reference)}
}

var countySettlementKind = &Descriptor{
	Kind: KindCountySettlement, Section: sectionSettlement, Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CountySettlement) },
	Apply: applyCountySettlement,
}

func applyCountySettlement(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*CountySettlement)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionSettlement, format, args...) }
	if !p.County.Valid() {
		return bad("%q is not a county of the village (dane or green).", p.County)
	}
	if p.TaxYear < 1900 || p.TaxYear > 9998 {
		return bad("%d is not a roll year.", p.TaxYear)
	}
	from, _, _, err := SettlementWindow(p.TaxYear, p.Period)
	if err != nil {
		return err
	}
	switch {
	case !p.Amount.IsPositive():
		return bad("The payment to the county treasurer must be more than $0.00.")
	case p.PaidOn.IsZero() || p.PaidOn.After(c.At.Date):
		return bad("Give the day it was paid, on or before today.")
	case !from.IsZero() && p.PaidOn.Before(from):
		return bad("The %s settlement covers collections from %s: it cannot be paid before (%s).", p.Period, from, p.PaidOn)
	case strings.TrimSpace(p.Reference) == "":
		return bad("Give the check number or transfer reference of the payment.")
	}
	id := SettlementID(p.County, p.TaxYear, p.Period)
	var s SettlementRecord
	if _, err := tx.Get(CollectionCountySettlements, id, &s); err != nil {
		return err
	}
	for _, x := range s.Payments {
		if x.Reference == strings.TrimSpace(p.Reference) {
			return Errorf(ECONFLICT, sectionSettlement, "Payment %s is recorded already on this settlement.", x.Reference)
		}
	}
	s.ID, s.County, s.TaxYear, s.Period = id, p.County, p.TaxYear, p.Period
	s.Payments = append(s.Payments, SettlementPayment{PaidOn: p.PaidOn, Amount: p.Amount, Reference: strings.TrimSpace(p.Reference), CommandID: c.ID, At: c.At, By: c.Actor})
	res.Ref, res.Note = id, fmt.Sprintf("paid %s to the %s treasurer (%s settlement of %d)", p.Amount, p.County.Title(), p.Period, p.TaxYear)
	return tx.Put(CollectionCountySettlements, id, s)
}

// SettlementLine is one collection a settlement statement counts.
type SettlementLine struct {
	TaxBill    string   `json:"tax_bill"`
	Parcel     string   `json:"parcel"`
	Receipt    string   `json:"receipt"`
	At         DateTime `json:"at"`
	GeneralTax Money    `json:"general_tax"`
	Specials   Money    `json:"specials"`
}

// SettlementStatement is the statement of a settlement with a county
// treasurer: the collections of the period, the amount due to the county,
// what was paid and what is left.
type SettlementStatement struct {
	County     County              `json:"county"`
	TaxYear    int                 `json:"tax_year"`
	Period     string              `json:"period"`
	From       Date                `json:"from,omitzero"`
	Through    Date                `json:"through"`
	DueOn      Date                `json:"due_on"`
	Lines      []SettlementLine    `json:"lines"`
	Specials   Money               `json:"specials"` // kept by the village
	Due        Money               `json:"due"`      // the general tax collected: due to the county
	Payments   []SettlementPayment `json:"payments"`
	Paid       Money               `json:"paid"`
	Unsettled  Money               `json:"unsettled"` // due − paid; negative when overpaid
	PastDue    bool                `json:"past_due"`  // unsettled after the due date (as of the day asked)
	AsOf       Date                `json:"as_of"`
	BillsCount int                 `json:"bills"`
}

// Settlement returns the statement of the settlement of county's roll of
// year for period, as of day asOf (for PastDue).
func (x Reads) Settlement(county County, year int, period string, asOf Date) (SettlementStatement, error) {
	st := SettlementStatement{County: county, TaxYear: year, Period: period, AsOf: asOf, Specials: Cents(0), Due: Cents(0), Paid: Cents(0)}
	if !county.Valid() {
		return st, Errorf(EINVALID, sectionSettlement, "%q is not a county of the village (dane or green).", county)
	}
	from, through, due, err := SettlementWindow(year, period)
	if err != nil {
		return st, err
	}
	st.From, st.Through, st.DueOn = from, through, due
	bills, err := byIndex[TaxBill](x.r, TaxBillsByCounty, fmt.Sprintf("%s/%04d/", county, year), TaxBills, "tax bill")
	if err != nil {
		return st, err
	}
	st.BillsCount = len(bills)
	for _, b := range bills {
		for _, p := range b.Payments {
			d := p.At.Date
			if (!from.IsZero() && d.Before(from)) || d.After(through) {
				continue
			}
			st.Lines = append(st.Lines, SettlementLine{TaxBill: b.ID, Parcel: b.Parcel, Receipt: p.Receipt, At: p.At, GeneralTax: p.Allocation.GeneralTax, Specials: p.Allocation.SpecialItems})
			st.Due = st.Due.Add(p.Allocation.GeneralTax)
			st.Specials = st.Specials.Add(p.Allocation.SpecialItems)
		}
	}
	rec, _, err := get[SettlementRecord](x.r, CollectionCountySettlements, SettlementID(county, year, period))
	if err != nil {
		return st, err
	}
	st.Payments = rec.Payments
	for _, p := range rec.Payments {
		st.Paid = st.Paid.Add(p.Amount)
	}
	st.Unsettled = st.Due.Sub(st.Paid)
	st.PastDue = st.Unsettled.IsPositive() && asOf.After(due)
	return st, nil
}

// SettlementsPastDue returns the settlements with an amount unsettled
// after their due date as of asOf, for the roll years whose settlements
// fall due this year and last year.
func (x Reads) SettlementsPastDue(asOf Date) ([]SettlementStatement, error) {
	var out []SettlementStatement
	for _, year := range []int{asOf.Year() - 2, asOf.Year() - 1} {
		for _, county := range []County{Dane, Green} {
			for _, period := range SettlementPeriods() {
				st, err := x.Settlement(county, year, period, asOf)
				if err != nil {
					return nil, err
				}
				if st.PastDue {
					out = append(out, st)
				}
			}
		}
	}
	return out, nil
}
