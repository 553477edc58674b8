package domain

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// The levy apportionment of a tax roll (Ch. 74, §5.17). The general
// property tax on a village bill is levied for several taxing
// jurisdictions: the state, the county, the village itself, the school
// district, the technical college district and any special district. The
// village treasurer collects it and settles with each of them its share
// of what was collected (Wis. Stat. 74.23 and 74.25, read in countysettlement.go);
// the village keeps its own share.
//
// The village's tax bills carry one general tax each, not its parts
// (taxbill.go), so the apportionment is the roll's: when the roll of a
// county's part of the village is received, the treasurer or the clerk
// records the general property tax it levies for each jurisdiction, in
// dollars, as the roll's statement of taxes gives them. The levies must
// add up to the roll's general tax exactly; the pages also check that
// total against the bills of the roll in the ledger before recording it
// (Reads.CheckLevyApportionment), because the ledger's transaction cannot
// scan the roll. One set of jurisdictions per county's roll: the reading
// taken is that every parcel of the village's part of a county lies in
// the same school and technical college districts, so each bill's tax is
// split in the same proportions as the roll's. A roll whose parcels lay in
// different school districts would need per-bill parts, which the bills
// do not carry.
//
// Shares of a collection (ShareOut) are in proportion to the levies, to
// the cent, by largest remainder: each jurisdiction first gets its share
// rounded down to the cent, then the cents left over go one each to the
// jurisdictions with the largest remainders, ties to the one listed
// earlier in the apportionment; remainders are compared exactly (as
// integers over one denominator), so the shares add up to the collection
// exactly. It is the rule §5.14 apportions assessments by.

// KindLevyApportionment records a roll's levy by taxing jurisdiction.
const KindLevyApportionment Kind = "levy_apportionment"

// CollectionLevyApportionments holds the apportionment of each roll, by
// RollID.
const CollectionLevyApportionments = "levy-apportionments"

// JurisdictionKind is what a taxing jurisdiction is.
type JurisdictionKind string

// Kinds of taxing jurisdiction on a Wisconsin tax roll.
const (
	JurisdictionState            JurisdictionKind = "state"
	JurisdictionCounty           JurisdictionKind = "county"
	JurisdictionVillage          JurisdictionKind = "village" // the taxation district: keeps its share
	JurisdictionSchool           JurisdictionKind = "school"
	JurisdictionTechnicalCollege JurisdictionKind = "technical_college"
	JurisdictionSpecial          JurisdictionKind = "special" // a special district (lake, sanitary, …)
)

// JurisdictionKinds returns the kinds, in the order a statement of taxes
// lists them.
func JurisdictionKinds() []JurisdictionKind {
	return []JurisdictionKind{JurisdictionState, JurisdictionCounty, JurisdictionVillage, JurisdictionSchool, JurisdictionTechnicalCollege, JurisdictionSpecial}
}

// Title returns the kind's name for people.
func (k JurisdictionKind) Title() string {
	switch k {
	case JurisdictionState:
		return "State"
	case JurisdictionCounty:
		return "County"
	case JurisdictionVillage:
		return "Village"
	case JurisdictionSchool:
		return "School district"
	case JurisdictionTechnicalCollege:
		return "Technical college district"
	case JurisdictionSpecial:
		return "Special district"
	}
	return string(k)
}

// LevyShare is one jurisdiction's part of a roll's general property tax.
type LevyShare struct {
	Jurisdiction string           `json:"jurisdiction"` // a code of the record: "belleville-sd"
	Name         string           `json:"name"`
	Kind         JurisdictionKind `json:"kind"`
	Levy         Money            `json:"levy"`
}

// LevyApportionment records the levy by jurisdiction of the roll of one
// county and year, as received.
type LevyApportionment struct {
	County     County      `json:"county"`
	TaxYear    int         `json:"tax_year"`
	ReceivedOn Date        `json:"received_on"`
	Total      Money       `json:"total"` // the roll's general property tax
	Shares     []LevyShare `json:"shares"`
}

