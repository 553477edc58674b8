package domain

import (
	"fmt"
	"strings"
)

// Settlements of the property tax collected by the village treasurer
// (§5.17, cited by content: the text that obliges the village to pay the
// state and county taxes its treasurer owes the county treasurer, Wis.
// Stat. 70.67(2), sits under the "§5.18" heading). The village lies in Dane
// and Green counties; it settles the collections of its roll in each
// county.
//
// The reading of Ch. 74's settlements implemented here (subchapter IV: s.
// 74.23 January settlement, 74.25 February settlement, 74.29 the county's
// August settlement): the village treasurer collects until the first
// installment's due date, January 31 (taxbill.go), and settles twice for a
// roll year Y:
//   - the January settlement (74.23), on or before January 15 of Y+1, for
//     what it collected through December 31 of Y;
//   - the February settlement (74.25), on or before February 20 of Y+1,
//     for what it collected from January 1 through January 31 of Y+1.
//
// In each, paragraph (1)(a) settles the special assessments, charges and
// taxes (the village retains its own) and (1)(b) the general property
// taxes, each taxing jurisdiction's proportionate share paid to it, the
// state's to the county ("except that the treasurer shall pay the state's
// proportionate share to the county"). The second installments, paid to
// the county treasurer, are the county's to settle in August (74.29) and
// are not here. An earlier version of this comment cited 74.25(1)(a) and
// (b) for the two settlements: those are the paragraphs of one.
//
// What is settled is the general property tax collected in the period on
// the county's bills, shared among the taxing jurisdictions of the roll in
// proportion to the levies its apportionment records (levy.go, ShareOut:
// largest remainder, so the shares add up to the collection exactly).
// Each jurisdiction's share is paid to its treasurer (the state's to the
// county treasurer), and each payment is recorded against the
// jurisdiction whose share it paid; the village keeps its own share. No payment is taken before the roll's
// apportionment is recorded, a payment to a jurisdiction never exceeds
// what its levy leaves unpaid over the roll's two settlements, and the
// pages refuse one above its share of the period unsettled
// (Reads.CheckSettlementPayment). The special items (special
// assessments, charges and taxes) on the bills are the village's own and
// stay with it; an overpayment is not tax and is refunded under §5.07(1).

// KindCountySettlement records a payment of a settlement to a taxing
// jurisdiction of the roll (its kind's name is the first release's: the
// county treasurer was its only payee then).
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

// SettlementPayment is a payment of a settlement to a jurisdiction.
type SettlementPayment struct {
	Jurisdiction string   `json:"jurisdiction,omitempty"` // the roll's jurisdiction paid (LevyShare.Jurisdiction)
	PaidOn       Date     `json:"paid_on"`
	Amount       Money    `json:"amount"`
	Reference    string   `json:"reference"` // the check or transfer
	CommandID    string   `json:"command_id"`
	At           DateTime `json:"at"`
	By           string   `json:"by"`
}

// SettlementRecord is what the ledger keeps of a settlement: its payments.
type SettlementRecord struct {
	ID       string              `json:"id"`
	County   County              `json:"county"`
	TaxYear  int                 `json:"tax_year"`
	Period   string              `json:"period"`
	Payments []SettlementPayment `json:"payments"`
}

// CountySettlement records a payment of a settlement of a county's roll
// to one of its taxing jurisdictions.
type CountySettlement struct {
	County       County `json:"county"`
	TaxYear      int    `json:"tax_year"`
	Period       string `json:"period"`
	Jurisdiction string `json:"jurisdiction,omitempty"` // the roll's jurisdiction paid its share (required; omitted empty so the first encoding stays)
	PaidOn       Date   `json:"paid_on"`
	Amount       Money  `json:"amount"`
	Reference    string `json:"reference"`
}

// Kind names the payload's kind.
func (*CountySettlement) Kind() Kind { return KindCountySettlement }

func (p *CountySettlement) textFields() []textField {
	return []textField{oneLine("The period", p.Period), oneLine("The jurisdiction", p.Jurisdiction), oneLine("The reference", p.Reference)}
}

var countySettlementKind = &Descriptor{
	Kind: KindCountySettlement, Section: sectionSettlement, Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CountySettlement) },
	Apply: applyCountySettlement,
	Books: countySettlementLines,
}

// countySettlementLines post a payment of a settlement to a taxing
// jurisdiction (§5.17): what the village owes the other governments of
// the tax it collected comes down, and so does the cash of the fund that
// holds it (taxFund). From ledger format 6 the village's own share is
// recorded the same way, as kept: it was held with the others' shares as
// owed to the governments of the roll since its collection, and becomes
// the village's property tax revenue (the line collecting property tax
// receipts, else the general fund's unclassified revenue); no money moves.
func countySettlementLines(l *Lines, tx Tx, c Command, res Result) string {
	p := c.Payload.(*CountySettlement)
	fund := taxFund(l)
	if villageShare(tx, *p) {
		memo := fmt.Sprintf("the village's share of the %s settlement of the %d %s roll, kept", p.Period, p.TaxYear, p.County.Title())
		l.Debit(l.Control(fund, ControlDueToOthers), p.Amount, sectionSettlement, memo)
		l.Credit(l.RevenueOf("", SourcePropertyTax), p.Amount, sectionSettlement, memo)
		return memo
	}
	memo := fmt.Sprintf("%s settlement of the %d %s roll paid to %s (%s)", p.Period, p.TaxYear, p.County.Title(), p.Jurisdiction, strings.TrimSpace(p.Reference))
	l.Debit(l.Control(fund, ControlDueToOthers), p.Amount, sectionSettlement, memo)
	l.Credit(l.Control(fund, ControlCash), p.Amount, sectionSettlement, memo)
	return memo
}

