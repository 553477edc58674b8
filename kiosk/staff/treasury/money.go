package treasury

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// The depositories (§5.06), the investments (§5.09) and the county
// settlements (§5.17).

// depositoryRow is one depository as the page shows it.
type depositoryRow struct {
	ID, Name, Institution, Resolution, From, To, EndResolution, Interest string
	Designated                                                           bool
}

// treasuryView is the depositories page and the investments page.
type treasuryView struct {
	Rows      []depositoryRow
	Revenue   []view.Option // revenue accounts interest may be credited to
	CanAct    bool
	Error     string
	Today     string
	Form      map[string]string
	Funds     []view.Option
	Grounds   []view.Option
	Investing []investmentRow
}

// investmentRow is one investment as the page shows it.
type investmentRow struct {
	ID, Security, Institution, Ground, Statute, Fund, Amount, PurchasedOn, MaturesOn, Rate, Interest, RedeemedOn string
	Soon                                                                                                         bool
}

func (m *Module) revenueOptions() ([]view.Option, []view.Option, error) {
	chart, err := m.o.Reads().Chart()
	if err != nil {
		return nil, nil, err
	}
	var rev, funds []view.Option
	for _, a := range chart.Of(domain.AccountRevenue) {
		rev = append(rev, view.Option{Value: a.Code, Label: a.Code + " " + a.Name + " (fund " + a.Fund + ")"})
	}
	for _, a := range chart.Of(domain.AccountFund) {
		funds = append(funds, view.Option{Value: a.Code, Label: a.Code + " " + a.Name})
	}
	return rev, funds, nil
}

func (m *Module) showDepositories(w http.ResponseWriter, r *http.Request) {
	m.depositoriesPage(w, r, http.StatusOK, "", nil)
}

func (m *Module) depositoriesPage(w http.ResponseWriter, r *http.Request, status int, msg string, form map[string]string) {
	ds, err := m.o.Reads().Depositories()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	rev, _, err := m.revenueOptions()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	today := m.o.Today()
	v := treasuryView{Revenue: rev, CanAct: staff.Allowed(m.o.Who(r).Role, staff.CapTreasury), Error: msg, Today: today.String(), Form: form}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	for _, d := range ds {
		row := depositoryRow{ID: d.ID, Name: d.Name, Institution: d.Institution, Resolution: d.Resolution, From: d.From.String(), EndResolution: d.EndResolution,
			Interest: dollars(d.Interest), Designated: d.DesignatedOn(today)}
		if !d.To.IsZero() {
			row.To = d.To.String()
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, status, depositoriesPage(m.o.Frame(r, "Public depositories"), v))
}

func formOf(r *http.Request, o *staff.Office, keys ...string) map[string]string {
	f := map[string]string{}
	for _, k := range keys {
		f[k] = o.Form(r, k)
	}
	return f
}

func (m *Module) submitDepository(w http.ResponseWriter, r *http.Request) {
	f := formOf(r, m.o, "id", "name", "institution", "resolution", "from", "to", "number")
	show := func(status int, msg string) { m.depositoriesPage(w, r, status, msg, f) }
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: strings.ToUpper(f["id"]), Name: f["name"], Institution: f["institution"], Resolution: f["resolution"], Number: f["number"]}
		var err error
		if p.From, err = staff.ParseDate("The first day of the designation", f["from"]); err == nil {
			p.To, err = optionalDate("The last day of the designation", f["to"])
		}
		return &p, err
	}, staff.To("/staff/depositories"))
}

func (m *Module) submitDepositoryEnd(w http.ResponseWriter, r *http.Request) {
	show := func(status int, msg string) { m.depositoriesPage(w, r, status, msg, nil) }
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.DepositoryChange{Op: domain.DepositoryEnd, ID: r.PathValue("id"), Resolution: m.o.Form(r, "resolution")}
		var err error
		p.To, err = staff.ParseDate("The last day of the designation", m.o.Form(r, "to"))
		return &p, err
	}, staff.To("/staff/depositories"))
}

func (m *Module) submitDepositoryInterest(w http.ResponseWriter, r *http.Request) {
	show := func(status int, msg string) { m.depositoriesPage(w, r, status, msg, nil) }
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.DepositoryInterest{Depository: r.PathValue("id"), Revenue: m.o.Form(r, "revenue"), Statement: m.o.Form(r, "statement")}
		var err error
		if p.On, err = staff.ParseDate("The day the interest was credited", m.o.Form(r, "on")); err == nil {
			p.Amount, err = staff.ParseAmount("The interest", m.o.Form(r, "amount"))
		}
		return &p, err
	}, staff.To("/staff/depositories"))
}

