package domain

import (
	"fmt"
	"strings"
)

// Public depositories (§5.06). The Village Board designates by resolution
// one or more public depositories for the village's funds (under Wis. Stat.
// 34.05 today: the text cites the repealed 66.46 and 34.01(6), see
// RULES.md). A designation runs from its first day through its last, if
// the board set or later ended it; from ledger format 2 a deposit slip
// names a depository designated on the day of the deposit, and nothing
// else. Interest the village's money earns in a depository is credited
// to the village: a receipt of its own kind, counted in the actuals of the
// revenue account it is credited to.

// Kinds of the public depositories.
const (
	KindDepository         Kind = "depository"          // designate a depository, or end a designation
	KindDepositoryInterest Kind = "depository_interest" // interest credited by a depository
)

// Collections of the public depositories.
const (
	CollectionDepositories = "depositories" // id: depository id → Depository
)

// BankCredit is money a bank credits to the village's account itself (the
// interest of a deposit or an investment). It is not a tender of payments:
// the kiosk and the window never take one (Tender.Valid).
const BankCredit Tender = "bank_credit"

// Operations on a depository.
const (
	DepositoryDesignate = "designate"
	DepositoryEnd       = "end"
	// DepositoryNumber records the bank's number of a designated
	// depository's account, which its checks and positive pay name
	// (ledger format 5).
	DepositoryNumber = "account_number"
)

// Depository is a public depository the board designated.
type Depository struct {
	ID          string `json:"id"`          // short code chosen by the treasurer, "BOB"
	Name        string `json:"name"`        // the account as the slips name it
	Institution string `json:"institution"` // the financial institution
	// Number is the bank's number of the account, as its checks and the
	// positive-pay file name it (ledger format 5); empty for an account
	// the village writes no checks on.
	Number     string `json:"number,omitempty"`
	Resolution string `json:"resolution"` // the board's resolution designating it
	From       Date   `json:"from"`
	// To is the last day of the designation, zero while it runs on.
	To            Date     `json:"to,omitzero"`
	EndResolution string   `json:"end_resolution,omitempty"`
	Recorded      DateTime `json:"recorded"`
	RecordedBy    string   `json:"recorded_by"`
	// Interest is the interest it has credited to the village.
	Interest Money `json:"interest"`
}

// DesignatedOn reports whether the depository is designated on day d.
func (p Depository) DesignatedOn(d Date) bool {
	return !d.Before(p.From) && (p.To.IsZero() || !d.After(p.To))
}

// DepositoryChange designates a depository or ends its designation.
type DepositoryChange struct {
	Op          string `json:"op"`
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Institution string `json:"institution,omitempty"`
	Resolution  string `json:"resolution"`
	From        Date   `json:"from,omitzero"`
	To          Date   `json:"to,omitzero"`
	// Number is the bank's account number (designate, or the op
	// account_number on a designated depository; ledger format 5).
	Number string `json:"number,omitempty"`
}

// Kind names the payload's kind.
func (*DepositoryChange) Kind() Kind { return KindDepository }

func (p *DepositoryChange) textFields() []textField {
	return []textField{oneLine("The depository code", p.ID), oneLine("The depository's name", p.Name), oneLine("The institution", p.Institution), oneLine("The resolution", p.Resolution), oneLine("The account number", p.Number)}
}

// DepositoryInterest is interest a depository credited to the village.
type DepositoryInterest struct {
	Depository string `json:"depository"`
	On         Date   `json:"on"`      // the day the bank credited it
	Amount     Money  `json:"amount"`  // the interest
	Revenue    string `json:"revenue"` // the revenue account of the chart credited
	Statement  string `json:"statement,omitempty"`
}

// Kind names the payload's kind.
func (*DepositoryInterest) Kind() Kind { return KindDepositoryInterest }

func (p *DepositoryInterest) textFields() []textField {
	return []textField{oneLine("The depository", p.Depository), oneLine("The revenue account", p.Revenue), oneLine("The statement", p.Statement)}
}

