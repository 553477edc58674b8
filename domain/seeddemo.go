package domain

import "fmt"

// KindSeedDemo loads demo data into an empty ledger.
const KindSeedDemo Kind = "seed_demo"

// SeedDemo holds demo records. It applies only to an empty ledger, so
// loading the demo twice, or on a ledger with real data, changes nothing.
type SeedDemo struct {
	Parcels  []Parcel  `json:"parcels"`
	Accounts []Account `json:"accounts"`
	Bills    []Bill    `json:"bills"`

	TaxBills  []TaxBill        `json:"tax_bills,omitempty"`
	Purchases []PublicPurchase `json:"purchases,omitempty"`
}

// Kind names the payload's kind.
func (*SeedDemo) Kind() Kind { return KindSeedDemo }

var seedDemoKind = &Descriptor{
	Kind:    KindSeedDemo,
	Offline: true,
	// Demo data loads only into an empty ledger, so any node may send it.
	Resident: true,
	New:      func() Payload { return new(SeedDemo) },
	Apply:    func(tx Tx, c Command, _ Env, res *Result) error { return applySeedDemo(tx, c, res) },
}

// applySeedDemo loads demo records into an empty ledger and does nothing to
// a ledger that already holds records.
func applySeedDemo(tx Tx, c Command, res *Result) error {
	empty, err := tx.Empty()
	if err != nil {
		return err
	}
	if !empty {
		res.Note = "ledger not empty; demo data not loaded"
		return nil
	}
	for _, p := range c.Payload.(*SeedDemo).Parcels {
		if err := tx.PutParcel(p); err != nil {
			return err
		}
	}
	for _, a := range c.Payload.(*SeedDemo).Accounts {
		if err := tx.PutAccount(a); err != nil {
			return err
		}
	}
	for _, b := range c.Payload.(*SeedDemo).Bills {
		if err := tx.PutBill(b); err != nil {
			return err
		}
	}
	for _, t := range c.Payload.(*SeedDemo).TaxBills {
		if err := PutTaxBill(tx, t); err != nil {
			return err
		}
	}
	for _, p := range c.Payload.(*SeedDemo).Purchases {
		if err := PutPurchase(tx, p); err != nil {
			return err
		}
	}
	res.Note = fmt.Sprintf("loaded %d parcels, %d accounts, %d bills", len(c.Payload.(*SeedDemo).Parcels), len(c.Payload.(*SeedDemo).Accounts), len(c.Payload.(*SeedDemo).Bills))
	return nil
}