// Kind names the payload's kind.
func (*LevyApportionment) Kind() Kind { return KindLevyApportionment }

func (p *LevyApportionment) textFields() []textField {
	out := []textField{}
	for _, s := range p.Shares {
		out = append(out, oneLine("The jurisdiction", s.Jurisdiction), oneLine("The jurisdiction's name", s.Name))
	}
	return out
}

var levyApportionmentKind = &Descriptor{
	Kind: KindLevyApportionment, Section: sectionSettlement, Since: 2,
	Roles: []Role{RoleTreasurer, RoleClerk},
	New:   func() Payload { return new(LevyApportionment) },
	Apply: applyLevyApportionment,
}

// LevyApportionmentRecord is a roll's apportionment as the ledger keeps
// it: the latest recorded, with who recorded it and how many it replaced.
type LevyApportionmentRecord struct {
	LevyApportionment
	ID         string   `json:"id"`
	CommandID  string   `json:"command_id"`
	At         DateTime `json:"at"`
	By         string   `json:"by"`
	Revision   int      `json:"revision"` // 1 for the first recorded
	PaidShares bool     `json:"paid_shares,omitempty"`
}

// RollID is the record id of a county's roll of a year: "dane-2026".
func RollID(county County, year int) string { return fmt.Sprintf("%s-%04d", county, year) }

// Share returns the share of jurisdiction code.
func (a LevyApportionment) Share(code string) (LevyShare, bool) {
	i := slices.IndexFunc(a.Shares, func(s LevyShare) bool { return s.Jurisdiction == code })
	if i < 0 {
		return LevyShare{}, false
	}
	return a.Shares[i], true
}

// Check checks an apportionment on its own: a county and year, the day
// received, jurisdictions with codes, names and kinds, exactly one
// village (which keeps its share) and at least one county, levies in
// cents not below zero that add up exactly to the roll's general tax.
func (a LevyApportionment) Check(today Date) error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionSettlement, format, args...) }
	switch {
	case !a.County.Valid():
		return bad("%q is not a county of the village (dane or green).", a.County)
	case a.TaxYear < 1900 || a.TaxYear > 9998:
		return bad("%d is not a roll year.", a.TaxYear)
	case a.ReceivedOn.IsZero() || a.ReceivedOn.After(today):
		return bad("Give the day the roll was received, on or before today.")
	case !a.Total.IsPositive():
		return bad("Give the roll's general property tax, more than $0.00.")
	case len(a.Shares) == 0:
		return bad("List the taxing jurisdictions of the roll and the tax each levies.")
	}
	seen := map[string]bool{}
	villages, counties := 0, 0
	sum := Cents(0)
	for i, s := range a.Shares {
		n := i + 1
		switch {
		case validRecordID("jurisdiction", s.Jurisdiction) != nil:
			return bad("Jurisdiction %d needs a code without spaces or slashes (like belleville-sd).", n)
		case seen[s.Jurisdiction]:
			return bad("Jurisdiction %s is listed twice.", s.Jurisdiction)
		case strings.TrimSpace(s.Name) == "":
			return bad("Jurisdiction %s needs its name.", s.Jurisdiction)
		case !slices.Contains(JurisdictionKinds(), s.Kind):
			return bad("Jurisdiction %s: %q is not a kind of taxing jurisdiction (state, county, village, school, technical_college or special).", s.Jurisdiction, s.Kind)
		case s.Levy.IsNegative():
			return bad("Jurisdiction %s: the tax levied cannot be negative.", s.Jurisdiction)
		}
		seen[s.Jurisdiction] = true
		switch s.Kind {
		case JurisdictionVillage:
			villages++
		case JurisdictionCounty:
			counties++
		}
		sum = sum.Add(s.Levy)
	}
	switch {
	case villages != 1:
		return bad("The roll lists the village once, as the jurisdiction that keeps its own share; it lists it %d times.", villages)
	case counties == 0:
		return bad("The roll lists the county's levy: %s County is one of its jurisdictions.", a.County.Title())
	case !sum.Equal(a.Total):
		return bad("The jurisdictions' levies add up to %s, not the roll's general property tax of %s: they must add up exactly.", sum, a.Total)
	}
	return nil
}

