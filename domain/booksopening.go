package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The opening trial balance (books_opening). When the village converts to
// the appliance, the books open with the automatic opening entry, which
// carries the bills then open (OpenBooks); everything else the old books
// held (cash, investments, payables, refunds owed, fund balance, and a
// year's revenues and expenditures so far when the conversion is made
// during a year) comes in once, as the trial balance of the old books on
// the day the books opened, imported by the treasurer.
//
// The file is the whole trial balance of that day. The import posts, for
// each account, the difference between the file's balance and what the
// automatic opening entry carried, so that every account stands at the
// file's figure on that day; an account the opening entry carried and the
// file does not list is brought to zero. The entry is dated the day the
// books opened, and what was posted after that day (payments taken since)
// is movement after the opening and stays as it is: the import need not
// come before the first payment, only before the first close. It is taken
// once a ledger; what is found wrong afterwards is an adjusting entry.
//
// A line may name a balance-sheet account the chart lacks, with its name,
// type and control: the import adds it to the chart.

// openingBalancesRecord is the id, in CollectionBookMeta, of the record
// of the import (OpeningBalances).
const openingBalancesRecord = "opening-balances"

// MaxOpeningLines bounds the lines of an opening trial balance.
const MaxOpeningLines = 5000

// BooksOpening is the opening trial balance of the books.
type BooksOpening struct {
	// Source says where it came from ("import trial-balance.csv").
	Source string `json:"source,omitempty"`
	// Accounts are the balance-sheet accounts the file adds to the chart.
	Accounts []ChartAccount `json:"accounts,omitempty"`
	Lines    []OpeningLine  `json:"lines"`
}

// OpeningLine is one account's balance in the opening trial balance.
type OpeningLine struct {
	Line    int    `json:"line,omitempty"` // the line of the file, for messages
	Account string `json:"account"`
	Fund    string `json:"fund"`
	Debit   Money  `json:"debit,omitzero"`
	Credit  Money  `json:"credit,omitzero"`
}

// Kind names the payload's kind.
func (*BooksOpening) Kind() Kind { return KindBooksOpening }

func (p *BooksOpening) textFields() []textField {
	fields := []textField{oneLine("The source", p.Source)}
	for _, a := range p.Accounts {
		fields = append(fields, oneLine("An account code", a.Code), oneLine("An account name", a.Name), oneLine("A fund", a.Fund))
	}
	for _, l := range p.Lines {
		fields = append(fields, oneLine("An account", l.Account), oneLine("A fund", l.Fund))
	}
	return fields
}

// OpeningBalances is the record of the import of the opening trial
// balance.
type OpeningBalances struct {
	On        Date     `json:"on"` // the day the books opened, the entry's date
	At        DateTime `json:"at"` // when it was imported
	By        string   `json:"by"`
	Index     uint64   `json:"index"`
	CommandID string   `json:"command_id"`
	Source    string   `json:"source,omitempty"`
	Lines     int      `json:"lines"`
}

var booksOpeningKind = &Descriptor{
	Kind: KindBooksOpening, Since: BooksFormat,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(BooksOpening) },
	Check: func(c Command) error {
		p := c.Payload.(*BooksOpening)
		switch {
		case len(p.Lines) == 0:
			return Errorf(EINVALID, "", "The opening trial balance has no lines.")
		case len(p.Lines) > MaxOpeningLines:
			return Errorf(EINVALID, "", "An opening trial balance has at most %d lines.", MaxOpeningLines)
		}
		return nil
	},
	Apply: applyBooksOpening,
	Books: booksOpeningLines,
}

// CheckOpening checks an opening trial balance against chart ch, as the
// ledger will: every problem, each named by its line of the file (an
// unknown account, a fund that is not the account's, an amount on both
// sides or below zero, an account listed twice, an account it adds that
// is not a balance-sheet account of a fund), then every fund that does
// not balance. No error means the import would be taken.
func CheckOpening(ch Chart, p *BooksOpening) []error {
	var errs []error
	at := func(l OpeningLine, format string, args ...any) {
		where := ""
		if l.Line > 0 {
			where = fmt.Sprintf("Line %d: ", l.Line)
		}
		errs = append(errs, Errorf(EINVALID, "", where+format, args...))
	}
	lineOf := func(code string) OpeningLine {
		for _, l := range p.Lines {
			if l.Account == code {
				return l
			}
		}
		return OpeningLine{Account: code}
	}
	next := chartOf(ch.Accounts)
	for _, a := range p.Accounts {
		l := lineOf(a.Code)
		switch {
		case !a.Type.BalanceSheet():
			at(l, "account %s is not in the chart; the import adds only balance-sheet accounts (asset, liability, deferred_inflow, fund_balance): add %s to the chart first.", a.Code, a.Code)
			continue
		case slices.ContainsFunc(ch.Accounts, func(x ChartAccount) bool { return x.Code == a.Code }):
			at(l, "account %s is in the chart already: leave its name, type and control empty.", a.Code)
			continue
		}
		if err := a.check(); err != nil {
			at(l, "%s", ErrorMessage(err))
			continue
		}
		next.put(a)
	}
	for _, a := range p.Accounts {
		if err := next.checkRefs(a); err != nil {
			at(lineOf(a.Code), "%s", ErrorMessage(err))
		}
	}
	funds := map[string][2]Money{}
	var order []string
	seen := map[string]int{}
	for _, l := range p.Lines {
		if first, ok := seen[l.Account]; ok {
			at(l, "account %s is listed twice (first on line %d).", l.Account, first)
			continue
		}
		seen[l.Account] = l.Line
		if err := postable(*next, l.Account); err != nil {
			at(l, "%s.", ErrorMessage(err))
			continue
		}
		a, _ := next.Account(l.Account)
		switch {
		case l.Fund != "" && l.Fund != a.Fund:
			at(l, "account %s is of fund %s, not %s.", l.Account, a.Fund, l.Fund)
			continue
		case l.Debit.IsNegative() || l.Credit.IsNegative():
			at(l, "the amounts are positive; a credit balance goes in the credit column.")
			continue
		case l.Debit.IsPositive() && l.Credit.IsPositive():
			at(l, "a balance is a debit or a credit, not both.")
			continue
		}
		if _, ok := funds[a.Fund]; !ok {
			order = append(order, a.Fund)
		}
		t := funds[a.Fund]
		t[0], t[1] = t[0].Add(l.Debit), t[1].Add(l.Credit)
		funds[a.Fund] = t
	}
	if len(errs) > 0 {
		return errs
	}
	slices.Sort(order)
	for _, f := range order {
		if t := funds[f]; !t[0].Equal(t[1]) {
			errs = append(errs, Errorf(EINVALID, "", "Fund %s does not balance: debits $%s, credits $%s.", f, t[0], t[1]))
		}
	}
	if len(p.Lines) == 0 {
		errs = append(errs, Errorf(EINVALID, "", "The opening trial balance has no lines."))
	}
	return errs
}

