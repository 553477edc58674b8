package domain

import (
	"fmt"
	"strings"
)

// Transfers between funds (§5.05). Money moves from one fund to another
// only as the board resolves (an appropriation of §5.05, or a budget
// change of §5.04): the transfer names the resolution. It posts in each
// fund through its transfer lines, so that each fund balances and its
// statement shows the transfer: in the fund paying, transfers out (an
// expenditure-like line, other financing uses) against cash; in the fund
// receiving, cash against transfers in (a revenue-like line, other
// financing sources). The transfer names the paying fund's transfers out
// line (an expenditure line belongs to a unit of the chart, §5.01(3),
// which the books cannot choose) and may name the receiving fund's
// transfers in line, else that fund gets the standard <fund>-4910. A
// transfer out is not held against an appropriation here: the resolution
// is its authority.

// KindFundTransfer moves cash from one fund to another.
const KindFundTransfer Kind = "fund_transfer"

// The standard number of the transfers in line.
const (
	transfersIn = "4910"
)

// FundTransfer moves cash from one fund to another by board resolution.
type FundTransfer struct {
	From       string `json:"from"` // the fund paying
	To         string `json:"to"`   // the fund receiving
	Amount     Money  `json:"amount"`
	Resolution string `json:"resolution"` // the board's resolution
	Purpose    string `json:"purpose"`
	OutAccount string `json:"out_account,omitempty"` // the paying fund's transfers out line
	InAccount  string `json:"in_account,omitempty"`  // the receiving fund's transfers in line
}

// Kind names the payload's kind.
func (*FundTransfer) Kind() Kind { return KindFundTransfer }

func (p *FundTransfer) textFields() []textField {
	return []textField{oneLine("The fund paying", p.From), oneLine("The fund receiving", p.To), oneLine("The resolution", p.Resolution),
		oneLine("The purpose", p.Purpose), oneLine("The transfers out line", p.OutAccount), oneLine("The transfers in line", p.InAccount)}
}

var fundTransferKind = &Descriptor{
	Kind: KindFundTransfer, Section: "§5.05", Since: BooksFormat,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(FundTransfer) },
	Apply: applyFundTransfer,
	Books: fundTransferLines,
}

func applyFundTransfer(tx Tx, c Command, _ Env, res *Result) error {
	in := c.Payload.(*FundTransfer)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.05", format, args...) }
	open, err := BooksOpen(tx)
	if err != nil {
		return err
	}
	if !open {
		return Errorf(ECONFLICT, "§5.05", "The books are not kept yet: a transfer between funds only moves the books.")
	}
	ch, err := loadChart(tx)
	if err != nil {
		return err
	}
	isFund := func(code string) bool {
		a, ok := ch.Account(code)
		return ok && a.Type == AccountFund && !a.Closed
	}
	line := func(code, fund string, t AccountType) error {
		if code == "" {
			return nil
		}
		if a, ok := ch.Account(code); !ok || a.Type != t || a.Fund != fund || a.Closed {
			return bad("Account %s is not an open %s line of fund %s.", code, t, fund)
		}
		return nil
	}
	switch {
	case !isFund(in.From) || !isFund(in.To):
		return bad("Name the two funds of the chart the money moves between.")
	case in.From == in.To:
		return bad("A transfer moves money between two different funds.")
	case !in.Amount.IsPositive():
		return bad("The amount transferred must be more than $0.00.")
	case strings.TrimSpace(in.Resolution) == "":
		return bad("Name the board's resolution: money moves between funds only as the board resolves.")
	case strings.TrimSpace(in.Purpose) == "":
		return bad("Say what the transfer is for.")
	case in.OutAccount == "":
		return bad("Name fund %s's transfers out line (an expenditure line of the chart).", in.From)
	}
	if err := line(in.OutAccount, in.From, AccountExpenditure); err != nil {
		return err
	}
	if err := line(in.InAccount, in.To, AccountRevenue); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("%s transferred from fund %s to fund %s (resolution %s)", in.Amount, in.From, in.To, strings.TrimSpace(in.Resolution))
	return nil
}

// fundTransferLines are the lines of a transfer: transfers out against
// cash in the fund paying, cash against transfers in in the fund
// receiving.
func fundTransferLines(l *Lines, _ Tx, c Command, _ Result) string {
	in := c.Payload.(*FundTransfer)
	out, inn := in.OutAccount, in.InAccount
	if inn == "" {
		inn = l.transferLine(in.To, transfersIn, AccountRevenue, "Transfers from other funds", "Other financing sources")
	}
	memo := fmt.Sprintf("transfer from fund %s to fund %s, resolution %s: %s", in.From, in.To, strings.TrimSpace(in.Resolution), strings.TrimSpace(in.Purpose))
	l.Debit(out, in.Amount, "§5.05", memo)
	l.Credit(l.Control(in.From, ControlCash), in.Amount, "§5.05", memo)
	l.Debit(l.Control(in.To, ControlCash), in.Amount, "§5.05", memo)
	l.Credit(inn, in.Amount, "§5.05", memo)
	return memo
}

// transferLine returns fund's standard transfer line of number, added to
// the chart when missing.
func (l *Lines) transferLine(fund, number string, t AccountType, name, major string) string {
	code := fund + "-" + number
	if _, ok := l.chart.Account(code); ok || l.err != nil {
		return code
	}
	return l.addStandard(ChartAccount{Code: code, Type: t, Name: name, Fund: fund, Major: major})
}