func applyLevyApportionment(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*LevyApportionment)
	if err := p.Check(c.At.Date); err != nil {
		return err
	}
	id := RollID(p.County, p.TaxYear)
	var old LevyApportionmentRecord
	found, err := tx.Get(CollectionLevyApportionments, id, &old)
	if err != nil {
		return err
	}
	if found && old.PaidShares {
		return Errorf(ECONFLICT, sectionSettlement, "Shares of the %d %s roll have been paid to its jurisdictions: its apportionment can no longer change.", p.TaxYear, p.County.Title())
	}
	rec := LevyApportionmentRecord{LevyApportionment: *p, ID: id, CommandID: c.ID, At: c.At, By: c.Actor, Revision: old.Revision + 1}
	rec.Shares = slices.Clone(p.Shares) // the names are trimmed in the record, never in the command
	for i := range rec.Shares {
		rec.Shares[i].Name = strings.TrimSpace(rec.Shares[i].Name)
	}
	res.Ref = id
	res.Note = fmt.Sprintf("levy of the %d %s roll apportioned among %d jurisdictions (%s)", p.TaxYear, p.County.Title(), len(p.Shares), p.Total)
	return tx.Put(CollectionLevyApportionments, id, rec)
}

// ShareOut divides amount among the apportionment's jurisdictions in
// proportion to their levies, by largest remainder (see the file's
// comment): the shares, in the apportionment's order, add up to amount
// exactly. The levies' total must be positive and amount not negative
// (Check; collections never are).
func (a LevyApportionment) ShareOut(amount Money) []Money {
	weights := make([]*big.Int, len(a.Shares))
	for i, s := range a.Shares {
		weights[i] = big.NewInt(s.Levy.Cents())
	}
	return largestRemainder(amount, weights)
}

// LevyApportionment returns the apportionment of the roll of county and
// year, and whether one is recorded.
func (x Reads) LevyApportionment(county County, year int) (LevyApportionmentRecord, bool, error) {
	return get[LevyApportionmentRecord](x.r, CollectionLevyApportionments, RollID(county, year))
}

// RollGeneralTax returns the general property tax of the bills of the
// roll of county and year in the ledger, and how many there are.
func (x Reads) RollGeneralTax(county County, year int) (Money, int, error) {
	bills, err := byIndex[TaxBill](x.r, TaxBillsByCounty, fmt.Sprintf("%s/%04d/", county, year), TaxBills, "tax bill")
	if err != nil {
		return Money{}, 0, err
	}
	sum := Cents(0)
	for _, b := range bills {
		sum = sum.Add(b.GeneralTax)
	}
	return sum, len(bills), nil
}

// CheckLevyApportionment checks an apportionment against the roll in the
// ledger before it is recorded: the roll's bills are there, and the
// general tax they carry is the apportionment's total. The ledger checks
// the rest when it applies it (LevyApportionment.Check).
func (x Reads) CheckLevyApportionment(a LevyApportionment, today Date) error {
	if err := a.Check(today); err != nil {
		return err
	}
	sum, n, err := x.RollGeneralTax(a.County, a.TaxYear)
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		return Errorf(ECONFLICT, sectionSettlement, "There are no tax bills of the %d %s roll in the ledger: record its apportionment once the roll is in.", a.TaxYear, a.County.Title())
	case !sum.Equal(a.Total):
		return Errorf(EINVALID, sectionSettlement, "The %d bills of the %d %s roll carry %s of general property tax, not %s: the apportionment must be of this roll.", n, a.TaxYear, a.County.Title(), sum, a.Total)
	}
	return nil
}
