package domain

import (
	"fmt"
	"strings"
)

// Collections of charges the clerk's office bills under §5.19 and §5.21.
const (
	CollectionCharges = "charges"            // id: charge id → Charge
	IndexChargesByAcc = "charges-by-account" // key: "<account>/<charge id>"
)

// Kinds of charge.
const (
	ChargeCollection = "collection" // §5.21: a bill placed with a collection agency; costs and fees added
	ChargeChargeback = "chargeback" // §5.21: contracted staff's work invoiced to the responsible party at actual cost
	ChargeNoticeFee  = "notice_fee" // §5.19: publishing a hearing notice and other actual costs of an application
)

// ChargeItem is one line of a charge.
type ChargeItem struct {
	Description string `json:"description"`
	Amount      Money  `json:"amount"`
}

// NewCharge bills a charge. The ids are made before the command enters
// the log.
type NewCharge struct {
	ChargeID  string       `json:"charge_id"`
	BillID    string       `json:"bill_id"` // the bill the charge makes
	What      string       `json:"kind"`    // ChargeCollection, ChargeChargeback or ChargeNoticeFee
	Account   string       `json:"account"`
	Parcel    string       `json:"parcel"`
	Reference string       `json:"reference"`             // the agency, the contractor's invoice, the application
	Placed    string       `json:"placed_bill,omitempty"` // collection: the unpaid bill placed with the agency
	Items     []ChargeItem `json:"items"`
}

// Charge is a charge as billed.
type Charge struct {
	NewCharge
	Total     Money    `json:"total"`
	CommandID string   `json:"command_id"`
	By        string   `json:"by"`
	At        DateTime `json:"at"`
}

// ChargeTitle names a kind of charge for people.
func ChargeTitle(kind string) string {
	switch kind {
	case ChargeCollection:
		return "Collection costs and attorney's fees (§5.21)"
	case ChargeChargeback:
		return "Contracted staff chargeback (§5.21)"
	case ChargeNoticeFee:
		return "Notice and publication fee (§5.19)"
	}
	if t := specialChargeTitle(kind); t != "" {
		return t // specialcharge.go
	}
	return kind
}

// applyCharge bills a charge as a village bill under §5.10, so that it
// earns interest, a penalty and goes to the tax roll like any other.
//
// §5.21 says collection costs and attorney's fees "shall be added to the
// principal amounts of unpaid bills" placed with a collection agency. The
// reading taken: they are billed as a new principal on the same account
// and parcel, dated the day of placement, linked to the placed bill,
// rather than raising the old bill's principal, which would charge
// interest on the costs for months before they were incurred.
func applyCharge(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*NewCharge)
	section := "§5.21"
	if in.What == ChargeNoticeFee {
		section = "§5.19"
	}
	if err := validRecordID("charge", in.ChargeID); err != nil {
		return err
	}
	if in.What != ChargeCollection && in.What != ChargeChargeback && in.What != ChargeNoticeFee {
		return Errorf(EINVALID, "", "Unknown kind of charge %q.", in.What)
	}
	if strings.TrimSpace(in.Reference) == "" {
		return Errorf(EINVALID, section, "Name the %s.", map[string]string{ChargeCollection: "collection agency", ChargeChargeback: "contractor's invoice", ChargeNoticeFee: "application"}[in.What])
	}
	var old Charge
	if ok, err := tx.Get(CollectionCharges, in.ChargeID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "", "Charge %s already exists.", in.ChargeID)
	}
	total := Cents(0)
	var items []ChargeItem
	for _, it := range in.Items {
		if strings.TrimSpace(it.Description) == "" && it.Amount.IsZero() {
			continue
		}
		if strings.TrimSpace(it.Description) == "" || !it.Amount.IsPositive() {
			return Errorf(EINVALID, section, "Each line needs a description and an amount above $0.00.")
		}
		items = append(items, ChargeItem{Description: strings.TrimSpace(it.Description), Amount: it.Amount})
		total = total.Add(it.Amount)
	}
	if len(items) == 0 {
		return Errorf(EINVALID, section, "A charge needs at least one line.")
	}
	if in.What == ChargeCollection {
		placed, ok, err := tx.Bill(in.Placed)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(ENOTFOUND, section, "There is no bill %q to place with the agency.", in.Placed)
		}
		// The placed bill's own account and parcel owe the costs.
		in.Account, in.Parcel = placed.Account, placed.Parcel
	}
	what := ChargeTitle(in.What) + ": " + strings.TrimSpace(in.Reference)
	nb := NewBill{ID: in.BillID, Account: in.Account, Parcel: in.Parcel, Description: what, BilledOn: c.At.Date, Principal: total}
	if errs := CheckNewBills([]NewBill{nb}, txBillReader{tx}); len(errs) > 0 {
		return errs[0]
	}
	b := Bill{ID: nb.ID, Account: nb.Account, Parcel: nb.Parcel, Description: nb.Description, BilledOn: nb.BilledOn, Principal: nb.Principal}
	if err := numberBill(tx, &b); err != nil {
		return err
	}
	if err := tx.PutBill(b); err != nil {
		return err
	}
	if err := tx.Put(CollectionBillOrigins, nb.ID, BillOrigin{BillID: nb.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: "charge " + in.ChargeID}); err != nil {
		return err
	}
	ch := Charge{NewCharge: *in, Total: total, CommandID: c.ID, By: c.Actor, At: c.At}
	ch.Items = items
	if err := tx.Put(CollectionCharges, ch.ChargeID, ch); err != nil {
		return err
	}
	if err := tx.Index(IndexChargesByAcc, ch.Account+"/"+ch.ChargeID); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("%s billed %s on %s", in.What, total, nb.ID)
	return nil
}

// Hold is a reason a responsible party's permits and approvals are held.
type Hold struct {
	ChargeID string `json:"charge_id"`
	BillID   string `json:"bill_id"`
	Balance  Money  `json:"balance"`
	Since    Date   `json:"since"` // the day after the bill fell due
}

// PermitHolds applies §5.21: a responsible party who has not paid a
// chargeback invoice by its due date has the work on its permits stopped
// and its approvals held, until the invoice is paid. Each unpaid, past due
// chargeback bill is a hold as of asOf.
func PermitHolds(charges []Charge, bill func(id string) (Bill, error), asOf Date, p *Params) ([]Hold, error) {
	var holds []Hold
	for _, ch := range charges {
		if ch.What != ChargeChargeback {
			continue
		}
		b, err := bill(ch.BillID)
		if err != nil {
			return nil, err
		}
		fig, err := b.Figures(asOf, p)
		if err != nil {
			return nil, err
		}
		if fig.Balance.IsPositive() && asOf.After(fig.DueOn) {
			holds = append(holds, Hold{ChargeID: ch.ChargeID, BillID: b.ID, Balance: fig.Balance, Since: fig.DueOn.AddDays(1)})
		}
	}
	return holds, nil
}

// KindCharge bills collection costs, a chargeback (§5.21) or a notice fee
// (§5.19).
const KindCharge Kind = "charge"

// Kind names the payload's kind.
func (*NewCharge) Kind() Kind { return KindCharge }

var chargeKind = &Descriptor{
	Kind: KindCharge, Section: "§5.21", Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(NewCharge) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyCharge(tx, c, res) },
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		in := c.Payload.(*NewCharge)
		billLines(l, tx, []string{in.BillID})
		return "charge " + in.ChargeID
	},
}
