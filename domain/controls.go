package domain

import (
	"slices"
	"strings"
)

// A control account of the books holds, in one figure per fund, what a
// subsidiary record holds item by item: receivables are the open bills,
// vouchers payable the claims allowed and not yet paid, investments the
// securities the register holds. The books and the records are kept by the
// same commands in the same transaction, so they agree; ControlTies proves
// it, for the treasurer before a period is closed and for the auditors
// (§5.15), and the tests check it after every sequence of commands. A
// difference is named, never absorbed: it is a posting the rules made
// without its record, or the reverse, or what the books were opened with
// (a claim allowed before the books opened is owed by the records and not
// by the books until the opening trial balance is imported).

// ControlTie is one control of one fund: its account's balance in the
// books beside what its records add up to.
type ControlTie struct {
	Fund    string
	Control Control
	Account string // the fund's account of the control; "" when it has none yet
	Books   Money  // the account's balance, on its normal side, as of the day tied
	Records Money  // what the records it controls add up to now
	Items   int    // how many records make Records
	Source  string // what the records are, in the treasurer's words
}

// Difference is the books less the records: zero when they tie.
func (t ControlTie) Difference() Money { return t.Books.Sub(t.Records) }

// Ties reports whether the books and the records agree.
func (t ControlTie) Ties() bool { return t.Difference().IsZero() }

// tiedControls are the controls ControlTies reads records for, with what
// the records are.
var tiedControls = []struct {
	control Control
	source  string
}{
	{ControlReceivable, "unpaid principal of the open village bills (not on the tax roll)"},
	{ControlPayable, "claims allowed and not yet paid"},
	{ControlInvestments, "investments held (bought and not redeemed)"},
}

// ControlTies ties the control accounts to their records, fund by fund:
// the books' balances as of today (every posting: no command is dated
// after the day it is taken) against the records as they stand. bills are every bill of the ledger (the replicated
// store keeps them apart from the named collections, so the caller reads
// them); today dates their figures. Only a fund with an account or a
// record of the control has a row; the rows are by fund, then control.
// With the books closed there is nothing to tie and the answer is empty.
func (x Reads) ControlTies(bills []Bill, today Date, p *Params) ([]ControlTie, error) {
	ch, err := x.Chart()
	if err != nil {
		return nil, err
	}
	if ch.GeneralFund() == "" {
		return nil, nil
	}
	tb, err := x.TrialBalance(today)
	if err != nil {
		return nil, err
	}
	type key struct {
		fund    string
		control Control
	}
	ties := map[key]*ControlTie{}
	tie := func(fund string, c Control) *ControlTie {
		k := key{fund, c}
		if ties[k] == nil {
			ties[k] = &ControlTie{Fund: fund, Control: c}
		}
		return ties[k]
	}
	tied := func(c Control) bool {
		return slices.ContainsFunc(tiedControls, func(t struct {
			control Control
			source  string
		}) bool {
			return t.control == c
		})
	}
	for _, row := range tb.Rows {
		if a := row.Account; a.Control != "" && tied(a.Control) {
			t := tie(a.Fund, a.Control)
			t.Account, t.Books = a.Code, t.Books.Add(row.Balance())
		}
	}
	for _, b := range bills {
		if b.Certified != nil {
			continue // on the tax roll: due from the county, not a receivable
		}
		fig, err := b.Figures(today, p)
		if err != nil {
			return nil, err
		}
		if fig.UnpaidPrincipal.IsZero() {
			continue
		}
		t := tie(billFund(ch, b), ControlReceivable)
		t.Records, t.Items = t.Records.Add(fig.UnpaidPrincipal), t.Items+1
	}
	claims, err := all[Claim](x.r, CollectionClaims, "CL-")
	if err != nil {
		return nil, err
	}
	for _, cl := range claims {
		if cl.Status != ClaimApproved {
			continue
		}
		t := tie(ch.FundOf(cl.Line), ControlPayable)
		t.Records, t.Items = t.Records.Add(cl.Amount), t.Items+1
	}
	investments, err := x.Investments()
	if err != nil {
		return nil, err
	}
	for _, v := range investments {
		if !v.RedeemedOn.IsZero() {
			continue
		}
		t := tie(v.Fund, ControlInvestments)
		t.Records, t.Items = t.Records.Add(v.Amount), t.Items+1
	}
	out := make([]ControlTie, 0, len(ties))
	for _, t := range ties {
		for _, c := range tiedControls {
			if c.control == t.Control {
				t.Source = c.source
			}
		}
		out = append(out, *t)
	}
	order := func(c Control) int {
		return slices.IndexFunc(tiedControls, func(t struct {
			control Control
			source  string
		}) bool {
			return t.control == c
		})
	}
	general := ch.GeneralFund()
	slices.SortFunc(out, func(a, b ControlTie) int {
		if (a.Fund == general) != (b.Fund == general) {
			if a.Fund == general {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Fund, b.Fund); c != 0 {
			return c
		}
		return order(a.Control) - order(b.Control)
	})
	return out, nil
}

// FundOf returns the fund of account code, "" when the chart does not
// hold it.
func (ch Chart) FundOf(code string) string {
	a, _ := ch.Account(code)
	return a.Fund
}

// RevenueOf returns the revenue line a receipt counts in, as the postings
// find it (Lines.RevenueOf): own when it is a revenue line of the chart,
// else the line collecting source, else the general fund's unclassified
// revenue (which the postings add to the chart when they first need it).
func (ch Chart) RevenueOf(own, source string) string {
	if a, ok := ch.Account(own); ok && own != "" && a.Type == AccountRevenue {
		return own
	}
	if c := ch.Collector(source); c != "" {
		return c
	}
	return ch.GeneralFund() + "-" + unclassifiedRevenue
}