// villageShare reports whether p records the village's own share of a
// settlement as kept (ledger format 6): it names the village's
// jurisdiction of the roll.
func villageShare(tx Tx, p CountySettlement) bool {
	if RulesFormat(tx) < ReconciledFormat {
		return false
	}
	var ap LevyApportionmentRecord
	if ok, err := tx.Get(CollectionLevyApportionments, RollID(p.County, p.TaxYear), &ap); err != nil || !ok {
		return false
	}
	share, ok := ap.Share(p.Jurisdiction)
	return ok && share.Kind == JurisdictionVillage
}

// keptReference is the reference of the village's share kept on a day: it
// moves no money, so there is no check or transfer to name.
func keptReference(on Date) string { return "kept " + on.String() }

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
	case strings.TrimSpace(p.Reference) == "" && !villageShare(tx, *p):
		return bad("Give the check number or transfer reference of the payment.")
	}
	var ap LevyApportionmentRecord
	found, err := tx.Get(CollectionLevyApportionments, RollID(p.County, p.TaxYear), &ap)
	if err != nil {
		return err
	}
	if !found {
		return Errorf(ECONFLICT, sectionSettlement, "The levy apportionment of the %d %s roll is not recorded: record the roll's levy by jurisdiction before settling its shares.", p.TaxYear, p.County.Title())
	}
	share, ok := ap.Share(p.Jurisdiction)
	switch {
	case !ok:
		return bad("%q is not a taxing jurisdiction of the %d %s roll.", p.Jurisdiction, p.TaxYear, p.County.Title())
	case share.Kind == JurisdictionVillage && RulesFormat(tx) < ReconciledFormat:
		return bad("The village keeps its own share of the tax it collected: there is nothing to pay to %s.", share.Name)
	}
	ref := strings.TrimSpace(p.Reference)
	if share.Kind == JurisdictionVillage && ref == "" {
		ref = keptReference(p.PaidOn)
	}
	id := SettlementID(p.County, p.TaxYear, p.Period)
	// What the jurisdiction's levy leaves unpaid over both settlements of
	// the roll bounds any one payment (the shares of the collections are
	// never more than the levy).
	paid := Cents(0)
	var s SettlementRecord
	for _, period := range SettlementPeriods() {
		var r SettlementRecord
		if _, err := tx.Get(CollectionCountySettlements, SettlementID(p.County, p.TaxYear, period), &r); err != nil {
			return err
		}
		for _, x := range r.Payments {
			if x.Jurisdiction == share.Jurisdiction {
				paid = paid.Add(x.Amount)
			}
		}
		if period == p.Period {
			s = r
		}
	}
	if left := share.Levy.Sub(paid); left.LessThan(p.Amount) {
		return bad("%s would be paid more than it levied on the roll: %s levied, %s paid, %s left.", share.Name, share.Levy, paid, left)
	}
	for _, x := range s.Payments {
		if x.Reference == ref {
			return Errorf(ECONFLICT, sectionSettlement, "Payment %s is recorded already on this settlement.", x.Reference)
		}
	}
	s.ID, s.County, s.TaxYear, s.Period = id, p.County, p.TaxYear, p.Period
	s.Payments = append(s.Payments, SettlementPayment{Jurisdiction: share.Jurisdiction, PaidOn: p.PaidOn, Amount: p.Amount, Reference: ref, CommandID: c.ID, At: c.At, By: c.Actor})
	if !ap.PaidShares {
		ap.PaidShares = true
		if err := tx.Put(CollectionLevyApportionments, ap.ID, ap); err != nil {
			return err
		}
	}
	res.Ref, res.Note = id, fmt.Sprintf("paid %s to %s (%s settlement of the %d %s roll)", p.Amount, share.Name, p.Period, p.TaxYear, p.County.Title())
	if share.Kind == JurisdictionVillage {
		res.Note = fmt.Sprintf("%s of the village's share kept (%s settlement of the %d %s roll)", p.Amount, p.Period, p.TaxYear, p.County.Title())
	}
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

// SettlementShare is one jurisdiction's part of a settlement: its share
// of the general tax collected in the period, what was paid to it and what
// is left. The village's share is Retained: kept, never paid.
type SettlementShare struct {
	LevyShare
	Share     Money `json:"share"`
	Paid      Money `json:"paid"`
	Unsettled Money `json:"unsettled"`
	Retained  bool  `json:"retained,omitempty"`
}

