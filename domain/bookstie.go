package domain

import "time"

// BooksTie is the books as they stand, every entry posted whatever its
// date, set beside the village bills their receivables control: what a
// checker compares across the nodes of a cluster and across an upgrade.
// The books keep two promises it makes visible: every fund balances
// (debits equal credits), and each fund's receivables are the principal
// its open bills still owe (§5.10).
type BooksTie struct {
	// Open reports whether the books are open (BooksStatus); a ledger
	// without books has no accounts and ties trivially.
	Open bool `json:"open"`
	// Debit and Credit are the trial balance's totals.
	Debit  Money `json:"debit"`
	Credit Money `json:"credit"`
	// Accounts are the debits and credits posted to each account, by code.
	Accounts map[string]AccountTotals `json:"accounts"`
	// Funds are the figures of each fund with postings or open bills,
	// by the fund's code.
	Funds map[string]FundTie `json:"funds"`
}

// FundTie is one fund's trial balance and its receivables beside the
// bills behind them.
type FundTie struct {
	Debit  Money `json:"debit"`
	Credit Money `json:"credit"`
	// Receivable is the balance of the fund's accounts that control
	// village bills receivable (ControlReceivable): debits less credits.
	Receivable Money `json:"receivable"`
	// OpenPrincipal is the principal the fund's bills still owe, but for
	// bills certified to the tax roll, which the county collects and the
	// books carry as due from the county.
	OpenPrincipal Money `json:"open_principal"`
}

// Balanced reports whether the fund's debits equal its credits.
func (f FundTie) Balanced() bool { return f.Debit.Equal(f.Credit) }

// Tied reports whether the fund's receivables are its open bills' principal.
func (f FundTie) Tied() bool { return f.Receivable.Equal(f.OpenPrincipal) }

// endOfBooks is the as-of date that takes in every entry: an entry is
// dated by its command's legal date, which no ledger reaches this far.
var endOfBooks = NewDate(9999, time.December, 31)

// BooksTie reads the books as they stand and sets them beside bills,
// which must be every bill of the ledger with its payments (the replica
// keeps bills apart from the records Reads reads). A bill's fund is its
// revenue line's, found as its receipts post (Lines.RevenueOf): the
// bill's own revenue account, else the line collecting village bills,
// else the general fund. The fund is read from the chart as it stands,
// so a chart that moved the collecting line to another fund after bills
// were issued shows those bills untied.
func (x Reads) BooksTie(bills []Bill) (BooksTie, error) {
	tie := BooksTie{Accounts: map[string]AccountTotals{}, Funds: map[string]FundTie{}}
	st, err := x.BooksStatus()
	if err != nil {
		return tie, err
	}
	tie.Open = st.Open
	tb, err := x.TrialBalance(endOfBooks)
	if err != nil {
		return tie, err
	}
	tie.Debit, tie.Credit = tb.Debit, tb.Credit
	for _, r := range tb.Rows {
		tie.Accounts[r.Account.Code] = AccountTotals{Debit: r.Debit, Credit: r.Credit}
		f := tie.Funds[r.Account.Fund]
		f.Debit, f.Credit = f.Debit.Add(r.Debit), f.Credit.Add(r.Credit)
		if r.Account.Control == ControlReceivable {
			f.Receivable = f.Receivable.Add(r.Debit).Sub(r.Credit)
		}
		tie.Funds[r.Account.Fund] = f
	}
	if !tie.Open {
		return tie, nil
	}
	ch, err := x.Chart()
	if err != nil {
		return tie, err
	}
	for _, b := range bills {
		if b.Certified != nil {
			continue
		}
		fund := billFund(ch, b)
		f := tie.Funds[fund]
		f.OpenPrincipal = f.OpenPrincipal.Add(b.unpaidPrincipal())
		tie.Funds[fund] = f
	}
	return tie, nil
}

// billFund is the fund whose receivables hold b's principal: the fund of
// the revenue line its receipts post to (Chart.RevenueOf).
func billFund(ch Chart, b Bill) string { return ch.FundOf(ch.RevenueOf(b.Revenue, SourceBills)) }

// unpaidPrincipal is the principal b still owes after every payment it
// holds: its summary's, or its principal less what its payments paid of
// it for a bill stored before summaries.
func (b Bill) unpaidPrincipal() Money {
	if b.Summary != nil {
		return b.Summary.UnpaidPrincipal
	}
	principal := b.Principal
	for _, p := range b.Payments {
		principal = principal.Sub(p.Allocation.Principal)
	}
	return principal
}
