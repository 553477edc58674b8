package domain

import (
	"encoding/json"
	"sort"
)

// Purchases is the collection of the village's public purchasing records,
// by id. The kiosk lists them read-only; the purchasing agent's commands
// write them (with PutPurchase).
const Purchases = "purchases"

// Bid is one bid received for an open-market purchase.
type Bid struct {
	Vendor string `json:"vendor"`
	Amount Money  `json:"amount"`
}

// PublicPurchase is a purchase as the public may inspect it. §5.12(5): an
// open-market purchase is recorded with its bids, kept as public records;
// §5.12(7): an emergency purchase is recorded with its invoice and an
// explanation of the emergency.
type PublicPurchase struct {
	ID          string   `json:"id"`
	Date        Date     `json:"date"`
	Description string   `json:"description"`
	Vendor      string   `json:"vendor"`
	Amount      Money    `json:"amount"`
	Category    Category `json:"category"`
	Emergency   bool     `json:"emergency"`
	Bids        []Bid    `json:"bids,omitempty"`
	Invoice     string   `json:"invoice,omitempty"`     // the vendor's invoice number (emergency)
	Explanation string   `json:"explanation,omitempty"` // why it could not wait (emergency)
	// Of a purchase order (order.go): where it stands, the basis of its
	// award and the reasons given, its class 2 notice (§5.13(1)), the
	// board's approval, and the ground on which §5.13 did not apply.
	Status        string `json:"status,omitempty"`
	Basis         string `json:"basis,omitempty"`
	Reasons       string `json:"reasons,omitempty"`
	Notices       []Date `json:"notices,omitempty"`
	BidsOpen      Date   `json:"bids_open,omitzero"`
	BoardApproval string `json:"board_approval,omitempty"`
	Ground        string `json:"ground,omitempty"`
	// Standing is where the purchase stands for the public (Standing…
	// constants), on a purchase order's record; empty on a record an
	// earlier release kept on its own.
	Standing string `json:"standing,omitempty"`
	// Paid is what checks paid on the order's claims (§5.07(4)), voided
	// checks not counted.
	Paid Money `json:"paid,omitzero"`
	// Refusal is why the treasurer did not certify the funds (§5.12(6)).
	Refusal string `json:"refusal,omitempty"`
	// Vote is the board's approval as a vote at a meeting (ledger format
	// 6); BoardApproval is the free text of an earlier award.
	Vote *BudgetVoteRecord `json:"vote,omitempty"`
}

// Where a purchase order stands on its public record. An award is
// "awarded" only once the treasurer certified its funds (§5.12(6)), or the
// certification was waived for an emergency purchase (§5.12(7)); "paid"
// only when checks paid its claims, for all it was invoiced once the
// order is closed, else for at least the award.
const (
	StandingAwaitingFunds = "awaiting_funds" // awarded, the funds not yet certified
	StandingFundsRefused  = "funds_refused"  // the treasurer refused to certify the funds
	StandingAwarded       = "awarded"        // funds certified: the order may be issued
	StandingPaidInPart    = "paid_in_part"   // checks paid part of it
	StandingPaid          = "paid"           // checks paid it
	StandingCancelled     = "cancelled"      // cancelled after the award
)

// Validate checks that the record holds what §5.12 requires of its kind:
// an emergency purchase its invoice and explanation, an open-market
// purchase at least one bid; every purchase an id, a date, a vendor, a
// known category and an amount over zero.
func (p PublicPurchase) Validate() error {
	switch {
	case p.ID == "" || p.Date.IsZero() || p.Vendor == "" || p.Description == "":
		return Errorf(EINVALID, sectionPurchasing, "A purchase record needs an id, a date, a description and a vendor.")
	case !p.Amount.IsPositive():
		return Errorf(EINVALID, sectionPurchasing, "Purchase %s: the amount must be more than $0.00.", p.ID)
	}
	switch p.Category {
	case CategorySupplies, CategoryMaterials, CategoryEquipment, CategoryContractualServices:
	default:
		return Errorf(EINVALID, sectionPurchasing, "Purchase %s: unknown category %q.", p.ID, p.Category)
	}
	if p.Emergency {
		if p.Invoice == "" || p.Explanation == "" {
			return Errorf(EINVALID, "§5.12(7)", "Emergency purchase %s needs its invoice and an explanation.", p.ID)
		}
		return nil
	}
	if len(p.Bids) == 0 {
		return Errorf(EINVALID, "§5.12(5)", "Open-market purchase %s needs its bids.", p.ID)
	}
	for _, b := range p.Bids {
		if b.Vendor == "" || !b.Amount.IsPositive() {
			return Errorf(EINVALID, "§5.12(5)", "Purchase %s: every bid needs a vendor and an amount over $0.00.", p.ID)
		}
	}
	return nil
}

// Record returns the public record §5.12 asks of the purchase:
// RecordEmergency or RecordOpenMarket.
func (p PublicPurchase) Record() string {
	if p.Emergency {
		return RecordEmergency
	}
	return RecordOpenMarket
}

// PutPurchase checks a purchase record and writes it.
func PutPurchase(tx Tx, p PublicPurchase) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return tx.Put(Purchases, p.ID, p)
}

// ListPurchases reads every purchase record, newest first (then by id). A
// record that does not decode is an error: public records must not vanish
// silently.
func ListPurchases(r Records) ([]PublicPurchase, error) {
	var out []PublicPurchase
	err := r.List(Purchases, "", func(id string, raw []byte) error {
		var p PublicPurchase
		if err := json.Unmarshal(raw, &p); err != nil {
			return Errorf(EINTERNAL, sectionPurchasing, "purchase record %s: %v", id, err)
		}
		out = append(out, p)
		return nil
	})
	sortPurchases(out)
	return out, err
}

// sortPurchases orders purchase records newest first, then by id.
func sortPurchases(out []PublicPurchase) {
	sort.SliceStable(out, func(i, j int) bool {
		if c := out[i].Date.Compare(out[j].Date); c != 0 {
			return c > 0
		}
		return out[i].ID < out[j].ID
	})
}
