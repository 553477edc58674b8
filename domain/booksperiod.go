package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Closing periods and adjusting entries (books.go). The treasurer closes
// the books month by month: a closed period takes no entry dated in it,
// whichever kind would post it (checkPeriodOpen). What is found wrong
// after a close is corrected by an adjusting entry: a journal entry the
// treasurer writes, dated in the open period, with the reason for it. The
// latest close may be reopened, by the treasurer or the administrator,
// with a reason the record keeps.

// Kinds of the books' own.
const (
	KindBooksPeriod  Kind = "books_period"  // close the books through a month's end, or reopen the latest close
	KindBooksAdjust  Kind = "books_adjust"  // a dated adjusting entry
	KindBooksOpening Kind = "books_opening" // the opening trial balance, imported at conversion (booksopening.go)
)

// Operations on the periods of the books.
const (
	BooksClose  = "close"
	BooksReopen = "reopen"
)

// BooksPeriod closes the books through a month's last day, or reopens the
// latest close.
type BooksPeriod struct {
	Op      string `json:"op"`               // close | reopen
	Through Date   `json:"through,omitzero"` // close: the last day closed, a month's last day
	Reason  string `json:"reason,omitempty"` // reopen: why the period is reopened
}

// Kind names the payload's kind.
func (*BooksPeriod) Kind() Kind { return KindBooksPeriod }

func (p *BooksPeriod) textFields() []textField {
	return []textField{oneLine("The reason", p.Reason)}
}

var booksPeriodKind = &Descriptor{
	Kind: KindBooksPeriod, Since: BooksFormat,
	// The treasurer closes; the treasurer or the administrator reopens
	// (applyBooksPeriod tells them apart).
	Roles: []Role{RoleTreasurer, RoleAdministrator},
	New:   func() Payload { return new(BooksPeriod) },
	Check: func(c Command) error {
		p := c.Payload.(*BooksPeriod)
		switch p.Op {
		case BooksClose:
			if p.Through.IsZero() {
				return Errorf(EINVALID, "", "Give the last day of the period to close.")
			}
		case BooksReopen:
			if isBlank(p.Reason) {
				return Errorf(EINVALID, "", "Give the reason the period is reopened: the record keeps it.")
			}
		default:
			return Errorf(EINVALID, "", "Unknown operation %q on the periods of the books (close or reopen).", p.Op)
		}
		return nil
	},
	Apply: applyBooksPeriod,
}

// requireBooks refuses a command of the books' own kinds on a ledger that
// keeps no books yet.
func requireBooks(tx Tx) error {
	open, err := BooksOpen(tx)
	if err == nil && !open {
		err = Errorf(ECONFLICT, "", "The books are not kept yet: they open when the chart names its general fund.")
	}
	return err
}

// requireRole refuses c unless its actor holds one of roles; what says
// who does it, for the message.
func requireRole(tx Tx, c Command, what string, roles ...Role) error {
	u, ok, err := actor(tx, c)
	if err != nil {
		return err
	}
	if !ok || !slices.ContainsFunc(roles, u.Role.Is) {
		return Errorf(EFORBIDDEN, "", "%s.", what)
	}
	return nil
}

func applyBooksPeriod(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BooksPeriod)
	if err := requireBooks(tx); err != nil {
		return err
	}
	b, err := loadBooksClosed(tx)
	if err != nil {
		return err
	}
	through := b.through()
	switch p.Op {
	case BooksClose:
		if err := requireRole(tx, c, "Only the treasurer closes the books", RoleTreasurer); err != nil {
			return err
		}
		switch {
		case p.Through != p.Through.LastOfMonth():
			return Errorf(EINVALID, "", "The books close through a month's last day; %s is not one (%s is).", p.Through, p.Through.LastOfMonth())
		case !c.At.Date.After(p.Through):
			return Errorf(EINVALID, "", "A month closes once it has ended: %s can be closed from %s.", p.Through, p.Through.AddDays(1))
		case !through.IsZero() && !p.Through.After(through):
			return Errorf(ECONFLICT, "", "The books are closed through %s already.", through)
		}
		b.Closes = append(b.Closes, PeriodClose{Through: p.Through, On: c.At.Date, By: c.Actor, Index: env.Index})
		res.Ref = p.Through.String()
		res.Note = fmt.Sprintf("the books are closed through %s", p.Through)
	case BooksReopen:
		if err := requireRole(tx, c, "The treasurer or the administrator reopens a period of the books", RoleTreasurer, RoleAdministrator); err != nil {
			return err
		}
		i := b.standing()
		if i < 0 {
			return Errorf(ECONFLICT, "", "No period of the books is closed.")
		}
		b.Closes[i].Reopened = &PeriodReopen{On: c.At.Date, By: c.Actor, Reason: strings.TrimSpace(p.Reason), Index: env.Index}
		res.Ref = b.Closes[i].Through.String()
		if now := b.through(); now.IsZero() {
			res.Note = fmt.Sprintf("the close through %s is reopened: no period is closed", b.Closes[i].Through)
		} else {
			res.Note = fmt.Sprintf("the close through %s is reopened: the books are closed through %s", b.Closes[i].Through, now)
		}
	}
	return tx.Put(CollectionBookMeta, booksClosedRecord, b)
}

// MaxAdjustLines bounds the lines of one adjusting entry.
const MaxAdjustLines = 200

