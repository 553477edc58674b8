package domain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// Investments (§5.09). The Finance Director/Treasurer invests funds of the
// village not immediately needed in securities legal for the purpose under
// Wis. Stat. 66.0603 and 219.05. The register keeps each investment with
// the legal ground it rests on, one of a closed list (InvestmentGrounds):
// an investment that names none is refused, and the grounds whose statute
// limits the term (time deposits at most 3 years, rated securities at most
// 7) refuse a longer one. Interest received is credited to the fund that
// made the investment: a receipt counted in the actuals of a revenue
// account of that fund.

const sectionInvestment = "§5.09"

// Kinds of the investments.
const (
	KindInvestment         Kind = "investment"          // buy an investment, or record its redemption
	KindInvestmentInterest Kind = "investment_interest" // interest received on an investment
)

// Collections and indexes of the investments.
const (
	CollectionInvestments = "investments"             // id → Investment
	IndexInvestmentsOpen  = "investments-by-maturity" // "<matures on>/<id>" while not redeemed
)

// InvestmentGround is a legal ground for an investment of village funds.
type InvestmentGround struct {
	Code     string // as the register keeps it
	Statute  string // the statute that makes the security legal
	Label    string // what it is, for people
	MaxYears int    // the longest term the statute allows, 0 for no limit
}

// InvestmentGrounds returns the legal grounds an investment may rest on,
// a closed list. §5.09 cites "Sections 66.0603 and 219.05, Wis. Stats."
// without subdivisions, and RULES.md adds nothing; the subdivisions below
// are those of the statute's text: 66.0603(1m)(a) lists the securities in
// which a village may invest funds not immediately needed (1. time
// deposits maturing in not more than 3 years; 2. federal bonds and
// securities; 3. bonds and securities of Wisconsin local governments,
// the village's own among them; 4. securities rated in the two highest
// categories, maturing or tenderable within 7 years; 5. shares of a
// no-load registered investment company whose portfolio is limited to
// federal securities and agreements secured by them), (1m)(c) the local
// government pooled-investment fund (25.50), and (1m)(d) agreements with
// a public depository to repay funds advanced plus interest, secured by
// federal securities. Chapter 5 names 219.05 as a second source of
// securities legal for the purpose but not what it makes legal, so its
// ground is stated as the ordinance states it, and choosing it says the
// treasurer relies on that section. The "other" securities of a village
// policy are not here: §5.09 allows only what the statutes make legal
// ("in accordance with" them), so a policy may narrow the list, never
// widen it.
func InvestmentGrounds() []InvestmentGround {
	return []InvestmentGround{
		{"time-deposit", "Wis. Stat. 66.0603(1m)(a)1.", "Time deposit in a credit union, bank, savings bank, trust company or savings and loan association authorized in Wisconsin, maturing in not more than 3 years", 3},
		{"federal", "Wis. Stat. 66.0603(1m)(a)2.", "Bonds or securities issued or guaranteed as to principal and interest by the federal government or its instrumentalities", 0},
		{"wisconsin-local", "Wis. Stat. 66.0603(1m)(a)3.", "Bonds or securities of a Wisconsin county, city, drainage district, technical college district, village, town or school district", 0},
		{"rated", "Wis. Stat. 66.0603(1m)(a)4.", "A security rated in the highest or second highest category by a nationally recognized rating agency, maturing in not more than 7 years", 7},
		{"federal-fund", "Wis. Stat. 66.0603(1m)(a)5.", "Shares of a no-load registered investment company or trust whose portfolio is limited to federal securities and agreements fully secured by them", 0},
		{"lgip", "Wis. Stat. 66.0603(1m)(c)", "The local government pooled-investment fund (Wis. Stat. 25.50)", 0},
		{"repurchase", "Wis. Stat. 66.0603(1m)(d)", "An agreement with a public depository to repay funds advanced plus interest, secured by federal bonds or securities", 0},
		{"219.05", "Wis. Stat. 219.05", "A security legal for the investment of village funds under Wis. Stat. 219.05, as §5.09 cites it", 0},
	}
}