func (m *Module) showInvestments(w http.ResponseWriter, r *http.Request) {
	m.investmentsPage(w, r, http.StatusOK, "", nil)
}

func (m *Module) investmentsPage(w http.ResponseWriter, r *http.Request, status int, msg string, form map[string]string) {
	vs, err := m.o.Reads().Investments()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	rev, funds, err := m.revenueOptions()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	today := m.o.Today()
	v := treasuryView{Revenue: rev, Funds: funds, CanAct: staff.Allowed(m.o.Who(r).Role, staff.CapTreasury), Error: msg, Today: today.String(), Form: form}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	v.Grounds = append(v.Grounds, view.Option{Value: "", Label: "— choose the legal ground —"})
	for _, g := range domain.InvestmentGrounds() {
		v.Grounds = append(v.Grounds, view.Option{Value: g.Code, Label: g.Statute + ": " + g.Label, Selected: v.Form["ground"] == g.Code})
	}
	for _, x := range vs {
		g, _ := domain.Ground(x.Ground)
		row := investmentRow{ID: x.ID, Security: x.Security, Institution: x.Institution, Ground: g.Label, Statute: g.Statute, Fund: x.Fund, Amount: dollars(x.Amount),
			PurchasedOn: x.PurchasedOn.String(), MaturesOn: x.MaturesOn.String(), Rate: x.Rate + "%", Interest: dollars(x.Interest)}
		if !x.RedeemedOn.IsZero() {
			row.RedeemedOn = x.RedeemedOn.String()
		} else {
			row.Soon = !x.MaturesOn.After(today.AddDays(maturityDays))
		}
		v.Investing = append(v.Investing, row)
	}
	m.o.Render(w, r, status, investmentsPage(m.o.Frame(r, "Investments"), v))
}

// submitInvestment records an investment bought; investments are numbered
// INV-<year>-<nnn> in the order they are recorded.
func (m *Module) submitInvestment(w http.ResponseWriter, r *http.Request) {
	f := formOf(r, m.o, "security", "institution", "ground", "fund", "amount", "purchased_on", "matures_on", "rate")
	show := func(status int, msg string) { m.investmentsPage(w, r, status, msg, f) }
	all, err := m.o.Reads().Investments()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.InvestmentChange{Op: domain.InvestmentBuy, Security: f["security"], Institution: f["institution"], Ground: f["ground"], Fund: f["fund"], Rate: strings.TrimSuffix(f["rate"], "%")}
		var err error
		if p.Amount, err = staff.ParseAmount("The amount invested", f["amount"]); err == nil {
			if p.PurchasedOn, err = staff.ParseDate("The purchase date", f["purchased_on"]); err == nil {
				p.MaturesOn, err = staff.ParseDate("The maturity date", f["matures_on"])
			}
		}
		year, n := m.o.Today().Year(), 1
		for _, x := range all {
			if strings.HasPrefix(x.ID, fmt.Sprintf("INV-%d-", year)) {
				n++
			}
		}
		p.ID = fmt.Sprintf("INV-%d-%03d", year, n)
		return &p, err
	}, staff.To("/staff/investments"))
}

func (m *Module) submitInvestmentInterest(w http.ResponseWriter, r *http.Request) {
	show := func(status int, msg string) { m.investmentsPage(w, r, status, msg, nil) }
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.InvestmentInterest{Investment: r.PathValue("id"), Revenue: m.o.Form(r, "revenue")}
		var err error
		if p.On, err = staff.ParseDate("The day the interest was received", m.o.Form(r, "on")); err == nil {
			p.Amount, err = staff.ParseAmount("The interest", m.o.Form(r, "amount"))
		}
		return &p, err
	}, staff.To("/staff/investments"))
}

func (m *Module) submitInvestmentRedeem(w http.ResponseWriter, r *http.Request) {
	show := func(status int, msg string) { m.investmentsPage(w, r, status, msg, nil) }
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p := domain.InvestmentChange{Op: domain.InvestmentRedeem, ID: r.PathValue("id")}
		var err error
		p.RedeemedOn, err = staff.ParseDate("The day it was redeemed", m.o.Form(r, "redeemed_on"))
		return &p, err
	}, staff.To("/staff/investments"))
}

// settlementView is the statement of one settlement with its payment form.
type settlementView struct {
	County, CountyTitle, Period, From, Through, DueOn string
	Year                                              int
	Lines                                             []settlementLine
	Specials, Due, Paid, Unsettled                    string
	Collected, VillageShare, Kept                     string
	Apportioned                                       bool
	Shares                                            []settlementShareRow
	Payees                                            []view.Option
	Levy                                              string // the roll's apportionment page
	PastDue                                           bool
	Payments                                          []settlementPayment
	CSV, PDF                                          string
	CanAct                                            bool
	Error                                             string
	Today                                             string
	Counties, Periods                                 []view.Option
}

