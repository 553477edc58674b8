package domain

import (
	"fmt"
	"slices"
)

// KindSeedDemo loads demo data into an empty ledger.
const KindSeedDemo Kind = "seed_demo"

// SeedDemo holds demo records. It applies only to an empty ledger, so
// loading the demo twice, or on a ledger with real data, changes nothing.
type SeedDemo struct {
	Parcels  []Parcel  `json:"parcels"`
	Accounts []Account `json:"accounts"`
	Bills    []Bill    `json:"bills"`

	TaxBills  []TaxBill        `json:"tax_bills,omitempty"`
	Purchases []PublicPurchase `json:"purchases,omitempty"` // as the first releases seeded them; see History

	// History is the demo's budget and purchasing year as the commands
	// the office would have given, dated in the past: the chart, the
	// officials, the budget cycle, orders with their bids, awards and
	// deliveries, and the treasury's year (bills, payments at the
	// window and deposits, claims paid by check, status letters). Each step applies with the rules of its kind, so the
	// demo's records are the records the rules make (no second list of
	// purchases). Only the kinds of demoHistoryKinds may appear, and the
	// officials' accounts are locked (no password opens them): on an
	// empty ledger the history can make nobody a user who can sign in.
	History []Command `json:"history,omitempty"`
}

// LockedPassword is the password hash of an account no password opens:
// the demo's officials, who exist only as the actors of its history.
const LockedPassword = "!locked"

// demoHistoryKinds are the kinds a demo's history may hold: the budget
// and purchasing record, and the treasury's year that posts to the books
// (bills issued, paid at the window, deposited; claims allowed and paid
// by check; status letter fees; last month's bank statement). None of them makes a user who can sign
// in: staff users are only added locked (applyDemoStep), and a signature
// approved for checks (§5.18) is no account.
var demoHistoryKinds = []Kind{KindStaffUser, KindChart, KindBoardMember, KindBudgetEstimate, KindBudgetProposal,
	KindBudgetNotice, KindBudgetHearing, KindBudgetVote, KindOrder, KindCertifyFunds, KindOrderReceipt,
	KindNovemberRun,
	KindDepository, KindCheckStock, KindSignature, KindCreateBills, KindDrawerOpen, KindWindowPayment,
	KindDrawerClose, KindDeposit, KindClaim, KindCheckRun, KindRequestStatusLetter, KindBankStatement}

// Kind names the payload's kind.
func (*SeedDemo) Kind() Kind { return KindSeedDemo }

var seedDemoKind = &Descriptor{
	Kind:    KindSeedDemo,
	Offline: true,
	// Demo data loads only into an empty ledger, and only by the operator
	// of the node that runs the demo: the kiosk in the public hallway
	// never takes it (it is not a resident's), and from ledger format 4
	// the leader never takes it from another node (replica.ForwardHandler)
	// and the ledger refuses it from a kiosk's key.
	New:   func() Payload { return new(SeedDemo) },
	Apply: applySeedDemo,
}

// demoTable is the table a demo's history applies with: Kinds, which holds
// the seed's own descriptor, so it is set in init.
var demoTable *Table

func init() { demoTable = &Kinds }

// applySeedDemo loads demo records into an empty ledger and does nothing to
// a ledger that already holds records.
func applySeedDemo(tx Tx, c Command, env Env, res *Result) error {
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
		b.Number = "" // the ledger gives numbers, never the payload
		if RulesFormat(tx) < DocumentsFormat {
			// Spanish descriptions are new in format 7: a ledger below
			// it loads the demo's bills without them, as it did before.
			b.DescriptionES = ""
		}
		if err := numberBill(tx, &b); err != nil {
			return err
		}
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
	seed := c.Payload.(*SeedDemo)
	res.Note = fmt.Sprintf("loaded %d parcels, %d accounts, %d bills", len(seed.Parcels), len(seed.Accounts), len(seed.Bills))
	if len(seed.History) == 0 {
		return nil
	}
	if RulesFormat(tx) < 2 {
		// The history's kinds need format 2; the records above stand
		// alone. Deterministic: the format is the log's.
		res.Note += "; the budget and purchasing history needs ledger format 2 and was not loaded"
		return nil
	}
	for i, step := range seed.History {
		if err := applyDemoStep(tx, step, env); err != nil {
			return Errorf(ErrorCode(err), "", "demo history step %d (%s %s): %v", i+1, step.Kind, step.ID, err)
		}
	}
	res.Note += fmt.Sprintf(", %d history steps", len(seed.History))
	return nil
}

// applyDemoStep applies one step of a demo's history with its kind's rules.
func applyDemoStep(tx Tx, step Command, env Env) error {
	if !slices.Contains(demoHistoryKinds, step.Kind) {
		return Errorf(EINVALID, "", "a demo's history may not hold %s commands", step.Kind)
	}
	if step.Kind == KindBankStatement && RulesFormat(tx) < ReconciledFormat {
		// The bank statement is new in format 6: a ledger at format 5
		// loads the demo without it, as it did before.
		return nil
	}
	if o, ok := step.Payload.(*OrderChange); ok && o.Award != nil && o.Award.Vote != nil && RulesFormat(tx) < ReconciledFormat {
		// The board's vote on an award is new in format 6 (approveAward):
		// a ledger at format 5 loads it as the free text it kept before.
		aw, vt := *o.Award, *o.Award.Vote
		aw.BoardApproval = fmt.Sprintf("vote of the meeting of %s: %d ayes, %d nays, %d present", vt.On, vt.Ayes, vt.Nays, vt.Present)
		aw.BoardApprovedOn, aw.Vote = vt.On, nil
		oc := *o
		oc.Award = &aw
		step.Payload = &oc
	}
	if cb, ok := step.Payload.(*CreateBills); ok && RulesFormat(tx) < DocumentsFormat {
		// Likewise the history's bills: below format 7 without their
		// Spanish descriptions, which create_bills would refuse there.
		in := *cb
		in.Bills = slices.Clone(cb.Bills)
		for i := range in.Bills {
			in.Bills[i].DescriptionES = ""
		}
		step.Payload = &in
	}
	if u, ok := step.Payload.(*StaffUserChange); ok && (u.Op != StaffAdd || u.PasswordHash != LockedPassword) {
		return Errorf(EINVALID, "", "a demo's history only adds locked accounts")
	}
	if err := demoTable.Validate(step); err != nil {
		return err
	}
	_, err := demoTable.Apply(tx, step, env)
	return err
}