var (
	depositoryKind = &Descriptor{
		Kind: KindDepository, Section: sectionDeposit, Since: 2,
		Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(DepositoryChange) },
		Apply: applyDepository,
	}
	depositoryInterestKind = &Descriptor{
		Kind: KindDepositoryInterest, Section: sectionDeposit, Since: 2,
		Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(DepositoryInterest) },
		Apply: applyDepositoryInterest,
		Books: depositoryInterestLines,
	}
)

// depositoryInterestLines post interest a depository credited (§5.06):
// into the cash of the fund of the revenue account the treasurer named,
// and that account.
func depositoryInterestLines(l *Lines, tx Tx, c Command, res Result) string {
	p := c.Payload.(*DepositoryInterest)
	memo := fmt.Sprintf("interest credited by %s on %s", p.Depository, p.On)
	l.Debit(l.Control(l.FundOf(p.Revenue), ControlCash), p.Amount, sectionDeposit, memo)
	l.Credit(p.Revenue, p.Amount, sectionDeposit, memo)
	return memo
}

func loadDepository(tx Tx, id string) (Depository, bool, error) {
	var d Depository
	ok, err := tx.Get(CollectionDepositories, id, &d)
	return d, ok, err
}

func applyDepository(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*DepositoryChange)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionDeposit, format, args...) }
	if err := validRecordID("depository", p.ID); err != nil {
		return err
	}
	if strings.TrimSpace(p.Resolution) == "" && p.Op != DepositoryNumber {
		return bad("Name the board's resolution: depositories are designated by the Village Board.")
	}
	d, exists, err := loadDepository(tx, p.ID)
	if err != nil {
		return err
	}
	switch p.Op {
	case DepositoryDesignate:
		switch {
		case exists:
			return Errorf(ECONFLICT, sectionDeposit, "Depository %s is designated already (from %s).", p.ID, d.From)
		case strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Institution) == "":
			return bad("A depository needs its name and the financial institution.")
		case p.From.IsZero():
			return bad("Give the first day of the designation.")
		case !p.To.IsZero() && p.To.Before(p.From):
			return bad("The designation cannot end (%s) before it begins (%s).", p.To, p.From)
		}
		d = Depository{ID: p.ID, Name: strings.TrimSpace(p.Name), Institution: strings.TrimSpace(p.Institution), Resolution: strings.TrimSpace(p.Resolution),
			From: p.From, To: p.To, Recorded: c.At, RecordedBy: c.Actor, Interest: Cents(0)}
		if RulesFormat(tx) >= BooksFormat {
			d.Number = strings.TrimSpace(p.Number)
		}
		res.Note = fmt.Sprintf("depository %s designated from %s", d.ID, d.From)
	case DepositoryEnd:
		switch {
		case !exists:
			return Errorf(ENOTFOUND, sectionDeposit, "There is no depository %q.", p.ID)
		case d.EndResolution != "":
			return Errorf(ECONFLICT, sectionDeposit, "The designation of %s was ended by resolution %s (last day %s).", d.ID, d.EndResolution, d.To)
		case p.To.IsZero():
			return bad("Give the last day of the designation.")
		case p.To.Before(d.From):
			return bad("The designation cannot end (%s) before it begins (%s).", p.To, d.From)
		}
		d.To, d.EndResolution = p.To, strings.TrimSpace(p.Resolution)
		res.Note = fmt.Sprintf("designation of %s ends after %s", d.ID, d.To)
	case DepositoryNumber:
		switch {
		case RulesFormat(tx) < BooksFormat:
			return bad("Unknown operation %q on a depository (designate or end).", p.Op)
		case !exists:
			return Errorf(ENOTFOUND, sectionDeposit, "There is no depository %q.", p.ID)
		case strings.TrimSpace(p.Number) == "":
			return bad("Give the bank's number of the account.")
		}
		d.Number = strings.TrimSpace(p.Number)
		res.Note = fmt.Sprintf("depository %s is account %s", d.ID, d.Number)
	default:
		return bad("Unknown operation %q on a depository (designate or end).", p.Op)
	}
	res.Ref = d.ID
	return tx.Put(CollectionDepositories, d.ID, d)
}

