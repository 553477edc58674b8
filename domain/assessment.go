package domain

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

const sectionAssessment = "§5.14"

// DistrictParcel is a parcel in a special assessment district.
type DistrictParcel struct {
	ID string `json:"id"`
	// Units are the parcel's front feet or benefit units: a plain decimal,
	// never negative.
	Units decimal.Decimal `json:"units"`
	// Exempt parcels' shares are paid by the village (§5.14(5)(a)).
	Exempt bool `json:"exempt"`
}

// UnmarshalJSON reads a parcel strictly; units may be a string or a number.
func (pc *DistrictParcel) UnmarshalJSON(b []byte) error {
	var x DistrictParcel
	var units unitsValue
	if err := decodeObject("", "parcel", b,
		req("id", &x.ID),
		req("units", &units),
		opt("exempt", &x.Exempt),
	); err != nil {
		return err
	}
	x.Units = units.d
	*pc = x
	return nil
}

// unitsValue decodes units written as a plain decimal ("80.5" or 80.5),
// refusing exponents and absurd sizes so that exact arithmetic stays small.
type unitsValue struct{ d decimal.Decimal }

func (u *unitsValue) UnmarshalJSON(b []byte) error {
	s := string(b)
	if strings.HasPrefix(s, `"`) {
		var err error
		if s, err = strconv.Unquote(s); err != nil {
			return Errorf(EINVALID, "", "Units must be a number like 66 or 80.5.")
		}
	}
	digits := strings.TrimPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(digits, ".")
	if whole == "" || (hasPoint && frac == "") || !allDigits(whole) || !allDigits(frac) || len(whole) > 12 || len(frac) > 6 {
		return Errorf(EINVALID, "", "Units %q are not a plain number like 66 or 80.5.", s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Errorf(EINVALID, "", "Units %q are not a number.", s)
	}
	if d.IsNegative() {
		return Errorf(EINVALID, "", "Units %q are negative.", s)
	}
	u.d = d
	return nil
}

// ApportionInput is the cost of a work or improvement and the parcels it
// benefits.
type ApportionInput struct {
	TotalCost Money            `json:"total_cost"`
	Parcels   []DistrictParcel `json:"parcels"`
}

// UnmarshalJSON reads the input strictly.
func (in *ApportionInput) UnmarshalJSON(b []byte) error {
	*in = ApportionInput{}
	return decodeObject(sectionAssessment, "assessment district", b,
		req("total_cost", &in.TotalCost),
		req("parcels", &in.Parcels),
	)
}

// ParcelShare is one parcel's share of a cost.
type ParcelShare struct {
	Parcel      string `json:"parcel"`
	Assessment  Money  `json:"assessment"`   // levied on the parcel
	VillagePays Money  `json:"village_pays"` // the share of an exempt parcel
}

// Apportionment is a cost apportioned among parcels.
type Apportionment struct {
	Assessments []ParcelShare `json:"assessments"` // in input order
	VillagePays Money         `json:"village_pays"`
}

// Apportion applies §5.14: the cost is shared in proportion to units, to the
// cent, by largest remainder (each parcel first gets its exact share rounded
// down to the cent; the cents left over go one each to the largest exact
// remainders, ties to the earlier parcel), so the shares sum exactly to the
// cost. An exempt parcel's share is paid by the village (§5.14(5)(a)).
func Apportion(in ApportionInput, p *Params) (Apportionment, error) {
	var r Apportionment
	if in.TotalCost.IsNegative() {
		return r, Errorf(EINVALID, sectionAssessment, "The cost cannot be negative.")
	}
	if len(in.Parcels) == 0 {
		return r, Errorf(EINVALID, sectionAssessment, "There are no parcels to assess.")
	}
	ids := make([]string, len(in.Parcels))
	for i, pc := range in.Parcels {
		ids[i] = pc.ID
	}
	if err := checkParcelIDs(ids); err != nil {
		return r, err
	}
	weights, err := unitWeights(in.Parcels)
	if err != nil {
		return r, err
	}
	shares := largestRemainder(in.TotalCost, weights)
	r.Assessments = make([]ParcelShare, len(in.Parcels))
	for i, pc := range in.Parcels {
		s := ParcelShare{Parcel: pc.ID, Assessment: shares[i]}
		if pc.Exempt {
			s.Assessment, s.VillagePays = Money{}, shares[i]
			r.VillagePays = r.VillagePays.Add(shares[i])
		}
		r.Assessments[i] = s
	}
	return r, nil
}

// checkParcelIDs refuses an empty or repeated parcel id.
func checkParcelIDs(ids []string) error {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" {
			return Errorf(EINVALID, sectionAssessment, "A parcel has no id.")
		}
		if seen[id] {
			return Errorf(EINVALID, sectionAssessment, "Parcel %q is listed twice.", id)
		}
		seen[id] = true
	}
	return nil
}

