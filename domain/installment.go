package domain

import (
	"time"

	"github.com/shopspring/decimal"
)

const sectionInstallment = "Ch. 74"

// InstallmentInput is a property tax bill of the roll of TaxYear.
type InstallmentInput struct {
	TaxYear    int   `json:"tax_year"`
	GeneralTax Money `json:"general_tax"`
	// SpecialItems is the sum of the special assessments, special charges and
	// special taxes on the bill (absent: 0.00).
	SpecialItems Money `json:"special_items"`
}

// UnmarshalJSON reads the input strictly.
func (in *InstallmentInput) UnmarshalJSON(b []byte) error {
	*in = InstallmentInput{}
	return decodeObject(sectionInstallment, "tax bill", b,
		req("tax_year", &in.TaxYear),
		req("general_tax", &in.GeneralTax),
		opt("special_items", &in.SpecialItems),
	)
}

// Installments is how a property tax bill is paid.
type Installments struct {
	Total               Money `json:"total"`
	InstallmentsAllowed bool  `json:"installments_allowed"`
	FirstInstallment    Money `json:"first_installment"`
	FirstDueOn          Date  `json:"first_due_on"`
	SecondInstallment   Money `json:"second_installment"`
	SecondDueOn         Date  `json:"second_due_on"` // zero (null) without installments
}

// ComputeFirstInstallment applies the village's Ch. 74 property tax
// installments, adopted by §5.03(3). Bills of the roll of year Y go out in
// December. When the general property tax is at least the installment
// threshold (100.00, in force on December 1 of Y), the first installment,
// due January 31 of Y+1 and paid to the village treasurer, is all special
// items plus half the general tax rounded half-up to the cent; the second,
// due July 31 and paid to the county treasurer, is the rest. Otherwise the
// whole bill is due January 31. Special items are never split: special
// charges are not payable in installments (§5.14).
func ComputeFirstInstallment(in InstallmentInput, p *Params) (Installments, error) {
	var r Installments
	switch {
	case in.TaxYear < 1 || in.TaxYear > 9998:
		return r, Errorf(EINVALID, sectionInstallment, "The tax year %d is not a year.", in.TaxYear)
	case in.GeneralTax.IsNegative() || in.SpecialItems.IsNegative():
		return r, Errorf(EINVALID, sectionInstallment, "Tax amounts cannot be negative.")
	}
	billed := NewDate(in.TaxYear, time.December, 1)
	v := p.At(billed)
	if err := v.require(sectionInstallment, billed, "installment_threshold"); err != nil {
		return r, err
	}
	r.Total = in.GeneralTax.Add(in.SpecialItems)
	r.FirstDueOn = NewDate(in.TaxYear+1, time.January, 31)
	r.InstallmentsAllowed = !in.GeneralTax.LessThan(v.InstallmentThreshold)
	if !r.InstallmentsAllowed {
		r.FirstInstallment = r.Total
		return r, nil
	}
	firstHalf := in.GeneralTax.MulRate(Rate{decimal.New(5, -1)}) // half, rounded half-up
	r.FirstInstallment = in.SpecialItems.Add(firstHalf)
	r.SecondInstallment = in.GeneralTax.Sub(firstHalf)
	r.SecondDueOn = NewDate(in.TaxYear+1, time.July, 31)
	return r, nil
}