// BooksAdjust is an adjusting entry: journal lines the treasurer writes,
// dated On, with the reason for them. Its lines balance in every fund
// like any entry's, and On is in an open period.
type BooksAdjust struct {
	On     Date         `json:"on"`
	Reason string       `json:"reason"`
	Lines  []AdjustLine `json:"lines"`
}

// AdjustLine is one line of an adjusting entry: a debit or a credit to an
// account of the chart.
type AdjustLine struct {
	Account string `json:"account"`
	Debit   Money  `json:"debit,omitzero"`
	Credit  Money  `json:"credit,omitzero"`
	Memo    string `json:"memo,omitempty"`
}

// Kind names the payload's kind.
func (*BooksAdjust) Kind() Kind { return KindBooksAdjust }

func (p *BooksAdjust) textFields() []textField {
	fields := []textField{oneLine("The reason", p.Reason)}
	for _, l := range p.Lines {
		fields = append(fields, oneLine("An account", l.Account), oneLine("A memo", l.Memo))
	}
	return fields
}

var booksAdjustKind = &Descriptor{
	Kind: KindBooksAdjust, Since: BooksFormat,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(BooksAdjust) },
	Check: func(c Command) error { return c.Payload.(*BooksAdjust).check() },
	Apply: applyBooksAdjust,
	Books: booksAdjustLines,
}

// check checks an adjusting entry on its own: a date, a reason, two lines
// or more, each a debit or a credit of a positive amount to an account.
func (p *BooksAdjust) check() error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "", format, args...) }
	switch {
	case p.On.IsZero():
		return bad("Give the date of the adjusting entry.")
	case isBlank(p.Reason):
		return bad("Give the reason for the adjusting entry: the books keep it with the entry.")
	case len(p.Lines) < 2:
		return bad("An adjusting entry needs two lines or more: a debit and a credit.")
	case len(p.Lines) > MaxAdjustLines:
		return bad("An adjusting entry has at most %d lines.", MaxAdjustLines)
	}
	for i, l := range p.Lines {
		switch {
		case strings.TrimSpace(l.Account) == "":
			return bad("Line %d: name the account.", i+1)
		case l.Debit.IsNegative() || l.Credit.IsNegative():
			return bad("Line %d: the amounts are positive; a credit goes in the credit column.", i+1)
		case l.Debit.IsPositive() && l.Credit.IsPositive():
			return bad("Line %d: a line is a debit or a credit, not both.", i+1)
		case !l.Debit.IsPositive() && !l.Credit.IsPositive():
			return bad("Line %d: give the amount of the debit or of the credit.", i+1)
		}
	}
	return nil
}

// budgetary reports whether account a is one of the budgetary pair
// (encumbrances and their reserve, §5.05, §5.12(6)).
func budgetary(a ChartAccount) bool {
	return a.Control == ControlEncumbrances || a.Control == ControlReserveEncumbrances
}

// postable checks that account code of ch may take a line written by
// hand (an adjusting entry, the opening balances): an open account of a
// fund, not the fund itself, and not one of the budgetary pair, which
// follows the orders, employments and claims that hold an appropriation
// (§5.05, §5.12(6)): an entry by hand would leave them disagreeing.
func postable(ch Chart, code string) error {
	a, ok := ch.Account(code)
	switch {
	case !ok:
		return Errorf(EINVALID, "", "the chart has no account %s", code)
	case a.Type == AccountFund:
		return Errorf(EINVALID, "", "%s is a fund: its lines go to its accounts", code)
	case a.Type.Unit():
		return Errorf(EINVALID, "", "%s is a %s, not an account that takes postings", code, a.Type)
	case a.Closed:
		return Errorf(EINVALID, "", "account %s is closed", code)
	case budgetary(a):
		return Errorf(EINVALID, "§5.05", "account %s is budgetary: encumbrances move only with their orders, employments and claims", code)
	}
	return nil
}

func applyBooksAdjust(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BooksAdjust)
	if err := requireBooks(tx); err != nil {
		return err
	}
	if err := requireRole(tx, c, "Only the treasurer posts an adjusting entry", RoleTreasurer); err != nil {
		return err
	}
	if p.On.After(c.At.Date) {
		return Errorf(EINVALID, "", "An adjusting entry is dated on or before today (%s), not %s.", c.At.Date, p.On)
	}
	ch, err := loadChart(tx)
	if err != nil {
		return err
	}
	for i, l := range p.Lines {
		if err := postable(*ch, l.Account); err != nil {
			return Errorf(ErrorCode(err), ErrorSection(err), "Line %d: %s.", i+1, ErrorMessage(err))
		}
	}
	res.Ref = fmt.Sprintf("ADJ-%d", env.Index)
	res.Note = fmt.Sprintf("adjusting entry of %s: %s", p.On, strings.TrimSpace(p.Reason))
	return nil
}

// booksAdjustLines post the adjusting entry's lines as written, dated by
// its date (post refuses them when they do not balance in every fund, or
// fall in a closed period).
func booksAdjustLines(l *Lines, _ Tx, c Command, _ Result) string {
	p := c.Payload.(*BooksAdjust)
	l.DateOn(p.On)
	for _, x := range p.Lines {
		l.add(x.Account, x.Debit, x.Credit, "", x.Memo)
	}
	return "adjusting entry: " + strings.TrimSpace(p.Reason)
}