// Ground returns the legal ground of code.
func Ground(code string) (InvestmentGround, bool) {
	i := slices.IndexFunc(InvestmentGrounds(), func(g InvestmentGround) bool { return g.Code == code })
	if i < 0 {
		return InvestmentGround{}, false
	}
	return InvestmentGrounds()[i], true
}

// Investment is one investment of the register.
type Investment struct {
	ID          string   `json:"id"`
	Security    string   `json:"security"`
	Institution string   `json:"institution"`
	Ground      string   `json:"ground"` // InvestmentGround.Code
	Fund        string   `json:"fund"`   // the fund of the chart whose money it is
	Amount      Money    `json:"amount"`
	PurchasedOn Date     `json:"purchased_on"`
	MaturesOn   Date     `json:"matures_on"`
	Rate        string   `json:"rate"` // percent a year, "4.25"
	Recorded    DateTime `json:"recorded"`
	RecordedBy  string   `json:"recorded_by"`
	Interest    Money    `json:"interest"` // interest received so far
	RedeemedOn  Date     `json:"redeemed_on,omitzero"`
}

// Operations on an investment.
const (
	InvestmentBuy    = "buy"
	InvestmentRedeem = "redeem"
)

// InvestmentChange records an investment bought, or redeemed.
type InvestmentChange struct {
	Op          string `json:"op"`
	ID          string `json:"id"`
	Security    string `json:"security,omitempty"`
	Institution string `json:"institution,omitempty"`
	Ground      string `json:"ground,omitempty"`
	Fund        string `json:"fund,omitempty"`
	Amount      Money  `json:"amount,omitzero"`
	PurchasedOn Date   `json:"purchased_on,omitzero"`
	MaturesOn   Date   `json:"matures_on,omitzero"`
	Rate        string `json:"rate,omitempty"`
	RedeemedOn  Date   `json:"redeemed_on,omitzero"`
}

// Kind names the payload's kind.
func (*InvestmentChange) Kind() Kind { return KindInvestment }

func (p *InvestmentChange) textFields() []textField {
	return []textField{oneLine("The investment", p.ID), oneLine("The security", p.Security), oneLine("The institution", p.Institution),
		oneLine("The legal ground", p.Ground), oneLine("The fund", p.Fund), oneLine("The rate", p.Rate)}
}

// InvestmentInterest is interest received on an investment.
type InvestmentInterest struct {
	Investment string `json:"investment"`
	On         Date   `json:"on"`
	Amount     Money  `json:"amount"`
	Revenue    string `json:"revenue"` // a revenue account of the investment's fund
}

// Kind names the payload's kind.
func (*InvestmentInterest) Kind() Kind { return KindInvestmentInterest }

func (p *InvestmentInterest) textFields() []textField {
	return []textField{oneLine("The investment", p.Investment), oneLine("The revenue account", p.Revenue)}
}

var (
	investmentKind = &Descriptor{
		Kind: KindInvestment, Section: sectionInvestment, Since: 2,
		Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(InvestmentChange) },
		Apply: applyInvestment,
		Books: investmentLines,
	}
	investmentInterestKind = &Descriptor{
		Kind: KindInvestmentInterest, Section: sectionInvestment, Since: 2,
		Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(InvestmentInterest) },
		Apply: applyInvestmentInterest,
		Books: investmentInterestLines,
	}
)