// OpeningLines returns the lines the import of p posts over the automatic
// opening entry's lines carried: for each account of the file, its
// balance less what the opening entry carried to it, then, for each
// account the opening entry carried and the file does not list, the
// reverse of what it carried. Accounts already at the file's figure post
// nothing. p is taken as checked (CheckOpening).
func OpeningLines(carried []BookLine, p *BooksOpening) []BookLine {
	held := map[string]Money{} // debits less credits
	fundOf := map[string]string{}
	var order []string
	for _, x := range carried {
		if _, ok := held[x.Account]; !ok {
			order = append(order, x.Account)
		}
		held[x.Account] = held[x.Account].Add(x.Debit).Sub(x.Credit)
		fundOf[x.Account] = x.Fund
	}
	var out []BookLine
	line := func(account, fund string, net Money, memo string) {
		switch {
		case net.IsPositive():
			out = append(out, BookLine{Account: account, Fund: fund, Debit: net, Memo: memo})
		case net.IsNegative():
			out = append(out, BookLine{Account: account, Fund: fund, Credit: net.Neg(), Memo: memo})
		}
	}
	listed := map[string]bool{}
	for _, l := range p.Lines {
		listed[l.Account] = true
		line(l.Account, l.Fund, l.Debit.Sub(l.Credit).Sub(held[l.Account]), "opening balance")
	}
	for _, code := range order {
		if !listed[code] {
			line(code, fundOf[code], held[code].Neg(), "not in the opening trial balance")
		}
	}
	return out
}

func applyBooksOpening(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*BooksOpening)
	if err := requireBooks(tx); err != nil {
		return err
	}
	if err := requireRole(tx, c, "Only the treasurer imports the opening trial balance", RoleTreasurer); err != nil {
		return err
	}
	var done OpeningBalances
	if ok, err := tx.Get(CollectionBookMeta, openingBalancesRecord, &done); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "", "The opening trial balance was imported on %s by %s: correct it with a dated adjusting entry.", done.At.Date, done.By)
	}
	ch, err := loadChart(tx)
	if err != nil {
		return err
	}
	if errs := CheckOpening(*ch, p); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = ErrorMessage(e)
		}
		return Errorf(EINVALID, "", "Nothing was imported: %s", strings.Join(msgs, " "))
	}
	for _, a := range p.Accounts {
		a.Changed, a.ChangedBy = c.At, c.Actor
		ch.put(a)
	}
	if len(p.Accounts) > 0 {
		if err := tx.Put(CollectionChart, chartRecord, ch.Accounts); err != nil {
			return err
		}
	}
	var opened booksOpened
	if _, err := tx.Get(CollectionBookMeta, "opened", &opened); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("opening trial balance of %s: %d line(s)", opened.On, len(p.Lines))
	return tx.Put(CollectionBookMeta, openingBalancesRecord, OpeningBalances{On: opened.On, At: c.At, By: c.Actor, Index: env.Index, CommandID: c.ID, Source: p.Source, Lines: len(p.Lines)})
}

// booksOpeningLines post the opening trial balance, dated the day the
// books opened, over what the automatic opening entry carried.
func booksOpeningLines(l *Lines, tx Tx, c Command, _ Result) string {
	p := c.Payload.(*BooksOpening)
	var opened booksOpened
	if _, err := tx.Get(CollectionBookMeta, "opened", &opened); err != nil {
		l.err = err
		return ""
	}
	var auto BookEntry
	if _, err := tx.Get(CollectionBookEntries, bookEntryID(opened.On, opened.Index), &auto); err != nil {
		l.err = err
		return ""
	}
	l.DateOn(opened.On)
	for _, x := range OpeningLines(auto.Lines, p) {
		l.add(x.Account, x.Debit, x.Credit, "", x.Memo)
	}
	memo := "opening trial balance"
	if p.Source != "" {
		memo += " from " + p.Source
	}
	return memo
}