// SettlementStatement is the statement of a settlement of a county's roll
// for a period: the collections, each jurisdiction's share of them, what
// was paid and what is left.
type SettlementStatement struct {
	County   County           `json:"county"`
	TaxYear  int              `json:"tax_year"`
	Period   string           `json:"period"`
	From     Date             `json:"from,omitzero"`
	Through  Date             `json:"through"`
	DueOn    Date             `json:"due_on"`
	Lines    []SettlementLine `json:"lines"`
	Specials Money            `json:"specials"` // kept by the village
	// Collected is the general tax collected in the period. Apportioned
	// says the roll's levy apportionment is recorded: then Shares divide
	// Collected among its jurisdictions, VillageShare is the village's,
	// and Due the rest, to be paid out. Without it Due is all of
	// Collected, none of it settled yet.
	Collected    Money             `json:"collected"`
	Apportioned  bool              `json:"apportioned"`
	Shares       []SettlementShare `json:"shares"`
	VillageShare Money             `json:"village_share"`
	Due          Money             `json:"due"`
	// Kept is what of the village's share is recorded as kept (ledger
	// format 6): its property tax revenue in the books.
	Kept       Money               `json:"kept"`
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
	st := SettlementStatement{County: county, TaxYear: year, Period: period, AsOf: asOf, Specials: Cents(0), Collected: Cents(0), VillageShare: Cents(0), Due: Cents(0), Paid: Cents(0), Kept: Cents(0)}
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
			st.Collected = st.Collected.Add(p.Allocation.GeneralTax)
			st.Specials = st.Specials.Add(p.Allocation.SpecialItems)
		}
	}
	rec, _, err := get[SettlementRecord](x.r, CollectionCountySettlements, SettlementID(county, year, period))
	if err != nil {
		return st, err
	}
	st.Payments = rec.Payments
	village := ""
	ap, apportioned, err := x.LevyApportionment(county, year)
	if err != nil {
		return st, err
	}
	for _, sh := range ap.Shares {
		if sh.Kind == JurisdictionVillage {
			village = sh.Jurisdiction
		}
	}
	for _, p := range rec.Payments {
		if village != "" && p.Jurisdiction == village {
			st.Kept = st.Kept.Add(p.Amount) // the village's share, recorded as kept
			continue
		}
		st.Paid = st.Paid.Add(p.Amount)
	}
	st.Due = st.Collected
	if apportioned {
		st.Apportioned = true
		for i, amount := range ap.ShareOut(st.Collected) {
			sh := SettlementShare{LevyShare: ap.Shares[i], Share: amount, Paid: Cents(0), Retained: ap.Shares[i].Kind == JurisdictionVillage}
			for _, p := range rec.Payments {
				if p.Jurisdiction == sh.Jurisdiction {
					sh.Paid = sh.Paid.Add(p.Amount)
				}
			}
			if sh.Retained {
				st.VillageShare = amount
				sh.Unsettled = Cents(0)
			} else {
				sh.Unsettled = amount.Sub(sh.Paid)
			}
			st.Shares = append(st.Shares, sh)
		}
		st.Due = st.Collected.Sub(st.VillageShare)
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

// CheckSettlementPayment checks a payment against the statement of its
// settlement as of today, before it is submitted: a payment to a
// jurisdiction is at most its share of the period's collections left
// unpaid. The ledger checks the rest when it applies it.
func (x Reads) CheckSettlementPayment(p CountySettlement, today Date) error {
	st, err := x.Settlement(p.County, p.TaxYear, p.Period, today)
	if err != nil {
		return err
	}
	if !st.Apportioned {
		return Errorf(ECONFLICT, sectionSettlement, "The levy apportionment of the %d %s roll is not recorded: record the roll's levy by jurisdiction before settling its shares.", p.TaxYear, p.County.Title())
	}
	// A payment whose reference is on the settlement already is a retry
	// or a duplicate: the ledger answers it (the same command id gets its
	// first answer, another one a conflict).
	for _, x := range st.Payments {
		if x.Reference == strings.TrimSpace(p.Reference) {
			return nil
		}
	}
	for _, sh := range st.Shares {
		if left := sh.Share.Sub(sh.Paid); sh.Jurisdiction == p.Jurisdiction && sh.Retained && left.LessThan(p.Amount) {
			return Errorf(EINVALID, sectionSettlement, "The village's share of the %s settlement is %s, of which %s is recorded as kept: %s is left to record, not %s.", p.Period, sh.Share, sh.Paid, left.Max(Cents(0)), p.Amount)
		}
		if sh.Jurisdiction == p.Jurisdiction && !sh.Retained && sh.Unsettled.LessThan(p.Amount) {
			return Errorf(EINVALID, sectionSettlement, "%s's share of the %s settlement is %s, of which %s is paid: %s is left to pay, not %s.", sh.Name, p.Period, sh.Share, sh.Paid, sh.Unsettled.Max(Cents(0)), p.Amount)
		}
	}
	return nil
}