// investmentLines move the money of an investment between the cash and
// the investments of the fund that made it (§5.09): out of cash when it
// is bought, back when it is redeemed, at the amount invested, which is
// all the register records of it (a redemption's gain or loss is not
// recorded, so none is posted).
func investmentLines(l *Lines, tx Tx, c Command, res Result) string {
	p := c.Payload.(*InvestmentChange)
	v, err := loadInvestment(tx, p.ID)
	if err != nil {
		l.err = err
		return ""
	}
	cash, inv := l.Control(v.Fund, ControlCash), l.Control(v.Fund, ControlInvestments)
	if p.Op == InvestmentRedeem {
		memo := fmt.Sprintf("investment %s redeemed on %s", v.ID, v.RedeemedOn)
		l.Debit(cash, v.Amount, sectionInvestment, memo)
		l.Credit(inv, v.Amount, sectionInvestment, memo)
		return memo
	}
	memo := fmt.Sprintf("investment %s bought on %s: %s", v.ID, v.PurchasedOn, v.Security)
	l.Debit(inv, v.Amount, sectionInvestment, memo)
	l.Credit(cash, v.Amount, sectionInvestment, memo)
	return memo
}

// investmentInterestLines post interest received on an investment
// (§5.09): into the cash of the fund that made it, and the revenue
// account of that fund the treasurer named.
func investmentInterestLines(l *Lines, tx Tx, c Command, res Result) string {
	p := c.Payload.(*InvestmentInterest)
	v, err := loadInvestment(tx, p.Investment)
	if err != nil {
		l.err = err
		return ""
	}
	memo := fmt.Sprintf("interest on investment %s received on %s", v.ID, p.On)
	l.Debit(l.Control(v.Fund, ControlCash), p.Amount, sectionInvestment, memo)
	l.Credit(p.Revenue, p.Amount, sectionInvestment, memo)
	return memo
}

func loadInvestment(tx Tx, id string) (Investment, error) {
	var v Investment
	ok, err := tx.Get(CollectionInvestments, id, &v)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, sectionInvestment, "There is no investment %q.", id)
	}
	return v, err
}

func (v Investment) maturityKey() string { return v.MaturesOn.String() + "/" + v.ID }

func applyInvestment(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*InvestmentChange)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionInvestment, format, args...) }
	if err := validRecordID("investment", p.ID); err != nil {
		return err
	}
	switch p.Op {
	case InvestmentBuy:
	case InvestmentRedeem:
		v, err := loadInvestment(tx, p.ID)
		switch {
		case err != nil:
			return err
		case !v.RedeemedOn.IsZero():
			return Errorf(ECONFLICT, sectionInvestment, "Investment %s was redeemed on %s.", v.ID, v.RedeemedOn)
		case p.RedeemedOn.IsZero() || p.RedeemedOn.After(c.At.Date) || p.RedeemedOn.Before(v.PurchasedOn):
			return bad("Give the day the investment was redeemed: on or after its purchase (%s), on or before today.", v.PurchasedOn)
		}
		v.RedeemedOn = p.RedeemedOn
		if err := tx.Unindex(IndexInvestmentsOpen, v.maturityKey()); err != nil {
			return err
		}
		res.Ref, res.Note = v.ID, fmt.Sprintf("investment %s redeemed on %s", v.ID, v.RedeemedOn)
		return tx.Put(CollectionInvestments, v.ID, v)
	default:
		return bad("Unknown operation %q on an investment (buy or redeem).", p.Op)
	}
	g, ok := Ground(p.Ground)
	switch {
	case strings.TrimSpace(p.Ground) == "":
		return bad("An investment needs its legal ground: §5.09 allows only securities legal under Wis. Stat. 66.0603 or 219.05.")
	case !ok:
		return bad("%q is not a legal ground under Wis. Stat. 66.0603 or 219.05: the village may not invest in it (§5.09).", p.Ground)
	case strings.TrimSpace(p.Security) == "" || strings.TrimSpace(p.Institution) == "":
		return bad("An investment needs the security and the institution holding it.")
	case !p.Amount.IsPositive():
		return bad("The amount invested must be more than $0.00.")
	case p.PurchasedOn.IsZero() || p.PurchasedOn.After(c.At.Date):
		return bad("Give the purchase date, on or before today.")
	case p.MaturesOn.IsZero() || !p.MaturesOn.After(p.PurchasedOn):
		return bad("The maturity date must be after the purchase date.")
	case g.MaxYears > 0 && p.MaturesOn.After(p.PurchasedOn.AddMonths(12*g.MaxYears)):
		return bad("%s allows a term of at most %d years; this one matures on %s.", g.Statute, g.MaxYears, p.MaturesOn)
	}
	rate, err := decimal.NewFromString(strings.TrimSpace(p.Rate))
	if err != nil || rate.IsNegative() || rate.GreaterThan(decimal.NewFromInt(100)) || rate.Exponent() < -4 {
		return bad("The rate %q is not a yearly percentage like 4.25.", p.Rate)
	}
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	if f, ok := chart.Account(p.Fund); !ok || f.Type != AccountFund || f.Closed {
		return bad("%q is not an open fund of the chart: name the fund whose money is invested.", p.Fund)
	}
	if _, err := loadInvestment(tx, p.ID); err == nil {
		return Errorf(ECONFLICT, sectionInvestment, "Investment %s already exists.", p.ID)
	} else if ErrorCode(err) != ENOTFOUND {
		return err
	}
	v := Investment{ID: p.ID, Security: strings.TrimSpace(p.Security), Institution: strings.TrimSpace(p.Institution), Ground: g.Code, Fund: p.Fund,
		Amount: p.Amount, PurchasedOn: p.PurchasedOn, MaturesOn: p.MaturesOn, Rate: strings.TrimSpace(p.Rate), Recorded: c.At, RecordedBy: c.Actor, Interest: Cents(0)}
	if err := tx.Put(CollectionInvestments, v.ID, v); err != nil {
		return err
	}
	res.Ref, res.Note = v.ID, fmt.Sprintf("investment %s: %s in %s, matures %s", v.ID, v.Amount, v.Security, v.MaturesOn)
	return tx.Index(IndexInvestmentsOpen, v.maturityKey())
}