// unitWeights scales the parcels' units to integers of a common scale, so
// that proportions are exact.
func unitWeights(parcels []DistrictParcel) ([]*big.Int, error) {
	var exp int32
	for _, pc := range parcels {
		if pc.Units.IsNegative() {
			return nil, Errorf(EINVALID, sectionAssessment, "Parcel %q has negative units.", pc.ID)
		}
		exp = min(exp, pc.Units.Exponent())
	}
	weights := make([]*big.Int, len(parcels))
	sum := new(big.Int)
	ten := big.NewInt(10)
	for i, pc := range parcels {
		scale := new(big.Int).Exp(ten, big.NewInt(int64(pc.Units.Exponent()-exp)), nil)
		weights[i] = scale.Mul(scale, pc.Units.Coefficient())
		sum.Add(sum, weights[i])
	}
	if sum.Sign() == 0 {
		return nil, Errorf(EINVALID, sectionAssessment, "The parcels' units add up to zero.")
	}
	return weights, nil
}

// largestRemainder divides total among weights (not all zero, none
// negative) in proportion, to the cent: shares rounded down, then the
// leftover cents one each to the largest remainders, ties to the earlier
// index. Remainders are compared exactly, as integers over the same
// denominator.
func largestRemainder(total Money, weights []*big.Int) []Money {
	cents := big.NewInt(total.Cents())
	sum := new(big.Int)
	for _, w := range weights {
		sum.Add(sum, w)
	}
	quo := make([]*big.Int, len(weights))
	rem := make([]*big.Int, len(weights))
	left := new(big.Int).Set(cents)
	for i, w := range weights {
		quo[i], rem[i] = new(big.Int).QuoRem(new(big.Int).Mul(cents, w), sum, new(big.Int))
		left.Sub(left, quo[i])
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rem[b].Cmp(rem[a]) })
	for _, i := range order[:left.Int64()] {
		quo[i].Add(quo[i], big.NewInt(1))
	}
	out := make([]Money, len(weights))
	for i, q := range quo {
		out[i] = Cents(q.Int64())
	}
	return out
}

// LeviedAssessment is an assessment as levied, with what has been paid on it.
type LeviedAssessment struct {
	ID     string `json:"id"`
	Amount Money  `json:"amount"`
	Paid   Money  `json:"paid"`
}

// UnmarshalJSON reads a levied assessment strictly; paid defaults to 0.00.
func (a *LeviedAssessment) UnmarshalJSON(b []byte) error {
	*a = LeviedAssessment{}
	return decodeObject("", "assessment", b,
		req("id", &a.ID),
		req("amount", &a.Amount),
		opt("paid", &a.Paid),
	)
}

// AdjustInput is the actual cost of a finished work and its assessments.
type AdjustInput struct {
	ActualCost  Money              `json:"actual_cost"`
	Assessments []LeviedAssessment `json:"assessments"`
}

// UnmarshalJSON reads the input strictly.
func (in *AdjustInput) UnmarshalJSON(b []byte) error {
	*in = AdjustInput{}
	return decodeObject(sectionAssessment, "adjustment", b,
		req("actual_cost", &in.ActualCost),
		req("assessments", &in.Assessments),
	)
}

// AdjustedAssessment is an assessment after the actual cost is known.
type AdjustedAssessment struct {
	Parcel string `json:"parcel"`
	Amount Money  `json:"amount"`
	Refund Money  `json:"refund"`
}

// Adjustment is the assessments after the actual cost is known.
type Adjustment struct {
	Reduced     bool                 `json:"reduced"`
	Assessments []AdjustedAssessment `json:"assessments"` // in input order
}

