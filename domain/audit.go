package domain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The auditors (§5.15): a certified public accounting firm engaged for
// each calendar year, the engagement confirmed by the board. What the
// auditors read is everything; they change nothing (kiosk/staff/roles.go).

// KindAuditEngagement records the firm engaged to audit a year.
const KindAuditEngagement Kind = "audit_engagement"

// CollectionAuditEngagements holds the engagements by year.
const CollectionAuditEngagements = "audit-engagements"

// AuditEngagement is the CPA firm engaged for a calendar year, with the
// board's confirmation.
type AuditEngagement struct {
	Year         int      `json:"year"`
	Firm         string   `json:"firm"`
	Contact      string   `json:"contact,omitempty"`
	Confirmation string   `json:"confirmation"` // the board's motion
	ConfirmedOn  Date     `json:"confirmed_on"`
	Recorded     DateTime `json:"recorded,omitzero"`
	By           string   `json:"by,omitempty"`
}

// Kind names the payload's kind.
func (*AuditEngagement) Kind() Kind { return KindAuditEngagement }

func (p *AuditEngagement) textFields() []textField {
	return []textField{oneLine("The firm", p.Firm), oneLine("The contact", p.Contact), oneLine("The board's motion", p.Confirmation)}
}

var auditEngagementKind = &Descriptor{
	Kind: KindAuditEngagement, Section: "§5.15", Since: 2,
	Roles: []Role{RoleClerk, RoleAdministrator, RoleTreasurer},
	New:   func() Payload { return new(AuditEngagement) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := *c.Payload.(*AuditEngagement)
		switch {
		case p.Year < 1900 || p.Year > c.At.Date.Year()+1:
			return Errorf(EINVALID, "§5.15", "An engagement is for a calendar year up to next year, not %d.", p.Year)
		case strings.TrimSpace(p.Firm) == "":
			return Errorf(EINVALID, "§5.15", "Name the certified public accounting firm.")
		case strings.TrimSpace(p.Confirmation) == "" || p.ConfirmedOn.IsZero() || p.ConfirmedOn.After(c.At.Date):
			return Errorf(EINVALID, "§5.15", "The engagement needs the board's confirmation: its motion and the day, on or before today.")
		}
		p.Firm, p.Recorded, p.By = strings.TrimSpace(p.Firm), c.At, c.Actor
		res.Ref, res.Note = yearID(p.Year), fmt.Sprintf("%s engaged to audit %d", p.Firm, p.Year)
		return tx.Put(CollectionAuditEngagements, yearID(p.Year), p)
	},
}

// AuditEngagements returns the engagements, by year.
func (x Reads) AuditEngagements() ([]AuditEngagement, error) {
	return all[AuditEngagement](x.r, CollectionAuditEngagements, "")
}

// Deposits returns every deposit slip (§5.06), by id.
func (x Reads) Deposits() ([]DepositSlip, error) {
	return all[DepositSlip](x.r, CollectionDeposits, "")
}

// YearActuals are a year's actuals by month and line account, for the
// auditors' extract (§5.15) and the budget's actuals (§5.02(4)(d)): the
// books' postings for a year the books hold whole, the ledger's own
// count of receipts and expenses for any other (booksHold).
type YearActuals struct {
	Year int
	// From is FromBooks or FromLedger.
	From string
	// Months are by month, then account. From the books a revenue line's
	// postings are in Receipts and an expenditure line's in Expended, each
	// on the account's normal side, the close of the year left out, so a
	// line's months sum to its activity in the year (LineActivity).
	Months []Actual
}

// Total returns what account took in and spent in the year.
func (y YearActuals) Total(account string) (receipts, expended Money) {
	for _, a := range y.Months {
		if a.Account == account {
			receipts, expended = receipts.Add(a.Receipts), expended.Add(a.Expended)
		}
	}
	return receipts, expended
}

// BooksHoldYear reports whether the books hold the whole of year: they
// were open on its first day, or opened during it with the old books'
// trial balance imported.
func (x Reads) BooksHoldYear(year int) (bool, error) {
	opened, ok, err := get[booksOpened](x.r, CollectionBookMeta, "opened")
	if err != nil || !ok {
		return false, err
	}
	_, imported, err := get[OpeningBalances](x.r, CollectionBookMeta, openingBalancesRecord)
	if err != nil {
		return false, err
	}
	return booksHold(opened.On, imported, year), nil
}

// YearActuals returns year's actuals by month and line account.
func (x Reads) YearActuals(year int) (YearActuals, error) {
	out := YearActuals{Year: year, From: FromLedger}
	whole, err := x.BooksHoldYear(year)
	if err != nil {
		return out, err
	}
	if !whole {
		out.Months, err = x.Actuals(year)
		return out, err
	}
	out.From = FromBooks
	ch, err := x.Chart()
	if err != nil {
		return out, err
	}
	// Each line account's totals of each day of the year (CollectionBookDays,
	// kept as the lines post), less the close of the year on its last day:
	// what the year's entries posted to it, without reading the entries.
	closed, err := x.closeOfYear(year)
	if err != nil {
		return out, err
	}
	last := NewDate(year, 12, 31)
	byID := map[string]*Actual{}
	seen := map[string]bool{}
	for _, acct := range ch.Accounts {
		a, _ := ch.Account(acct.Code)
		if seen[a.Code] || !a.Type.Line() {
			continue
		}
		seen[a.Code] = true
		err := x.r.List(CollectionBookDays, fmt.Sprintf("%s/%04d-", a.Code, year), func(id string, raw []byte) error {
			_, day, _ := strings.Cut(id, "/")
			d, err := ParseDate(day)
			if err != nil || d.Year() != year {
				return nil
			}
			var t AccountTotals
			if err := json.Unmarshal(raw, &t); err != nil {
				return err
			}
			if d == last {
				c := closed[a.Code]
				t.Debit, t.Credit = t.Debit.Sub(c.Debit), t.Credit.Sub(c.Credit)
			}
			// Every line debits or credits a positive amount, so a day
			// with neither posted nothing but the close.
			if t.Debit.IsZero() && t.Credit.IsZero() {
				return nil
			}
			id = actualID(year, int(d.Month()), a.Code)
			m, ok := byID[id]
			if !ok {
				m = &Actual{Year: year, Month: int(d.Month()), Account: a.Code}
				byID[id] = m
			}
			if a.Type == AccountRevenue {
				m.Receipts = m.Receipts.Add(t.Credit).Sub(t.Debit)
			} else {
				m.Expended = m.Expended.Add(t.Debit).Sub(t.Credit)
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		out.Months = append(out.Months, *byID[id])
	}
	return out, nil
}