func applyInvestmentInterest(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*InvestmentInterest)
	v, err := loadInvestment(tx, p.Investment)
	switch {
	case err != nil:
		return err
	case !p.Amount.IsPositive():
		return Errorf(EINVALID, sectionInvestment, "The interest must be more than $0.00.")
	case p.On.IsZero() || p.On.After(c.At.Date) || p.On.Before(v.PurchasedOn):
		return Errorf(EINVALID, sectionInvestment, "Give the day the interest was received: on or after the purchase (%s), on or before today.", v.PurchasedOn)
	}
	if err := checkRevenue(tx, sectionInvestment, p.Revenue, v.Fund); err != nil {
		return err
	}
	v.Interest = v.Interest.Add(p.Amount)
	if err := tx.Put(CollectionInvestments, v.ID, v); err != nil {
		return err
	}
	res.Ref, res.Note = v.ID, fmt.Sprintf("interest %s on %s credited to %s (fund %s)", p.Amount, v.ID, p.Revenue, v.Fund)
	return interestReceipt(tx, c, env, KindInvestmentInterest, p.Revenue, v.Institution, "interest "+v.ID, p.Amount, res)
}

// Investments returns the register, by maturity of the open ones first,
// then the redeemed by id.
func (x Reads) Investments() ([]Investment, error) {
	open, err := x.MaturingBy(Date{})
	if err != nil {
		return nil, err
	}
	every, err := all[Investment](x.r, CollectionInvestments, "")
	for _, v := range every {
		if !v.RedeemedOn.IsZero() {
			open = append(open, v)
		}
	}
	return open, err
}

// Investment returns one investment.
func (x Reads) Investment(id string) (Investment, error) {
	return must[Investment](x.r, CollectionInvestments, id, "investment")
}

// MaturingBy returns the investments not redeemed that mature on or
// before d (every one not redeemed when d is zero), by maturity.
func (x Reads) MaturingBy(d Date) ([]Investment, error) {
	keys, err := x.r.Keys(IndexInvestmentsOpen, "")
	if err != nil {
		return nil, err
	}
	var out []Investment
	for _, k := range keys {
		if !d.IsZero() && k[:10] > d.String() {
			break
		}
		v, err := must[Investment](x.r, CollectionInvestments, lastPart(k), "investment")
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
