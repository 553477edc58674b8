package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Card settlements (§5.06). A card payment goes into receipts not yet
// deposited, in the fund its lines put it in, like money in a drawer; the
// card processor then deposits a day's card receipts, less its fee, in a
// designated depository. The books note each day's card receipts by fund
// as they post (CollectionBookCardDays), and the treasurer's settlement of
// a day moves them: undeposited down in each fund by its card receipts,
// cash up by the same, and the fee (the day's card receipts less the
// amount deposited) an expenditure of the line the settlement names, paid
// out of that line's fund's cash. The fee line is required when there is a
// fee: an expenditure line belongs to a unit (§5.01(3)), which the books
// cannot choose. A day is settled once; from ledger format 6, card
// receipts that reach the ledger after their day was settled (a kiosk that
// took them offline and delivered them late) are kept apart as the day's
// late receipts, and the processor's later deposit of them is settled by a
// further settlement of the day, which moves only them.

// KindCardSettlement records the card processor's deposit of a day.
const KindCardSettlement Kind = "card_settlement"

// CollectionBookCardDays holds, by day, the card receipts the books put
// in receipts not yet deposited, by fund, and the day's settlement.
const CollectionBookCardDays = "book-card-days"

// CardSettlement is the card processor's deposit of one day's card
// receipts in a designated depository, net of its fee.
type CardSettlement struct {
	Day        Date   `json:"day"`        // the day of the card receipts settled
	Depository string `json:"depository"` // where the processor deposited them
	Deposited  Money  `json:"deposited"`  // the amount deposited
	FeeAccount string `json:"fee_account,omitempty"`
	Reference  string `json:"reference,omitempty"` // the processor's payout reference
}

// CardDay is the books' record of one day's card receipts.
type CardDay struct {
	Funds   map[string]Money `json:"funds"`
	Settled *CardDaySettled  `json:"settled,omitempty"`
	// Late are the card receipts of the day, by fund, posted after it was
	// settled and not yet in a settlement (ledger format 6); Later are the
	// settlements of late receipts, in order.
	Late  map[string]Money `json:"late,omitempty"`
	Later []CardDaySettled `json:"later,omitempty"`
}

// CardDaySettled is the settlement of a card day.
type CardDaySettled struct {
	Depository string   `json:"depository"`
	Deposited  Money    `json:"deposited"`
	Fee        Money    `json:"fee"`
	FeeAccount string   `json:"fee_account"`
	Reference  string   `json:"reference,omitempty"`
	At         DateTime `json:"at"`
	By         string   `json:"by"`
	CommandID  string   `json:"command_id"`
	// Funds are the late receipts a further settlement moved, by fund;
	// the first settlement moved the day's Funds.
	Funds map[string]Money `json:"funds,omitempty"`
}

// Total is the day's card receipts.
func (d CardDay) Total() Money { return sumFunds(d.Funds) }

// LateTotal is the day's card receipts posted after its settlement and
// not yet settled.
func (d CardDay) LateTotal() Money { return sumFunds(d.Late) }

func sumFunds(funds map[string]Money) Money {
	sum := Cents(0)
	for _, m := range funds {
		sum = sum.Add(m)
	}
	return sum
}

// Kind names the payload's kind.
func (*CardSettlement) Kind() Kind { return KindCardSettlement }

func (p *CardSettlement) textFields() []textField {
	return []textField{oneLine("The depository", p.Depository), oneLine("The fee account", p.FeeAccount), oneLine("The reference", p.Reference)}
}

var cardSettlementKind = &Descriptor{
	Kind: KindCardSettlement, Section: sectionDeposit, Since: BooksFormat,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CardSettlement) },
	Apply: applyCardSettlement,
	Books: cardSettlementLines,
}

// noteCardReceipt adds the undeposited lines of a card receipt to its
// day's card receipts.
func noteCardReceipt(tx Tx, ch *Chart, day Date, lines []BookLine) error {
	var d CardDay
	if _, err := tx.Get(CollectionBookCardDays, day.String(), &d); err != nil {
		return err
	}
	if d.Funds == nil {
		d.Funds = map[string]Money{}
	}
	late := d.Settled != nil && RulesFormat(tx) >= ReconciledFormat
	if late && d.Late == nil {
		d.Late = map[string]Money{}
	}
	moved := false
	for _, p := range lines {
		if a, ok := ch.Account(p.Account); ok && a.Control == ControlUndeposited {
			d.Funds[p.Fund] = d.Funds[p.Fund].Add(p.Debit).Sub(p.Credit)
			if late {
				d.Late[p.Fund] = d.Late[p.Fund].Add(p.Debit).Sub(p.Credit)
			}
			moved = true
		}
	}
	if !moved {
		return nil
	}
	return tx.Put(CollectionBookCardDays, day.String(), d)
}