// AdjustAssessments applies §5.14(10): when the actual cost is below the
// total levied, every assessment is reduced in proportion to its amount (by
// largest remainder, as Apportion) and any payment above the new amount is
// refunded; otherwise the amounts stay as levied. In both cases the refund is
// what was paid above the amount.
func AdjustAssessments(in AdjustInput, p *Params) (Adjustment, error) {
	var r Adjustment
	if len(in.Assessments) == 0 {
		return r, Errorf(EINVALID, sectionAssessment, "There are no assessments to adjust.")
	}
	if in.ActualCost.IsNegative() {
		return r, Errorf(EINVALID, sectionAssessment, "The actual cost cannot be negative.")
	}
	ids := make([]string, len(in.Assessments))
	var levied Money
	for i, a := range in.Assessments {
		if a.Amount.IsNegative() || a.Paid.IsNegative() {
			return r, Errorf(EINVALID, sectionAssessment, "Assessment %q has a negative amount or payment.", a.ID)
		}
		ids[i] = a.ID
		levied = levied.Add(a.Amount)
	}
	if err := checkParcelIDs(ids); err != nil {
		return r, err
	}
	amounts := make([]Money, len(in.Assessments))
	for i, a := range in.Assessments {
		amounts[i] = a.Amount
	}
	if in.ActualCost.LessThan(levied) {
		r.Reduced = true
		weights := make([]*big.Int, len(amounts))
		for i, m := range amounts {
			weights[i] = big.NewInt(m.Cents())
		}
		amounts = largestRemainder(in.ActualCost, weights)
	}
	r.Assessments = make([]AdjustedAssessment, len(in.Assessments))
	for i, a := range in.Assessments {
		r.Assessments[i] = AdjustedAssessment{Parcel: a.ID, Amount: amounts[i], Refund: a.Paid.Sub(amounts[i]).Max(Money{})}
	}
	return r, nil
}

// HearingWindowInput is the day notice of a proposed assessment was
// published or posted.
type HearingWindowInput struct {
	NoticeOn Date `json:"notice_on"`
}

// UnmarshalJSON reads the input strictly.
func (in *HearingWindowInput) UnmarshalJSON(b []byte) error {
	*in = HearingWindowInput{}
	return decodeObject(sectionAssessment, "notice", b, req("notice_on", &in.NoticeOn))
}

// HearingWindow is the days on which the hearing may commence, both
// inclusive.
type HearingWindow struct {
	EarliestHearing Date `json:"earliest_hearing"`
	LatestHearing   Date `json:"latest_hearing"`
}

// ComputeHearingWindow applies §5.14(4): the hearing commences not less than
// ten and not more than forty days after the notice is published or posted.
func ComputeHearingWindow(in HearingWindowInput, p *Params) (HearingWindow, error) {
	if in.NoticeOn.IsZero() {
		return HearingWindow{}, Errorf(EINVALID, sectionAssessment, "The notice date is required.")
	}
	v := p.At(in.NoticeOn)
	if err := v.require(sectionAssessment, in.NoticeOn, "hearing_min_days", "hearing_max_days"); err != nil {
		return HearingWindow{}, err
	}
	return HearingWindow{in.NoticeOn.AddDays(v.HearingMinDays), in.NoticeOn.AddDays(v.HearingMaxDays)}, nil
}

// RepairNoticeInput is the day of the hearing on street, sidewalk, curb or
// gutter repair charges.
type RepairNoticeInput struct {
	HearingOn Date `json:"hearing_on"`
}

// UnmarshalJSON reads the input strictly.
func (in *RepairNoticeInput) UnmarshalJSON(b []byte) error {
	*in = RepairNoticeInput{}
	return decodeObject(sectionAssessment, "hearing", b, req("hearing_on", &in.HearingOn))
}

// RepairNotice is the last days to give notice of a repair charge hearing.
type RepairNotice struct {
	PublishOrPostBy Date `json:"publish_or_post_by"`
	MailBy          Date `json:"mail_by"`
}

// ComputeRepairNotice applies §5.14(13): notice of the hearing on repair
// charges is published or posted 20 days, and mailed 10 days, before it.
func ComputeRepairNotice(in RepairNoticeInput, p *Params) (RepairNotice, error) {
	if in.HearingOn.IsZero() {
		return RepairNotice{}, Errorf(EINVALID, sectionAssessment, "The hearing date is required.")
	}
	v := p.At(in.HearingOn)
	if err := v.require(sectionAssessment, in.HearingOn, "repair_publish_days", "repair_mail_days"); err != nil {
		return RepairNotice{}, err
	}
	return RepairNotice{in.HearingOn.AddDays(-v.RepairPublishDays), in.HearingOn.AddDays(-v.RepairMailDays)}, nil
}