type settlementLine struct{ TaxBill, Parcel, Receipt, At, GeneralTax, Specials string }
type settlementPayment struct{ Jurisdiction, PaidOn, Amount, Reference, By string }

// settlementShareRow is one jurisdiction's share of a settlement.
type settlementShareRow struct {
	Jurisdiction, Name, Kind, Levy, Share, Paid, Unsettled string
	Retained                                               bool
}

// jurisdictionName returns the name of the roll's jurisdiction code in a
// statement, or the code.
func jurisdictionName(st domain.SettlementStatement, code string) string {
	for _, sh := range st.Shares {
		if sh.Jurisdiction == code {
			return sh.Name
		}
	}
	return code
}

// settlementOf reads the county, roll year and period of a request
// (?county=&year=&period= or the path), last year's January settlement in
// Dane by default.
func (m *Module) settlementOf(r *http.Request, get func(string) string) (domain.SettlementStatement, error) {
	county := domain.County(get("county"))
	if county == "" {
		county = domain.Dane
	}
	year := m.o.Today().Year() - 1
	if s := get("year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 1900 || y > 9998 {
			return domain.SettlementStatement{}, domain.Errorf(domain.ENOTFOUND, "§5.17", "There is no roll year %q.", s)
		}
		year = y
	}
	period := get("period")
	if period == "" {
		period = domain.SettleJanuary
	}
	return m.o.Reads().Settlement(county, year, period, m.o.Today())
}

func (m *Module) showSettlement(w http.ResponseWriter, r *http.Request) {
	m.settlementPage(w, r, http.StatusOK, "")
}

func (m *Module) settlementPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	get := r.URL.Query().Get
	if r.Method == http.MethodPost {
		get = func(k string) string { return m.o.Form(r, k) }
	}
	st, err := m.settlementOf(r, get)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := settlementView{County: string(st.County), CountyTitle: st.County.Title(), Period: st.Period, Year: st.TaxYear, Through: st.Through.String(), DueOn: st.DueOn.String(),
		Specials: dollars(st.Specials), Due: dollars(st.Due), Paid: dollars(st.Paid), Unsettled: dollars(st.Unsettled), PastDue: st.PastDue,
		Collected: dollars(st.Collected), VillageShare: dollars(st.VillageShare), Apportioned: st.Apportioned,
		Levy:   fmt.Sprintf("/staff/levy?county=%s&year=%d", st.County, st.TaxYear),
		CSV:    fmt.Sprintf("/staff/settlements/%s/%d/%s", st.County, st.TaxYear, st.Period+".csv"),
		PDF:    fmt.Sprintf("/staff/settlements/%s/%d/%s", st.County, st.TaxYear, st.Period+".pdf"),
		CanAct: staff.Allowed(m.o.Who(r).Role, staff.CapTreasury), Error: msg, Today: m.o.Today().String()}
	picked := m.o.Form(r, "jurisdiction")
	for _, sh := range st.Shares {
		v.Shares = append(v.Shares, settlementShareRow{Jurisdiction: sh.Jurisdiction, Name: sh.Name, Kind: sh.Kind.Title(), Levy: dollars(sh.Levy), Share: dollars(sh.Share),
			Paid: dollars(sh.Paid), Unsettled: dollars(sh.Unsettled), Retained: sh.Retained})
		switch left := sh.Share.Sub(sh.Paid); {
		case !sh.Retained:
			v.Payees = append(v.Payees, view.Option{Value: sh.Jurisdiction, Label: fmt.Sprintf("%s (%s left)", sh.Name, dollars(sh.Unsettled)), Selected: sh.Jurisdiction == picked})
		case m.o.LedgerFormat() >= domain.ReconciledFormat && left.IsPositive(): // the village's own share is recorded as kept
			v.Payees = append(v.Payees, view.Option{Value: sh.Jurisdiction, Label: fmt.Sprintf("%s: its own share, kept (%s left to record)", sh.Name, dollars(left)), Selected: sh.Jurisdiction == picked})
		}
	}
	v.Kept = dollars(st.Kept)
	v.From = "the roll's issue"
	if !st.From.IsZero() {
		v.From = st.From.String()
	}
	for _, c := range []domain.County{domain.Dane, domain.Green} {
		v.Counties = append(v.Counties, view.Option{Value: string(c), Label: c.Title(), Selected: c == st.County})
	}
	for _, p := range domain.SettlementPeriods() {
		v.Periods = append(v.Periods, view.Option{Value: p, Label: title(p), Selected: p == st.Period})
	}
	for _, l := range st.Lines {
		v.Lines = append(v.Lines, settlementLine{TaxBill: l.TaxBill, Parcel: l.Parcel, Receipt: l.Receipt, At: l.At.String(), GeneralTax: dollars(l.GeneralTax), Specials: dollars(l.Specials)})
	}
	for _, p := range st.Payments {
		v.Payments = append(v.Payments, settlementPayment{Jurisdiction: jurisdictionName(st, p.Jurisdiction), PaidOn: p.PaidOn.String(), Amount: dollars(p.Amount), Reference: p.Reference, By: p.By})
	}
	m.o.Render(w, r, status, settlementPage(m.o.Frame(r, "Settlement of the tax roll"), v))
}