func applyCardSettlement(tx Tx, c Command, _ Env, res *Result) error {
	in := c.Payload.(*CardSettlement)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionDeposit, format, args...) }
	open, err := BooksOpen(tx)
	if err != nil {
		return err
	}
	if !open {
		return Errorf(ECONFLICT, sectionDeposit, "The books are not kept yet: a card settlement only moves the books.")
	}
	if in.Day.IsZero() || in.Day.After(c.At.Date) {
		return bad("The day settled is required and cannot be after today.")
	}
	dep, ok, err := loadDepository(tx, in.Depository)
	if err != nil {
		return err
	}
	if !ok || !dep.DesignatedOn(c.At.Date) {
		return bad("Depository %q is not a designated depository today: the processor deposits in one the board designated.", in.Depository)
	}
	var d CardDay
	if _, err := tx.Get(CollectionBookCardDays, in.Day.String(), &d); err != nil {
		return err
	}
	total, further := d.Total(), false
	switch {
	case d.Settled != nil && d.LateTotal().IsPositive():
		total, further = d.LateTotal(), true // the late receipts, deposited apart
	case d.Settled != nil:
		return Errorf(ECONFLICT, sectionDeposit, "The card receipts of %s were settled on %s.", in.Day, d.Settled.At.Date)
	}
	if !total.IsPositive() {
		return Errorf(ECONFLICT, sectionDeposit, "The books hold no card receipts of %s to settle.", in.Day)
	}
	if in.Deposited.IsNegative() || in.Deposited.GreaterThan(total) {
		return bad("The processor deposited %s, more than the day's card receipts (%s) or below zero: check the day and the amount.", in.Deposited, total)
	}
	if in.FeeAccount == "" && in.Deposited.LessThan(total) {
		return bad("The processor kept a fee of %s: name the expenditure line it is charged to.", total.Sub(in.Deposited))
	}
	if in.FeeAccount != "" {
		ch, err := loadChart(tx)
		if err != nil {
			return err
		}
		if a, ok := ch.Account(in.FeeAccount); !ok || a.Type != AccountExpenditure || a.Closed {
			return bad("Account %s is not an open expenditure line of the chart.", in.FeeAccount)
		}
	}
	settled := CardDaySettled{Depository: dep.ID, Deposited: in.Deposited, Fee: total.Sub(in.Deposited), FeeAccount: in.FeeAccount,
		Reference: strings.TrimSpace(in.Reference), At: c.At, By: c.Actor, CommandID: c.ID}
	if further {
		settled.Funds, d.Late = d.Late, nil
		d.Later = append(d.Later, settled)
		res.Note = fmt.Sprintf("late card receipts of %s settled: %s deposited, fee %s", in.Day, in.Deposited, settled.Fee)
	} else {
		d.Settled = &settled
		res.Note = fmt.Sprintf("card receipts of %s settled: %s deposited, fee %s", in.Day, in.Deposited, settled.Fee)
	}
	return tx.Put(CollectionBookCardDays, in.Day.String(), d)
}

// cardSettlementLines are the lines of a settlement: each fund's card
// receipts of the day from undeposited to cash, then the fee from cash to
// its expenditure line.
func cardSettlementLines(l *Lines, tx Tx, c Command, _ Result) string {
	in := c.Payload.(*CardSettlement)
	var d CardDay
	if _, err := tx.Get(CollectionBookCardDays, in.Day.String(), &d); err != nil || d.Settled == nil {
		if err == nil {
			err = fmt.Errorf("books: the card day %s is not settled", in.Day)
		}
		l.err = err
		return ""
	}
	settled, moved := *d.Settled, d.Funds
	memo := fmt.Sprintf("card receipts of %s deposited at %s", in.Day, in.Depository)
	if n := len(d.Later); n > 0 && d.Later[n-1].CommandID == c.ID {
		settled, moved = d.Later[n-1], d.Later[n-1].Funds
		memo = fmt.Sprintf("late card receipts of %s deposited at %s", in.Day, in.Depository)
	}
	funds := make([]string, 0, len(moved))
	for f := range moved {
		funds = append(funds, f)
	}
	slices.Sort(funds)
	for _, f := range funds {
		l.Debit(l.Control(f, ControlCash), moved[f], sectionDeposit, memo)
		l.Credit(l.Control(f, ControlUndeposited), moved[f], sectionDeposit, memo)
	}
	if fee := settled.FeeAccount; settled.Fee.IsPositive() {
		feeMemo := fmt.Sprintf("card processor's fee on the receipts of %s", in.Day)
		l.Debit(fee, settled.Fee, sectionDeposit, feeMemo)
		l.Credit(l.Control(l.FundOf(fee), ControlCash), settled.Fee, sectionDeposit, feeMemo)
	}
	return memo
}

// CardDay returns the books' record of day's card receipts and its
// settlement; ok is false when the books hold no card receipt of day.
func (x Reads) CardDay(day Date) (d CardDay, ok bool, err error) {
	return get[CardDay](x.r, CollectionBookCardDays, day.String())
}