// checkDepository refuses a deposit to a depository not designated on day
// (ledger format 2; deposit slips of format 1 named any bank). It returns
// the depository.
func checkDepository(tx Tx, id string, day Date) (Depository, error) {
	d, ok, err := loadDepository(tx, id)
	switch {
	case err != nil:
		return d, err
	case !ok:
		return d, Errorf(EINVALID, sectionDeposit, "%q is not a public depository designated by the Village Board: deposit the village's money only in a designated depository.", id)
	case !d.DesignatedOn(day):
		if day.Before(d.From) {
			return d, Errorf(EINVALID, sectionDeposit, "Depository %s is designated only from %s.", d.Name, d.From)
		}
		return d, Errorf(EINVALID, sectionDeposit, "The designation of %s ended on %s (resolution %s): deposit in a designated depository.", d.Name, d.To, d.EndResolution)
	}
	return d, nil
}

// checkRevenue checks that code is an open revenue account of the chart,
// of fund when fund is not empty.
func checkRevenue(tx Tx, section, code, fund string) error {
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	a, ok := chart.Account(code)
	switch {
	case strings.TrimSpace(code) == "":
		return Errorf(EINVALID, section, "Name the revenue account the interest is credited to.")
	case !ok || a.Closed:
		return Errorf(EINVALID, section, "%q is not an open account of the chart.", code)
	case a.Type != AccountRevenue:
		return Errorf(EINVALID, section, "Account %s is a %s account; interest is credited to a revenue account.", code, a.Type)
	case fund != "" && a.Fund != fund:
		return Errorf(EINVALID, section, "Account %s belongs to fund %s; this interest belongs to fund %s.", code, a.Fund, fund)
	}
	return nil
}

// interestReceipt posts a receipt of interest credited to the village:
// kind k, the revenue account credited in Account (the ledger counts it
// in that account's actuals, postReceipt).
func interestReceipt(tx Tx, c Command, env Env, k Kind, revenue, payer, reference string, amount Money, res *Result) error {
	rc := Receipt{Number: c.ReceiptNumber(), Kind: k, CommandID: c.ID, Status: Posted, Account: revenue, Payer: payer,
		At: c.At, Amount: amount, Tender: BankCredit, Reference: reference, Balance: Cents(0), Node: c.Node, Index: env.Index}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	return nil
}

func applyDepositoryInterest(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*DepositoryInterest)
	d, ok, err := loadDepository(tx, p.Depository)
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, sectionDeposit, "There is no depository %q.", p.Depository)
	case !p.Amount.IsPositive():
		return Errorf(EINVALID, sectionDeposit, "The interest must be more than $0.00.")
	case p.On.IsZero() || p.On.After(c.At.Date):
		return Errorf(EINVALID, sectionDeposit, "Give the day the interest was credited, on or before today.")
	case p.On.Before(d.From):
		return Errorf(EINVALID, sectionDeposit, "Depository %s was not designated on %s.", d.Name, p.On)
	}
	if err := checkRevenue(tx, sectionDeposit, p.Revenue, ""); err != nil {
		return err
	}
	d.Interest = d.Interest.Add(p.Amount)
	if err := tx.Put(CollectionDepositories, d.ID, d); err != nil {
		return err
	}
	res.Ref = d.ID
	res.Note = fmt.Sprintf("interest %s from %s credited to %s", p.Amount, d.Name, p.Revenue)
	return interestReceipt(tx, c, env, KindDepositoryInterest, p.Revenue, d.Institution, "interest "+d.ID, p.Amount, res)
}

// Depositories returns every depository the board designated, by code.
func (x Reads) Depositories() ([]Depository, error) {
	return all[Depository](x.r, CollectionDepositories, "")
}

// DepositoriesOn returns the depositories designated on day d, by code:
// the ones a deposit slip of that day may name.
func (x Reads) DepositoriesOn(d Date) ([]Depository, error) {
	ds, err := x.Depositories()
	var out []Depository
	for _, p := range ds {
		if p.DesignatedOn(d) {
			out = append(out, p)
		}
	}
	return out, err
}