// showSettlementFile serves a statement as CSV or PDF:
// /staff/settlements/{county}/{year}/{period}.csv or .pdf.
func (m *Module) showSettlementFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("period")
	period, ext, _ := strings.Cut(name, ".")
	if ext != "csv" && ext != "pdf" {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such page."))
		return
	}
	st, err := m.settlementOf(r, func(k string) string {
		if k == "period" {
			return period
		}
		return r.PathValue(k)
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if ext == "pdf" {
		var buf bytes.Buffer
		if err := settlementPDF(&buf, st, m.o.Location()); err != nil {
			m.o.Fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="settlement-%s-%d-%s.pdf"`, st.County, st.TaxYear, st.Period))
		_, _ = w.Write(buf.Bytes())
		return
	}
	out := m.o.CSV(w, fmt.Sprintf("settlement-%s-%d-%s.csv", st.County, st.TaxYear, st.Period))
	_ = out.Write([]string{"county", "roll_year", "period", "collected_through", "due_on", "tax_bill", "parcel", "receipt", "at", "general_tax", "special_items"})
	for _, l := range st.Lines {
		_ = out.Write([]string{string(st.County), itoa(st.TaxYear), st.Period, st.Through.String(), st.DueOn.String(), l.TaxBill, l.Parcel, l.Receipt, l.At.String(), l.GeneralTax.String(), l.Specials.String()})
	}
	total := func(label string, amount domain.Money) {
		_ = out.Write([]string{string(st.County), itoa(st.TaxYear), st.Period, st.Through.String(), st.DueOn.String(), "", "", "", label, amount.String(), ""})
	}
	total("total general tax collected", st.Collected)
	total("total special items kept by the village", st.Specials)
	if !st.Apportioned {
		total("due to the jurisdictions (levy apportionment not recorded)", st.Due)
	}
	total("paid", st.Paid)
	total("unsettled", st.Unsettled)
	if st.Apportioned {
		// The shares, one row a jurisdiction: its levy, its share of the
		// collections, what was paid to it and what is left (the
		// village's share is kept).
		_ = out.Write([]string{"county", "roll_year", "period", "jurisdiction", "name", "kind", "levy", "share", "paid", "unsettled", "kept_by_the_village"})
		for _, sh := range st.Shares {
			_ = out.Write([]string{string(st.County), itoa(st.TaxYear), st.Period, sh.Jurisdiction, sh.Name, string(sh.Kind), sh.Levy.String(), sh.Share.String(), sh.Paid.String(), sh.Unsettled.String(), strconv.FormatBool(sh.Retained)})
		}
	}
	_ = out.Flush()
}

func (m *Module) submitSettlement(w http.ResponseWriter, r *http.Request) {
	show := func(status int, msg string) { m.settlementPage(w, r, status, msg) }
	var p domain.CountySettlement
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		year, err := strconv.Atoi(m.o.Form(r, "year"))
		if err != nil {
			return nil, domain.Errorf(domain.EINVALID, "§5.17", "The roll year %q is not a year.", m.o.Form(r, "year"))
		}
		p = domain.CountySettlement{County: domain.County(m.o.Form(r, "county")), TaxYear: year, Period: m.o.Form(r, "period"), Jurisdiction: m.o.Form(r, "jurisdiction"), Reference: m.o.Form(r, "reference")}
		if p.PaidOn, err = staff.ParseDate("The day it was paid", m.o.Form(r, "paid_on")); err == nil {
			p.Amount, err = staff.ParseAmount("The payment", m.o.Form(r, "amount"))
		}
		if err == nil {
			err = m.o.Reads().CheckSettlementPayment(p, m.o.Today())
		}
		return &p, err
	}, func() string { return settlementURL(p.County, p.TaxYear, p.Period) })
}
