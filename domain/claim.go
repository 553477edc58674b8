package domain

const sectionClaim = "§5.08"

// LegalClaimInput is a claim served on the village and, if served, its
// notice of disallowance.
type LegalClaimInput struct {
	ServedOn             Date `json:"served_on"`
	DisallowanceServedOn Date `json:"disallowance_served_on,omitzero"`
}

// UnmarshalJSON reads the input strictly.
func (in *LegalClaimInput) UnmarshalJSON(b []byte) error {
	*in = LegalClaimInput{}
	return decodeObject(sectionClaim, "claim", b,
		req("served_on", &in.ServedOn),
		opt("disallowance_served_on", &in.DisallowanceServedOn),
	)
}

// LegalClaim is the deadlines of a claim against the village.
type LegalClaim struct {
	DeemedDisallowedOn Date `json:"deemed_disallowed_on"`
	// SuitDeadline is absent without a served notice of disallowance.
	SuitDeadline Date `json:"suit_deadline,omitzero"`
}

// ComputeLegalClaim applies §5.08 (cited by content: part of its text sits
// under the published "§5.11" heading) through Wis. Stat. 893.80(1g): a claim
// not acted on within 120 days of service is deemed disallowed; once a notice
// of disallowance is served (it must state this limit), suit must be brought
// within six calendar months of its service, counted as months with the day
// clamped to a shorter month's end, not as 180 days.
func ComputeLegalClaim(in LegalClaimInput, p *Params) (LegalClaim, error) {
	var r LegalClaim
	if in.ServedOn.IsZero() {
		return r, Errorf(EINVALID, sectionClaim, "The date the claim was served is required.")
	}
	v := p.At(in.ServedOn)
	if err := v.require(sectionClaim, in.ServedOn, "claim_disallowance_days", "claim_suit_months"); err != nil {
		return r, err
	}
	r.DeemedDisallowedOn = in.ServedOn.AddDays(v.ClaimDisallowanceDays)
	if !in.DisallowanceServedOn.IsZero() {
		if in.DisallowanceServedOn.Before(in.ServedOn) {
			return LegalClaim{}, Errorf(EINVALID, sectionClaim,
				"The disallowance (%s) cannot be served before the claim (%s).", in.DisallowanceServedOn, in.ServedOn)
		}
		r.SuitDeadline = in.DisallowanceServedOn.AddMonths(p.At(in.DisallowanceServedOn).ClaimSuitMonths)
	}
	return r, nil
}
